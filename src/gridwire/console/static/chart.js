// A small SVG line chart of [ms, value] pairs: time along, value up, the extremes labelled.
// Given `span` ([from, to] in ms), charts drawn together share one time axis with clock ticks.

const NS = "http://www.w3.org/2000/svg";
const W = 420;
const H = 140;
const PAD = { left: 56, right: 10, top: 18, bottom: 22 };

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const fmt = (n) => String(Number(n.toPrecision(5)));

const pad2 = (n) => String(n).padStart(2, "0");
export const hms = (ms) => {
  const d = new Date(ms);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
};

// About four ticks at a round step (1 s .. 1 h) between t0 and t1.
export function timeTicks(t0, t1) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  const step = steps.find((s) => (t1 - t0) / s <= 4) ?? steps[steps.length - 1];
  const ticks = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) ticks.push(t);
  return ticks;
}

export function lineChart({ title, series, yLabel, span }) {
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title });
  root.append(svg("text", { x: PAD.left, y: 12, class: "chart-title" }, title));
  if (series.length === 0) {
    root.append(svg("text", { x: W / 2, y: H / 2, class: "chart-empty", "text-anchor": "middle" }, "no value seen yet"));
    return root;
  }
  const t0 = span ? span[0] : series[0][0];
  const t1 = Math.max(span ? span[1] : series[series.length - 1][0], t0 + 1000);
  let lo = Math.min(...series.map((p) => p[1]));
  let hi = Math.max(...series.map((p) => p[1]));
  if (lo === hi) {
    lo -= Math.abs(lo) * 0.05 || 1;
    hi += Math.abs(hi) * 0.05 || 1;
  }
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - ((v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  root.append(
    svg("line", { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: "axis" }),
    svg("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: "axis" }),
    svg("text", { x: PAD.left - 4, y: y(hi) + 4, "text-anchor": "end", class: "tick" }, fmt(hi)),
    svg("text", { x: PAD.left - 4, y: y(lo) + 4, "text-anchor": "end", class: "tick" }, fmt(lo)),
    svg("text", { x: 4, y: (PAD.top + H - PAD.bottom) / 2, class: "tick" }, yLabel),
    ...timeTicks(t0, t1).flatMap((t) => [
      svg("line", { x1: x(t), y1: H - PAD.bottom, x2: x(t), y2: H - PAD.bottom + 3, class: "axis" }),
      svg("text", { x: x(t), y: H - 6, "text-anchor": "middle", class: "tick time-tick", "data-ms": t }, hms(t)),
    ]),
  );
  // A step line: a value holds until the next one arrives.
  let path = "";
  series.filter(([t]) => t >= t0).forEach(([t, v], i) => {
    path += i === 0 ? `M${x(t)},${y(v)}` : `H${x(t)}V${y(v)}`;
  });
  path += `H${x(t1)}`;
  root.append(svg("path", { d: path, class: "series" }));
  return root;
}
