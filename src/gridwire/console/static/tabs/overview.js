// Overview: the connection, the device attributes (group 0, read on asking), requests by
// outcome, points by type, events, what the master does unasked, the 16 IIN bits, and the
// deviations on.

import { call } from "../api.js";
import { act, h, lamp, message, replace } from "../dom.js";
import { age, clock, dateTime } from "../format.js";
import { IIN_NAMES } from "../dnp3.js";
import { OUTCOMES, POINT_TYPES, outstationStatus, state, station } from "../store.js";
import { card, createPane, noOutstation } from "./pane.js";

const TROUBLE = new Set(["DEVICE_TROUBLE", "FUNC_NOT_SUPPORTED", "OBJECT_UNKNOWN", "PARAMETER_ERROR", "EVENT_BUFFER_OVERFLOW", "CONFIG_CORRUPT", "ALREADY_EXECUTING"]);

export function create() {
  const said = message();
  const attributes = new Map(); // outstation -> the `attributes` answer last read
  const attributesSaid = message();
  const readAttributes = h("button", { type: "button", dataset: { op: "attributes" } }, "Read device attributes");
  const readFrom = (name) =>
    act(readAttributes, attributesSaid, async () => {
      const answer = await call("attributes", {}, name);
      attributes.set(name, answer);
      render();
      return answer.answered ? `${name}: ${answer.attributes.length} attributes` : `${name}: none given`;
    });
  readAttributes.addEventListener("click", () => readFrom(state.selected));
  // The identity is read once by itself when the Overview first shows a connected outstation
  // (never for a manual one: it sends nothing it was not asked to).
  const asked = new Set();
  function readOnce(entry) {
    if (entry.manual || entry.state !== "connected" || asked.has(entry.name) || attributes.has(entry.name)) return;
    asked.add(entry.name);
    readFrom(entry.name);
  }

  function attributesCard(name) {
    const answer = attributes.get(name);
    let shown;
    if (!answer) shown = h("p", { class: "muted" }, "Not read yet: vendor, model, serial number, versions (DNP3 group 0).");
    else if (!answer.answered)
      shown = h("p", { class: "muted", dataset: { attributes: "none" } }, `The outstation gave none${answer.indications.length ? ` (${answer.indications.join(", ")})` : ""}.`);
    else
      shown = h(
        "dl",
        { class: "facts attributes", dataset: { attributes: String(answer.attributes.length) } },
        [...answer.attributes].sort((a, b) => a.set - b.set || b.variation - a.variation).map((a) => [h("dt", { title: `g0v${a.variation} ${a.data_type}${a.set ? `, set ${a.set}` : ""}` }, a.name), h("dd", { dataset: { attribute: a.key } }, a.text)]),
      );
    return card("Device attributes", shown, h("div", { class: "buttons" }, readAttributes), attributesSaid);
  }
  const pane = createPane("overview", "Overview", render, ["exchange", "points", "events", "frames"]);

  function action(label, op, text) {
    const button = h("button", { type: "button", dataset: { op } }, label);
    button.addEventListener("click", () => {
      const name = state.selected;
      if (op === "remove" && !window.confirm(`Remove ${name}? Its connection is closed and it is forgotten.`)) return;
      act(button, said, async () => {
        await call(op, {}, name);
        return `${name}: ${text}`;
      }).then(() => pane.visible && render());
    });
    return button;
  }
  const connect = action("Connect", "connect", "connected");
  const disconnect = action("Disconnect", "disconnect", "disconnected");
  const buttons = h("div", { class: "buttons" }, connect, disconnect, action("Remove", "remove", "removed"));

  function render() {
    const entry = outstationStatus(state.selected);
    if (!entry) {
      replace(pane.el, noOutstation());
      return;
    }
    const s = station(entry.name);
    const indications = new Set(s.indications ?? entry.indications);
    const byType = Object.fromEntries(POINT_TYPES.map((t) => [t, 0]));
    let reported = 0;
    let named = 0; // points the profile names
    let namedRead = 0;
    for (const row of s.points.values()) {
      if (row.inProfile) named += 1;
      if (!row.reported) continue;
      byType[row.type] = (byType[row.type] ?? 0) + 1;
      reported += 1;
      if (row.inProfile) namedRead += 1;
    }
    connect.disabled = entry.state !== "disconnected";
    connect.title = connect.disabled ? `already ${entry.state}` : "";
    disconnect.disabled = entry.state === "disconnected";
    readOnce(entry);
    const lastEvent = s.events.length ? s.events[s.events.length - 1] : null;
    replace(
      pane.el,
      h(
        "div",
        { class: "cards" },
        card(
          "Connection",
          h("p", { class: "state-line" }, lamp({ connected: "on", connecting: "busy" }[entry.state] ?? "off", entry.state), ` ${entry.state}`),
          nameplate(attributes.get(entry.name)),
          facts([
            entry.channel
              ? ["channel", channelLine(entry)]
              : ["address", `${entry.host}:${entry.port}${entry.tls ? " (TLS)" : ""}`],
            ["link addresses", `master ${entry.master_address} → outstation ${entry.outstation_address}`],
            ["last response", s.lastResponse ? `${clock(s.lastResponse)} (${age(Date.now() - s.lastResponse)} ago)` : "none seen"],
            ["reconnect", entry.reconnect === null ? "never" : `every ${entry.reconnect} s`],
            ["read retries", String(entry.read_retries)],
            ["manual", entry.manual ? "yes: sends nothing unasked" : "no"],
            ["profile", entry.profile ?? "none"],
            ["last error", entry.last_error ?? "none"],
          ]),
          buttons,
          said,
        ),
        attributesCard(entry.name),
        card(
          "Requests by outcome",
          h("div", { dataset: { counts: "" } }, facts([...OUTCOMES.map((o) => [o, String(s.counts[o] ?? 0)]), ["unsolicited responses", String(s.unsolicited)]])),
          h("p", { class: "muted" }, s.countedByService ? "Counted by the service since it started." : "Counted since this page opened."),
        ),
        card(
          "Points by type",
          reported
            ? h("div", { dataset: { pointsRead: String(reported) } }, facts(POINT_TYPES.filter((t) => byType[t]).map((t) => [t, String(byType[t])])))
            : h("p", { class: "muted", dataset: { pointsRead: "0" } }, "Nothing read yet."),
          // The outstation may serve points its profile does not name (opendnp3 serves as many
          // of every type as its database holds): those read are counted apart.
          h("p", { class: "muted points-of-profile" }, `${reported} points read${s.profile ? `; ${namedRead} of the ${named} the profile names` : ""}.`),
        ),
        card("Events", facts([["held", String(s.events.length)], ["latest", latestText(lastEvent)]])),
        card(
          "What the master does unasked",
          facts(
            Object.entries(entry.tasks).map(([task, value]) => [task.replaceAll("_", " "), Array.isArray(value) ? (value.length ? `classes ${value.join(", ")}` : "off") : value ? "on" : "off"]),
          ),
          h("p", null, h("strong", null, "Due: "), entry.tasks_due.length ? entry.tasks_due.join(", ") : "nothing"),
          h(
            "p",
            null,
            h("strong", null, "Schedules: "),
            Object.keys(entry.schedules).length
              ? Object.entries(entry.schedules)
                  .map(([kind, every]) => `${kind} every ${every} s`)
                  .join(", ")
              : "none",
          ),
        ),
        card(
          "Internal indications",
          h(
            "div",
            { class: "iin-grid" },
            IIN_NAMES.map((name, bit) =>
              h(
                "span",
                { class: `iin-bit${indications.has(name) ? " set" : ""}`, dataset: { iin: name }, title: name },
                lamp(indications.has(name) ? (TROUBLE.has(name) ? "alarm" : "on") : "off", name),
                h("small", null, ` ${bit < 8 ? "IIN1" : "IIN2"}.${bit % 8} `),
                name,
              ),
            ),
          ),
        ),
        card(
          "Deviations",
          Object.keys(entry.deviations).length
            ? facts(Object.entries(entry.deviations).map(([k, v]) => [k, String(v)]))
            : h("p", { class: "muted" }, "none on: the master keeps every protocol rule"),
        ),
      ),
    );
  }
  return pane;
}

export function facts(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
  );
}

// The device's identity at a glance (group 0 attributes of set 0), when read.
const NAMEPLATE = [
  ["maker", "vendor_name"],
  ["model", "product_name"],
  ["serial", "serial_number"],
  ["firmware", "software_version"],
  ["hardware", "hardware_version"],
];

function nameplate(answer) {
  if (!answer?.answered) return null;
  const byKey = new Map(answer.attributes.filter((a) => a.set === 0).map((a) => [a.key, a.text]));
  const known = NAMEPLATE.filter(([, key]) => byKey.has(key));
  if (!known.length) return null;
  return h(
    "p",
    { class: "nameplate", dataset: { nameplate: "" } },
    known.map(([label, key]) => h("span", { dataset: { plate: key } }, h("small", null, `${label} `), byKey.get(key))),
  );
}

// An outstation on a named channel: the channel, where it goes, whether it is open.
function channelLine(entry) {
  const channel = (state.status?.channels ?? []).find((c) => c.name === entry.channel);
  if (!channel) return entry.channel;
  return `${channel.name}: ${channel.where}${channel.half_duplex ? ", half-duplex" : ""}, ${channel.open ? "open" : "closed"}`;
}

// When the latest event came: received by the page, else the outstation's time, else when the
// page read the master's list (an event with no time of its own, as opendnp3 sends by default).
function latestText(e) {
  if (!e) return "none";
  const at = e.received ?? e.time_ms;
  if (at !== null && at !== undefined) return dateTime(at);
  return e.readAt ? `no time of its own; read ${dateTime(e.readAt)}` : "no time of its own";
}
