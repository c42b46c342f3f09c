"""yadnp3 (opendnp3) master as a test peer: ``python tests/peers/yadnp3_master.py --port P``.

Connects to an outstation at ``--host --port`` (link addresses ``--local 1 --remote 1024``).
Prints (JSON lines): ``ready``; ``channel``; ``task`` (the stack's own tasks: startup integrity
poll, time sync, event scans...); ``iin`` (when the outstation's IIN changes); ``value`` (each
value received; a command's values carry its ``id``); ``fragment`` (per fragment, with
``--quiet`` in place of the stack's own values); ``log``; ``error``.

Commands (stdin), each answered by one ``reply`` once its task completes (one at a time):
``scan`` (``classes``, default [0, 1, 2, 3]: an integrity poll; ``values``: print them),
``read`` (``group``, ``variation``, optional ``start`` / ``stop``),
``operate`` (``mode`` direct / sbo / direct_nr and a CROB or analog output), ``restart``
(``kind`` cold / warm; replies ``delay`` as sent: seconds for g52v1, ms for g52v2), ``freeze`` (``type`` ImmediateFreeze / FreezeAndClear / ...),
``perform`` (any function code with raw object headers in hex), ``quit``.

``--bench N`` instead runs N integrity polls one after another once the startup tasks are done,
prints ``{"event": "bench", "median_ms", "p90_ms", "min_ms", ...}`` and exits.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections import Counter
from typing import Any

import opendnp3 as o
import yadnp3_controls as controls
import yadnp3_points as points
from peerio import (
    CommandError,
    Json,
    add_endpoint_options,
    emit,
    enum_member,
    guarded,
    hold_termination,
    listen_for_termination,
    now_ms,
    require,
    serve_commands,
)
from request_log import NORMAL, emit_log
from yadnp3_channels import client_channel, manager

_IIN_BITS = [
    "BROADCAST",
    "CLASS1_EVENTS",
    "CLASS2_EVENTS",
    "CLASS3_EVENTS",
    "NEED_TIME",
    "LOCAL_CONTROL",
    "DEVICE_TROUBLE",
    "DEVICE_RESTART",
    "FUNC_NOT_SUPPORTED",
    "OBJECT_UNKNOWN",
    "PARAM_ERROR",
    "EVENT_BUFFER_OVERFLOW",
    "ALREADY_EXECUTING",
    "CONFIG_CORRUPT",
    "RESERVED1",
    "RESERVED2",
]
_TIME_SYNC = {"none": "None", "lan": "LAN", "nonlan": "NonLAN"}
_STARTUP_TASKS = {
    "DISABLE_UNSOLICITED",
    "CLEAR_RESTART",
    "STARTUP_INTEGRITY_POLL",
    "ENABLE_UNSOLICITED",
}


class SOEHandler(o.ISOEHandler):  # type: ignore[misc]
    """Prints what one scan (``scan_id``) or the stack's own tasks (``scan_id`` None) receive."""

    def __init__(self, scan_id: object = None, values: bool = True) -> None:
        super().__init__()
        self.scan_id = scan_id
        self.values = values
        self.counts: Counter[str] = Counter()
        self.fragments = 0
        self._fragment: Counter[str] = Counter()
        self._unsolicited = False

    @guarded(None)
    def BeginFragment(self, info: Any) -> None:
        self.fragments += 1
        self._fragment = Counter()
        self._unsolicited = bool(info.unsolicited)

    @guarded(None)
    def EndFragment(self, info: Any) -> None:
        if not self.values:
            emit(
                "fragment",
                id=self.scan_id,
                unsolicited=bool(info.unsolicited),
                fir=bool(info.fir),
                fin=bool(info.fin),
                counts=dict(self._fragment),
            )

    @guarded(None)
    def Process(self, info: Any, values: list[Any]) -> None:
        kind = points.kind_of(values)
        self.counts[kind] += len(values)
        self._fragment[kind] += len(values)
        if not self.values:
            return
        gv = info.gv.name
        event = bool(info.isEventVariation)
        for value in values:
            emit(
                "value",
                id=self.scan_id,
                gv=gv,
                is_event=event,
                unsolicited=self._unsolicited,
                **points.describe(kind, value),
            )


class _Counting(o.ISOEHandler):  # type: ignore[misc]
    """Counts fragments only: with no Process() method, opendnp3 hands Python no values."""

    def __init__(self) -> None:
        super().__init__()
        self.fragments = 0

    def BeginFragment(self, info: Any) -> None:
        self.fragments += 1

    def EndFragment(self, info: Any) -> None:
        pass


class Application(o.IMasterApplication):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.user_done = threading.Event()
        self.user_result = "UNKNOWN"
        self.startup_done = threading.Event()
        self._startup_seen: set[str] = set()
        self._iin: int | None = None

    @guarded(None)
    def OnTaskComplete(self, info: Any) -> None:
        kind = info.type.name
        if kind == "USER_TASK":
            self.user_result = info.result.name
            self.user_done.set()
            return
        emit("task", type=kind, result=info.result.name)
        if kind in _STARTUP_TASKS:
            self._startup_seen.add(kind)
            if {"STARTUP_INTEGRITY_POLL", "ENABLE_UNSOLICITED"} <= self._startup_seen:
                self.startup_done.set()

    @guarded(None)
    def OnClose(self) -> None:
        # A new connection starts from nothing: its first IIN is printed even when it equals the
        # last one of the old connection (e.g. DEVICE_RESTART not yet cleared when the
        # outstation restarted), so a test waiting for it after a reconnect sees it.
        self._iin = None

    @guarded(None)
    def OnReceiveIIN(self, iin: Any) -> None:
        value = int(iin.LSB) | int(iin.MSB) << 8
        if value != self._iin:
            self._iin = value
            emit(
                "iin",
                iin=value,
                bits=[name for bit, name in enumerate(_IIN_BITS) if value >> bit & 1],
            )

    def AssignClassDuringStartup(self) -> bool:
        return False

    @guarded(o.UTCTimestamp(0))
    def Now(self) -> Any:
        # Not listed by dir(IMasterApplication) but called: without it the master's time
        # sync writes 0 (1970-01-01).
        return o.UTCTimestamp(now_ms())


class Master:
    """Runs one command at a time, waiting for the stack to finish it."""

    def __init__(self, stack: Any, app: Application, timeout_s: float) -> None:
        self.stack = stack
        self.app = app
        self.timeout_s = timeout_s

    def _run_user_task(self, start: Any) -> str:
        self.app.user_done.clear()
        start()
        if not self.app.user_done.wait(self.timeout_s):
            raise CommandError(f"task did not complete in {self.timeout_s} s")
        return self.app.user_result

    def _run_with_callback(self, start: Any) -> Any:
        done = threading.Event()
        box: list[Any] = []

        @guarded(None)
        def callback(result: Any) -> None:
            box.append(result)
            done.set()

        self.app.user_done.clear()
        start(callback)
        if not done.wait(self.timeout_s):
            raise CommandError(f"task did not complete in {self.timeout_s} s")
        return box[0]

    def scan(self, command: Json) -> Json:
        classes = set(command.get("classes", [0, 1, 2, 3]))
        field = o.ClassField(*(c in classes for c in range(4)))
        handler = SOEHandler(command.get("id"), bool(command.get("values", True)))
        result = self._run_user_task(lambda: self.stack.ScanClasses(field, handler))
        return {"result": result, "counts": dict(handler.counts), "fragments": handler.fragments}

    def read(self, command: Json) -> Json:
        """Read one group and variation (all objects, or ``start``..``stop``): how a test gets a
        variation the outstation would not pick itself, such as g30v5 floats or g32v3 times."""
        gv = o.GroupVariationID(int(require(command, "group")), int(require(command, "variation")))
        handler = SOEHandler(command.get("id"), bool(command.get("values", True)))
        if "start" in command:
            start, stop = int(command["start"]), int(require(command, "stop"))
            result = self._run_user_task(lambda: self.stack.ScanRange(gv, start, stop, handler))
        else:
            result = self._run_user_task(lambda: self.stack.ScanAllObjects(gv, handler))
        return {"result": result, "counts": dict(handler.counts), "fragments": handler.fragments}

    def operate(self, command: Json) -> Json:
        mode = str(command.get("mode", "direct"))
        index = int(require(command, "index"))
        if mode == "direct_nr":
            header = o.Header.Raw(controls.raw_object(command))
            self.stack.PerformFunction("direct_nr", o.FunctionCode.DIRECT_OPERATE_NR, [header])
            return {"sent": True}
        control = controls.build(command)
        if mode == "direct":
            result = self._run_with_callback(
                lambda cb: self.stack.DirectOperate(control, index, cb)
            )
        elif mode == "sbo":
            result = self._run_with_callback(
                lambda cb: self.stack.SelectAndOperate(control, index, cb)
            )
        else:
            raise CommandError("mode is direct, sbo or direct_nr")
        return {
            "summary": result.summary.name,
            "points": [
                {"index": int(p.index), "state": p.state.name, "status": p.status.name}
                for p in result.to_list()
            ],
        }

    def restart(self, command: Json) -> Json:
        kind = enum_member(o.RestartType, str(command.get("kind", "cold")).upper())
        result = self._run_with_callback(lambda cb: self.stack.Restart(kind, cb))
        # str(TimeDuration) is milliseconds, but yadnp3 puts a g52v1 count of seconds into it
        # unconverted: ``delay`` is the number the outstation sent, in its own unit.
        return {"summary": result.summary.name, "delay": int(str(result.restartTime))}

    def freeze(self, command: Json) -> Json:
        kind = enum_member(o.FreezeType, command.get("type", "ImmediateFreeze"))
        headers = [o.Header.AllObjects(20, 0)]
        if kind.name.endswith("NR"):
            self.stack.Freeze(kind, headers)
            return {"sent": True}
        return {"result": self._run_user_task(lambda: self.stack.Freeze(kind, headers))}

    def perform(self, command: Json) -> Json:
        func = enum_member(o.FunctionCode, require(command, "func"))
        headers = [o.Header.Raw(bytes.fromhex(h)) for h in command.get("headers", [])]
        if func.name.endswith("_NR"):
            self.stack.PerformFunction(func.name, func, headers)
            return {"sent": True}
        return {
            "result": self._run_user_task(
                lambda: self.stack.PerformFunction(func.name, func, headers)
            )
        }

    def bench(self, polls: int) -> Json:
        counting = _Counting()
        times: list[float] = []
        fragments: list[int] = []
        for _ in range(polls):
            counting.fragments = 0
            self.app.user_done.clear()
            started = time.perf_counter()
            self.stack.ScanClasses(o.ClassField.AllClasses(), counting)
            if not self.app.user_done.wait(self.timeout_s):
                raise CommandError("a benchmark poll did not complete")
            times.append((time.perf_counter() - started) * 1000)
            if self.app.user_result != "SUCCESS":
                raise CommandError(f"a benchmark poll ended {self.app.user_result}")
            fragments.append(counting.fragments)
        ordered = sorted(times)
        return {
            "polls": polls,
            "median_ms": round(statistics.median(ordered), 3),
            "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 3),
            "min_ms": round(ordered[0], 3),
            "max_ms": round(ordered[-1], 3),
            "fragments": statistics.median(fragments),
        }


def main() -> None:
    hold_termination()
    parser = argparse.ArgumentParser(description=__doc__)
    add_endpoint_options(parser, local=1, remote=1024, tls=True)
    parser.add_argument("--retry-ms", type=int, default=200, help="reconnect delay")
    parser.add_argument("--time-sync", choices=["none", "lan", "nonlan"], default="none")
    parser.add_argument("--response-timeout-ms", type=int, default=5000)
    parser.add_argument(
        "--task-timeout", type=float, default=30.0, help="seconds a command may take"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="fragment summaries, not the stack's own values"
    )
    parser.add_argument(
        "--bench", type=int, default=0, help="N integrity polls, print figures, exit"
    )
    args = parser.parse_args()

    mgr, keep = manager(emit_log)
    channel = client_channel(mgr, args, NORMAL, args.retry_ms, keep)
    config = o.MasterStackConfig()
    config.link.LocalAddr, config.link.RemoteAddr = args.local, args.remote
    config.master.responseTimeout = o.TimeDuration.Milliseconds(args.response_timeout_ms)
    config.master.timeSyncMode = enum_member(o.TimeSyncMode, _TIME_SYNC[args.time_sync])
    application = Application()
    handler = SOEHandler(None, values=not (args.quiet or args.bench))
    keep += [application, handler]
    stack = channel.AddMaster("master", handler, application, config)
    stack.Enable()
    master = Master(stack, application, args.task_timeout)
    emit("ready", port=args.port, pid=os.getpid(), tls=args.tls_ca is not None)
    if args.bench:
        listen_for_termination()
        if not application.startup_done.wait(args.task_timeout):
            emit("error", where="bench", error="startup tasks did not complete")
        else:
            try:
                emit("bench", **master.bench(args.bench))
            except CommandError as exc:
                emit("error", where="bench", error=str(exc))
        mgr.Shutdown()
        os._exit(0)
    serve_commands(
        {
            "scan": master.scan,
            "read": master.read,
            "operate": master.operate,
            "restart": master.restart,
            "freeze": master.freeze,
            "perform": master.perform,
        },
        on_exit=mgr.Shutdown,
    )


if __name__ == "__main__":
    main()
