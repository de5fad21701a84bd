"""Encodings, unit by unit on positions a backgammon player can read (view of the player on roll)."""

from __future__ import annotations

import pytest
import torch

from bgai.engine.board import starting_board, swap_sides
from bgai.model.encoding import (
    ENCODINGS,
    RICH,
    RICH_PLAN,
    RICH_PLUS,
    RICH_RACE,
    RICH_SHOTS,
    TESAURO198,
    get_encoding,
)
from tests.positions import random_boards


def board(on_roll: dict[int, int], opponent: dict[int, int]) -> torch.Tensor:
    """A one-board batch; points in each side's own numbering, 25 = bar, the rest borne off."""
    b = torch.zeros(1, 2, 25, dtype=torch.int8)
    for row, side in ((1, on_roll), (0, opponent)):
        for point, n in side.items():
            b[0, row, point - 1] = n
    return b


def units(values: dict[str, float], enc=TESAURO198) -> torch.Tensor:
    """An expected input vector: the named units, every other unit 0."""
    x = torch.zeros(enc.size)
    for name, v in values.items():
        x[enc.index(name)] = v
    return x


def test_sizes_and_registry():
    assert TESAURO198.size == 198
    assert RICH.size == 219
    assert RICH_PLUS.size == 235 and RICH_PLUS.names[: RICH.size] == RICH.names
    assert RICH_PLAN.size == 245 and RICH_PLAN.names[: RICH_PLUS.size] == RICH_PLUS.names
    assert RICH_SHOTS.size == 251 and RICH_SHOTS.names[: RICH_PLAN.size] == RICH_PLAN.names
    assert RICH_RACE.size == 285 and RICH_RACE.names[: RICH_SHOTS.size] == RICH_SHOTS.names
    assert set(ENCODINGS) == {"tesauro198", "rich", "rich_plus", "rich_plan", "rich_shots", "rich_race"}
    assert all(len(set(e.names)) == e.size for e in ENCODINGS.values())
    with pytest.raises(ValueError, match="unknown encoding 'nope'"):
        get_encoding("nope")


def test_tesauro198_of_the_starting_position():
    made = {24: (1, 1, 0, 0), 13: (1, 1, 0, 1.0), 8: (1, 1, 1, 0), 6: (1, 1, 0, 1.0)}
    expected = {"turn.on_roll": 1.0}
    for side in ("on_roll", "opponent"):
        for point, vals in made.items():
            for unit, v in zip(("n>=1", "n>=2", "n=3", "n>3"), vals, strict=True):
                expected[f"{side}.p{point}.{unit}"] = v
    x = TESAURO198(torch.as_tensor(starting_board())[None])
    torch.testing.assert_close(x[0], units(expected))


def test_tesauro198_of_a_bearoff_with_checkers_on_the_bar():
    # On roll: 4 on the ace, 3 on the 3-point, a blot on the 5, 2 on the bar, 5 off.
    # Opponent: 2 on their 20, a blot on their 24, 7 on their 1, 1 on the bar, 4 off.
    x = TESAURO198(board({1: 4, 3: 3, 5: 1, 25: 2}, {20: 2, 24: 1, 1: 7, 25: 1}))[0]
    expected = units({
        "on_roll.p1.n>=1": 1, "on_roll.p1.n>=2": 1, "on_roll.p1.n>3": 0.5,
        "on_roll.p3.n>=1": 1, "on_roll.p3.n>=2": 1, "on_roll.p3.n=3": 1,
        "on_roll.p5.n>=1": 1,
        "on_roll.bar": 1.0, "on_roll.off": 5 / 15,
        "opponent.p20.n>=1": 1, "opponent.p20.n>=2": 1,
        "opponent.p24.n>=1": 1,
        "opponent.p1.n>=1": 1, "opponent.p1.n>=2": 1, "opponent.p1.n>3": 2.0,
        "opponent.bar": 0.5, "opponent.off": 4 / 15,
        "turn.on_roll": 1,
    })  # fmt: skip
    torch.testing.assert_close(x, expected)


@pytest.mark.parametrize("enc", list(ENCODINGS.values()), ids=lambda e: e.name)
def test_batch_equals_row_by_row(enc):
    boards = random_boards(1, 64, opponent_bar=True)
    batch = enc(boards)
    assert batch.shape == (64, enc.size) and batch.dtype == torch.float32
    rows = torch.cat([enc(b[None]) for b in boards])
    torch.testing.assert_close(batch, rows)
    torch.testing.assert_close(enc(boards.view(8, 8, 2, 25)), batch.view(8, 8, -1))


@pytest.mark.parametrize("enc", list(ENCODINGS.values()), ids=lambda e: e.name)
def test_passing_the_turn_swaps_the_two_sides_blocks(enc):
    boards = random_boards(2, 64, opponent_bar=True)
    x, y = enc(boards), enc(swap_sides(boards))
    for i, name in enumerate(enc.names):
        if name.startswith("on_roll."):
            torch.testing.assert_close(y[:, enc.index(name.replace("on_roll.", "opponent."))], x[:, i])
    if enc is not TESAURO198:
        torch.testing.assert_close(y[:, enc.index("contact")], x[:, enc.index("contact")])


def rich(b: torch.Tensor, name: str) -> float:
    return RICH(b)[0, RICH.index(name)].item()


def test_rich_of_the_starting_position():
    b = torch.as_tensor(starting_board())[None]
    assert rich(b, "contact") == 1
    for side in ("on_roll", "opponent"):
        assert rich(b, f"{side}.pips") == pytest.approx(1.0)  # 167 pips
        assert rich(b, f"{side}.prime") == pytest.approx(1 / 6)
        assert rich(b, f"{side}.home_points") == pytest.approx(1 / 6)
        assert rich(b, f"{side}.anchors") == pytest.approx(1 / 6)
        assert rich(b, f"{side}.back_checkers") == pytest.approx(2 / 15)
        assert rich(b, f"{side}.blots") == 0
        assert rich(b, f"{side}.exposure") == 0
        # 24-point to the opponent's 24 (our 1-point): 2*23 + 5*12 + 3*7 + 5*5 pips.
        assert rich(b, f"{side}.break_contact") == pytest.approx(152 / 167)


def test_a_six_prime_has_prime_length_six():
    b = board({4: 2, 5: 2, 6: 3, 7: 2, 8: 2, 9: 2, 13: 2}, {24: 2, 6: 5, 8: 3, 13: 5})
    assert rich(b, "on_roll.prime") == pytest.approx(1.0)
    assert rich(b, "on_roll.made_points") == pytest.approx(7 / 7)


def test_a_race_has_contact_zero_and_nothing_to_break():
    b = board({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert rich(b, "contact") == 0
    assert rich(b, "on_roll.break_contact") == 0
    assert rich(b, "opponent.break_contact") == 0


def test_escapes_count_rolls_past_a_two_point_block():
    # Our back checker on the 24; the opponent holds our 18 and 17 (their 7 and 8). To escape we
    # need 8+ pips without landing on 18 or 17 (6 or 7 pips away): 6 non-doubles (2-6, 3-5, 3-6,
    # 4-5, 4-6, 5-6) twice each, plus 4-4 and 5-5 = 14 rolls. Their points on our 1 and 2 are
    # more than 12 pips ahead and do not count.
    b = board({24: 1, 6: 5, 5: 4}, {7: 2, 8: 2, 24: 2, 23: 2})
    assert rich(b, "on_roll.escapes") == pytest.approx(14 / 36)


def test_escapes_with_no_blockade_in_reach_is_every_roll():
    b = board({6: 5, 5: 5}, {6: 5})
    assert rich(b, "on_roll.escapes") == 1


def test_exposure_counts_direct_and_combination_shots():
    # Our blot on the 5-point, an opponent checker on our 2 (their 23): 3 pips away.
    # Any 3 (11 rolls), 1-2 (2 rolls) and 1-1 (1 roll) hit: 14 rolls.
    b = board({5: 1, 6: 4}, {23: 1})
    assert rich(b, "on_roll.exposure") == pytest.approx(14 / 36)
    assert rich(b, "on_roll.blots") == pytest.approx(1 / 5)


def test_exposure_from_the_bar():
    # An opponent checker on the bar enters with a d on our d-point, so our blot on the 4-point
    # is hit by any 4, 1-3, 2-2 and 1-1: 11 + 2 + 1 + 1 = 15 rolls.
    b = board({4: 1, 13: 2}, {25: 1})
    assert rich(b, "on_roll.exposure") == pytest.approx(15 / 36)


def test_dance_against_a_closed_and_a_four_point_board():
    closed = board({25: 1, 13: 4}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    assert rich(closed, "on_roll.dance") == 1
    four = board({25: 1, 13: 4}, {1: 2, 2: 2, 3: 2, 4: 2, 8: 2})
    assert rich(four, "on_roll.dance") == pytest.approx((4 / 6) ** 2)
    assert rich(four, "opponent.dance") == 0


def escapes_by_hand(me: list[int], opp: list[int]) -> float:
    """The documented escape rule, one roll at a time (the reference for the batched code)."""
    rear = max((k for k in range(25) if me[k] > 0), default=-1)

    def blocked(k: int) -> bool:
        return rear - 12 <= k and 0 <= k <= 23 and opp[23 - k] >= 2

    front = min((k for k in range(max(rear - 12, 0), rear) if blocked(k)), default=99)
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
            for steps in orders:
                pos, escaped = rear, False
                for step in steps:
                    pos -= step
                    if blocked(pos):
                        break
                    escaped |= pos < front
                if escaped:
                    count += 1
                    break
    return count / 36


def exposure_by_hand(me: list[int], opp: list[int]) -> float:
    """The documented shot count, one roll at a time (the reference for the batched code)."""
    blots = [k + 1 for k in range(24) if me[k] == 1]
    hitters = ([0] if opp[24] > 0 else []) + [24 - j for j in range(24) if opp[j] > 0]
    distances = {p - c for p in blots for c in hitters}
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            reach = {d1, 2 * d1, 3 * d1, 4 * d1} if d1 == d2 else {d1, d2, d1 + d2}
            count += bool(reach & distances)
    return count / 36


def test_batched_escapes_and_exposure_follow_their_definitions():
    boards = random_boards(3, 200, opponent_bar=True)
    x = RICH(boards)
    for side, (me_row, opp_row) in (("on_roll", (1, 0)), ("opponent", (0, 1))):
        want_esc = [escapes_by_hand(b[me_row].tolist(), b[opp_row].tolist()) for b in boards]
        want_exp = [exposure_by_hand(b[me_row].tolist(), b[opp_row].tolist()) for b in boards]
        torch.testing.assert_close(x[:, RICH.index(f"{side}.escapes")], torch.tensor(want_esc))
        torch.testing.assert_close(x[:, RICH.index(f"{side}.exposure")], torch.tensor(want_exp))
