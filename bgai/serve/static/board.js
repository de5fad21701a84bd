// The backgammon board in SVG, drawn from the person's side (as gnubg draws X): your home
// board bottom right (points 1-6), the bot's top right; your checkers move from 24 (top
// right) round to 1. A board is {you: [25], bot: [25], off: {you, bot}}: index i is the
// person's point i + 1, index 24 the bar. This module only draws and maps clicks to points;
// which steps are legal comes from the server.

const NS = "http://www.w3.org/2000/svg";
export const WIDTH = 920;
export const HEIGHT = 720;
const PW = 60; // point width
const R = 27; // checker radius
const TOP = 20;
const BOTTOM = 700;
const MID = 360;
const BAR_X = 410;
const TRAY_X = 860;
const SHOWN = 5; // checkers drawn on a point before a count is written on the last one

export const BAR = 25;
export const OFF = 0;

/** x of the centre of the person's point p (1-24). */
export function pointX(p) {
  if (p <= 6) return 800 - (p - 0.5) * PW;
  if (p <= 12) return 380 - (p - 6.5) * PW;
  if (p <= 18) return 20 + (p - 12.5) * PW;
  return 440 + (p - 18.5) * PW;
}

/** The person's point under board coordinates (x, y): 1-24, BAR, OFF (the trays), or null. */
export function pointAt(x, y) {
  if (x >= 820 && x <= 905) return OFF;
  if (x >= 380 && x < 440) return BAR;
  let col;
  if (x >= 20 && x < 380) col = Math.floor((x - 20) / PW);
  else if (x >= 440 && x < 800) col = 6 + Math.floor((x - 440) / PW);
  else return null;
  return y < MID ? 13 + col : 12 - col;
}

/** Board coordinates of a pointer event. */
export function svgPoint(svg, event) {
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, cls) {
  const t = el("text", { x, y, class: cls, "text-anchor": "middle", "dominant-baseline": "central" }, parent);
  t.textContent = content;
  return t;
}

/** Centre of the k-th checker (from the edge) on the person's point p, or on the bar. */
function checkerXY(p, k, side) {
  if (p === BAR) {
    // your checkers wait on the upper bar (you enter at the top), the bot's on the lower
    return side === "you" ? [BAR_X, MID - 50 - k * 2 * R] : [BAR_X, MID + 50 + k * 2 * R];
  }
  const x = pointX(p);
  return p >= 13 ? [x, TOP + R + k * 2 * R] : [x, BOTTOM - R - k * 2 * R];
}

function drawFrame(svg) {
  el("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "frame" }, svg);
  el("rect", { x: 20, y: TOP, width: 360, height: BOTTOM - TOP, class: "felt" }, svg);
  el("rect", { x: 440, y: TOP, width: 360, height: BOTTOM - TOP, class: "felt" }, svg);
  el("rect", { x: 380, y: TOP, width: 60, height: BOTTOM - TOP, class: "bar" }, svg);
  el("rect", { x: 830, y: TOP, width: 60, height: MID - TOP - 40, class: "tray", "data-point": OFF }, svg);
  el("rect", { x: 830, y: MID + 40, width: 60, height: BOTTOM - MID - 40, class: "tray you", "data-point": OFF }, svg);
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p);
    const top = p >= 13;
    const tip = top ? TOP + 270 : BOTTOM - 270;
    const base = top ? TOP : BOTTOM;
    el("polygon", {
      points: `${x - PW / 2 + 2},${base} ${x + PW / 2 - 2},${base} ${x},${tip}`,
      class: `point ${p % 2 ? "odd" : "even"}`,
      "data-point": p,
    }, svg);
    text(svg, x, top ? 10 : HEIGHT - 10, String(p), "label");
  }
}

function drawChecker(svg, x, y, side, classes, point) {
  const g = el("g", { class: `checker ${side} ${classes}`, "data-point": point, "data-side": side }, svg);
  el("circle", { cx: x, cy: y, r: R - 1 }, g);
  el("circle", { cx: x, cy: y, r: R - 8, class: "ring" }, g);
  return g;
}

function drawStack(svg, p, count, side, opts) {
  const shown = Math.min(count, p === BAR ? 3 : SHOWN);
  for (let k = 0; k < shown; k++) {
    const [x, y] = checkerXY(p, k, side);
    const last = k === shown - 1;
    let cls = "";
    if (side === "you" && opts.movable.has(p) && last) cls += " movable";
    if (side === "you" && opts.selected === p && last) cls += " selected";
    const g = drawChecker(svg, x, y, side, cls, p);
    if (last && count > shown) text(g, x, y, String(count), "count");
  }
}

function drawOff(svg, side, count) {
  for (let k = 0; k < count; k++) {
    const y = side === "you" ? BOTTOM - 12 - k * 14 : TOP + 2 + k * 14;
    el("rect", { x: TRAY_X - 26, y, width: 52, height: 10, rx: 3, class: `off ${side}`, "data-point": OFF }, svg);
  }
}

function drawDie(svg, cx, cy, size, value, cls) {
  const g = el("g", { class: `die ${cls}` }, svg);
  el("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: size / 6 }, g);
  const q = size / 4;
  const spots = {
    1: [[0, 0]],
    2: [[-1, -1], [1, 1]],
    3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
    5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  }[value];
  for (const [dx, dy] of spots) el("circle", { cx: cx + dx * q, cy: cy + dy * q, r: size / 11, class: "pip" }, g);
  return g;
}

function drawDice(svg, dice, side, used, openingSides) {
  if (!dice) return;
  if (openingSides) {
    // the opening roll: one die each, on each player's half
    drawDie(svg, 200, MID, 50, dice[0], "bot-die");
    drawDie(svg, 620, MID, 50, dice[1], "you-die");
    return;
  }
  const cx = side === "you" ? 620 : 200;
  const values = dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [dice[0], dice[1]];
  const size = values.length === 4 ? 44 : 50;
  const gap = size + 10;
  const left = cx - ((values.length - 1) * gap) / 2;
  const usedLeft = [...used];
  values.forEach((v, i) => {
    const k = usedLeft.indexOf(v);
    const isUsed = k >= 0;
    if (isUsed) usedLeft.splice(k, 1);
    drawDie(svg, left + i * gap, MID, size, v, `${side}-die${isUsed ? " used" : ""}`);
  });
}

function drawCube(svg, cube) {
  if (!cube || !cube.in_play) return;
  let x = BAR_X;
  let y = MID;
  let value = cube.value === 1 ? 64 : cube.value;
  let cls = "cube";
  if (cube.offered_by) {
    value = cube.value * 2;
    x = cube.offered_by === "bot" ? 620 : 200;
    y = MID;
    cls += " offered";
  } else if (cube.owner === "bot") {
    x = TRAY_X;
    y = MID - 20;
  } else if (cube.owner === "you") {
    x = TRAY_X;
    y = MID + 20;
  }
  const g = el("g", { class: cls }, svg);
  el("rect", { x: x - 20, y: y - 20, width: 40, height: 40, rx: 5 }, g);
  text(g, x, y + 1, String(value), "cube-value");
}

/**
 * Draw `board` into `svg`. Options: dice [a, b] | null, side ("you" | "bot": whose dice),
 * used (dice already played), opening (the opening roll: one die each), cube (the state's
 * cube), movable (Set of points whose top checker may move), selected (point), dests (Set).
 */
export function drawBoard(svg, board, opts = {}) {
  const o = { movable: new Set(), dests: new Set(), used: [], selected: null, ...opts };
  svg.replaceChildren();
  drawFrame(svg);
  if (board) {
    for (let i = 0; i < 24; i++) {
      if (board.you[i]) drawStack(svg, i + 1, board.you[i], "you", o);
      if (board.bot[i]) drawStack(svg, i + 1, board.bot[i], "bot", o);
    }
    if (board.you[24]) drawStack(svg, BAR, board.you[24], "you", o);
    if (board.bot[24]) drawStack(svg, BAR, board.bot[24], "bot", o);
    drawOff(svg, "you", board.off.you);
    drawOff(svg, "bot", board.off.bot);
  }
  drawCube(svg, o.cube);
  drawDice(svg, o.dice, o.side, o.used, o.opening);
  // the points offered to the selected checker, on top: a click there moves it
  for (const p of o.dests) {
    if (p === OFF) {
      el("rect", { x: 830, y: MID + 40, width: 60, height: BOTTOM - MID - 40, class: "dest", "data-point": OFF }, svg);
    } else {
      const x = pointX(p);
      const top = p >= 13;
      el("rect", {
        x: x - PW / 2 + 2, y: top ? TOP : MID + 10, width: PW - 4, height: MID - TOP - 10,
        class: "dest", "data-point": p,
      }, svg);
    }
  }
}
