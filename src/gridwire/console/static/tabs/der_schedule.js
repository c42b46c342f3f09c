// The DER schedule: the schedule the schedule block shows (der.schedule), drawn as a timeline
// (each point's value held from its time offset to the next); an editor (its fields and a
// table of points) and der.write_schedule, which says where it stopped and whether the
// schedule read back is the one written; set ready or not (der.enable_schedule,
// der.disable_schedule).

import { call } from "../api.js";
import { act, field, h, message, options, replace } from "../dom.js";
import { svg } from "../chart.js";
import { number as shownNumber, plural } from "../format.js";
import { state, station } from "../store.js";
import { ticks } from "./der_curve.js";

// The coded fields, found in the profile by their labels; their enumerations name the codes.
const CODED = [
  ["type", /schedule type/i, "Type"],
  ["repeat_units", /repeat(ed)? ?interval ?units|repeat units/i, "Repeat units"],
];
const PLAIN = [
  ["priority", "Priority"],
  ["repeat_interval", "Repeat every"],
];
const DAY_MS = 86400000;
const W = 520;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 44 };

// start_date (days since 1970) and start_time (ms into it) as the value of a datetime-local
// input read as UTC, and back.
export function startText(date, time) {
  if (date === null || time === null || date === undefined || time === undefined) return "";
  return new Date(date * DAY_MS + time).toISOString().slice(0, 19);
}
export function startParts(text) {
  const ms = Date.parse(`${text}Z`);
  if (!Number.isFinite(ms)) throw new Error("Start: give a date and time (UTC)");
  return { start_date: Math.floor(ms / DAY_MS), start_time: ms % DAY_MS };
}

export function createSchedule() {
  let name = null;
  let schedule = null;
  let points = []; // [[time offset, value]]
  const said = message();
  const number = h("input", { type: "number", min: 1, value: 1, "aria-label": "schedule number", name: "number" });
  const read = h("button", { type: "button" }, "Read shown schedule");
  const select = h("button", { type: "button" }, "Select and read");
  const ready = h("button", { type: "button" }, "Set ready");
  const notReady = h("button", { type: "button" }, "Set not ready");
  const facts = h("p", { class: "schedule-facts" });
  const plot = h("div", { class: "curve-plot" });
  const rows = h("tbody");
  const inputs = new Map();
  for (const [key, , label] of CODED) inputs.set(key, { label, input: h("input", { type: "number", min: 0, step: 1, name: key, "aria-label": `schedule ${label}` }), holder: h("span") });
  for (const [key, label] of PLAIN) inputs.set(key, { label, input: h("input", { type: "number", step: "any", name: key, "aria-label": `schedule ${label}` }), holder: h("span") });
  const start = h("input", { type: "datetime-local", step: 1, name: "start", "aria-label": "schedule start (UTC)" });
  const writeSaid = message();
  const write = h("button", { type: "submit", class: "primary" }, "Write schedule");
  const add = h("button", { type: "button" }, "Add point");
  const editor = h(
    "form",
    { class: "curve-editor schedule-editor", "aria-label": "schedule editor" },
    h("div", { class: "inline curve-codes" }, [...inputs.values()].map((c) => c.holder), field("Start (UTC)", start)),
    h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, "Time offset (s)"), h("th", null, "Value"), h("th", null, ""))), rows),
    h("div", { class: "buttons" }, add, write, writeSaid),
  );
  const el = h(
    "div",
    null,
    h("div", { class: "inline" }, read, field("Schedule", number), select, ready, notReady, said),
    facts,
    h("div", { class: "curve" }, plot, editor),
  );

  read.addEventListener("click", () => act(read, said, () => load(name)));
  select.addEventListener("click", () => act(select, said, () => load(name, Number(number.value))));
  for (const [button, op] of [[ready, "der.enable_schedule"], [notReady, "der.disable_schedule"]]) {
    button.addEventListener("click", () =>
      act(button, said, async () => {
        const answer = await call(op, { number: Number(number.value) }, name);
        await load(name);
        const where = answer.stopped_at ? `stopped at ${answer.stopped_at}` : "accepted";
        return `schedule ${answer.number}: ${where}; ready ${answer.ready ? "✓" : "✗"}`;
      }),
    );
  }
  add.addEventListener("click", () => {
    const last = points[points.length - 1] ?? [-60, 0];
    points.push([last[0] + 60, last[1]]);
    draw();
  });
  editor.addEventListener("submit", (event) => {
    event.preventDefault();
    act(write, writeSaid, async () => {
      if (!schedule) throw new Error("read a schedule first");
      const params = { number: Number(number.value), points, ...startParts(start.value) };
      for (const [key, { input, label }] of inputs) {
        if (input.value === "") continue;
        const v = Number(input.value);
        if (!Number.isFinite(v)) throw new Error(`${label}: give a number`);
        params[key] = v;
      }
      const answer = await call("der.write_schedule", params, name);
      show(answer.schedule);
      said.className = "msg ok";
      said.textContent = countText(answer.schedule);
      const where = answer.stopped_at ? `stopped at ${answer.stopped_at}` : "every write accepted";
      return `${where}; read back ${answer.matches ? "matches ✓" : "differs ✗"}`;
    });
  });

  async function load(outstation, chosen = undefined) {
    name = outstation;
    const answer = await call("der.schedule", chosen === undefined ? {} : { number: chosen }, outstation);
    show(answer);
    return countText(answer);
  }

  function countText(reading) {
    return `schedule ${reading.number ?? "?"}: ${plural(reading.count ?? reading.points.length, "point")}`;
  }

  // The type and repeat units as choices named by the profile (a number where it names none).
  function showFields(reading) {
    const profile = state.selected ? station(state.selected).profile : null;
    for (const [key, pattern] of CODED) {
      const c = inputs.get(key);
      const point = profile?.ao?.find((p) => pattern.test(p.label ?? "") && p.enumeration?.length);
      if (point && c.input.tagName !== "SELECT") {
        c.input = h("select", { "aria-label": `schedule ${c.label}`, name: key }, options(point.enumeration.map((e) => [e.value, `${e.value} ${e.name}`]), reading[key]));
      }
    }
    for (const [key, c] of inputs) {
      c.input.value = reading[key] === null || reading[key] === undefined ? "" : String(reading[key]);
      replace(c.holder, field(c.label, c.input));
    }
    start.value = startText(reading.start_date, reading.start_time);
  }

  function show(reading) {
    schedule = reading;
    if (reading.number) number.value = String(reading.number);
    points = reading.points.filter((p) => p[0] !== null && p[1] !== null).map((p) => [p[0], p[1]]);
    const repeat = reading.repeat_interval ? `every ${shownNumber(reading.repeat_interval)} ${reading.repeat_units_name ?? `units ${reading.repeat_units}`}` : "not repeated";
    replace(
      facts,
      h("strong", null, `Schedule ${reading.number ?? "?"}: ${reading.type_name ?? `type ${reading.type}`}`),
      ` · starts ${reading.start ?? "?"} · ${repeat} · priority ${reading.priority ?? "?"}`,
      ` · ${plural(reading.count ?? points.length, "point")}`,
      ` · ${reading.status_name ?? `status ${reading.status ?? "?"}`}`,
      reading.ready === null ? "" : reading.ready ? " · ready" : " · not ready",
      reading.running ? ` · running schedule ${reading.running}` : "",
    );
    showFields(reading);
    draw();
  }

  function draw() {
    replace(
      rows,
      points.map((p, i) =>
        h(
          "tr",
          null,
          h("td", null, i + 1),
          ...[0, 1].map((axis) => {
            const input = h("input", { type: "number", step: "any", value: p[axis], "aria-label": `point ${i + 1} ${axis ? "value" : "time offset"}` });
            input.addEventListener("change", () => {
              const v = Number(input.value);
              if (!Number.isFinite(v) || points[i]?.[axis] === v) return;
              points[i][axis] = v;
              drawPlot();
            });
            return h("td", null, input);
          }),
          h("td", null, h("button", { type: "button", onclick: () => (points.splice(i, 1), draw()) }, "✕")),
        ),
      ),
    );
    drawPlot();
  }

  // A step line: each point's value from its time offset to the next point's (the last held
  // for a tenth of the span), over the points' own times.
  function drawPlot() {
    if (!schedule) return;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart curve-chart schedule-chart", role: "img", "aria-label": "schedule timeline" });
    if (!points.length) {
      root.append(
        svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: "plot-frame" }),
        svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H / 2, "text-anchor": "middle", class: "chart-empty" }, "This schedule holds no points."),
        svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H / 2 + 18, "text-anchor": "middle", class: "chart-empty" }, "Choose its type and start, add points, and write it."),
      );
      replace(plot, root);
      return;
    }
    const sorted = [...points].sort((a, b) => a[0] - b[0]);
    const times = sorted.map((p) => p[0]);
    const tail = (Math.max(...times) - Math.min(...times)) * 0.1 || 60;
    const t0 = Math.min(0, ...times);
    const t1 = Math.max(...times) + tail;
    const values = sorted.map((p) => p[1]);
    const lo = Math.min(0, ...values);
    const hi = Math.max(...values);
    const pad = (hi - lo) * 0.1 || 1;
    const [v0, v1] = [lo - pad, hi + pad];
    const X = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
    const Y = (v) => H - PAD.bottom - ((v - v0) / (v1 - v0)) * (H - PAD.top - PAD.bottom);
    for (const t of ticks(t0, t1)) {
      root.append(
        svg("line", { x1: X(t), y1: PAD.top, x2: X(t), y2: H - PAD.bottom, class: "grid-line" }),
        svg("text", { x: X(t), y: H - PAD.bottom + 14, "text-anchor": "middle", class: "tick" }, shownNumber(t)),
      );
    }
    for (const v of ticks(v0, v1)) {
      root.append(
        svg("line", { x1: PAD.left, y1: Y(v), x2: W - PAD.right, y2: Y(v), class: "grid-line" }),
        svg("text", { x: PAD.left - 4, y: Y(v) + 4, "text-anchor": "end", class: "tick" }, shownNumber(v)),
      );
    }
    const steps = [];
    sorted.forEach((p, i) => {
      const until = i + 1 < sorted.length ? sorted[i + 1][0] : t1;
      steps.push(`${X(p[0])},${Y(p[1])}`, `${X(until)},${Y(p[1])}`);
    });
    root.append(
      svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-name" }, "seconds from the start"),
      svg("text", { x: 12, y: (PAD.top + H - PAD.bottom) / 2, "text-anchor": "middle", class: "axis-name", transform: `rotate(-90 12 ${(PAD.top + H - PAD.bottom) / 2})` }, schedule.type_name ?? "value"),
      svg("polyline", { points: steps.join(" "), class: "series" }),
      ...sorted.map((p) => svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: 5, class: "handle" })),
    );
    replace(plot, root);
  }

  return { el, load, said };
}
