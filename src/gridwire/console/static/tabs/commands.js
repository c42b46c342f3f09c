// Commands: scans of every kind, repeat, read by type and indexes, operate (with read back),
// time (both procedures), restart, freeze, unsolicited by class, a request by function code
// with a hex body, and the deviations. Each card shows its own outcome or error; the result
// card shows what came back, the exchange laid out.

import { call, typedNumber } from "../api.js";
import { act, field, h, message, options, replace } from "../dom.js";
import { engineering, hexBody, indexList, ms, number, pointValue } from "../format.js";
import { deviationsPanel } from "../deviations.js";
import { showResult } from "../result.js";
import { POINT_TYPES, on, outstationStatus, state, station } from "../store.js";
import { refreshStatus } from "../sync.js";
import { card, createPane, noOutstation } from "./pane.js";

const SCANS = ["integrity", "events", "class0", "class1", "class2", "class3", "outputs"];
const BO_OPERATIONS = ["LATCH_ON", "LATCH_OFF", "PULSE_ON", "PULSE_OFF", "CLOSE_PULSE_ON", "TRIP_PULSE_ON", "NUL"];
const VARIATIONS = {
  bo: [["", "g12v1 (CROB)"]],
  ao: [["", "by the value"], ["1", "g41v1 32-bit integer"], ["2", "g41v2 16-bit integer"], ["3", "g41v3 float"], ["4", "g41v4 double"]],
};

export function summary(result) {
  if (result && typeof result.outcome === "string") {
    const iin = result.indications.length ? `, ${result.indications.join(" ")}` : "";
    return `${result.function} ${result.outcome}, ${result.object_count} objects, ${ms(result.elapsed_ms)}${iin}`;
  }
  return "done";
}

// A value as transmitted is a whole number, sent as an integer; one in engineering units is
// sent as a float, which the service scales by the profile.
function rawValue(text, float) {
  const n = typedNumber(text);
  if (!float && !Number.isInteger(Number(text))) throw new Error(`"${text}" is not a whole number: a value as transmitted is an integer (choose engineering units for a scaled value)`);
  return n;
}

function engineeringValue(text) {
  typedNumber(text);
  return typedNumber(/[.eE]/.test(text) ? text : `${text.trim()}.0`);
}

export function create(ctx) {
  const result = h("div", { class: "result", "aria-label": "result", "aria-live": "polite" }, h("p", { class: "muted" }, "The answer to a command shows here."));

  // Runs `op` for the chosen outstation; its outcome goes to `said`, its answer to the card.
  // `params` may be a function, read as the action starts (its errors shown in `said`).
  function run(button, said, op, params, describe = summary) {
    return act(button, said, async () => {
      const answer = await call(op, typeof params === "function" ? params() : params, state.selected);
      showResult(result, op, answer);
      return describe(answer);
    });
  }

  function simple(label, op, params, describe) {
    const said = message();
    const button = h("button", { type: "button", dataset: { op } }, label);
    button.addEventListener("click", () => run(button, said, op, params, describe));
    return [button, said];
  }

  function form(label, fields, op, params) {
    const said = message();
    const button = h("button", { type: "submit" }, label);
    const el = h("form", { class: "inline" }, fields, button, said);
    el.addEventListener("submit", (event) => {
      event.preventDefault();
      run(button, said, op, params);
    });
    return el;
  }

  // Scans
  const scanSaid = message();
  const scanButtons = SCANS.map((kind) => {
    const b = h("button", { type: "button", dataset: { scan: kind } }, kind);
    b.addEventListener("click", () => run(b, scanSaid, "scan", { kind }));
    return b;
  });

  // Repeat
  const repeatKind = h("select", { "aria-label": "scan to repeat" }, options(SCANS, "integrity"));
  const repeatEvery = h("input", { type: "number", min: 0.1, step: "any", value: 10, "aria-label": "seconds between scans" });
  const repeatSaid = message();
  const describeSchedules = (r) => {
    refreshStatus().catch(() => {});
    const entries = Object.entries(r.schedules);
    return entries.length ? entries.map(([k, s]) => `${k} every ${s} s`).join(", ") : "no scan on a schedule";
  };
  const repeatStart = h("button", { type: "button" }, "Start");
  repeatStart.addEventListener("click", () => run(repeatStart, repeatSaid, "repeat", { kind: repeatKind.value, interval: Number(repeatEvery.value) }, describeSchedules));
  const repeatStop = h("button", { type: "button" }, "Stop this one");
  repeatStop.addEventListener("click", () => run(repeatStop, repeatSaid, "repeat", { kind: repeatKind.value }, describeSchedules));
  const repeatAll = h("button", { type: "button" }, "Stop all");
  repeatAll.addEventListener("click", () => run(repeatAll, repeatSaid, "repeat", {}, describeSchedules));

  // Read
  const readType = h("select", { "aria-label": "point type" }, options(POINT_TYPES, "ai"));
  const readIndexes = h("input", { value: "0-9", "aria-label": "indexes", placeholder: "0-9, 12" });
  const readForm = form("Read", [field("Type", readType), field("Indexes", readIndexes, "0-9, 12 or ranges a-b")], "read", () => ({
    points: { [readType.value]: indexList(readIndexes.value) },
  }));

  // Operate
  const opType = h("select", { name: "type", "aria-label": "output type" }, options([["bo", "binary output (bo)"], ["ao", "analog output (ao)"]], "bo"));
  const opIndex = h("input", { name: "index", type: "number", min: 0, max: 65535, value: 0, required: true });
  const opOperation = h("select", { name: "operation" }, options(BO_OPERATIONS, "LATCH_ON"));
  const opValue = h("input", { name: "value", value: "0", inputmode: "decimal" });
  const opVariation = h("select", { name: "variation" });
  const opMode = h("select", { name: "mode" }, options([["select", "select, then operate"], ["direct", "direct operate"], ["direct_no_ack", "direct, no acknowledgment"]], "select"));
  // What the value typed is: as transmitted, or in the point's engineering units (which the
  // service scales by the profile). Said, not guessed from a decimal point.
  const opScale = h("select", { name: "scale", "aria-label": "value is" }, options([["raw", "as transmitted (raw)"], ["engineering", "in engineering units"]], "raw"));
  const opSends = h("small", { class: "sends", "aria-live": "polite" });
  const opReadBack = h("input", { type: "checkbox", name: "readback", checked: true });
  const opSaid = message();
  const opButton = h("button", { type: "submit", class: "primary" }, "Operate");
  const boOnly = field("Operation", opOperation);
  const aoOnly = h("span", { class: "ao-value" }, field("Value", opValue), field("Value is", opScale), opSends);
  const opForm = h(
    "form",
    { class: "inline operate", "aria-label": "operate" },
    field("Output", opType),
    field("Index", opIndex),
    boOnly,
    aoOnly,
    field("Variation", opVariation),
    field("Mode", opMode),
    h("label", { class: "check" }, opReadBack, " read back"),
    opButton,
    opSaid,
  );
  const syncOperate = () => {
    const bo = opType.value === "bo";
    boOnly.hidden = !bo;
    aoOnly.hidden = bo;
    replace(opVariation, options(VARIATIONS[opType.value], ""));
    showSends();
  };
  // The analog output's profile entry: its name, units and scaling (null without a profile).
  const aoMeta = () => (state.selected && outstationStatus(state.selected)?.profile ? station(state.selected).points.get(`ao:${Number(opIndex.value)}`) ?? null : null);
  function showSends() {
    const meta = aoMeta();
    const scaled = Boolean(meta) && (meta.multiplier !== 1 || meta.offset !== 0);
    opScale.options[1].disabled = !meta;
    if (!meta && opScale.value === "engineering") opScale.value = "raw";
    opScale.title = meta ? "" : "no profile for this outstation: values go as transmitted";
    const n = Number(opValue.value.trim());
    if (opValue.value.trim() === "" || !Number.isFinite(n)) {
      opSends.textContent = "";
      return;
    }
    const units = meta?.units ? ` ${meta.units}` : "";
    const named = meta?.label ? `${meta.label}: ` : "";
    if (opScale.value === "raw" && !Number.isInteger(n) && !["3", "4"].includes(opVariation.value)) {
      opSends.textContent = `${named}a value as transmitted is a whole number`;
      return;
    }
    if (opScale.value === "engineering") {
      const raw = Math.round((n - meta.offset) / meta.multiplier);
      opSends.textContent = `${named}${number(n)}${units} is sent as ${raw}`;
    } else {
      opSends.textContent = `${named}sends ${number(n)}${scaled ? `, which is ${number(engineering(meta, Math.round(n)))}${units}` : units ? ` (${units.trim()})` : ""}`;
    }
  }
  opType.addEventListener("change", syncOperate);
  for (const input of [opIndex, opValue]) input.addEventListener("input", showSends);
  opScale.addEventListener("change", showSends);
  opVariation.addEventListener("change", showSends);
  syncOperate();
  opForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const type = opType.value;
    const index = Number(opIndex.value);
    act(opButton, opSaid, async () => {
      const v = type === "bo" ? opOperation.value : opScale.value === "engineering" ? engineeringValue(opValue.value) : rawValue(opValue.value, ["3", "4"].includes(opVariation.value));
      const params = { points: { [type]: { [String(index)]: v } }, mode: opMode.value };
      if (opVariation.value) params.variation = Number(opVariation.value);
      const answer = await call("operate", params, state.selected);
      showResult(result, "operate", answer);
      const statuses = answer.statuses.map((s) => s.status ?? "no status").join(", ");
      let said = `${answer.accepted === null ? "not said" : answer.accepted ? "accepted" : "refused"}: ${statuses}`;
      if (opReadBack.checked && answer.operated) {
        const back = await call("read", { points: { [type]: [index] } }, state.selected);
        const found = back.objects.find((o) => o.type === type && o.index === index);
        const shown = found ? pointValue(outstationStatus(state.selected)?.profile ? station(state.selected).points.get(`${type}:${index}`) ?? null : null, found.value) : null;
        said += found ? `; read back ${shown.text}${shown.raw !== "" ? ` (raw ${shown.raw})` : ""}` : "; not in the read back";
        showResult(result.appendChild(h("div")), "read back", back);
      }
      return said;
    });
  });

  // Time, restart, freeze
  const procedure = h("select", { "aria-label": "procedure" }, options([["lan", "LAN (record current time)"], ["non_lan", "non-LAN (delay measure)"]], "lan"));
  const timeSaid = message();
  const syncButton = h("button", { type: "button" }, "Synchronize");
  syncButton.addEventListener("click", () => run(syncButton, timeSaid, "synchronize_time", { procedure: procedure.value }, (r) => `written ${r.written}, accepted ${r.accepted}${r.delay_ms !== null ? `, delay ${r.delay_ms} ms` : ""}`));
  const writeTime = h("button", { type: "button" }, "Write time");
  writeTime.addEventListener("click", () => run(writeTime, timeSaid, "write_time", {}));

  const restartSaid = message();
  const restart = (kind) => {
    const b = h("button", { type: "button" }, `${kind} restart`);
    b.addEventListener("click", () => {
      if (window.confirm(`Send a ${kind} restart to ${state.selected}?`)) run(b, restartSaid, "restart", { kind });
    });
    return b;
  };
  const clearRestart = h("button", { type: "button" }, "Clear restart");
  clearRestart.addEventListener("click", () => run(clearRestart, restartSaid, "clear_restart", {}));

  const freezeClear = h("input", { type: "checkbox" });
  const freezeNoAck = h("input", { type: "checkbox" });
  const [freezeButton, freezeSaid] = simple("Freeze counters", "freeze", () => ({ clear: freezeClear.checked, no_ack: freezeNoAck.checked }));

  // Unsolicited
  const classes = [1, 2, 3].map((n) => h("input", { type: "checkbox", checked: true, value: n, "aria-label": `class ${n}` }));
  const chosenClasses = () => classes.filter((c) => c.checked).map((c) => Number(c.value));
  const [enableButton, unsolSaid] = simple("Enable", "enable_unsolicited", () => ({ classes: chosenClasses() }));
  const disableButton = h("button", { type: "button" }, "Disable");
  disableButton.addEventListener("click", () => run(disableButton, unsolSaid, "disable_unsolicited", { classes: chosenClasses() }));

  // Request by function code
  const fn = h("select", { "aria-label": "function code" });
  const body = h("input", { class: "mono", placeholder: "object data as hex, e.g. 3c0206", "aria-label": "hex body" });
  const requestForm = form("Send", [field("Function", fn), field("Body", body, "after the function code")], "request", () => ({
    function: fn.value,
    body: hexBody(body.value),
  }));
  const fillFunctions = () => replace(fn, options(state.schema?.functions ?? ["READ"], fn.value || "READ"));
  on("schema", fillFunctions);
  fillFunctions();

  const deviations = deviationsPanel();

  const cards = h(
    "div",
    { class: "command-cards" },
    card("Scan", h("div", { class: "buttons" }, scanButtons), scanSaid),
    card("Repeat", h("div", { class: "inline" }, field("Scan", repeatKind), field("Every (s)", repeatEvery), repeatStart, repeatStop, repeatAll), repeatSaid),
    card("Read", readForm),
    card("Operate", opForm),
    card("Time", h("div", { class: "inline" }, field("Procedure", procedure), syncButton, writeTime), timeSaid),
    card("Restart", h("div", { class: "buttons" }, restart("cold"), restart("warm"), clearRestart), restartSaid),
    card("Freeze", h("div", { class: "inline" }, h("label", { class: "check" }, freezeClear, " and clear"), h("label", { class: "check" }, freezeNoAck, " no acknowledgment"), freezeButton), freezeSaid),
    card("Unsolicited", h("div", { class: "inline" }, classes.map((c, i) => h("label", { class: "check" }, c, ` class ${i + 1}`)), enableButton, disableButton), unsolSaid),
    card("Request by function code", requestForm),
    card("Deviations", deviations.el),
  );
  const layoutEl = h("div", { class: "commands" }, cards, h("div", { class: "result-column" }, h("h3", null, "Result"), result));
  const pane = createPane("commands", "Commands", render);

  function render() {
    const entry = outstationStatus(state.selected);
    if (!entry) {
      replace(pane.el, noOutstation());
      return;
    }
    if (layoutEl.parentNode !== pane.el) replace(pane.el, layoutEl);
    deviations.render();
  }

  const show = pane.show;
  pane.show = (argument) => {
    show();
    if (argument?.operate) {
      opType.value = argument.operate.type;
      syncOperate();
      opIndex.value = String(argument.operate.index);
      opForm.scrollIntoView({ block: "center" });
      (argument.operate.type === "bo" ? opOperation : opValue).focus();
    }
  };
  return pane;
}
