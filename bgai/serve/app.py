"""The web app of ``bgai serve``: the page to play on, the game API it uses, and the analysis API.

FastAPI (on Starlette, served by uvicorn): request bodies are declared as pydantic models, so
every field is checked (types, ranges, lengths) before any work is done and the OpenAPI page
(``/docs``, ``/redoc``, ``/openapi.json``) is written from the same declarations. The docs
pages load their scripts from the server itself (``fastapi-offline``), never from a CDN.

Safety: everything that evaluates, moves or loads a bot runs in a worker thread (at most
``threads`` at once), so the event loop keeps answering while a bot thinks; request bodies
above ``max_body`` bytes are refused with 413; files are served only from ``static/``; a
malformed ID, an illegal move, an action that is not allowed now or an unknown game is a 4xx
with ``{"error": "one line"}``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from functools import partial
from pathlib import Path
from typing import Annotated, Literal

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from bgai.serve import ask
from bgai.serve.state import Busy, Full, GameNotFound, Games, Opponents, new_game

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
"""Bytes a request body may have: a position and a few fields need far less."""
GAME_ID = r"^[A-Za-z0-9_-]{1,32}$"
log = logging.getLogger("bgai.serve")

Position = Annotated[
    str,
    Field(
        min_length=1,
        max_length=120,
        description="gnubg Position ID, GNUbgID (PositionID:MatchID) or XGID",
        examples=["4HPwATDgc/ABMA:cAkAAAAAAAAA"],
    ),
]
Dice = Annotated[
    Annotated[str, Field(max_length=5)] | Annotated[list[int], Field(max_length=2)] | None,
    Field(description='the roll, as "31", "3-1" or [3, 1]; default: the dice in the ID', examples=["31"]),
]
OpponentName = Annotated[
    str | None, Field(max_length=100, description="an opponent the server offers (GET /api/opponents)")
]
Plies = Annotated[
    int | None, Field(ge=0, le=ask.MAX_PLIES, description="lookahead instead of the opponent's own")
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MoveRequest(Strict):
    position: Position
    dice: Dice = None
    opponent: OpponentName = None
    plies: Plies = None


class HintRequest(MoveRequest):
    limit: Annotated[int | None, Field(ge=1, le=1000, description="at most this many moves")] = None


class EvalRequest(Strict):
    position: Position
    opponent: OpponentName = None
    plies: Plies = None


class CubeRequest(EvalRequest):
    beavers: bool = Field(True, description="money play: beavers allowed (an XGID's own flag counts too)")


class ResignRequest(Strict):
    position: Position
    points: Literal[1, 2, 3] = Field(
        description="1 a single game, 2 a gammon, 3 a backgammon (times the cube)"
    )
    opponent: OpponentName = None


class ClockRequest(Strict):
    minutes: float = Field(ge=0.1, le=120, description="base time of each player, in minutes")
    delay: float = Field(12, ge=0, le=120, description="seconds of delay each turn before the base time runs")


class NewGame(Strict):
    opponent: OpponentName = None
    match_length: int = Field(0, ge=0, le=25, description="points to win the match; 0 = a money session")
    cube: bool = True
    variant: Literal["standard", "nackgammon", "hypergammon"] = "standard"
    seed: int | None = Field(None, ge=0, lt=2**31, description="seed of the dice, to replay a match")
    name: str = Field("you", min_length=1, max_length=30, pattern=r"^[A-Za-z0-9 ._-]+$")
    jacoby: bool = False
    beavers: bool = True
    clock: ClockRequest | None = None


class PlayMove(Strict):
    move: str = Field(
        max_length=60,
        description='gnubg notation, e.g. 13/8 13/10 or bar/22*; "" for a dance',
        examples=["24/18 13/11"],
    )


class Resign(Strict):
    points: Literal[1, 2, 3] = 1


def create_app(
    opponents: Opponents,
    *,
    games: Games | None = None,
    threads: int | None = None,
    max_body: int = MAX_BODY,
) -> FastAPI:
    """The app serving ``opponents``; ``threads`` worker threads think for the bots (default: the CPUs)."""
    import bgai

    games = Games() if games is None else games
    limiter = anyio.CapacityLimiter(threads or os.cpu_count() or 1)
    app = FastAPIOffline(
        title="bgai serve",
        version=bgai.__version__,
        description="Play bgai's opponents in a browser, and ask them about positions: the best move, "
        "the evaluation, the cube decision and the answer to a resignation. Positions are gnubg "
        "Position IDs, GNUbgIDs (PositionID:MatchID) or XGIDs, seen from the player on roll. "
        'Errors are JSON {"error": "..."} with a 4xx status.',
    )
    app.state.games = games
    app.state.opponents = opponents

    async def off_loop(work, *args, **kwargs):
        """Run blocking work (a bot's thinking, a network evaluation) in a worker thread."""
        return await anyio.to_thread.run_sync(partial(work, *args, **kwargs), limiter=limiter)

    def game(game_id: str):
        if not re.fullmatch(GAME_ID, game_id):
            raise GameNotFound(f"no game {game_id[:40]!r}")
        return games.get(game_id)

    # --- errors: one line of JSON, never a traceback --------------------------------------------

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": " ".join(str(message).split())[:300]}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        return error(
            422, f"{where}: {first.get('msg', 'invalid request')}" if where else first.get("msg", "invalid")
        )

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return error(exc.status_code, exc.detail)

    @app.exception_handler(GameNotFound)
    async def not_found(request: Request, exc: GameNotFound) -> JSONResponse:
        return error(404, exc.args[0] if exc.args else "no such game")

    @app.exception_handler(KeyError)
    async def unknown(request: Request, exc: KeyError) -> JSONResponse:
        return error(400, exc.args[0] if len(exc.args) == 1 else str(exc))

    @app.exception_handler(ValueError)
    async def refused(request: Request, exc: ValueError) -> JSONResponse:
        return error(400, str(exc) or "bad request")

    @app.exception_handler(Busy)
    async def busy(request: Request, exc: Busy) -> JSONResponse:
        return error(409, str(exc))

    @app.exception_handler(Full)
    async def full(request: Request, exc: Full) -> JSONResponse:
        return error(503, str(exc))

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error(500, f"internal error ({type(exc).__name__})")

    app.add_middleware(BodyLimit, limit=max_body)

    # --- the page --------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # --- opponents and games -----------------------------------------------------------------

    @app.get("/api/opponents", tags=["games"], summary="The opponents this server offers")
    async def list_opponents() -> dict:
        return {"default": opponents.default, "opponents": opponents.listing()}

    @app.post("/api/games", tags=["games"], summary="Start a match or a money session against an opponent")
    async def start_game(request: NewGame) -> dict:
        clock = None if request.clock is None else (request.clock.minutes, request.clock.delay)
        made = await off_loop(
            new_game,
            games,
            opponents,
            request.opponent,
            match_length=request.match_length,
            cube=request.cube,
            variant=request.variant,
            seed=request.seed,
            name=request.name,
            jacoby=request.jacoby,
            beavers=request.beavers,
            clock=clock,
        )
        return await off_loop(made.locked, made.start)

    @app.get("/api/games/{game_id}", tags=["games"], summary="The state of a game (and its clock)")
    async def game_state(game_id: str) -> dict:
        g = game(game_id)
        return await off_loop(g.locked, g.view)

    @app.delete("/api/games/{game_id}", tags=["games"], summary="Forget a game")
    async def delete_game(game_id: str) -> dict:
        game(game_id)
        games.remove(game_id)
        return {"deleted": game_id}

    def action_route(name: str, summary: str) -> None:
        async def act(game_id: str) -> dict:
            g = game(game_id)
            return await off_loop(g.locked, partial(g.act, name))

        app.post(f"/api/games/{{game_id}}/{name}", tags=["games"], summary=summary, name=f"game_{name}")(act)

    action_route("roll", "Roll the dice (instead of doubling)")
    action_route("double", "Offer the cube; the bot takes, passes or beavers")
    action_route("take", "Take the bot's double")
    action_route("pass", "Pass the bot's double (the game is lost at the current cube)")
    action_route("beaver", "Beaver the bot's double (money play with beavers on)")
    action_route("next", "Start the next game of the match or session")

    @app.post("/api/games/{game_id}/move", tags=["games"], summary="Play a move, in gnubg notation")
    async def play(game_id: str, request: PlayMove) -> dict:
        g = game(game_id)
        return await off_loop(g.locked, partial(g.act, "move", request.move))

    @app.post("/api/games/{game_id}/resign", tags=["games"], summary="Offer to resign 1, 2 or 3 points")
    async def resign_game(game_id: str, request: Resign) -> dict:
        g = game(game_id)
        return await off_loop(g.locked, partial(g.act, "resign", request.points))

    @app.get("/api/games/{game_id}/hint", tags=["games"], summary="The bot's ranked moves or cube advice now")
    async def game_hint(game_id: str) -> dict:
        g = game(game_id)
        return await off_loop(g.locked, g.hint)

    @app.get(
        "/api/games/{game_id}/match.mat",
        tags=["games"],
        summary="The match so far as a .mat file",
        response_class=PlainTextResponse,
    )
    async def download(game_id: str) -> PlainTextResponse:
        g = game(game_id)
        text = await off_loop(g.locked, g.mat)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="bgai-{g.id}.mat"'}
        )

    # --- the analysis API --------------------------------------------------------------------

    batchers: dict[str, MoveBatcher] = {}

    @app.post("/api/move", tags=["analysis"], summary="The move the opponent plays (or the best at a ply)")
    async def move(request: MoveRequest) -> dict:
        if request.plies is not None:
            return await off_loop(
                ask.best_move, opponents, request.position, request.dice, request.opponent, request.plies
            )
        key = request.opponent or opponents.default
        bot = opponents.loaded(key) or await off_loop(opponents.bot, key)
        board, roll = ask.read_move_request(request.position, request.dice)
        if key not in batchers:
            batchers[key] = MoveBatcher(partial(off_loop, ask.choose_moves, bot))
        played, after = await batchers[key].ask(board, roll)
        return ask.move_answer(opponents, request.opponent, played, after, roll, bot.plies)

    @app.post("/api/hint", tags=["analysis"], summary="Every legal move, ranked (as bgai hint)")
    async def hint(request: HintRequest) -> dict:
        return await off_loop(
            ask.hint,
            opponents,
            request.position,
            request.dice,
            request.opponent,
            request.plies,
            request.limit,
        )

    @app.post("/api/eval", tags=["analysis"], summary="Probabilities and cubeless equity before the roll")
    async def evaluate(request: EvalRequest) -> dict:
        return await off_loop(ask.evaluate, opponents, request.position, request.opponent, request.plies)

    @app.post(
        "/api/cube", tags=["analysis"], summary="The cube decision (as bgai cube) and the opponent's action"
    )
    async def cube(request: CubeRequest) -> dict:
        return await off_loop(
            ask.cube, opponents, request.position, request.opponent, request.plies, request.beavers
        )

    @app.post("/api/resign", tags=["analysis"], summary="Does the opponent accept a resignation?")
    async def resign(request: ResignRequest) -> dict:
        return await off_loop(ask.resign, opponents, request.position, request.points, request.opponent)

    return app


class BodyLimit:
    """ASGI middleware: refuse a request body over ``limit`` bytes with 413, by its declared
    length or, without one, as soon as that many bytes have arrived."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, int(limit)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body too large (at most {self.limit} bytes)"
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await JSONResponse({"error": too_large}, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413, too_large)
            return message

        await self.app(scope, counted, send)


class MoveBatcher:
    """Concurrent move requests for one opponent, answered by one call of its batched player.

    Lives on the event loop: a request joins the queue; while a batch is being chosen (in a
    worker thread) the next requests wait, and the whole queue goes next, up to ``limit``. One
    request alone is a batch of one; under load the batches grow, and the engine and network,
    whose cost per call hardly depends on the batch size, serve many requests per call.
    """

    def __init__(self, choose, limit: int = 256) -> None:
        self.choose, self.limit = choose, int(limit)
        self.queue: list[tuple[object, tuple[int, int], asyncio.Future]] = []
        self.running = False
        self.batches = 0

    async def ask(self, board, roll: tuple[int, int]):
        future = asyncio.get_running_loop().create_future()
        self.queue.append((board, roll, future))
        if not self.running:
            self.running = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self.queue:
                batch, self.queue = self.queue[: self.limit], self.queue[self.limit :]
                self.batches += 1
                try:
                    answers = await self.choose([b for b, _, _ in batch], [r for _, r, _ in batch])
                except Exception as exc:  # every request of the batch gets the error
                    for _, _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, _, future), answer in zip(batch, answers, strict=True):
                    if not future.done():
                        future.set_result(answer)
        finally:
            self.running = False
