// DER (outstations with a profile): nameplate and monitoring, with a trend; the live screen
// (tiles, sparklines, the curve with the operating point); functions with their enable switch
// and settings; the curve and its editor; the schedule and its editor; the Device Profile. Each
// part is read when first shown for an outstation, and again on its "Read again".

import { h, replace } from "../dom.js";
import { createCurve } from "./der_curve.js";
import { createDocument } from "./der_document.js";
import { createFunctions } from "./der_functions.js";
import { createLive } from "./der_live.js";
import { createReadings } from "./der_readings.js";
import { createSchedule } from "./der_schedule.js";
import { createPane, profiledOutstation } from "./pane.js";

const PARTS = [
  ["readings", "Nameplate and monitoring", createReadings],
  ["live", "Live", createLive],
  ["functions", "Functions", createFunctions],
  ["curve", "Curve", createCurve],
  ["schedule", "Schedule", createSchedule],
  ["document", "Device Profile", createDocument],
];

export const needs = ["der.read", "der.functions", "der.curve", "der.write_curve", "der.enable", "der.disable", "der.write", "der.compare", "der.document", "der.schedule", "der.write_schedule", "der.enable_schedule", "der.disable_schedule"];

export function create() {
  let part = "readings";
  const loadedFor = new Map(); // part -> outstation it was read for
  const parts = new Map(PARTS.map(([id, title, make]) => [id, { id, title, ...make() }]));
  const nav = h(
    "div",
    { class: "segments der-parts", role: "group", "aria-label": "DER parts" },
    PARTS.map(([id, title]) => h("button", { type: "button", class: "segment", dataset: { part: id }, "aria-pressed": "false" }, title)),
  );
  const body = h("div", { class: "der-part" });
  const layoutEl = h("div", { class: "der" }, nav, body);
  const pane = createPane("der", "DER", render);

  nav.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-part]");
    if (!button) return;
    part = button.dataset.part;
    render();
  });

  function render() {
    const entry = profiledOutstation(pane, "the DER operations address an IEEE 1815.2 DER");
    if (!entry) return;
    if (layoutEl.parentNode !== pane.el) replace(pane.el, layoutEl);
    for (const button of nav.children) {
      const chosen = button.dataset.part === part;
      button.classList.toggle("chosen", chosen);
      button.setAttribute("aria-pressed", String(chosen));
    }
    const shown = parts.get(part);
    if (body.firstChild !== shown.el) replace(body, shown.el);
    if (loadedFor.get(part) !== entry.name) {
      loadedFor.set(part, entry.name);
      const said = shown.said;
      said.className = "msg busy";
      said.textContent = "…";
      Promise.resolve(shown.load(entry.name)).then(
        (text) => {
          said.className = "msg ok";
          said.textContent = text ?? "";
        },
        (error) => {
          said.className = "msg error";
          said.textContent = `${error.kind ?? "error"}: ${error.message}`;
        },
      );
    } else shown.shown?.(); // a live part left unseen polls again when it is seen again
  }
  return pane;
}
