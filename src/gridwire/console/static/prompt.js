// Asks for the token when the page has none or the service refused the one it had.

import { setToken } from "./api.js";
import { h } from "./dom.js";

let dialog = null;

export function askToken(refused) {
  return new Promise((resolve) => {
    if (dialog) dialog.remove();
    const input = h("input", { type: "password", name: "token", autocomplete: "off", required: true, "aria-label": "token" });
    const said = h("p", { class: refused ? "msg error" : "msg" }, refused ? "The service refused the token this page had." : "");
    const form = h(
      "form",
      { method: "dialog", class: "token-form" },
      h("h2", null, "Token needed"),
      h("p", null, "This console was started with a token. Paste it here: it is printed by ", h("code", null, "gridwire console"), " in the address it shows (", h("code", null, "?token=…"), ")."),
      said,
      input,
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Use token")),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      setToken(input.value.trim());
      dialog.close();
      dialog.remove();
      dialog = null;
      resolve();
    });
    dialog = h("dialog", { class: "token-dialog", id: "token-dialog" }, form);
    dialog.addEventListener("cancel", (event) => event.preventDefault());
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}
