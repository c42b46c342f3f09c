"""How long one message holds the service's event loop (issue 9, item 2), in process.

Figures: the work of building a read of many whole ranges (``read_body``: "0-65535" items,
merged as ranges); counting a 4 MiB message's items before it is parsed (``check_items``,
the worst shapes); parsing 4 MiB shapes with orjson, to show what the item limit spares;
and, against the service over its line socket (the service in this loop, the message sent
from a thread), the answer time of a 220 KB and a 4 MiB read of whole ranges and of a 4 MiB
message of empty lists, with the longest the loop was held meanwhile (a 1 ms ticker's worst
lateness). Run with ``make bench`` or ``.venv/bin/python -m bench stall``.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import time
from collections.abc import Callable
from functools import partial

import orjson

from gridwire.master.scans import read_body
from gridwire.operations.message import check_items

REPEATS = 5
FOUR_MIB = 4 << 20


def _best(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def shapes() -> dict[str, bytes]:
    def filled(item: bytes) -> bytes:
        return b"[" + b",".join([item] * ((FOUR_MIB - 2) // (len(item) + 1))) + b"]"

    document = orjson.dumps('<a x="1">text, [more], {text}</a>' * (FOUR_MIB // 40))
    return {
        "empty lists": filled(b"[]"),
        "zeros": filled(b"0"),
        "range strings": filled(b'"0-65535"'),
        "one string": orjson.dumps("y" * (FOUR_MIB - 2)),
        "document text": document,
    }


def bench_parts() -> None:
    for count in (1000, 4096):
        points: dict[str, list[int | str]] = {"ai": ["0-65535"] * count}
        took = _best(partial(read_body, points))
        print(f"  read_body of {count} whole ranges: {_ms(took)}")
    for label, octets in shapes().items():
        counted = _best(partial(_refused, octets))
        gc.collect()
        parsed = _best(partial(orjson.loads, octets))
        print(f"  4 MiB of {label:14}: counted {_ms(counted)}, orjson.loads {_ms(parsed)}")


def _refused(octets: bytes) -> bool:
    try:
        check_items(octets)
    except Exception:
        return True
    return False


async def _ticker(gaps: list[float]) -> None:
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


def _send_line(port: int, line: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(line)
        return sock.makefile("rb").readline()


async def _service() -> None:
    from tests.service.test_stall import served  # the tests' service and outstation

    async with served() as running:
        for label, params in (
            ("220 KB read, whole ranges", {"points": {"ai": ["0-65535"] * 22_000}}),
            ("4 MiB read, whole ranges", {"points": {"ai": ["0-65535"] * 419_000}}),
            ("4096 whole ranges (taken)", {"points": {"ai": ["0-65535"] * 4096}}),
            ("4 MiB of empty lists", {"points": {"ai": [[]] * 1_390_000}}),
        ):
            line = orjson.dumps({"op": "read", "params": {"outstation": "y", **params}}) + b"\n"
            gc.collect()
            gaps: list[float] = []
            ticking = asyncio.ensure_future(_ticker(gaps))
            await asyncio.sleep(0.01)
            gaps.clear()
            started = time.perf_counter()
            answer = orjson.loads(await asyncio.to_thread(_send_line, running.line_port, line))
            elapsed = time.perf_counter() - started
            ticking.cancel()
            said = "ok" if answer["ok"] else answer["error"]["message"][:60]
            print(
                f"  {label:28} {len(line):8} octets: answered in {_ms(elapsed)}, loop held "
                f"at most {_ms(max(gaps, default=0.0))} ({said})"
            )


def main() -> None:
    print("in process (best of 5):")
    bench_parts()
    print("over the line service (service, outstation and ticker in one loop):")
    asyncio.run(_service())


if __name__ == "__main__":
    main()
