// The DER curve: the curve the curve block shows (der.curve), plotted with axes named by its
// units; an editor (a table, or drag the points) and der.write_curve, which says where it
// stopped and whether the curve read back is the one written (the edit window: der_window.js).

import { field, h, replace } from "../dom.js";
import { svg } from "../chart.js";
import { plural } from "../format.js";
import { PAD, W, axes, coded, codedInput, createWindow, emptyPlot } from "./der_window.js";

// The curve block's coded points, found in the profile by their labels; their enumerations
// name the codes. Where the tables name none the code is typed as a number.
const CODED = [
  ["type", /^curve type/i, "Type"],
  ["x_units", /^curve x units/i, "X units"],
  ["y_units", /^curve y units/i, "Y units"],
];
const DISABLED = new Set([0, 1]); // "Curve disabled", "Not applicable": no axis to name
const H = 320;

export function createCurve() {
  const codes = new Map(CODED.map(([key, , label]) => [key, codedInput("curve", key, label)]));
  const win = createWindow("curve", {
    editor: "curve-editor",
    fields: [...codes.values()].map((c) => c.holder),
    columns: ["X", "Y"],
    cells: ["X", "Y"],
    step: 1,
    value: (text) => Math.round(Number(text)),
    next: (last = [0, 0]) => [last[0] + 1, last[1]],
    params: () => ({ type: codeOf("type"), x_units: codeOf("x_units"), y_units: codeOf("y_units") }),
    facts: (reading, points) => [
      h("strong", null, `Curve ${reading.number ?? "?"}: ${reading.type_name ?? `type ${reading.type}`}`),
      DISABLED.has(reading.type) ? " · no axes: choose a type and units in the editor to write one" : ` · X: ${reading.x_units_name ?? reading.x_units} · Y: ${reading.y_units_name ?? reading.y_units}`,
      ` · ${plural(reading.count ?? points.length, "point")}`,
      reading.referenced ? " · referenced by a function" : "",
    ],
    fill: showCodes,
    height: H,
    chart: "chart curve-chart",
    label: "curve",
    plot,
  });

  function codeOf(key) {
    const v = Number(codes.get(key).input.value);
    if (!Number.isInteger(v) || v < 0) throw new Error(`${codes.get(key).label}: give a code`);
    return v;
  }

  // The type and units as choices named by the profile (a number where it names none).
  function showCodes(reading) {
    for (const [key, pattern] of CODED) {
      const c = codes.get(key);
      if (coded("curve", key, pattern, c, reading[key])) c.input.addEventListener("change", () => win.drawPlot());
      c.input.value = String(reading[key] ?? 0);
      replace(c.holder, field(c.label, c.input));
    }
  }

  // The axis names the editor's choice of units gives ("X" and "Y" for none).
  function axisName(key, axis) {
    const input = codes.get(key).input;
    const code = Number(input.value);
    if (DISABLED.has(code)) return axis;
    if (input.tagName === "SELECT") return input.selectedOptions[0]?.textContent.replace(/^\d+ /, "") ?? axis;
    const curve = win.reading;
    return code === curve?.[key] ? curve[`${key}_name`] ?? `${axis} units ${code}` : `${axis} units ${code}`;
  }

  function plot(root, points, rows) {
    if (!points.length) {
      const what = DISABLED.has(win.reading.type) ? "This curve is disabled and holds no points." : "This curve holds no points.";
      emptyPlot(root, H, [what, "Choose its type and units, add points, and write it."]);
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
    axes(root, H, X, Y, [x0, x1], [y0, y1], [axisName("x_units", "X"), axisName("y_units", "Y")]);
    root.append(svg("polyline", { points: points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: "series" }));
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
          win.drawPlot(); // rescale to what was dragged
        };
        dot.addEventListener("pointermove", move);
        dot.addEventListener("pointerup", up, { once: true });
      });
      root.append(dot);
    });
  }

  return win;
}
