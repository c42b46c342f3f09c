// Events: every event received, newest first: polled (read by a request or a task),
// unsolicited, or earlier (already held when the page read them); a filter; clear.

import { h, message, options } from "../dom.js";
import { clock, dateTime, flags, gv, plural, pointValue } from "../format.js";
import { on, outstationStatus, state, station } from "../store.js";
import { VirtualRows, put } from "../vtable.js";
import { clearButton, createPane, noOutstation } from "./pane.js";

export function create() {
  let source = "all";
  let words = "";
  const filter = h("input", { type: "search", class: "filter", placeholder: "type, index or words of the name", "aria-label": "filter events" });
  const sources = h("select", { "aria-label": "source" }, options([["all", "polled and unsolicited"], ["polled", "polled"], ["unsolicited", "unsolicited"], ["earlier", "held before the page read them"]], source));
  const said = message();
  const clear = clearButton("events", said, (s) => {
    s.events = [];
    render();
  });
  const count = h("span", { class: "muted count" });
  const table = new VirtualRows({
    className: "vt-events",
    columns: [{ title: "received" }, { title: "source" }, { title: "type" }, { title: "index", cls: "num" }, { title: "name" }, { title: "value", cls: "num value" }, { title: "raw", cls: "num raw" }, { title: "flags" }, { title: "outstation time" }, { title: "object" }],
    fill(cells, e) {
      const shown = pointValue(station(state.selected).points.get(`${e.type}:${e.index}`) ?? null, e.value);
      put(cells[0], e.received ? clock(e.received) : "");
      put(cells[1], e.source);
      put(cells[2], e.type);
      put(cells[3], e.index);
      put(cells[4], e.name ?? "");
      if (cells[4].title !== (e.name ?? "")) cells[4].title = e.name ?? "";
      put(cells[5], shown.text);
      put(cells[6], shown.raw);
      put(cells[7], flags(e.flags));
      put(cells[8], e.time_ms ? dateTime(e.time_ms) : "");
      put(cells[9], gv(e.group, e.variation));
    },
  });
  const bar = h("div", { class: "toolbar" }, filter, sources, clear, count, said);
  const pane = createPane("events", "Events", render, ["events"]);
  pane.el.append(bar, table.el);

  filter.addEventListener("input", () => {
    words = filter.value.trim().toLowerCase();
    render();
  });
  sources.addEventListener("change", () => {
    source = sources.value;
    render();
  });
  function matches(e) {
    if (source !== "all" && e.source !== source) return false;
    if (!words) return true;
    return words.split(/\s+/).every((w) => (/^\d+$/.test(w) ? e.index === Number(w) : e.type === w || (e.name ?? "").toLowerCase().includes(w)));
  }

  function render() {
    const entry = outstationStatus(state.selected);
    bar.hidden = table.el.hidden = !entry;
    pane.el.querySelector(".empty")?.remove();
    if (!entry) {
      pane.el.prepend(noOutstation());
      return;
    }
    const events = station(entry.name).events;
    const shown = [];
    for (let i = events.length - 1; i >= 0; i -= 1) if (matches(events[i])) shown.push(events[i]);
    count.textContent = `${shown.length} of ${events.length}`;
    table.setItems(shown);
  }
  on("resynced", () => pane.visible && render());
  return pane;
}
