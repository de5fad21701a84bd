"""``python -m bgai``: the same as the ``bgai`` command."""

from bgai.cli.main import main

raise SystemExit(main())
