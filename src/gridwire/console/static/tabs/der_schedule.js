// The DER schedule: the schedule the schedule block shows (der.schedule), drawn as a timeline
// (each point's value held from its time offset to the next); an editor (its fields and a
// table of points) and der.write_schedule, which says where it stopped and whether the
// schedule read back is the one written; set ready or not (der.enable_schedule,
// der.disable_schedule). The edit window: der_window.js.

import { call } from "../api.js";
import { act, field, h, replace } from "../dom.js";
import { svg } from "../chart.js";
import { number as shownNumber, plural } from "../format.js";
import { PAD, W, axes, coded, codedInput, createWindow, emptyPlot } from "./der_window.js";

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
const H = 260;

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
  const inputs = new Map();
  for (const [key, , label] of CODED) inputs.set(key, codedInput("schedule", key, label));
  for (const [key, label] of PLAIN) inputs.set(key, { label, input: h("input", { type: "number", step: "any", name: key, "aria-label": `schedule ${label}` }), holder: h("span") });
  const start = h("input", { type: "datetime-local", step: 1, name: "start", "aria-label": "schedule start (UTC)" });
  const win = createWindow("schedule", {
    buttons: readiness,
    editor: "curve-editor schedule-editor",
    fields: [[...inputs.values()].map((c) => c.holder), field("Start (UTC)", start)],
    columns: ["Time offset (s)", "Value"],
    cells: ["time offset", "value"],
    step: "any",
    value: Number,
    next: (last = [-60, 0]) => [last[0] + 60, last[1]],
    params,
    facts,
    fill: showFields,
    height: H,
    chart: "chart curve-chart schedule-chart",
    label: "schedule timeline",
    plot,
  });

  // Set ready or not ready (the schedule numbered), then read what the window shows.
  function readiness(w) {
    return [
      ["Set ready", "der.enable_schedule"],
      ["Set not ready", "der.disable_schedule"],
    ].map(([text, op]) => {
      const button = h("button", { type: "button" }, text);
      button.addEventListener("click", () =>
        act(button, w.said, async () => {
          const answer = await call(op, { number: w.number() }, w.name);
          await w.load(w.name);
          const where = answer.stopped_at ? `stopped at ${answer.stopped_at}` : "accepted";
          return `schedule ${answer.number}: ${where}; ready ${answer.ready ? "✓" : "✗"}`;
        }),
      );
      return button;
    });
  }

  function params() {
    const given = startParts(start.value);
    for (const [key, { input, label }] of inputs) {
      if (input.value === "") continue;
      const v = Number(input.value);
      if (!Number.isFinite(v)) throw new Error(`${label}: give a number`);
      given[key] = v;
    }
    return given;
  }

  function facts(reading, points) {
    const repeat = reading.repeat_interval ? `every ${shownNumber(reading.repeat_interval)} ${reading.repeat_units_name ?? `units ${reading.repeat_units}`}` : "not repeated";
    return [
      h("strong", null, `Schedule ${reading.number ?? "?"}: ${reading.type_name ?? `type ${reading.type}`}`),
      ` · starts ${reading.start ?? "?"} · ${repeat} · priority ${reading.priority ?? "?"}`,
      ` · ${plural(reading.count ?? points.length, "point")}`,
      ` · ${reading.status_name ?? `status ${reading.status ?? "?"}`}`,
      reading.ready === null ? "" : reading.ready ? " · ready" : " · not ready",
      reading.running ? ` · running schedule ${reading.running}` : "",
    ];
  }

  // The type and repeat units as choices named by the profile (a number where it names none).
  function showFields(reading) {
    for (const [key, pattern] of CODED) coded("schedule", key, pattern, inputs.get(key), reading[key]);
    for (const [key, c] of inputs) {
      c.input.value = reading[key] === null || reading[key] === undefined ? "" : String(reading[key]);
      replace(c.holder, field(c.label, c.input));
    }
    start.value = startText(reading.start_date, reading.start_time);
  }

  // A step line: each point's value from its time offset to the next point's (the last held
  // for a tenth of the span), over the points' own times.
  function plot(root, points) {
    if (!points.length) {
      emptyPlot(root, H, ["This schedule holds no points.", "Choose its type and start, add points, and write it."]);
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
    const steps = [];
    sorted.forEach((p, i) => {
      const until = i + 1 < sorted.length ? sorted[i + 1][0] : t1;
      steps.push(`${X(p[0])},${Y(p[1])}`, `${X(until)},${Y(p[1])}`);
    });
    axes(root, H, X, Y, [t0, t1], [v0, v1], ["seconds from the start", win.reading.type_name ?? "value"]);
    root.append(
      svg("polyline", { points: steps.join(" "), class: "series" }),
      ...sorted.map((p) => svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: 5, class: "handle" })),
    );
  }

  return win;
}
