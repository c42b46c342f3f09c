// The console page: the side list of outstations, the tabs for the one chosen, the token
// prompt, and the one event stream. Start-up: token from the address, `status` (asking for
// the token when refused), the stream, then the chosen outstation's state.

import { takeToken } from "./api.js";
import { h, lamp, replace } from "./dom.js";
import { askToken } from "./prompt.js";
import { createSidebar } from "./sidebar.js";
import { emit, on, outstationStatus, state } from "./store.js";
import { startStream, stopStream } from "./stream.js";
import { handleEvent, loadStation, refreshStatus, resync } from "./sync.js";
import * as commands from "./tabs/commands.js";
import * as der from "./tabs/der.js";
import * as evaluate from "./tabs/evaluate.js";
import * as events from "./tabs/events.js";
import * as files from "./tabs/files.js";
import * as log from "./tabs/log.js";
import * as overview from "./tabs/overview.js";
import * as points from "./tabs/points.js";
import * as requests from "./tabs/requests.js";
import * as traffic from "./tabs/traffic.js";

const TAB_MODULES = [overview, points, commands, events, traffic, requests, files, der, evaluate, log];
const tabs = [];
let current = null;
let started = false;

const nav = h("nav", { class: "tabs", role: "tablist" });
const panes = h("div", { class: "panes" });
const title = h("span", { class: "title" });
const control = h("span", { class: "badge" });
const streamLamp = h("span", { class: "stream" });
const banner = h("div", { class: "banner", role: "alert", hidden: true });

function route() {
  const [, name, tab] = window.location.hash.match(/^#\/([^/]*)\/?([^/]*)/) ?? [];
  return { name: name ? decodeURIComponent(name) : null, tab: tab || "overview" };
}

function setRoute(name, tab) {
  const hash = `#/${encodeURIComponent(name ?? "")}/${tab}`;
  if (window.location.hash !== hash) window.history.replaceState(window.history.state, "", hash);
}

function choose(name, load = true) {
  if (state.selected !== name) {
    state.selected = name;
    emit("select", name);
    if (load && name && outstationStatus(name)) loadStation(name);
  }
  setRoute(name, current?.id ?? "overview");
  current?.show();
}

function openTab(id, argument) {
  const tab = tabs.find((t) => t.id === id) ?? tabs[0];
  if (current && current !== tab) current.hide();
  current = tab;
  for (const t of tabs) {
    t.button.setAttribute("aria-selected", String(t === tab));
    t.el.hidden = t !== tab;
  }
  setRoute(state.selected, tab.id);
  tab.show(argument);
}

function renderHeader() {
  const s = state.status;
  title.textContent = state.selected ? state.selected : "no outstation chosen";
  control.textContent = s ? (s.allow_control ? "control allowed" : "read-only") : "";
  control.title = s ? (s.allow_control ? "started with --allow-control: this console may send controls to the outstations" : "started without --allow-control: nothing that commands an outstation is sent") : "";
  control.className = `badge ${s?.allow_control ? "control" : ""}`;
  const entry = outstationStatus(state.selected);
  const on = Object.keys(entry?.deviations ?? {});
  banner.hidden = on.length === 0;
  if (on.length) {
    replace(banner, h("strong", null, "Deviations on: "), on.join(", "), " — the master is breaking these protocol rules on purpose.");
  }
}

// The Events and Traffic tabs carry how many events and frames the page holds.
const COUNTED = { events: (s) => s.events.length, traffic: (s) => s.frames.length };
let countsPending = false;

function renderCounts() {
  countsPending = false;
  const s = state.selected ? state.stations.get(state.selected) : null;
  for (const tab of tabs) {
    const count = COUNTED[tab.id];
    if (!count) continue;
    const text = s ? String(count(s)) : "";
    if (tab.count.textContent !== text) tab.count.textContent = text;
    tab.count.hidden = !s;
  }
}

function scheduleCounts() {
  if (countsPending) return;
  countsPending = true;
  requestAnimationFrame(renderCounts);
}

function renderStream() {
  const shown = { live: "on", reconnecting: "busy", connecting: "busy", closed: "off" }[state.stream] ?? "off";
  replace(streamLamp, lamp(shown, `event stream ${state.stream}`), ` ${state.stream}`);
}

function layout() {
  const ctx = { go: openTab };
  for (const module of TAB_MODULES) {
    const tab = module.create(ctx);
    tab.needs = module.needs ?? [];
    tab.count = COUNTED[tab.id] ? h("span", { class: "tab-count", hidden: true }) : null;
    tab.button = h("button", { type: "button", role: "tab", id: `tab-${tab.id}`, hidden: tab.needs.length > 0, onclick: () => openTab(tab.id) }, tab.title, tab.count);
    tab.el.hidden = true;
    tab.el.setAttribute("role", "tabpanel");
    tab.el.classList.add("pane", `pane-${tab.id}`);
    nav.append(tab.button);
    panes.append(tab.el);
    tabs.push(tab);
  }
  const sidebar = createSidebar({ choose });
  document.getElementById("app").replaceChildren(
    h("header", { class: "top" }, h("span", { class: "brand" }, "gridwire"), title, control, streamLamp),
    banner,
    h("div", { class: "shell" }, sidebar.el, h("main", { class: "main" }, nav, panes)),
  );
  on("status", () => {
    const names = state.status.outstations.map((o) => o.name);
    if (started && !names.includes(state.selected)) choose(names[0] ?? null);
    renderHeader();
  });
  on("select", renderHeader);
  on("schema", (schema) => {
    // A tab whose operations this service does not have is not offered.
    for (const tab of tabs) tab.button.hidden = !tab.needs.every((op) => schema.operations.includes(op));
  });
  on("stream", renderStream);
  renderStream();
  for (const topic of ["events", "frames", "select", "resynced"]) on(topic, scheduleCounts);
  setInterval(scheduleCounts, 1000); // a Clear empties a list without telling anyone
}

async function loadSchema() {
  try {
    const response = await fetch("openapi.json", { cache: "no-cache" });
    const document = await response.json();
    const schemas = document.components.schemas;
    state.schema = {
      operations: Object.keys(document.paths)
        .filter((p) => p.startsWith("/api/"))
        .map((p) => p.slice(5)),
      functions: schemas.RequestParams?.properties?.function?.enum ?? [],
      deviations: schemas.DeviateParams?.properties?.deviations?.propertyNames?.enum ?? [],
    };
    emit("schema", state.schema);
  } catch (error) {
    console.warn("the OpenAPI document could not be read", error);
  }
}

async function start(refused = false) {
  const wanted = route();
  for (;;) {
    try {
      await refreshStatus();
      break;
    } catch (error) {
      if (error.kind !== "token") throw error;
      await askToken(refused);
      refused = true;
    }
  }
  started = true;
  const names = state.status.outstations.map((o) => o.name);
  // The chosen outstation is read once the stream is open, so nothing falls between.
  choose(names.includes(wanted.name) ? wanted.name : names[0] ?? null, false);
  openTab(wanted.tab);
  openStream();
}

function openStream() {
  startStream({
    onEvent: handleEvent,
    onResync: (why) => (why ? resync(why) : state.selected && loadStation(state.selected)),
    onClosed: () => restartStream(),
  });
}

// A closed stream: the service went, or stopped taking the token. `status` tells which.
async function restartStream() {
  try {
    await refreshStatus();
  } catch (error) {
    if (error.kind === "token") return; // the token prompt takes over
  }
  openStream();
}

on("token-refused", () => {
  if (!started || document.getElementById("token-dialog")) return;
  started = false;
  stopStream();
  askToken(true).then(() => start(true));
});

takeToken();
layout();
loadSchema();
start().catch((error) => {
  replace(panes, h("p", { class: "msg error" }, `The console could not start: ${error.message}`));
});

// Exposed for the browser tests and the bench: what the page holds (to read, not to change).
window.gridwire = { state };
