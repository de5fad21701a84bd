"""``bgai cube``: gnubg-style cube analysis on the command line, one ID or a batch from stdin.

gnubg's own net (``--player gnubg``) evaluates, so the tests need no trained bgai network; the
last-roll positions of cube.md §3.1 have exact answers one ply ahead.
"""

from __future__ import annotations

import io
import json

import pytest

from bgai.cli.main import main
from bgai.formats import MatchState, decode_position_id, encode_gnubg_id

pytestmark = pytest.mark.gnubg  # gnubg's net is the evaluator

DOUBLE_TAKE = "AQAAiAAAAAAAAA"  # 19/36 to bear off two checkers, the opponent wins next roll
DOUBLE_PASS = "AQAAFAAAAAAAAA"  # 36/36
NO_DOUBLE = "AQAAoAAAAAAAAA"  # 10/36


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_one_position_in_gnubgs_words(capsys):
    code, out, err = run(capsys, "cube", DOUBLE_TAKE, "--player", "gnubg", "--plies", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == DOUBLE_TAKE
    assert "money game, centred cube, Jacoby on, beavers on" in lines[1]
    assert lines[2].startswith("1-ply cubeless equity")
    assert lines[5].split()[:3] == ["1.", "Double,", "take"]  # the proper action first
    assert lines[-1] == "Proper cube action: Double, take"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nonsense", "not a position"),
        (
            encode_gnubg_id(
                decode_position_id(DOUBLE_TAKE), MatchState(match_length=7, score=(6, 3), crawford=True)
            ),
            "Crawford game: no doubling",
        ),
        (
            encode_gnubg_id(decode_position_id(DOUBLE_TAKE), MatchState(cube_value=2, cube_owner=0)),
            "the opponent owns the cube",
        ),
        (encode_gnubg_id(decode_position_id(DOUBLE_TAKE), MatchState(dice=(5, 2))), "before the roll"),
    ],
)
def test_errors_are_one_line(capsys, text, message):
    code, out, err = run(capsys, "cube", text, "--player", "gnubg")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bgai: error: ") and message in err


def test_more_than_two_plies_is_refused(capsys):
    code, _, err = run(capsys, "cube", DOUBLE_TAKE, "--player", "gnubg", "--plies", "3")
    assert code == 2 and "2 plies ahead at most" in err


def test_a_batch_from_stdin_as_json(capsys, monkeypatch):
    ids = [
        DOUBLE_TAKE,
        "# a comment",
        "",
        DOUBLE_PASS,
        NO_DOUBLE,
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(ids) + "\n"))
    code, out, _ = run(capsys, "cube", "-", "--player", "gnubg@1ply", "--json")
    assert code == 0
    records = json.loads(out)
    assert [r["position"] for r in records] == [DOUBLE_TAKE, DOUBLE_PASS, NO_DOUBLE, ids[-1]]
    assert [r["decision"] for r in records[:3]] == ["Double, take", "Double, pass", "No double, beaver"]
    assert records[0]["nd"] == pytest.approx(2 * 19 / 36 - 1) and records[0]["dp"] == 1.0
    assert records[0]["dt"] == pytest.approx(2 * (2 * 19 / 36 - 1))
    assert records[3]["decision"] == "No double, beaver"  # the opening, money with beavers
    assert set(records[0]) >= {"player", "plies", "cube", "probs", "cubeless_equity", "take"}


def test_a_bad_line_in_a_batch_is_reported_and_the_rest_analysed(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{DOUBLE_TAKE}\nnot-an-id\n"))
    code, out, err = run(capsys, "cube", "--player", "gnubg", "--json")
    assert code == 2
    records = json.loads(out)
    assert records[0]["decision"] and "error" in records[1]
    assert err == ""  # with --json the errors are in the records


def test_a_double_on_offer_gets_the_takers_answer(capsys):
    offered = MatchState(double_offered=True, jacoby=True)
    text = encode_gnubg_id(decode_position_id(DOUBLE_TAKE), offered)
    code, out, _ = run(capsys, "cube", text, "--player", "gnubg", "--plies", "1")
    assert code == 0
    assert out.splitlines()[-1] == "Answer to the double offered: take"


def test_match_play_shows_the_score_from_the_player_on_roll(capsys):
    xgid = "XGID=aBBB-cDAA-a-A-A--c-eb---A-:0:0:1:00:3:6:0:7:10"  # X on roll, 3-6 in a 7-point match
    code, out, _ = run(capsys, "cube", xgid, "--player", "gnubg")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].endswith("7-point match, 4-away vs 1-away, post-Crawford, centred cube")
    assert "(Money: " in lines[2]
