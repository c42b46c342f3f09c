"""No control executes twice when the connection is cut mid-operate (issue 9, what stays):
the master operates yadnp3's (opendnp3's) outstation through a relay that closes (FIN),
resets (RST) or stalls the connection after a random number of octets of the request or of
its response, in each of the three modes; the master then connects again by itself. Every
control carries a value of its own, and yadnp3's command handler reports each select and
operate it received: none may be reported twice.

Rounds: 9 (every mode with every cut) per 4 s of ``GRIDWIRE_FUZZ_SECONDS``, at least 9; the
cut points come from ``GRIDWIRE_FUZZ_SEED``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter

import pytest

from gridwire.errors import GridwireError
from gridwire.master import Master, OutstationSettings
from tests.fuzz.cutting import CuttingRelay, Direction, How
from tests.fuzz.swarm import Budget
from tests.support.peers import OutstationPeer, yadnp3_outstation

BUDGET = Budget.from_environment()
ROUNDS = 9 * max(1, round(BUDGET.seconds / 4))
RESPONSE_TIMEOUT = 1.0
SETTLE = 0.3  # seconds after reconnecting for anything sent late (or again) to arrive
NAME = "out"
MODES = ("direct", "select", "direct_no_ack")
HOWS: tuple[How, ...] = ("fin", "rst", "stall")

pytestmark = [
    pytest.mark.fuzz,
    pytest.mark.interop,
    pytest.mark.timeout(120 + ROUNDS * 8),
]


async def _connected(master: Master, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not master.status().outstations[0].connected:
        assert time.monotonic() < deadline, "the master did not connect again"
        await asyncio.sleep(0.05)


def _count(peer: OutstationPeer, value: int) -> Counter[str]:
    return Counter(
        e["event"] for e in peer.received(lambda e: e.get("event") in ("select", "operate"))
        if e.get("value") == value
    )  # fmt: skip


async def test_no_control_executes_twice_under_cuts() -> None:
    rng = random.Random(f"{BUDGET.seed}:cuts")
    print(f"fuzz cuts: seed {BUDGET.seed}, {ROUNDS} rounds")
    outcomes: Counter[str] = Counter()
    twice: list[str] = []
    with yadnp3_outstation(points=10) as peer:
        async with CuttingRelay(peer.port) as relay:
            master = Master(allow_control=True)
            settings = OutstationSettings(
                name=NAME, host="127.0.0.1", port=relay.port, manual=True, confirm=True,
                reconnect=0.1, response_timeout=RESPONSE_TIMEOUT,
            )  # fmt: skip
            try:
                await master.add(settings)
                for n in range(ROUNDS):
                    mode, how = MODES[n % 3], HOWS[(n // 3) % 3]
                    # A control in direct_no_ack mode is answered by nothing.
                    direction: Direction = (
                        "up" if mode == "direct_no_ack" else rng.choice(["up", "up", "down"])
                    )
                    # A request or a response is 27 octets framed; in select mode the
                    # master's second request (the OPERATE) is octets 27-53.
                    after = rng.randint(0, 53 if mode == "select" and direction == "up" else 26)
                    value = 1000 + n
                    cuts = len(relay.cuts)
                    relay.arm(direction, after, how, stall=RESPONSE_TIMEOUT + 0.5)
                    try:
                        result = await master.operate(NAME, {"ao": {"3": value}}, mode=mode)
                        said = f"accepted={result.accepted}"
                    except GridwireError as exc:
                        said = type(exc).__name__
                    await asyncio.sleep(0.2)  # a request that takes no answer is on its way
                    relay.armed = None
                    await relay.flowing()  # what a stall held has been delivered, late
                    await _connected(master)
                    await asyncio.sleep(SETTLE)
                    cut = len(relay.cuts) > cuts
                    received = _count(peer, value)
                    outcomes[
                        f"{mode} {how if cut else 'not cut'}: executed {received['operate']}"
                    ] += 1
                    where = f"round {n}: {mode}, {how} {direction} after {after} ({said})"
                    if max(received.values(), default=0) > 1:
                        twice.append(f"{where}: received {dict(received)}")
                await asyncio.sleep(1.0)  # anything sent again late, at last
                twice += [
                    f"round {n}, found at the end: received {dict(received)}"
                    for n in range(ROUNDS)
                    if max((received := _count(peer, 1000 + n)).values(), default=0) > 1
                ]
            finally:
                await master.close()
    print(f"fuzz cuts: {len(relay.cuts)} cuts; {dict(sorted(outcomes.items()))}")
    assert twice == [], f"seed {BUDGET.seed}: " + "\n".join(twice)
    assert len(relay.cuts) >= ROUNDS * 2 // 3, relay.cuts  # most rounds were cut
