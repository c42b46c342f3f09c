// The one way the page talks to the service: POST /api with the message envelope
// {id, op, outstation, params}. The token is taken once from ?token=, kept in
// sessionStorage and removed from the address bar; a call the service refuses for want of
// it (401) raises "token" so the page can ask for it.

import { addLog, emit } from "./store.js";

const TOKEN_KEY = "gridwire.token";
let token = null;
let ids = 0;

export class ApiError extends Error {
  constructor(kind, message, status) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export function takeToken() {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token");
  if (given !== null) {
    if (given) sessionStorage.setItem(TOKEN_KEY, given);
    url.searchParams.delete("token");
    window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
  }
  token = sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  token = value || null;
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export const hasToken = () => token !== null;

// JSON.stringify writes 5000.0 as 5000, an integer; the service reads an integer as a
// transmitted value and a float as an engineering one. A number typed with a point or an
// exponent is kept as typed.
const FLOAT_MARK = "\u0000float:";

export function typedNumber(text) {
  const trimmed = String(text).trim();
  const n = Number(trimmed);
  if (trimmed === "" || !Number.isFinite(n)) throw new Error(`"${text}" is not a number`);
  if (!/[.eE]/.test(trimmed) || !Number.isInteger(n)) return n;
  return { toJSON: () => `${FLOAT_MARK}${n.toFixed(1)}` };
}

function encode(message) {
  return JSON.stringify(message).replace(/"\\u0000float:([-0-9.]+)"/g, "$1");
}

// The event stream cannot carry a header: the token goes as the query parameter.
export const eventsUrl = () => (token ? `events?token=${encodeURIComponent(token)}` : "events");

function shortParams(params) {
  const text = JSON.stringify(params);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

export async function call(op, params = {}, outstation = undefined) {
  ids += 1;
  const message = { id: ids, op, params };
  if (outstation !== undefined && outstation !== null) message.outstation = outstation;
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const started = performance.now();
  const where = outstation ? ` ${outstation}` : "";
  let response;
  try {
    response = await fetch("api", {
      method: "POST",
      headers,
      body: encode(message),
      cache: "no-store",
      credentials: "omit",
    });
  } catch (error) {
    addLog("asked", `${op}${where}: the service did not answer`, shortParams(params));
    throw new ApiError("network", `the service did not answer (${error.message})`);
  }
  let envelope = null;
  try {
    envelope = await response.json();
  } catch {
    envelope = null;
  }
  const took = Math.round(performance.now() - started);
  if (response.status === 401) {
    emit("token-refused");
    addLog("asked", `${op}${where}: refused, token needed`, shortParams(params));
    throw new ApiError("token", envelope?.error?.message ?? "a token is needed", 401);
  }
  if (!envelope || typeof envelope.ok !== "boolean") {
    addLog("asked", `${op}${where}: HTTP ${response.status}, not an envelope`, shortParams(params));
    throw new ApiError("request", `HTTP ${response.status}: the answer is not an envelope`, response.status);
  }
  if (!envelope.ok) {
    const { kind, message: said } = envelope.error;
    addLog("asked", `${op}${where}: ${kind}: ${said} (${took} ms)`, shortParams(params));
    throw new ApiError(kind, said, response.status);
  }
  addLog("asked", `${op}${where}: ok (${took} ms)`, shortParams(params));
  return envelope.result;
}
