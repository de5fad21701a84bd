"""The people-facing move API (bgai.moves): legal moves and their notation, playing a written
move, refusals that say why, and gnubg as the oracle for moves and notation (marked ``gnubg``)."""

import random
import subprocess
import sys

import numpy as np
import pytest

import bgai
from bgai.engine.board import swap_sides
from bgai.engine.sampling import sample_positions
from bgai.formats import decode_position_id, encode_position_id, format_move_plain
from bgai.moves import apply_move, legal_moves, legal_moves_batch, notation_of, parse_dice, pip_count
from tests.positions import GNUBG_GAME, points_board

START = "4HPwATDgc/ABMA"

# formats.md §1: distinct legal moves from the starting position, by roll [verified]
START_COUNTS = {
    "11": 42, "21": 15, "22": 75, "31": 16, "32": 17, "33": 73, "41": 14, "42": 18, "43": 17, "44": 52,
    "51": 8, "52": 8, "53": 9, "54": 9, "55": 4, "61": 10, "62": 14, "63": 14, "64": 14, "65": 7, "66": 11,
}  # fmt: skip


def pos(mover: dict[int, int], opponent: dict[int, int] | None = None) -> str:
    """Position ID from {point: checkers}, **both numbered from the mover's side** (25 = bar)."""
    return encode_position_id(points_board(mover, opponent))


class TestLegalMoves:
    @pytest.mark.parametrize(("dice", "count"), START_COUNTS.items())
    def test_counts_from_the_start_match_gnubg(self, dice, count):
        moves = legal_moves(START, dice)
        assert len(moves) == count
        assert len({pid for _, pid in moves}) == count
        assert len({text for text, _ in moves}) == count

    def test_weighted_total_from_the_start_is_637(self):
        total = sum(n * (1 if d[0] == d[1] else 2) for d, n in START_COUNTS.items())
        assert total == 637

    @pytest.mark.parametrize(
        ("position", "dice", "count"),
        [
            ("jGfkASjg8wcBMA", "65", 9),
            ("jGfkASjg8wcBMA", "31", 16),
            ("jGfkASjg8wcBMA", "22", 22),
            ("jGfkASjg8wcBMA", "66", 9),
            ("zGbiIQgxH/AAWA", "31", 4),
            ("zGbiIQgxH/AAWA", "22", 20),
        ],
    )
    def test_counts_in_other_positions_match_gnubg(self, position, dice, count):
        assert len(legal_moves(position, dice)) == count

    def test_the_opening_31_makes_the_five_point(self):
        moves = dict(legal_moves(START, "31"))
        assert moves["8/5 6/5"] == "sGfwATDgc/ABMA"

    def test_resulting_positions_have_the_opponent_on_roll(self):
        for text, pid in legal_moves(START, "51"):
            if text == "24/23 13/8":
                assert pid == "4PPgASjgc/ABMA"

    @pytest.mark.parametrize(("before", "dice", "move", "after"), GNUBG_GAME)
    def test_notation_of_each_game_move_is_gnubgs(self, before, dice, move, after):
        assert dict((pid, text) for text, pid in legal_moves(before, dice))[after] == move

    def test_a_dance_has_no_moves(self):
        assert legal_moves("zGbiIQgxH/AAWA", "65") == []
        assert legal_moves("zGbiIQgxH/AAWA", "66") == []

    def test_order_is_back_checkers_first(self):
        moves = [text for text, _ in legal_moves(START, "31")]
        assert moves[0] == "24/23 24/21"
        assert moves[-1] == "6/2"
        assert moves.index("24/20") < moves.index("13/9") < moves.index("8/5 6/5")

    @pytest.mark.parametrize("dice", ["31", "13", "3-1", "3 1", "3,1", (3, 1), [1, 3], np.array([3, 1])])
    def test_dice_can_be_written_many_ways(self, dice):
        assert parse_dice(dice) == (3, 1)
        assert len(legal_moves(START, dice)) == 16

    def test_a_gnubg_id_or_xgid_is_read_and_can_supply_the_dice(self):
        xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"
        assert legal_moves(xgid, None) == legal_moves(START, "52")
        assert legal_moves(f"{START}:cIkKAAAAAAAA", None) == legal_moves(START, "52")
        assert legal_moves(f"{START}:cAngAAAAAAAE", "52") == legal_moves(START, "52")

    def test_o_on_roll_in_an_xgid(self):
        xgid = "XGID=-aa---E-G---dAa--b-d--b-B-:0:0:-1:31:0:0:0:7:10"  # = 4PMHATCMZ+QBKA, O on roll
        assert legal_moves(xgid, None) == legal_moves("4PMHATCMZ+QBKA", "31")

    def test_notation_of_an_engine_path(self):
        board = decode_position_id(START)
        assert notation_of(board, [7, 5, -1, -1], [3, 1, 0, 0]) == "8/5 6/5"
        assert notation_of(board, [23, 17, -1, -1], [6, 2, 0, 0]) == "24/16"

    def test_the_batch_gives_the_same_lists(self):
        boards = np.stack([decode_position_id(p) for p, *_ in GNUBG_GAME])
        dice = [parse_dice(d) for _, d, *_ in GNUBG_GAME]
        batch = legal_moves_batch(boards, dice)
        assert batch == [legal_moves(p, d) for p, d, *_ in GNUBG_GAME]


class TestApplyMove:
    @pytest.mark.parametrize(("before", "dice", "move", "after"), GNUBG_GAME)
    def test_game_moves_reach_gnubgs_positions(self, before, dice, move, after):
        assert apply_move(before, dice, move) == after

    @pytest.mark.parametrize(
        "move", ["24/16", "24/18/16", "24/22/16", "24/18 18/16", "24/22 22/16", "24/16*", "24/22/16(1)"]
    )
    def test_one_checker_with_both_dice_can_be_written_any_way(self, move):
        assert apply_move("4HPGAQbg8+ABKA", "62", move) == "4PPgERDgc8YBBg"

    def test_plain_and_reordered_writings_are_accepted(self):
        assert apply_move("yLeDARSw5xYHAA", "33", "6/3* 6/3 8/5 13/10") == "zM02BgDIt4MBSA"
        assert apply_move("4HMbBwDg8+ABSA", "63", "25/22 13/7") == "4OvBARTgcxsHAA"
        assert apply_move("4HMbBwDg8+ABSA", "36", "b/22 13/7") == "4OvBARTgcxsHAA"

    def test_passing_a_blot_does_not_hit_unless_the_point_is_written(self):
        before = pos({13: 1, 6: 14}, {11: 1, 1: 14})  # 13/11* and 13/10 with 3-2
        quiet = apply_move(before, "32", "13/8")
        hit = apply_move(before, "32", "13/11*/8")
        assert quiet != hit
        assert apply_move(before, "32", "13/11 11/8") == hit
        assert decode_position_id(hit)[1, 24] == 1  # the opponent's blot is on the bar

    def test_a_checker_that_must_hit_on_the_way_may_be_written_without_the_point(self):
        before = pos({13: 1, 6: 14}, {11: 1, 10: 2, 1: 12})  # 13/10 is held: only 13/11*/8
        assert apply_move(before, "32", "13/8") == apply_move(before, "32", "13/11*/8")

    def test_a_move_that_could_hit_on_either_way_is_ambiguous(self):
        before = pos({13: 1, 6: 14}, {11: 1, 10: 1, 1: 13})
        with pytest.raises(ValueError, match="ambiguous move 13/8 for 3-2"):
            apply_move(before, "32", "13/8")
        assert apply_move(before, "32", "13/10*/8") != apply_move(before, "32", "13/11*/8")

    def test_a_dance_plays_the_empty_move(self):
        after = apply_move("zGbiIQgxH/AAWA", "65", "")
        assert decode_position_id(after).tolist() == swap_sides(decode_position_id("zGbiIQgxH/AAWA")).tolist()

    def test_every_legal_move_plays_back_to_its_position(self):
        rng = random.Random(7)
        boards, dice = sample_positions(60, "random", seed=5, games=16)
        for board, roll, moves in zip(boards, dice.tolist(), legal_moves_batch(boards, dice), strict=True):
            before = encode_position_id(board.numpy())
            for text, pid in rng.sample(moves, min(3, len(moves))):
                assert apply_move(before, roll, text) == pid, (before, roll, text)


class TestRefusals:
    @pytest.mark.parametrize(
        ("position", "dice", "move", "reason"),
        [
            (START, "31", "8/5 6/4", "do not fit the roll 3-1"),
            (START, "61", "24/18 13/12", "cannot land on 12: the opponent holds it"),
            (START, "61", "24/17", "cannot land on 17"),
            (START, "61", "24/18", "both dice must be used"),
            (START, "66", "24/18(2)", "all four 6s must be played"),
            (START, "31", "7/4 6/5", "no checker on 7"),
            (START, "65", "6/off 5/off", "cannot bear off while checkers are outside the home board"),
            ("4HMbBwDg8+ABSA", "63", "13/7 13/10", "must enter from the bar first"),
            ("4HMbBwDg8+ABSA", "63", "bar/19 13/10", "cannot enter on 19"),
            (pos({13: 1, 1: 14}, {2: 2, 24: 13}), "65", "13/8", "the higher die \\(6\\) must be played"),
            (pos({6: 1, 3: 14}, {24: 15}), "65", "3/off 3/off", "while a checker stands on a higher point"),
            (START, "31", "", "a move must be played"),
            ("zGbiIQgxH/AAWA", "65", "bar/20", "no move is legal with 6-5"),
        ],
    )
    def test_illegal_moves_say_why(self, position, dice, move, reason):
        with pytest.raises(ValueError, match=reason) as info:
            apply_move(position, dice, move)
        assert str(info.value).startswith(f"illegal move {move or '(none)'} for {parse_dice(dice)[0]}-")

    def test_a_move_that_fits_no_rule_names_the_count(self):
        with pytest.raises(ValueError, match="not among the 16 legal moves"):
            apply_move(START, "31", "8/5 6/4")

    def test_a_higher_die_alone_is_legal_when_only_one_fits(self):
        assert apply_move(pos({13: 1, 1: 14}, {2: 2, 24: 13}), "65", "13/7")

    def test_unreadable_moves(self):
        with pytest.raises(ValueError, match="cannot read"):
            apply_move(START, "31", "eight to five")


class TestBadInput:
    @pytest.mark.parametrize(
        ("position", "message"),
        [
            ("xyz", "not a position"),
            ("4HPwATDgc/ABM!", "uses only"),
            ("////////////AA", "bad position ID|checkers"),
            ("AAAAAAAAAAAAAA", "is over"),
            ("XGID=-b----E-C---eE---c-e----B-:0:0:1", "not a position|XGID"),
            (None, "a position is a string"),
        ],
    )
    def test_malformed_positions(self, position, message):
        with pytest.raises(ValueError, match=message):
            legal_moves(position, "31")

    @pytest.mark.parametrize("dice", ["71", "0-1", "", "3", "311", (3,), [7, 1], (1, 2, 3), "ab", None])
    def test_dice_out_of_range(self, dice):
        with pytest.raises(ValueError, match="dice must be two numbers 1-6|carries no dice"):
            legal_moves(START, dice)


def test_pip_count():
    assert pip_count(START) == (167, 167)
    assert pip_count("jGfkASjg8wcBMA") == (147, 156)  # on roll 2x24 13 7x8 5x6 / 24 23 4x13 11 2x8 4x6 2x3


def test_import_bgai_does_not_load_torch():
    code = "import sys, bgai; assert 'torch' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_package_exposes_the_api_lazily():
    assert bgai.legal_moves is legal_moves and bgai.apply_move is apply_move and bgai.pip_count is pip_count
    assert {"legal_moves", "apply_move", "pip_count", "load_player", "Opponent"} <= set(dir(bgai))
    assert isinstance(bgai.__version__, str)
    with pytest.raises(AttributeError):
        bgai.no_such_name  # noqa: B018


@pytest.mark.gnubg
def test_moves_and_notation_match_gnubg(gnubg, gnubg_nn):
    """On 2,000 sampled (position, roll) pairs: the same resulting positions as gnubg, and for
    each one the same notation as gnubg prints for its own path (measured: 100 % on 269,000)."""
    parts = [sample_positions(n, kind, seed=31, games=64) for kind, n in
             [("random", 800), ("greedy", 600), ("race", 300), ("bearoff", 300)]]  # fmt: skip
    boards = np.concatenate([b.numpy() for b, _ in parts])
    dice = np.concatenate([d.numpy() for _, d in parts])
    rng = random.Random(3)
    same = differ = 0
    examples = []
    for board, (d1, d2), ours in zip(boards, dice.tolist(), legal_moves_batch(boards, dice), strict=True):
        as_lists = board.astype(int).tolist()
        theirs = {}
        for key, path in gnubg_nn.moves(as_lists, d1, d2, 1):
            after = np.array(gnubg_nn.board_from_position_key(key), dtype=np.int8)
            theirs[encode_position_id(swap_sides(after))] = (gnubg.movetupletostring(path, as_lists), path)
        mine = {pid: text for text, pid in ours}
        assert set(mine) == set(theirs), (encode_position_id(board), d1, d2)
        for pid, (text, _) in theirs.items():
            if mine[pid] == text:
                same += 1
            else:
                differ += 1
                examples.append((encode_position_id(board), f"{d1}{d2}", text, mine[pid]))
        if theirs and rng.random() < 0.1:  # gnubg's path written step by step plays back too
            pid, (_, path) = rng.choice(sorted(theirs.items()))
            assert apply_move(encode_position_id(board), (d1, d2), format_move_plain(board, path)) == pid
    assert same > 20_000
    assert same / (same + differ) >= 0.99, examples[:20]
