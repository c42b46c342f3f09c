// Keeping the page's state in step with the service: `status` when the page opens and when a
// `connection` or `outstations` event says it changed (never on a timer); an outstation's
// values, events, frames and profile when it is chosen; everything again after `lost` or a
// stream that had to open again.

import { call } from "./api.js";
import {
  addExchange,
  addFrames,
  addLog,
  addUnsolicited,
  emit,
  forget,
  hear,
  outstationStatus,
  retake,
  setEvents,
  setProfile,
  setValues,
  state,
  station,
  takeCounts,
} from "./store.js";

let statusRun = null;
let statusAgain = false;

// `status` answers a page of outstations (500 unless asked; DESIGN D149): the page takes
// every page in turn, so a fleet past one page is listed whole and none of it is forgotten.
async function everyPage() {
  let page = await call("status");
  const outstations = [...page.outstations];
  while (page.next !== null && page.next !== undefined) {
    page = await call("status", { offset: page.next });
    outstations.push(...page.outstations);
  }
  return { ...page, offset: 0, next: null, outstations };
}

// One `status` at a time; asked again while one runs, it runs once more after it.
export function refreshStatus() {
  if (statusRun) {
    statusAgain = true;
    return statusRun;
  }
  statusRun = (async () => {
    try {
      do {
        statusAgain = false;
        const status = await everyPage();
        state.status = status;
        const names = new Set(status.outstations.map((o) => o.name));
        for (const name of [...state.stations.keys()]) if (!names.has(name)) forget(name);
        for (const o of status.outstations) if (o.counts) takeCounts(o.name, o.counts);
        emit("status", status);
      } while (statusAgain);
    } finally {
      statusRun = null;
    }
  })();
  return statusRun;
}

const loading = new Map();

// Reads what the master holds for one outstation: its profile, values, events and frames.
export function loadStation(name) {
  if (loading.has(name)) return loading.get(name);
  const run = (async () => {
    const entry = outstationStatus(name);
    const heard = hear(name); // what the stream brings meanwhile is newer than the answers
    try {
      const [values, events, trace, profile] = await Promise.all([
        call("values", {}, name),
        call("events", {}, name),
        call("trace", {}, name),
        entry?.profile ? call("profile", {}, name) : null,
      ]);
      const s = station(name);
      if (profile) setProfile(name, profile);
      setValues(name, values.values);
      setEvents(name, events.events);
      retake(name, heard, trace.frames);
      emit("frames", name, null);
      s.loaded = true;
    } finally {
      if (station(name).heard === heard) station(name).heard = null;
    }
  })();
  loading.set(name, run);
  run.catch((error) => addLog("page", `could not read ${name}: ${error.message}`)).finally(() => loading.delete(name));
  return run;
}

export async function resync(why) {
  if (why) addLog("page", `${why}; reading the state again`);
  for (const s of state.stations.values()) s.loaded = false;
  try {
    await refreshStatus();
  } catch (error) {
    addLog("page", `status failed: ${error.message}`);
    return;
  }
  if (state.selected && outstationStatus(state.selected)) await loadStation(state.selected);
  emit("resynced", why);
}

export function handleEvent(name, data) {
  switch (name) {
    case "frame":
      addFrames(data.outstation, [data.frame]);
      break;
    case "exchange": {
      const x = data.exchange;
      addExchange(data.outstation, x);
      if (x.task) addLog("unasked", `${data.outstation}: task ${x.task}: ${x.function} ${x.outcome} (${x.object_count} objects)`);
      break;
    }
    case "unsolicited":
      addUnsolicited(data.outstation, data);
      addLog("unasked", `${data.outstation}: unsolicited response, ${data.objects.length} objects${data.indications.length ? `, ${data.indications.join(" ")}` : ""}`);
      break;
    case "connection":
      addLog("unasked", `${data.outstation}: ${data.connected ? "connected" : "connection ended"}`);
      refreshStatus().catch(() => {});
      break;
    case "outstations":
      refreshStatus().catch(() => {});
      break;
    case "check":
      emit("check", data);
      break;
    default:
      break;
  }
}
