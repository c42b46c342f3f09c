// The DER curve: the curve the curve block shows (der.curve), plotted with axes named by its
// units; an editor (a table, or drag the points) and der.write_curve, which says where it
// stopped and whether the curve read back is the one written.

import { call } from "../api.js";
import { act, field, h, message, options, replace } from "../dom.js";
import { svg } from "../chart.js";
import { number as shownNumber, plural } from "../format.js";
import { state, station } from "../store.js";

// The curve block's coded points, found in the profile by their labels; their enumerations
// name the codes. Where the tables name none the code is typed as a number.
const CODED = [
  ["type", /^curve type/i, "Type"],
  ["x_units", /^curve x units/i, "X units"],
  ["y_units", /^curve y units/i, "Y units"],
];
const DISABLED = new Set([0, 1]); // "Curve disabled", "Not applicable": no axis to name

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

const W = 520;
const H = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 44 };

export function createCurve() {
  let name = null;
  let curve = null; // the reading shown
  let points = []; // the points being edited: [[x, y]]
  const said = message();
  const number = h("input", { type: "number", min: 1, value: 1, "aria-label": "curve number", name: "number" });
  const read = h("button", { type: "button" }, "Read shown curve");
  const select = h("button", { type: "button" }, "Select and read");
  const facts = h("p", { class: "curve-facts" });
  const plot = h("div", { class: "curve-plot" });
  const rows = h("tbody");
  const coded = new Map(CODED.map(([key, , label]) => [key, { label, input: h("input", { type: "number", min: 0, step: 1, "aria-label": `curve ${label}`, name: key }), holder: h("span") }]));
  const writeSaid = message();
  const write = h("button", { type: "submit", class: "primary" }, "Write curve");
  const add = h("button", { type: "button" }, "Add point");
  const editor = h(
    "form",
    { class: "curve-editor", "aria-label": "curve editor" },
    h("div", { class: "inline curve-codes" }, [...coded.values()].map((c) => c.holder)),
    h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, "X"), h("th", null, "Y"), h("th", null, ""))), rows),
    h("div", { class: "buttons" }, add, write, writeSaid),
  );
  const el = h(
    "div",
    null,
    h("div", { class: "inline" }, read, field("Curve", number), select, said),
    facts,
    h("div", { class: "curve" }, plot, editor),
  );

  read.addEventListener("click", () => act(read, said, () => load(name)));
  select.addEventListener("click", () => act(select, said, () => load(name, Number(number.value))));
  add.addEventListener("click", () => {
    const last = points[points.length - 1] ?? [0, 0];
    points.push([last[0] + 1, last[1]]);
    draw();
  });
  editor.addEventListener("submit", (event) => {
    event.preventDefault();
    act(write, writeSaid, async () => {
      if (!curve) throw new Error("read a curve first");
      const params = { number: Number(number.value), type: codeOf("type"), x_units: codeOf("x_units"), y_units: codeOf("y_units"), points };
      const answer = await call("der.write_curve", params, name);
      show(answer.curve);
      said.className = "msg ok";
      said.textContent = countText(answer.curve);
      const where = answer.stopped_at ? `stopped at ${answer.stopped_at}` : "every write accepted";
      return `${where}; read back ${answer.matches ? "matches ✓" : "differs ✗"}`;
    });
  });

  async function load(outstation, select = undefined) {
    name = outstation;
    const answer = await call("der.curve", select === undefined ? {} : { number: select }, outstation);
    show(answer);
    return countText(answer);
  }

  function countText(reading) {
    return `curve ${reading.number ?? "?"}: ${plural(reading.count ?? reading.points.length, "point")}`;
  }

  function codeOf(key) {
    const v = Number(coded.get(key).input.value);
    if (!Number.isInteger(v) || v < 0) throw new Error(`${coded.get(key).label}: give a code`);
    return v;
  }

  // The type and units as choices named by the profile (a number where it names none).
  function showCodes(reading) {
    const profile = state.selected ? station(state.selected).profile : null;
    for (const [key, pattern] of CODED) {
      const c = coded.get(key);
      const point = profile?.ao?.find((p) => pattern.test(p.label ?? "") && p.enumeration?.length);
      if (point && c.input.tagName !== "SELECT") {
        c.input = h("select", { "aria-label": `curve ${c.label}`, name: key }, options(point.enumeration.map((e) => [e.value, `${e.value} ${e.name}`]), reading[key]));
        c.input.addEventListener("change", () => axisNames());
      }
      c.input.value = String(reading[key] ?? 0);
      replace(c.holder, field(c.label, c.input));
    }
  }

  // The axis names the editor's choice of units gives ("X" and "Y" for none).
  function axisName(key, axis) {
    const input = coded.get(key).input;
    const code = Number(input.value);
    if (DISABLED.has(code)) return axis;
    if (input.tagName === "SELECT") return input.selectedOptions[0]?.textContent.replace(/^\d+ /, "") ?? axis;
    return code === curve?.[key] ? curve[`${key}_name`] ?? `${axis} units ${code}` : `${axis} units ${code}`;
  }

  function axisNames() {
    drawPlot();
  }

  function show(reading) {
    curve = reading;
    if (reading.number) number.value = String(reading.number);
    points = reading.points.filter((p) => p[0] !== null && p[1] !== null).map((p) => [p[0], p[1]]);
    const off = DISABLED.has(reading.type);
    replace(
      facts,
      h("strong", null, `Curve ${reading.number ?? "?"}: ${reading.type_name ?? `type ${reading.type}`}`),
      off ? " · no axes: choose a type and units in the editor to write one" : ` · X: ${reading.x_units_name ?? reading.x_units} · Y: ${reading.y_units_name ?? reading.y_units}`,
      ` · ${plural(reading.count ?? points.length, "point")}`,
      reading.referenced ? " · referenced by a function" : "",
    );
    showCodes(reading);
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
            const input = h("input", { type: "number", step: 1, value: p[axis], "aria-label": `point ${i + 1} ${axis ? "Y" : "X"}`, dataset: { point: i, axis } });
            input.addEventListener("change", () => {
              const v = Math.round(Number(input.value));
              if (!Number.isFinite(v) || points[i]?.[axis] === v) return; // a drag must not be redrawn away
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

  function drawPlot() {
    if (!curve) return;
    if (!points.length) {
      const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart curve-chart", role: "img", "aria-label": "curve" });
      root.append(
        svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: "plot-frame" }),
        svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H / 2, "text-anchor": "middle", class: "chart-empty" }, DISABLED.has(curve.type) ? "This curve is disabled and holds no points." : "This curve holds no points."),
        svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H / 2 + 18, "text-anchor": "middle", class: "chart-empty" }, "Choose its type and units, add points, and write it."),
      );
      replace(plot, root);
      return;
    }
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    // X over the points' own span; Y from zero at least, so the sign of Y is seen.
    const span = (v) => {
      const lo = Math.min(...v);
      const hi = Math.max(...v);
      const pad = (hi - lo) * 0.1 || 1;
      return [lo - pad, hi + pad];
    };
    const [x0, x1] = span(xs.length ? xs : [0, 1]);
    const [y0, y1] = span([...ys, 0]);
    const X = (v) => PAD.left + ((v - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
    const Y = (v) => H - PAD.bottom - ((v - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart curve-chart", role: "img", "aria-label": "curve" });
    for (const vx of ticks(x0, x1)) {
      root.append(
        svg("line", { x1: X(vx), y1: PAD.top, x2: X(vx), y2: H - PAD.bottom, class: "grid-line" }),
        svg("text", { x: X(vx), y: H - PAD.bottom + 14, "text-anchor": "middle", class: "tick" }, shownNumber(vx)),
      );
    }
    for (const vy of ticks(y0, y1)) {
      root.append(
        svg("line", { x1: PAD.left, y1: Y(vy), x2: W - PAD.right, y2: Y(vy), class: "grid-line" }),
        svg("text", { x: PAD.left - 4, y: Y(vy) + 4, "text-anchor": "end", class: "tick" }, shownNumber(vy)),
      );
    }
    root.append(
      svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-name" }, axisName("x_units", "X")),
      svg("text", { x: 12, y: (PAD.top + H - PAD.bottom) / 2, "text-anchor": "middle", class: "axis-name", transform: `rotate(-90 12 ${(PAD.top + H - PAD.bottom) / 2})` }, axisName("y_units", "Y")),
      svg("polyline", { points: points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: "series" }),
    );
    points.forEach((p, i) => {
      const dot = svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: 7, class: "handle", "data-point": i });
      dot.addEventListener("pointerdown", (event) => {
        dot.setPointerCapture(event.pointerId);
        const box = root.getBoundingClientRect();
        const move = (e) => {
          const sx = ((e.clientX - box.left) / box.width) * W;
          const sy = ((e.clientY - box.top) / box.height) * H;
          p[0] = Math.round(x0 + ((sx - PAD.left) / (W - PAD.left - PAD.right)) * (x1 - x0));
          p[1] = Math.round(y0 + ((H - PAD.bottom - sy) / (H - PAD.top - PAD.bottom)) * (y1 - y0));
          dot.setAttribute("cx", X(p[0]));
          dot.setAttribute("cy", Y(p[1]));
          root.querySelector("polyline").setAttribute("points", points.map((q) => `${X(q[0])},${Y(q[1])}`).join(" "));
          const cells = rows.children[i]?.querySelectorAll("input");
          if (cells) [cells[0].value, cells[1].value] = [String(p[0]), String(p[1])];
        };
        const up = () => {
          dot.removeEventListener("pointermove", move);
          drawPlot(); // rescale to what was dragged
        };
        dot.addEventListener("pointermove", move);
        dot.addEventListener("pointerup", up, { once: true });
      });
      root.append(dot);
    });
    replace(plot, root);
  }

  return { el, load, said };
}
