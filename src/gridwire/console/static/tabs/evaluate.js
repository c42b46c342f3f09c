// Evaluate: the checks by set with their writes/deviates marks (deviation checks offered
// only once allowed), settle and curves, Run, progress and rows filled live from `check`
// events, the report (summary; per check detail, notes and a link to its frames in
// Traffic), cancel, the report as JSON, HTML and JUnit, and the deviations panel, locked
// while an evaluation runs.

import { call } from "../api.js";
import { act, field, h, message, replace } from "../dom.js";
import { deviationsPanel } from "../deviations.js";
import { REPORT_FORMATS, downloadReport } from "../report.js";
import { dateTime } from "../format.js";
import { on, state } from "../store.js";
import { createGrid } from "./evaluate_grid.js";
import { createPane, profiledOutstation } from "./pane.js";

export const needs = ["checks", "evaluate", "evaluation", "cancel_evaluation", "report"];

// The choice of checks, settle, curves and deviations, kept across reloads; and whether the
// results are shown as a grid or a table.
const SAVED = "gridwire.evaluate";
const VIEW = "gridwire.evaluate.view";

function saved() {
  try {
    return JSON.parse(window.localStorage.getItem(SAVED) ?? "null");
  } catch {
    return null;
  }
}

// What a result's "detail" column says: the check's own words, else what it did.
function detailOf(r) {
  const did = r.requests !== undefined ? `${r.requests} request${r.requests === 1 ? "" : "s"}${r.seconds !== undefined ? ` in ${r.seconds} s` : ""}` : "";
  if (r.detail) return did ? `${r.detail} (${did})` : r.detail;
  return did || "no detail given";
}

export function create(ctx) {
  let checks = [];
  let running = null; // the outstation an evaluation of this page runs against
  let results = new Map(); // id -> result, as events and the report bring them
  let live = new Set(); // ids whose result came by a check event
  let report = null;
  let shownFor = null;
  let hearing = null; // {name, heard}: check events of `name` while its status is asked
  const allowDeviations = h("input", { type: "checkbox", name: "allow_deviations" });
  const settle = h("input", { type: "number", name: "settle", min: 0.1, step: "any", value: 5 });
  const curves = h("input", { type: "number", name: "curves", min: 1, step: 1, placeholder: "found" });
  const remembered = saved();
  if (remembered) {
    if (remembered.settle) settle.value = remembered.settle;
    if (remembered.curves) curves.value = remembered.curves;
    allowDeviations.checked = Boolean(remembered.allow_deviations);
  }
  function remember() {
    const choice = { checks: chosen(), settle: settle.value, curves: curves.value, allow_deviations: allowDeviations.checked };
    try {
      window.localStorage.setItem(SAVED, JSON.stringify(choice));
    } catch {
      // storage refused (private window): the choice lasts this page only
    }
  }
  const list = h("div", { class: "check-list" });
  const run = h("button", { type: "button", class: "primary" }, "Run");
  const cancel = h("button", { type: "button", disabled: true }, "Cancel");
  const said = message();
  const progress = h("progress", { max: 1, value: 0 });
  const progressText = h("span", { class: "muted" });
  const summary = h("div", { class: "summary" });
  const downloads = h("div", { class: "buttons downloads" });
  const rows = h("tbody");
  const grid = createGrid({ go: ctx.go, rerun: (ids) => runChecks(ids), busy: () => running !== null });
  const table = h("table", { class: "grid results" }, h("thead", null, h("tr", null, ["check", "title", "verdict", "detail", "notes", "frames"].map((t) => h("th", null, t)))), rows);
  const views = h(
    "div",
    { class: "segments result-views", role: "group", "aria-label": "results as" },
    [["table", "Table"], ["grid", "Grid"]].map(([id, label]) => h("button", { type: "button", class: "segment", dataset: { view: id } }, label)),
  );
  let view = "table";
  try {
    view = window.localStorage.getItem(VIEW) === "grid" ? "grid" : "table";
  } catch {
    // storage refused: the table
  }
  function showView() {
    table.hidden = view !== "table";
    grid.el.hidden = view !== "grid";
    for (const b of views.children) {
      b.classList.toggle("chosen", b.dataset.view === view);
      b.setAttribute("aria-pressed", String(b.dataset.view === view));
    }
  }
  views.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-view]");
    if (!button) return;
    view = button.dataset.view;
    try {
      window.localStorage.setItem(VIEW, view);
    } catch {
      // the choice lasts this page only
    }
    showView();
  });
  showView();
  const deviations = deviationsPanel({ locked: () => running !== null });
  const layoutEl = h(
    "div",
    { class: "evaluate" },
    h(
      "div",
      { class: "evaluate-setup" },
      h("div", { class: "inline" }, h("label", { class: "check" }, allowDeviations, " allow deviations"), field("Settle (s)", settle), field("Curves", curves), run, cancel),
      said,
    ),
    // the results above the list of checks, so a run's rows are seen without scrolling
    h(
      "div",
      { class: "evaluate-results" },
      h("div", { class: "inline" }, progress, progressText, views),
      summary,
      downloads,
      grid.el,
      table,
    ),
    h("div", { class: "evaluate-checks" }, list, h("h3", null, "Deviations"), deviations.el),
  );
  const pane = createPane("evaluate", "Evaluate", render);

  allowDeviations.addEventListener("change", () => {
    renderChecks();
    remember();
  });
  settle.addEventListener("change", remember);
  curves.addEventListener("change", remember);
  list.addEventListener("change", (event) => {
    const { set, in: member } = event.target.dataset ?? {};
    const boxes = (name) => [...list.querySelectorAll(`input[data-check][data-in='${name}']:not(:disabled)`)];
    if (set) for (const box of boxes(set)) box.checked = event.target.checked;
    if (member) list.querySelector(`input[data-set='${member}']`).checked = boxes(member).every((b) => b.checked);
    remember();
  });

  function chosen() {
    return [...list.querySelectorAll("input[data-check]:checked:not(:disabled)")].map((b) => b.dataset.check);
  }

  run.addEventListener("click", () => runChecks(chosen()));

  // An evaluation of `ids` with the settle, curves and deviations chosen above.
  function runChecks(ids) {
    const name = state.selected;
    if (!ids.length) {
      said.className = "msg error";
      said.textContent = "choose at least one check";
      return;
    }
    const params = { checks: ids, allow_deviations: allowDeviations.checked, settle: Number(settle.value) };
    if (curves.value) params.curves = Number(curves.value);
    start(name, ids.length);
    act(run, said, async () => {
      try {
        const answer = await call("evaluate", params, name);
        finish(answer);
        const s = answer.summary;
        return `${s.passed} passed, ${s.failed} failed, ${s.not_applicable} not applicable, ${s.not_run} not run`;
      } finally {
        stopped();
      }
    });
  }
  cancel.addEventListener("click", () =>
    act(cancel, said, async () => {
      const answer = await call("cancel_evaluation", {}, running);
      return answer.cancelled ? `cancelling after ${answer.current ?? "the check under way"}` : "nothing was running";
    }),
  );

  function start(name, total) {
    running = name;
    results = new Map();
    live = new Set();
    report = null;
    progress.max = total;
    progress.value = 0;
    progressText.textContent = `0 of ${total}`;
    replace(summary);
    replace(downloads);
    renderRows();
    run.disabled = true;
    cancel.disabled = false;
    deviations.render();
  }

  function stopped() {
    running = null;
    run.disabled = false;
    cancel.disabled = true;
    deviations.render();
    renderRows();
  }

  function finish(answer) {
    report = answer;
    for (const r of answer.results) results.set(r.id, r);
    progress.max = answer.results.length || 1;
    progress.value = answer.results.length;
    progressText.textContent = `${answer.results.length} of ${answer.results.length}, started ${answer.started ? dateTime(Date.parse(answer.started)) : "?"}`;
    const s = answer.summary;
    replace(
      summary,
      ["passed", "failed", "not_applicable", "not_run"].map((v) => h("span", { class: `badge verdict-${v}` }, `${s[v]} ${v.replace("_", " ")}`)),
    );
    replace(
      downloads,
      REPORT_FORMATS.map(([format, suffix, label]) => download(answer.outstation, format, suffix, label)),
    );
    renderRows();
  }

  // The service writes the file (operation `report`); the button saves what it answers.
  function download(outstation, format, suffix, label) {
    const button = h("button", { type: "button", dataset: { download: suffix } }, label);
    button.addEventListener("click", () => act(button, said, () => downloadReport(outstation, format)));
    return button;
  }

  function renderRows() {
    const order = checks.length ? checks.map((c) => c.id) : [...results.keys()];
    const shown = order.filter((id) => results.has(id));
    for (const id of results.keys()) if (!shown.includes(id)) shown.push(id);
    grid.render(shown.map((id) => results.get(id)));
    replace(
      rows,
      shown.map((id) => {
        const r = results.get(id);
        const frames = r.frames ? h("button", { type: "button", class: "row-action", onclick: () => ctx.go("traffic", { frames: { from: r.frames[0], to: r.frames[1] } }) }, `frames ${r.frames[0]}-${r.frames[1]}`) : "";
        return h(
          "tr",
          { class: `verdict-${r.verdict}`, dataset: { check: id, live: live.has(id) ? "yes" : "no" } },
          h("td", null, id),
          h("td", null, r.title),
          h("td", null, h("span", { class: `badge verdict-${r.verdict}` }, r.verdict.replace("_", " "))),
          h("td", { class: `wrap detail${r.detail ? "" : " muted"}`, dataset: { detail: "" } }, detailOf(r)),
          h("td", { class: "wrap notes" }, r.notes.join("\n")),
          h("td", { class: "frames" }, frames),
        );
      }),
    );
  }

  function renderChecks() {
    const bySet = new Map();
    for (const c of checks) {
      if (!bySet.has(c.set)) bySet.set(c.set, []);
      bySet.get(c.set).push(c);
    }
    const restored = !list.children.length && remembered?.checks?.length;
    const previous = new Set(restored ? remembered.checks : chosen());
    const first = previous.size === 0;
    replace(
      list,
      [...bySet].map(([set, members]) => {
        const items = members.map((c) => {
          const disabled = c.deviates && !allowDeviations.checked;
          const box = h("input", { type: "checkbox", dataset: { check: c.id, in: set }, checked: !disabled && (first || previous.has(c.id)), disabled });
          return [box, h(
            "label",
            { class: "check check-item", title: disabled ? "a deviation check: allow deviations first" : "" },
            box,
            ` ${c.id} `,
            h("span", { class: "muted" }, c.title),
            c.writes ? h("span", { class: "mark", title: "writes to the outstation" }, " ✎ writes") : null,
            c.deviates ? h("span", { class: "mark deviates", title: "breaks a protocol rule on purpose" }, " ⚠ deviates") : null,
          )];
        });
        const usable = items.filter(([box]) => !box.disabled);
        const whole = h("input", { type: "checkbox", dataset: { set }, checked: usable.length > 0 && usable.every(([box]) => box.checked), disabled: usable.length === 0 });
        return h("fieldset", { class: "check-set" }, h("legend", null, h("label", { class: "check" }, whole, ` ${set} (${members.length})`)), items.map(([, label]) => label));
      }),
    );
  }

  async function loadFor(name) {
    shownFor = name;
    // A check event heard while the status is asked is newer than the status's answer.
    const heard = new Map();
    hearing = { name, heard };
    let status;
    try {
      if (!checks.length) {
        checks = (await call("checks")).checks;
        renderChecks();
      }
      // What an evaluation of this outstation is doing, or did (a page opened mid-run).
      status = await call("evaluation", {}, name);
    } finally {
      if (hearing?.heard === heard) hearing = null;
    }
    if (shownFor !== name || running === name) return;
    results = new Map([...status.results.map((r) => [r.id, r]), ...heard]);
    live = new Set(heard.keys());
    if (status.state === "finished" && status.report) {
      finish(status.report);
      if (heard.size) {
        for (const [id, r] of heard) results.set(id, r); // a later run's, over the report's
        renderRows();
      }
    } else {
      replace(summary);
      replace(downloads);
      progress.max = status.total || 1;
      progress.value = status.done;
      progressText.textContent = status.state === "running" ? `${status.done} of ${status.total}, at ${status.current ?? "…"} (started elsewhere)` : "no evaluation yet";
      renderRows();
    }
  }

  on("check", (data) => {
    if (hearing?.name === data.outstation) hearing.heard.set(data.result.id, data.result);
    if (data.outstation !== state.selected) return;
    results.set(data.result.id, data.result);
    live.add(data.result.id);
    if (running === data.outstation) {
      progress.value = results.size;
      progressText.textContent = `${results.size} of ${progress.max}: ${data.result.id} ${data.result.verdict}`;
    }
    renderRows();
  });

  function render() {
    const entry = profiledOutstation(pane, "an evaluation checks an IEEE 1815.2 DER");
    if (!entry) return;
    if (layoutEl.parentNode !== pane.el) replace(pane.el, layoutEl);
    deviations.render();
    if (shownFor !== entry.name) {
      loadFor(entry.name).catch((error) => {
        said.className = "msg error";
        said.textContent = `${error.kind ?? "error"}: ${error.message}`;
      });
    }
  }
  return pane;
}
