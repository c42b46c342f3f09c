// Points: a segment per type with counts, a filter (index, a-b range, flag name, !flag, or
// words of the name), and a virtual table of every point: value, flags, time, gXvY,
// static/event, age. A row that changes flashes. With a profile: names, enumerations,
// "not reported" and the mandatory mark. Outputs have an Operate shortcut.
//
// With 9,000 points changing once a second (D145): the store's updates come here as one
// render per animation frame; the rows are sorted again only when points come or go, and
// filtered again only when the filter, the segment or the choice changes, or when a point's
// flags or its being reported changed while a filter tests them; only the rows in view are
// filled (vtable.js).

import { h, options, replace } from "../dom.js";
import { age, dateTime, flags, gv, pointValue } from "../format.js";
import { POINT_TYPES, on, outstationStatus, state, station } from "../store.js";
import { VirtualRows, fade, put } from "../vtable.js";
import { createPane, noOutstation } from "./pane.js";

const TYPE_ORDER = Object.fromEntries(POINT_TYPES.map((t, i) => [t, i]));
const OUTPUTS = new Set(["bo", "ao"]);

// The value as a person reads it ({text, raw}): in engineering units, or a state's name,
// when the profile says how; the raw value as sent goes in its own narrow column.
export function shownValue(row) {
  if (!row.reported) return { text: "not reported", raw: "" };
  return pointValue(row, row.value);
}

function matcher(text) {
  const tests = [];
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    let m;
    if (/^\d+$/.test(token)) {
      const n = Number(token);
      tests.push((r) => r.index === n);
    } else if ((m = token.match(/^(\d+)-(\d+)$/))) {
      const [a, b] = [Number(m[1]), Number(m[2])];
      tests.push((r) => r.index >= a && r.index <= b);
    } else if ((m = token.match(/^(!?)([A-Z][A-Z_]+)$/))) {
      const [not, flag] = [m[1] === "!", m[2]];
      tests.push((r) => (r.flags ?? []).includes(flag) !== not);
    } else {
      const word = token.toLowerCase();
      tests.push((r) => (r.name ?? "").toLowerCase().includes(word));
    }
  }
  return (row) => tests.every((t) => t(row));
}

export function create(ctx) {
  let segment = "all";
  let show = "all";
  let filterText = "";
  let keysSeen = -1;
  let marksSeen = -1;
  let stationSeen = null;
  let rows = []; // every row of the station, sorted
  const counts = h("div", { class: "segments", role: "group", "aria-label": "point types" });
  const filter = h("input", { type: "search", class: "filter", placeholder: "index, 10-20, ONLINE, !ONLINE or a name", title: "an index, a range 10-20, a flag (ONLINE), a flag absent (!ONLINE), or words of the name", "aria-label": "filter points" });
  const which = h("select", { "aria-label": "which points" }, options([["all", "all points"], ["reported", "reported"], ["unreported", "not reported"]], show));
  const shownCount = h("span", { class: "muted count" });
  const legend = h("span", { class: "muted count", hidden: true }, "✱ mandatory in the profile");
  const table = new VirtualRows({
    className: "vt-points",
    columns: [
      { title: "type" },
      { title: "index", cls: "num" },
      { title: "name" },
      { title: "value", cls: "num value" },
      { title: "raw", cls: "num raw" },
      { title: "flags" },
      { title: "time" },
      { title: "object" },
      { title: "kind" },
      { title: "age", cls: "num" },
      { title: "", action: "operate", label: "Operate" },
    ],
    fill: fillRow,
    actions: { operate: (row) => ctx.go("commands", { operate: { type: row.type, index: row.index } }) },
  });
  const pane = createPane("points", "Points", render);
  pane.el.append(h("div", { class: "toolbar" }, counts, filter, which, shownCount, legend), table.el);
  const body = pane.el.children;

  filter.addEventListener("input", () => {
    filterText = filter.value;
    refilter();
  });
  which.addEventListener("change", () => {
    show = which.value;
    refilter();
  });
  counts.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-type]");
    if (!button) return;
    segment = button.dataset.type;
    renderCounts();
    refilter();
  });

  function fillRow(cells, row, el) {
    const now = Date.now();
    put(cells[0], row.type);
    put(cells[1], row.index);
    put(cells[2], (row.mandatory ? "✱ " : "") + (row.name ?? ""));
    if (cells[2].title !== (row.name ?? "")) cells[2].title = row.name ?? "";
    const shown = shownValue(row);
    put(cells[3], shown.text);
    put(cells[4], shown.raw);
    const rawTitle = shown.raw === "" ? "" : `as transmitted: ${shown.raw}`;
    if (cells[3].title !== rawTitle) cells[3].title = rawTitle;
    put(cells[5], row.reported ? flags(row.flags) : "");
    put(cells[6], row.time_ms ? dateTime(row.time_ms) : "");
    put(cells[7], row.group !== null ? gv(row.group, row.variation) : "");
    put(cells[8], row.reported ? (row.event ? "event" : "static") : "");
    put(cells[9], row.seen ? age(now - row.seen) : "");
    cells[10].firstChild.hidden = !OUTPUTS.has(row.type);
    el.classList.toggle("unreported", !row.reported);
    el.classList.toggle("offline", row.reported && Array.isArray(row.flags) && row.type !== "bo" && row.type !== "ao" && !row.flags.includes("ONLINE") && row.flags.length > 0);
    const next = fade(el, row.changed, now);
    if (next) table.renderIn(next);
  }

  function renderCounts() {
    const byType = {};
    for (const row of rows) byType[row.type] = (byType[row.type] ?? 0) + 1;
    const types = Object.keys(byType).sort((a, b) => (TYPE_ORDER[a] ?? 99) - (TYPE_ORDER[b] ?? 99));
    replace(
      counts,
      [["all", rows.length], ...types.map((t) => [t, byType[t]])].map(([type, n]) =>
        h("button", { type: "button", class: `segment${segment === type ? " chosen" : ""}`, dataset: { type }, "aria-pressed": String(segment === type) }, `${type} `, h("span", { class: "n" }, String(n))),
      ),
    );
  }

  // Whether what is shown depends on flags or on being reported, which updates change.
  function testsMarks() {
    return show !== "all" || /[A-Z!]/.test(filterText);
  }

  function refilter() {
    if (stationSeen) marksSeen = stationSeen.marks;
    const test = matcher(filterText);
    const items = rows.filter((r) => (segment === "all" || r.type === segment) && (show === "all" || (show === "reported") === r.reported) && test(r));
    shownCount.textContent = `${items.length} shown`;
    table.setItems(items);
  }

  function rebuild(s) {
    rows = [...s.points.values()].sort((a, b) => (TYPE_ORDER[a.type] ?? 99) - (TYPE_ORDER[b.type] ?? 99) || a.index - b.index);
    keysSeen = s.keys;
    if (segment !== "all" && !rows.some((r) => r.type === segment)) segment = "all";
    renderCounts();
    refilter();
  }

  function render() {
    const entry = outstationStatus(state.selected);
    if (!entry) {
      for (const child of body) child.hidden = true;
      if (!pane.el.querySelector(".empty")) pane.el.prepend(noOutstation());
      return;
    }
    pane.el.querySelector(".empty")?.remove();
    for (const child of body) child.hidden = false;
    const s = station(entry.name);
    legend.hidden = !s.profile;
    if (stationSeen !== s || keysSeen !== s.keys) {
      if (stationSeen !== s) table.scrollToTop();
      stationSeen = s;
      rebuild(s);
    } else if (testsMarks() && marksSeen !== s.marks) {
      refilter(); // flags may have changed what the filter lets through
    }
    table.render(); // already in an animation frame: the rows in view, now
  }

  on("points", (name) => {
    if (name === state.selected) pane.schedule();
  });
  setInterval(() => {
    if (pane.visible) table.schedule();
  }, 1000);
  return pane;
}
