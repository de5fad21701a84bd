"""``bgai export --onnx``: the ONNX file computes what the network computes (checked with onnxruntime)."""

from __future__ import annotations

import json

import numpy as np
import onnxruntime
import torch

from bgai.cli.main import main
from bgai.model.checkpoint import load_net
from bgai.model.encoding import get_encoding
from tests.positions import random_boards


def test_exported_onnx_matches_the_network(tmp_path, capsys):
    out = tmp_path / "expert"
    assert main(["export", "checkpoints/best.pt", "--level", "expert", "-o", str(out), "--onnx"]) == 0
    info = json.loads((out / "bgai.json").read_text())
    assert info["onnx"]["files"] == {"net": "model.onnx"}
    net = load_net("checkpoints/best.pt")
    boards = random_boards(5, 200)
    inputs = get_encoding(info["input_encoding"]["name"])(boards).numpy()
    session = onnxruntime.InferenceSession(str(out / "model.onnx"))
    (probs,) = session.run(None, {session.get_inputs()[0].name: inputs})
    with torch.no_grad():
        expected = net(boards).numpy()
    assert probs.shape == (200, 5)
    np.testing.assert_allclose(probs, expected, atol=1e-5)
