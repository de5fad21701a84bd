"""Batched generation of every legal afterstate, for thousands of (position, roll) pairs at once.

The rules are applied one die step at a time over a whole frontier of partial moves:

* a non-double is played in both orders, high die first and low die first;
* a double is one row of four steps whose sources never increase, which reaches every
  resulting position while avoiding most duplicate paths (moving a higher checker first can
  never make a lower checker's step illegal, and entering from the bar is the highest source);
* the maximum-dice rule falls out of keeping, for each parent, only its deepest non-empty
  frontier; when only one die of a non-double can be played, the higher die wins if it fits.

Identical resulting positions of one parent are merged. Most rolls cannot produce any: in a
*plain* roll (see :func:`_is_plain`) no checker can bear off and the bar does not force an
order, and there the steps are restricted so that each resulting position is reached exactly
once (see :func:`_next_allowed`). Only the other rolls' candidates are sorted on (parent,
64-bit Zobrist hash) to find repeats.

Why it is fast (about 14 children per pair; see scripts/measure/bench_engine.py):

* every partial move carries the mover's occupied points, the opponent's blots and the
  opponent's made points as 25-bit masks, so the legality of all 25 sources for one die is a
  handful of integer operations per row (shift the made-point mask by the die);
* the set bits of those masks are listed byte by byte through 256-entry tables
  (:func:`_set_bits`) instead of a nonzero over 25 flags per row;
* playing a step adds one row of a small table of board deltas indexed by (source, die, hit);
  boards of a move's last step are built only for the kept children, in their final order,
  which comes from sorting runs of candidates, not the candidates (:func:`_by_parent`);
* large temporaries live in per-thread buffers reused between calls (:func:`_scratch`):
  on a CPU, page faults on fresh memory cost more than the arithmetic.

Everything is torch tensor code, so the same functions run on a CUDA device unchanged.
Boards use gnubg's layout (see :mod:`bgai.engine.board`); the mover stays in row 1.
Children of one parent come in a fixed order (the order of play), not sorted.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import torch

_HASH_SEED = 0x5EED_BA6
_BAR_BIT = 1 << 24  # the mover's bar in a point mask (bit i = the mover's point index i)
_ALL = (1 << 25) - 1
_NO_STEP = 300  # the step code of "nothing played": a zero board delta


@dataclass(frozen=True)
class Afterstates:
    """Every distinct legal resulting position of a batch of (position, roll) pairs.

    ``boards[j]`` came from ``parent[j]``; children are grouped by parent in ascending order.
    ``sources``/``dice`` (present when paths were asked for) describe one way of playing it:
    step ``k`` moved a checker from source index ``sources[j, k]`` (0-23 point index, 24 bar,
    -1 no step) by ``dice[j, k]`` pips.
    """

    boards: torch.Tensor
    parent: torch.Tensor
    sources: torch.Tensor | None = None
    dice: torch.Tensor | None = None


def expand(boards: torch.Tensor, dice: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """All distinct legal afterstates: ``(children (M, 2, 25), parent (M,))``.

    ``boards``: integer (N, 2, 25), player on roll in row 1; ``dice``: (N, 2) in any order.
    A board with no legal move yields exactly one child, itself. Children keep the mover in
    row 1 (call :func:`bgai.engine.board.swap_sides` to pass the turn).
    """
    result = afterstates(boards, dice)
    return result.boards, result.parent


def afterstates(boards: torch.Tensor, dice: torch.Tensor, with_paths: bool = False) -> Afterstates:
    """:func:`expand`, optionally with one representative checker path per child."""
    boards = torch.as_tensor(boards)
    dice = torch.as_tensor(dice, device=boards.device)
    _check_inputs(boards, dice)
    n, device = boards.shape[0], boards.device
    if n == 0:
        empty = torch.zeros((0, 2, 25), dtype=torch.int8, device=device)
        none = torch.zeros(0, dtype=torch.long, device=device)
        if not with_paths:
            return Afterstates(empty, none)
        return Afterstates(empty, none, none.new_zeros((0, 4), dtype=torch.int8), none.new_zeros((0, 4)))
    t = _tables(device)
    x = boards.to(torch.int8).reshape(n, 50).contiguous()
    seqs = _Sequences.of(x, dice.to(torch.int32))
    levels, store = _play_steps(x, seqs, t, with_paths)
    return _collect(x, seqs, levels, store, t, with_paths)


def _check_inputs(boards: torch.Tensor, dice: torch.Tensor) -> None:
    if boards.dim() != 3 or boards.shape[1:] != (2, 25):
        raise ValueError(f"boards must have shape (N, 2, 25), got {tuple(boards.shape)}")
    if dice.shape != (boards.shape[0], 2):
        raise ValueError(f"dice must have shape ({boards.shape[0]}, 2), got {tuple(dice.shape)}")
    if dice.numel() and (dice.min() < 1 or dice.max() > 6):
        raise ValueError("every die must show 1 to 6")


# --- lookup tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """Per-device constants. A step's code is ``(source * 6 + die - 1) * 2 + hit``."""

    pow2: torch.Tensor  # (25,) int32: the bit of each of the mover's point indices
    zobrist_halves: torch.Tensor  # (50, 2) float64: each cell's hash weight, low and high 32 bits
    hash_delta: torch.Tensor  # (301,) int64: hash change of each step code
    delta: torch.Tensor  # (301, 50) int8: board change of each step code (row 300: none)
    dest_bit: torch.Tensor  # (301,) int32: bit of the landing point (0 when bearing off)
    hit_bit: torch.Tensor  # (301,) int32: bit of the landing point when the step hits
    comes_home: torch.Tensor  # (301,) int32: 1 when the step ends the checker's time outside home
    highest: torch.Tensor  # (64,) int32: highest set bit of a home-board mask (0 for none)
    byte_count: torch.Tensor  # (256,) int32: how many bits each byte value has set
    byte_bit: torch.Tensor  # (256 * 8,) int32: [value * 8 + k] = the k-th lowest set bit of value


_tables_cache: dict[torch.device, _Tables] = {}


def _tables(device: torch.device) -> _Tables:
    if device not in _tables_cache:
        _tables_cache[device] = _build_tables(device)
    return _tables_cache[device]


def _build_tables(device: torch.device) -> _Tables:
    gen = torch.Generator().manual_seed(_HASH_SEED)
    halves = torch.randint(0, 2**32, (50, 2), generator=gen, dtype=torch.long)
    delta = torch.zeros((_NO_STEP + 1, 50), dtype=torch.int8)
    dest_bit, hit_bit, comes_home = (torch.zeros(_NO_STEP + 1, dtype=torch.int32) for _ in range(3))
    for source in range(25):
        for die in range(1, 7):
            for hit in (0, 1):
                code, dest = (source * 6 + die - 1) * 2 + hit, source - die
                delta[code, 25 + source] -= 1
                comes_home[code] = source >= 6 and dest < 6
                if dest < 0:  # borne off: the hit flag is meaningless here
                    continue
                delta[code, 25 + dest] += 1
                dest_bit[code] = 1 << dest
                if hit:  # the opponent's blot on that point goes to its bar
                    delta[code, 23 - dest] -= 1
                    delta[code, 24] += 1
                    hit_bit[code] = 1 << dest
    highest = [max((i for i in range(6) if mask >> i & 1), default=0) for mask in range(64)]
    byte_bits = [[b for b in range(8) if value >> b & 1] for value in range(256)]
    tables = _Tables(
        pow2=torch.tensor([1 << i for i in range(25)], dtype=torch.int32),
        zobrist_halves=halves.double(),
        hash_delta=(delta.long() * (halves[:, 0] + (halves[:, 1] << 32))).sum(1),
        delta=delta,
        dest_bit=dest_bit,
        hit_bit=hit_bit,
        comes_home=comes_home,
        highest=torch.tensor(highest, dtype=torch.int32),
        byte_count=torch.tensor([len(bits) for bits in byte_bits], dtype=torch.int32),
        byte_bit=torch.tensor([(b + [0] * 8)[k] for b in byte_bits for k in range(8)], dtype=torch.int32),
    )
    return _Tables(*(getattr(tables, f).to(device) for f in _Tables.__dataclass_fields__))


# --- reusable buffers ------------------------------------------------------------------------

_scratch_space = threading.local()
_SCRATCH_BYTES = 1 << 26  # larger temporaries (batches of ~100,000 pairs) are not kept


def _scratch(name: str, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A temporary tensor kept per thread and device between calls (contents undefined).

    On a CPU, writing a large fresh tensor costs more in page faults than in arithmetic
    (glibc hands freed memory back to the system after every call), so the engine's big
    temporaries live here. Never returned to callers.
    """
    numel = 1
    for size in shape:
        numel *= size
    cache = getattr(_scratch_space, "buffers", None)
    if cache is None:
        cache = _scratch_space.buffers = {}
    key = (name, dtype, device)
    buffer = cache.get(key)
    if buffer is None or buffer.numel() < numel:
        buffer = torch.empty(int(1.25 * numel), dtype=dtype, device=device)
        if buffer.numel() * buffer.element_size() <= _SCRATCH_BYTES:
            cache[key] = buffer
    return buffer[:numel].view(shape)


class _BoardStore:
    """Every frontier's boards, with their hashes, in one buffer (the parents' boards first).

    A partial move is (store row of the board it was played from, step code), so the final
    children are gathered from here in one pass.
    """

    def __init__(self, x: torch.Tensor, hashes: torch.Tensor, t: _Tables):
        self.t, self.size = t, len(x)
        self.boards, self.hashes = self._buffers(12 * len(x) + 64, x.device)
        self.boards[: len(x)] = x
        self.hashes[: len(x)] = hashes

    @staticmethod
    def _buffers(rows: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        boards = _scratch("store", (rows, 50), torch.int8, device)
        return boards, _scratch("store hashes", (rows,), torch.long, device)

    def play(self, rows: torch.Tensor, code: torch.Tensor) -> int:
        """Append stored boards ``rows`` after the steps ``code``; returns the first new row."""
        base, end = self.size, self.size + len(rows)
        if end > len(self.boards):  # grow, keeping what is stored
            boards, hashes = self._buffers(int(1.5 * end), rows.device)
            if boards.data_ptr() != self.boards.data_ptr():
                boards[:base], hashes[:base] = self.boards[:base], self.hashes[:base]
            self.boards, self.hashes = boards, hashes
        torch.index_select(self.boards[:base], 0, rows, out=self.boards[base:end])
        self.boards[base:end] += self._deltas(code)
        torch.index_select(self.hashes[:base], 0, rows, out=self.hashes[base:end])
        self.hashes[base:end] += self.t.hash_delta.index_select(0, code)
        self.size = end
        return base

    def children(self, rows: torch.Tensor, code: torch.Tensor) -> torch.Tensor:
        """Fresh (M, 2, 25) boards: stored boards ``rows`` after the steps ``code``."""
        boards = self.boards[: self.size].index_select(0, rows)
        boards += self._deltas(code)
        return boards.view(-1, 2, 25)

    def _deltas(self, code: torch.Tensor) -> torch.Tensor:
        out = _scratch("deltas", (len(code), 50), torch.int8, code.device)
        return torch.index_select(self.t.delta, 0, code, out=out)


# --- sequences and the frontier of partial moves ---------------------------------------------


@dataclass
class _Sequences:
    """The orders of play, grouped by parent: for each non-double parent (in parent order) a
    high-first row at an even index and a low-first row after it, then one row per double."""

    parent: torch.Tensor  # (S,) the (position, roll) pair each sequence plays
    dice: torch.Tensor  # (S, 4) int32: the die of each step (0: no such step)
    singles: int  # sequences [0, 2 * singles) are the non-doubles'
    plain: torch.Tensor  # (n,) bool: the parent's roll is plain (see _is_plain)

    @staticmethod
    def of(x: torch.Tensor, dice: torch.Tensor) -> _Sequences:
        high, low = torch.maximum(dice[:, 0], dice[:, 1]), torch.minimum(dice[:, 0], dice[:, 1])
        double = high == low
        single_idx = (~double).nonzero().squeeze(1)
        double_idx = double.nonzero().squeeze(1)
        hs, ls, ds = high.index_select(0, single_idx), low.index_select(0, single_idx), high[double_idx]
        zeros = torch.zeros_like(hs)
        seq_dice = torch.cat(
            [
                torch.stack([hs, ls, zeros, zeros, ls, hs, zeros, zeros], 1).view(-1, 4),
                ds[:, None].expand(-1, 4),
            ]
        )
        parent = torch.cat([single_idx[:, None].expand(-1, 2).reshape(-1), double_idx])
        return _Sequences(parent, seq_dice, len(single_idx), _is_plain(x, double))


def _is_plain(x: torch.Tensor, double: torch.Tensor) -> torch.Tensor:
    """True where no checker can bear off during the move and the bar fixes no order of play.

    A step brings at most one checker home, so nothing bears off while at least as many
    checkers are outside home (bar included) as the move has steps. For a non-double the bar
    must not hold exactly one checker: then entering with the low die frees the high die for
    any checker. With two or more on the bar both dice enter, in either order alike.

    A plain double never reaches one position twice: its steps' sources never increase, the
    one order of their multiset, and without bearing off two different multisets of sources
    (each checker moving the same number of pips) leave the mover's checkers differently.
    """
    mover = x[:, 25:]
    outside = mover[:, 6:].sum(1)
    return torch.where(double, outside >= 4, (outside >= 2) & (mover[:, 24] != 1))


@dataclass
class _Frontier:
    """Partial moves still to play a die; point masks use bit i for the mover's point index i."""

    seq: torch.Tensor  # (R,) int32: which sequence each row plays
    board_row: torch.Tensor  # (R,) int32: the row's board in the store
    occupied: torch.Tensor  # (R,) int32 mask: points (and bar) holding a mover checker
    blots: torch.Tensor  # (R,) int32 mask: points holding exactly one opponent checker
    made: torch.Tensor  # (R,) int32 mask: points the opponent holds with two or more
    outside: torch.Tensor  # (R,) int32: mover checkers outside the home board (bar included)
    allowed: torch.Tensor  # (R,) int32 mask: sources this row's next step may use
    die: torch.Tensor  # (R,) int32: this row's next die
    paths: torch.Tensor | None  # (R, 4) int8 sources of the steps so far (-1: none)


@dataclass
class _Level:
    """The partial moves that have played ``k + 1`` dice, as (previous board, step code)."""

    prev: torch.Tensor  # int32: the store row of the board the step was played from
    code: torch.Tensor  # int32: the step played from there
    seq: torch.Tensor  # int32
    paths: torch.Tensor | None


def _hash(boards: torch.Tensor, t: _Tables) -> torch.Tensor:
    """A linear 64-bit Zobrist-style hash of (R, 50) boards: sum of cell * weight, mod 2**64.

    Computed as two exact float64 dot products (32-bit weight halves), much faster on a CPU
    than int64 arithmetic; a step changes it by ``hash_delta[code]``.
    """
    halves = (boards.to(torch.float64) @ t.zobrist_halves).long()
    return halves[:, 0] + (halves[:, 1] << 32)


def _parent_hashes(x: torch.Tensor, seqs: _Sequences, t: _Tables) -> torch.Tensor:
    """Hashes of the boards whose rolls need merging (not plain); 0 for the rest, unused."""
    hashes = torch.zeros(len(x), dtype=torch.long, device=x.device)
    mixed = (~seqs.plain).nonzero().squeeze(1)
    if len(mixed):
        hashes.index_copy_(0, mixed, _hash(x.index_select(0, mixed), t))
    return hashes


def _point_mask(points: torch.Tensor, t: _Tables) -> torch.Tensor:
    """(R, k) booleans over point indices 0..k-1 -> (R,) int32 bit mask."""
    return (points.to(torch.int32) * t.pow2[: points.shape[1]]).sum(1, dtype=torch.int32)


def _start(x: torch.Tensor, seqs: _Sequences, t: _Tables, with_paths: bool) -> _Frontier:
    mover = x[:, 25:]
    opp_here = x[:, :24].flip(1)  # opponent checkers on each of the mover's point indices
    p = seqs.parent
    rows = len(p)
    return _Frontier(
        seq=torch.arange(rows, dtype=torch.int32, device=x.device),
        board_row=p.to(torch.int32),
        occupied=_point_mask(mover > 0, t).index_select(0, p),
        blots=_point_mask(opp_here == 1, t).index_select(0, p),
        made=_point_mask(opp_here >= 2, t).index_select(0, p),
        outside=mover[:, 6:].sum(1, dtype=torch.int32).index_select(0, p),
        allowed=torch.full((rows,), _ALL, dtype=torch.int32, device=x.device),
        die=seqs.dice[:, 0],
        paths=torch.full((rows, 4), -1, dtype=torch.int8, device=x.device) if with_paths else None,
    )


def _legal_sources(f: _Frontier, t: _Tables) -> torch.Tensor:
    """Mask of the sources from which one checker may play the row's die, every rule applied.

    A checker lands when its destination is not made (the made-point mask shifted up by the
    die lines each destination up with its source); while a checker is on the bar only the bar
    may move; a checker bears off when every mover checker is home and the die is exact, or the
    die is larger and no checker stands on a higher point (the highest occupied point).
    """
    die = f.die
    movable = f.occupied & f.allowed
    lands = movable & ~(f.made << die) & -(1 << die)
    lands = torch.where((f.occupied & _BAR_BIT) != 0, lands & _BAR_BIT, lands)
    highest = t.highest.index_select(0, f.occupied & 63)
    bears_off = movable & (1 << torch.minimum(highest, die - 1))
    return torch.where(f.outside == 0, lands | bears_off, lands)


def _set_bits(masks: torch.Tensor, t: _Tables) -> tuple[torch.Tensor, torch.Tensor]:
    """(row, bit) of every set bit of (R,) int32 masks, in row-major order (int32 both).

    Rather than testing all 25 bits of every row (a nonzero over R x 25 flags, the slowest
    part of a step), each of a mask's four bytes lists its own set bits through 256-entry
    tables: a byte's k-th output is table[value * 8 + k], k counted from the byte's first
    output, found by a cumulative sum over the bytes.
    """
    values = masks.view(torch.uint8).int()  # little-endian: byte j holds bits 8j .. 8j + 7
    counts = t.byte_count.index_select(0, values)
    ends = counts.cumsum(0, dtype=torch.int32)
    starts = ends - counts
    total = int(ends[-1]) if len(ends) else 0
    marks = _scratch("marks", (total + 1,), torch.int32, masks.device).zero_()
    marks.index_add_(0, starts, torch.ones_like(starts))
    byte = marks[:total].cumsum(0, dtype=torch.int32) - 1  # the byte each set bit comes from
    k = torch.arange(total, dtype=torch.int32, device=masks.device) - starts.index_select(0, byte)
    bit = t.byte_bit.index_select(0, values.index_select(0, byte) * 8 + k)
    return byte >> 2, ((byte & 3) << 3) + bit


def _next_allowed(f: _Frontier, seqs: _Sequences, row, seq, src, code, t: _Tables) -> torch.Tensor:
    """Sources the second step of each first-step child may use.

    Doubles: never a higher source than the step before. In a plain non-double roll:

    * low die first, only the checker just moved may go on (a different checker B playing high
      after A played low gives what B high then A low gives: B's step was legal before A moved,
      since A can only remove a blot from B's landing point, and A's stays legal after B's);
      and not even that checker when its high-first twin (high step first from the same point)
      is legal and both ways hit nothing on the way, which lands on the same position;
    * high die first from point a, no checker from a + low (it would land on a: the same
      position as the checker from a + low moving low to a, then high).

    Each plain position is then reached by one path only, so it needs no merging.
    """
    ceiling = (t.pow2.index_select(0, src) << 1) - 1
    if seqs.singles == 0:
        return ceiling
    single = seq < 2 * seqs.singles
    plain = seqs.plain.index_select(0, seqs.parent.index_select(0, seq)) & single
    low_first = (seq & 1).bool()
    second = seqs.dice[:, 1].index_select(0, seq)  # the other die of a non-double
    # High first: exclude the point a + low (bits past the bar fall outside _ALL).
    high_first = _ALL & ~(t.pow2.index_select(0, src) << second)
    # Low first: the moved checker's point, unless its high-first twin gives the same position.
    blots, made = f.blots.index_select(0, row), f.made.index_select(0, row)
    via_high = (src - second).clamp(min=0)
    clear_way = ((made | blots) >> via_high) & 1 == 0
    twin = (src >= second) & clear_way & (t.hit_bit.index_select(0, code) == 0)
    low_first_mask = torch.where(twin, 0, t.dest_bit.index_select(0, code))
    allowed = torch.where(low_first, low_first_mask, high_first)
    allowed = torch.where(plain, allowed, _ALL)
    return torch.where(single, allowed, ceiling)


def _play_steps(x: torch.Tensor, seqs: _Sequences, t: _Tables, with_paths: bool):
    """Play the dice step by step; returns each level's partial moves and the board store."""
    f = _start(x, seqs, t, with_paths)
    store = _BoardStore(x, _parent_hashes(x, seqs, t), t)
    levels: list[_Level] = []
    for k in range(4):
        if len(f.seq) == 0:
            break
        row, src = _set_bits(_legal_sources(f, t), t)
        # Bit s of the blots shifted up by the die says whether the step from s hits.
        hits_from = f.blots << f.die
        code = src * 12 + (f.die * 2 - 2).index_select(0, row) + ((hits_from.index_select(0, row) >> src) & 1)
        board_row = f.board_row.index_select(0, row)
        seq = f.seq.index_select(0, row)
        paths = None
        if f.paths is not None:
            paths = f.paths.index_select(0, row)
            paths[:, k] = src.to(torch.int8)
        levels.append(_Level(board_row, code, seq, paths))
        if k == 3:
            break
        if k == 1:  # only doubles play a third step; they are the last sequences
            first = int(torch.searchsorted(seq, 2 * seqs.singles))
            row, src, code, board_row, seq = (v[first:] for v in (row, src, code, board_row, seq))
            paths = None if paths is None else paths[first:]
        if k == 0:
            allowed = _next_allowed(f, seqs, row, seq, src, code, t)
            live = (allowed != 0).nonzero().squeeze(1)  # a quarter or so may go no further
            row, src, code, board_row, seq, allowed = (
                v.index_select(0, live) for v in (row, src, code, board_row, seq, allowed)
            )
            paths = None if paths is None else paths.index_select(0, live)
        else:
            allowed = (t.pow2.index_select(0, src) << 1) - 1
        count = store.boards.view(-1).index_select(0, board_row.long() * 50 + 25 + src)
        emptied = torch.where(count == 1, t.pow2.index_select(0, src), 0)
        base = store.play(board_row, code)
        f = _Frontier(
            seq=seq,
            board_row=torch.arange(base, base + len(row), dtype=torch.int32, device=x.device),
            occupied=(f.occupied.index_select(0, row) ^ emptied) | t.dest_bit.index_select(0, code),
            blots=f.blots.index_select(0, row) & ~t.hit_bit.index_select(0, code),
            made=f.made.index_select(0, row),
            outside=f.outside.index_select(0, row) - t.comes_home.index_select(0, code),
            allowed=allowed,
            die=seqs.dice[:, k + 1].index_select(0, seq),
            paths=paths,
        )
    return levels, store


# --- choosing and ordering the children ----------------------------------------------------------


def _collect(x, seqs: _Sequences, levels: list[_Level], store: _BoardStore, t: _Tables, with_paths: bool):
    """Keep each parent's legal full moves, drop repeats, and build the children in order.

    Legal full moves are the deepest level's (the higher die's on a tie at depth 1). Each
    level lists its candidates grouped by parent (sequences are grouped by parent, and
    children follow their frontier rows), so ordering them by parent moves whole runs.
    """
    n, device = x.shape[0], x.device
    level_parent = [seqs.parent.index_select(0, lv.seq) for lv in levels]
    reached = [torch.zeros(n, dtype=torch.bool, device=device).index_fill_(0, p, True) for p in level_parent]

    stuck = (~reached[0]).nonzero().squeeze(1) if levels else torch.arange(n, device=device)
    prev, parents = [stuck.to(torch.int32)], [stuck]
    code = [torch.full_like(stuck, _NO_STEP, dtype=torch.int32)]
    seq = [torch.zeros_like(stuck, dtype=torch.int32)]
    paths = [torch.full((len(stuck), 4), -1, dtype=torch.int8, device=device)]
    for k, (lv, parent) in enumerate(zip(levels, level_parent, strict=True)):
        parts = [(slice(None), False)]
        if k == 1 and len(levels) > 2:  # the non-doubles' second steps are all final
            first = int(torch.searchsorted(lv.seq, 2 * seqs.singles))
            parts = [(slice(None, first), True), (slice(first, None), False)]
        for part, final in parts:
            rows = None if final else _kept(k, parent[part], lv.seq[part], levels, reached, seqs)

            def pick(v: torch.Tensor, part=part, rows=rows) -> torch.Tensor:
                return v[part] if rows is None else v[part].index_select(0, rows)

            prev.append(pick(lv.prev))
            code.append(pick(lv.code))
            parents.append(pick(parent))
            if with_paths:
                seq.append(pick(lv.seq))
                paths.append(pick(lv.paths))

    prev, code, parent = _joined("prev", prev), _joined("code", code), _joined("parent", parents)
    repeats = _repeats(store.hashes, prev, code, parent, seqs, t)
    parent.index_fill_(0, repeats, n)  # a parent past the last: sorted to the end, cut off
    chosen = _by_parent(parent)[: len(parent) - len(repeats)]
    prev = torch.index_select(prev, 0, chosen, out=_scratch("chosen prev", chosen.shape, prev.dtype, device))
    code = torch.index_select(code, 0, chosen, out=_scratch("chosen code", chosen.shape, code.dtype, device))
    boards = store.children(prev, code)
    parent = parent.index_select(0, chosen)
    if not with_paths:
        return Afterstates(boards, parent)
    sources = torch.cat(paths).index_select(0, chosen)
    dice = seqs.dice.index_select(0, torch.cat(seq).index_select(0, chosen))
    dice = torch.where(sources >= 0, dice, 0).long()
    return Afterstates(boards, parent, sources, dice)


def _joined(name: str, parts: list[torch.Tensor]) -> torch.Tensor:
    """``torch.cat(parts)`` into a reused buffer."""
    out = _scratch(f"joined {name}", (sum(len(p) for p in parts),), parts[0].dtype, parts[0].device)
    return torch.cat(parts, out=out)


def _kept(k: int, parent, seq, levels: list[_Level], reached, seqs: _Sequences) -> torch.Tensor | None:
    """Which of level ``k``'s candidates are legal full moves (None: all of them)."""
    keep = None
    if k + 1 < len(levels):
        keep = ~reached[k + 1].index_select(0, parent)  # a deeper level exists for this parent
    if k == 0 and seqs.singles:  # only one die playable: the higher one when it can be
        single = seq < 2 * seqs.singles
        high_first = single & (seq & 1 == 0)
        has_high = torch.zeros(len(reached[0]), dtype=torch.bool, device=seq.device)
        has_high.index_fill_(0, parent.index_select(0, high_first.nonzero().squeeze(1)), True)
        rule = ~(single & ~high_first & has_high.index_select(0, parent))
        keep = rule if keep is None else keep & rule
    return None if keep is None else keep.nonzero().squeeze(1)


def _repeats(store_hashes, prev, code, parent, seqs: _Sequences, t: _Tables) -> torch.Tensor:
    """Candidates that repeat an earlier candidate's position for the same parent.

    Only rolls that are not plain can have any. They are found with one stable sort on a
    63-bit key (the parent in the high bits, the top bits of a 64-bit Zobrist hash below);
    neighbours count as equal only if their full hashes agree too.
    """
    mixed = (~seqs.plain.index_select(0, parent)).nonzero().squeeze(1)
    hashes = store_hashes.index_select(0, prev.index_select(0, mixed))
    hashes += t.hash_delta.index_select(0, code.index_select(0, mixed))
    hash_bits = 63 - max(1, (len(seqs.plain) - 1).bit_length())
    top = ((hashes ^ -(2**63)) >> (64 - hash_bits)) & ((1 << hash_bits) - 1)  # unsigned order
    key = (parent.index_select(0, mixed) << hash_bits) | top
    order = key.argsort(stable=True)
    k, h = key.index_select(0, order), hashes.index_select(0, order)
    repeat = ((k[1:] == k[:-1]) & (h[1:] == h[:-1])).nonzero().squeeze(1)
    return mixed.index_select(0, order.index_select(0, repeat + 1))


def _by_parent(parent: torch.Tensor) -> torch.Tensor:
    """The stable order that groups candidates by parent, moving whole runs of one parent.

    Candidates come in runs that share a parent (a parent's candidates are few runs, often
    one), so sorting the runs is enough: no sort over every candidate. Output position i of a
    run maps to input position i + (the run's start - its output start); that offset is
    spread over the run's positions by a cumulative sum of its changes.
    """
    m, device = len(parent), parent.device
    change = torch.ones(m, dtype=torch.bool, device=device)
    change[1:] = parent[1:] != parent[:-1]
    starts = change.nonzero().squeeze(1)
    lengths = torch.diff(starts, append=torch.tensor([m], device=device))
    runs = parent.index_select(0, starts).argsort(stable=True)
    starts, lengths = starts.index_select(0, runs), lengths.index_select(0, runs)
    out_starts = lengths.cumsum(0) - lengths
    moved = starts - out_starts
    steps = _scratch("run steps", (m,), torch.long, device).zero_()
    steps.index_copy_(0, out_starts, torch.diff(moved, prepend=moved.new_zeros(1)))
    return torch.arange(m, device=device) + steps.cumsum(0)
