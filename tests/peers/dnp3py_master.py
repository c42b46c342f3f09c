"""dnp3py master as a test peer: ``python tests/peers/dnp3py_master.py --port P``.

Connects to an outstation at ``--host --port`` (``--local 1 --remote 1024``). Prints ``ready``,
``value`` (each value a command read, with its ``id``) and ``error``. Commands: ``scan``
(``classes``: [0, 1, 2, 3] is an integrity poll, otherwise a poll of the event classes named)
and ``operate`` (``mode`` direct / sbo / direct_nr; ``kind`` crob, or int32: dnp3py's master
sends analog outputs only as g41v1). dnp3py's master reports no control status, so this
program reads the status octet that ends each object the outstation echoes (IEEE 1815-2012
A.8.1 and A.25: a g12v1 object is 11 octets, a g41v1 object 5, each ending in its status).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from dnp3.application.header import RequestHeader
from dnp3.application.parser import parse_response
from dnp3.core.enums import CommandStatus, ControlCode, FunctionCode, OperationType, TripCloseCode
from dnp3.master import Master, MasterConfig, MasterTcpRunner
from peerio import (
    CommandError,
    Json,
    add_endpoint_options,
    emit,
    hold_termination,
    require,
    serve_commands,
)

# Octets per object of the control echoes this program reads, and the (count, index) widths
# of the two qualifiers dnp3py's master uses: 0x17 (1-octet count and index), 0x28 (2 and 2).
_OBJECT_SIZE = {(12, 1): 11, (41, 1): 5}
_WIDTHS = {0x17: 1, 0x28: 2}


def control_statuses(
    group: int, variation: int, qualifier: int, data: bytes
) -> list[tuple[int, str]]:
    """(index, status name) of each object in an echoed control block."""
    size = _OBJECT_SIZE.get((group, variation))
    width = _WIDTHS.get(qualifier)
    if size is None or width is None:
        return []
    count = int.from_bytes(data[:width], "little")
    found = []
    offset = width
    for _ in range(count):
        index = int.from_bytes(data[offset : offset + width], "little")
        status = data[offset + width + size - 1]
        try:
            name = CommandStatus(status).name
        except ValueError:
            name = f"UNDEFINED_{status}"
        found.append((index, name))
        offset += width + size
    return found


def _stamp(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


class SOE:
    """dnp3py's SOEHandler protocol, printing each value with the id of the command reading."""

    def __init__(self) -> None:
        self.scan_id: object = None
        self.counts: Counter[str] = Counter()

    def _print(self, kind: str, values: list[Any], info: Any) -> None:
        self.counts[kind] += len(values)
        for v in values:
            value = v.state.name if kind == "double_bit" else v.value
            emit(
                "value",
                id=self.scan_id,
                unsolicited=bool(info.is_unsolicited),
                type=kind,
                index=v.index,
                value=value,
                flags=int(v.quality),
                time_ms=_stamp(v.timestamp),
            )

    def on_binary_input(self, values: list[Any], info: Any) -> None:
        self._print("binary", values, info)

    def on_binary_output(self, values: list[Any], info: Any) -> None:
        self._print("binary_output_status", values, info)

    def on_analog_input(self, values: list[Any], info: Any) -> None:
        self._print("analog", values, info)

    def on_analog_output(self, values: list[Any], info: Any) -> None:
        self._print("analog_output_status", values, info)

    def on_counter(self, values: list[Any], info: Any) -> None:
        self._print("counter", values, info)

    def on_frozen_counter(self, values: list[Any], info: Any) -> None:
        self._print("frozen_counter", values, info)

    def on_double_bit_input(self, values: list[Any], info: Any) -> None:
        self._print("double_bit", values, info)


class StatusMaster(Master):
    """dnp3py's Master, keeping the control statuses of the last response processed."""

    statuses: list[tuple[int, str]] = []

    def process_response(self, data: bytes) -> Any:
        info = super().process_response(data)
        found: list[tuple[int, str]] = []
        try:
            for block in parse_response(data).objects:
                header = block.header
                found += control_statuses(
                    header.group, header.variation, header.qualifier, block.data
                )
        except Exception as exc:
            emit("error", where="process_response", error=f"{type(exc).__name__}: {exc}")
        self.statuses = found
        return info


class Driver:
    def __init__(self, master: StatusMaster, runner: MasterTcpRunner, soe: SOE) -> None:
        self.master, self.runner, self.soe = master, runner, soe

    async def _ensure_open(self) -> None:
        if not self.runner.is_open:
            await self.runner.close()
            await self.runner.open()

    async def scan(self, command: Json) -> Json:
        await self._ensure_open()
        classes = set(command.get("classes", [0, 1, 2, 3]))
        self.soe.scan_id, self.soe.counts = command.get("id"), Counter()
        try:
            if 0 in classes:
                fragments = await self.runner.integrity_poll()
            else:
                fragments = await self.runner.class_poll(
                    class_1=1 in classes, class_2=2 in classes, class_3=3 in classes
                )
        except Exception as exc:
            return {
                "result": type(exc).__name__,
                "error": str(exc),
                "counts": dict(self.soe.counts),
            }
        finally:
            self.soe.scan_id = None
        return {"result": "SUCCESS", "counts": dict(self.soe.counts), "fragments": len(fragments)}

    def _task_operations(self, command: Json) -> Any:
        kind = str(require(command, "kind"))
        index = int(require(command, "index"))
        builder = self.master.command_builder()
        if kind == "crob":
            code = ControlCode.from_fields(
                OperationType[command.get("op_type", "LATCH_ON")],
                tcc=TripCloseCode[command.get("tcc", "NUL")],
                clear=bool(command.get("clear", False)),
            )
            builder.add_crob(
                index,
                code,
                int(command.get("count", 1)),
                int(command.get("on_ms", 100)),
                int(command.get("off_ms", 100)),
            )
        elif kind == "int32":
            builder.add_analog(index, int(require(command, "value")))
        else:
            raise CommandError("dnp3py's master sends crob or int32 (g41v1) only")
        return builder

    async def _exchange(self, request: Any) -> list[tuple[int, str]]:
        self.master.statuses = []
        await self.runner.request(request)
        return self.master.statuses

    async def operate(self, command: Json) -> Json:
        await self._ensure_open()
        builder = self._task_operations(command)
        mode = command.get("mode", "direct")
        if mode == "direct":
            statuses = await self._exchange(
                self.master.build_direct_operate(builder.build_direct_operate())
            )
        elif mode == "sbo":
            statuses = await self._exchange(self.master.build_select(builder.build_select()))
            if statuses and all(s == "SUCCESS" for _, s in statuses):
                statuses = await self._exchange(self.master.build_operate(builder.build_operate()))
        elif mode == "direct_nr":
            request = self.master.build_direct_operate(builder.build_direct_operate())
            header = RequestHeader.build(
                FunctionCode.DIRECT_OPERATE_NO_ACK, seq=request.header.control.seq
            )
            await self.runner.send(dataclasses.replace(request, header=header))
            return {"sent": True}
        else:
            raise CommandError("mode is direct, sbo or direct_nr")
        summary = "SUCCESS" if statuses and all(s == "SUCCESS" for _, s in statuses) else "FAILURE"
        return {"summary": summary, "points": [{"index": i, "status": s} for i, s in statuses]}


def _on_loop(loop: asyncio.AbstractEventLoop, fn: Callable[[Json], Any]) -> Callable[[Json], Json]:
    def run(command: Json) -> Json:
        result: Json = asyncio.run_coroutine_threadsafe(fn(command), loop).result(timeout=60)
        return result

    return run


async def _connect(runner: MasterTcpRunner, attempts: int = 50) -> None:
    for _ in range(attempts):
        try:
            await runner.open()
            return
        except Exception:
            await asyncio.sleep(0.2)
    await runner.open()


def main() -> None:
    hold_termination()
    parser = argparse.ArgumentParser(description=__doc__)
    add_endpoint_options(parser, local=1, remote=1024, tls=False)
    parser.add_argument("--response-timeout", type=float, default=5.0)
    args = parser.parse_args()

    soe = SOE()
    config = MasterConfig(
        address=args.local, outstation_address=args.remote, response_timeout=args.response_timeout
    )
    master = StatusMaster(config=config, handler=soe)
    runner = MasterTcpRunner(
        master=master, host=args.host, port=args.port, response_timeout=args.response_timeout
    )
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    try:
        asyncio.run_coroutine_threadsafe(_connect(runner), loop).result(timeout=30)
    except Exception as exc:
        emit("error", where="connect", error=f"{type(exc).__name__}: {exc}")
        os._exit(1)
    driver = Driver(master, runner, soe)
    emit("ready", port=args.port, pid=os.getpid())
    serve_commands(
        {"scan": _on_loop(loop, driver.scan), "operate": _on_loop(loop, driver.operate)},
        on_exit=lambda: None,
    )


if __name__ == "__main__":
    main()
