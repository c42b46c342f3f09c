"""yadnp3 (opendnp3) outstation as a test peer: ``python tests/peers/yadnp3_outstation.py --port P``.

Prints (JSON lines): ``ready``; ``channel`` (connection state); ``request`` / ``response`` (every
request it receives and every response it sends, from opendnp3's own decoding); ``select`` and
``operate`` (each control and the status answered); ``time_write`` (with ``via`` g50v1 or g50v3,
the latter meaning LAN time sync: RECORD_CURRENT_TIME then a write of the last recorded time);
``restart``; ``assign_class``; ``confirm_processed``; ``log``; ``error``.

Commands (stdin): ``update`` (one point, or ``points``: a list of them), ``freeze_counter``,
``set_restart_iin``, ``app_iin``, ``answer`` (the CommandStatus for the next controls),
``restart_support``, ``quit``. See tests/support/peers.py for the harness that drives it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import opendnp3 as o
import yadnp3_controls as controls
import yadnp3_points as points
from outstation_policy import Answers, Restarts, policy_commands
from peerio import (
    CommandError,
    Json,
    add_endpoint_options,
    emit,
    enum_member,
    guarded,
    hold_termination,
    now_ms,
    require,
    serve_commands,
    wait_listening,
)
from request_log import REQUEST_LEVELS, RequestLog
from yadnp3_channels import manager, server_channel

_APP_IIN_BITS = (
    "needTime",
    "localControl",
    "deviceTrouble",
    "configCorrupt",
    "eventBufferOverflow",
)
_APP_IIN_NAMES = {
    "need_time": "needTime",
    "local_control": "localControl",
    "device_trouble": "deviceTrouble",
    "config_corrupt": "configCorrupt",
    "event_buffer_overflow": "eventBufferOverflow",
}
_RESTART_MODES = {
    "unsupported": o.RestartMode.UNSUPPORTED,
    "fine": o.RestartMode.SUPPORTED_DELAY_FINE,  # g52v2, milliseconds
    "coarse": o.RestartMode.SUPPORTED_DELAY_COARSE,  # g52v1, seconds
}


class State:
    """What the test set through commands; read by the stack's callbacks."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.echo_outputs: bool = args.echo_outputs
        self.answers = Answers(args.points, set(o.CommandStatus.__members__))
        self.app_iin: dict[str, bool] = dict.fromkeys(_APP_IIN_BITS, False)
        self.app_iin["needTime"] = args.need_time
        self.time_written = False
        self.restarts = Restarts(tuple(_RESTART_MODES), cold=("coarse", 1), warm=("fine", 50))

    def status_for(self, phase: str, control: Json) -> Any:
        return o.CommandStatus.__members__[self.answers.status_for(phase, control["index"])]


class CommandHandler(o.ICommandHandler):  # type: ignore[misc]
    def __init__(self, state: State, requests: RequestLog) -> None:
        super().__init__()
        self._state = state
        self._requests = requests

    def Begin(self) -> None:
        pass

    def End(self) -> None:
        pass

    @guarded(o.CommandStatus.HARDWARE_ERROR)
    def Select(self, command: Any, index: int) -> Any:
        control = controls.describe(command, int(index))
        status = self._state.status_for("select", control)
        self._requests.flush()
        emit("select", **control, status=status.name)
        return status

    @guarded(o.CommandStatus.HARDWARE_ERROR)
    def Operate(self, command: Any, index: int, handler: Any, op_type: Any) -> Any:
        control = controls.describe(command, int(index))
        status = self._state.status_for("operate", control)
        self._requests.flush()
        emit("operate", **control, mode=op_type.name, status=status.name)
        if status == o.CommandStatus.SUCCESS and self._state.echo_outputs:
            echoed = controls.output_state(control)
            if echoed is not None:
                kind, value = echoed
                factory = (
                    o.BinaryOutputStatus if kind == "binary_output_status" else o.AnalogOutputStatus
                )
                measurement = factory(value)
                measurement.flags = o.Flags(0x01)
                handler.Update(measurement, int(index))
        return status


class Application(o.IOutstationApplication):  # type: ignore[misc]
    def __init__(self, state: State, requests: RequestLog) -> None:
        super().__init__()
        self._state = state
        self._requests = requests

    def SupportsWriteAbsoluteTime(self) -> bool:
        return True

    @guarded(False)
    def WriteAbsoluteTime(self, timestamp: Any) -> bool:
        headers = self._requests.current_headers()
        via = "g50v3" if (50, 3) in headers else "g50v1" if (50, 1) in headers else "unknown"
        self._requests.flush()
        received = now_ms()
        written = int(timestamp.msSinceEpoch)
        emit(
            "time_write",
            ms=written,
            via=via,
            lan=via == "g50v3",
            local_ms=received,
            offset_ms=written - received,
        )
        self._state.app_iin["needTime"] = False
        self._state.time_written = True
        return True

    def SupportsAssignClass(self) -> bool:
        return True

    @guarded(None)
    def RecordClassAssignment(self, kind: Any, clazz: Any, start: int, stop: int) -> None:
        self._requests.flush()
        emit("assign_class", type=kind.name, clazz=clazz.name, start=int(start), stop=int(stop))

    def _restart(self, kind: str) -> int:
        self._requests.flush()
        return self._state.restarts.requested(kind)[1]

    def ColdRestartSupport(self) -> Any:
        return _RESTART_MODES[self._state.restarts.settings["cold"][0]]

    def WarmRestartSupport(self) -> Any:
        return _RESTART_MODES[self._state.restarts.settings["warm"][0]]

    @guarded(0)
    def ColdRestart(self) -> int:
        return self._restart("cold")

    @guarded(0)
    def WarmRestart(self) -> int:
        return self._restart("warm")

    @guarded(o.ApplicationIIN())
    def GetApplicationIIN(self) -> Any:
        iin = o.ApplicationIIN()
        for name, value in self._state.app_iin.items():
            setattr(iin, name, value)
        return iin

    @guarded(None)
    def OnConfirmProcessed(self, unsolicited: bool, class1: int, class2: int, class3: int) -> None:
        emit(
            "confirm_processed",
            unsolicited=bool(unsolicited),
            remaining=[int(class1), int(class2), int(class3)],
        )

    @guarded(o.DNPTime(0))
    def Now(self) -> Any:
        quality = (
            o.TimestampQuality.SYNCHRONIZED
            if self._state.time_written
            else o.TimestampQuality.UNSYNCHRONIZED
        )
        return o.DNPTime(now_ms(), quality)


def _commands(outstation: Any, state: State) -> dict[str, Any]:
    def update(command: Json) -> Json:
        items = command.get("points") or [command]
        builder = o.UpdateBuilder()
        for item in items:
            value, index = points.measurement(item)
            mode = enum_member(o.EventMode, item.get("mode", "Detect"))
            added = (
                builder.Update(value, index)
                if item["type"] == "time_and_interval"
                else builder.Update(value, index, mode)
            )
            if not added:
                raise CommandError(
                    f"{item['type']} {index} was refused (index beyond the database?)"
                )
        outstation.Apply(builder.Build())
        return {"applied": len(items)}

    def freeze_counter(command: Json) -> Json:
        builder = o.UpdateBuilder()
        index = int(require(command, "index"))
        if not builder.FreezeCounter(index, bool(command.get("clear", False))):
            raise CommandError(f"counter {index} was refused")
        outstation.Apply(builder.Build())
        return {}

    def set_restart_iin(command: Json) -> Json:
        outstation.SetRestartIIN()
        return {}

    def app_iin(command: Json) -> Json:
        for key, attribute in _APP_IIN_NAMES.items():
            if key in command:
                state.app_iin[attribute] = bool(command[key])
        return {"app_iin": {k: state.app_iin[a] for k, a in _APP_IIN_NAMES.items()}}

    return {
        "update": update,
        "freeze_counter": freeze_counter,
        "set_restart_iin": set_restart_iin,
        "app_iin": app_iin,
        **policy_commands(state.answers, state.restarts),
    }


def main() -> None:
    hold_termination()
    parser = argparse.ArgumentParser(description=__doc__)
    add_endpoint_options(parser, local=1024, remote=1, tls=True)
    parser.add_argument("--points", type=int, default=10, help="points of each of the nine types")
    parser.add_argument("--unsolicited", action="store_true", help="allowUnsolicited")
    parser.add_argument("--event-buffer", type=int, default=100, help="events of each type")
    parser.add_argument(
        "--need-time", action="store_true", help="raise NEED_TIME until a time write"
    )
    parser.add_argument(
        "--echo-outputs", action="store_true", help="a successful control updates its output status"
    )
    parser.add_argument("--max-tx-fragment", type=int, default=2048)
    parser.add_argument("--serial", metavar="DEVICE", help="a serial channel instead of TCP")
    parser.add_argument("--keep-alive-ms", type=int, help="link keep-alive (REQUEST_LINK_STATUS)")
    parser.add_argument("--udp-remote", type=int, metavar="PORT", help="UDP to this port")
    args = parser.parse_args()

    state = State(args)
    requests = RequestLog(emit)
    mgr, keep = manager(requests.on_log)
    channel = server_channel(mgr, args, REQUEST_LEVELS, keep)
    config = o.OutstationStackConfig(o.DatabaseConfig(args.points))
    config.link.LocalAddr, config.link.RemoteAddr = args.local, args.remote
    if args.keep_alive_ms is not None:
        config.link.KeepAliveTimeout = o.TimeDuration.Milliseconds(args.keep_alive_ms)
    config.outstation.eventBufferConfig = o.EventBufferConfig.AllTypes(args.event_buffer)
    config.outstation.params.allowUnsolicited = args.unsolicited
    config.outstation.params.maxTxFragSize = args.max_tx_fragment
    handler, application = CommandHandler(state, requests), Application(state, requests)
    keep += [handler, application]
    outstation = channel.AddOutstation("outstation", handler, application, config)
    outstation.Enable()
    if not args.serial and not args.udp_remote and not wait_listening(args.port):
        emit("error", where="startup", error=f"not listening on {args.port} after 10 s")
        os._exit(1)
    emit("ready", port=args.port, pid=os.getpid(), points=args.points, tls=args.tls_ca is not None)
    serve_commands(_commands(outstation, state), on_exit=mgr.Shutdown)


if __name__ == "__main__":
    main()
