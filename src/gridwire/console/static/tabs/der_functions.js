// DER functions: each with whether it is supported and enabled (der.functions, one read),
// an enable switch (der.enable / der.disable, which read back whether it is enabled), and
// its settings with units and ranges, a form that writes them (der.write with verify) and
// the verdict per setting.

import { call, typedNumber } from "../api.js";
import { act, h, lamp, message, replace } from "../dom.js";
import { number } from "../format.js";
import { state } from "../store.js";

export function createFunctions() {
  let name = null;
  const said = message();
  const refresh = h("button", { type: "button" }, "Read again");
  const list = h("div", { class: "der-functions" });
  const el = h("div", null, h("div", { class: "buttons" }, refresh, said), list);
  refresh.addEventListener("click", () => act(refresh, said, () => load(name)));

  async function load(outstation) {
    name = outstation;
    const answer = await call("der.functions", {}, outstation);
    replace(list, answer.functions.map(functionCard));
    const on = answer.functions.filter((f) => f.enabled).length;
    return `${answer.functions.length} functions, ${on} enabled`;
  }

  function functionCard(f) {
    const said = message();
    const toggle = h("input", {
      type: "checkbox",
      role: "switch",
      checked: Boolean(f.enabled),
      disabled: f.supported === false || !state.status?.allow_control,
      "aria-label": `enable ${f.name}`,
      dataset: { function: f.key },
    });
    const enabledLamp = h("span", { class: "enabled-state" }, lamp(f.enabled ? "on" : "off", f.enabled ? "enabled" : "not enabled"), f.enabled ? " enabled" : " not enabled");
    toggle.addEventListener("change", () => {
      const wanted = toggle.checked;
      act(toggle, said, async () => {
        const answer = await call(wanted ? "der.enable" : "der.disable", { function: f.key }, name);
        toggle.checked = Boolean(answer.enabled);
        replace(enabledLamp, lamp(answer.enabled ? "on" : "off"), answer.enabled ? " enabled" : " not enabled");
        const took = answer.accepted ? "accepted" : answer.accepted === false ? "refused" : "not said";
        return `${took}; reads ${answer.enabled ? "enabled" : answer.enabled === false ? "not enabled" : "nothing"}`;
      });
    });
    return h(
      "details",
      { class: "der-function", dataset: { key: f.key } },
      h(
        "summary",
        null,
        h("label", { class: "switch", title: f.supported === false ? "not supported" : "" }, toggle),
        h("strong", null, f.name),
        h("small", { class: "muted" }, ` ${f.key} · enable ${f.enable}`),
        h("span", { class: "supported" }, lamp(f.supported ? "on" : f.supported === false ? "off" : "busy"), f.supported ? " supported" : f.supported === false ? " not supported" : " support not said"),
        enabledLamp,
        said,
      ),
      f.settings.length ? settingsForm(f) : h("p", { class: "muted" }, "no settings"),
    );
  }

  function settingsForm(f) {
    const said = message();
    const inputs = new Map();
    const verdicts = new Map();
    const rows = f.settings.map((s) => {
      const input = s.states
        ? h("select", { "aria-label": s.label }, h("option", { value: "" }, "—"), s.states.map((e) => h("option", { value: e.name }, `${e.value} ${e.name}`)))
        : h("input", { class: "mono", inputmode: "decimal", placeholder: "unchanged", "aria-label": s.label });
      inputs.set(s.address, input);
      const verdict = h("td", { class: "verdict" });
      verdicts.set(s.address, verdict);
      const range = s.minimum === null && s.maximum === null ? "" : `${s.minimum === null ? "" : number(s.minimum)} … ${s.maximum === null ? "" : number(s.maximum)}`;
      return h("tr", null, h("td", null, s.address), h("td", { title: s.name }, s.label), h("td", null, s.units ?? ""), h("td", null, range), h("td", null, input), verdict);
    });
    const write = h("button", { type: "submit", class: "primary" }, "Write and read back");
    const form = h(
      "form",
      { class: "settings" },
      h("div", { class: "scroll-x" }, h("table", { class: "grid" }, h("thead", null, h("tr", null, ["output", "setting", "units", "range", "new value", "read back"].map((t) => h("th", null, t)))), h("tbody", null, rows))),
      h("div", { class: "buttons" }, write, said),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(write, said, async () => {
        const points = {};
        for (const [address, input] of inputs) {
          if (input.value.trim() === "") continue;
          points[address] = input.tagName === "SELECT" ? input.value : typedNumber(input.value);
        }
        if (!Object.keys(points).length) throw new Error("give at least one new value");
        const answer = await call("der.write", { points, verify: true }, name);
        for (const p of answer.points) {
          const back = p.readback ? `${number(p.readback.value)} (${p.readback.quality})` : "not read";
          verdicts.get(p.address).textContent = `${p.status ?? "no status"}; ${back} ${p.matches ? "✓ matches" : p.matches === false ? "✗ differs" : ""}`;
        }
        return answer.verified ? "written and verified" : answer.accepted ? "written; not verified" : "refused";
      });
    });
    return form;
  }

  return { el, load, said };
}
