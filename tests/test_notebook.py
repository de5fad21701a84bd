"""The tour notebook runs top to bottom on a tiny training run and draws its learning curve.

Needs nbformat, nbclient, ipykernel and matplotlib (the ``test`` extra); without them the
test fails on its imports rather than being skipped.
"""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from bgai.opponent import export_opponent
from bgai.train.loop import train

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "bgai_tour.ipynb"

TINY_RUN = {
    "games": 60,
    "parallel_games": 16,
    "hidden": "[8]",
    "eval_every": 30,
    "eval_games": 20,
    "checkpoint_every": 30,
    "threads": 1,
}


def outputs_of(notebook) -> list[dict]:
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]


def test_the_tour_plots_the_learning_curve_ranks_positions_and_shows_the_ladder(tmp_path):
    run_dir = train(None, {**TINY_RUN, "runs_dir": str(tmp_path / "runs")}, log=lambda *a: None)
    opponents = tmp_path / "opponents"
    export_opponent(run_dir / "latest.pt", "expert", opponents / "bgai-expert-v1")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    parameters = notebook.cells[0]
    assert "parameters" in parameters.metadata.get("tags", []), "the first cell holds the parameters"
    parameters.source = (
        f"RUN_DIR = {str(run_dir)!r}\n"
        f"CHECKPOINT = {str(run_dir / 'latest.pt')!r}\n"
        f"OPPONENTS_DIR = {str(opponents)!r}\n"
    )

    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()

    outputs = outputs_of(notebook)
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the learning curve is drawn"
    text = "".join(o.get("text", "") for o in outputs)
    assert "last evaluation:" in text and "after 60 games" in text
    assert "the opening position, 3-1 (4HPwATDgc/ABMA, 31):" in text
    assert text.count("equity ") == 4 * 3  # three best moves of each of the four samples
    ladder = "".join(o.get("data", {}).get("text/markdown", "") for o in outputs)
    assert "| bgai-expert-v1 | expert | 0 |" in ladder and "not graded" in ladder


def test_the_tour_says_when_there_is_nothing_to_show(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    missing = tmp_path / "nothing"
    notebook.cells[0].source = (
        f"RUN_DIR = {str(missing)!r}\nCHECKPOINT = {str(missing / 'x.pt')!r}\n"
        f"OPPONENTS_DIR = {str(missing)!r}\n"
    )
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    text = "".join(o.get("text", "") for o in outputs_of(notebook))
    assert "No learning curve" in text
    assert "No network to evaluate with" in text
    assert "No exported opponents" in text
