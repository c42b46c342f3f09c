"""Every request an opendnp3 outstation receives, read from its application-layer log.

opendnp3 tells its application nothing about most requests (READ, RECORD_CURRENT_TIME,
freezes, ENABLE_UNSOLICITED, CONFIRM...). Its log does: with APP_HEX_RX, APP_HEADER_RX and
APP_OBJECT_RX set, each request arrives as one or more hex lines, then a header line
(``FIR: 1 FIN: 1 CON: 0 UNS: 0 SEQ: 3 FUNC: RECORD_CURRENT_TIME``), then one line per object
header (``050,003 Time and Date - ...``); each response it sends logs an APP_HEADER_TX line
with its IIN. This module turns those lines into ``request`` and ``response`` events, so a test
sees what a master put on the wire as opendnp3 decoded it. ``func`` is opendnp3's name for the
function code and ``fc`` its number (dnp3py names some functions differently).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

from peerio import Json, emit

# opendnp3's LogLevel bits (opendnp3/logging/LogLevels.h).
EVENT, ERROR, WARN, INFO = 0x1, 0x2, 0x4, 0x8
APP_HEADER_RX, APP_HEADER_TX = 0x800, 0x1000
APP_OBJECT_RX, APP_HEX_RX = 0x2000, 0x8000
NORMAL = EVENT | ERROR | WARN | INFO
REQUEST_LEVELS = NORMAL | APP_HEADER_RX | APP_OBJECT_RX | APP_HEX_RX | APP_HEADER_TX

_LEVEL_NAMES = {EVENT: "EVENT", ERROR: "ERROR", WARN: "WARN", INFO: "INFO"}
_HEADER = re.compile(
    r"FIR: (?P<fir>\d) FIN: (?P<fin>\d) CON: (?P<con>\d) UNS: (?P<uns>\d) SEQ: (?P<seq>\d+) "
    r"FUNC: (?P<func>\w+)(?: IIN: \[0x(?P<iin1>[0-9a-fA-F]{2}), 0x(?P<iin2>[0-9a-fA-F]{2})\])?"
)
_OBJECT = re.compile(r"(?P<group>\d{3}),(?P<variation>\d{3})")
IDLE_FLUSH_S = 0.05


def emit_log(level: int, source: str, message: str) -> None:
    """A stack's own log line (EVENT / ERROR / WARN / INFO) as a ``log`` event."""
    emit("log", level=_LEVEL_NAMES.get(level, str(level)), source=source, text=message)


def _header_fields(match: re.Match[str]) -> Json:
    return {
        "func": match["func"],
        "seq": int(match["seq"]),
        "fir": match["fir"] == "1",
        "fin": match["fin"] == "1",
        "con": match["con"] == "1",
        "uns": match["uns"] == "1",
    }


class RequestLog:
    """Collects the log lines of one request at a time and prints it as a ``request`` event.

    A request is printed when the next thing happens (its response, the next request, a
    callback that calls :meth:`flush`), or after it has been idle for 50 ms (a CONFIRM or a
    no-ack request has neither response nor callback).
    """

    def __init__(self, emit: Callable[..., None]) -> None:
        self._emit = emit
        self._lock = threading.Lock()
        self._pending: Json | None = None
        self._touched = 0.0
        self.last: Json | None = None
        threading.Thread(target=self._idle_flusher, name="request-log", daemon=True).start()

    def on_log(self, level: int, source: str, message: str) -> None:
        with self._lock:
            if level & APP_HEX_RX:
                if self._pending is not None and "func" in self._pending:
                    self._flush_locked()
                if self._pending is None:
                    self._pending = {"hex": [], "headers": []}
                self._pending["hex"].append(message.strip())
            elif level & APP_HEADER_RX:
                match = _HEADER.search(message)
                if match is not None:
                    if self._pending is None:
                        self._pending = {"hex": [], "headers": []}
                    self._pending.update(_header_fields(match))
            elif level & APP_OBJECT_RX:
                match = _OBJECT.match(message)
                if self._pending is not None and match is not None:
                    self._pending["headers"].append(
                        {
                            "group": int(match["group"]),
                            "variation": int(match["variation"]),
                            "text": message.strip(),
                        }
                    )
            elif level & APP_HEADER_TX:
                self._flush_locked()
                match = _HEADER.search(message)
                if match is not None:
                    fields = _header_fields(match)
                    fields["fc"] = 0x82 if fields["uns"] else 0x81
                    if match["iin1"] is not None:
                        fields["iin"] = int(match["iin1"], 16) | int(match["iin2"], 16) << 8
                    self._emit("response", **fields)
            elif level & NORMAL:
                emit_log(level, source, message)
            self._touched = time.monotonic()

    def flush(self) -> None:
        """Print the request being collected now (called before a callback prints)."""
        with self._lock:
            self._flush_locked()

    def current_headers(self) -> list[tuple[int, int]]:
        """(group, variation) of each header of the request being handled now."""
        with self._lock:
            request: Json | None = self._pending if self._pending is not None else self.last
            if request is None:
                return []
            return [(h["group"], h["variation"]) for h in request["headers"]]

    def _flush_locked(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None or "func" not in pending:
            if pending is not None:
                self._pending = pending  # hex without its header yet: keep collecting
            return
        record: dict[str, Any] = dict(pending)
        record["hex"] = " ".join(record["hex"])
        octets = record["hex"].split()
        record["fc"] = int(octets[1], 16) if len(octets) > 1 else None
        self.last = record
        self._emit("request", **record)

    def _idle_flusher(self) -> None:
        while True:
            time.sleep(IDLE_FLUSH_S)
            with self._lock:
                if self._pending is not None and time.monotonic() - self._touched >= IDLE_FLUSH_S:
                    self._flush_locked()
