"""Make the optional gnubg packages unimportable, as on an install without the ``gnubg`` extra.

``BGAI_TEST_WITHOUT_GNUBG=1 pytest -m "not gnubg"`` checks that every test needing gnubg carries
the marker: tests/conftest.py installs this finder, and puts this folder on ``PYTHONPATH`` so
that its ``sitecustomize`` installs it in every Python a test starts too.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

BLOCKED = ("gnubg", "gnubg_nn")


class _NoGnubg(MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked by the test)", name=fullname)
        return None


def install() -> None:
    if not any(isinstance(f, _NoGnubg) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoGnubg())
    for name in [m for m in sys.modules if m.split(".")[0] in BLOCKED]:
        del sys.modules[name]
