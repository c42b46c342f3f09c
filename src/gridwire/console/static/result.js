// The result card: what an action answered, laid out for reading. An Exchange shows its
// request and response; an operate its controls and exchanges; anything else as JSON.

import { h } from "./dom.js";
import { flags, gv, hexSpaced, ms, number, pointValue, value } from "./format.js";
import { state } from "./store.js";

// An object's value as a person reads it: in its units, or a state's name, where the chosen
// outstation's profile says how (the raw value beside it); as transmitted otherwise.
function objectValue(o) {
  const points = state.selected ? state.stations.get(state.selected)?.points : null;
  const meta = points && o.type && o.index !== null ? points.get(`${o.type}:${o.index}`) ?? null : null;
  const shown = pointValue(meta, o.value);
  return [shown.text, shown.raw !== "" && shown.raw !== shown.text ? h("small", { class: "muted" }, ` raw ${shown.raw}`) : null];
}

export function exchangeCard(x) {
  return h(
    "div",
    { class: "exchange" },
    h(
      "div",
      { class: "exchange-head" },
      h("strong", null, x.function),
      h("span", { class: `badge outcome-${x.outcome}` }, x.outcome),
      h("span", null, `seq ${x.sequence}`),
      h("span", null, `${x.fragments} fragment${x.fragments === 1 ? "" : "s"}`),
      h("span", null, `${x.object_count} objects`),
      h("span", null, ms(x.elapsed_ms)),
      x.retries ? h("span", null, `sent again ${x.retries}×`) : null,
      x.task ? h("span", { class: "badge" }, `task ${x.task}`) : null,
      x.broadcast !== null && x.broadcast !== undefined ? h("span", null, `broadcast 0x${x.broadcast.toString(16)}`) : null,
    ),
    h("div", { class: "indications" }, x.indications.length ? x.indications.map((i) => h("span", { class: "badge iin" }, i)) : h("span", { class: "muted" }, "no indications")),
    h("div", { class: "hex-line" }, h("span", { class: "muted" }, "request "), h("code", null, hexSpaced(x.request))),
    x.undecoded.length ? h("div", { class: "msg error" }, `undecoded: ${JSON.stringify(x.undecoded)}`) : null,
    x.objects.length ? objectsTable(x.objects) : null,
  );
}

const SHOWN = 500;

export function objectsTable(objects) {
  const rows = objects.slice(0, SHOWN).map((o) =>
    h(
      "tr",
      null,
      h("td", null, o.type ?? ""),
      h("td", null, gv(o.group, o.variation)),
      h("td", { class: "num" }, o.index ?? ""),
      h("td", { class: "name", title: o.name ?? "" }, o.name ?? ""),
      h("td", { class: "num" }, objectValue(o)),
      h("td", null, flags(o.flags)),
      h("td", null, o.event ? "event" : "static"),
    ),
  );
  return h(
    "div",
    { class: "scroll-x" },
    h(
      "table",
      { class: "grid" },
      h("thead", null, h("tr", null, ["type", "object", "index", "name", "value", "flags", ""].map((t) => h("th", null, t)))),
      h("tbody", null, rows),
    ),
    objects.length > SHOWN ? h("p", { class: "muted" }, `… ${objects.length - SHOWN} more objects`) : null,
  );
}

function operateCard(r) {
  return h(
    "div",
    null,
    h(
      "div",
      { class: "exchange-head" },
      h("strong", null, `operate (${r.mode})`),
      h("span", { class: `badge ${r.accepted ? "outcome-complete" : r.accepted === false ? "outcome-timeout" : ""}` }, r.accepted === null ? "not said" : r.accepted ? "accepted" : "refused"),
      r.operated ? null : h("span", { class: "badge outcome-timeout" }, "not operated"),
    ),
    h(
      "table",
      { class: "grid" },
      h("thead", null, h("tr", null, ["type", "index", "name", "g", "value", "status", "echoed"].map((t) => h("th", null, t)))),
      h(
        "tbody",
        null,
        r.statuses.map((s) => h("tr", null, h("td", null, s.type), h("td", { class: "num" }, s.index), h("td", { class: "name", title: s.name ?? "" }, s.name ?? ""), h("td", null, `v${s.variation}`), h("td", { class: "num" }, value(s.value)), h("td", null, s.status ?? ""), h("td", null, s.echoed ? "yes" : "no"))),
      ),
    ),
    r.exchanges.map(exchangeCard),
  );
}

function timeCard(r) {
  return h(
    "div",
    null,
    h(
      "div",
      { class: "exchange-head" },
      h("strong", null, "time synchronization"),
      h("span", null, `written: ${r.written}`),
      h("span", null, `accepted: ${r.accepted}`),
      r.delay_ms !== null ? h("span", null, `delay ${number(r.delay_ms)} ms`) : null,
    ),
    r.exchanges.map(exchangeCard),
  );
}

// Fills `target` with the card for `result` of `op`.
export function showResult(target, op, result) {
  target.replaceChildren();
  let body;
  if (result && Array.isArray(result.statuses) && Array.isArray(result.exchanges)) body = operateCard(result);
  else if (result && "written" in result && Array.isArray(result.exchanges)) body = timeCard(result);
  else if (result && typeof result.function === "string" && "outcome" in result) body = exchangeCard(result);
  else body = h("pre", { class: "json" }, JSON.stringify(result, null, 2));
  target.append(h("div", { class: "result-title" }, op), body);
}
