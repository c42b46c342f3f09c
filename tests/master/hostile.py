"""A hostile outstation for the master's tests: it answers every request the master sends,
but in the way its ``behaviour`` says, most of them broken on purpose.

It runs on tests/master/scripted.py's loopback server (which hands over each frame the
master writes, cut by its LENGTH octet) and lays out every octet it sends by hand with
tests/master/wire.py, so what it puts on the wire is stated here and nothing of gridwire's
encoders is involved. Frames from the master are read only as far as the request's
application sequence number and function code.

Each behaviour maps the request's sequence number to the writes that answer it. GOOD_OBJECTS
is what a good answer carries: g30v1 (32-bit analog input with flags) points 0 and 1, 42 and
43, both ONLINE.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from types import TracebackType
from typing import Final

from tests.dnp3.reference_crc import crc_le
from tests.master.scripted import ScriptedOutstation, response, user_data
from tests.master.wire import MASTER, OUTSTATION, frame, from_outstation

# 1E 01 | qualifier 00 (1-octet start-stop) | 00 01 | 01 2A000000 | 01 2B000000
GOOD_OBJECTS: Final = bytes.fromhex("1e01000001012a000000012b000000")

Answer = Callable[[int], list[bytes]]


def good(seq: int) -> list[bytes]:
    return [response(seq, GOOD_OBJECTS)]


def good_confirmed(seq: int) -> list[bytes]:
    """The good answer asking for confirmation (CON)."""
    return [response(seq, GOOD_OBJECTS, con=True)]


def silent(seq: int) -> list[bytes]:
    return []


def garbage(seq: int) -> list[bytes]:
    """Octets with no 05 64 in them, a stray 05 at the end."""
    noise = bytes(random.Random(seq).randrange(6, 256) for _ in range(200))
    return [noise + b"\x05"]


def garbage_then_good(seq: int) -> list[bytes]:
    """Noise, then a good answer in the same write: the reader must find the frame."""
    return [garbage(seq)[0][:-1] + good(seq)[0]]


def bad_header_crc(seq: int) -> list[bytes]:
    octets = good(seq)[0]
    return [octets[:8] + bytes((octets[8] ^ 0xFF, octets[9])) + octets[10:]]


def bad_body_crc(seq: int) -> list[bytes]:
    octets = bytearray(good(seq)[0])
    octets[-1] ^= 0xFF  # the last block's CRC
    return [bytes(octets)]


def bad_length(seq: int) -> list[bytes]:
    """A header with LENGTH 3 (below the minimum of 5) and a good CRC over it."""
    header = bytes((0x05, 0x64, 0x03, 0x44)) + MASTER.to_bytes(2, "little")
    header += OUTSTATION.to_bytes(2, "little")
    return [header + crc_le(header) + good(seq)[0][10:]]


def _objects(body: bytes) -> Answer:
    return lambda seq: [response(seq, body)]


# Objects that cannot be read whole; each answer is complete, with something undecoded.
unknown_object = _objects(bytes.fromhex("630100000001"))  # g99v1: no such object
short_object_data = _objects(bytes.fromhex("1e01000009012a000000"))  # 10 points, data for 1
stop_below_start = _objects(bytes.fromhex("1e01000a02012a000000"))  # 10..2
impossible_range = _objects(bytes.fromhex("0102010000ffff8181"))  # g1v2 0..65535, 2 octets
bad_qualifier = _objects(bytes.fromhex("1e01ff0000012a000000"))  # qualifier FF
zero_count = _objects(bytes.fromhex("20011700"))  # g32v1 events, count 0
good_then_garbage_object = _objects(GOOD_OBJECTS + bytes.fromhex("ff"))  # 1 stray octet


def truncated_fragment(seq: int) -> list[bytes]:
    """A first fragment (FIR, no FIN) and then nothing."""
    return [response(seq, GOOD_OBJECTS, fin=False)]


def _segments(seq: int, numbers: list[int], firs: list[bool], fins: list[bool]) -> list[bytes]:
    """The good answer cut into two transport segments with the given headers."""
    app = bytes((0xC0 | seq, 0x81, 0, 0)) + GOOD_OBJECTS
    parts = [app[:8], app[8:]]
    out = []
    for part, number, fir, fin in zip(parts, numbers, firs, fins, strict=True):
        header = (0x40 if fir else 0) | (0x80 if fin else 0) | number
        out.append(from_outstation(bytes((header,)) + part))
    return [b"".join(out)]


def out_of_sequence_segments(seq: int) -> list[bytes]:
    return _segments(seq, [5, 7], [True, False], [False, True])  # 6 was due


def segment_without_fir(seq: int) -> list[bytes]:
    return _segments(seq, [5, 6], [False, False], [False, True])


def wrong_application_sequence(seq: int) -> list[bytes]:
    return [response((seq + 1) & 0x0F, GOOD_OBJECTS)]


def request_function(seq: int) -> list[bytes]:
    """A fragment with READ (0x01) where a response's function code belongs."""
    return [from_outstation(bytes((0xC0, 0xC0 | seq, 0x01, 0, 0)) + GOOD_OBJECTS)]


def unknown_function(seq: int) -> list[bytes]:
    return [from_outstation(bytes((0xC0, 0xC0 | seq, 0x7F, 0, 0)) + GOOD_OBJECTS)]


def one_octet_fragment(seq: int) -> list[bytes]:
    return [from_outstation(bytes((0xC0, 0xC0 | seq)))]


def wrong_source(seq: int) -> list[bytes]:
    app = bytes((0xC0 | seq, 0x81, 0, 0)) + GOOD_OBJECTS
    return [frame(0x44, MASTER, 99, bytes((0xC0,)) + app)]


def from_a_master(seq: int) -> list[bytes]:
    """The answer with DIR set, as if a master had sent it."""
    app = bytes((0xC0 | seq, 0x81, 0, 0)) + GOOD_OBJECTS
    return [frame(0xC4, MASTER, OUTSTATION, bytes((0xC0,)) + app)]


def endless_segments(seq: int) -> list[bytes]:
    """A fragment that never ends: a FIR segment and 300 more without FIN (74,700 octets,
    beyond any fragment a master takes)."""
    first = from_outstation(bytes((0x40, 0xC0 | seq, 0x81, 0, 0)) + bytes(245))
    rest = [from_outstation(bytes(((1 + n) & 0x3F,)) + bytes(249)) for n in range(300)]
    return [first + b"".join(rest)]


def endless_unsolicited(seq: int) -> list[bytes]:
    """500 unsolicited responses asking for confirmation, then the good answer."""
    flood = [
        response(n & 0x0F, GOOD_OBJECTS, con=True, unsolicited=True, tr_seq=n & 0x3F)
        for n in range(500)
    ]
    return [b"".join(flood), good(seq)[0]]


def reserved_indications(seq: int) -> list[bytes]:
    return [response(seq, GOOD_OBJECTS, iin=b"\x00\xc0")]  # IIN2 bits 6 and 7


def duplicate_answer(seq: int) -> list[bytes]:
    return [good(seq)[0] * 2]


BEHAVIOURS: Final[dict[str, Answer]] = {
    "good": good,
    "good_confirmed": good_confirmed,
    "silent": silent,
    "garbage": garbage,
    "garbage_then_good": garbage_then_good,
    "bad_header_crc": bad_header_crc,
    "bad_body_crc": bad_body_crc,
    "bad_length": bad_length,
    "unknown_object": unknown_object,
    "short_object_data": short_object_data,
    "stop_below_start": stop_below_start,
    "impossible_range": impossible_range,
    "bad_qualifier": bad_qualifier,
    "zero_count": zero_count,
    "good_then_garbage_object": good_then_garbage_object,
    "truncated_fragment": truncated_fragment,
    "out_of_sequence_segments": out_of_sequence_segments,
    "segment_without_fir": segment_without_fir,
    "wrong_application_sequence": wrong_application_sequence,
    "request_function": request_function,
    "unknown_function": unknown_function,
    "one_octet_fragment": one_octet_fragment,
    "wrong_source": wrong_source,
    "from_a_master": from_a_master,
    "endless_segments": endless_segments,
    "endless_unsolicited": endless_unsolicited,
    "reserved_indications": reserved_indications,
    "duplicate_answer": duplicate_answer,
}


def _crcs_check(octets: bytes) -> bool:
    """Whether the header and every data block of a frame carry their right CRCs."""
    blocks = [octets[:10]] + [octets[at : at + 18] for at in range(10, len(octets), 18)]
    return all(len(b) > 2 and crc_le(b[:-2]) == b[-2:] for b in blocks)


class HostileOutstation:
    """``async with HostileOutstation() as out``: ``out.port``; set ``out.behaviour`` to a
    name of :data:`BEHAVIOURS`; ``out.requests`` counts the requests answered,
    ``out.confirms`` the confirmations received, ``out.bad_frames`` the frames it discarded
    for a CRC that does not check (with the tests' own bitwise CRC)."""

    def __init__(self, behaviour: str = "good") -> None:
        self.behaviour = behaviour
        self.requests = 0
        self.confirms = 0
        self.bad_frames = 0
        self._server = ScriptedOutstation()
        self._task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        return self._server.port

    def send(self, octets: bytes) -> None:
        self._server.send(octets)

    async def __aenter__(self) -> HostileOutstation:
        await self._server.__aenter__()
        self._task = asyncio.get_running_loop().create_task(self._answer())
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
        await self._server.stop()

    async def _answer(self) -> None:
        while True:
            octets = await self._server.frame(within=3600.0)
            if not _crcs_check(octets):
                self.bad_frames += 1
                continue
            data = user_data(octets)
            if len(data) < 3 or not data[0] & 0x40:  # not the start of a fragment
                continue
            seq, function = data[1] & 0x0F, data[2]
            if function == 0x00:  # CONFIRM
                self.confirms += 1
                continue
            self.requests += 1
            for write in BEHAVIOURS[self.behaviour](seq):
                self._server.send(write)
