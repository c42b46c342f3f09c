"""yadnp3 (opendnp3) outstation serving a small DER point map of our own:
``python tests/peers/yadnp3_der.py --port P --map MAP.json``.

The map is a gridwire JSON map (format ``gridwire.der-map``) read here with plain JSON: its
points (kind, index, value, multiplier, offset, minimum, maximum, associated) are served by
opendnp3 as binary inputs (BI), binary output statuses (BO), analog inputs (AI) and analog
output statuses (AO), each ONLINE with the map's value as transmitted. Its command handler
decides each control as a DER would and mirrors outputs to inputs:

- a control for an output the map does not have: NOT_SUPPORTED;
- a CROB latches its binary output on or off; the output status and the input the map
  associates with it take the state;
- an analog output takes a 16- or 32-bit integer as transmitted, or a single or double float
  as the engineering value (floating-point variations are not scaled), held as the nearest
  whole number ``(value - offset) / multiplier``; outside the map's minimum and maximum it is
  refused OUT_OF_RANGE; the output status and its associated input take it.

Prints (JSON lines): ``ready``; ``channel``; ``request`` / ``response`` (from opendnp3's log);
``select`` and ``operate`` (each control as it arrived, the status answered and, for an
operate that succeeded, the ``raw`` value held); ``error``. Commands (stdin): ``quit``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import opendnp3 as o
import orjson
import yadnp3_controls as controls
from peerio import (
    Json,
    add_endpoint_options,
    emit,
    guarded,
    hold_termination,
    serve_commands,
    wait_listening,
)
from request_log import REQUEST_LEVELS, RequestLog
from yadnp3_channels import manager, server_channel

ONLINE = 0x01
_MEASUREMENTS: dict[str, Any] = {
    "BI": o.Binary,
    "BO": o.BinaryOutputStatus,
    "AI": o.Analog,
    "AO": o.AnalogOutputStatus,
}


class PointMap:
    """The map's points by (kind, index), and each one's mirror."""

    def __init__(self, path: Path) -> None:
        data = orjson.loads(path.read_bytes())
        self.points: dict[tuple[str, int], Json] = {
            (p["kind"], int(p["index"])): p for p in data["points"] if p["kind"] in _MEASUREMENTS
        }

    @property
    def size(self) -> int:
        """Points of each type the database needs (one past the highest index)."""
        return 1 + max(index for _, index in self.points)

    def mirror(self, kind: str, index: int) -> tuple[str, int] | None:
        associated = self.points[(kind, index)].get("associated")
        if not associated:
            return None
        text = str(associated)
        return text[:2], int(text[2:])


def measurement(kind: str, value: Any) -> Any:
    made = _MEASUREMENTS[kind](bool(value) if kind in ("BI", "BO") else float(value))
    state = 0x80 if kind in ("BI", "BO") and value else 0
    made.flags = o.Flags(ONLINE | state)
    return made


def held(point: Json, control: Json) -> int:
    """The whole number an analog output holds for a control (see the module's notes)."""
    value = control["value"]
    if control["kind"] in ("float32", "double64"):
        return round(
            (float(value) - float(point.get("offset", 0.0))) / point.get("multiplier", 1.0)
        )
    return int(value)


class CommandHandler(o.ICommandHandler):  # type: ignore[misc]
    def __init__(self, points: PointMap, requests: RequestLog) -> None:
        super().__init__()
        self._points = points
        self._requests = requests

    def Begin(self) -> None:
        pass

    def End(self) -> None:
        pass

    def _decide(self, control: Json) -> tuple[Any, str | None, bool | int | None]:
        """The status for a control, the output it sets and the value that output takes."""
        kind = "BO" if control["kind"] == "crob" else "AO"
        point = self._points.points.get((kind, control["index"]))
        if point is None:
            return o.CommandStatus.NOT_SUPPORTED, None, None
        if kind == "BO":
            state = controls.output_state(control)
            if state is None:
                return o.CommandStatus.NOT_SUPPORTED, None, None
            return o.CommandStatus.SUCCESS, kind, bool(state[1])
        raw = held(point, control)
        low, high = point.get("minimum"), point.get("maximum")
        if (low is not None and raw < low) or (high is not None and raw > high):
            return o.CommandStatus.OUT_OF_RANGE, None, None
        return o.CommandStatus.SUCCESS, kind, raw

    @guarded(o.CommandStatus.HARDWARE_ERROR)
    def Select(self, command: Any, index: int) -> Any:
        control = controls.describe(command, int(index))
        status, _, _ = self._decide(control)
        self._requests.flush()
        emit("select", **control, status=status.name)
        return status

    @guarded(o.CommandStatus.HARDWARE_ERROR)
    def Operate(self, command: Any, index: int, handler: Any, op_type: Any) -> Any:
        control = controls.describe(command, int(index))
        status, kind, value = self._decide(control)
        self._requests.flush()
        emit("operate", **control, mode=op_type.name, status=status.name, raw=value)
        if kind is not None and value is not None:
            handler.Update(measurement(kind, value), int(index))
            mirror = self._points.mirror(kind, int(index))
            if mirror is not None:
                handler.Update(measurement(mirror[0], value), mirror[1])
        return status


def main() -> None:
    hold_termination()
    parser = argparse.ArgumentParser(description=__doc__)
    add_endpoint_options(parser, local=1024, remote=1, tls=True)
    parser.add_argument("--map", type=Path, required=True, help="a gridwire JSON point map")
    args = parser.parse_args()

    points = PointMap(args.map)
    requests = RequestLog(emit)
    mgr, keep = manager(requests.on_log)
    channel = server_channel(mgr, args, REQUEST_LEVELS, keep)
    config = o.OutstationStackConfig(o.DatabaseConfig(points.size))
    config.link.LocalAddr, config.link.RemoteAddr = args.local, args.remote
    config.outstation.eventBufferConfig = o.EventBufferConfig.AllTypes(100)
    handler = CommandHandler(points, requests)
    application = o.IOutstationApplication()
    keep += [handler, application]
    outstation = channel.AddOutstation("outstation", handler, application, config)
    builder = o.UpdateBuilder()
    for (kind, index), point in points.points.items():
        builder.Update(measurement(kind, point.get("value") or 0), index)
    outstation.Apply(builder.Build())
    outstation.Enable()
    if not wait_listening(args.port):
        emit("error", where="startup", error=f"not listening on {args.port} after 10 s")
        os._exit(1)
    emit("ready", port=args.port, pid=os.getpid(), points=len(points.points))
    serve_commands({}, on_exit=mgr.Shutdown)


if __name__ == "__main__":
    main()
