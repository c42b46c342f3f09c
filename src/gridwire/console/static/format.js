// How values, times and octets are written on the page.

const pad = (n, width = 2) => String(n).padStart(width, "0");

export function clock(ms) {
  if (ms === null || ms === undefined) return "";
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function dateTime(ms) {
  if (ms === null || ms === undefined) return "";
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(ms)}`;
}

export function age(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export function number(n) {
  if (typeof n !== "number") return String(n);
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(7)));
}

// A point's value as transmitted: a boolean, a count, an analog, or a composite record.
export function value(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return number(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(value).join(", ");
  return Object.entries(v)
    .map(([k, x]) => `${k}=${value(x)}`)
    .join(" ");
}

// Decimal places a multiplier or offset is written with (0.1: 1, 0.25: 2, 10: 0).
function places(n) {
  const text = String(n);
  if (/e-/.test(text)) return Number(text.split("e-")[1]);
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

// A transmitted value in a point's units, as the service's der.read scales it (raw x
// multiplier + offset, rounded to the scaling's decimals); a float is a floating-point
// variation's value, already in engineering units.
export function engineering(meta, raw) {
  if (!Number.isInteger(raw)) return raw;
  const scaled = raw * (meta.multiplier ?? 1) + (meta.offset ?? 0);
  return Number(scaled.toFixed(Math.min(12, Math.max(places(meta.multiplier ?? 1), places(meta.offset ?? 0)))));
}

const scales = (meta) => Boolean(meta) && ((meta.multiplier ?? 1) !== 1 || (meta.offset ?? 0) !== 0 || Boolean(meta.units));

// A point's value as a person reads it, given what the profile says of it (`meta`: units,
// multiplier, offset, enumeration; null without a profile): {text, raw}. A state is named
// once (raw holds its bit), an analog is in its units (raw holds the number sent), and
// without a profile the value is as transmitted with no raw beside it.
export function pointValue(meta, v) {
  if (v === null || v === undefined) return { text: "", raw: "" };
  if ((typeof v === "boolean" || typeof v === "number") && meta?.enumeration) {
    const n = Number(v);
    const found = meta.enumeration.find((e) => e.value === n);
    if (found) return { text: found.name, raw: typeof v === "boolean" ? String(n) : value(v) };
  }
  if (typeof v === "number" && scales(meta)) {
    const units = meta.units ? ` ${meta.units}` : "";
    return { text: `${number(engineering(meta, v))}${units}`, raw: value(v) };
  }
  return { text: value(v), raw: "" };
}

export function flags(list) {
  if (list === null || list === undefined) return "";
  return list.length ? list.join(" ") : "—";
}

export const gv = (group, variation) => `g${group}v${variation}`;

export function hexSpaced(hex) {
  return (hex.match(/../g) ?? []).join(" ");
}

export function ms(n) {
  return n === null || n === undefined ? "" : `${number(Math.round(n * 10) / 10)} ms`;
}

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// Parses "0-9, 12 14" into what `read` takes: integers and "a-b" ranges.
export function indexList(text) {
  const items = [];
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    if (/^\d+$/.test(part)) items.push(Number(part));
    else if (/^\d+-\d+$/.test(part)) items.push(part);
    else throw new Error(`"${part}" is not an index or a range a-b`);
  }
  if (!items.length) throw new Error("give at least one index");
  return items;
}

export function hexBody(text) {
  const hex = text.replace(/[\s:]/g, "").toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error("the body must be hexadecimal octets");
  return hex;
}
