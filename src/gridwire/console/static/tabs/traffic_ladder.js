// Traffic as a ladder: the master's and the outstation's lanes, each application fragment an
// arrow between them going down in time (the gap between two drawn larger the longer it
// was); a SELECT joined to the OPERATE that follows it; a request sent again marked "retry",
// one that got no response marked "no response"; the IIN bits of each response as sixteen
// lamps, lit where set. A message clicked is decoded in the pane beside.

import { svg } from "../chart.js";
import { h, replace } from "../dom.js";
import { clock, number } from "../format.js";
import { IIN_NAMES, decodeFrame } from "../dnp3.js";
import { on } from "../store.js";

const SHOWN = 120; // the newest messages drawn
const TAIL = 3000; // the newest frames read for them
const DRAW_EVERY_MS = 250;
const W = 810;
const MASTER = 210;
const OUTSTATION = 610;
const LAMP_STEP = 11;
const ROW = 38;
const TOP = 44;
const ANSWERLESS = new Set(["CONFIRM", "DIRECT_OPERATE_NR", "IMMED_FREEZE_NR", "FREEZE_CLEAR_NR", "FREEZE_AT_TIME_NR", "AUTH_REQ_NO_ACK"]);
const RESPONSE = new Set(["RESPONSE", "AUTHENTICATE_RESP"]);

// What the ladder reads of a frame, kept on it once read: null for a frame that opens no
// application fragment (a link frame, a later segment, dropped octets).
function appOf(f) {
  if (f.ladder === undefined) {
    const info = f.dropped ? null : decodeFrame(f.hex, true).info;
    f.ladder = info?.app ? { fn: info.app.function, seq: info.app.sequence, iin: info.app.iin, objects: info.headers.map((i) => `${i.gv} ${i.range}`).join(" ") } : null;
  }
  return f.ladder;
}

// The exchanges the master ended "timeout", by outstation: [{fn, seq, at}] (the request's
// function and application sequence, read from the exchange's request octets), the newest
// kept; the last request sent with that function and sequence is marked unanswered.
const timeouts = new Map();
on("exchange", (name, x) => {
  if (!x || x.outcome !== "timeout" || !x.request) return;
  const list = timeouts.get(name) ?? [];
  list.push({ fn: x.function, seq: parseInt(x.request.slice(0, 2), 16) & 0x0f, at: Date.now() });
  if (list.length > 50) list.shift();
  timeouts.set(name, list);
});

// The messages of `frames` (oldest first), with their joins and marks. A request with no
// response before the next is unanswered; the last one is when the master said it timed out
// (`timedOut`: that list), or when it waited `waitMs` (the master's default response timeout).
export function ladderOf(frames, now, timedOut = [], waitMs = 5000) {
  const messages = [];
  for (const f of frames) {
    const app = appOf(f);
    if (app) messages.push({ f, ...app, segments: 1 });
    else if (messages.length && messages[messages.length - 1].f.direction === f.direction && !f.dropped) messages[messages.length - 1].segments += 1;
  }
  // One request outstanding at a time (IEEE 1815 4.1): a response answers the request
  // awaiting one when the sequence numbers agree; a request sent while one awaits means that
  // one got none. Sent again: the same function, sequence and objects (the transport's own
  // sequence moves on, so the octets differ).
  const requests = [];
  let pending = null;
  for (const m of messages) {
    if (m.f.direction === "sent" && !ANSWERLESS.has(m.fn)) {
      if (pending && !pending.answer) {
        pending.timeout = true;
        if (pending.fn === m.fn && pending.seq === m.seq && pending.objects === m.objects) m.retry = pending;
      }
      requests.push(m);
      pending = m;
    } else if (m.f.direction === "received" && RESPONSE.has(m.fn) && pending && !pending.answer && m.seq === pending.seq) {
      pending.answer = m;
      m.answers = pending;
    }
  }
  if (pending && !pending.answer) {
    const said = timedOut.some((t) => t.fn === pending.fn && t.seq === pending.seq && t.at >= pending.f.time_ms);
    pending.timeout = said || now - pending.f.time_ms > waitMs;
  }
  // A SELECT and the OPERATE sent next (after any retry of the SELECT) with the same
  // objects and the next sequence number.
  for (const [i, m] of requests.entries()) {
    if (m.fn !== "SELECT" || m.retry) continue;
    let k = i + 1;
    while (k < requests.length && requests[k].retry) k += 1;
    const operate = requests[k];
    if (operate && operate.fn === "OPERATE" && operate.objects === m.objects && operate.seq === ((m.seq + 1) & 0x0f)) {
      m.operate = operate;
      operate.select = m;
    }
  }
  return messages;
}

const lampX = (bit) => OUTSTATION + 16 + bit * LAMP_STEP + (bit >= 8 ? 6 : 0);

// A filled head at the end (x2, y2) of the arrow from (x1, y1).
function arrowHead(x1, y1, x2, y2) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const at = (r, d) => `${x2 - r * Math.cos(a + d)},${y2 - r * Math.sin(a + d)}`;
  return svg("polygon", { points: `${x2},${y2} ${at(9, 0.4)} ${at(9, -0.4)}`, class: "head" });
}

export function createLadder({ onPick }) {
  const el = h("div", { class: "ladder", "aria-label": "traffic as a ladder" });
  let following = true; // kept at the newest until the person scrolls up
  el.addEventListener("scroll", () => {
    following = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
  });

  // `frames`: the frames the list would show, newest first, of outstation `name`. Drawn at
  // most every DRAW_EVERY_MS (a busy outstation brings frames every animation frame), from
  // the newest TAIL frames.
  let lastDraw = 0;
  let trailing = null;
  let wanted = null;
  function render(frames, picked, name) {
    wanted = [frames, picked, name];
    const wait = lastDraw + DRAW_EVERY_MS - performance.now();
    if (wait > 0) {
      trailing ??= setTimeout(() => {
        trailing = null;
        render(...wanted);
      }, wait);
      return;
    }
    lastDraw = performance.now();
    draw(...wanted);
  }

  function draw(frames, picked, name) {
    const all = ladderOf(frames.slice(0, TAIL).reverse(), Date.now(), timeouts.get(name));
    const messages = all.slice(-SHOWN);
    const ys = [];
    let y = TOP + 16;
    messages.forEach((m, i) => {
      const gap = i ? m.f.time_ms - messages[i - 1].f.time_ms : 0;
      y += i ? ROW + Math.min(48, 8 * Math.log2(1 + Math.max(0, gap) / 50)) : 0;
      ys.push(y);
    });
    const height = (ys[ys.length - 1] ?? TOP) + 40;
    const root = svg("svg", { viewBox: `0 0 ${W} ${height}`, class: "ladder-svg", role: "img", "aria-label": `${messages.length} messages` });
    root.append(
      svg("text", { x: MASTER, y: 16, "text-anchor": "middle", class: "lane-name" }, "master"),
      svg("text", { x: OUTSTATION, y: 16, "text-anchor": "middle", class: "lane-name" }, "outstation"),
      svg("text", { x: lampX(3.5), y: 30, "text-anchor": "middle", class: "iin-head" }, "IIN1 .0–.7"),
      svg("text", { x: lampX(11.5), y: 30, "text-anchor": "middle", class: "iin-head" }, "IIN2 .0–.7"),
      svg("line", { x1: MASTER, y1: TOP - 10, x2: MASTER, y2: height, class: "lane" }),
      svg("line", { x1: OUTSTATION, y1: TOP - 10, x2: OUTSTATION, y2: height, class: "lane" }),
    );
    if (all.length > messages.length) root.append(svg("text", { x: 4, y: 16, class: "ladder-note" }, `the newest ${messages.length} of ${all.length}`));
    const pairs = [];
    messages.forEach((m, i) => {
      const at = ys[i];
      const gap = i ? m.f.time_ms - messages[i - 1].f.time_ms : 0;
      if (gap >= 500) root.append(svg("text", { x: 4, y: at - ROW / 2 - 2, class: "gap" }, `+${number(Math.round(gap / 100) / 10)} s`));
      root.append(message(m, at, m.f === picked));
      const to = m.operate ? ys[messages.indexOf(m.operate)] : undefined;
      if (to !== undefined) pairs.push([m, at, to]);
    });
    // Drawn over the messages, so a row picked does not hide them.
    for (const [m, at, to] of pairs) {
      root.append(
        svg("path", { d: `M${MASTER - 4},${at} C${MASTER - 40},${at} ${MASTER - 40},${to} ${MASTER - 4},${to}`, class: "pair", "data-select": m.f.id, "data-operate": m.operate.f.id }),
        svg("text", { x: MASTER - 36, y: (at + to) / 2 - 2, "text-anchor": "end", class: "pair-name" }, svg("tspan", { x: MASTER - 36 }, "select"), svg("tspan", { x: MASTER - 36, dy: 11 }, "→ operate")),
      );
    }
    replace(el, root);
    if (following) el.scrollTop = el.scrollHeight;
  }

  function message(m, y, picked) {
    const sent = m.f.direction === "sent";
    const [from, to] = sent ? [MASTER, OUTSTATION] : [OUTSTATION, MASTER];
    const classes = ["message", m.f.direction, m.retry ? "retry" : "", m.timeout ? "timeout" : "", picked ? "picked" : ""].filter(Boolean).join(" ");
    const g = svg("g", { class: classes, "data-frame": m.f.id, "data-function": m.fn, "data-seq": m.seq, tabindex: 0 });
    const label = `${m.fn} seq=${m.seq}${m.objects ? ` ${m.objects}` : ""}${m.segments > 1 ? ` (${m.segments} frames)` : ""}`;
    g.append(
      svg("title", {}, `frame ${m.f.id} at ${clock(m.f.time_ms)}: ${label}`),
      svg("rect", { x: 0, y: y - ROW / 2 - 2, width: W, height: ROW - 2, class: "hit" }),
      svg("text", { x: 4, y: y + 4, class: "time" }, clock(m.f.time_ms)),
      svg("line", { x1: from, y1: y - 6, x2: to, y2: y + 6, class: "arrow" }),
      arrowHead(from, y - 6, to, y + 6),
      svg("text", { x: (MASTER + OUTSTATION) / 2, y: y - 9, "text-anchor": "middle", class: "label" }, label.length > 58 ? `${label.slice(0, 57)}…` : label),
    );
    if (m.retry) g.append(svg("text", { x: MASTER - 8, y: y + 4, "text-anchor": "end", class: "mark retry-mark" }, `retry of ${m.retry.f.id}`));
    if (m.timeout) g.append(svg("text", { x: OUTSTATION - 6, y: y + 20, "text-anchor": "end", class: "mark timeout-mark" }, "✕ no response"));
    if (m.iin) {
      const set = new Set(m.iin);
      IIN_NAMES.forEach((name, bit) => {
        const lamp = svg("circle", { cx: lampX(bit), cy: y, r: 4.5, class: `iin-lamp ${set.has(name) ? "lit" : "unlit"}`, "data-iin": name });
        lamp.append(svg("title", {}, `IIN${bit < 8 ? 1 : 2}.${bit % 8} ${name}${set.has(name) ? " set" : ""}`));
        g.append(lamp);
      });
    }
    g.addEventListener("click", () => onPick(m.f));
    return g;
  }

  return { el, render };
}
