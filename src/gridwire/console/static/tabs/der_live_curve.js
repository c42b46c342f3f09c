// The curve a DER function runs on, with the DER's present operating point on it: for
// volt-var, the voltage in percent of the reference (X) and the reactive power in percent of
// the maximum (Y), as the curve's units say; a short trail shows where the point has been.

import { svg } from "../chart.js";
import { number } from "../format.js";
import { grid } from "./der_window.js";

// What each axis of a curve type measures: a quantity of the live screen (p, q, v, f).
export const CURVE_AXES = {
  "volt-var": ["v", "q"],
  "volt-watt": ["v", "p"],
  "watt-var": ["p", "q"],
  "frequency-watt": ["f", "p"],
};
// The reference a quantity is a percentage of, where the curve's units are a percentage.
export const REFERENCE_OF = { v: "vref", q: "qmax", p: "pmax", f: "fnom" };

const W = 460;
const H = 300;
const PAD = { left: 58, right: 14, top: 14, bottom: 40 };
const TRAIL = 30;

const percentUnits = (name) => /percent|%/i.test(name ?? "");

// The operating point in the curve's units: {x, y} (null where a value or reference is
// missing), and the engineering values it came from.
export function operatingPoint(curve, values, references) {
  const axes = CURVE_AXES[(curve.type_name ?? "").toLowerCase()];
  if (!axes) return null;
  const place = (quantity, unitsName) => {
    const v = values[quantity];
    if (typeof v !== "number") return null;
    if (!percentUnits(unitsName)) return v;
    const reference = references[REFERENCE_OF[quantity]];
    return typeof reference === "number" && reference !== 0 ? (v / Math.abs(reference)) * 100 : null;
  };
  const x = place(axes[0], curve.x_units_name);
  const y = place(axes[1], curve.y_units_name);
  return x === null || y === null ? null : { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100, axes };
}

export function createLiveCurve() {
  const el = (title) => svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart curve-chart live-curve", role: "img", "aria-label": title });
  const trail = [];
  let root = el("curve");

  // Draws `curve` (a der.curve answer) and the point `at` ({x, y} or null).
  function draw(curve, at) {
    if (at) {
      trail.push([at.x, at.y]);
      if (trail.length > TRAIL) trail.shift();
    }
    const points = curve.points.filter((p) => p[0] !== null && p[1] !== null);
    root = el(`curve ${curve.number} with the operating point`);
    if (!points.length) {
      root.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "chart-empty" }, `Curve ${curve.number ?? "?"} holds no points.`));
      return root;
    }
    const span = (v) => {
      const lo = Math.min(...v);
      const hi = Math.max(...v);
      const pad = (hi - lo) * 0.08 || 1;
      return [lo - pad, hi + pad];
    };
    const [x0, x1] = span([...points.map((p) => p[0]), ...trail.map((p) => p[0])]);
    const [y0, y1] = span([...points.map((p) => p[1]), ...trail.map((p) => p[1]), 0]);
    const X = (v) => PAD.left + ((v - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
    const Y = (v) => H - PAD.bottom - ((v - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
    grid(root, { W, H, PAD }, X, Y, [x0, x1], [y0, y1], "axis");
    const mid = (PAD.top + H - PAD.bottom) / 2;
    root.append(
      svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 8, "text-anchor": "middle", class: "axis-name" }, curve.x_units_name ?? "X"),
      svg("text", { x: 12, y: mid, "text-anchor": "middle", class: "axis-name", transform: `rotate(-90 12 ${mid})` }, shortUnits(curve.y_units_name) ?? "Y"),
      svg("polyline", { points: points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: "series" }),
      ...points.map((p) => svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: 3, class: "curve-point" })),
    );
    if (trail.length > 1) root.append(svg("polyline", { points: trail.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: "trail" }));
    if (at) {
      const dot = svg("circle", { cx: X(at.x), cy: Y(at.y), r: 7, class: "operating-point", "data-x": at.x, "data-y": at.y });
      dot.append(svg("title", {}, `operating point: X ${number(at.x)}, Y ${number(at.y)}`));
      const right = X(at.x) > W - 150;
      root.append(dot, svg("text", { x: X(at.x) + (right ? -12 : 12), y: Y(at.y) - 10, "text-anchor": right ? "end" : "start", class: "point-label" }, `${number(at.x)}, ${number(at.y)}`));
    }
    return root;
  }
  return { draw, reset: () => (trail.length = 0) };
}

// "Vars, percent of maximum vars (VArMax)" is long for a side axis: the part before "(".
function shortUnits(name) {
  return name ? name.replace(/\s*\(.*\)$/, "") : name;
}
