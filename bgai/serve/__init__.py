"""``bgai serve``: play bgai's opponents in a browser, and ask them about positions over HTTP.

* :mod:`bgai.serve.state`: the offered opponents, the games (a :class:`bgai.play.MatchSession`
  each, with a lock and a clock) and the JSON the page draws; no web framework;
* :mod:`bgai.serve.ask`: the analysis API (best move, hint, evaluation, cube, resignation);
* :mod:`bgai.serve.app`: the FastAPI app (needs the optional ``web`` extra);
* ``static/``: the page, plain ES modules and an SVG board, no build step.

Sits on :mod:`bgai.play` (and what it knows); only the CLI builds on it.
"""
