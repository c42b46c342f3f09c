"""A fleet of yadnp3 (opendnp3) stacks in one process, for the fleet benchmark
(bench/bench_fleet.py): ``python bench/yadnp3_fleet.py outstations --base P --count N`` runs N
outstations listening on 127.0.0.1 ports P..P+N-1 (``--points`` of each of the nine types);
``python bench/yadnp3_fleet.py masters --base P --count N --interval S`` runs N masters, one
per port, each event-polling (classes 1, 2, 3) every S seconds, the same poll gridwire's
``event_interval`` makes. Prints one JSON line ``{"event": "ready", ...}`` once every stack is
enabled; the masters then print ``{"event": "polls", "count": C}`` every second (polls
completed so far). Ends on SIGTERM or when standard input closes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from typing import Any

import opendnp3 as o


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


class _Commands(o.ICommandHandler):  # type: ignore[misc]
    def Begin(self) -> None:
        pass

    def End(self) -> None:
        pass


class _OutstationApp(o.IOutstationApplication):  # type: ignore[misc]
    pass


class _Quiet(o.ISOEHandler):  # type: ignore[misc]
    """No Process(): opendnp3 hands Python no values."""

    def BeginFragment(self, info: Any) -> None:
        pass

    def EndFragment(self, info: Any) -> None:
        pass


class _MasterApp(o.IMasterApplication):  # type: ignore[misc]
    def __init__(self, counter: list[int]) -> None:
        super().__init__()
        self._counter = counter

    def OnTaskComplete(self, info: Any) -> None:
        self._counter[0] += 1

    def AssignClassDuringStartup(self) -> bool:
        return False


def outstations(args: argparse.Namespace, mgr: Any, keep: list[Any]) -> None:
    handler, app = _Commands(), _OutstationApp()
    keep += [handler, app]
    for i in range(args.count):
        port = args.base + i
        channel = mgr.AddTCPServer(
            f"s{i}",
            o.LogLevels(0),
            o.ServerAcceptMode.CloseExisting,
            o.IPEndpoint(args.host, port),
            None,
        )
        config = o.OutstationStackConfig(o.DatabaseConfig(args.points))
        config.link.LocalAddr, config.link.RemoteAddr = 1024, 1
        config.outstation.eventBufferConfig = o.EventBufferConfig.AllTypes(10)
        channel.AddOutstation(f"o{i}", handler, app, config).Enable()
        keep.append(channel)


def masters(args: argparse.Namespace, mgr: Any, keep: list[Any]) -> list[int]:
    counter = [0]
    app, soe = _MasterApp(counter), _Quiet()
    keep += [app, soe]
    retry = o.ChannelRetry(o.TimeDuration.Milliseconds(500), o.TimeDuration.Milliseconds(5000))
    for i in range(args.count):
        hosts = [o.IPEndpoint(args.host, args.base + i)]
        channel = mgr.AddTCPClient(f"c{i}", o.LogLevels(0), retry, hosts, "0.0.0.0", None)
        config = o.MasterStackConfig()
        config.link.LocalAddr, config.link.RemoteAddr = 1, 1024
        stack = channel.AddMaster(f"m{i}", soe, app, config)
        period = o.TimeDuration.Milliseconds(int(args.interval * 1000))
        stack.AddClassScan(o.ClassField(False, True, True, True), period, soe)
        stack.Enable()
        keep += [channel, stack]
    return counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("role", choices=["outstations", "masters"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--base", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    mgr = o.DNP3Manager(args.threads)
    keep: list[Any] = []
    counter = [0]
    if args.role == "outstations":
        outstations(args, mgr, keep)
    else:
        counter = masters(args, mgr, keep)
    emit("ready", pid=os.getpid(), count=args.count)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())

    def stdin_closed() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=stdin_closed, daemon=True).start()
    while not done.wait(1.0):
        if args.role == "masters":
            emit("polls", count=counter[0], time=time.time())
    mgr.Shutdown()
    os._exit(0)


if __name__ == "__main__":
    main()
