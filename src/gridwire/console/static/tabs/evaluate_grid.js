// Evaluation as a grid: a tile per check coloured by its verdict (amber where a restore
// failed or the run ended before the check could run); a tile clicked opens a full-width
// panel under its row with the detail, the notes and a timeline of the check's requests and
// responses (the frames the evaluation recorded for it); "Run the failed ones again" starts
// an evaluation of those checks only.

import { call } from "../api.js";
import { h, replace } from "../dom.js";
import { clock, number, plural } from "../format.js";
import { state, station } from "../store.js";
import { shortSummary } from "./traffic.js";

const TIMELINE_MAX = 400;

// A tile's colour: the verdict, or amber for a restore that failed or a check an
// interrupted run left unrun (its result cannot be trusted either way).
export function tone(r) {
  if ((r.notes ?? []).some((n) => /^restore failed/i.test(n))) return "amber";
  if (r.interrupted) return "amber";
  return r.verdict;
}

// The checks "Run the failed ones again" runs: those failed, and those an interrupted run
// left unrun.
export const failedOnes = (results) => results.filter((r) => r.verdict === "failed" || (r.verdict === "not_run" && r.interrupted)).map((r) => r.id);

const TONE_WORDS = { amber: "needs a look", passed: "passed", failed: "failed", not_applicable: "not applicable", not_run: "not run" };

export function createGrid({ go, rerun, busy }) {
  let results = [];
  let openId = null;
  const again = h("button", { type: "button", class: "rerun", title: "an evaluation of the checks that failed and of those an interrupted run left unrun, with the settings above" }, "Run the failed ones again");
  const legend = h("div", { class: "grid-legend muted" }, Object.entries(TONE_WORDS).map(([t, word]) => h("span", { class: `tone-key tone-${t}` }, word)));
  const tiles = h("div", { class: "check-grid", role: "list" });
  const panel = h("section", { class: "check-panel", "aria-label": "check detail" });
  const el = h("div", { class: "evaluate-grid" }, h("div", { class: "buttons" }, again, legend), tiles);
  again.addEventListener("click", () => rerun(failedOnes(results)));

  tiles.addEventListener("click", (event) => {
    if (event.target.closest(".check-panel")) return;
    const tile = event.target.closest(".check-tile");
    if (!tile) return;
    openId = openId === tile.dataset.check ? null : tile.dataset.check;
    render(results);
  });

  function render(list) {
    results = list;
    const failed = failedOnes(list);
    again.disabled = failed.length === 0 || busy();
    again.textContent = failed.length ? `Run the failed ones again (${failed.length})` : "Run the failed ones again";
    replace(
      tiles,
      list.map((r) => {
        const t = tone(r);
        return h(
          "button",
          { type: "button", class: `check-tile tone-${t}`, role: "listitem", "aria-expanded": String(r.id === openId), dataset: { check: r.id, tone: t }, title: `${r.id} ${r.title}: ${TONE_WORDS[t]}` },
          h("strong", null, r.id),
          h("span", { class: "tile-title" }, r.title),
          h("span", { class: "tile-verdict" }, t === "amber" ? `${r.verdict.replace("_", " ")} · ${r.interrupted ? "run ended" : "restore failed"}` : TONE_WORDS[t]),
        );
      }),
    );
    const open = list.find((r) => r.id === openId);
    if (!open) {
      openId = null;
      panel.remove();
      return;
    }
    fillPanel(open);
    // Under the row of the tile: after the last tile that sits on the same line.
    const chosen = tiles.querySelector(`.check-tile[data-check='${CSS.escape(open.id)}']`);
    let after = chosen;
    for (let next = chosen.nextElementSibling; next && next.offsetTop === chosen.offsetTop; next = next.nextElementSibling) after = next;
    after.after(panel);
  }

  function fillPanel(r) {
    const close = h("button", { type: "button", class: "close", "aria-label": "close" }, "✕");
    close.addEventListener("click", () => {
      openId = null;
      render(results);
    });
    const timeline = h("div", { class: "timeline" }, h("p", { class: "muted" }, r.frames ? "…" : "This check sent no request."));
    const traffic = r.frames ? h("button", { type: "button", class: "row-action", onclick: () => go("traffic", { frames: { from: r.frames[0], to: r.frames[1] } }) }, `open frames ${r.frames[0]}-${r.frames[1]} in Traffic`) : null;
    replace(
      panel,
      h("div", { class: "panel-head" }, h("strong", null, `${r.id} ${r.title}`), h("span", { class: `badge verdict-${r.verdict}` }, r.verdict.replace("_", " ")), h("span", { class: "muted" }, `${plural(r.requests ?? 0, "request")} in ${number(r.seconds ?? 0)} s`), traffic, close),
      h("div", { class: "panel-body" }, h("section", null, h("h4", null, "Detail"), h("p", { class: "wrap detail" }, r.detail || "no detail given"), h("h4", null, "Notes"), r.notes?.length ? h("ul", { class: "notes" }, r.notes.map((n) => h("li", null, n))) : h("p", { class: "muted" }, "no notes")), h("section", null, h("h4", null, "Requests and responses"), timeline)),
    );
    if (r.frames) framesOf(r.frames).then((frames) => drawTimeline(timeline, frames), (error) => replace(timeline, h("p", { class: "msg error" }, `the frames could not be read: ${error.message}`)));
  }

  // The check's frames: from the page's list, or from the master's trace when the page no
  // longer holds them (cleared, or pushed out by newer frames).
  async function framesOf([from, to]) {
    const held = station(state.selected).frames.filter((f) => f.id >= from && f.id <= to);
    if (held.length === to - from + 1) return held;
    const answer = await call("trace", { after: from - 1 }, state.selected);
    return answer.frames.filter((f) => f.id <= to);
  }

  function drawTimeline(target, frames) {
    if (!frames.length) {
      replace(target, h("p", { class: "muted" }, "The master no longer holds these frames."));
      return;
    }
    // One entry per application fragment: the later segments of a fragment (and link
    // frames) are counted on the entry they belong to.
    const entries = [];
    for (const f of frames) {
      const said = shortSummary(f);
      const last = entries[entries.length - 1];
      if (last && last.f.direction === f.direction && /^(segment |link )/.test(said)) last.more += 1;
      else entries.push({ f, said, more: 0 });
    }
    const t0 = frames[0].time_ms;
    replace(
      target,
      h(
        "ol",
        { class: "timeline-list" },
        entries.slice(0, TIMELINE_MAX).map(({ f, said, more }) =>
          h(
            "li",
            { class: `timeline-item ${f.direction}`, dataset: { frame: f.id } },
            h("span", { class: "t", title: clock(f.time_ms) }, `+${number(Math.round(f.time_ms - t0))} ms`),
            h("span", { class: "who" }, f.direction === "sent" ? "master →" : "← outstation"),
            h("span", { class: "what mono", title: said }, said, more ? h("small", { class: "muted" }, ` (+${plural(more, "segment")})`) : null),
          ),
        ),
      ),
      entries.length > TIMELINE_MAX ? h("p", { class: "muted" }, `… ${entries.length - TIMELINE_MAX} more: open the frames in Traffic`) : null,
    );
  }

  return { el, render };
}
