// Traffic: the frames sent and received, live, with filters and a pause; a frame chosen is
// read layer by layer (link, transport, application, objects) beside its octets shaded by
// layer; the frames kept are saved as a pcap file (`capture`).

import { call } from "../api.js";
import { act, h, message, options, replace } from "../dom.js";
import { clock } from "../format.js";
import { decodeFrame } from "../dnp3.js";
import { on, outstationStatus, state, station } from "../store.js";
import { VirtualRows, put } from "../vtable.js";
import { clearButton, createPane, noOutstation } from "./pane.js";

const LAYER_NAMES = { link: "link header", crc: "link CRC", transport: "transport", app: "application header", objects: "objects", unread: "not read" };

// The summary without its direction and link words unless they are all there is: the
// application layer is what a person scans for.
export function shortSummary(f) {
  const parts = f.summary.replace(/^(sent|received) /, "").split(" | ");
  if (f.dropped || parts.length === 1) return parts.join(" | ");
  const addresses = parts[0].match(/\d+->\d+/)?.[0] ?? "";
  const rest = parts.slice(1).filter((p) => !(p.startsWith("TR ") && p.includes("FIR")));
  return [addresses.replace("->", "→"), ...rest].join("  ");
}

function matches(summary, words) {
  const tokens = summary.toLowerCase().split(/[\s|]+/);
  return words.every((w) => tokens.some((t) => t.startsWith(w)));
}

export function create() {
  let paused = null; // the frames shown when pause was pressed
  let direction = "all";
  let words = []; // each must begin a word of the summary: CONFIRM is not UNCONFIRMED
  let range = null; // {from, to}: only frames with ids in it (a check's frames)
  const dir = h("select", { "aria-label": "direction" }, options([["all", "sent and received"], ["sent", "sent"], ["received", "received"]], direction));
  const filter = h("input", { type: "search", class: "filter", placeholder: "words of the summary: READ, UNSOLICITED, IIN, dropped…", "aria-label": "filter frames" });
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
  const detail = h("div", { class: "frame-detail", "aria-label": "frame decoded" }, h("p", { class: "muted" }, "Choose a frame to read it layer by layer."));
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
  const bar = h("div", { class: "toolbar" }, dir, filter, pause, clear, save, rangeNote, count, said);
  const split = h("div", { class: "traffic" }, table.el, detail);
  const pane = createPane("traffic", "Traffic", render, ["frames"]);
  pane.el.append(bar, split);

  dir.addEventListener("change", () => {
    direction = dir.value;
    render();
  });
  filter.addEventListener("input", () => {
    words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
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

  function showFrame(f) {
    const { layers, shade, problems, octets } = decodeFrame(f.hex);
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
            ? layer.items.map((item) => h("details", { open: layer.items.length <= 4 }, h("summary", null, item.title), h("ul", null, item.lines.map((l) => h("li", null, l)))))
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
    for (let i = frames.length - 1; i >= 0; i -= 1) {
      const f = frames[i];
      if (direction !== "all" && f.direction !== direction) continue;
      if (range && (f.id < range.from || f.id > range.to)) continue;
      if (words.length && !matches(f.summary, words)) continue;
      shown.push(f);
    }
    count.textContent = `${shown.length} of ${frames.length}${paused ? " (paused)" : ""}`;
    table.setItems(shown);
  }

  on("select", () => {
    paused = null;
    pause.textContent = "Pause";
  });
  const show = pane.show;
  pane.show = (argument) => {
    if (argument?.frames) range = argument.frames;
    show();
  };
  return pane;
}
