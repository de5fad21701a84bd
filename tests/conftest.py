"""Shared test setup.

* One torch thread per test process (pytest -n 2 runs two processes; more threads than cores
  makes small batched ops several times slower).
* gnubg, the oracle, is optional: tests reach it through the ``gnubg_nn`` and ``gnubg``
  fixtures (or :mod:`bgai.gnubg`), never by importing it at the top of a module. A test that
  uses either fixture is marked ``gnubg`` automatically, so ``pytest -m "not gnubg"`` leaves it
  out; others that need gnubg carry ``@pytest.mark.gnubg`` themselves.
* ``BGAI_TEST_WITHOUT_GNUBG=1`` makes gnubg unimportable in this process and in every Python a
  test starts, as on an install without the extra: ``pytest -m "not gnubg"`` must pass so.
"""

import os
import sys
from pathlib import Path

import pytest
import torch

torch.set_num_threads(1)

if os.environ.get("BGAI_TEST_WITHOUT_GNUBG") == "1":
    _BLOCKER = Path(__file__).resolve().parent / "without_gnubg"
    sys.path.insert(0, str(_BLOCKER))
    import block_gnubg

    block_gnubg.install()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_BLOCKER), os.environ.get("PYTHONPATH")]))

GNUBG_FIXTURES = {"gnubg", "gnubg_nn"}


@pytest.fixture(scope="session")
def gnubg_nn():
    """gnubg's nets (``gnubg_nn``), through :mod:`bgai.gnubg`."""
    from bgai import gnubg

    return gnubg.nn()


@pytest.fixture(scope="session")
def gnubg():
    """The gnubg program as a module (``gnubg``), through :mod:`bgai.gnubg`."""
    from bgai import gnubg as oracle

    return oracle.program()


def pytest_collection_modifyitems(items):
    for item in items:
        if GNUBG_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gnubg)
