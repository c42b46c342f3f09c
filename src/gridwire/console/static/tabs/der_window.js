// The edit window of a stored curve or schedule (DESIGN D229): read the one the block shows
// (der.curve, der.schedule) or select one and read it, plot it, edit its fields and its table
// of points, and write it (der.write_curve, der.write_schedule), saying where the write
// stopped and whether what was read back is what was written. Each tab gives what is its own:
// its fields, the facts it tells, its points' columns and how it plots them.

import { call } from "../api.js";
import { act, field, h, message, options, replace } from "../dom.js";
import { svg } from "../chart.js";
import { number as shownNumber, plural } from "../format.js";
import { state, station } from "../store.js";

export const W = 520;
export const PAD = { left: 64, right: 16, top: 16, bottom: 44 };

// Up to `count` round tick values from lo to hi, none repeated (a span of 2 gets 0.5 steps).
export function ticks(lo, hi, count = 5) {
  const raw = (hi - lo) / Math.max(1, count - 1);
  if (!(raw > 0) || !Number.isFinite(raw)) return [lo];
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

// An empty plot's frame, and what to do, a line under the other.
export function emptyPlot(root, H, lines) {
  root.append(
    svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: "plot-frame" }),
    ...lines.map((line, i) => svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H / 2 + 18 * i, "text-anchor": "middle", class: "chart-empty" }, line)),
  );
}

// The grid and its tick values over [x0, x1] and [y0, y1] in a plot of `box` ({ W, H, PAD });
// the horizontal line at 0 is of class `zero`.
export function grid(root, box, X, Y, [x0, x1], [y0, y1], zero = "grid-line") {
  const { H, PAD: pad } = box;
  for (const vx of ticks(x0, x1)) {
    root.append(
      svg("line", { x1: X(vx), y1: pad.top, x2: X(vx), y2: H - pad.bottom, class: "grid-line" }),
      svg("text", { x: X(vx), y: H - pad.bottom + 14, "text-anchor": "middle", class: "tick" }, shownNumber(vx)),
    );
  }
  for (const vy of ticks(y0, y1)) {
    root.append(
      svg("line", { x1: pad.left, y1: Y(vy), x2: box.W - pad.right, y2: Y(vy), class: vy === 0 ? zero : "grid-line" }),
      svg("text", { x: pad.left - 4, y: Y(vy) + 4, "text-anchor": "end", class: "tick" }, shownNumber(vy)),
    );
  }
}

// The grid of an edit window's plot, then the axes' names.
export function axes(root, H, X, Y, xs, ys, [xName, yName]) {
  grid(root, { W, H, PAD }, X, Y, xs, ys);
  root.append(
    svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-name" }, xName),
    svg("text", { x: 12, y: (PAD.top + H - PAD.bottom) / 2, "text-anchor": "middle", class: "axis-name", transform: `rotate(-90 12 ${(PAD.top + H - PAD.bottom) / 2})` }, yName),
  );
}

// A coded field's input, a number until the profile names its codes (see `coded`).
export function codedInput(what, key, label) {
  return { label, input: h("input", { type: "number", min: 0, step: 1, name: key, "aria-label": `${what} ${label}` }), holder: h("span") };
}

// The coded field `c` as a choice of the codes the profile's output (found by its label)
// names, the one `chosen` selected; true when it became one now.
export function coded(what, key, pattern, c, chosen) {
  const profile = state.selected ? station(state.selected).profile : null;
  const point = profile?.ao?.find((p) => pattern.test(p.label ?? "") && p.enumeration?.length);
  if (!point || c.input.tagName === "SELECT") return false;
  c.input = h("select", { "aria-label": `${what} ${c.label}`, name: key }, options(point.enumeration.map((e) => [e.value, `${e.value} ${e.name}`]), chosen));
  return true;
}

// The window of `what` ("curve", "schedule"). `spec` gives its own: `buttons` beside Select
// (given the window, to act on its number), `fields` (the editor's nodes above the points),
// `columns` and `cells` (the points' headers and their inputs' names), `step` and `value`
// (the inputs' step and the number a cell's text gives), `next` (a point added after the
// last, or after none), `params` (the write's own parameters), `facts` (what is said of a
// reading), `fill` (the fields set from a reading) and `plot` (draws the points into an svg).
export function createWindow(what, spec) {
  const win = { name: null, reading: null, points: [] };
  const said = message();
  const number = h("input", { type: "number", min: 1, value: 1, "aria-label": `${what} number`, name: "number" });
  const read = h("button", { type: "button" }, `Read shown ${what}`);
  const select = h("button", { type: "button" }, "Select and read");
  const facts = h("p", { class: `${what}-facts` });
  const plot = h("div", { class: "curve-plot" });
  const rows = h("tbody");
  const writeSaid = message();
  const write = h("button", { type: "submit", class: "primary" }, `Write ${what}`);
  const add = h("button", { type: "button" }, "Add point");
  const headers = ["#", ...spec.columns, ""].map((text) => h("th", null, text));
  const editor = h(
    "form",
    { class: spec.editor, "aria-label": `${what} editor` },
    h("div", { class: "inline curve-codes" }, spec.fields),
    h("table", { class: "grid" }, h("thead", null, h("tr", null, headers)), rows),
    h("div", { class: "buttons" }, add, write, writeSaid),
  );
  const title = what[0].toUpperCase() + what.slice(1);
  const buttons = spec.buttons ? spec.buttons(win) : [];
  win.el = h(
    "div",
    null,
    h("div", { class: "inline" }, read, field(title, number), select, buttons, said),
    facts,
    h("div", { class: "curve" }, plot, editor),
  );
  win.said = said;
  win.number = () => Number(number.value);

  read.addEventListener("click", () => act(read, said, () => win.load(win.name)));
  select.addEventListener("click", () => act(select, said, () => win.load(win.name, Number(number.value))));
  add.addEventListener("click", () => {
    win.points.push(spec.next(win.points[win.points.length - 1]));
    draw();
  });
  editor.addEventListener("submit", (event) => {
    event.preventDefault();
    act(write, writeSaid, async () => {
      if (!win.reading) throw new Error(`read a ${what} first`);
      const params = { number: Number(number.value), ...spec.params(), points: win.points };
      const answer = await call(`der.write_${what}`, params, win.name);
      show(answer[what]);
      said.className = "msg ok";
      said.textContent = countText(answer[what]);
      const where = answer.stopped_at ? `stopped at ${answer.stopped_at}` : "every write accepted";
      return `${where}; read back ${answer.matches ? "matches ✓" : "differs ✗"}`;
    });
  });

  win.load = async (outstation, chosen = undefined) => {
    win.name = outstation;
    const answer = await call(`der.${what}`, chosen === undefined ? {} : { number: chosen }, outstation);
    show(answer);
    return countText(answer);
  };

  function countText(reading) {
    return `${what} ${reading.number ?? "?"}: ${plural(reading.count ?? reading.points.length, "point")}`;
  }

  function show(reading) {
    win.reading = reading;
    if (reading.number) number.value = String(reading.number);
    win.points = reading.points.filter((p) => p[0] !== null && p[1] !== null).map((p) => [p[0], p[1]]);
    replace(facts, spec.facts(reading, win.points));
    spec.fill(reading);
    draw();
  }

  function draw() {
    const points = win.points;
    replace(
      rows,
      points.map((p, i) =>
        h(
          "tr",
          null,
          h("td", null, i + 1),
          ...[0, 1].map((axis) => {
            const input = h("input", { type: "number", step: spec.step, value: p[axis], "aria-label": `point ${i + 1} ${spec.cells[axis]}`, dataset: { point: i, axis } });
            input.addEventListener("change", () => {
              const v = spec.value(input.value);
              if (!Number.isFinite(v) || points[i]?.[axis] === v) return; // a drag must not be redrawn away
              points[i][axis] = v;
              win.drawPlot();
            });
            return h("td", null, input);
          }),
          h("td", null, h("button", { type: "button", onclick: () => (points.splice(i, 1), draw()) }, "✕")),
        ),
      ),
    );
    win.drawPlot();
  }

  // The plot of the points being edited (once a reading is shown); `rows` are the table's.
  win.drawPlot = () => {
    if (!win.reading) return;
    const root = svg("svg", { viewBox: `0 0 ${W} ${spec.height}`, class: spec.chart, role: "img", "aria-label": spec.label });
    spec.plot(root, win.points, rows);
    replace(plot, root);
  };

  return win;
}
