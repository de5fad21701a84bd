// The page of `bgai serve`: plays one game through the game API (/api/games). The server keeps
// the rules and the match; the page draws, animates what happened, and lets the person move
// checker by checker along the steps the server says are legal (state.moves: every order of
// single-die steps that plays a legal move, as a graph of positions).

import { BAR, OFF, drawBoard, pointAt, svgPoint } from "./board.js";

const params = new URLSearchParams(location.search);
const SPEED = params.has("speed") ? Math.max(0, Number(params.get("speed")) || 0) : 1;
const STEP_MS = 420 * SPEED;
const $ = (id) => document.getElementById(id);
const svg = $("board");

const START = {
  // the standard start, for the board shown before any match
  you: [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
  bot: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 0, 0],
  off: { you: 0, bot: 0 },
};

let S = null; // the last state the server sent
let path = []; // the steps the person has played this turn (edges of S.moves)
let selected = null; // the point whose checker the person picked
let busy = false;
let receivedAt = 0; // when S arrived (performance.now), for the clock
let lastResult = null; // the last game's "win" event
let askedAfterFlag = false;
let opponents = {};

// --- talking to the server --------------------------------------------------------------------

async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

async function act(action, body) {
  if (busy || !S) return;
  busy = true;
  selected = null;
  $("hint-panel").hidden = true;
  render();
  try {
    await show(await api("POST", `/api/games/${S.game_id}/${action}`, body));
  } catch (error) {
    say(error.message, "error");
    await refresh();
  } finally {
    busy = false;
    render();
  }
}

async function refresh() {
  if (!S) return;
  try {
    setState(await api("GET", `/api/games/${S.game_id}`));
  } catch (error) {
    say(error.message, "error");
  }
}

async function newMatch(event) {
  event.preventDefault();
  if (busy) return;
  const clock = $("clock").value;
  const body = {
    opponent: $("opponent").value,
    match_length: Number($("length").value),
    variant: $("variant").value,
    clock: clock ? { minutes: Number(clock.split("/")[0]), delay: Number(clock.split("/")[1]) } : null,
  };
  if (params.has("seed")) body.seed = Number(params.get("seed"));
  busy = true;
  S = null;
  lastResult = null;
  $("log").replaceChildren();
  $("banner").hidden = true;
  render();
  try {
    const state = await api("POST", "/api/games", body);
    sessionStorage.setItem("bgai-game", state.game_id);
    const what = body.match_length ? `a ${body.match_length}-point match` : "a money session";
    say(`New game: you against ${state.opponent.name}, ${what}.`, "info");
    S = { ...state, events: [] };
    await show(state);
  } catch (error) {
    say(error.message, "error");
  } finally {
    busy = false;
    render();
  }
}

// --- what happened ------------------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function who(side) {
  return side === "you" ? "You" : S ? S.opponent.name : "bot";
}

function points(n) {
  return n === 1 ? "1 point" : `${n} points`;
}

function describe(e) {
  const you = e.player === "you";
  const name = who(e.player);
  const s = you ? "" : "s";
  const dice = e.dice ? `${e.dice[0]}-${e.dice[1]}` : "";
  const score = `Score: ${who("bot")} ${e.score.bot}, you ${e.score.you}.`;
  switch (e.kind) {
    case "game":
      return `Game ${e.game}. ${score}${e.crawford ? " Crawford game: no doubling." : ""}`;
    case "opening":
      return `Opening roll: ${who("bot")} ${e.dice[0]}, you ${e.dice[1]}. ${name} move${s} first.`;
    case "roll":
      return `${name} roll${s} ${dice}.`;
    case "move":
      return `${name} play${s} ${dice}: ${e.move}${e.forced && you ? " (forced)" : ""}`;
    case "dance":
      return `${name} roll${s} ${dice} and cannot move.`;
    case "double":
      return `${name} double${s} to ${e.cube}.`;
    case "take":
    case "beaver":
      return `${name} ${e.kind}${s}: the cube is at ${e.cube}.`;
    case "pass":
      return `${name} pass${you ? "" : "es"}.`;
    case "resign_declined":
      return `${who("bot")} declines your resignation (${e.how}, ${points(e.points)}): play on.`;
    case "win":
      if (e.how === "resignation") return `${who("bot")} accepts your resignation and wins ${points(e.points)}.`;
      if (e.how === "pass") return `${name} win${s} ${points(e.points)} (the double was passed). ${score}`;
      return `${name} win${s} a ${e.how}: ${points(e.points)}. ${score}`;
    case "match":
      return `${name} win${s} the match, ${e.score[e.player]}-${e.score[you ? "bot" : "you"]}.`;
    default:
      return e.kind;
  }
}

function say(message, cls = "") {
  const item = document.createElement("li");
  item.textContent = message;
  if (cls) item.className = cls;
  $("log").prepend(item);
  $("prompt").textContent = cls === "error" ? message : $("prompt").textContent;
}

async function show(state) {
  for (const e of state.events || []) {
    say(describe(e), `event ${e.kind} ${e.player}`);
    if (e.kind === "win") lastResult = e;
    const cube = { in_play: S ? S.cube.in_play : true, value: e.cube_value, owner: e.cube_owner };
    if (e.kind === "move" && e.steps && (e.player === "bot" || e.forced)) {
      for (const frame of e.steps) {
        drawBoard(svg, frame.board, { dice: e.dice, side: e.player, cube });
        if (STEP_MS) await sleep(STEP_MS);
      }
    } else if (e.kind === "opening" || e.kind === "roll") {
      drawBoard(svg, e.board, { dice: e.dice, side: e.player, opening: e.kind === "opening", cube });
      if (STEP_MS && (e.player === "bot" || e.kind === "opening")) await sleep(STEP_MS);
    } else if (e.kind === "double" && e.player === "you") {
      drawBoard(svg, e.board, { cube: { ...cube, offered_by: "you" } });
      if (STEP_MS) await sleep(STEP_MS);
    }
  }
  setState(state);
}

function setState(state) {
  S = state;
  receivedAt = performance.now();
  askedAfterFlag = false;
  path = [];
  selected = null;
  render();
}

// --- moving checkers ----------------------------------------------------------------------------

function nodeNow() {
  return path.length ? path[path.length - 1].node : 0;
}

function usedDice() {
  return path.map((step) => step.die);
}

/** Where the checker on `from` can go now: destination -> the steps to get there. */
function destinations(from) {
  const found = new Map();
  const hitsOnTheWay = (steps) => steps.slice(0, -1).filter((s) => s.hit).length;
  const better = (a, b) => a.length < b.length || (a.length === b.length && hitsOnTheWay(a) < hitsOnTheWay(b));
  const walk = (n, at, steps) => {
    for (const step of S.moves[n].steps) {
      if (step.from !== at) continue;
      const way = [...steps, step];
      const known = found.get(step.to);
      if (!known || better(way, known)) found.set(step.to, way);
      if (step.to !== OFF) walk(step.node, step.to, way);
    }
  };
  walk(nodeNow(), from, []);
  return found;
}

function movablePoints() {
  if (!S || S.awaiting !== "move" || busy) return new Set();
  return new Set(S.moves[nodeNow()].steps.map((step) => step.from));
}

function play(steps) {
  path.push(...steps);
  selected = null;
  render();
}

function pick(point) {
  if (!S || S.awaiting !== "move" || busy) return;
  if (selected !== null) {
    const ways = destinations(selected);
    if (ways.has(point)) return play(ways.get(point));
    if (point === selected) {
      selected = null;
      return render();
    }
  }
  if (!movablePoints().has(point)) {
    selected = null;
    return render();
  }
  const ways = destinations(point);
  const targets = [...ways.keys()];
  if (targets.length === 1) return play(ways.get(targets[0])); // only one place to go: go
  selected = point;
  render();
}

function undo() {
  if (path.length) path.pop();
  selected = null;
  render();
}

function done() {
  const move = S && S.awaiting === "move" ? S.moves[nodeNow()].move : null;
  if (move !== null && move !== undefined) act("move", { move });
}

/** Set the board to the result of a hinted move (undo goes back to the start of the turn). */
function showMove(move) {
  if (!S || S.awaiting !== "move") return;
  const target = S.moves.findIndex((node) => node.move === move);
  if (target < 0) return;
  const via = new Map([[0, null]]); // node -> [the node before it, the step from there]
  const queue = [0];
  for (const n of queue) {
    for (const step of S.moves[n].steps) {
      if (!via.has(step.node)) {
        via.set(step.node, [n, step]);
        queue.push(step.node);
      }
    }
  }
  const steps = [];
  for (let n = target; n !== 0; n = via.get(n)[0]) steps.unshift(via.get(n)[1]);
  path = steps;
  selected = null;
  render();
}

// pointer: a click picks, a drag drops a checker on a point
let drag = null;

svg.addEventListener("pointerdown", (event) => {
  const at = svgPoint(svg, event);
  const point = pointAt(at.x, at.y);
  const checker = event.target.closest(".checker.movable");
  if (checker && !busy) {
    drag = { from: Number(checker.dataset.point), x: at.x, y: at.y, moved: false, ghost: null };
    svg.setPointerCapture(event.pointerId);
  } else {
    drag = { from: null, x: at.x, y: at.y, moved: false, point };
  }
});

svg.addEventListener("pointermove", (event) => {
  if (!drag || drag.from === null) return;
  const at = svgPoint(svg, event);
  if (!drag.moved && Math.hypot(at.x - drag.x, at.y - drag.y) > 8) {
    drag.moved = true;
    selected = drag.from;
    render();
    drag.ghost = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    drag.ghost.setAttribute("r", "26");
    drag.ghost.setAttribute("class", "ghost");
    svg.appendChild(drag.ghost);
  }
  if (drag.ghost) {
    drag.ghost.setAttribute("cx", at.x);
    drag.ghost.setAttribute("cy", at.y);
  }
});

svg.addEventListener("pointerup", (event) => {
  if (!drag) return;
  const at = svgPoint(svg, event);
  const point = pointAt(at.x, at.y);
  const start = drag;
  drag = null;
  if (start.ghost) start.ghost.remove();
  if (start.from !== null && start.moved) {
    const ways = destinations(start.from);
    if (point !== null && ways.has(point)) return play(ways.get(point));
    selected = null;
    return render();
  }
  if (event.target.closest(".die") && S && S.awaiting === "move") return done(); // click the dice: done
  if (start.from !== null) return pick(start.from);
  if (point !== null) pick(point);
});

// --- drawing the page ---------------------------------------------------------------------------

function clockText(side) {
  const c = S.clock;
  const elapsed = (performance.now() - receivedAt) / 1000;
  let left = c.left[side];
  let delay = "";
  if (c.running === side) {
    left = Math.max(0, left - Math.max(0, elapsed - c.delay_left));
    delay = ` +${Math.ceil(Math.max(0, c.delay_left - elapsed))}`;
  }
  const minutes = Math.floor(left / 60);
  const seconds = Math.floor(left % 60);
  return `${minutes}:${String(seconds).padStart(2, "0")}${delay}`;
}

function tick() {
  if (!S || !S.clock) return;
  for (const side of ["you", "bot"]) {
    const node = $(`${side}-clock`);
    node.textContent = clockText(side);
    node.classList.toggle("running", S.clock.running === side);
  }
  const c = S.clock;
  const out = c.running && c.left[c.running] - Math.max(0, (performance.now() - receivedAt) / 1000 - c.delay_left) <= 0;
  if (out && !askedAfterFlag && !busy) {
    askedAfterFlag = true; // the server decides: the match is lost on time
    refresh();
  }
}

function pips(board) {
  let you = 25 * board.you[24];
  let bot = 25 * board.bot[24];
  for (let i = 0; i < 24; i++) {
    you += (i + 1) * board.you[i];
    bot += (24 - i) * board.bot[i];
  }
  return { you, bot };
}

const PROMPTS = {
  roll: "Your turn: roll, or double.",
  move: "Your move: click or drag a checker (Undo takes a step back; Done or the dice end the move).",
  answer: "Take or pass?",
  next: "The game is over: start the next one.",
  over: "The match is over.",
};

function render() {
  const moving = S && S.awaiting === "move";
  const node = moving ? S.moves[nodeNow()] : null;
  const board = node ? node.board : S ? S.board : START;
  drawBoard(svg, board, {
    dice: S ? S.dice : null,
    side: S ? S.on_roll : "you",
    used: moving ? usedDice() : [],
    cube: S ? S.cube : { in_play: true, value: 1, owner: null },
    movable: movablePoints(),
    selected,
    dests: selected === null || !moving ? new Set() : new Set(destinations(selected).keys()),
  });
  const awaiting = S && !busy ? S.awaiting : null;
  document.body.dataset.busy = String(busy); // for scripts driving the page (and its tests)
  document.body.dataset.awaiting = awaiting || "";
  $("roll").disabled = awaiting !== "roll";
  $("double").disabled = !(awaiting === "roll" && S.cube.can_double);
  $("take").disabled = awaiting !== "answer";
  $("pass").disabled = awaiting !== "answer";
  $("beaver").hidden = !(S && S.cube.beavers);
  $("beaver").disabled = awaiting !== "answer";
  $("undo").disabled = !(awaiting === "move" && path.length);
  $("done").disabled = !(awaiting === "move" && node && node.move !== null);
  $("next").disabled = awaiting !== "next";
  $("hint").disabled = !["roll", "move", "answer"].includes(awaiting) || !S.opponent.hints;
  for (const n of [1, 2, 3]) $(`resign-${n}`).disabled = !(S && !busy && S.can_resign);
  $("new-match").disabled = busy;
  const p = pips(board);
  $("you-pips").textContent = p.you;
  $("bot-pips").textContent = p.bot;
  $("bot-name").textContent = S ? S.opponent.name : "bot";
  $("you-score").textContent = S ? S.score.you : 0;
  $("bot-score").textContent = S ? S.score.bot : 0;
  const clocks = S && S.clock;
  $("you-clock").hidden = !clocks;
  $("bot-clock").hidden = !clocks;
  if (clocks) tick();
  if (S) {
    const length = S.match_length ? `${S.match_length}-point match` : "money session";
    const crawford = S.crawford ? ", Crawford game" : "";
    const cube = S.cube.in_play ? `, cube ${S.cube.value}${S.cube.owner ? ` (${who(S.cube.owner)})` : ""}` : "";
    $("match-info").textContent = `Game ${S.game}, ${length}${crawford}${cube}`;
    $("ids").textContent = S.xgid ? `${S.gnubg_id}  ${S.xgid}` : S.gnubg_id || "";
    $("download").href = `/api/games/${S.game_id}/match.mat`;
    $("download").hidden = false;
  }
  let prompt = busy ? "…" : S ? PROMPTS[S.awaiting] || "" : "Choose an opponent and a match, then New match.";
  if (awaiting === "answer") prompt = `${who("bot")} doubles to ${S.cube.value * 2}. Take or pass?`;
  if (awaiting === "roll" && S.cube.why_not && S.cube.in_play) prompt = `Your turn: roll (${S.cube.why_not}).`;
  $("prompt").textContent = prompt;
  banner();
}

function banner() {
  const box = $("banner");
  if (!S || !["next", "over"].includes(S.awaiting) || busy) {
    box.hidden = true;
    return;
  }
  let message = "";
  if (S.time_loss) {
    message = S.time_loss === "you" ? `You ran out of time: ${who("bot")} wins the match.` : `${who("bot")} ran out of time: you win the match.`;
  } else if (lastResult) {
    message = describe(lastResult);
  }
  if (S.awaiting === "over" && !S.time_loss && S.match_winner) {
    message += ` ${S.match_winner === "you" ? "You win" : `${who("bot")} wins`} the match ${S.score[S.match_winner]}-${S.score[S.match_winner === "you" ? "bot" : "you"]}.`;
  }
  box.textContent = message;
  box.className = lastResult && lastResult.player === "you" && !S.time_loss ? "won" : "lost";
  box.hidden = false;
}

// --- hints ----------------------------------------------------------------------------------------

async function hint() {
  if (!S || busy) return;
  const panel = $("hint-panel");
  const table = $("hint-table");
  busy = true;
  render();
  try {
    const h = await api("GET", `/api/games/${S.game_id}/hint`);
    table.replaceChildren();
    const pct = (x) => (100 * x).toFixed(1);
    if (h.moves.length) {
      const best = h.moves[0].equity;
      h.moves.forEach((m, k) => {
        const row = table.insertRow();
        row.className = "hint-move";
        row.dataset.move = m.move;
        const diff = k ? ` (${(m.equity - best).toFixed(3)})` : "";
        for (const cell of [`${k + 1}.`, m.move, `${m.equity >= 0 ? "+" : ""}${m.equity.toFixed(3)}${diff}`,
          `win ${pct(m.probs.win)}% g ${pct(m.probs.win_gammon)}% lose g ${pct(m.probs.lose_gammon)}%`]) {
          row.insertCell().textContent = cell;
        }
        row.addEventListener("click", () => showMove(m.move));
      });
    } else {
      const row = table.insertRow();
      const probs = h.probs ? `Your chances: win ${pct(h.probs.win)}% (gammon ${pct(h.probs.win_gammon)}%), lose gammon ${pct(h.probs.lose_gammon)}%. ` : "";
      const advice = h.answer ? `${who("bot")}'s double: ${h.cube}. Your proper answer: ${h.answer}.` : `Cube action: ${h.cube}.`;
      row.insertCell().textContent = probs + advice;
    }
    panel.hidden = false;
  } catch (error) {
    say(error.message, "error");
  } finally {
    busy = false;
    render();
  }
}

// --- wiring -------------------------------------------------------------------------------------

$("setup").addEventListener("submit", newMatch);
$("roll").addEventListener("click", () => act("roll"));
$("double").addEventListener("click", () => act("double"));
$("take").addEventListener("click", () => act("take"));
$("pass").addEventListener("click", () => act("pass"));
$("beaver").addEventListener("click", () => act("beaver"));
$("next").addEventListener("click", () => act("next"));
$("undo").addEventListener("click", undo);
$("done").addEventListener("click", done);
$("hint").addEventListener("click", hint);
for (const n of [1, 2, 3]) $(`resign-${n}`).addEventListener("click", () => act("resign", { points: n }));
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea")) return;
  if (event.key === "Enter" && S && S.awaiting === "move") done();
  else if ((event.key === "Enter" || event.key === " ") && S && S.awaiting === "roll") act("roll");
  else if (event.key === "Backspace" || event.key === "u") undo();
});
setInterval(tick, 250);

async function boot() {
  render();
  try {
    const listing = await api("GET", "/api/opponents");
    const select = $("opponent");
    for (const o of listing.opponents) {
      opponents[o.key] = o;
      const option = new Option(`${o.key}${o.grade ? ` (${o.grade})` : ""}`, o.key);
      select.add(option);
    }
    select.value = params.get("opponent") || (opponents.intermediate ? "intermediate" : listing.default);
  } catch (error) {
    say(error.message, "error");
  }
  const id = sessionStorage.getItem("bgai-game");
  if (id) {
    try {
      setState(await api("GET", `/api/games/${id}`));
      say("Back to your game.", "info");
    } catch {
      sessionStorage.removeItem("bgai-game");
    }
  }
}

boot();
