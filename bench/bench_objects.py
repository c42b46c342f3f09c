"""Decode throughput of the object library, on one core.

- a 2048-octet response fragment of g30v1 (start-stop 0x01), of g1v2 (0x01), and of g32v7
  events (index prefix 0x28): objects decoded per second by parse_response;
- a 10,000-object g30v1 response in several 2048-octet fragments, as link frames on a
  stream: LinkReader (1460-octet chunks) -> Reassembler -> parse_response.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gridwire.dnp3.app.control import AppControl
from gridwire.dnp3.app.fragments import encode_response, parse_response
from gridwire.dnp3.link import LinkFrame, LinkReader, user_data
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.table import lookup
from gridwire.dnp3.transport import Reassembler, segment

FRAGMENT = 2048
RESPONSE_HEADER = 4
T = 1_700_000_000_000


def _fit(group: int, variation: int, qualifier: int, overhead: int) -> int:
    """How many objects fill a 2048-octet fragment after the header's ``overhead`` octets."""
    decl = lookup(group, variation)
    assert decl is not None
    per_object = decl.size + (2 if qualifier == 0x28 else 0)
    return (FRAGMENT - RESPONSE_HEADER - 3 - overhead) // per_object


def _fragment(group: int, variation: int, qualifier: int, items: list[Item]) -> bytes:
    body = encode_objects(group, variation, items, qualifier)
    return encode_response(AppControl(), "RESPONSE", 0, body)


def fragments() -> dict[str, bytes]:
    n30 = _fit(30, 1, 0x01, 4)
    n1 = _fit(1, 2, 0x01, 4)
    n32 = _fit(32, 7, 0x28, 2)
    return {
        "g30v1": _fragment(30, 1, 0x01, [Item(i, i * 7 - 1000) for i in range(n30)]),
        "g1v2": _fragment(1, 2, 0x01, [Item(i, i % 3 == 0) for i in range(n1)]),
        "g32v7": _fragment(32, 7, 0x28, [Item(i, i * 0.5, 0x01, T + i) for i in range(n32)]),
    }


def _rate(run: Callable[[], int], seconds: float = 2.0) -> float:
    """Best of five runs of ``seconds / 5`` each: objects per second."""
    best = 0.0
    for _ in range(5):
        done, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds / 5:
            done += run()
        best = max(best, done / elapsed)
    return best


def stream(total: int = 10_000) -> bytes:
    """A response of ``total`` g30v1 objects in fragments of at most 2048 octets, segmented and
    framed from outstation 1024 to master 1."""
    per = _fit(30, 1, 0x01, 4)
    octets, tseq, start = [], 0, 0
    seq = 0
    while start < total:
        stop = min(start + per, total)
        control = AppControl(fir=start == 0, fin=stop == total, seq=seq)
        body = encode_objects(30, 1, [Item(i, i) for i in range(start, stop)], 0x01)
        tpdus, tseq = segment(encode_response(control, "RESPONSE", 0, body), tseq)
        octets += [user_data(1, 1024, tpdu, from_master=False) for tpdu in tpdus]
        start, seq = stop, (seq + 1) % 16
    return b"".join(octets)


def decode_stream(octets: bytes, chunk: int = 1460) -> int:
    """Objects decoded from the framed stream: link, transport, application."""
    reader, reassembler, objects = LinkReader(), Reassembler(FRAGMENT), 0
    for at in range(0, len(octets), chunk):
        for frame in reader.feed(octets[at : at + chunk]):
            if not isinstance(frame, LinkFrame):
                raise RuntimeError(f"dropped: {frame}")
            fragment = reassembler.feed(frame.data)
            if isinstance(fragment, bytes):
                objects += len(parse_response(fragment).objects)
    return objects


def _decoder(fragment: bytes) -> Callable[[], int]:
    return lambda: len(parse_response(fragment).objects)


def main() -> None:
    for name, fragment in fragments().items():
        count = len(parse_response(fragment).objects)
        rate = _rate(_decoder(fragment))
        per = 1e6 / rate
        print(
            f"   {name}: {len(fragment)}-octet fragment, {count} objects: "
            f"{rate / 1e6:.2f} M objects/s ({per * 1e3:.0f} ns each)"
        )
    octets = stream()
    assert decode_stream(octets) == 10_000
    runs, started = 0, time.perf_counter()
    while time.perf_counter() - started < 2.0:
        decode_stream(octets)
        runs += 1
    elapsed = (time.perf_counter() - started) / runs
    print(
        f"   10,000 g30v1 objects, {len(octets)} octets of link frames, "
        f"link+transport+application: {elapsed * 1e3:.1f} ms, "
        f"{10_000 / elapsed / 1e6:.2f} M objects/s"
    )
