// A switch per deviation (a protocol rule the master breaks on purpose) and "all off".
// `locked()` says when the switches may not be touched (while an evaluation runs).

import { call } from "./api.js";
import { act, h, message, replace } from "./dom.js";
import { on, outstationStatus, state } from "./store.js";
import { refreshStatus } from "./sync.js";

export function deviationsPanel({ locked = () => false } = {}) {
  const list = h("div", { class: "switches" });
  const said = message();
  const allOff = h("button", { type: "button" }, "All off");
  const el = h("div", { class: "deviations" }, list, h("div", { class: "buttons" }, allOff), said);

  async function set(changes) {
    const name = state.selected;
    const result = await call("deviate", { deviations: changes }, name);
    await refreshStatus();
    const now = Object.keys(result.deviations);
    return now.length ? `on: ${now.join(", ")}` : "all off";
  }

  allOff.addEventListener("click", () => {
    const on = Object.keys(outstationStatus(state.selected)?.deviations ?? {});
    act(allOff, said, () => set(Object.fromEntries(on.map((k) => [k, false]))));
  });

  function render() {
    const names = state.schema?.deviations ?? [];
    const current = outstationStatus(state.selected)?.deviations ?? {};
    const lock = locked();
    allOff.disabled = lock || Object.keys(current).length === 0;
    replace(
      list,
      names.map((name) => {
        const box = h("input", { type: "checkbox", role: "switch", checked: name in current, disabled: lock, dataset: { deviation: name } });
        box.addEventListener("change", () => act(null, said, () => set({ [name]: box.checked })));
        return h("label", { class: "switch" }, box, h("span", null, name.replaceAll("_", " ")));
      }),
    );
  }
  on("status", render);
  on("select", render);
  on("schema", render);
  return { el, render };
}
