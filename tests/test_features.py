"""The fused hand-crafted features against the one-feature-at-a-time code they replaced.

The shipped networks were trained on the reference values (``tests/features_reference.py``),
so the fused :func:`bgai.model.features.rich_features` must give the same float32 bits.
"""

from __future__ import annotations

import pytest
import torch

from bgai.engine.board import is_race, starting_board
from bgai.engine.movegen import expand
from bgai.engine.sampling import sample_positions
from bgai.model.encoding import RICH
from bgai.model.features import SIDE_FEATURES, rich_features
from tests import features_reference as reference
from tests.positions import pos, random_boards

# The shipped networks' feature units, in order (the encoding's unit names must not change).
FEATURES = ("pips", "break_contact", "prime", "escapes", "exposure", "blots", "home_points", "anchors",
            "made_points", "back_checkers", "dance")  # fmt: skip
UNITS = ("contact",) + tuple(f"{side}.{f}" for side in ("on_roll", "opponent") for f in FEATURES)


def hand_made() -> torch.Tensor:
    """Edge cases: empty sides, stacks, bars, primes, closed boards, contact just broken."""
    texts = [
        "",
        "x bar:15",
        "x bar:15; o bar:15",
        "x 1:15; o 1:15",
        "x 24:15; o 24:15",
        "x 24:1; o 1:1",
        "x bar:2 24:2 23:2 22:2 21:2 20:2 19:2 13:1; o 1:3 12:2 13:2 18:1 bar:7",
        "x 9:2 8:2 7:2 6:2 5:2 4:2 3:2 2:1; o bar:1 24:14",
        "x 13:2 12:2 11:2 10:2 9:2 8:2 7:3; o 14:2 15:2 16:2 17:2 18:2 19:2 20:3",
        "x 24:2 13:5 8:3 6:5; o 19:5 17:3 12:5 1:2",
        "x bar:1 24:1 23:1 22:1 21:1 20:1 19:1 18:1 17:1 16:1 15:1 14:1 13:1 12:1 11:1; o bar:1 1:1",
        "x 12:1 11:1 10:1 9:1 8:1 7:1 6:1 5:1 4:1 3:1 2:1 1:1 24:1 23:1 13:1; o 13:1 14:1 16:1 18:1",
        "x 6:5 5:5 4:5; o 19:5 20:5 21:5",
        "x 18:1 6:2; o 18:2 7:2",
        "x 1:1; o 24:1",
        "x 3:3; o bar:3",
    ]
    return torch.stack([pos(text) for text in texts] + [torch.as_tensor(starting_board())])


def diverse_boards() -> torch.Tensor:
    """A few thousand boards of every kind: game positions and all their children (standard and
    hypergammon), random boards with checkers on both bars, bear-offs and the hand-made ones."""
    parts = [hand_made()]
    for kind, variant, n in [
        ("greedy", "standard", 96), ("random", "standard", 96), ("race", "standard", 96),
        ("bearoff", "standard", 96), ("greedy", "hypergammon", 96), ("random", "hypergammon", 96),
    ]:  # fmt: skip
        boards, dice = sample_positions(n, kind, seed=3, variant=variant, games=32)
        parts += [boards, expand(boards, dice)[0]]
    parts += [
        random_boards(11, 600, opponent_bar=True),
        random_boards(12, 300, opponent_bar=True, checkers=3),
        random_boards(13, 300, opponent_bar=True, home_lean=4.0),
    ]
    return torch.cat([p.to(torch.int8) for p in parts])


@pytest.fixture(scope="module")
def boards() -> torch.Tensor:
    return diverse_boards()


def test_the_boards_cover_the_cases(boards):
    assert len(boards) > 3000
    assert (boards[:, 1, 24] > 0).sum() > 100 and (boards[:, 0, 24] > 0).sum() > 100
    assert (boards.sum(2) <= 3).all(1).sum() > 300  # hypergammon-sized
    assert is_race(boards).sum() > 300 and (~is_race(boards)).sum() > 1000


def test_rich_features_are_bit_for_bit_the_reference(boards):
    got = rich_features(boards.long())
    want = reference.rich_features(boards.long())
    assert got.dtype == torch.float32 and got.shape == (len(boards), 23) and got.is_contiguous()
    mismatch = (got != want).any(0).nonzero().flatten().tolist()
    assert not mismatch, f"units differ from the reference: {[UNITS[i] for i in mismatch]}"


def test_the_encoding_uses_them_and_keeps_its_unit_names(boards):
    x = RICH(boards[:500])
    first = RICH.index("contact")
    assert RICH.names[first:] == UNITS and tuple(SIDE_FEATURES) == FEATURES
    assert torch.equal(x[:, first:], reference.rich_features(boards[:500].long()))
    assert torch.equal(x[:, first], (~is_race(boards[:500])).float())


def test_each_feature_function_matches_its_reference(boards):
    me, opp = boards[:800, 1].long(), boards[:800, 0].long()
    assert tuple(reference.SIDE_FEATURES) == FEATURES
    for name, feature in SIDE_FEATURES.items():
        assert torch.equal(feature(me, opp), reference.SIDE_FEATURES[name](me, opp)), name
        assert torch.equal(feature(opp, me), reference.SIDE_FEATURES[name](opp, me)), name


def test_any_integer_dtype_small_batches_and_an_empty_one(boards):
    want = reference.rich_features(boards[:64].long())
    for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        assert torch.equal(rich_features(boards[:64].to(dtype)), want)
    assert torch.equal(torch.cat([rich_features(b[None]) for b in boards[:64]]), want)
    assert rich_features(boards[:0]).shape == (0, 23)


def test_autocast_does_not_lower_the_precision(boards):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        got = rich_features(boards[:500].long())
    assert torch.equal(got, reference.rich_features(boards[:500].long()))
