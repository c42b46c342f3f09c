// Requests: requests saved in this browser (name, function code, hex body), sent once or
// every N seconds, edited, deleted. Kept in localStorage: they belong to the person, not to
// the service.

import { call } from "../api.js";
import { act, field, h, message, options, replace } from "../dom.js";
import { hexBody } from "../format.js";
import { showResult } from "../result.js";
import { on, outstationStatus, state } from "../store.js";
import { summary } from "./commands.js";
import { createPane, noOutstation } from "./pane.js";

const KEY = "gridwire.requests";

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(saved) ? saved.filter((r) => r && typeof r.name === "string") : [];
  } catch {
    return [];
  }
}

export function create() {
  let saved = load();
  let editing = null; // the name of the saved request in the form
  let repeater = null;
  const list = h("ul", { class: "saved", "aria-label": "saved requests" });
  const name = h("input", { name: "name", required: true, placeholder: "class 1 events" });
  const fn = h("select", { name: "function" });
  const body = h("input", { name: "body", class: "mono", placeholder: "3c0206" });
  const every = h("input", { type: "number", min: 0.5, step: "any", value: 5, "aria-label": "repeat every seconds" });
  const said = message();
  const result = h("div", { class: "result" });
  const saveButton = h("button", { type: "submit", class: "primary" }, "Save");
  const sendButton = h("button", { type: "button" }, "Send");
  const repeatButton = h("button", { type: "button", "aria-pressed": "false" }, "Repeat");
  const deleteButton = h("button", { type: "button" }, "Delete");
  const newButton = h("button", { type: "button" }, "New");
  const form = h(
    "form",
    { class: "request-form", "aria-label": "request" },
    field("Name", name),
    field("Function", fn),
    field("Body (hex)", body, "the object data after the function code"),
    h("div", { class: "buttons" }, saveButton, sendButton, h("span", { class: "inline" }, repeatButton, " every ", every, " s"), deleteButton, newButton),
    said,
  );
  const layoutEl = h("div", { class: "requests" }, h("div", null, h("h3", null, "Saved in this browser"), list), h("div", null, form, h("h3", null, "Result"), result));
  const pane = createPane("requests", "Requests", render);

  const store = () => localStorage.setItem(KEY, JSON.stringify(saved));
  const fillFunctions = () => replace(fn, options(state.schema?.functions ?? ["READ"], fn.value || "READ"));
  on("schema", fillFunctions);
  fillFunctions();

  function current() {
    return { name: name.value.trim(), function: fn.value, body: hexBody(body.value) };
  }

  function edit(request) {
    editing = request?.name ?? null;
    name.value = request?.name ?? "";
    fn.value = request?.function ?? "READ";
    body.value = request?.body ?? "";
    renderList();
  }

  async function send() {
    const r = current();
    const answer = await call("request", { function: r.function, body: r.body }, state.selected);
    showResult(result, `${r.name || r.function}`, answer);
    return summary(answer);
  }

  function stopRepeat(text) {
    if (repeater) clearInterval(repeater);
    repeater = null;
    repeatButton.textContent = "Repeat";
    repeatButton.setAttribute("aria-pressed", "false");
    if (text) said.textContent = text;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(saveButton, said, async () => {
      const r = current();
      if (!r.name) throw new Error("give the request a name");
      saved = saved.filter((s) => s.name !== r.name && s.name !== editing);
      saved.push(r);
      saved.sort((a, b) => a.name.localeCompare(b.name));
      store();
      editing = r.name;
      renderList();
      return `saved ${r.name}`;
    });
  });
  sendButton.addEventListener("click", () => act(sendButton, said, send));
  repeatButton.addEventListener("click", () => {
    if (repeater) {
      stopRepeat("repeat stopped");
      return;
    }
    const seconds = Number(every.value);
    if (!(seconds >= 0.5)) {
      said.className = "msg error";
      said.textContent = "repeat every 0.5 s or more";
      return;
    }
    let sent = 0;
    let busy = false;
    const tick = async () => {
      if (busy) return; // the last one has not answered: skip a turn, never pile up
      busy = true;
      sent += 1;
      const ok = await act(null, said, async () => `#${sent}: ${await send()}`);
      busy = false;
      if (!ok) stopRepeat();
    };
    repeater = setInterval(tick, seconds * 1000);
    repeatButton.textContent = "Stop";
    repeatButton.setAttribute("aria-pressed", "true");
    tick();
  });
  deleteButton.addEventListener("click", () => {
    if (!editing) return;
    saved = saved.filter((s) => s.name !== editing);
    store();
    edit(null);
  });
  newButton.addEventListener("click", () => edit(null));
  on("select", () => stopRepeat());

  function renderList() {
    replace(
      list,
      saved.length
        ? saved.map((r) =>
            h(
              "li",
              null,
              h(
                "button",
                { type: "button", class: `saved-request${r.name === editing ? " chosen" : ""}`, onclick: () => edit(r) },
                h("strong", null, r.name),
                h("small", null, ` ${r.function} ${r.body}`),
              ),
            ),
          )
        : h("li", { class: "muted" }, "none saved yet"),
    );
  }

  function render() {
    if (!outstationStatus(state.selected)) {
      replace(pane.el, noOutstation());
      return;
    }
    if (layoutEl.parentNode !== pane.el) replace(pane.el, layoutEl);
    renderList();
  }
  return pane;
}
