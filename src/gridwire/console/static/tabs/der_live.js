// The live DER screen: active and reactive power, voltage, frequency and power factor as
// tiles in engineering units, each with a sparkline, all on one time axis; chips for the
// functions enabled; the curve a function runs on with the DER's operating point moving on
// it. While the screen is shown the page polls (one der.read of the points it shows, every
// second), said on the page with a Stop/Start of its own; leaving the screen stops it.

import { call } from "../api.js";
import { h, lamp, message, replace } from "../dom.js";
import { hms, svg, timeTicks } from "../chart.js";
import { clock, number, plural } from "../format.js";
import { state, station } from "../store.js";
import { CURVE_AXES, REFERENCE_OF, createLiveCurve, operatingPoint } from "./der_live_curve.js";

const EVERY_MS = 1000;
const WINDOW_MS = 120_000; // the sparklines' time axis: the last two minutes
const KEPT = 240;
const FUNCTIONS_EVERY = 10; // polls between two reads of the functions' enabled states

// The quantities, found among the profile's analog inputs by label (first pattern found).
// A name alone ("Voltage") comes before a longer one ending with it ("Reference voltage").
export const QUANTITIES = [
  ["p", "Active power", [/^system meter active power$/i, /^active power$/i, /\bactive power$/i]],
  ["q", "Reactive power", [/^system meter reactive power$/i, /^reactive power$/i, /\breactive power$/i]],
  ["v", "Voltage", [/^system meter voltage, phase a$/i, /line-to-line voltage, average$/i, /^voltage$/i, /\bvoltage$/i]],
  ["f", "Frequency", [/^system meter frequency$/i, /^frequency$/i, /\bfrequency$/i]],
  ["pf", "Power factor", [/^system meter power factor$/i, /^power factor$/i, /\bpower factor$/i]],
];
const REFERENCES = [
  ["vref", [/volt-var voltage reference in effect/i, /^reference voltage$/i]],
  ["qmax", [/^maximum reactive power, injecting$/i]],
  ["pmax", [/^maximum active power, generating$/i]],
  ["fnom", [/^nominal grid frequency$/i]],
];

function find(profile, patterns) {
  for (const pattern of patterns) {
    const found = (profile?.ai ?? []).find((p) => pattern.test(p.label ?? p.name ?? ""));
    if (found) return `AI${found.index}`;
  }
  return null;
}

export function createLive() {
  let name = null;
  let addresses = new Map(); // role ("p", "vref", "curve:volt-var"...) -> address
  let functions = [];
  let curve = null; // the der.curve answer drawn
  let curveFunction = null; // the function whose curve it is
  let timer = null;
  let stoppedBy = null; // "user" (its Stop) or "unseen" (the screen was left)
  let polls = 0;
  let lastValues = {};
  const unitsOf = {}; // role -> the units der.read gave
  const history = new Map(QUANTITIES.map(([key]) => [key, []]));
  const said = message();
  const toggle = h("button", { type: "button", class: "live-toggle" }, "Stop");
  const polling = h("span", { class: "muted polling", dataset: { polling: "off" } });
  const chips = h("div", { class: "chips", "aria-label": "functions enabled" });
  const tiles = new Map();
  const strip = h("div", { class: "live-tiles" });
  for (const [key, title] of QUANTITIES) {
    const tile = {
      value: h("span", { class: "live-value" }, "—"),
      units: h("span", { class: "live-units" }),
      spark: h("div", { class: "spark" }),
      label: h("span", { class: "live-label" }, title),
    };
    tile.el = h("div", { class: "live-tile", dataset: { quantity: key } }, h("div", { class: "live-reading" }, tile.label, h("div", null, tile.value, " ", tile.units)), tile.spark);
    tiles.set(key, tile);
    strip.append(tile.el);
  }
  const axis = h("div", { class: "live-axis", "aria-label": "time axis" });
  strip.append(h("div", { class: "live-tile live-axis-row" }, h("span", { class: "muted" }, "time"), axis));
  const liveCurve = createLiveCurve();
  const curveNote = h("p", { class: "muted curve-note" });
  const curveHolder = h("div", { class: "live-curve-holder" });
  const el = h(
    "div",
    { class: "der-live" },
    h("div", { class: "buttons" }, toggle, polling, said),
    chips,
    h("div", { class: "live-layout" }, strip, h("section", { class: "card live-curve-card" }, h("h3", null, "Curve and operating point"), curveNote, curveHolder)),
  );
  toggle.addEventListener("click", () => (timer ? stop("user") : start()));

  async function load(outstation) {
    if (name !== outstation) for (const series of history.values()) series.length = 0;
    name = outstation;
    liveCurve.reset();
    const profile = station(outstation).profile ?? (await call("profile", {}, outstation));
    addresses = new Map();
    for (const [key, , patterns] of QUANTITIES) addresses.set(key, find(profile, patterns));
    for (const [key, patterns] of REFERENCES) addresses.set(key, find(profile, patterns));
    await readFunctions();
    for (const f of functions) {
      if (!CURVE_AXES[f.key]) continue;
      const number = find(profile, [new RegExp(`^${f.name.replace(/[-/\\^$*+?.()|[\]{}]/g, "\\$&")} curve number$`, "i")]);
      if (number) addresses.set(`curve:${f.key}`, number);
    }
    await poll();
    await readCurve();
    start();
    const found = QUANTITIES.filter(([key]) => addresses.get(key)).length;
    return `${found} of ${QUANTITIES.length} quantities found in the profile`;
  }

  async function readFunctions() {
    functions = (await call("der.functions", {}, name)).functions;
    const on = functions.filter((f) => f.enabled);
    replace(
      chips,
      h("span", { class: "muted" }, "Enabled: "),
      on.length ? on.map((f) => h("span", { class: "chip on", dataset: { function: f.key } }, lamp("on", "enabled"), ` ${f.name}`)) : h("span", { class: "chip none" }, "no function enabled"),
    );
  }

  // The function whose curve is drawn: the first curve function enabled, else volt-var.
  function chooseFunction() {
    const curved = functions.filter((f) => CURVE_AXES[f.key] && addresses.get(`curve:${f.key}`));
    return curved.find((f) => f.enabled) ?? curved.find((f) => f.key === "volt-var") ?? curved[0] ?? null;
  }

  async function readCurve() {
    curveFunction = chooseFunction();
    if (!curveFunction) {
      curve = null;
      curveNote.textContent = "No curve to draw: the profile names no curve number for a curve function (volt-var, volt-watt, watt-var, frequency-watt).";
      replace(curveHolder);
      return;
    }
    const wanted = lastValues[`curve:${curveFunction.key}`];
    let shown;
    try {
      shown = await call("der.curve", {}, name);
    } catch (error) {
      curve = null;
      curveNote.textContent = `${curveFunction.name} (${curveFunction.enabled ? "enabled" : "not enabled"}): no curve to draw (der.curve: ${error.message}).`;
      replace(curveHolder);
      return;
    }
    if (typeof wanted === "number" && wanted > 0 && shown.number !== wanted) {
      curve = null;
      const select = h("button", { type: "button" }, `Show curve ${wanted}`);
      select.disabled = !state.status?.allow_control;
      select.title = "selects it in the curve edit window (a write), then reads it";
      select.addEventListener("click", async () => {
        curve = await call("der.curve", { number: wanted }, name);
        drawCurve();
      });
      replace(curveHolder, h("p", null, `${curveFunction.name} runs on curve ${wanted}; the curve edit window shows curve ${shown.number}. `, select));
      curveNote.textContent = "";
      return;
    }
    curve = shown;
    drawCurve();
  }

  function drawCurve() {
    if (!curve || !curveFunction) return;
    const at = operatingPoint(curve, lastValues, lastValues);
    const enabled = curveFunction.enabled ? "enabled" : "not enabled";
    curveNote.textContent = `${curveFunction.name} (${enabled}) runs on curve ${curve.number}: ${curve.type_name ?? `type ${curve.type}`}. ${at ? `Operating point: ${[0, 1].map((i) => axisText(at, i)).join("; ")}.` : "The operating point is not known (a value or its reference is missing)."}`;
    replace(curveHolder, liveCurve.draw(curve, at));
  }

  // "X 100.08 = 240.2 V of 240 V": an axis of the operating point with what it came from.
  function axisText(at, i) {
    const quantity = at.axes[i];
    const value = `${number(lastValues[quantity])} ${unitsOf[quantity] ?? ""}`.trim();
    const reference = lastValues[REFERENCE_OF[quantity]];
    const coordinate = number(i ? at.y : at.x);
    const percent = /percent|%/i.test((i ? curve.y_units_name : curve.x_units_name) ?? "");
    return percent && typeof reference === "number" ? `${"XY"[i]} ${coordinate} % = ${value} of ${`${number(Math.abs(reference))} ${unitsOf[REFERENCE_OF[quantity]] ?? ""}`.trim()}` : `${"XY"[i]} ${coordinate} = ${value}`;
  }

  async function poll() {
    const wanted = [...new Set([...addresses.values()].filter(Boolean))];
    if (!wanted.length) return;
    const answer = await call("der.read", { names: wanted }, name);
    const byAddress = new Map(answer.points.map((p) => [p.address, p]));
    const now = Date.now();
    lastValues = {};
    for (const [role, address] of addresses) {
      const p = address ? byAddress.get(address) : null;
      if (p && typeof p.value === "number") lastValues[role] = p.value;
      if (p) unitsOf[role] = p.units ?? "";
      const tile = tiles.get(role);
      if (!tile) continue;
      tile.value.textContent = p ? (typeof p.value === "number" ? number(p.value) : String(p.value ?? "not reported")) : "not in the profile";
      tile.value.dataset.value = p && typeof p.value === "number" ? String(p.value) : "";
      tile.value.title = p ? `${p.address}: ${p.label ?? p.name}; as transmitted ${p.raw}; ${p.quality}` : "";
      tile.units.textContent = p?.units ?? "";
      if (p && typeof p.value === "number") {
        const series = history.get(role);
        series.push([now, p.value]);
        if (series.length > KEPT) series.shift();
      }
    }
    drawSparks(now);
    drawCurve();
  }

  function drawSparks(now) {
    const firsts = [...history.values()].map((s) => s[0]?.[0]).filter((t) => t !== undefined);
    const t0 = Math.max(now - WINDOW_MS, Math.min(now - 10_000, ...firsts));
    const span = [t0, now];
    const marks = timeTicks(t0, now);
    const x = (t) => ((t - t0) / (now - t0)) * 100;
    for (const [key, tile] of tiles) {
      const series = history.get(key).filter(([t]) => t >= t0);
      const spark = svg("svg", { viewBox: "0 0 100 36", preserveAspectRatio: "none", class: "sparkline", "data-span": span.join("-"), "data-count": series.length });
      for (const t of marks) spark.append(svg("line", { x1: x(t), y1: 0, x2: x(t), y2: 36, class: "spark-tick", "vector-effect": "non-scaling-stroke" }));
      if (series.length) {
        let lo = Math.min(...series.map((p) => p[1]));
        let hi = Math.max(...series.map((p) => p[1]));
        if (lo === hi) [lo, hi] = [lo - (Math.abs(lo) * 0.05 || 1), hi + (Math.abs(hi) * 0.05 || 1)];
        const y = (v) => 33 - ((v - lo) / (hi - lo)) * 30;
        spark.append(svg("polyline", { points: series.map(([t, v]) => `${x(t)},${y(v)}`).join(" "), class: "series", "vector-effect": "non-scaling-stroke" }));
      }
      replace(tile.spark, spark);
    }
    replace(
      axis,
      marks.map((t) => {
        const label = h("span", { class: "time-tick", dataset: { ms: t } }, hms(t));
        label.style.left = `${x(t)}%`;
        return label;
      }),
    );
  }

  function tick() {
    if (!el.isConnected || el.offsetParent === null || !name) {
      stop("unseen");
      return;
    }
    polls += 1;
    const reread = polls % FUNCTIONS_EVERY === 0;
    (async () => {
      await poll();
      if (reread) {
        await readFunctions();
        if (chooseFunction() !== curveFunction || !curve) await readCurve();
      }
    })().then(
      () => {
        polling.textContent = `Live: one der.read of ${plural(addresses.size, "point")} every ${EVERY_MS / 1000} s (${polls} so far, last at ${clock(Date.now()).slice(0, 8)}).`;
      },
      (error) => {
        polling.textContent = `Live: the read failed: ${error.message}`;
      },
    );
  }

  function start() {
    if (timer) return;
    polls = 0;
    timer = setInterval(tick, EVERY_MS);
    toggle.textContent = "Stop";
    polling.dataset.polling = "on";
    polling.textContent = `Live: the page reads ${name} every ${EVERY_MS / 1000} s while this screen is shown.`;
  }

  function stop(why) {
    if (timer) clearInterval(timer);
    timer = null;
    stoppedBy = why;
    toggle.textContent = "Start";
    polling.dataset.polling = "off";
    polling.textContent = why === "user" ? "Stopped: the values hold what was last read; Start polls again." : "Stopped while the screen is not shown.";
  }

  // Shown again after it was left: it polls again (not after its own Stop).
  const shown = () => {
    if (name && !timer && stoppedBy === "unseen") start();
  };
  return { el, load, said, shown, get name() { return name; } };
}
