// Building the page without markup strings: h("div", {class: "x", onclick: fn}, ...children).
// Properties that are DOM state (value, checked...) are set as properties, "on..." as
// listeners, everything else as attributes. Never a style attribute: the CSP forbids them,
// and layout that moves (virtual rows) is set through element.style, which it allows.

const PROPERTIES = new Set(["value", "checked", "disabled", "selected", "hidden", "open"]);

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) setProp(el, key, value);
  }
  append(el, children);
  return el;
}

function setProp(el, key, value) {
  if (value === undefined || value === null) return;
  if (key.startsWith("on") && typeof value === "function") {
    el.addEventListener(key.slice(2), value);
  } else if (key === "class") {
    el.className = value;
  } else if (key === "dataset") {
    Object.assign(el.dataset, value);
  } else if (PROPERTIES.has(key)) {
    el[key] = value;
  } else if (value !== false) {
    el.setAttribute(key, value === true ? "" : String(value));
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export function options(values, chosen) {
  return values.map((entry) => {
    const [value, label] = Array.isArray(entry) ? entry : [entry, entry];
    return h("option", { value, selected: String(value) === String(chosen) }, label);
  });
}

export function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", null, label), input, hint ? h("small", null, hint) : null);
}

export function lamp(state, title) {
  return h("span", { class: `lamp ${state}`, title: title ?? state, "aria-label": title ?? state });
}

// Runs an action started by `button`, its outcome shown in `message` (the place the action
// was taken): busy while it runs, then what `work` returned, or the error.
export async function act(button, message, work) {
  if (button) button.disabled = true;
  message.className = "msg busy";
  message.textContent = "…";
  try {
    const said = await work();
    message.className = "msg ok";
    message.textContent = said ?? "done";
    return true;
  } catch (error) {
    message.className = "msg error";
    message.textContent = describeError(error);
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}

export function describeError(error) {
  if (error && error.kind) return `${error.kind}: ${error.message}`;
  return String(error && error.message ? error.message : error);
}

export function message() {
  return h("div", { class: "msg", role: "status" });
}
