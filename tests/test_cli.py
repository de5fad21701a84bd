"""The ``bgai`` command line, run in-process through ``main(argv)`` and once as ``python -m bgai``."""

import json
import subprocess
import sys

import pytest

import bgai
from bgai.cli import show_cmd
from bgai.cli.main import COMMANDS, main

START = "4HPwATDgc/ABMA"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_every_command(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name in ["moves", "show", *COMMANDS]:
        assert name in out


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"bgai {bgai.__version__}"


def test_moves_lists_the_16_moves_of_the_opening_31(capsys):
    code, out, _ = run(capsys, "moves", START, "31")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"16 legal moves for 3-1 in {START}:"
    assert len(lines) == 17
    assert lines[1].split() == ["1.", "24/23", "24/21", "4HPwARLgc/ABMA"]
    assert any(line.split()[1:] == ["8/5", "6/5", "sGfwATDgc/ABMA"] for line in lines[1:])


def test_moves_json(capsys):
    code, out, _ = run(capsys, "moves", START, "3-1", "--json")
    assert code == 0
    moves = json.loads(out)
    assert len(moves) == 16
    assert {"move": "8/5 6/5", "position_id": "sGfwATDgc/ABMA"} in moves


def test_moves_takes_the_dice_from_an_xgid(capsys):
    code, out, _ = run(capsys, "moves", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    assert code == 0
    assert out.startswith("8 legal moves for 5-2 in XGID=")


def test_a_dance_says_so(capsys):
    code, out, _ = run(capsys, "moves", "zGbiIQgxH/AAWA", "65")
    assert code == 0
    assert "dances" in out
    code, out, _ = run(capsys, "moves", "zGbiIQgxH/AAWA", "65", "--json")
    assert json.loads(out) == []


def test_show_draws_the_start_with_pips(capsys):
    code, out, _ = run(capsys, "show", START)
    assert code == 0
    assert f"Position ID: {START}" in out
    assert "Pip counts: O 167, X 167" in out


def test_show_a_gnubg_id(capsys):
    code, out, _ = run(capsys, "show", f"{START}:cAnuAAAAAAAE")
    assert code == 0
    assert "Match ID   : cAnuAAAAAAAE" in out and "Rolled 43" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "not-an-id"],
        ["moves", "4HPwATDgc/ABM!", "31"],
        ["moves", START, "71"],
        ["moves", START],
    ],
)
def test_a_user_error_is_one_line_and_exit_code_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bgai: error: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["no-such-command"], ["moves"], ["moves", START, "31", "--bogus"]])
def test_usage_errors_exit_with_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("usage: bgai") and "error:" in err


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (FileNotFoundError(2, "No such file or directory", "net.pt"), "No such file or directory: net.pt"),
        (KeyError("unknown player 'x'"), "unknown player 'x'"),
        (ValueError("two\nlines"), "two lines"),
    ],
)
def test_errors_of_a_command_print_as_one_line(capsys, monkeypatch, error, message):
    def failing(args):
        raise error

    monkeypatch.setattr(show_cmd, "run", failing)  # register() picks it up when main builds the parser
    code, _, err = run(capsys, "show", START)
    assert code == 2
    assert err == f"bgai: error: {message}\n"


def test_a_bug_keeps_its_traceback(monkeypatch):
    def buggy(args):
        raise ZeroDivisionError

    monkeypatch.setattr(show_cmd, "run", buggy)
    with pytest.raises(ZeroDivisionError):
        main(["show", START])


def test_python_dash_m_bgai_reports_errors_without_a_traceback():
    bad = subprocess.run([sys.executable, "-m", "bgai", "show", "garbage"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr
