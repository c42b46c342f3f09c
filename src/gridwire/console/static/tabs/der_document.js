// The Device Profile: compare what the outstation serves with the document (der.compare) and
// the document laid out for reading and printing (der.document). The document is the one the
// outstation or the service was given at start, or a file chosen here (sent as text), or the
// one der.describe writes of what the outstation serves (offered as a download beside them).

import { call } from "../api.js";
import { act, h, message, replace } from "../dom.js";
import { outstationStatus } from "../store.js";

// What to do on this page when the outstation was given no document at start.
function noDocument(name) {
  return h(
    "div",
    { class: "no-document" },
    h("p", null, h("strong", null, `No Device Profile document was given for ${name}.`), " Choose its XML file with “Or a file” above; then Compare with the outstation, or Show the document."),
    h("p", { class: "muted" }, "To have it here from the start, start the console with --device-profile FILE, or give the outstation a device_profile file in the settings file (--config)."),
  );
}

export function createDocument() {
  let name = null;
  let chosen = null; // {name, text} of a file chosen here
  const said = message();
  const file = h("input", { type: "file", accept: ".xml,text/xml,application/xml", "aria-label": "Device Profile file" });
  const which = h("span", { class: "muted" }, "the document given at start");
  const compare = h("button", { type: "button" }, "Compare with the outstation");
  const layout = h("button", { type: "button" }, "Show the document");
  const print = h("button", { type: "button" }, "Print");
  const describe = h("button", { type: "button", title: "Write a Device Profile of what the outstation serves (der.describe; reads only)" }, "Describe the outstation");
  const download = h("a", { class: "download", hidden: true }, "Download");
  const out = h("div", { class: "der-document-body" });
  const el = h("div", { class: "der-document" }, h("div", { class: "inline" }, compare, describe, download, layout, print, h("label", { class: "field" }, h("span", null, "Or a file"), file), which), said, out);

  file.addEventListener("change", async () => {
    const picked = file.files?.[0];
    if (!picked) {
      chosen = null;
      which.textContent = "the document given at start";
      return;
    }
    chosen = { name: picked.name, text: await picked.text() };
    said.className = "msg";
    said.textContent = "";
    which.textContent = `file ${picked.name}`;
    if (out.querySelector(".no-document")) replace(out);
  });
  const params = () => (chosen ? { document: chosen.text } : {});
  let missing = false; // the service said it has no document for this outstation
  // Without a document the page says what to do rather than the service's API wording.
  function needDocument() {
    if (chosen || !missing) return;
    replace(out, noDocument(name));
    throw new Error("choose a Device Profile file first (“Or a file”)");
  }
  const saysMissing = (error) => error?.kind === "request" && /has no Device Profile document/.test(error.message ?? "");
  compare.addEventListener("click", () =>
    act(compare, said, async () => {
      needDocument();
      const answer = await call("der.compare", params(), name);
      showCompare(answer);
      return `${answer.declared} declared, ${answer.served} served: ${answer.absent.length} absent, ${answer.undeclared.length} undeclared`;
    }),
  );
  layout.addEventListener("click", () =>
    act(layout, said, async () => {
      needDocument();
      const answer = await call("der.document", params(), name);
      showLayout(answer);
      return `${answer.sections.length} sections`;
    }),
  );
  print.addEventListener("click", () => window.print());
  // The observed document becomes the one compared and shown, and a file to download.
  describe.addEventListener("click", () =>
    act(describe, said, async () => {
      const answer = await call("der.describe", {}, name);
      const fileName = `${name}-observed-device-profile.xml`;
      if (download.href) URL.revokeObjectURL(download.href);
      download.href = URL.createObjectURL(new Blob([answer.document], { type: "application/xml" }));
      download.download = fileName;
      download.textContent = `Download ${fileName}`;
      download.hidden = false;
      chosen = { name: fileName, text: answer.document, of: name };
      which.textContent = `observed: ${fileName}`;
      if (out.querySelector(".no-document")) replace(out);
      const points = Object.entries(answer.counts).map(([type, n]) => `${n} ${type}`).join(", ");
      return `described: ${points}; ${answer.attributes} device attributes`;
    }),
  );

  function table(columns, rows, caption) {
    return h(
      "div",
      { class: "scroll-x" },
      h("table", { class: "grid doc-table" }, caption ? h("caption", null, caption) : null, h("thead", null, h("tr", null, columns.map((c) => h("th", null, c)))), h("tbody", null, rows.map((r) => h("tr", null, r.map((c) => h("td", null, c ?? "")))))),
    );
  }

  function records(list, caption) {
    if (!list.length) return h("p", { class: "muted" }, `${caption}: none`);
    const columns = Object.keys(list[0]);
    return table(columns, list.map((r) => columns.map((c) => (typeof r[c] === "object" && r[c] !== null ? JSON.stringify(r[c]) : String(r[c] ?? "")))), `${caption} (${list.length})`);
  }

  function showCompare(answer) {
    replace(
      out,
      h("h3", null, "Compared with the outstation"),
      records(answer.absent, "Declared and not served"),
      records(answer.undeclared, "Served and not declared"),
      records(answer.class_0, "Class 0 differs from the declaration"),
      h("details", null, h("summary", null, `Every declared point (${answer.points.length})`), records(answer.points, "Declared points")),
    );
  }

  function showLayout(doc) {
    replace(
      out,
      h(
        "article",
        { class: "device-profile" },
        h("h2", null, doc.title),
        h("p", { class: "muted" }, doc.notice),
        h("dl", { class: "facts" }, doc.facts.map((f) => [h("dt", null, f.label), h("dd", null, f.value)])),
        doc.sections.map((section) => h("section", null, h("h3", null, section.title), section.tables.map((t) => table(t.columns, t.rows, t.title)))),
      ),
    );
  }

  return {
    el,
    said,
    async load(outstation) {
      name = outstation;
      missing = false;
      if (chosen?.of && chosen.of !== outstation) {
        chosen = null; // observed of another outstation
        download.hidden = true;
      }
      replace(out);
      which.textContent = chosen ? `file ${chosen.name}` : "the document given at start";
      if (chosen || outstationStatus(outstation)?.device_profile) return null;
      // The service may hold one (--device-profile): der.document asks it, sending nothing
      // to the outstation.
      try {
        await call("der.document", {}, outstation);
        return null;
      } catch (error) {
        if (!saysMissing(error)) throw error;
        missing = true;
        replace(out, noDocument(outstation));
        which.textContent = "no document given at start";
        return "no document yet: choose a file";
      }
    },
  };
}
