"""CRC, link and transport figures: the hot path of a master polling many outstations.

Prints: CRC cost per 16-octet block; LinkReader throughput on maximum-size frames fed in
1460-octet chunks (one TCP segment's worth); encoding cost of a maximum-size frame; and a
2048-octet fragment segmented and reassembled. Each figure is the best of several runs.
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable

from fastcrc.crc16 import dnp as _dnp

from gridwire.dnp3.crc import check_crc, crc16
from gridwire.dnp3.link import LinkFrame, LinkReader, user_data
from gridwire.dnp3.transport import Reassembler, segment

REPEATS = 5


def _best(run: Callable[[], object], loops: int) -> float:
    """Seconds per call of ``run``, best of REPEATS timings of ``loops`` calls."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in range(loops):
            run()
        best = min(best, time.perf_counter() - started)
    return best / loops


def _per_call(statement: str, namespace: dict[str, object], loops: int) -> float:
    """Seconds per execution of ``statement`` (timeit: no function call around it)."""
    return min(timeit.repeat(statement, globals=namespace, number=loops, repeat=REPEATS)) / loops


def bench_crc() -> None:
    block = bytes(range(16))
    names: dict[str, object] = {
        "crc16": crc16,
        "check_crc": check_crc,
        "fast": _dnp,
        "block": block,
        "checked": block + crc16(block).to_bytes(2, "little"),
        "view": memoryview(bytes(64))[8:24],
    }
    for label, statement in (
        ("fastcrc dnp, 16-octet block", "fast(block)"),
        ("crc16, 16-octet block", "crc16(block)"),
        ("crc16, 16-octet memoryview slice", "crc16(view)"),
        ("check_crc, 16 octets + their CRC", "check_crc(checked)"),
    ):
        print(f"{label + ':':52}{_per_call(statement, names, 200_000) * 1e9:7.0f} ns")


def bench_reader() -> None:
    frames = [
        user_data(1, 1024, bytes((i + n) & 0xFF for i in range(250)), from_master=False)
        for n in range(64)
    ]
    stream = b"".join(frames) * 16  # 1024 frames of 292 octets
    chunks = [stream[i : i + 1460] for i in range(0, len(stream), 1460)]
    count = len(frames) * 16

    def run() -> None:
        reader = LinkReader()
        got = 0
        for chunk in chunks:
            got += len(reader.feed(chunk))
        assert got == count

    seconds = _best(run, 3)
    label = "LinkReader, 292-octet frames in 1460-octet chunks:"
    print(
        f"{label:52}{count / seconds:7,.0f} frames/s, {len(stream) / seconds / 1e6:.1f} MB/s "
        f"({seconds / count * 1e6:.2f} us a frame)"
    )
    small = user_data(1024, 1, bytes.fromhex("C0 C0 01 3C 01 06"), from_master=True)
    reader = LinkReader()
    per = _best(lambda: reader.feed(small), 50_000)
    print(f"{'LinkReader, one 18-octet frame a call:':52}{per * 1e6:7.2f} us")
    assert isinstance(reader.feed(small)[0], LinkFrame)


def bench_encode() -> None:
    data = bytes(250)
    per = _best(lambda: user_data(1024, 1, data, from_master=True), 20_000)
    print(f"{'user_data, 250 octets (a 292-octet frame):':52}{per * 1e6:7.2f} us")


def bench_transport() -> None:
    fragment = bytes(i & 0xFF for i in range(2048))
    reassembler = Reassembler()

    def run() -> None:
        tpdus, _ = segment(fragment, 0)
        result = None
        for tpdu in tpdus:
            result = reassembler.feed(tpdu)
        assert result == fragment

    per = _best(run, 5_000)
    print(f"{'segment + reassemble, 2048-octet fragment:':52}{per * 1e6:7.2f} us (9 TPDUs)")


def main() -> None:
    bench_crc()
    bench_reader()
    bench_encode()
    bench_transport()


if __name__ == "__main__":
    main()
