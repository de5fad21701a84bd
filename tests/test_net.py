"""Value networks and the probability helpers (all probabilities for the player on roll)."""

from __future__ import annotations

import io

import pytest
import torch

from bgai.engine.board import is_race, starting_board
from bgai.model.encoding import ENCODINGS, RICH
from bgai.model.first_layer import first_layer
from bgai.model.grow import grow
from bgai.model.net import SplitNet, ValueNet, build_net, check_spec
from bgai.model.probs import cubeless_equity, invert, probs_from_logits
from bgai.model.pubeval import pubeval_scores
from tests.positions import random_boards


def assert_consistent(p: torch.Tensor) -> None:
    win, wg, wbg, lg, lbg = p.unbind(-1)
    assert ((p >= 0) & (p <= 1)).all()
    assert (wbg <= wg + 1e-7).all() and (wg <= win + 1e-7).all()
    assert (lbg <= lg + 1e-7).all() and (lg <= 1 - win + 1e-7).all()


def test_probabilities_are_consistent_by_construction():
    torch.manual_seed(0)
    assert_consistent(probs_from_logits(torch.randn(10_000, 5) * 10))
    net = ValueNet("rich", hidden=(32, 16), activation="relu")
    assert_consistent(net.forward_encoded(torch.randn(1000, RICH.size) * 5))
    assert_consistent(ValueNet()(random_boards(0, 100)))


def test_cubeless_equity_formula():
    p = torch.tensor([[0.6, 0.2, 0.05, 0.1, 0.01], [1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]])
    # 2*0.6 - 1 + (0.2 - 0.1) + (0.05 - 0.01); a certain backgammon win; a certain gammon loss.
    torch.testing.assert_close(cubeless_equity(p), torch.tensor([0.34, 3.0, -2.0]))


def test_invert_swaps_the_players_and_twice_is_identity():
    p = probs_from_logits(torch.randn(500, 5) * 3)
    q = invert(p)
    torch.testing.assert_close(q[:, 0], 1 - p[:, 0])
    torch.testing.assert_close(q[:, 1:], p[:, [3, 4, 1, 2]])
    assert_consistent(q)
    torch.testing.assert_close(invert(q), p)
    torch.testing.assert_close(cubeless_equity(q), -cubeless_equity(p))


@pytest.mark.parametrize(
    "encoding,hidden,checkers,residual",
    [
        ("tesauro198", (40, 20), 15, ()),
        ("rich", (30,), 15, ()),
        ("rich_plus", (24,), 15, ()),
        ("tesauro198", (16,), 3, ()),
        ("rich_plan", (300,), 15, ()),  # wide: only the occupied slots are summed
        ("rich", (30,), 15, (12,)),  # residual blocks after the table's layer
    ],
)
def test_table_first_layer_equals_encode_then_linear(encoding, hidden, checkers, residual):
    torch.manual_seed(1)
    net = ValueNet(encoding, hidden=hidden, checkers=checkers, residual=residual)
    enc = ENCODINGS[encoding]
    boards = random_boards(1, 300) if checkers == 15 else hyper_boards(300)
    with torch.no_grad():  # search and self-play take the table path
        torch.testing.assert_close(net(boards.to(torch.int8)), net.forward_encoded(enc(boards, checkers)))
    # Gradients through the table agree too.
    layer = net.layers[0]
    first_layer(boards.to(torch.int8), layer, enc, checkers).square().sum().backward()
    g_table = [layer.weight.grad.clone(), layer.bias.grad.clone()]
    layer.zero_grad()
    layer(enc(boards, checkers)).square().sum().backward()
    torch.testing.assert_close(g_table, [layer.weight.grad, layer.bias.grad], rtol=1e-5, atol=1e-4)


def test_table_cache_follows_weight_updates():
    torch.manual_seed(2)
    net = ValueNet("rich", hidden=(20,))
    boards = random_boards(3, 100)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.1, fused=True)  # leaves version counters alone
    for _ in range(3):
        with torch.inference_mode():
            fast = net(boards)
        torch.testing.assert_close(fast, net.forward_encoded(RICH(boards)).detach())
        net.forward_encoded(RICH(boards)).sum().backward()
        optimizer.step()  # in place: the cached table must not survive it
        optimizer.zero_grad()
    net.load_state_dict(ValueNet("rich", hidden=(20,)).state_dict())
    with torch.no_grad():
        torch.testing.assert_close(net(boards), net.forward_encoded(RICH(boards)))


def hyper_boards(n: int) -> torch.Tensor:
    """Random hypergammon-sized boards (3 checkers a side, some borne off or on the bar)."""
    g = torch.Generator().manual_seed(2)
    boards = torch.zeros((n, 2, 25), dtype=torch.long)
    for side in range(2):
        slots = torch.randint(0, 26, (n, 3), generator=g)  # 25 = borne off
        for k in range(3):
            on = slots[:, k] < 25
            boards[on.nonzero().squeeze(1), side, slots[on, k]] += 1
    return boards


@pytest.mark.parametrize("spec", [
    {"kind": "value_net", "encoding": "tesauro198", "hidden": [80], "activation": "sigmoid", "checkers": 15},
    {"kind": "value_net", "encoding": "rich", "hidden": [64, 32], "activation": "relu", "checkers": 15},
    {"kind": "value_net", "encoding": "tesauro198", "hidden": [], "activation": "sigmoid", "checkers": 15},
    {"kind": "value_net", "encoding": "rich", "hidden": [16], "activation": "sigmoid", "checkers": 15,
     "residual": [8, 4]},
])  # fmt: skip
def test_from_spec_round_trip_through_a_checkpoint(spec):
    net = build_net(spec)
    assert net.spec() == spec
    buf = io.BytesIO()
    torch.save({"spec": net.spec(), "model": net.state_dict()}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=True)
    again = build_net(ckpt["spec"])
    check_spec(again, ckpt["spec"])
    again.load_state_dict(ckpt["model"])
    boards = random_boards(2, 50)
    torch.testing.assert_close(again(boards), net(boards))


def test_a_spec_mismatch_is_one_line():
    net = ValueNet(hidden=(80,))
    with pytest.raises(ValueError, match=r"^network spec mismatch .*hidden: \[40\] vs \[80\]$"):
        check_spec(net, {**net.spec(), "hidden": [40]})
    with pytest.raises(ValueError, match="unknown encoding"):
        ValueNet("tesauro199")
    with pytest.raises(ValueError, match="unknown network kind"):
        build_net({"kind": "transformer"})


def test_split_net_routes_races_to_the_race_net():
    torch.manual_seed(2)
    split = SplitNet(ValueNet(hidden=(16,)), ValueNet("rich", hidden=(16,)))
    race = torch.zeros(1, 2, 25, dtype=torch.int8)
    race[0, :, :6] = 2  # both sides on their home points 1-6, 12 checkers each
    boards = torch.cat([torch.as_tensor(starting_board())[None], race, random_boards(3, 30)])
    is_r = is_race(boards)
    assert is_r[1] and not is_r[0]
    out = split(boards)
    torch.testing.assert_close(out[is_r], split.race(boards[is_r]))
    torch.testing.assert_close(out[~is_r], split.contact(boards[~is_r]))
    again = build_net(split.spec())
    again.load_state_dict(split.state_dict())
    torch.testing.assert_close(again(boards), out)
    assert split(boards[:1]).shape == (1, 5)  # no race in the batch: the race net sees nothing


def test_no_cpu_constants_sneak_in_on_another_device():
    """The 'meta' device stands in for CUDA: mixing in a CPU constant would raise."""
    boards = torch.zeros(4, 2, 25, dtype=torch.int8, device="meta")
    for enc in ENCODINGS.values():
        assert enc(boards).device.type == "meta"
    assert pubeval_scores(boards, torch.zeros(4, dtype=torch.bool, device="meta")).device.type == "meta"
    for encoding in ENCODINGS:
        assert ValueNet(encoding, hidden=(8,)).to("meta")(boards).shape == (4, 5)


@pytest.mark.parametrize(
    "small,big",
    [
        (ValueNet("rich", hidden=(12,)), ValueNet("rich_plus", hidden=(12,))),
        (ValueNet("rich", hidden=(12, 6)), ValueNet("rich_plus", hidden=(20, 9))),
        (ValueNet("tesauro198", hidden=(10,)), ValueNet("tesauro198", hidden=(10,))),
        (ValueNet("rich", hidden=(8,)), SplitNet(ValueNet("rich_plus", (8,)), ValueNet("rich", (11,)))),
        (ValueNet("rich", hidden=(12,)), ValueNet("rich_plus", hidden=(12,), residual=(6,))),
        (ValueNet("rich", (12,), residual=(5,)), ValueNet("rich", (12,), residual=(5, 7))),
    ],
    ids=["more-inputs", "wider-and-deeper", "same", "into-split", "residual", "more-residual"],
)
@pytest.mark.parametrize("widen", ["silent", "split"])
def test_a_grown_net_computes_what_the_small_one_did(small, big, widen):
    torch.manual_seed(3)
    for p in small.parameters():  # trained-looking weights, not the init's
        p.data.normal_(0, 0.5)
    grow(small, big, widen)
    boards = random_boards(5, 200, opponent_bar=True).to(torch.int8)
    with torch.no_grad():
        torch.testing.assert_close(big(boards), small(boards))
    # and training reaches the new parts: the new units' weights get gradients
    net = big.contact if isinstance(big, SplitNet) else big
    net(boards).sum().backward()
    assert net.head.weight.grad.abs().sum() > 0
    for block in net.blocks[len(getattr(small, "blocks", ())) :]:  # new blocks: silent, yet learning
        assert torch.all(block.outer.weight == 0) and block.outer.weight.grad.abs().sum() > 0


def test_split_widening_makes_every_new_unit_carry_signal_and_learn_apart():
    """Silent new units have no weight out (so no gradient in); split ones share their origin's."""
    small, nets = (
        ValueNet("rich", hidden=(6,)),
        {w: ValueNet("rich", hidden=(10,)) for w in ("silent", "split")},
    )
    for p in small.parameters():
        p.data.normal_(0, 0.5)
    boards = random_boards(7, 100).to(torch.int8)
    grads = {}
    for widen, net in nets.items():
        grow(small, net, widen, seed=1)
        net(boards).sum().backward()
        grads[widen] = net.layers[0].weight.grad[6:].abs().sum(1)
    assert torch.all(nets["silent"].head.weight[:, 6:] == 0) and torch.all(grads["silent"] == 0)
    assert torch.all(nets["split"].head.weight[:, 6:].abs().sum(0) > 0) and torch.all(grads["split"] > 0)
    split = nets["split"]
    # a copy and its origin get different gradients: they do not stay twins
    assert not torch.allclose(split.layers[0].weight.grad[6], split.layers[0].weight.grad[0])
    with pytest.raises(ValueError, match="widen"):
        grow(small, ValueNet("rich", hidden=(10,)), "copy")


def test_growing_refuses_what_does_not_fit():
    with pytest.raises(ValueError, match="cannot grow encoding 'rich_plus' into 'rich'"):
        grow(ValueNet("rich_plus", hidden=(8,)), ValueNet("rich", hidden=(8,)))
    with pytest.raises(ValueError, match=r"cannot grow hidden layers \[8\] into \[4\]"):
        grow(ValueNet("rich", hidden=(8,)), ValueNet("rich", hidden=(4,)))
    with pytest.raises(ValueError, match=r"cannot grow residual blocks \[8\] after \[8\] into \[4\]"):
        grow(ValueNet("rich", (8,), residual=(8,)), ValueNet("rich", (8,), residual=(4,)))
    with pytest.raises(ValueError, match="cannot grow residual blocks"):  # blocks fix the layer's width
        grow(ValueNet("rich", (8,), residual=(8,)), ValueNet("rich", (9,), residual=(8,)))
    with pytest.raises(ValueError, match="split"):
        grow(SplitNet(ValueNet(hidden=(4,)), ValueNet(hidden=(4,))), ValueNet(hidden=(4,)))


def test_join_split_net_sends_races_to_the_race_net_and_refuses_a_split_half(tmp_path):
    import subprocess
    import sys

    from bgai.model.checkpoint import FORMAT, load_net, save_atomic

    torch.manual_seed(0)
    halves = {"contact": ValueNet("tesauro198", (8,)), "race": ValueNet("tesauro198", (8,))}
    for name, net in halves.items():
        save_atomic(
            {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, tmp_path / f"{name}.pt"
        )
    script = ["scripts/build/join_split_net.py", "--contact", str(tmp_path / "contact.pt")]
    run = subprocess.run(
        [sys.executable, *script, "--race", str(tmp_path / "race.pt"), "-o", str(tmp_path / "j.pt")]
    )
    assert run.returncode == 0
    joined = load_net(tmp_path / "j.pt")
    from bgai.engine.sampling import sample_positions

    boards = torch.cat([sample_positions(32, kind, seed=3)[0] for kind in ("race", "greedy")]).long()
    race = is_race(boards)
    assert race.any() and (~race).any()
    with torch.no_grad():
        torch.testing.assert_close(joined(boards[race]), halves["race"](boards[race]))
        torch.testing.assert_close(joined(boards[~race]), halves["contact"](boards[~race]))
    again = [
        sys.executable,
        *script[:2],
        str(tmp_path / "j.pt"),
        "--race",
        "best",
        "-o",
        str(tmp_path / "k.pt"),
    ]
    refused = subprocess.run(again, capture_output=True, text=True)
    assert refused.returncode == 2 and "already a split net" in refused.stderr
