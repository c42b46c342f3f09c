// DER nameplate and monitoring: read once in engineering units and state names (der.read),
// then kept live from the event stream: a point's transmitted value times the multiplier its
// read showed, its state named by the profile's enumeration. A trend chart plots the
// monitored values the page has seen for the points ticked.

import { call } from "../api.js";
import { act, h, message, replace } from "../dom.js";
import { age, clock, flags, number } from "../format.js";
import { on, station } from "../store.js";
import { flash } from "../vtable.js";
import { lineChart } from "../chart.js";

const GROUPS = ["Monitoring", "Nameplate"];
const HISTORY = 3000;
const MAX_TRENDS = 4;
const POLL_EVERY_S = 2; // the integrity scan the page asks for while a trend is shown

export function createReadings() {
  let name = null;
  let points = new Map(); // "ai:5" -> reading
  const history = new Map(); // "ai:5" -> [[ms, value]]
  const trended = new Set();
  const said = message();
  const refresh = h("button", { type: "button" }, "Read again");
  const tables = h("div", { class: "der-readings" });
  const charts = h("div", { class: "trends" }, h("p", { class: "muted" }, "Tick a monitored value to plot it here as the page sees it change."));
  const polling = h("p", { class: "muted polling", dataset: { polling: "off" } }, "");
  const el = h("div", null, h("div", { class: "buttons" }, refresh, said), h("div", { class: "trend-view" }, h("h4", null, "Trend"), polling, charts), tables);
  // While a trend is shown the page polls: an integrity scan every POLL_EVERY_S seconds,
  // started when the first trend is ticked and stopped when none is left or the view closes.
  let poller = null;
  let polls = 0;
  function poll() {
    if (!el.isConnected || !trended.size || !name) {
      stopPolling();
      return;
    }
    polls += 1;
    call("scan", { kind: "integrity" }, name)
      .then(() => {
        polling.textContent = `Polling: this page asks ${name} for an integrity scan every ${POLL_EVERY_S} s while a trend is shown (${polls} so far, last at ${clock(Date.now()).slice(0, 8)}).`;
      })
      .catch((error) => {
        polling.textContent = `Polling: scan failed: ${error.message}`;
      });
  }
  function startPolling() {
    if (poller) return;
    polls = 0;
    polling.dataset.polling = "on";
    polling.textContent = `Polling: this page asks ${name} for an integrity scan every ${POLL_EVERY_S} s while a trend is shown.`;
    poll();
    poller = setInterval(poll, POLL_EVERY_S * 1000);
  }
  function stopPolling() {
    if (poller) clearInterval(poller);
    poller = null;
    polling.dataset.polling = "off";
    polling.textContent = "Not polling: values move when a scan or an unsolicited response brings them.";
  }
  stopPolling();

  refresh.addEventListener("click", () => act(refresh, said, () => load(name)));

  async function load(outstation) {
    name = outstation;
    const answers = await Promise.all(GROUPS.map((group) => call("der.read", { group }, outstation)));
    points = new Map();
    const sections = answers.map((answer, i) => {
      const rows = answer.points.map((p) => {
        const reading = { ...p, group: GROUPS[i], multiplier: scale(p), seen: Date.now() };
        points.set(`${p.type}:${p.index}`, reading);
        record(reading);
        return reading;
      });
      return [GROUPS[i], rows];
    });
    render(sections);
    return `${points.size} points read`;
  }

  function scale(p) {
    if (typeof p.value === "number" && typeof p.raw === "number" && p.raw !== 0) return p.value / p.raw;
    return null;
  }

  function record(reading) {
    if (typeof reading.value !== "number") return;
    const key = `${reading.type}:${reading.index}`;
    const series = history.get(key) ?? [];
    series.push([Date.now(), reading.value]);
    if (series.length > HISTORY) series.splice(0, series.length - HISTORY);
    history.set(key, series);
  }

  const rawTitle = (r) => (r.raw === null || r.raw === undefined ? "" : `as transmitted: ${r.raw}`);

  function shownValue(r) {
    if (r.quality === "not_reported") return "not reported";
    // A state once, by its name (its raw value on hover); a number in its units' column.
    if (r.state) return r.state;
    return typeof r.value === "number" ? number(r.value) : String(r.value);
  }

  function row(r) {
    const key = `${r.type}:${r.index}`;
    const tick = typeof r.value === "number" ? h("input", { type: "checkbox", checked: trended.has(key), "aria-label": `trend ${r.label}`, dataset: { trend: key } }) : null;
    const tr = h(
      "tr",
      { dataset: { key } },
      h("td", null, r.address),
      h("td", { title: r.name }, r.label ?? r.name),
      h("td", { class: "num value", title: rawTitle(r) }, shownValue(r)),
      h("td", null, r.units ?? ""),
      h("td", null, r.quality),
      h("td", null, flags(r.flags)),
      h("td", { class: "num age" }, age(Date.now() - r.seen)),
      h("td", null, tick),
    );
    r.el = tr;
    return tr;
  }

  function render(sections) {
    replace(
      tables,
      sections.map(([group, rows]) =>
        h(
          "section",
          null,
          h("h4", null, `${group} (${rows.length})`),
          h(
            "div",
            { class: "scroll-x" },
            h("table", { class: "grid der-points" }, h("thead", null, h("tr", null, ["address", "name", "value", "units", "quality", "flags", "age", "trend"].map((t) => h("th", null, t)))), h("tbody", null, rows.map(row))),
          ),
        ),
      ),
    );
  }

  tables.addEventListener("change", (event) => {
    const key = event.target.dataset?.trend;
    if (!key) return;
    if (event.target.checked) {
      if (trended.size >= MAX_TRENDS) {
        event.target.checked = false;
        said.className = "msg error";
        said.textContent = `at most ${MAX_TRENDS} trends at once`;
        return;
      }
      trended.add(key);
    } else trended.delete(key);
    drawTrends();
    if (trended.size) startPolling();
    else stopPolling();
  });

  function drawTrends() {
    if (!trended.size) {
      replace(charts, h("p", { class: "muted" }, "Tick a monitored value to plot it here as the page sees it change."));
      return;
    }
    // One time axis for all: from the oldest value among them to now.
    const firsts = [...trended].map((key) => history.get(key)?.[0]?.[0]).filter((t) => t !== undefined);
    const now = Date.now();
    const span = [firsts.length ? Math.min(...firsts) : now - 1000, now];
    replace(
      charts,
      [...trended].map((key) => {
        const r = points.get(key);
        const chart = lineChart({ title: `${r.label ?? r.name} (${r.units ?? "no units"})`, series: history.get(key) ?? [], yLabel: r.units ?? "", span });
        chart.dataset.trendChart = key;
        return chart;
      }),
    );
  }

  // A point of ours changed in the page's store: its new value in engineering units.
  on("points", (outstation, keys) => {
    if (outstation !== name || !keys || !points.size) return;
    const s = station(outstation);
    let trendChanged = false;
    for (const key of keys) {
      const r = points.get(key);
      const live = s.points.get(key);
      if (!r || !live) continue;
      const raw = typeof live.value === "boolean" ? live.value : Number(live.value);
      const same = r.raw === live.value;
      r.raw = live.value;
      r.value = typeof raw === "number" && r.multiplier !== null ? raw * r.multiplier : raw;
      // Named by the profile's enumeration; before the profile has come, a value that did not
      // change keeps the name der.read gave it.
      if (live.enumeration) r.state = live.enumeration.find((e) => e.value === Number(live.value))?.name ?? null;
      else if (!same) r.state = null;
      r.flags = live.flags;
      r.quality = quality(live.flags);
      r.seen = Date.now();
      record(r);
      if (r.el) {
        const cells = r.el.children;
        const changed = cells[2].textContent !== shownValue(r) || cells[5].textContent !== flags(r.flags);
        cells[2].textContent = shownValue(r);
        cells[2].title = rawTitle(r);
        cells[4].textContent = r.quality;
        cells[5].textContent = flags(r.flags);
        cells[6].textContent = age(0);
        if (changed) flash(r.el, r.seen, r.seen); // a poll re-reading the same value is no news
      }
      if (trended.has(key)) trendChanged = true;
    }
    if (trendChanged) drawTrends();
  });

  setInterval(() => {
    if (!el.isConnected) {
      if (poller) stopPolling();
      return;
    }
    for (const r of points.values()) if (r.el) r.el.children[6].textContent = age(Date.now() - r.seen);
    if (trended.size) drawTrends(); // the shared time axis runs on to now
  }, 1000);

  return { el, load, said, get name() { return name; } };
}

// As der.read names it, from the flags the event carried.
function quality(list) {
  if (!list) return "no_flags";
  if (list.includes("COMM_LOST")) return "comm_lost";
  if (list.includes("RESTART")) return "restart";
  return list.includes("ONLINE") ? "good" : "offline";
}
