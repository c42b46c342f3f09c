// DER functions: each with whether it is supported and enabled (der.functions, one read),
// an enable switch (der.enable / der.disable, which read back whether it is enabled), and
// its settings. A card that opens reads its settings' outputs and their mirror inputs
// (der.read, one request): each setting shows its present value in its units, its range,
// and after a write (der.write with verify) what was sent for what was asked ("sent 10 for
// 1 %") and what the mirror reads back. The header's count follows every enable.

import { call, typedNumber } from "../api.js";
import { act, h, lamp, message, replace } from "../dom.js";
import { number, plural } from "../format.js";
import { state } from "../store.js";

// A reading of der.read as a person reads it: the state's name, or the value in its units.
export function reading(p) {
  if (!p || p.value === null || p.value === undefined) return "not reported";
  if (p.state) return p.state;
  if (typeof p.value === "boolean") return p.value ? "on" : "off";
  return `${number(p.value)}${p.units ? ` ${p.units}` : ""}`;
}

const rawNote = (p) => (p && p.raw !== null && p.raw !== undefined && p.raw !== p.value ? `raw ${p.raw}` : "");

export function createFunctions() {
  let name = null;
  let functions = [];
  const said = message();
  const refresh = h("button", { type: "button" }, "Read again");
  const list = h("div", { class: "der-functions" });
  const el = h("div", null, h("div", { class: "buttons" }, refresh, said), list);
  refresh.addEventListener("click", () => act(refresh, said, () => load(name)));

  const headline = () => `${plural(functions.length, "function")}, ${functions.filter((f) => f.enabled).length} enabled`;

  async function load(outstation) {
    name = outstation;
    const answer = await call("der.functions", {}, outstation);
    functions = answer.functions;
    replace(list, functions.map(functionCard));
    return headline();
  }

  function enabledText(enabled) {
    return enabled ? " enabled" : enabled === false ? " not enabled" : " not read";
  }

  function functionCard(f) {
    const cardSaid = message();
    const toggle = h("input", {
      type: "checkbox",
      role: "switch",
      checked: Boolean(f.enabled),
      disabled: f.supported === false || !state.status?.allow_control,
      "aria-label": `enable ${f.name}`,
      dataset: { function: f.key },
    });
    const enabledLamp = h("span", { class: "enabled-state" }, lamp(f.enabled ? "on" : "off", f.enabled ? "enabled" : "not enabled"), enabledText(f.enabled));
    toggle.addEventListener("change", () => {
      const wanted = toggle.checked;
      act(toggle, cardSaid, async () => {
        const answer = await call(wanted ? "der.enable" : "der.disable", { function: f.key }, name);
        f.enabled = answer.enabled;
        toggle.checked = Boolean(answer.enabled);
        replace(enabledLamp, lamp(answer.enabled ? "on" : "off"), enabledText(answer.enabled));
        said.className = "msg ok";
        said.textContent = headline();
        const took = answer.accepted ? "accepted" : answer.accepted === false ? "refused" : "not said";
        return `${took}; reads ${answer.enabled ? "enabled" : answer.enabled === false ? "not enabled" : "nothing"}`;
      });
    });
    const settings = f.settings.length ? settingsForm(f) : null;
    const card = h(
      "details",
      { class: "der-function", dataset: { key: f.key } },
      h(
        "summary",
        { title: f.settings.length ? "open to read and write its settings" : "" },
        h("span", { class: "chevron", "aria-hidden": "true" }, "▸"),
        h("label", { class: "toggle-switch", title: f.supported === false ? "not supported" : "enable or disable the function" }, toggle, h("span", { class: "track", "aria-hidden": "true" })),
        h("strong", null, f.name),
        h("small", { class: "muted" }, ` ${f.key} · enable ${f.enable}`),
        h("span", { class: "supported" }, lamp(f.supported ? "on" : f.supported === false ? "off" : "busy"), f.supported ? " supported" : f.supported === false ? " not supported" : " support not said"),
        enabledLamp,
        h("span", { class: "muted settings-count" }, f.settings.length ? plural(f.settings.length, "setting") : "no settings"),
        cardSaid,
      ),
      settings ? settings.form : h("p", { class: "muted" }, "no settings"),
    );
    card.addEventListener("toggle", () => {
      if (card.open && settings) settings.readPresent();
    });
    return card;
  }

  function settingsForm(f) {
    const formSaid = message();
    const rows = new Map(); // address -> {input, present, sent, back}
    const body = f.settings.map((s) => {
      const input = s.states
        ? h("select", { "aria-label": s.label }, h("option", { value: "" }, "—"), s.states.map((e) => h("option", { value: e.name }, `${e.value} ${e.name}`)))
        : h("input", { class: "mono", inputmode: "decimal", placeholder: "", "aria-label": s.label });
      const cells = { input, present: h("td", { class: "num present" }, "…"), sent: h("td", { class: "sent" }), back: h("td", { class: "verdict" }) };
      rows.set(s.address, { setting: s, ...cells });
      const low = s.minimum === null ? "" : number(s.minimum);
      const high = s.maximum === null ? "" : number(s.maximum);
      const range = s.minimum === null && s.maximum === null ? "" : `${low} … ${high}${s.units ? ` ${s.units}` : ""}`;
      const step = s.multiplier !== 1 ? `sent in steps of ${number(s.multiplier)}${s.units ? ` ${s.units}` : ""}` : "";
      return h(
        "tr",
        { dataset: { address: s.address } },
        h("td", null, s.address),
        h("td", { class: "setting", title: s.name }, s.label),
        cells.present,
        h("td", { class: "range", title: step }, range),
        h("td", null, input),
        cells.sent,
        cells.back,
      );
    });
    const write = h("button", { type: "submit", class: "primary" }, "Write and read back");
    const reread = h("button", { type: "button" }, "Read present values");
    const form = h(
      "form",
      { class: "settings" },
      h("p", { class: "muted hint" }, "Values are in the setting's units (engineering); the service divides by the point's multiplier and sends the nearest whole number."),
      h("div", { class: "scroll-x" }, h("table", { class: "grid" }, h("thead", null, h("tr", null, ["output", "setting", "present", "range", "new value", "sent", "mirror reads"].map((t) => h("th", null, t)))), h("tbody", null, body))),
      h("div", { class: "buttons" }, write, reread, formSaid),
    );
    reread.addEventListener("click", () => act(reread, formSaid, readPresent));

    // One der.read of every setting's output and mirror: the present value and the mirror.
    async function readPresent() {
      const names = [];
      for (const { setting } of rows.values()) names.push(setting.address, ...(setting.mirror ? [setting.mirror] : []));
      const answer = await call("der.read", { names }, name);
      const byAddress = new Map(answer.points.map((p) => [p.address, p]));
      for (const row of rows.values()) {
        const out = byAddress.get(row.setting.address);
        row.present.textContent = reading(out);
        row.present.title = [rawNote(out), out?.quality].filter(Boolean).join(", ");
        if (!row.input.value && row.input.tagName === "INPUT") row.input.placeholder = out && typeof out.value === "number" ? number(out.value) : "";
        const mirror = row.setting.mirror ? byAddress.get(row.setting.mirror) : null;
        if (!row.back.dataset.written) showMirror(row, mirror, null);
      }
      return `read ${plural(answer.points.length, "point")}`;
    }

    function showMirror(row, mirror, matches) {
      const verdict = matches === true ? " ✓ matches" : matches === false ? " ✗ differs" : "";
      if (!row.setting.mirror) {
        row.back.textContent = "no mirror input";
        return;
      }
      const raw = rawNote(mirror);
      row.back.textContent = `${row.setting.mirror} ${reading(mirror)}${raw ? ` (${raw})` : ""}${mirror?.quality && mirror.quality !== "good" ? ` · ${mirror.quality}` : ""}${verdict}`;
    }

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(write, formSaid, async () => {
        const points = {};
        for (const [address, row] of rows) {
          if (row.input.value.trim() === "") continue;
          points[address] = row.input.tagName === "SELECT" ? row.input.value : typedNumber(row.input.value);
        }
        if (!Object.keys(points).length) throw new Error("give at least one new value");
        const answer = await call("der.write", { points, verify: true }, name);
        for (const p of answer.points) {
          const row = rows.get(p.address);
          const units = p.units ? ` ${p.units}` : "";
          const asked = typeof p.requested === "number" ? `${number(p.requested)}${units}` : String(p.requested);
          row.sent.textContent = p.sent === null ? `sent ${number(p.sent_value)}${units} (float) for ${asked}` : `sent ${p.sent} for ${asked}`;
          row.sent.title = `status ${p.status ?? "not said"}${p.echoed ? ", echoed" : ""}`;
          row.sent.classList.toggle("refused", p.status !== "SUCCESS");
          row.back.dataset.written = "1";
          showMirror(row, p.readback ? { ...p.readback, units: p.units } : null, p.matches);
          if (!p.readback && row.setting.mirror) row.back.textContent = `${row.setting.mirror} not reported`;
          row.input.value = "";
        }
        await readPresent();
        const wrote = plural(answer.points.length, "setting");
        return answer.verified ? `${wrote} written and verified` : answer.accepted ? `${wrote} written; ${answer.verified === false ? "the mirror differs" : "no mirror to verify"}` : "refused";
      });
    });
    return { form, readPresent };
  }

  return { el, load, said };
}

