// Traffic: the frames sent and received, live, with filters and a pause; a frame chosen is
// read layer by layer (link, transport, application, objects) beside its octets shaded by
// layer; the frames kept are saved as a pcap file (`capture`).

import { call } from "../api.js";
import { act, h, message, options, replace } from "../dom.js";
import { clock, number, pointValue } from "../format.js";
import { decodeFragment, decodeFrame, frameSummary } from "../dnp3.js";
import { on, outstationStatus, state, station } from "../store.js";
import { VirtualRows, put } from "../vtable.js";
import { clearButton, createPane, noOutstation } from "./pane.js";
import { createLadder } from "./traffic_ladder.js";

const LAYER_NAMES = { link: "link header", crc: "link CRC", transport: "transport", app: "application header", objects: "objects", unread: "not read" };

// What a person scans for, read from the frame itself: the application function, IIN and
// each object header with its range ("READ g30v0 533-556"), kept on the frame once made.
export function shortSummary(f) {
  if (f.shown === undefined) {
    let said;
    try {
      said = frameSummary(f.hex);
    } catch {
      said = f.summary.replace(/^(sent|received) /, "");
    }
    f.shown = f.dropped ? `dropped: ${f.dropped} · ${said}` : said;
  }
  return f.shown;
}

// The frame's words for the filter: what the page shows (the link layer's own words, as
// UNCONFIRMED_USER_DATA, would let CONFIRM match every frame).
const searched = (f) => (f.searched ??= shortSummary(f).toLowerCase());

// Each word is found anywhere in the summary: OPERATE finds DIRECT_OPERATE.
function matches(f, words) {
  const text = searched(f);
  return words.every((w) => text.includes(w));
}

// A frame that carries the start of an application fragment (a link frame or a later
// segment does not).
const opensFragment = (f) => !f.dropped && !/^(link |segment |not a frame)/.test(shortSummary(f));

// Which kind of point an object group carries, to find its name in the profile.
const POINT_TYPE = { 1: "bi", 2: "bi", 3: "dbi", 4: "dbi", 10: "bo", 11: "bo", 12: "bo", 20: "counter", 22: "counter", 21: "frozen", 23: "frozen", 30: "ai", 31: "ai", 32: "ai", 33: "ai", 34: "ai", 40: "ao", 41: "ao", 42: "ao", 43: "ao" };

// An object's line with the point's name and its value in engineering units, from the profile.
function namedLine(line, item, at, points) {
  const found = item.points?.find((p) => p.line === at);
  const type = POINT_TYPE[item.group];
  const meta = found && type ? points.get(`${type}:${found.index}`) : null;
  if (!meta || !meta.name) return line;
  let valueText = "";
  if (found.value !== null && found.value !== undefined && item.group !== 12 && item.group !== 34) {
    const v = found.value.float !== undefined ? found.value.float : found.value;
    const shown = found.value.float !== undefined ? { text: `${number(v)}${meta.units ? ` ${meta.units}` : ""}`, raw: "" } : pointValue(meta, v);
    valueText = ` = ${shown.text}${shown.raw !== "" && shown.raw !== shown.text ? ` (raw ${shown.raw})` : ""}`;
  }
  return h("span", null, h("strong", { class: "point-name", title: meta.name }, meta.label ?? meta.name), valueText, h("span", { class: "muted" }, ` · ${line}`));
}

export function create() {
  let paused = null; // the frames shown when pause was pressed
  let direction = "all";
  let words = []; // each found anywhere in the summary
  let appOnly = false; // only the frames that open an application fragment
  let range = null; // {from, to}: only frames with ids in it (a check's frames)
  const dir = h("select", { "aria-label": "direction" }, options([["all", "sent and received"], ["sent", "sent"], ["received", "received"]], direction));
  const filter = h("input", { type: "search", class: "filter", placeholder: "any part of the summary: OPERATE, g30, CONFIRM, IIN…", "aria-label": "filter frames" });
  const appBox = h("input", { type: "checkbox", "aria-label": "application layer only" });
  const appLabel = h("label", { class: "check", title: "one row per application fragment; link frames and later segments hidden, a fragment decoded whole" }, appBox, " application layer only");
  const pause = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  const save = h("button", { type: "button" }, "Save as pcap");
  const rangeNote = h("span", { class: "badge", hidden: true });
  const count = h("span", { class: "muted count" });
  const said = message();
  const clear = clearButton("frames", said, (s) => {
    s.frames = [];
    paused = paused ? [] : null;
    render();
  });
  const placeholder = () => h("p", { class: "muted" }, "Choose a frame to read it layer by layer.");
  const detail = h("div", { class: "frame-detail", "aria-label": "frame decoded" }, placeholder());
  let shownFrame = null; // the frame the detail pane decodes
  const table = new VirtualRows({
    className: "vt-frames",
    columns: [{ title: "id", cls: "num" }, { title: "time" }, { title: "" }, { title: "octets", cls: "num" }, { title: "summary" }],
    fill(cells, f, row) {
      put(cells[0], f.id);
      put(cells[1], clock(f.time_ms));
      put(cells[2], f.direction === "sent" ? "→" : "←");
      put(cells[3], f.hex.length / 2);
      put(cells[4], shortSummary(f));
      if (cells[4].title !== (f.summary)) cells[4].title = f.summary;
      row.classList.toggle("received", f.direction === "received");
      row.classList.toggle("dropped", Boolean(f.dropped));
    },
    onPick: (f) => showFrame(f),
  });
  // The frames as a list, or as a ladder between the master's and the outstation's lanes.
  let asLadder = false;
  const ladder = createLadder({ onPick: (f) => showFrame(f) });
  ladder.el.hidden = true;
  const views = h("div", { class: "segments traffic-views", role: "group", "aria-label": "frames as" }, [["list", "List"], ["ladder", "Ladder"]].map(([id, label]) => h("button", { type: "button", class: `segment${id === "list" ? " chosen" : ""}`, dataset: { view: id }, "aria-pressed": String(id === "list") }, label)));
  views.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-view]");
    if (!button) return;
    asLadder = button.dataset.view === "ladder";
    for (const b of views.children) {
      b.classList.toggle("chosen", b === button);
      b.setAttribute("aria-pressed", String(b === button));
    }
    table.el.hidden = asLadder;
    ladder.el.hidden = !asLadder;
    split.classList.toggle("ladder-mode", asLadder);
    appLabel.hidden = asLadder; // the ladder draws application fragments only
    render();
  });
  const bar = h("div", { class: "toolbar" }, views, dir, filter, appLabel, pause, clear, save, rangeNote, count, said);
  const split = h("div", { class: "traffic" }, table.el, ladder.el, detail);
  const pane = createPane("traffic", "Traffic", render, ["frames", "exchange"]);
  pane.el.append(bar, split);

  dir.addEventListener("change", () => {
    direction = dir.value;
    render();
  });
  filter.addEventListener("input", () => {
    words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    render();
  });
  appBox.addEventListener("change", () => {
    appOnly = appBox.checked;
    render();
  });
  pause.addEventListener("click", () => {
    paused = paused ? null : station(state.selected).frames.slice();
    pause.textContent = paused ? "Resume" : "Pause";
    pause.setAttribute("aria-pressed", String(Boolean(paused)));
    render();
  });
  rangeNote.addEventListener("click", () => {
    range = null;
    render();
  });
  save.addEventListener("click", () =>
    act(save, said, async () => {
      const name = state.selected;
      const answer = await call("capture", range ? { after: range.from - 1 } : {}, name);
      const octets = Uint8Array.from(atob(answer.pcap), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([octets], { type: "application/vnd.tcpdump.pcap" }));
      const link = h("a", { href: url, download: `${name}-${new Date().toISOString().replaceAll(":", "-").slice(0, 19)}.pcap` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      return `saved ${answer.frames} frames`;
    }),
  );

  // The segments of the fragment `f` opens, in order, while each follows the one before
  // (same direction, next transport sequence) up to the last.
  function fragmentOf(f, decoded) {
    const frames = station(state.selected).frames;
    let at = frames.indexOf(f);
    const parts = [decoded.info.transport.payload];
    let seq = decoded.info.transport.sequence;
    const ids = [f.id];
    while (at >= 0 && at + 1 < frames.length) {
      at += 1;
      const next = frames[at];
      if (next.direction !== f.direction || next.dropped) continue;
      const t = decodeFrame(next.hex).info.transport;
      if (!t || t.fir || t.sequence !== ((seq + 1) & 0x3f)) break;
      parts.push(t.payload);
      ids.push(next.id);
      seq = t.sequence;
      if (t.fin) return { ids, app: Uint8Array.from(parts.flatMap((p) => Array.from(p))) };
    }
    return null;
  }

  function forget() {
    shownFrame = null;
    table.picked = null;
    replace(detail, placeholder());
  }

  function showFrame(f) {
    if (asLadder && shownFrame !== f) {
      shownFrame = f;
      render(); // the ladder marks the message picked
    }
    shownFrame = f;
    const decoded = decodeFrame(f.hex);
    let { layers } = decoded;
    const { shade, problems, octets } = decoded;
    const t = decoded.info.transport;
    const whole = t && t.fir && !t.fin ? fragmentOf(f, decoded) : null;
    if (whole) {
      const fragment = decodeFragment(whole.app);
      layers = [...layers.slice(0, 2), ...fragment.layers];
      problems.push(...fragment.problems);
    }
    const points = station(state.selected).points;
    const hex = h(
      "div",
      { class: "octets", "aria-label": "octets shaded by layer" },
      Array.from(octets, (o, i) => h("span", { class: `o ${shade[i]}`, title: `${i}: ${LAYER_NAMES[shade[i]]}` }, o.toString(16).padStart(2, "0"))),
    );
    const legend = h(
      "div",
      { class: "legend" },
      Object.entries(LAYER_NAMES)
        .filter(([k]) => shade.includes(k))
        .map(([k, label]) => h("span", { class: `o ${k}` }, label)),
    );
    replace(
      detail,
      h("h3", null, `Frame ${f.id} ${f.direction}`, h("small", null, ` ${clock(f.time_ms)}`)),
      h("p", { class: "frame-summary mono" }, shortSummary(f)),
      whole ? h("p", { class: "muted fragment-note" }, `The fragment took frames ${whole.ids[0]}-${whole.ids[whole.ids.length - 1]} (${whole.ids.length} segments): its objects are read whole below.`) : null,
      f.dropped ? h("p", { class: "msg error" }, `dropped: ${f.dropped}`) : null,
      problems.map((p) => h("p", { class: "msg error" }, p)),
      legend,
      hex,
      layers.map((layer) =>
        h(
          "section",
          { class: `layer layer-${layer.name.toLowerCase()}` },
          h("h4", null, layer.name),
          layer.fields ? h("dl", { class: "facts" }, layer.fields.map(([k, v]) => [h("dt", null, k), h("dd", null, v)])) : null,
          layer.items
            ? layer.items.map((item) => h("details", { open: layer.items.length <= 4 }, h("summary", null, item.title), h("ul", null, item.lines.map((l, k) => h("li", null, namedLine(l, item, k, points))))))
            : null,
        ),
      ),
    );
  }

  function render() {
    const entry = outstationStatus(state.selected);
    bar.hidden = split.hidden = !entry;
    pane.el.querySelector(".empty")?.remove();
    if (!entry) {
      pane.el.prepend(noOutstation());
      return;
    }
    const frames = paused ?? station(entry.name).frames;
    rangeNote.hidden = !range;
    if (range) rangeNote.textContent = `frames ${range.from}-${range.to} ✕`;
    const shown = [];
    let keeps = false;
    for (let i = frames.length - 1; i >= 0; i -= 1) {
      const f = frames[i];
      if (direction !== "all" && f.direction !== direction) continue;
      if (range && (f.id < range.from || f.id > range.to)) continue;
      if (words.length && !matches(f, words)) continue;
      if (appOnly && !asLadder && !opensFragment(f)) continue;
      shown.push(f);
      if (f === shownFrame) keeps = true;
    }
    // The pane never keeps a frame the list no longer shows.
    if (shownFrame && !keeps) forget();
    count.textContent = `${shown.length} of ${frames.length}${paused ? " (paused)" : ""}`;
    if (asLadder) ladder.render(shown, shownFrame, entry.name);
    else table.setItems(shown);
  }

  // Summaries are made as frames arrive, a slice at a time when the page is idle, so the
  // first filter over a long list finds them made (D129).
  const waiting = [];
  const idle = window.requestIdleCallback ?? ((fn) => setTimeout(() => fn({ timeRemaining: () => 8 }), 50));
  function warm(deadline) {
    while (waiting.length && deadline.timeRemaining() > 1) {
      for (const f of waiting.splice(0, 200)) shortSummary(f);
    }
    if (waiting.length) idle(warm);
  }
  on("frames", (_name, fresh) => {
    if (!fresh?.length) return;
    if (!waiting.length) idle(warm);
    waiting.push(...fresh);
    if (waiting.length > 40000) waiting.splice(0, waiting.length - 40000);
  });

  on("select", () => {
    paused = null;
    pause.textContent = "Pause";
    forget();
  });
  const show = pane.show;
  pane.show = (argument) => {
    if (argument?.frames) {
      range = argument.frames;
      forget(); // a jump shows other frames: the one decoded before is not among them
    }
    show();
  };
  return pane;
}
