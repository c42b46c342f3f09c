// What the page knows: the service's status, and per outstation its points, events and
// frames as read and as the event stream brings them. Views listen by topic and render when
// told; nothing here talks to the service.

const listeners = new Map();

export function on(topic, fn) {
  if (!listeners.has(topic)) listeners.set(topic, new Set());
  listeners.get(topic).add(fn);
  return () => listeners.get(topic).delete(fn);
}

export function emit(topic, ...args) {
  for (const fn of listeners.get(topic) ?? []) {
    try {
      fn(...args);
    } catch (error) {
      console.error(`listener of ${topic} failed`, error);
    }
  }
}

export const FRAMES_KEPT = 20000;
export const EVENTS_KEPT = 20000;
export const LOG_KEPT = 5000;
export const OUTCOMES = ["complete", "timeout", "sent", "abandoned"];
export const POINT_TYPES = ["bi", "dbi", "bo", "counter", "frozen", "ai", "ao"];

export const state = {
  status: null, // the last `status` result
  selected: null, // name of the outstation chosen in the side list
  stations: new Map(),
  log: [], // newest last
  stream: "connecting",
  schema: null, // the enumerations read from /openapi.json
};

export function outstationStatus(name) {
  return state.status?.outstations.find((o) => o.name === name) ?? null;
}

export function station(name) {
  let s = state.stations.get(name);
  if (!s) {
    s = {
      name,
      points: new Map(), // "ai:5" -> row
      keys: 0, // bumped when a point is added or removed
      marks: 0, // bumped when a point's flags, or whether it is reported, change (what filters test)
      events: [], // oldest first
      frames: [], // oldest first
      counts: Object.fromEntries(OUTCOMES.map((o) => [o, 0])),
      exchanges: 0,
      unsolicited: 0,
      indications: null,
      lastResponse: null,
      profile: null,
      loaded: false,
      heard: null, // {objects, frames} from the stream while the state is read again (hear)
    };
    state.stations.set(name, s);
  }
  return s;
}

export function forget(name) {
  state.stations.delete(name);
}

export function addLog(kind, text, detail) {
  const entry = { time: Date.now(), kind, text, detail };
  state.log.push(entry);
  if (state.log.length > LOG_KEPT) state.log.splice(0, state.log.length - LOG_KEPT);
  emit("log", entry);
}

const keyOf = (type, index) => `${type}:${index}`;

function newRow(type, index) {
  return {
    key: keyOf(type, index),
    type,
    index,
    name: null,
    label: null,
    enumeration: null,
    mandatory: false,
    section: null,
    inProfile: false, // named by the outstation's profile
    units: null,
    multiplier: 1,
    offset: 0,
    reported: false,
    value: undefined,
    flags: null,
    time_ms: null,
    event: false,
    group: null,
    variation: null,
    seen: null,
    changed: 0,
  };
}

function rowFor(s, type, index) {
  const key = keyOf(type, index);
  let row = s.points.get(key);
  if (!row) {
    row = newRow(type, index);
    s.points.set(key, row);
    s.keys += 1;
  }
  return row;
}

// Takes a reported value into its row; true when its flags or its being reported changed.
function take(row, obj, seen) {
  const marked = !row.reported || String(row.flags) !== String(obj.flags);
  const changed = row.reported && (row.value !== obj.value || marked);
  row.reported = true;
  row.value = obj.value;
  row.flags = obj.flags;
  row.time_ms = obj.time_ms;
  row.event = obj.event;
  row.group = obj.group;
  row.variation = obj.variation;
  row.seen = seen;
  if (obj.name && !row.name) row.name = obj.name;
  if (changed) row.changed = seen;
  return marked;
}

// `values` as read: the store is replaced (points of the profile stay, unreported).
export function setValues(name, values) {
  const s = station(name);
  const now = Date.now();
  for (const row of s.points.values()) {
    row.reported = false;
    row.value = undefined;
    row.flags = null;
    row.seen = null;
  }
  for (const v of values) take(rowFor(s, v.type, v.index), v, now - v.age_ms);
  for (const [key, row] of s.points) {
    if (!row.reported && !row.section) {
      s.points.delete(key);
      s.keys += 1;
    }
  }
  s.keys += 1;
  emit("points", name, null);
}

export function setProfile(name, profile) {
  const s = station(name);
  s.profile = profile;
  for (const type of POINT_TYPES) {
    for (const p of profile?.[type] ?? []) {
      const row = rowFor(s, type, p.index);
      Object.assign(row, {
        name: p.name,
        label: p.label,
        enumeration: p.enumeration,
        mandatory: p.mandatory,
        section: p.section,
        inProfile: true,
        units: p.units ?? null,
        multiplier: p.multiplier ?? 1,
        offset: p.offset ?? 0,
      });
    }
  }
  s.keys += 1;
  emit("points", name, null);
}

// Objects from an exchange or an unsolicited response: point values go to the points, events
// to the events list (newest last).
export function applyObjects(name, objects, source) {
  const s = station(name);
  s.heard?.objects.push({ objects, source });
  const now = Date.now();
  const changed = [];
  let events = 0;
  for (const obj of objects) {
    if (obj.type === null || obj.index === null) continue;
    const row = rowFor(s, obj.type, obj.index);
    if (take(row, obj, now)) s.marks += 1;
    changed.push(row.key);
    if (obj.event) {
      s.events.push({ ...obj, received: now, source });
      events += 1;
    }
  }
  if (s.events.length > EVENTS_KEPT) s.events.splice(0, s.events.length - EVENTS_KEPT);
  if (changed.length) emit("points", name, changed);
  if (events) emit("events", name);
}

// While an outstation's state is read again (sync.js loadStation) the stream's objects and
// frames are kept too: the answers may have been made before them, and replacing the store
// with an answer would lose them (DESIGN D218).
export function hear(name) {
  const heard = { objects: [], frames: [] };
  station(name).heard = heard;
  return heard;
}

// The answers taken (values, events), then the objects heard while they came laid over
// them: each point takes its value again, and an event the events answer did not hold (the
// same point, value, flags and time) is listed; the frames are the trace's, then those
// heard it did not hold. Later updates still come by the stream, so the store ends as the
// last of them left it.
export function retake(name, heard, trace) {
  const s = station(name);
  if (s.heard === heard) s.heard = null;
  s.frames = [];
  addFrames(name, trace);
  const now = Date.now();
  const changed = [];
  const same = (e) => `${e.type}:${e.index}:${e.value}:${e.flags}:${e.time_ms}`;
  const listed = new Set(s.events.map(same));
  for (const { objects, source } of heard.objects) {
    for (const obj of objects) {
      if (obj.type === null || obj.index === null) continue;
      const row = rowFor(s, obj.type, obj.index);
      if (take(row, obj, now)) s.marks += 1;
      changed.push(row.key);
      if (obj.event && !listed.has(same(obj))) s.events.push({ ...obj, received: now, source });
    }
  }
  if (s.events.length > EVENTS_KEPT) s.events.splice(0, s.events.length - EVENTS_KEPT);
  if (changed.length) emit("points", name, changed);
  emit("events", name);
  addFrames(name, heard.frames);
}

export function setEvents(name, events) {
  const s = station(name);
  const now = Date.now();
  s.events = events.map((e) => ({ ...e, received: null, source: "earlier", readAt: now }));
  emit("events", name);
}

export function addFrames(name, frames) {
  const s = station(name);
  s.heard?.frames.push(...frames);
  const last = s.frames.length ? s.frames[s.frames.length - 1].id : 0;
  const fresh = frames.filter((f) => f.id > last);
  if (!fresh.length) return;
  s.frames.push(...fresh);
  for (const f of fresh) if (f.direction === "received" && !f.dropped) s.lastResponse = f.time_ms;
  if (s.frames.length > FRAMES_KEPT) s.frames.splice(0, s.frames.length - FRAMES_KEPT);
  emit("frames", name, fresh);
}

export function addExchange(name, exchange) {
  const s = station(name);
  s.counts[exchange.outcome] = (s.counts[exchange.outcome] ?? 0) + 1;
  s.exchanges += 1;
  if (exchange.outcome === "complete") s.indications = exchange.indications;
  applyObjects(name, exchange.objects, "polled");
  emit("exchange", name, exchange);
}

// The service's counts (status: since it started) replace the page's; the stream adds to them.
export function takeCounts(name, counts) {
  const s = station(name);
  s.counts = Object.fromEntries(OUTCOMES.map((o) => [o, counts[o] ?? 0]));
  s.unsolicited = counts.unsolicited ?? 0;
  s.countedByService = true;
}

export function addUnsolicited(name, data) {
  const s = station(name);
  s.unsolicited += 1;
  s.indications = data.indications;
  applyObjects(name, data.objects, "unsolicited");
  emit("exchange", name, null);
}
