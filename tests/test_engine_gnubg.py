"""The move generator against GNU Backgammon, and invariants over positions from real games.

Differential: for a CI sample of 21,000 (position, roll) pairs (every sampling kind, plus
nackgammon and hypergammon games) and 4,000 arbitrary boards, bgai's set of distinct resulting
positions must equal ``gnubg_nn.moves``'s, and bgai must not return one twice. gnubg_nn copes
with 3-checker boards: its hypergammon opening moves are the ones counted by hand in
test_engine_rules.py, and on arbitrary 3-checker boards the two independent generators agree,
so it is the oracle for hypergammon too. The comparison itself is :mod:`bgai.gnubg`'s; the full
run is ``python scripts/study/diff_engine_gnubg.py`` (200,000 pairs by default).

Invariants, checked on every child of every sampled pair: both sides keep their checkers (the
mover loses exactly the ones borne off, and whole random games keep 15 or 3 a side counting
those borne off); the mover's pip count drops by exactly the pips its path plays, where a step
of die ``d`` from point ``p`` (bar = 25) plays ``min(d, p)`` pips (bearing off from the 2-point
with a 6 plays 2); each step of the path is legal when it is played, and the steps replay to
the child; nothing ends on a point the opponent held with two or more; all children of one roll
play the same number of dice; no roll has the same child twice.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.engine import afterstates, starting_board
from bgai.engine.choice import random_child
from bgai.engine.sampling import sample_positions
from tests.positions import random_boards

pytestmark = pytest.mark.gnubg

CI_PAIRS = 21_000  # 3,500 from each of the six streams


@pytest.fixture(scope="module")
def streams():
    per = CI_PAIRS // len(oracle.ENGINE_STREAMS)
    return [
        (label, *sample_positions(per, kind, seed=20260 + i, variant=variant, games=1000))
        for i, (label, kind, variant) in enumerate(oracle.ENGINE_STREAMS)
    ]


def test_gnubg_keys_are_the_position_key_in_hex_letters(gnubg_nn):
    board = starting_board()
    key = gnubg_nn.key_of_board(board.tolist())
    assert key == "OAHDPAABDAOAHDPAABDA"  # E0 73 F0 01 30 twice, docs/formats.md §1
    assert oracle.decode_keys([key]).tobytes() == bytes.fromhex("E073F00130E073F00130")
    assert oracle.position_keys(board[None]).tobytes() == bytes.fromhex("E073F00130E073F00130")


def test_position_keys_match_gnubgs_for_sampled_boards(streams, gnubg_nn):
    boards = torch.cat([b[:200] for _, b, _ in streams])
    ours = oracle.position_keys(boards)
    theirs = oracle.decode_keys([gnubg_nn.key_of_board(b) for b in boards.tolist()])
    assert np.array_equal(ours, theirs)


def test_the_comparison_notices_missing_extra_and_repeated_children():
    board = torch.as_tensor(starting_board())[None]
    other = board.clone()
    other[0, 1, 5] -= 1  # 6/5
    other[0, 1, 4] += 1
    dice = torch.tensor([[3, 1]])
    ours = oracle.key_rows(oracle.position_keys(board), np.array([0]))
    theirs = oracle.key_rows(oracle.position_keys(other), np.array([0]))
    [m] = oracle.mismatches(board, dice, ours, theirs)
    assert m.only_bgai == ["4HPwATDgc/ABMA"] and len(m.only_gnubg) == 1 and m.repeated == 0
    twice = oracle.key_rows(oracle.position_keys(torch.cat([board, board])), np.array([0, 0]))
    [m] = oracle.mismatches(board, dice, twice, ours)
    assert m.only_bgai == m.only_gnubg == [] and m.repeated == 1


@pytest.mark.parametrize("stream", [label for label, _, _ in oracle.ENGINE_STREAMS])
def test_resulting_positions_are_identical_to_gnubgs(streams, stream):
    [(boards, dice)] = [(b, d) for label, b, d in streams if label == stream]
    result = oracle.compare_children(boards, dice)
    assert result.children > len(boards)
    assert not result.mismatches, "\n".join(map(str, result.mismatches[:5]))


@pytest.mark.parametrize("checkers", [15, 3])
def test_resulting_positions_are_identical_to_gnubgs_on_arbitrary_boards(checkers):
    """Boards no game need reach: 1 to ``checkers`` checkers a side anywhere, bars included,
    leaning towards the home boards so that bear-offs and hits during them come up often."""
    boards = random_boards(checkers, 2_000, opponent_bar=True, checkers=checkers, home_lean=8.0)
    dice = torch.randint(1, 7, (len(boards), 2), generator=torch.Generator().manual_seed(checkers))
    result = oracle.compare_children(boards, dice)
    assert not result.mismatches, "\n".join(map(str, result.mismatches[:5]))


# --- invariants ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(streams):
    """Every child of every sampled pair, with its parent board and path."""
    boards = torch.cat([b for _, b, _ in streams])
    dice = torch.cat([d for _, _, d in streams])
    result = afterstates(boards, dice, with_paths=True)
    return boards.long(), dice, result


def test_checkers_are_kept_or_borne_off(played):
    boards, _, r = played
    parent = boards.index_select(0, r.parent)
    child = r.boards.long()
    borne_off = ((r.sources >= 0) & (r.sources.long() - r.dice < 0)).sum(1)
    assert (child >= 0).all()
    assert torch.equal(child[:, 0].sum(1), parent[:, 0].sum(1))
    assert torch.equal(child[:, 1].sum(1), parent[:, 1].sum(1) - borne_off)


@pytest.mark.parametrize("variant", ["standard", "hypergammon"])
def test_every_side_keeps_all_its_checkers_through_whole_random_games(variant):
    """Checkers on the board plus those borne off stay 15 (3 in hypergammon), turn after turn."""
    games, gen = 200, torch.Generator().manual_seed(7)
    start = torch.as_tensor(starting_board(variant))
    full = int(start[1].sum())
    boards = start.expand(games, 2, 25).clone()
    off = torch.zeros((games, 2), dtype=torch.long)  # [opponent, on roll], swapped with the board
    finished = 0
    for _ in range(150):
        r = afterstates(boards, torch.randint(1, 7, (games, 2), generator=gen), with_paths=True)
        pick = random_child(r.parent, games, gen)
        off[:, 1] += ((r.sources[pick] >= 0) & (r.sources[pick].long() - r.dice[pick] < 0)).sum(1)
        boards = r.boards[pick]
        assert torch.equal(boards.sum(2).long() + off, torch.full((games, 2), full))
        won = boards[:, 1].sum(1) == 0
        finished += int(won.sum())
        boards[won], off[won] = start, 0
        boards, off = boards.flip(1), off.flip(1)
    assert finished > games  # the loop saw whole games, bear-offs included


def test_pip_count_drops_by_exactly_the_pips_played(played):
    boards, _, r = played
    weights = torch.arange(1, 26)
    before = (boards.index_select(0, r.parent)[:, 1] * weights).sum(1)
    after = (r.boards[:, 1].long() * weights).sum(1)
    point = r.sources.long() + 1  # the bar is point 25
    played_pips = torch.where(r.sources >= 0, torch.minimum(r.dice, point), 0).sum(1)
    assert torch.equal(before - after, played_pips)


def test_every_step_is_legal_when_played_and_the_path_replays_to_the_child(played):
    boards, _, r = played
    state = boards.index_select(0, r.parent).clone()
    rows = torch.arange(len(state))
    for k in range(4):
        on = (r.sources[:, k] >= 0).nonzero().squeeze(1)
        if len(on) == 0:
            continue
        b, src, die = state[on], r.sources[on, k].long(), r.dice[on, k]
        dest = src - die
        mover, opp = b[:, 1], b[:, 0]
        assert (mover[rows[: len(on)], src] > 0).all(), "a step moves a checker that is there"
        assert ((mover[:, 24] == 0) | (src == 24)).all(), "a checker on the bar enters first"
        lands = dest >= 0
        opp_at_dest = opp[rows[: len(on)], (23 - dest).clamp(0, 23)]
        assert (~lands | (opp_at_dest < 2)).all(), "no step lands on a made point"
        home = mover[:, 6:].sum(1) == 0
        index = torch.arange(25)[None, :]
        above = ((mover > 0) & (index > src[:, None]) & (index < 6)).any(1)
        assert (lands | (home & ((dest == -1) | ~above))).all(), "bear-off rules"
        hit = lands & (opp_at_dest == 1)
        b[rows[: len(on)], 1, src] -= 1
        b[lands.nonzero().squeeze(1), 1, dest[lands]] += 1
        h = hit.nonzero().squeeze(1)
        b[h, 0, 23 - dest[h]] = 0
        b[h, 0, 24] += 1
        state[on] = b
    assert torch.equal(state, r.boards.long())


def test_nothing_ends_on_a_point_the_opponent_held(played):
    boards, _, r = played
    parent = boards.index_select(0, r.parent)
    made = parent[:, 0, :24].flip(1) >= 2  # as the mover's point indices
    assert (r.boards[:, 1, :24][made] == 0).all()
    assert torch.equal(r.boards[:, 0, :24].flip(1).long()[made], parent[:, 0, :24].flip(1)[made])


def test_all_children_of_a_roll_play_the_same_number_of_dice(played):
    boards, _, r = played
    steps = (r.sources >= 0).sum(1)
    most = torch.zeros(len(boards), dtype=torch.long).scatter_reduce(0, r.parent, steps, "amax")
    least = torch.full((len(boards),), 9, dtype=torch.long).scatter_reduce(0, r.parent, steps, "amin")
    assert torch.equal(most, least)


def test_no_roll_has_the_same_child_twice_and_children_are_grouped_by_parent(played):
    boards, _, r = played
    rows = oracle.key_rows(oracle.position_keys(r.boards), r.parent.numpy())  # sorted (parent, key)
    assert not (rows[1:] == rows[:-1]).all(1).any()
    assert (r.parent[1:] >= r.parent[:-1]).all()
    assert torch.equal(r.parent.unique(), torch.arange(len(boards)))
