// A small SVG line chart of [ms, value] pairs: time along, value up, the extremes labelled.

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

export function lineChart({ title, series, yLabel }) {
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title });
  root.append(svg("text", { x: PAD.left, y: 12, class: "chart-title" }, title));
  if (series.length === 0) {
    root.append(svg("text", { x: W / 2, y: H / 2, class: "chart-empty", "text-anchor": "middle" }, "no value seen yet"));
    return root;
  }
  const t0 = series[0][0];
  const t1 = Math.max(series[series.length - 1][0], t0 + 1000);
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
    svg("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end", class: "tick" }, `${Math.round((t1 - t0) / 1000)} s`),
    svg("text", { x: 4, y: (PAD.top + H - PAD.bottom) / 2, class: "tick" }, yLabel),
  );
  // A step line: a value holds until the next one arrives.
  let path = "";
  series.forEach(([t, v], i) => {
    path += i === 0 ? `M${x(t)},${y(v)}` : `H${x(t)}V${y(v)}`;
  });
  path += `H${x(t1)}`;
  root.append(svg("path", { d: path, class: "series" }));
  return root;
}
