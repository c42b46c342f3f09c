// Log: what this page asked (every call, its outcome and time) and what the master did
// unasked (tasks, unsolicited responses, connections), newest first.

import { h, options } from "../dom.js";
import { clock } from "../format.js";
import { on, state } from "../store.js";
import { VirtualRows, put } from "../vtable.js";
import { createPane } from "./pane.js";

export function create() {
  let kind = "all";
  const which = h("select", { "aria-label": "which entries" }, options([["all", "everything"], ["asked", "asked by this page"], ["unasked", "done by the master unasked"], ["page", "the page itself"]], kind));
  const count = h("span", { class: "muted count" });
  const table = new VirtualRows({
    className: "vt-log",
    columns: [{ title: "time" }, { title: "" }, { title: "what" }, { title: "parameters" }],
    fill(cells, e) {
      put(cells[0], clock(e.time));
      put(cells[1], e.kind);
      put(cells[2], e.text);
      put(cells[3], e.detail ?? "");
      if (cells[3].title !== (e.detail ?? "")) cells[3].title = e.detail ?? "";
    },
  });
  const pane = createPane("log", "Log", render, ["log"]);
  pane.el.append(h("div", { class: "toolbar" }, which, count), table.el);
  which.addEventListener("change", () => {
    kind = which.value;
    render();
  });
  on("log", () => pane.schedule());

  function render() {
    const shown = [];
    for (let i = state.log.length - 1; i >= 0; i -= 1) if (kind === "all" || state.log[i].kind === kind) shown.push(state.log[i]);
    count.textContent = `${shown.length} entries`;
    table.setItems(shown);
  }
  return pane;
}
