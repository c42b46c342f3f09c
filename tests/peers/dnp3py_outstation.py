"""dnp3py outstation as a test peer: ``python tests/peers/dnp3py_outstation.py --port P``.

A second, independent outstation (pure Python, asyncio). Its six point types carry the
harness's names: binary, binary_output_status, analog, analog_output_status, counter,
frozen_counter; ``--point-class TYPE:INDEX:CLASS`` sets a point's event class (0 = none).

Prints (JSON lines) the same events as yadnp3_outstation.py: ``ready``; ``request`` /
``response`` (as dnp3py parsed and built them); ``select`` / ``operate`` (an analog output's
``kind`` comes from the request's g41 variation); ``time_write`` (``via`` g50v1 or g50v3);
``restart``; ``freeze``; ``error``. Commands: ``update``, ``freeze_counter``,
``set_restart_iin``, ``app_iin`` (need_time only), ``answer``, ``restart_support``, ``quit``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any

from dnp3.application.parser import parse_request
from dnp3.core.enums import CommandStatus, ControlCode, FunctionCode
from dnp3.core.flags import AnalogQuality, BinaryQuality, CounterQuality
from dnp3.core.timestamp import DNP3Timestamp
from dnp3.database import (
    AnalogInputConfig,
    AnalogOutputConfig,
    BinaryInputConfig,
    BinaryOutputConfig,
    CounterConfig,
    Database,
    DatabaseConfig,
    EventClass,
)
from dnp3.outstation import (
    CommandResult,
    Outstation,
    OutstationConfig,
    OutstationTcpRunner,
    UnsolicitedConfig,
)
from outstation_policy import Answers, Restarts, policy_commands
from peerio import (
    CommandError,
    Json,
    add_endpoint_options,
    emit,
    guarded,
    hold_termination,
    now_ms,
    require,
    serve_commands,
    wait_listening,
)

TYPES = (
    "binary",
    "binary_output_status",
    "analog",
    "analog_output_status",
    "counter",
    "frozen_counter",
)
_NO_DELAY: int | None = None  # a restart callback's fallback: "not supported"
_G41_KINDS = {1: "int32", 2: "int16", 3: "float32", 4: "double64"}
_MODES = {
    FunctionCode.SELECT: "SelectBeforeOperate",
    FunctionCode.OPERATE: "SelectBeforeOperate",
    FunctionCode.DIRECT_OPERATE: "DirectOperate",
    FunctionCode.DIRECT_OPERATE_NO_ACK: "DirectOperateNoAck",
}


def _hex(data: bytes) -> str:
    return data.hex(" ").upper()


def _header_fields(header: Any) -> Json:
    """The fields of a request or response header, as yadnp3_outstation.py prints them."""
    control = header.control
    return {
        "func": header.function.name,
        "fc": int(header.function),
        "seq": control.seq,
        "fir": control.fir,
        "fin": control.fin,
        "con": control.con,
        "uns": control.uns,
    }


class WatchedOutstation(Outstation):
    """dnp3py's Outstation, printing each request it processes and each response it builds."""

    current: Any = None

    def process_request(self, data: bytes, *, peer: Any = None) -> list[Any]:
        try:
            request = parse_request(data)
        except Exception as exc:
            self.current = None
            emit("request", hex=_hex(data), error=f"{type(exc).__name__}: {exc}")
        else:
            self.current = request
            emit(
                "request",
                hex=_hex(data),
                headers=[
                    {"group": b.header.group, "variation": b.header.variation}
                    for b in request.objects
                ],
                **_header_fields(request.header),
            )
        responses: list[Any] = super().process_request(data, peer=peer)
        for response in responses:
            emit("response", **_header_fields(response.header), iin=int(response.header.iin))
        return responses

    def current_headers(self) -> list[tuple[int, int]]:
        if self.current is None:
            return []
        return [(b.header.group, b.header.variation) for b in self.current.objects]

    def current_function(self) -> Any:
        return None if self.current is None else self.current.header.function


class Handler:
    """dnp3py's CommandHandler protocol: prints each control and answers as told."""

    def __init__(self, answers: Answers) -> None:
        self.answers = answers
        self.outstation: WatchedOutstation | None = None
        # dnp3py answers every restart with g52v2 (milliseconds), or IIN2.0 given None.
        self.restarts = Restarts(("unsupported", "fine"), cold=("fine", 1000), warm=("fine", 50))

    def _mode(self) -> str:
        assert self.outstation is not None
        return _MODES.get(self.outstation.current_function(), "unknown")

    def _crob(
        self, phase: str, index: int, code: ControlCode, count: int, on: int, off: int
    ) -> CommandResult:
        control = {
            "kind": "crob",
            "index": index,
            "op_type": code.op_type.name,
            "tcc": code.tcc.name,
            "clear": code.clear,
            "count": count,
            "on_ms": on,
            "off_ms": off,
        }
        return self._answer(phase, control)

    def _analog(self, phase: str, index: int, value: float) -> CommandResult:
        assert self.outstation is not None
        variations = [v for g, v in self.outstation.current_headers() if g == 41]
        kind = _G41_KINDS.get(variations[0], "analog") if variations else "analog"
        shown: float | int = value if kind in ("float32", "double64", "analog") else int(value)
        return self._answer(phase, {"kind": kind, "index": index, "value": shown})

    def _answer(self, phase: str, control: Json) -> CommandResult:
        status = self.answers.status_for(phase, control["index"])
        if phase == "select":
            emit("select", **control, status=status)
        else:
            emit("operate", **control, mode=self._mode(), status=status)
        return CommandResult(status=CommandStatus[status])

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def select_binary_output(
        self, index: int, code: ControlCode, count: int, on_time: int, off_time: int
    ) -> CommandResult:
        return self._crob("select", index, code, count, on_time, off_time)

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def operate_binary_output(
        self,
        index: int,
        code: ControlCode,
        count: int,
        on_time: int,
        off_time: int,
        select_sequence: int,
    ) -> CommandResult:
        return self._crob("operate", index, code, count, on_time, off_time)

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def direct_operate_binary_output(
        self, index: int, code: ControlCode, count: int, on_time: int, off_time: int
    ) -> CommandResult:
        return self._crob("operate", index, code, count, on_time, off_time)

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def select_analog_output(self, index: int, value: float) -> CommandResult:
        return self._analog("select", index, value)

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def operate_analog_output(
        self, index: int, value: float, select_sequence: int
    ) -> CommandResult:
        return self._analog("operate", index, value)

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def direct_operate_analog_output(self, index: int, value: float) -> CommandResult:
        return self._analog("operate", index, value)

    def _restart(self, kind: str) -> int | None:
        mode, delay = self.restarts.requested(kind)
        return None if mode == "unsupported" else delay

    @guarded(_NO_DELAY)
    def cold_restart(self) -> int | None:
        return self._restart("cold")

    @guarded(_NO_DELAY)
    def warm_restart(self) -> int | None:
        return self._restart("warm")

    @guarded(CommandResult(status=CommandStatus.HARDWARE_ERROR))
    def freeze_counters(self, start: int, stop: int, clear: bool) -> CommandResult:
        assert self.outstation is not None
        database = self.outstation.database
        frozen = 0
        for index in list(database.counters):
            if start <= index <= stop and index in database.frozen_counters:
                database.freeze_counter(index)
                if clear:
                    database.update_counter(index, 0)
                frozen += 1
        emit("freeze", start=start, stop=stop, clear=clear, frozen=frozen)
        return CommandResult.success()


def _class(value: int) -> EventClass:
    return EventClass(value)


def build_database(points: int, classes: dict[tuple[str, int], int]) -> Database:
    config = DatabaseConfig(
        max_binary_inputs=points,
        max_binary_outputs=points,
        max_analog_inputs=points,
        max_analog_outputs=points,
        max_counters=points,
        max_frozen_counters=points,
    )
    database = Database(config=config)
    for index in range(points):
        database.add_binary_input(
            index, BinaryInputConfig(event_class=_class(classes.get(("binary", index), 1)))
        )
        database.add_binary_output(
            index,
            BinaryOutputConfig(event_class=_class(classes.get(("binary_output_status", index), 1))),
        )
        database.add_analog_input(
            index, AnalogInputConfig(event_class=_class(classes.get(("analog", index), 1)))
        )
        database.add_analog_output(index, AnalogOutputConfig())
        database.add_counter(
            index, CounterConfig(event_class=_class(classes.get(("counter", index), 1)))
        )
        database.add_frozen_counter(
            index, CounterConfig(event_class=_class(classes.get(("frozen_counter", index), 1)))
        )
    return database


# Per type: the Database method that sets it, the quality flags type, the value's type.
_UPDATES: dict[str, tuple[str, Any, Callable[[Any], Any]]] = {
    "binary": ("update_binary_input", BinaryQuality, bool),
    "binary_output_status": ("update_binary_output", BinaryQuality, bool),
    "analog": ("update_analog_input", AnalogQuality, float),
    "analog_output_status": ("update_analog_output", AnalogQuality, float),
    "counter": ("update_counter", CounterQuality, int),
}


def _apply_update(database: Database, item: Json) -> None:
    kind = str(require(item, "type"))
    if kind not in _UPDATES:
        raise CommandError(
            f"type {kind!r} is not one of {sorted(_UPDATES)} (frozen counters: freeze_counter)"
        )
    method, quality, convert = _UPDATES[kind]
    flags = item.get("flags")
    stamp = DNP3Timestamp(int(item["time_ms"])) if item.get("time_ms") is not None else None
    getattr(database, method)(
        int(require(item, "index")),
        convert(require(item, "value")),
        None if flags is None else quality(flags),
        stamp,
    )


def _on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[[Json], Json]) -> Callable[[Json], Json]:
    """Run a command on the outstation's event loop (dnp3py is not thread-safe)."""

    def run(command: Json) -> Json:
        async def call() -> Json:
            return fn(command)

        return asyncio.run_coroutine_threadsafe(call(), loop).result(timeout=30)

    return run


def _commands(
    outstation: WatchedOutstation, handler: Handler, points: int
) -> dict[str, Callable[[Json], Json]]:
    database = outstation.database

    def update(command: Json) -> Json:
        items = command.get("points") or [command]
        for item in items:
            if not 0 <= int(require(item, "index")) < points:
                raise CommandError(f"{item.get('type')} {item['index']} is beyond the database")

        def apply_all(db: Database) -> None:
            for item in items:
                _apply_update(db, item)

        database.transaction(apply_all)
        return {"applied": len(items)}

    def freeze_counter(command: Json) -> Json:
        database.freeze_counter(int(require(command, "index")))
        return {}

    def set_restart_iin(command: Json) -> Json:
        # dnp3py has clear_restart() but no public way to set the bit again.
        outstation._state.set_restart()
        return {}

    def app_iin(command: Json) -> Json:
        if "need_time" not in command or len(set(command) - {"cmd", "id", "need_time"}) > 0:
            raise CommandError("dnp3py's outstation can set need_time only")
        if command["need_time"]:
            outstation._state.set_need_time()
        else:
            outstation._state.clear_need_time()
        return {}

    return {
        "update": update,
        "freeze_counter": freeze_counter,
        "set_restart_iin": set_restart_iin,
        "app_iin": app_iin,
        **policy_commands(handler.answers, handler.restarts),
    }


def _point_classes(items: list[str]) -> dict[tuple[str, int], int]:
    classes: dict[tuple[str, int], int] = {}
    for item in items:
        kind, index, value = item.split(":")
        if kind not in TYPES:
            raise SystemExit(f"--point-class type must be one of {TYPES}")
        classes[(kind, int(index))] = int(value)
    return classes


def main() -> None:
    hold_termination()
    parser = argparse.ArgumentParser(description=__doc__)
    add_endpoint_options(parser, local=1024, remote=1, tls=False)
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--point-class", action="append", default=[], help="TYPE:INDEX:CLASS")
    parser.add_argument("--need-time", action="store_true")
    args = parser.parse_args()

    handler = Handler(Answers(args.points, set(CommandStatus.__members__)))
    outstation = WatchedOutstation(
        config=OutstationConfig(
            address=args.local,
            master_address=args.remote,
            time_sync_required=args.need_time,
            unsolicited=UnsolicitedConfig(enabled=False),
        ),
        database=build_database(args.points, _point_classes(args.point_class)),
        handler=handler,
    )
    handler.outstation = outstation

    @guarded(None)
    def time_written(stamp: DNP3Timestamp) -> None:
        headers = outstation.current_headers()
        via = "g50v3" if (50, 3) in headers else "g50v1" if (50, 1) in headers else "unknown"
        received = now_ms()
        emit(
            "time_write",
            ms=stamp.milliseconds,
            via=via,
            lan=via == "g50v3",
            local_ms=received,
            offset_ms=stamp.milliseconds - received,
        )

    outstation.time_handler = time_written
    loop = asyncio.new_event_loop()
    runner = OutstationTcpRunner(outstation=outstation, host=args.host, port=args.port)
    threading.Thread(target=loop.run_until_complete, args=(runner.run(),), daemon=True).start()
    if not wait_listening(args.port):
        emit("error", where="startup", error=f"not listening on {args.port} after 10 s")
        os._exit(1)
    emit("ready", port=args.port, pid=os.getpid(), points=args.points)
    commands = {
        name: _on_loop(loop, fn) for name, fn in _commands(outstation, handler, args.points).items()
    }
    serve_commands(commands, on_exit=lambda: None)


if __name__ == "__main__":
    main()
