"""scripts/study/rank_fit_study.py's listwise fitting learns a teacher's move choices."""

from __future__ import annotations

import torch

from bgai.engine.board import starting_board
from bgai.engine.dice import ROLLS
from bgai.model.net import ValueNet
from bgai.search.evaluator import NetEvaluator
from bgai.train.distill import afterstates_of, ranking_agreement
from tests.scripts import load_script


def _study():
    return load_script("study/rank_fit_study.py")


def test_listwise_fitting_learns_the_teachers_move_choices():
    torch.manual_seed(0)
    teacher = NetEvaluator(ValueNet("tesauro198", [16]))  # any fixed net will do as the teacher
    boards = torch.as_tensor(starting_board()).expand(len(ROLLS), 2, 25).contiguous()
    data = afterstates_of(teacher, boards, ROLLS)
    student = ValueNet("tesauro198", [16])
    before = ranking_agreement(NetEvaluator(student), teacher, boards, ROLLS)
    with torch.no_grad():
        x = student.encoding(data.boards.long(), student.checkers)
    optimiser = torch.optim.Adam(student.parameters(), lr=3e-3)
    _study().listwise(student, optimiser, data, x, 300, temperature=0.02, value_weight=1.0, seed=0)
    after = ranking_agreement(NetEvaluator(student), teacher, boards, ROLLS)
    assert after.same >= 0.8 > before.same + 0.3
    assert after.equity_lost < before.equity_lost / 4
