// The one EventSource of the page. Events go to `onEvent(name, data)`; a stream that opens
// again after it was lost, and a `lost` event, call `onResync(why)`: whatever happened in
// between was not seen, so the page reads its state again.

import { eventsUrl } from "./api.js";
import { emit, state } from "./store.js";

export const EVENT_NAMES = ["frame", "exchange", "unsolicited", "connection", "outstations", "check", "lost"];
const RETRY_MS = 2000;

let source = null;
let opened = false;
let retry = null;

function setState(value) {
  state.stream = value;
  emit("stream", value);
}

// `onResync(null)` on the first open: the page reads what it shows now that nothing can be
// missed; a reason on any later open.
export function startStream({ onEvent, onResync, onClosed }) {
  stopStream();
  const es = new EventSource(eventsUrl());
  source = es;
  es.onopen = () => {
    setState("live");
    onResync(opened ? "the event stream opened again" : null);
    opened = true;
  };
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) {
      setState("closed");
      es.close();
      if (source === es) source = null;
      retry = setTimeout(() => {
        retry = null;
        onClosed();
      }, RETRY_MS);
    } else {
      setState("reconnecting");
    }
  };
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (name === "lost") onResync(`the page fell behind: ${data.dropped} updates dropped`);
      else onEvent(name, data);
    });
  }
}

export function stopStream() {
  if (retry !== null) clearTimeout(retry);
  retry = null;
  if (source) source.close();
  source = null;
}
