// The evaluation report as files to download. The service writes them (operation `report`:
// the same writer as `gridwire evaluate --report/--html/--junit`); the console keeps no
// writer of its own and saves the octets it is given.

import { call } from "./api.js";

export const REPORT_FORMATS = [
  ["json", "json", "Report (JSON)"],
  ["html", "html", "Report (HTML)"],
  ["junit", "junit.xml", "Report (JUnit)"],
];

// Asks the service for the last report of `outstation` in `format` and saves it under the
// name the service gives; answers with that name.
export async function downloadReport(outstation, format) {
  const file = await call("report", { format }, outstation);
  const url = URL.createObjectURL(new Blob([file.content], { type: file.media_type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return `saved ${file.filename}`;
}
