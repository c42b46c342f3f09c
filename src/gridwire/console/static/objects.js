// The object groups the Traffic tab reads value by value: each variation's fields in order
// (IEEE 1815-2012 Annex A), from which its size and a reading follow. A variation not listed
// here is shown by its header only.

import { dateTime } from "./format.js";

const GROUPS = {
  0: "Device attributes",
  1: "Binary input",
  2: "Binary input event",
  3: "Double-bit binary input",
  4: "Double-bit binary input event",
  10: "Binary output",
  11: "Binary output event",
  12: "Binary command (CROB)",
  13: "Binary output command event",
  20: "Counter",
  21: "Frozen counter",
  22: "Counter event",
  23: "Frozen counter event",
  30: "Analog input",
  31: "Frozen analog input",
  32: "Analog input event",
  33: "Frozen analog input event",
  34: "Analog input deadband",
  40: "Analog output status",
  41: "Analog output command",
  42: "Analog output event",
  43: "Analog output command event",
  50: "Time and date",
  51: "Time and date CTO",
  52: "Time delay",
  60: "Class data",
  70: "File control",
  80: "Internal indications",
  110: "Octet string",
  111: "Octet string event",
  112: "Virtual terminal output",
  113: "Virtual terminal event",
};

const CLASSES = { 1: "class 0 (static)", 2: "class 1 events", 3: "class 2 events", 4: "class 3 events" };

export function groupName(group, variation) {
  if (group === 60) return `Class data: ${CLASSES[variation] ?? "?"}`;
  const name = GROUPS[group] ?? "unknown group";
  return variation === 0 ? `${name}, any variation` : name;
}

// Field sizes and readers: little-endian as the standard has them.
const FIELDS = {
  f: [1, (v, at) => v.getUint8(at)],
  st: [1, (v, at) => v.getUint8(at)],
  u8: [1, (v, at) => v.getUint8(at)],
  u16: [2, (v, at) => v.getUint16(at, true)],
  i16: [2, (v, at) => v.getInt16(at, true)],
  u32: [4, (v, at) => v.getUint32(at, true)],
  i32: [4, (v, at) => v.getInt32(at, true)],
  f32: [4, (v, at) => v.getFloat32(at, true)],
  f64: [8, (v, at) => v.getFloat64(at, true)],
  t48: [6, (v, at) => v.getUint32(at, true) + v.getUint16(at + 4, true) * 2 ** 32],
  t16: [2, (v, at) => v.getUint16(at, true)],
};

const COMMON = ["ONLINE", "RESTART", "COMM_LOST", "REMOTE_FORCED", "LOCAL_FORCED"];
const FLAG_NAMES = {
  binary: [...COMMON, "CHATTER_FILTER", null, "STATE"],
  output: [...COMMON, null, null, "STATE"],
  counter: [...COMMON, "ROLLOVER", "DISCONTINUITY", null],
  analog: [...COMMON, "OVER_RANGE", "REFERENCE_ERR", null],
};
const FAMILY = { 1: "binary", 2: "binary", 10: "output", 11: "output", 20: "counter", 21: "counter", 22: "counter", 23: "counter" };
const DOUBLE = ["INTERMEDIATE", "DETERMINED_OFF", "DETERMINED_ON", "INDETERMINATE"];

function flagText(group, octet) {
  if (group === 3 || group === 4) {
    const names = COMMON.filter((_, bit) => octet & (1 << bit));
    return [...names, DOUBLE[octet >> 6]].join(" ");
  }
  const names = FLAG_NAMES[FAMILY[group] ?? "analog"];
  return names.filter((name, bit) => name && octet & (1 << bit)).join(" ") || "none";
}

const OPERATIONS = { 0: "NUL", 1: "PULSE_ON", 2: "PULSE_OFF", 3: "LATCH_ON", 4: "LATCH_OFF" };
const TRIP_CLOSE = ["", "CLOSE_", "TRIP_", "RESERVED_"];

function controlCode(code) {
  const base = `${TRIP_CLOSE[code >> 6]}${OPERATIONS[code & 0x0f] ?? `OP${code & 0x0f}`}`;
  return base + (code & 0x20 ? "|CLEAR" : "") + (code & 0x10 ? "|QUEUE" : "");
}

const STATUSES = [
  "SUCCESS", "TIMEOUT", "NO_SELECT", "FORMAT_ERROR", "NOT_SUPPORTED", "ALREADY_ACTIVE",
  "HARDWARE_ERROR", "LOCAL", "TOO_MANY_OBJS", "NOT_AUTHORIZED", "AUTOMATION_INHIBIT",
  "PROCESSING_LIMITED", "OUT_OF_RANGE", "DOWNSTREAM_LOCAL", "ALREADY_COMPLETE", "BLOCKED",
  "CANCELLED", "BLOCKED_OTHER_MASTER", "DOWNSTREAM_FAIL",
];
const statusName = (octet) => STATUSES[octet & 0x7f] ?? `UNDEFINED_${octet & 0x7f}`;

const time48 = (ms) => (Number.isNaN(new Date(ms).getTime()) ? `${ms} ms` : dateTime(ms));

function describe(group, name, raw) {
  switch (name) {
    case "f":
      return `flags ${flagText(group, raw)}`;
    case "st":
      return `status ${statusName(raw)}`;
    case "t48":
      return `time ${time48(raw)}`;
    case "t16":
      return `time +${raw} ms`;
    default:
      return `value ${Number.isInteger(raw) ? raw : Number(raw.toPrecision(7))}`;
  }
}

const VALUE_FIELDS = new Set(["i32", "i16", "u32", "u16", "f32", "f64"]);

function reader(group, fields) {
  const parts = fields.split(" ");
  const size = parts.reduce((sum, name) => sum + FIELDS[name][0], 0);
  // The object's value field alone (a number), for a page that names and scales points; a
  // float field is kept a float even when whole, so it is not taken for a transmitted count.
  const value = (view, at) => {
    let offset = at;
    for (const name of parts) {
      const [width, get] = FIELDS[name];
      if (VALUE_FIELDS.has(name)) return name.startsWith("f") ? { float: get(view, offset) } : get(view, offset);
      if (name === "f" && (group === 1 || group === 2 || group === 10 || group === 11)) return (get(view, offset) & 0x80) !== 0;
      offset += width;
    }
    return null;
  };
  const read = (view, at) => {
    const out = [];
    let offset = at;
    for (const name of parts) {
      const [width, get] = FIELDS[name];
      out.push(describe(group, name, get(view, offset)));
      offset += width;
    }
    return out.join(", ");
  };
  return { size, read, value };
}

function crob(view, at) {
  const code = view.getUint8(at);
  const count = view.getUint8(at + 1);
  const on = view.getUint32(at + 2, true);
  const off = view.getUint32(at + 6, true);
  return `${controlCode(code)} count ${count} on ${on} ms off ${off} ms, status ${statusName(view.getUint8(at + 10))}`;
}

function octetString(view, at, size) {
  const octets = [];
  for (let i = 0; i < size; i += 1) octets.push(view.getUint8(at + i).toString(16).padStart(2, "0"));
  return octets.join(" ");
}

function attribute(view, at, size) {
  return `type ${view.getUint8(at)}, ${size - 2} octets: ${octetString(view, at + 2, size - 2)}`;
}

// "group.variation" -> fields; the same layouts serve several groups.
const EVENT_ANALOG = { 1: "f i32", 2: "f i16", 3: "f i32 t48", 4: "f i16 t48", 5: "f f32", 6: "f f64", 7: "f f32 t48", 8: "f f64 t48" };
const COMMAND_EVENT = { 1: "st i32", 2: "st i16", 3: "st i32 t48", 4: "st i16 t48", 5: "st f32", 6: "st f64", 7: "st f32 t48", 8: "st f64 t48" };
const COUNTER_EVENT = { 1: "f u32", 2: "f u16", 5: "f u32 t48", 6: "f u16 t48" };
const LAYOUTS = {
  1: { 2: "f" },
  2: { 1: "f", 2: "f t48", 3: "f t16" },
  3: { 2: "f" },
  4: { 1: "f", 2: "f t48", 3: "f t16" },
  10: { 2: "f" },
  11: { 1: "f", 2: "f t48" },
  13: { 1: "f", 2: "f t48" },
  20: { 1: "f u32", 2: "f u16", 5: "u32", 6: "u16" },
  21: { 1: "f u32", 2: "f u16", 5: "f u32 t48", 6: "f u16 t48", 9: "u32", 10: "u16" },
  22: COUNTER_EVENT,
  23: COUNTER_EVENT,
  30: { 1: "f i32", 2: "f i16", 3: "i32", 4: "i16", 5: "f f32", 6: "f f64" },
  31: { 1: "f i32", 2: "f i16", 3: "f i32 t48", 4: "f i16 t48", 5: "i32", 6: "i16", 7: "f f32", 8: "f f64" },
  32: EVENT_ANALOG,
  33: EVENT_ANALOG,
  34: { 1: "u16", 2: "u32", 3: "f32" },
  40: { 1: "f i32", 2: "f i16", 3: "f f32", 4: "f f64" },
  41: { 1: "i32 st", 2: "i16 st", 3: "f32 st", 4: "f64 st" },
  42: EVENT_ANALOG,
  43: COMMAND_EVENT,
  50: { 1: "t48", 2: "t48 u32", 3: "t48", 4: "t48 u32 u8" },
  51: { 1: "t48", 2: "t48" },
  52: { 1: "u16", 2: "u16" },
};
const PACKED = { "1.1": 1, "3.1": 2, "10.1": 1, "12.3": 1, "80.1": 1 };

// {size, read} for a variation; {bits} for a packed one; {size: undefined} when unknown.
export function objectLayout(group, variation) {
  const packed = PACKED[`${group}.${variation}`];
  if (packed) return { bits: packed };
  if (group === 12 && (variation === 1 || variation === 2)) return { size: 11, read: crob };
  if (group === 0) return { attribute: true, read: attribute };
  if (group === 110 || group === 111 || group === 112 || group === 113) return { size: variation, read: octetString };
  const fields = LAYOUTS[group]?.[variation];
  return fields ? reader(group, fields) : { size: undefined };
}
