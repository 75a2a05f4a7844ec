// damcam demonstration board: draws the position the server sends over a WebSocket.
// The geometry (size, playable squares, their names) comes from the rules core through
// the server; nothing about a variant is hard-coded here. Plain JS, no build step.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 60;
const params = new URLSearchParams(location.search);
const tableId = document.body.dataset.table;
const arbiter = params.has("arbiter");
const flipped = params.get("flip") === "1";
let token = sessionStorage.getItem("damcam-token") || params.get("token") || "";
let lastState = null;

if (params.get("hall") === "1") document.body.classList.add("hall");
if (arbiter) document.body.classList.add("arbiter");

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function cellXY(row, col, size) {
  if (flipped) { row = size - 1 - row; col = size - 1 - col; }
  return [col * CELL, row * CELL];
}

function drawBoard(state) {
  const v = state.variant;
  const size = v.size;
  const svg = document.getElementById("board");
  svg.setAttribute("viewBox", `0 0 ${size * CELL} ${size * CELL}`);
  svg.dataset.fen = state.fen;
  svg.dataset.variant = v.name;
  svg.replaceChildren();
  const byIndex = new Map(v.squares.map((s) => [s.index, s]));
  // Cells: every cell of the grid; the playable ones (from the rules) are the dark ones.
  const playable = new Set(v.squares.map((s) => `${s.row},${s.col}`));
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const [x, y] = cellXY(r, c, size);
      el("rect", { x, y, width: CELL, height: CELL,
        class: playable.has(`${r},${c}`) ? "dark" : "light" }, svg);
    }
  }
  const last = state.last_move;
  if (last) {
    for (const sq of [last.path[0], last.path[last.path.length - 1]]) {
      const s = byIndex.get(sq);
      const [x, y] = cellXY(s.row, s.col, size);
      el("rect", { x, y, width: CELL, height: CELL, class: "last" }, svg);
    }
  }
  for (const s of v.squares) {
    const [x, y] = cellXY(s.row, s.col, size);
    const t = el("text", { x: x + 3, y: y + 12, class: "name" }, svg);
    t.textContent = s.name;
  }
  for (const p of state.pieces) drawStack(svg, byIndex.get(p.square), p.stack, size);
  if (last) drawPath(svg, last, byIndex, size);
}

function drawStack(svg, square, stack, size) {
  const [x, y] = cellXY(square.row, square.col, size);
  const cx = x + CELL / 2, cy = y + CELL / 2, r = CELL * 0.38;
  const top = stack[0];
  const white = top.toLowerCase() === "w";
  const g = el("g", { class: "piece", "data-square": square.name, "data-stack": stack }, svg);
  el("circle", { cx, cy: cy + 3, r, class: "shadow" }, g);
  el("circle", { cx, cy, r, class: white ? "white" : "black" }, g);
  el("circle", { cx, cy, r: r * 0.7, class: (white ? "white" : "black") + " rim" }, g);
  if (top === top.toUpperCase()) {  // a king: crown mark
    const k = el("text", { x: cx, y: cy + 7, class: "crown " + (white ? "on-white" : "on-black") }, g);
    k.textContent = "♛";
  }
  if (stack.length > 1) {  // a tower: its pieces from top to bottom, and its height
    const bar = CELL * 0.8 / stack.length;
    [...stack].forEach((ch, i) => {
      el("rect", { x: x + CELL - 9, y: y + CELL * 0.1 + i * bar, width: 7, height: bar - 1,
        class: (ch.toLowerCase() === "w" ? "white" : "black") + " layer" }, g);
    });
    const h = el("text", { x: x + CELL - 12, y: y + CELL - 4, class: "height" }, g);
    h.textContent = stack.length;
  }
}

function drawPath(svg, last, byIndex, size) {
  const pts = last.path.map((sq) => {
    const s = byIndex.get(sq);
    const [x, y] = cellXY(s.row, s.col, size);
    return `${x + CELL / 2},${y + CELL / 2}`;
  });
  el("polyline", { points: pts.join(" "), class: "path" }, svg);
  for (const sq of last.captures) {
    const s = byIndex.get(sq);
    const [x, y] = cellXY(s.row, s.col, size);
    el("path", { d: `M${x + 18},${y + 18} L${x + 42},${y + 42} M${x + 42},${y + 18} L${x + 18},${y + 42}`,
      class: "captured" }, svg);
  }
}

function drawMoves(state) {
  const body = document.getElementById("moves");
  body.replaceChildren();
  const firstSide = state.variant.first_to_move;
  let row = null;
  let rowNumber = null;
  for (const m of state.moves) {
    if (row === null || m.number !== rowNumber) {
      row = document.createElement("tr");
      rowNumber = m.number;
      const n = document.createElement("td");
      n.className = "num";
      n.textContent = m.number + ".";
      row.appendChild(n);
      if (m.side !== firstSide) row.appendChild(document.createElement("td"));
      body.appendChild(row);
    }
    const td = document.createElement("td");
    td.textContent = m.notation;
    td.dataset.ply = m.ply;
    if (m.corrected) td.classList.add("corrected");
    if (m.irregular) td.classList.add("irregular");
    if (m.confirmed) td.classList.add("confirmed");
    if (state.last_move && state.last_move.ply === m.ply) td.classList.add("current");
    if (arbiter) td.onclick = () => correctMove(m);
    row.appendChild(td);
  }
  if (!state.moves.length) {  // an empty grey box reads as broken: say why it is empty
    const td = document.createElement("td");
    td.className = "empty";
    td.textContent = "No moves yet";
    const tr = document.createElement("tr");
    tr.appendChild(td);
    body.appendChild(tr);
  }
  const wrap = document.getElementById("movelist");
  wrap.scrollTop = wrap.scrollHeight;
  document.getElementById("result").textContent = state.result === "*" ? "" : state.result;
}

function drawHeader(state) {
  const t = state.tags;
  // PDN's "?" is an unset name: a hall screen says whose side it is instead
  const named = (name, side) => (name && name !== "?" ? name : side);
  document.getElementById("white").textContent = named(t.White, "White");
  document.getElementById("black").textContent = named(t.Black, "Black");
  document.getElementById("event").textContent =
    [t.Event, t.Round && t.Round !== "?" ? "round " + t.Round : "", "table " + state.table]
      .filter((s) => s && s !== "?").join(" · ");
  document.getElementById("turn").textContent =
    state.result !== "*" ? "" : (state.turn === "white" ? "White to move" : "Black to move");
  document.getElementById("scoresheet-link").href = `/scoresheet/${state.table}/${state.game}`;
}

function drawFlags(state) {
  const c = state.move_counts;
  document.getElementById("counts").textContent =
    `moves played: White ${c.white}, Black ${c.black} · game ${state.game}`;
  const list = document.getElementById("flags");
  list.replaceChildren();
  for (const f of state.flags || []) {
    const li = document.createElement("li");
    li.className = f.resolved ? "resolved" : "open";
    li.dataset.seq = f.seq;
    li.textContent = `ply ${f.ply}: ${f.kind}${f.article ? " (" + f.article + ")" : ""}` +
      (f.message ? ` — ${f.message}` : "");
    if (!f.resolved) {
      const b = document.createElement("button");
      b.textContent = "resolve";
      b.onclick = () => act(`flags/${f.seq}/resolve`, {});
      li.appendChild(b);
    }
    list.appendChild(li);
  }
}

function render(state) {
  lastState = state;
  drawBoard(state);
  drawMoves(state);
  drawHeader(state);
  if (arbiter) drawFlags(state);
}

const STATUS_TEXT = {
  "camera lost": "Camera lost: no new picture",
  "camera frozen": "Camera frozen: the same picture over and over",
  "not calibrated": "Not calibrated: the table waits to calibrate",
  "board not found": "Board not found: the camera cannot see the board",
  "board covered": "Board covered: a hand or an arm is over it; moves show once it is clear",
  "source ended": "Recording finished",
  "journal error": "Cannot write the journal: call the arbiter",
  "starting": "Starting the camera…",
  "stopped": "Recording stopped",
};

function showHealth(h) {
  const banner = document.getElementById("status");
  if (!h || h.status === "ok") {
    banner.hidden = true;
  } else {
    banner.hidden = false;
    banner.dataset.status = h.status;
    let text = STATUS_TEXT[h.status] || h.status;
    if ((h.status === "camera lost" || h.status === "camera frozen") && h.last_frame_age_s != null)
      text += ` for ${Math.round(h.last_frame_age_s)} s`;
    if (h.status === "not calibrated" && h.waiting) text += ` (${h.waiting})`;
    if (h.status === "board covered" && h.last_settled_age_s != null)
      text += ` (${Math.round(h.last_settled_age_s)} s)`;
    banner.textContent = text;
  }
  const fig = document.getElementById("health");
  const latency = h && h.latency_ms_median != null ? Math.round(h.latency_ms_median) : "–";
  fig.textContent = h ? `${h.fps} fps · ${latency} ms · ${h.moves_recorded} moves` : "";
}

function connect(delay) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const q = arbiter && token ? `?token=${encodeURIComponent(token)}` : "";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}${q}`);
  const conn = document.getElementById("connection");
  ws.onopen = () => { conn.hidden = true; delay = 500; };
  ws.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.type === "state") render(data.state);
    else if (data.type === "health") showHealth(data.health);
    else if (data.type === "error") { conn.hidden = false; conn.textContent = data.detail; }
  };
  ws.onclose = (ev) => {
    conn.hidden = false;
    if (ev.code === 4404 || ev.code === 4403) {
      conn.textContent = ev.reason;
      return;  // unknown table or refused: retrying will not help
    }
    conn.textContent = "Connection to the device lost: reconnecting…";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  };
}

async function act(path, body) {
  if (!token) {
    token = prompt("Arbiter token") || "";
    sessionStorage.setItem("damcam-token", token);
  }
  const res = await fetch(`/api/tables/${tableId}/arbiter/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const out = document.getElementById("arbiter-message");
  if (!res.ok) {
    const err = await res.json().catch(() => ({ detail: res.statusText }));
    out.textContent = `${res.status}: ${err.detail}`;
    if (res.status === 401 || res.status === 403) { token = ""; sessionStorage.removeItem("damcam-token"); }
  } else {
    out.textContent = "done";
  }
}

function correctMove(m) {
  const notation = prompt(`Correct move ${m.number} (ply ${m.ply}, recorded ${m.notation}) to:`);
  if (notation) act("correct", { ply: m.ply, notation: notation.trim() });
}

function setupControls() {
  document.getElementById("fullscreen").onclick = () => {
    document.body.classList.add("hall");
    document.documentElement.requestFullscreen?.().catch(() => {});
  };
  document.addEventListener("fullscreenchange", () => {
    if (!document.fullscreenElement && params.get("hall") !== "1") document.body.classList.remove("hall");
  });
  if (!arbiter) return;
  document.getElementById("confirm").onclick = () =>
    lastState && lastState.moves.length && act("confirm", { ply: lastState.moves.length });
  document.getElementById("takeback").onclick = () =>
    lastState && lastState.moves.length && act("takeback", { ply: lastState.moves.length - 1 });
  document.getElementById("set-result").onclick = () =>
    act("result", { result: document.getElementById("result-choice").value });
  document.getElementById("move-form").onsubmit = (ev) => {
    ev.preventDefault();
    const input = document.getElementById("move-input");
    if (input.value.trim()) act("move", { notation: input.value.trim() });
    input.value = "";
  };
  document.getElementById("new-game").onclick = () => {
    if (confirm("Start a new game at this table? The current one stays in the journal.")) act("games", {});
  };
}

setupControls();
connect(500);
