"""The ``bgai`` command line: a thin wiring layer over the library.

:mod:`bgai.cli.main` builds the parser from one module per command, ``bgai/cli/<name>_cmd.py``,
each with ``register(subparsers)``; see that module's docstring for how to add one.
"""
