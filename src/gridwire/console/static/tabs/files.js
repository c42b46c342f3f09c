// Files: the outstation's files (IEEE 1815 group 70) through file.list, file.read and, only
// when the service allows control, file.write and file.delete. An answer is `ok` whatever the
// outstation said: a transfer that is not complete is shown as an error with its status (and
// whether it was aborted), never as success (D239).

import { call } from "../api.js";
import { act, field, h, message, replace } from "../dom.js";
import { dateTime, plural } from "../format.js";
import { outstationStatus, state } from "../store.js";
import { card, createPane, noOutstation } from "./pane.js";

export const needs = ["file.list", "file.read"];

const TEXT_SHOWN = 64 * 1024; // characters of a text file shown
const HEX_SHOWN = 512; // octets of any other file shown in hex

// What a FileResult says, in words; a transfer that did not complete is thrown, so that the
// place it was asked shows it as an error.
export function outcome(result) {
  const words = [`${result.operation} ${result.path}: ${result.complete ? "complete" : "not complete"}`, result.status];
  if (result.message) words.push(result.message);
  if (result.aborted === true) words.push("aborted on the outstation");
  if (result.aborted === false) words.push("the abort was not answered SUCCESS");
  return words.join(", ");
}

function checked(result) {
  if (!result.complete) throw new Error(outcome(result));
  return result;
}

export function joinPath(folder, name) {
  return `${folder.replace(/\/+$/, "")}/${name}`;
}

export function parentPath(path) {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

export function baseName(path) {
  return path.replace(/\/+$/, "").split("/").pop() || "file";
}

function octets(base64) {
  const text = atob(base64 ?? "");
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// The first octets as `offset  hex  ascii` lines of 16.
export function hexDump(bytes, limit = HEX_SHOWN) {
  const lines = [];
  for (let at = 0; at < Math.min(bytes.length, limit); at += 16) {
    const row = Array.from(bytes.subarray(at, Math.min(at + 16, limit)));
    const hex = row.map((b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(6, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join("\n");
}

// A preview: the text when the octets are UTF-8, else the first octets in hex.
export function preview(bytes) {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    const cut = text.length > TEXT_SHOWN;
    return { kind: "text", text: cut ? text.slice(0, TEXT_SHOWN) : text, note: cut ? `the first ${TEXT_SHOWN} characters` : "text (UTF-8)" };
  } catch {
    const cut = bytes.length > HEX_SHOWN;
    return { kind: "hex", text: hexDump(bytes), note: cut ? `not UTF-8: the first ${HEX_SHOWN} octets in hex` : "not UTF-8: in hex" };
  }
}

export function create() {
  let shownFor = null;
  let saveUrl = null;
  const pathInput = h("input", { type: "text", name: "path", value: "/", "aria-label": "path", class: "path" });
  const said = message();
  const listButton = h("button", { type: "button", dataset: { op: "file.list" } }, "List");
  const listing = h("div", { class: "file-listing" }, h("p", { class: "muted" }, "List a directory of the outstation (file.list: OPEN_FILE, READ, CLOSE_FILE)."));
  const shown = h("div", { class: "file-read", "aria-label": "file read", "aria-live": "polite" });
  const writeCard = h("div", { class: "file-write" });
  const bar = h("form", { class: "toolbar" }, field("Path", pathInput), listButton, said);
  const body = h("div", { class: "file-body" }, bar, listing, shown, writeCard);
  const pane = createPane("files", "Files", render);
  pane.el.append(body);

  bar.addEventListener("submit", (event) => {
    event.preventDefault();
    list(pathInput.value.trim() || "/");
  });
  listButton.addEventListener("click", () => list(pathInput.value.trim() || "/"));

  function list(path) {
    pathInput.value = path;
    return act(listButton, said, async () => {
      const result = checked(await call("file.list", { path }, state.selected));
      replace(listing, entriesTable(path, result.entries ?? []));
      return `${path}: ${plural(result.entries?.length ?? 0, "entry", "entries")}`;
    });
  }

  function entriesTable(path, entries) {
    const up = path === "/" ? null : h("tr", null, h("td", null, h("button", { type: "button", class: "link", onclick: () => list(parentPath(path)) }, "..")), h("td", null, "directory"), h("td"), h("td"), h("td"), h("td"));
    return h("table", { class: "grid files" }, h("thead", null, h("tr", null, ["name", "type", "size", "time", "permissions", ""].map((t) => h("th", null, t)))), h("tbody", null, up, entries.map((e) => entryRow(path, e))));
  }

  function entryRow(folder, e) {
    const path = joinPath(folder, e.name);
    const directory = e.type === "directory";
    const name = directory ? h("button", { type: "button", class: "link", title: `list ${path}`, onclick: () => list(path) }, `${e.name}/`) : e.name;
    const rowSaid = message();
    const actions = directory ? [] : [readButton(path, rowSaid), control() ? deleteButton(folder, path, rowSaid) : null, rowSaid];
    return h("tr", { dataset: { name: e.name } }, h("td", { class: "name" }, name), h("td", null, e.type), h("td", { class: "num size" }, directory ? "" : String(e.size)), h("td", null, e.time_ms ? dateTime(e.time_ms) : ""), h("td", { class: "mode", title: `octal ${e.permissions.toString(8)}` }, e.mode), h("td", { class: "actions" }, h("div", { class: "row-actions" }, actions)));
  }

  function readButton(path, rowSaid) {
    const button = h("button", { type: "button", dataset: { op: "file.read" } }, "Read");
    button.addEventListener("click", () => act(button, rowSaid, () => read(path)));
    return button;
  }

  function deleteButton(folder, path, rowSaid) {
    const button = h("button", { type: "button", class: "danger", dataset: { op: "file.delete" } }, "Delete");
    button.addEventListener("click", () => {
      if (!window.confirm(`Delete ${path} on ${state.selected}?`)) return;
      act(button, rowSaid, async () => {
        checked(await call("file.delete", { path }, state.selected));
        await list(folder);
        return "deleted";
      });
    });
    return button;
  }

  async function read(path) {
    const result = checked(await call("file.read", { path }, state.selected));
    const bytes = octets(result.data);
    const seen = preview(bytes);
    if (saveUrl) URL.revokeObjectURL(saveUrl);
    saveUrl = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
    replace(
      shown,
      card(
        `File ${path}`,
        h("dl", { class: "file-facts" }, h("dt", null, "size"), h("dd", { class: "file-size" }, `${result.size ?? bytes.length} octets`), h("dt", null, "sha256"), h("dd", { class: "sha256" }, result.sha256 ?? ""), h("dt", null, "transfer"), h("dd", null, `${plural(result.blocks, "block")} of up to ${result.block_size ?? "?"} octets, ${plural(result.requests, "request")}`)),
        h("p", null, h("a", { href: saveUrl, download: baseName(path), class: "save" }, "Save"), h("span", { class: "muted" }, ` ${seen.note}`)),
        h("pre", { class: `file-preview ${seen.kind}` }, seen.text),
      ),
    );
    return `read ${plural(bytes.length, "octet")}`;
  }

  function control() {
    return Boolean(state.status?.allow_control);
  }

  function renderWrite() {
    if (!control()) {
      replace(writeCard, card("Write", h("p", { class: "muted no-control" }, "Writing and deleting files command the outstation: this service was started without --allow-control, so they are not offered.")));
      return;
    }
    const target = h("input", { type: "text", name: "target", "aria-label": "write to path", placeholder: "/dir/name" });
    const chooser = h("input", { type: "file", name: "upload", "aria-label": "file to write" });
    const append = h("input", { type: "checkbox", name: "append" });
    const permissions = h("input", { type: "text", name: "permissions", value: "644", size: 4, "aria-label": "permissions" });
    const writeSaid = message();
    const button = h("button", { type: "button", class: "danger", dataset: { op: "file.write" } }, "Write");
    button.addEventListener("click", () =>
      act(button, writeSaid, async () => {
        const file = chooser.files?.[0];
        if (!file) throw new Error("choose a file to write");
        const folder = pathInput.value.trim() || "/";
        const path = target.value.trim() || joinPath(folder, file.name);
        const data = toBase64(new Uint8Array(await file.arrayBuffer()));
        const result = checked(await call("file.write", { path, data, append: append.checked, permissions: permissions.value.trim() }, state.selected));
        await list(parentPath(path));
        return `wrote ${plural(file.size, "octet")} to ${result.path}`;
      }),
    );
    replace(writeCard, card("Write", field("File", chooser), field("To", target, "empty: the directory above, the file's own name"), h("label", { class: "check" }, append, " append"), field("Permissions", permissions, "octal"), button, writeSaid));
  }

  function render() {
    const entry = outstationStatus(state.selected);
    body.hidden = !entry;
    pane.el.querySelector(".empty")?.remove();
    if (!entry) {
      pane.el.prepend(noOutstation());
      return;
    }
    if (shownFor !== entry.name) {
      shownFor = entry.name;
      replace(listing, h("p", { class: "muted" }, `List a directory of ${entry.name} (file.list: OPEN_FILE, READ, CLOSE_FILE).`));
      replace(shown);
      said.textContent = "";
    }
    if (writeCard.dataset.control !== String(control())) {
      writeCard.dataset.control = String(control());
      renderWrite();
    }
  }
  return pane;
}
