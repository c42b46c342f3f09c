// Reads one frame as it crossed the wire, layer by layer (IEEE 1815-2012: link clause 9,
// transport clause 8, application clause 4, object headers clause 4.2.2.7), and says for
// every octet which layer it belongs to, so the Traffic tab can shade them.
//
// A frame carries one transport segment; when that segment is not the whole fragment, the
// objects are read as far as the segment goes.

import { groupName, objectLayout } from "./objects.js";

const CRC_TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i += 1) {
  let c = i;
  for (let bit = 0; bit < 8; bit += 1) c = c & 1 ? (c >>> 1) ^ 0xa6bc : c >>> 1;
  CRC_TABLE[i] = c;
}

export function crc16(octets, start, end) {
  let c = 0;
  for (let i = start; i < end; i += 1) c = (c >>> 8) ^ CRC_TABLE[(c ^ octets[i]) & 0xff];
  return ~c & 0xffff;
}

const PRIMARY = { 0: "RESET_LINK_STATES", 2: "TEST_LINK_STATES", 3: "CONFIRMED_USER_DATA", 4: "UNCONFIRMED_USER_DATA", 9: "REQUEST_LINK_STATUS" };
const SECONDARY = { 0: "ACK", 1: "NACK", 11: "LINK_STATUS", 15: "NOT_SUPPORTED" };

export const FUNCTIONS = [
  "CONFIRM", "READ", "WRITE", "SELECT", "OPERATE", "DIRECT_OPERATE", "DIRECT_OPERATE_NR",
  "IMMED_FREEZE", "IMMED_FREEZE_NR", "FREEZE_CLEAR", "FREEZE_CLEAR_NR", "FREEZE_AT_TIME",
  "FREEZE_AT_TIME_NR", "COLD_RESTART", "WARM_RESTART", "INITIALIZE_DATA", "INITIALIZE_APPL",
  "START_APPL", "STOP_APPL", "SAVE_CONFIG", "ENABLE_UNSOLICITED", "DISABLE_UNSOLICITED",
  "ASSIGN_CLASS", "DELAY_MEASURE", "RECORD_CURRENT_TIME", "OPEN_FILE", "CLOSE_FILE",
  "DELETE_FILE", "GET_FILE_INFO", "AUTHENTICATE_FILE", "ABORT_FILE", "ACTIVATE_CONFIG",
  "AUTHENTICATE_REQ", "AUTH_REQ_NO_ACK",
];
const RESPONSES = { 0x81: "RESPONSE", 0x82: "UNSOLICITED_RESPONSE", 0x83: "AUTHENTICATE_RESP" };

export const IIN_NAMES = [
  "BROADCAST", "CLASS_1_EVENTS", "CLASS_2_EVENTS", "CLASS_3_EVENTS", "NEED_TIME",
  "LOCAL_CONTROL", "DEVICE_TROUBLE", "DEVICE_RESTART", "FUNC_NOT_SUPPORTED", "OBJECT_UNKNOWN",
  "PARAMETER_ERROR", "EVENT_BUFFER_OVERFLOW", "ALREADY_EXECUTING", "CONFIG_CORRUPT",
  "RESERVED_2", "RESERVED_1",
];

export const functionName = (code) => RESPONSES[code] ?? FUNCTIONS[code] ?? `FUNCTION_0x${hex2(code)}`;
const hex2 = (n) => n.toString(16).toUpperCase().padStart(2, "0");
const hex4 = (n) => n.toString(16).toUpperCase().padStart(4, "0");

// Hex digit values by character code (a summary decodes every frame once: this is its
// hottest loop).
const NIBBLE = new Uint8Array(128);
for (let i = 0; i < 16; i += 1) {
  NIBBLE["0123456789abcdef".charCodeAt(i)] = i;
  NIBBLE["0123456789ABCDEF".charCodeAt(i)] = i;
}

export function octetsOf(hex) {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0, j = 0; i < out.length; i += 1, j += 2) out[i] = (NIBBLE[hex.charCodeAt(j) & 0x7f] << 4) | NIBBLE[hex.charCodeAt(j + 1) & 0x7f];
  return out;
}

function bits(octet, names) {
  return names.filter(([bit]) => octet & bit).map(([, name]) => name).join(" ") || "none";
}

// Reads the frame's octets: {layers: [{name, fields, items}], shade: [layer per octet],
// problems: [text]}.
export function decodeFrame(hex, light = false) {
  const octets = octetsOf(hex);
  const shade = new Array(octets.length).fill("unread");
  const problems = [];
  const layers = [];
  const info = { link: null, transport: null, app: null, headers: [] };
  const done = () => ({ layers, shade, problems, octets, info });
  const link = readLink(octets, shade, problems);
  layers.push(link.layer);
  info.link = link.function ?? null;
  if (!link.data) return done();
  const { data, positions } = link;
  const mark = (from, to, layer) => {
    for (let k = from; k < to && k < positions.length; k += 1) shade[positions[k]] = layer;
  };
  if (!data.length) return done();
  const tr = data[0];
  mark(0, 1, "transport");
  const fir = (tr & 0x40) !== 0;
  const fin = (tr & 0x80) !== 0;
  info.transport = { fir, fin, sequence: tr & 0x3f, payload: data.subarray(1) };
  layers.push({
    name: "Transport",
    fields: [
      ["header", `0x${hex2(tr)}`],
      ["FIR", fir ? "1 (first segment)" : "0"],
      ["FIN", fin ? "1 (last segment)" : "0"],
      ["sequence", String(tr & 0x3f)],
    ],
  });
  if (!fir) {
    mark(1, data.length, "objects");
    layers.push({ name: "Application", fields: [["", "a later segment of a fragment: its header came in an earlier frame"]] });
    return done();
  }
  const app = data.subarray(1);
  const appLayer = readApplication(app, problems);
  info.app = appLayer.info;
  mark(1, 1 + appLayer.headerLength, "app");
  mark(1 + appLayer.headerLength, data.length, "objects");
  layers.push(appLayer.layer);
  if (app.length > appLayer.headerLength) {
    const objects = readObjects(app.subarray(appLayer.headerLength), appLayer.code, fin, problems, light);
    info.headers = objects.items;
    layers.push(objects);
  }
  return done();
}

// A whole fragment (the application octets of its segments joined): its application header
// and every object, as the Traffic tab shows a fragment that took several frames.
export function decodeFragment(app) {
  const problems = [];
  const appLayer = readApplication(app, problems);
  const layers = [appLayer.layer];
  if (app.length > appLayer.headerLength) layers.push(readObjects(app.subarray(appLayer.headerLength), appLayer.code, true, problems));
  return { layers, problems };
}

// One line a person scans for: the application function and sequence, the IIN bits that
// are set, and each object header with its range ("READ g30v0 533-556"); a frame with no
// application header says what it is instead (a link frame, a later segment).
export function frameSummary(hex) {
  const { info } = decodeFrame(hex, true);
  if (!info.transport) return info.link ? `link ${info.link}` : "not a frame";
  if (!info.app) return `segment seq=${info.transport.sequence}${info.transport.fin ? " (last)" : ""} of a fragment`;
  const parts = [info.app.function, `seq=${info.app.sequence}`];
  if (info.app.iin !== null) parts.push(info.app.iin.length ? `IIN ${info.app.iin.join(" ")}` : "IIN none");
  for (const item of info.headers) {
    const indexes = item.indexes?.length ? `[${item.indexes.join(",")}${item.range && item.indexes.length < Number(item.range.slice(1)) ? ",…" : ""}]` : "";
    parts.push([item.gv, indexes || (item.range === "all" ? "" : item.range)].filter(Boolean).join(" "));
  }
  if (!info.transport.fin) parts.push("… continues");
  return parts.join(" ");
}

function readLink(octets, shade, problems) {
  const fields = [];
  const layer = { name: "Link", fields };
  if (octets.length < 10 || octets[0] !== 0x05 || octets[1] !== 0x64) {
    problems.push("not a link frame (no 05 64 header of 10 octets)");
    return { layer };
  }
  for (let i = 0; i < 8; i += 1) shade[i] = "link";
  shade[8] = shade[9] = "crc";
  const length = octets[2];
  const control = octets[3];
  const destination = octets[4] | (octets[5] << 8);
  const source = octets[6] | (octets[7] << 8);
  const headerCrc = octets[8] | (octets[9] << 8);
  const goodHeader = crc16(octets, 0, 8) === headerCrc;
  const primary = (control & 0x40) !== 0;
  const code = control & 0x0f;
  const name = (primary ? PRIMARY : SECONDARY)[code] ?? `FUNCTION_${code}`;
  const linkFunction = name;
  fields.push(
    ["start", "05 64"],
    ["length", `${length} (${Math.max(0, length - 5)} octets of user data)`],
    ["control", `0x${hex2(control)}: ${bits(control, [[0x80, "DIR"], [0x40, "PRM"], [0x20, primary ? "FCB" : "RES"], [0x10, primary ? "FCV" : "DFC"]])}`],
    ["function", `${code} ${name}`],
    ["destination", `${destination} (0x${hex4(destination)})`],
    ["source", `${source} (0x${hex4(source)})`],
    ["header CRC", `0x${hex4(headerCrc)} ${goodHeader ? "good" : "BAD"}`],
  );
  if (!goodHeader) problems.push("the header CRC is wrong: a receiver drops this frame");
  const userLength = Math.max(0, length - 5);
  const data = [];
  const positions = [];
  let at = 10;
  let badBlocks = 0;
  for (let left = userLength, block = 0; left > 0; block += 1) {
    const size = Math.min(16, left);
    const end = at + size;
    for (let i = at; i < Math.min(end, octets.length); i += 1) {
      data.push(octets[i]);
      positions.push(i);
    }
    if (end + 2 > octets.length) {
      problems.push(`data block ${block} is cut short: ${octets.length - at} of ${size + 2} octets`);
      break;
    }
    shade[end] = shade[end + 1] = "crc";
    if (crc16(octets, at, end) !== (octets[end] | (octets[end + 1] << 8))) badBlocks += 1;
    at = end + 2;
    left -= size;
  }
  fields.push(["data blocks", badBlocks ? `${badBlocks} with a BAD CRC` : "CRCs good"]);
  if (badBlocks) problems.push(`${badBlocks} data block CRC(s) wrong: a receiver drops this frame`);
  if (at < octets.length) {
    fields.push(["after the frame", `${octets.length - at} more octets`]);
  }
  return { layer, data: Uint8Array.from(data), positions, function: linkFunction };
}

function readApplication(app, problems) {
  const fields = [];
  if (app.length < 2) {
    problems.push("the application header is cut short");
    return { layer: { name: "Application", fields }, headerLength: app.length, code: -1, info: { function: "cut short", sequence: "?", iin: null } };
  }
  const control = app[0];
  const code = app[1];
  fields.push(
    ["control", `0x${hex2(control)}: ${bits(control, [[0x80, "FIR"], [0x40, "FIN"], [0x20, "CON"], [0x10, "UNS"]])}`],
    ["sequence", String(control & 0x0f)],
    ["function", `${code} ${functionName(code)}`],
  );
  let headerLength = 2;
  const info = { function: functionName(code), sequence: control & 0x0f, iin: null };
  if (code >= 0x81 && code <= 0x83) {
    if (app.length >= 4) {
      const iin = app[2] | (app[3] << 8);
      const set = IIN_NAMES.filter((_, bit) => iin & (1 << bit));
      info.iin = set;
      fields.push(["IIN", `${hex2(app[2])} ${hex2(app[3])}: ${set.join(" ") || "none"}`]);
      headerLength = 4;
    } else {
      problems.push("a response without its two IIN octets");
      headerLength = app.length;
    }
  }
  return { layer: { name: "Application", fields }, headerLength, code, info };
}

// Functions whose requests name objects without carrying their values.
const HEADERS_ONLY = new Set([1, 7, 8, 9, 10, 20, 21, 22]);

// `light`: the headers and ranges only, each object stepped over unread (for a summary).
function readObjects(data, code, fin, problems, light = false) {
  const items = [];
  const reader = new Reader(data);
  const headersOnly = HEADERS_ONLY.has(code);
  while (reader.left() > 0) {
    if (reader.left() < 3) {
      items.push({ title: `${reader.left()} octet(s) that are not an object header`, lines: [] });
      break;
    }
    const group = reader.u8();
    const variation = reader.u8();
    const qualifier = reader.u8();
    const item = { title: `g${group}v${variation} ${groupName(group, variation)}`, lines: [], gv: `g${group}v${variation}`, group, range: "", points: [] };
    items.push(item);
    const range = readRange(reader, qualifier, item);
    if (range === null) break;
    const layout = headersOnly || group === 60 || variation === 0 ? { size: 0 } : objectLayout(group, variation);
    if (!readValues(reader, range, layout, item, light)) {
      if (!fin) item.lines.push("… the fragment continues in the next frame");
      break;
    }
  }
  if (items.length === 0) problems.push("no object could be read");
  return { name: "Objects", items };
}

class Reader {
  constructor(octets) {
    this.octets = octets;
    this.view = new DataView(octets.buffer, octets.byteOffset, octets.byteLength);
    this.at = 0;
  }
  left() {
    return this.octets.length - this.at;
  }
  u8() {
    return this.octets[this.at++];
  }
  uint(size) {
    let value = 0;
    for (let i = 0; i < size; i += 1) value += this.octets[this.at + i] * 2 ** (8 * i);
    this.at += size;
    return value;
  }
}

const RANGE_SIZES = { 0: 1, 1: 2, 2: 4, 3: 1, 4: 2, 5: 4, 7: 1, 8: 2, 9: 4, 11: 1 };
const PREFIX_SIZES = [0, 1, 2, 4, 1, 2, 4];

function readRange(reader, qualifier, item) {
  const prefix = (qualifier >> 4) & 0x07;
  const code = qualifier & 0x0f;
  const q = `qualifier 0x${hex2(qualifier)}`;
  if (code === 6) {
    item.lines.push(`${q}: all objects (no range)`);
    item.range = "all";
    return { count: 0, start: null, prefix, all: true };
  }
  const size = RANGE_SIZES[code];
  if (size === undefined || prefix > 6) {
    item.lines.push(`${q}: not a qualifier this page reads`);
    return null;
  }
  if (code <= 5) {
    if (reader.left() < 2 * size) return cut(item, q);
    const start = reader.uint(size);
    const stop = reader.uint(size);
    item.lines.push(`${q}: ${code >= 3 ? "virtual addresses" : "indexes"} ${start}-${stop} (${stop - start + 1})`);
    item.range = start === stop ? String(start) : `${start}-${stop}`;
    return { count: stop >= start ? stop - start + 1 : 0, start, prefix };
  }
  if (reader.left() < size) return cut(item, q);
  const count = reader.uint(size);
  item.lines.push(`${q}: count ${count}${prefix ? `, each with ${prefix >= 4 ? "a size" : "an index"} prefix` : ""}`);
  item.range = `×${count}`;
  return { count, start: null, prefix };
}

function cut(item, q) {
  item.lines.push(`${q}: the range is cut short`);
  return null;
}

const SHOWN = 64;

function readValues(reader, range, layout, item, light = false) {
  if (range.all) return true;
  if (layout.size === 0) {
    // Headers without values (a READ by index list): the indexes alone.
    const prefixSize = range.prefix >= 1 && range.prefix <= 3 ? PREFIX_SIZES[range.prefix] : 0;
    for (let i = 0; prefixSize && i < range.count; i += 1) {
      if (reader.left() < prefixSize) return false;
      const tag = reader.uint(prefixSize);
      if (i < 8) item.indexes = [...(item.indexes ?? []), tag];
      if (i < SHOWN) item.lines.push(`index ${tag}`);
    }
    return true;
  }
  if (layout.size === undefined && !layout.attribute && !layout.bits) {
    item.lines.push("values of this group are not laid out here; objects after it are not read");
    return false;
  }
  const prefixSize = PREFIX_SIZES[range.prefix];
  if (layout.bits && range.prefix === 0) {
    const octets = Math.ceil((range.count * layout.bits) / 8);
    if (reader.left() < octets) {
      item.lines.push(`${octets} octets of packed values, ${reader.left()} here`);
      return false;
    }
    const first = reader.at;
    for (let i = 0; !light && i < Math.min(range.count, SHOWN); i += 1) {
      const bit = i * layout.bits;
      const v = (reader.octets[first + (bit >> 3)] >> (bit & 7)) & ((1 << layout.bits) - 1);
      item.points.push({ line: item.lines.length, index: (range.start ?? 0) + i, value: v });
      item.lines.push(`index ${(range.start ?? 0) + i}: ${v}`);
    }
    if (range.count > SHOWN) item.lines.push(`… ${range.count - SHOWN} more`);
    reader.at += octets;
    return true;
  }
  for (let i = 0; i < range.count; i += 1) {
    if (reader.left() < prefixSize) return false;
    const tag = prefixSize ? reader.uint(prefixSize) : (range.start ?? 0) + i;
    let size = layout.size;
    if (range.prefix >= 4) size = tag;
    else if (layout.attribute) size = reader.left() >= 2 ? 2 + reader.octets[reader.at + 1] : 2;
    else if (layout.bits) size = 1;
    if (reader.left() < size) {
      item.lines.push(`object ${i + 1} of ${range.count} is cut short`);
      return false;
    }
    if (range.prefix >= 1 && range.prefix <= 3 && i < 8) item.indexes = [...(item.indexes ?? []), tag];
    if (light) {
      reader.at += size;
      continue;
    }
    const text = layout.read ? layout.read(reader.view, reader.at, size) : `${size} octets`;
    if (i < SHOWN && range.prefix < 4) item.points.push({ line: item.lines.length, index: tag, value: layout.value ? layout.value(reader.view, reader.at) : null });
    if (i < SHOWN) item.lines.push(`${range.prefix >= 4 ? "object" : "index"} ${range.prefix >= 4 ? i : tag}: ${text}`);
    reader.at += size;
  }
  if (range.count > SHOWN) item.lines.push(`… ${range.count - SHOWN} more`);
  return true;
}
