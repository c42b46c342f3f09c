// The side list: every outstation with its connection lamp, the one chosen, and the Add form.

import { call } from "./api.js";
import { act, field, h, lamp, message, replace } from "./dom.js";
import { on, state } from "./store.js";

const LAMP = { connected: "on", connecting: "busy", disconnected: "off" };

export function createSidebar({ choose }) {
  const list = h("ul", { class: "outstations", "aria-label": "outstations" });
  const form = addForm(choose);
  const el = h("aside", { class: "side" }, h("h2", null, "Outstations"), list, form);

  function render() {
    const outstations = state.status?.outstations ?? [];
    replace(
      list,
      outstations.length
        ? outstations.map((o) =>
            h(
              "li",
              null,
              h(
                "button",
                {
                  type: "button",
                  class: `outstation${o.name === state.selected ? " chosen" : ""}`,
                  dataset: { name: o.name },
                  "aria-current": o.name === state.selected ? "true" : null,
                  onclick: () => choose(o.name),
                },
                lamp(LAMP[o.state] ?? "off", o.state),
                h("span", { class: "name" }, o.name),
                h("small", null, `${where(o)}${o.profile ? " · DER" : ""}`),
              ),
            ),
          )
        : h("li", { class: "muted" }, "none yet"),
    );
  }
  on("status", render);
  on("select", render);
  return { el };
}

// Where an outstation is reached: its host and port, or its channel and link address.
export function where(o) {
  return o.channel ? `${o.channel} · address ${o.outstation_address}` : `${o.host}:${o.port}`;
}

function addForm(choose) {
  const name = h("input", { name: "name", required: true, placeholder: "bench1" });
  const host = h("input", { name: "host", required: true, value: "127.0.0.1" });
  const port = h("input", { name: "port", type: "number", min: 1, max: 65535, required: true, value: 20000 });
  const outstationAddress = h("input", { name: "outstation_address", type: "number", min: 0, max: 65519, value: 1024 });
  const masterAddress = h("input", { name: "master_address", type: "number", min: 0, max: 65519, value: 1 });
  const channels = h("datalist", { id: "channel-names" });
  const channel = h("input", { name: "channel", list: "channel-names", placeholder: "none: host and port" });
  on("status", () =>
    replace(channels, (state.status?.channels ?? []).map((c) => h("option", { value: c.name }, c.where))),
  );
  const profile = h("input", { name: "profile", type: "checkbox" });
  const manual = h("input", { name: "manual", type: "checkbox" });
  const said = message();
  const submit = h("button", { type: "submit", class: "primary" }, "Add");
  const form = h(
    "form",
    { class: "add-form", "aria-label": "add an outstation" },
    h("h3", null, "Add"),
    field("Name", name),
    field("Host", host),
    field("Port", port),
    h(
      "details",
      null,
      h("summary", null, "More"),
      field("Channel (instead of host and port)", channel),
      channels,
      field("Outstation address", outstationAddress),
      field("Master address", masterAddress),
      h("label", { class: "check" }, profile, " IEEE 1815.2 DER profile"),
      h("label", { class: "check" }, manual, " Manual (send nothing unasked)"),
    ),
    submit,
    said,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = {
      name: name.value.trim(),
      host: host.value.trim(),
      port: Number(port.value),
      outstation_address: Number(outstationAddress.value),
      master_address: Number(masterAddress.value),
    };
    if (channel.value.trim()) {
      params.channel = channel.value.trim();
      delete params.host;
      delete params.port;
    }
    if (profile.checked) params.profile = "ieee1815.2";
    if (manual.checked) params.manual = true;
    act(submit, said, async () => {
      await call("add", params);
      choose(params.name);
      name.value = "";
      return `added ${params.name}`;
    });
  });
  return form;
}
