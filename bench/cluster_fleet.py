"""A fleet of opendnp3 (yadnp3) outstations, or opendnp3's own master polling such a fleet,
in one process: ``python bench/cluster_fleet.py outstations|master --ports FILE [--base P --count N]``.

outstations: N outstations on free ports from P up, written to FILE (1024 <- 1), 5 points of each type, an analog
changed every second on a tenth of them (rotating), so that event polls find events. Prints
``ready`` once every port listens.
master: N opendnp3 masters (one channel each) polling classes 1, 2 and 3 every
``--interval`` seconds; on stdin ``report`` prints ``{"polls": n, "failed": m}``.
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import sys
import threading
import time
from typing import Any

import opendnp3 as o


def _raise_files() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class _Quiet(o.ILogHandler):  # type: ignore[misc]
    def log(self, *args: Any) -> None:
        pass


class _Handler(o.ICommandHandler):  # type: ignore[misc]
    def Begin(self) -> None:
        pass

    def End(self) -> None:
        pass


class _App(o.IOutstationApplication):  # type: ignore[misc]
    pass


def outstations(base: int, count: int, ports_file: str) -> None:
    keep: list[Any] = [_Quiet()]
    mgr = o.DNP3Manager(1, keep[0])
    stacks = []
    ports: list[int] = []
    port = base - 1
    for n in range(count):
        while True:
            port += 1
            try:
                channel = mgr.AddTCPServer(
                    f"s{n}",
                    o.LogLevels(0),
                    o.ServerAcceptMode.CloseExisting,
                    o.IPEndpoint("127.0.0.1", port),
                    None,
                )
                break
            except RuntimeError:  # a port in use: the next one
                continue
        ports.append(port)
        config = o.OutstationStackConfig(o.DatabaseConfig(5))
        config.link.LocalAddr, config.link.RemoteAddr = 1024, 1
        config.outstation.eventBufferConfig = o.EventBufferConfig.AllTypes(10)
        handler, app = _Handler(), _App()
        keep += [handler, app]
        stack = channel.AddOutstation(f"o{n}", handler, app, config)
        stack.Enable()
        stacks.append(stack)
    for port in ports:
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
    with open(ports_file, "w") as file:
        json.dump(ports, file)
    print(json.dumps({"event": "ready", "count": count}), flush=True)
    tick = 0
    while True:
        time.sleep(1.0)
        tick += 1
        for n in range(tick % 10, count, 10):
            builder = o.UpdateBuilder()
            builder.Update(o.Analog(float(tick), o.Flags(1)), 0)
            stacks[n].Apply(builder.Build())


class _Counting(o.IMasterApplication):  # type: ignore[misc]
    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__()
        self.counts = counts

    def OnTaskComplete(self, info: Any) -> None:
        if info.type.name == "USER_TASK" or info.type.name == "PERIODIC":
            pass
        key = "polls" if info.result.name == "SUCCESS" else "failed"
        self.counts[key] = self.counts.get(key, 0) + 1

    def AssignClassDuringStartup(self) -> bool:
        return False


class _Soe(o.ISOEHandler):  # type: ignore[misc]
    def BeginFragment(self, info: Any) -> None:
        pass

    def EndFragment(self, info: Any) -> None:
        pass


def master(ports_file: str, interval: float) -> None:
    keep: list[Any] = [_Quiet()]
    mgr = o.DNP3Manager(1, keep[0])
    counts: dict[str, int] = {}
    with open(ports_file) as file:
        ports = json.load(file)
    count = len(ports)
    for n, port in enumerate(ports):
        retry = o.ChannelRetry(o.TimeDuration.Seconds(1), o.TimeDuration.Seconds(5))
        channel = mgr.AddTCPClient(
            f"c{n}",
            o.LogLevels(0),
            retry,
            [o.IPEndpoint("127.0.0.1", port)],
            "0.0.0.0",
            None,
        )
        config = o.MasterStackConfig()
        config.link.LocalAddr, config.link.RemoteAddr = 1, 1024
        config.master.disableUnsolOnStartup = True
        app, soe = _Counting(counts), _Soe()
        keep += [app, soe]
        stack = channel.AddMaster(f"m{n}", soe, app, config)
        keep.append(
            stack.AddClassScan(
                o.ClassField(False, True, True, True),
                o.TimeDuration.Milliseconds(int(interval * 1000)),
                soe,
            )
        )
        stack.Enable()
    print(json.dumps({"event": "ready", "count": count}), flush=True)
    lock = threading.Lock()
    for line in sys.stdin:
        if line.strip() == "report":
            with lock:
                print(json.dumps({"event": "report", **counts}), flush=True)
        if line.strip() == "quit":
            break
    mgr.Shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["outstations", "master"])
    parser.add_argument("--base", type=int, default=40000)
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--ports", required=True, help="file of the ports (JSON list)")
    parser.add_argument("--interval", type=float, default=5.0)
    args = parser.parse_args()
    _raise_files()
    if args.mode == "outstations":
        outstations(args.base, args.count, args.ports)
    else:
        master(args.ports, args.interval)


if __name__ == "__main__":
    main()
