// What every tab shares: a pane that renders at most once a frame, only while shown, and a
// word for when no outstation is chosen.

import { call } from "../api.js";
import { act, h, replace } from "../dom.js";
import { on, outstationStatus, state, station } from "../store.js";

export function createPane(id, title, render, topics = []) {
  const el = h("section", { "aria-label": title });
  let visible = false;
  let pending = false;
  const schedule = () => {
    if (!visible || pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (visible) render();
    });
  };
  for (const topic of ["status", "select", ...topics]) {
    on(topic, (name) => {
      if (topic === "status" || topic === "select" || name === state.selected) schedule();
    });
  }
  return {
    id,
    title,
    el,
    schedule,
    get visible() {
      return visible;
    },
    show() {
      visible = true;
      render();
    },
    hide() {
      visible = false;
    },
  };
}

export function noOutstation() {
  return h("p", { class: "empty" }, "No outstation chosen: add one in the side list, or choose one there.");
}

export function card(title, ...children) {
  return h("section", { class: "card" }, h("h3", null, title), ...children);
}

// "Clear": the master forgets what it kept (`clear`), then `cleared(station)` forgets it here.
export function clearButton(what, said, cleared) {
  const button = h("button", { type: "button" }, "Clear");
  button.addEventListener("click", () =>
    act(button, said, async () => {
      const name = state.selected;
      const answer = await call("clear", { what }, name);
      cleared(station(name));
      return `${answer.cleared} ${what} forgotten`;
    }),
  );
  return button;
}

// The chosen outstation's status entry when it has a profile; otherwise the pane says why it
// is empty (`what` the tab needs a DER for) and null is returned.
export function profiledOutstation(pane, what) {
  const entry = outstationStatus(state.selected);
  if (!entry) {
    replace(pane.el, noOutstation());
    return null;
  }
  if (!entry.profile) {
    replace(pane.el, h("p", { class: "empty" }, `${entry.name} has no profile: ${what}. Add it with the IEEE 1815.2 profile to use this tab.`));
    return null;
  }
  return entry;
}
