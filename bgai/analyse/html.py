"""A self-contained HTML page of analyses: figures, equity through each game, every marked decision.

No scripts, no files beside it: the boards (the position before each marked decision, the
player on roll at the bottom, home board on the right as gnubg draws it) and the equity plots
are inline SVG; the page prints and mails as it is.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

from bgai.analyse.analysis import Decision, MatchAnalysis
from bgai.analyse.report import describe, stat_rows
from bgai.engine.board import swap_sides

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:62em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:1.5em 0 .3em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.15em .8em;text-align:left}
table.stats td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}
tr.head td{font-weight:bold;padding-top:.6em}
table.alt td{font-variant-numeric:tabular-nums}table.alt tr.played{background:#fde8e8}
table.alt tr.best{background:#e8f5e8}.mark{color:#b00;font-weight:bold}
.decision{display:flex;gap:1.5em;flex-wrap:wrap;align-items:flex-start}
.small{color:#666;font-size:.9em}svg text{font-family:system-ui,sans-serif}
"""

_POINT_W, _BAR_W, _H, _MARGIN = 30, 24, 300, 20
_CHECKER = 13


def board_svg(
    board: np.ndarray,
    dice: tuple[int, int] | None = None,
    cube: int = 1,
    caption: str = "",
    checkers: int = 15,
) -> str:
    """The board (player on roll, row 1, at the bottom moving right to left into the home board on
    the bottom right; their checkers light, the opponent's dark) as an SVG element."""
    board = np.asarray(board)
    width = 12 * _POINT_W + _BAR_W + 2 * _MARGIN + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{_H + 30}" '
        f'viewBox="0 0 {width} {_H + 30}" role="img" aria-label="{escape(caption)}">',
        f'<rect x="{_MARGIN}" y="0" width="{12 * _POINT_W + _BAR_W}" height="{_H}" fill="#e8d9b5" '
        'stroke="#6b4f2a" stroke-width="3"/>',
        f'<rect x="{_MARGIN + 6 * _POINT_W}" y="0" width="{_BAR_W}" height="{_H}" fill="#6b4f2a"/>',
    ]
    for point in range(1, 25):
        x, bottom = _point_x(point), point <= 12
        tip = _H / 2 - 14 if bottom else _H / 2 + 14
        base = _H if bottom else 0
        colour = "#b5523b" if point % 2 else "#f3ecd8"
        parts.append(
            f'<polygon points="{x - _POINT_W / 2 + 1},{base} {x + _POINT_W / 2 - 1},{base} {x},{tip}" '
            f'fill="{colour}" stroke="#6b4f2a" stroke-width=".5"/>'
        )
        label_y = _H + 14 if bottom else -4
        if bottom:
            parts.append(f'<text x="{x}" y="{label_y}" font-size="10" text-anchor="middle">{point}</text>')
        mine, theirs = int(board[1][point - 1]), int(board[0][24 - point])
        if mine:
            parts.extend(_stack(x, bottom, mine, "#fbfbf5", "#333"))
        elif theirs:
            parts.extend(_stack(x, bottom, theirs, "#333", "#fbfbf5"))
    bar_x = _MARGIN + 6 * _POINT_W + _BAR_W / 2
    if board[1][24]:
        parts.extend(_stack(bar_x, False, int(board[1][24]), "#fbfbf5", "#333", start=_H / 2 - 40))
    if board[0][24]:
        parts.extend(_stack(bar_x, True, int(board[0][24]), "#333", "#fbfbf5", start=_H / 2 + 40))
    right = _MARGIN + 12 * _POINT_W + _BAR_W + 6
    off_mine, off_theirs = checkers - int(board[1].sum()), checkers - int(board[0].sum())
    parts.append(f'<text x="{right}" y="{_H - 6}" font-size="11">off {off_mine}</text>')
    parts.append(f'<text x="{right}" y="14" font-size="11">off {off_theirs}</text>')
    if cube > 1:
        parts.append(
            f'<rect x="{right}" y="{_H / 2 - 12}" width="24" height="24" fill="#fff" stroke="#333"/>'
        )
        parts.append(
            f'<text x="{right + 12}" y="{_H / 2 + 5}" font-size="12" text-anchor="middle">{cube}</text>'
        )
    if dice:
        for k, die in enumerate(dice):
            x = _MARGIN + 9 * _POINT_W + _BAR_W + 30 * k - 20
            parts.append(
                f'<rect x="{x}" y="{_H / 2 - 12}" width="24" height="24" rx="4" fill="#fff" stroke="#333"/>'
            )
            parts.append(
                f'<text x="{x + 12}" y="{_H / 2 + 5}" font-size="14" text-anchor="middle">{die}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _point_x(point: int) -> float:
    """Centre of a point (the player on roll's numbering): 1-12 bottom right to left, 13-24 top."""
    column = 12 - point if point <= 12 else point - 13  # 0 = leftmost
    bar = _BAR_W if column >= 6 else 0
    return _MARGIN + column * _POINT_W + bar + _POINT_W / 2


def _stack(x: float, bottom: bool, count: int, fill: str, ink: str, start: float | None = None) -> list[str]:
    step, shown = 2 * _CHECKER, min(count, 5)
    first = (_H - _CHECKER - 1 if bottom else _CHECKER + 1) if start is None else start
    direction = -1 if bottom else 1
    out = []
    for k in range(shown):
        y = first + direction * k * step
        out.append(f'<circle cx="{x}" cy="{y}" r="{_CHECKER - 1}" fill="{fill}" stroke="{ink}"/>')
    if count > shown:
        y = first + direction * (shown - 1) * step
        out.append(
            f'<text x="{x}" y="{y + 4}" font-size="11" text-anchor="middle" fill="{ink}">{count}</text>'
        )
    return out


def curve_svg(points: list[tuple[float, str]], match: bool, title: str) -> str:
    """Player 0's equity (match: winning chance 0-1; money: points) through one game, SVG."""
    if len(points) < 2:
        return ""
    w, h, pad = 640, 160, 36
    values = [v for v, _ in points]
    low, high = (0.0, 1.0) if match else (min(-1.0, *values), max(1.0, *values))
    mid = 0.5 if match else 0.0

    def xy(k: int, v: float) -> tuple[float, float]:
        return pad + k * (w - 2 * pad) / (len(points) - 1), h - pad / 2 - (v - low) / (high - low) * (h - pad)

    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(k, v) for k, v in enumerate(values)))
    _, mid_y = xy(0, mid)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="{escape(title)}">',
        f'<line x1="{pad}" x2="{w - pad}" y1="{mid_y:.1f}" y2="{mid_y:.1f}" stroke="#bbb" '
        'stroke-dasharray="4 3"/>',
        f'<text x="2" y="{xy(0, high)[1] + 4:.1f}" font-size="10">{_axis(high, match)}</text>',
        f'<text x="2" y="{xy(0, low)[1] + 4:.1f}" font-size="10">{_axis(low, match)}</text>',
        f'<polyline points="{path}" fill="none" stroke="#2a5db0" stroke-width="1.5"/>',
    ]
    for k, (value, label) in enumerate(points):
        x, y = xy(k, value)
        colour = "#b00" if "bad" in label or "doubtful" in label else "#2a5db0"
        radius = 4 if colour == "#b00" else 2
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{colour}">'
            f"<title>{escape(label)}: {_axis(value, match)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _axis(value: float, match: bool) -> str:
    return f"{100 * value:.0f}%" if match else f"{value:+.2f}"


def _decision_html(analysis: MatchAnalysis, d: Decision) -> str:
    name = escape(analysis.players[d.player])
    mark = f'<span class="mark">{escape(d.mark)}</span> ' if d.mark else ""
    if d.kind == "move":
        head = f"Game {d.game}, move {d.move}: {name} to play {d.dice[0]}{d.dice[1]}"
        rows = [
            "<tr><th>#</th><th>move</th><th>ply</th><th>equity</th><th>diff</th><th>win / gammon / bg - "
            "lose gammon / bg</th></tr>"
        ]
        best = d.alternatives[0].equity if d.alternatives else d.equity
        shown = False
        for k, alt in enumerate(d.alternatives, 1):
            css = ' class="played"' if alt.move == d.played else (' class="best"' if k == 1 else "")
            shown |= alt.move == d.played
            rows.append(_alt_row(str(k), alt.move, alt.ply, alt.equity, alt.equity - best, alt.probs, css))
        if not shown:
            rows.append(
                _alt_row("", d.played, analysis.plies, d.equity, d.equity - best, (), ' class="played"')
            )
        body = (
            f"<p>played <b>{escape(d.played or '(no move)')}</b>, best <b>{escape(d.best)}</b>: "
            f'{mark}-{d.error:.3f}</p><table class="alt">{"".join(rows)}</table>'
        )
        dice = d.dice
    else:
        c = d.cube or {}
        who = "the doubler's cube decision" if d.kind == "cube" else "the answer to the double"
        head = f"Game {d.game}, move {d.move}: {name}, {who}"
        rows = "".join(
            f"<tr><td>{label}</td><td>{c.get(key, math.nan):+.3f}</td></tr>"
            for label, key in (("no double", "nd"), ("double, take", "dt"), ("double, pass", "dp"))
        )
        body = (
            f"<p>{escape(d.played)}; proper: <b>{escape(d.best)}</b>: {mark}-{d.error:.3f}"
            f"{' (' + escape(d.what) + ')' if d.what else ''}</p>"
            f'<table class="alt"><tr><th colspan=2>cubeful equities (doubler\'s)</th></tr>{rows}</table>'
        )
        dice = None
    cube = 1
    if d.position:
        from bgai.formats import decode_match_id

        cube = decode_match_id(d.position.split(":")[1]).cube_value
    seen = d.board if d.kind != "take" or d.board is None else swap_sides(d.board)  # the decider's view
    board = board_svg(seen, dice, cube, head, analysis.checkers) if seen is not None else ""
    return (
        f'<h3>{head}</h3><div class="decision">{board}<div>{body}'
        f'<p class="small">{escape(d.position)}</p></div></div>'
    )


def _alt_row(rank: str, move: str, ply: int, equity: float, diff: float, probs, css: str) -> str:
    p = " ".join(f"{x:.3f}" for x in probs[:3]) + (
        " - " + " ".join(f"{x:.3f}" for x in probs[3:]) if probs else ""
    )
    return (
        f"<tr{css}><td>{rank}</td><td>{escape(move)}</td><td>{ply}</td><td>{equity:+.3f}</td>"
        f"<td>{diff:+.3f}</td><td>{p}</td></tr>"
    )


def analysis_html(analysis: MatchAnalysis) -> str:
    """One file's section: the figures, the equity plots, then every marked decision."""
    names = [escape(n) for n in analysis.players]
    match = analysis.match_length > 0
    out = [
        f"<h2>{escape(analysis.source or 'match')}</h2>",
        f"<p>{names[0]} vs {names[1]}, {escape(describe(analysis))}; judged by {escape(analysis.judge)} "
        f"(luck at 0-ply), {analysis.seconds:.1f} s</p>",
        f'<table class="stats"><tr><td></td><th>{names[0]}</th><th>{names[1]}</th></tr>',
    ]
    for label, cells in stat_rows(analysis):
        if not cells:
            out.append(f'<tr class="head"><td colspan=3>{escape(label)}</td></tr>')
        else:
            out.append(
                f"<tr><td>{escape(label)}</td><td>{escape(cells[0])}</td><td>{escape(cells[1])}</td></tr>"
            )
    out.append("</table>")
    what = "match winning chance" if match else "equity in points"
    out.append(f"<h3>{names[0]}'s {what} through each game</h3>")
    for game, points in zip(analysis.games, analysis.curves, strict=True):
        score = f"{game.score[0]}-{game.score[1]}" + (", Crawford" if game.crawford else "")
        out.append(f'<p class="small">Game {game.number} ({score})</p>')
        out.append(curve_svg(points, match, f"game {game.number}"))
    marked = [d for d in analysis.decisions if d.mark]
    out.append(f"<h3>Marked decisions ({len(marked)})</h3>")
    out.extend(_decision_html(analysis, d) for d in marked)
    return "\n".join(out)


def page(analyses: list[MatchAnalysis], title: str = "bgai analyse") -> str:
    """The whole page for one or more files."""
    body = "\n".join(analysis_html(a) for a in analyses)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>\n{body}\n</body></html>\n"
    )
