"""What people read of an analysis: the table per player, the worst decisions, a line per file.

Errors and luck are printed as gnubg prints them: normalised equity (EMG) with the cost in
brackets (money: points; match: match winning chance in %), rates in thousandths (mEMG).
"""

from __future__ import annotations

import math

from bgai.analyse.analysis import Decision, MatchAnalysis, PlayerStats

WORST = 10
"""Decisions listed under "worst decisions" in the table."""


def describe(analysis: MatchAnalysis) -> str:
    """``7-point match, 4 games`` / ``money session, 20 games``."""
    games = len(analysis.games)
    what = f"{analysis.match_length}-point match" if analysis.match_length else "money session"
    cube = "" if analysis.cube_in_use else ", cubeless"
    return f"{what}{cube}, {games} game{'s' if games != 1 else ''}"


def _cost(value: float, match: bool, signed: bool = False) -> str:
    if match:
        return f"{100 * value:+.2f}%" if signed else f"{100 * value:.2f}%"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _rate(value: float, signed: bool = False) -> str:
    if not math.isfinite(value):
        return "n/a"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def stat_rows(analysis: MatchAnalysis) -> list[tuple[str, list[str]]]:
    """(label, one cell per player) rows of the table; a label without cells is a heading."""
    match = analysis.match_length > 0
    unit = "MWC" if match else "points"
    a, b = analysis.stats

    def both(f) -> list[str]:
        return [f(a), f(b)]

    def missed(s: PlayerStats, *names: str) -> str:
        lines = [s.cube_errors.get(n, [0, 0.0, 0.0]) for n in names]
        count, error = sum(int(x[0]) for x in lines), sum(x[1] for x in lines)
        return f"{count} ({error:.3f})" if count else "0"

    rows: list[tuple[str, list[str]]] = [
        ("Checker play", []),
        ("moves (unforced)", both(lambda s: f"{s.moves} ({s.unforced})")),
        ("marked doubtful / bad / very bad", both(lambda s: " / ".join(str(v) for v in s.marked.values()))),
        (
            f"error total, EMG ({unit})",
            both(lambda s: f"{s.checker_error:.3f} ({_cost(s.checker_cost, match)})"),
        ),
        ("error rate, mEMG", both(lambda s: _rate(s.checker_rate))),
    ]
    if analysis.cube_in_use:
        rows += [
            ("Cube", []),
            ("decisions (close or actual)", both(lambda s: f"{s.cube_decisions} ({s.close_cube})")),
            ("doubles / takes / passes", both(lambda s: f"{s.doubles} / {s.takes} / {s.passes}")),
            ("missed doubles", both(lambda s: missed(s, "missed double below CP", "missed double above CP"))),
            ("wrong doubles", both(lambda s: missed(s, "wrong double below DP", "wrong double above TG"))),
            ("wrong takes", both(lambda s: missed(s, "wrong take"))),
            ("wrong passes", both(lambda s: missed(s, "wrong pass"))),
            (
                f"error total, EMG ({unit})",
                both(lambda s: f"{s.cube_error:.3f} ({_cost(s.cube_cost, match)})"),
            ),
            ("error rate, mEMG", both(lambda s: _rate(s.cube_rate))),
        ]
    rows += [
        ("Luck", []),
        (
            "rolls lucky (very) / unlucky (very)",
            both(
                lambda s: (
                    f"{s.luck_marks['lucky']} ({s.luck_marks['very lucky']}) / "
                    f"{s.luck_marks['unlucky']} ({s.luck_marks['very unlucky']})"
                )
            ),
        ),
        (f"luck total, EMG ({unit})", both(lambda s: f"{s.luck:+.3f} ({_cost(s.luck_cost, match, True)})")),
        ("luck rate, mEMG", both(lambda s: _rate(s.luck_rate, True))),
        ("Overall", []),
        ("error rate, mEMG (PR)", both(lambda s: f"{_rate(s.error_rate)} ({_rate(s.pr)})")),
        ("rating", both(lambda s: s.rating)),
        (
            "result (luck adjusted)",
            both(lambda s: f"{_cost(s.result, match, True)} ({_cost(s.luck_adjusted, match, True)})"),
        ),
    ]
    return rows


def worst(analysis: MatchAnalysis, n: int = WORST) -> list[Decision]:
    """The ``n`` decisions that lost most, largest first (only those that lost something)."""
    lost = [d for d in analysis.decisions if d.error > 0]
    return sorted(lost, key=lambda d: -d.error)[:n]


def decision_line(analysis: MatchAnalysis, d: Decision) -> str:
    """``game 2, move 8  gnubg 32: 18/13  best 13/8  -0.066 bad``."""
    name = analysis.players[d.player]
    if d.kind == "move":
        what = f"{d.dice[0]}{d.dice[1]}: {d.played or '(no move)'}   best {d.best}"
    elif d.kind == "cube":
        what = f"{d.played}   proper: {d.best}"
    else:
        what = f"{d.played} a double   proper: {d.best}"
    mark = f" {d.mark}" if d.mark else ""
    return f"game {d.game}, move {d.move}  {name}  {what}  -{d.error:.3f}{mark}"


def table(analysis: MatchAnalysis, worst_n: int = WORST) -> str:
    """The analysis of one file for people: the figures per player, then the worst decisions."""
    names = list(analysis.players)
    rows = stat_rows(analysis)
    left = max(len(label) for label, _ in rows) + 4
    width = max(18, *(len(n) for n in names), *(len(c) for _, cells in rows for c in cells)) + 2
    lines = [
        f"{analysis.source or 'match'}: {names[0]} vs {names[1]}, {describe(analysis)}; "
        f"judged by {analysis.judge} (luck at 0-ply), {analysis.seconds:.1f} s",
        "",
        f"{'':<{left}}{names[0]:<{width}}{names[1]}",
    ]
    for label, cells in rows:
        if not cells:
            lines.append(label)
        else:
            lines.append(f"  {label:<{left - 2}}{cells[0]:<{width}}{cells[1]}")
    bad = worst(analysis, worst_n)
    if bad:
        lines += ["", "Worst decisions"]
        lines += [f"  {decision_line(analysis, d)}" for d in bad]
    return "\n".join(lines)


def summary(analysis: MatchAnalysis) -> str:
    """One line per file: each player's error rate, PR and class, and luck."""
    a, b = analysis.stats
    return (
        f"{analysis.source}: {a.name} {_rate(a.error_rate)} (PR {_rate(a.pr)}, {a.rating}, luck "
        f"{_rate(a.luck_rate, True)}) vs {b.name} {_rate(b.error_rate)} (PR {_rate(b.pr)}, {b.rating}, "
        f"luck {_rate(b.luck_rate, True)}); {describe(analysis)}, {analysis.seconds:.1f} s"
    )
