"""Fuzzed requests at the simulated outstation over TCP are all answered (issue 9, what
stays): ``gridwire sim`` (its generic database) is sent well-framed DNP3 requests whose
application part is fuzzed (function codes known and unknown, object headers of plausible
groups, variations and qualifiers with random ranges and data), one at a time, each framed
here with the tests' own CRC (tests/dnp3/reference_crc.py) and read back with a parser
written here. Every request that asks for a response (all but CONFIRM, the five
no-acknowledgment functions and the response codes 0x81-0x83) must get one with its sequence number, within a second; at the
end the outstation still answers a plain read.

Rounds: 300 per 4 s of ``GRIDWIRE_FUZZ_SECONDS``; the requests come from
``GRIDWIRE_FUZZ_SEED``.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections import Counter

import pytest

from tests.dnp3.reference_crc import crc_le, reference_frame
from tests.fuzz.swarm import Budget
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

BUDGET = Budget.from_environment()
ROUNDS = 300 * max(1, round(BUDGET.seconds / 4))
ANSWER_WITHIN = 1.0
# CONFIRM, the *_NR functions, and the codes of responses (a master sends none of them)
NO_RESPONSE = {0x00, 0x06, 0x08, 0x0A, 0x0C, 0x21, 0x81, 0x82, 0x83}
OUTSTATION, MASTER = 1024, 1

pytestmark = [pytest.mark.fuzz, pytest.mark.serial, pytest.mark.timeout(120 + ROUNDS * 0.2)]

GROUPS = [1, 2, 3, 10, 12, 20, 21, 22, 30, 32, 40, 41, 50, 51, 52, 60, 80, 110, 120, 0, 255]
QUALIFIERS = [0x00, 0x01, 0x06, 0x07, 0x08, 0x17, 0x28, 0x5B, 0x39, 0xFF]


def fuzzed_request(rng: random.Random, sequence: int) -> bytes:
    """An application request: FIR|FIN and ``sequence``, a function code (mostly one the
    standard defines), then up to four object headers with random ranges and data."""
    function = rng.choice([*range(0x22), *range(0x22), rng.randrange(256)])
    body = b""
    for _ in range(rng.randint(0, 4)):
        body += bytes((rng.choice(GROUPS), rng.randint(0, 8), rng.choice(QUALIFIERS)))
        body += rng.randbytes(rng.choice([0, 1, 2, 4, 6, 12, 30]))
    return bytes((0xC0 | sequence, function)) + body


def frames(application: bytes, transport_sequence: int) -> list[bytes]:
    """The request in link frames (unconfirmed user data, master to outstation), split into
    transport segments of up to 249 octets."""
    out = []
    segments = [application[i : i + 249] for i in range(0, len(application), 249)] or [b""]
    for n, segment in enumerate(segments):
        first, last = n == 0, n == len(segments) - 1
        tpdu = bytes((0x80 * last | 0x40 * first | (transport_sequence + n) % 64,)) + segment
        header = bytes((0x05, 0x64, 5 + len(tpdu), 0xC4)) + OUTSTATION.to_bytes(2, "little")
        out.append(reference_frame(header + MASTER.to_bytes(2, "little"), tpdu))
    return out


class FrameReader:
    """Link frames from the outstation, checked (start octets, CRCs), and the application
    fragments their transport segments make."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.partial = b""

    async def fragment(self) -> bytes:
        while True:
            header = await self.reader.readexactly(10)
            assert header[:2] == b"\x05\x64" and crc_le(header[:8]) == header[8:], header.hex()
            size = header[2] - 5
            data = b""
            while size > 0:
                block = await self.reader.readexactly(min(16, size) + 2)
                assert crc_le(block[:-2]) == block[-2:], block.hex()
                data += block[:-2]
                size -= len(block) - 2
            if not data:
                continue  # a link-layer frame without user data
            transport, segment = data[0], data[1:]
            if transport & 0x40:
                self.partial = b""
            self.partial += segment
            if transport & 0x80:
                whole, self.partial = self.partial, b""
                return whole


async def test_fuzzed_requests_are_all_answered() -> None:
    rng = random.Random(f"{BUDGET.seed}:frames")
    print(f"fuzz frames: seed {BUDGET.seed}, {ROUNDS} requests")
    port = free_port()
    with running([sys.executable, "-m", "gridwire", "sim", "--bind", f"127.0.0.1:{port}"],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):  # fmt: skip
        wait_listening(port, timeout=30)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        frames_in = FrameReader(reader)
        unanswered: list[str] = []
        kinds: Counter[str] = Counter()
        transport_sequence = 0
        try:
            for n in range(ROUNDS + 1):
                sequence = n % 16
                last = bytes((0xC0 | sequence,)) + b"\x01\x3c\x01\x06"  # a class 0 read
                request = fuzzed_request(rng, sequence) if n < ROUNDS else last
                for frame in frames(request, transport_sequence):
                    writer.write(frame)
                transport_sequence = (transport_sequence + len(frames(request, 0))) % 64
                await writer.drain()
                expected = request[1] not in NO_RESPONSE
                answer = await _response(frames_in, sequence, ANSWER_WITHIN if expected else 0.05)
                kinds[f"{'asks' if expected else 'no response asked'}: "
                      f"{'answered' if answer else 'not answered'}"] += 1  # fmt: skip
                if expected and answer is None:
                    unanswered.append(f"request {n}: {request.hex(' ')}")
        finally:
            writer.close()
    print(f"fuzz frames: {dict(kinds)}")
    assert unanswered == [], f"seed {BUDGET.seed}: " + "\n".join(unanswered[:20])


async def _response(frames_in: FrameReader, sequence: int, within: float) -> bytes | None:
    """The solicited response with ``sequence`` (others met on the way are dropped)."""
    try:
        async with asyncio.timeout(within):
            while True:
                fragment = await frames_in.fragment()
                if len(fragment) >= 2 and fragment[1] == 0x81 and fragment[0] & 0x0F == sequence:
                    return fragment
    except TimeoutError:
        return None
