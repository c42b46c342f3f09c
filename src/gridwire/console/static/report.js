// The evaluation report as files to download: JSON (as the service answered it), HTML (a
// page to read or print, nothing in it runs) and JUnit XML (for a CI that collects them).

const escape = (text) =>
  String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

export function reportJson(report) {
  return JSON.stringify(report, null, 2);
}

export function reportHtml(report) {
  const s = report.summary;
  const rows = report.results
    .map(
      (r) =>
        `<tr class="${escape(r.verdict)}"><td>${escape(r.id)}</td><td>${escape(r.title)}</td>` +
        `<td>${escape(r.verdict)}</td><td>${escape(r.detail)}</td>` +
        `<td>${r.notes.map(escape).join("<br>")}</td><td>${r.requests}</td>` +
        `<td>${r.frames ? `${r.frames[0]}-${r.frames[1]}` : ""}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Evaluation of ${escape(report.outstation)}, ${escape(report.started)}</title>
<style>
body { font: 13px/1.4 sans-serif; margin: 2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
tr.failed td:nth-child(3) { color: #b00; font-weight: bold; }
tr.passed td:nth-child(3) { color: #070; }
</style></head><body>
<h1>Evaluation of ${escape(report.outstation)}</h1>
<p>${escape(report.tool)} ${escape(report.version)}, started ${escape(report.started)}; tables: ${escape(report.tables)};
control ${report.allow_control ? "allowed" : "not allowed"}, deviations ${report.allow_deviations ? "allowed" : "not allowed"};
settle ${report.settle} s; curves ${report.curves ?? "not needed"}.</p>
<p><strong>${s.passed} passed, ${s.failed} failed, ${s.not_applicable} not applicable, ${s.not_run} not run.</strong></p>
<table><thead><tr><th>Check</th><th>Title</th><th>Verdict</th><th>Detail</th><th>Notes</th><th>Requests</th><th>Frames</th></tr></thead>
<tbody>
${rows}
</tbody></table></body></html>
`;
}

export function reportJunit(report) {
  const s = report.summary;
  const total = report.results.reduce((sum, r) => sum + r.seconds, 0);
  const cases = report.results
    .map((r) => {
      const head = `  <testcase classname="${escape(report.tool)}.${escape(report.outstation)}" name="${escape(`${r.id} ${r.title}`)}" time="${r.seconds.toFixed(3)}">`;
      const notes = r.notes.length ? `\n    <system-out>${escape(r.notes.join("\n"))}</system-out>` : "";
      let body = "";
      if (r.verdict === "failed") body = `\n    <failure message="${escape(r.detail)}">${escape(r.detail)}</failure>`;
      else if (r.verdict !== "passed") body = `\n    <skipped message="${escape(`${r.verdict}: ${r.detail}`)}"/>`;
      return `${head}${body}${notes}\n  </testcase>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="${escape(`evaluation of ${report.outstation}`)}" tests="${report.results.length}" failures="${s.failed}" errors="0" skipped="${s.not_applicable + s.not_run}" time="${total.toFixed(3)}" timestamp="${escape(report.started.replace(/Z$/, ""))}">
${cases}
</testsuite>
`;
}
