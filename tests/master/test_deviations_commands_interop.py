"""No deviation puts a command on the wire twice (issue 9, item 1).

Every deviation is turned on, one at a time, in a real :class:`Master` connected to one yadnp3
(opendnp3) outstation process shared by the whole module, and every operation that commands
is carried out under it in every mode. What the outstation got is read from what opendnp3
itself printed: each request its application layer decoded (``request`` events, by opendnp3's
name for the function) and each control, clock write and restart its handlers were called for.

Each command is followed by a marker: the deviations are turned off, the connection is made
anew (a deviation that cuts or overstates a frame leaves the outstation's link layer waiting
for octets that are not coming), and a READ of one point is sent; once opendnp3 has printed
that READ, everything it received before it has been printed too. So what lies between the
command and the marker is all the outstation made of the command.

A command must reach the outstation at most once; under a deviation that leaves the request
intact (``DELIVERED``) exactly once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master import Master, OutstationSettings, gate
from gridwire.master.controls import build_body
from gridwire.master.deviations import DEVIATIONS
from gridwire.master.scans import clear_restart_body
from tests.support.peers import OutstationPeer, yadnp3_outstation

pytestmark = pytest.mark.interop

NAME = "out"
# Deviations under which the request still arrives whole and in order: only confirmations
# change, or something extra goes with the request.
DELIVERED = frozenset(
    {
        "repeat_request",
        "orphan_segment",
        "withhold_confirmation",
        "late_confirmation",
        "wrong_confirmation_sequence",
        "withhold_unsolicited_confirmation",
    }
)
# A request under the other deviations is not answered: waiting long for it is waiting for
# nothing. Those that arrive are answered within milliseconds on loopback.
TIMEOUT_DELIVERED = 5.0
TIMEOUT_BROKEN = 0.25

Run = Callable[[Master, int], Awaitable[object]]


@dataclass(frozen=True)
class Command:
    """An operation that commands: how to run it for a point, what it sends that commands
    (opendnp3's function names), and what opendnp3's handlers print for it."""

    run: Run
    functions: tuple[str, ...]
    handlers: tuple[str, ...]


def _operate(kind: str, value: object, mode: str) -> Run:
    def run(master: Master, index: int) -> Awaitable[object]:
        return master.operate(NAME, {kind: {str(index): value}}, mode=mode)

    return run


COMMANDS: dict[str, Command] = {
    "bo direct": Command(_operate("bo", True, "direct"), ("DIRECT_OPERATE",), ("operate",)),
    "bo select": Command(
        _operate("bo", "PULSE_ON", "select"), ("SELECT", "OPERATE"), ("select", "operate")
    ),
    "bo direct_no_ack": Command(
        _operate("bo", False, "direct_no_ack"), ("DIRECT_OPERATE_NR",), ("operate",)
    ),
    "ao direct": Command(_operate("ao", 12, "direct"), ("DIRECT_OPERATE",), ("operate",)),
    "ao select": Command(
        _operate("ao", 2.5, "select"), ("SELECT", "OPERATE"), ("select", "operate")
    ),
    "ao direct_no_ack": Command(
        _operate("ao", -7, "direct_no_ack"), ("DIRECT_OPERATE_NR",), ("operate",)
    ),
    "write_time": Command(lambda m, i: m.write_time(NAME), ("WRITE",), ("time_write",)),
    "synchronize_time lan": Command(
        lambda m, i: m.synchronize_time(NAME, "lan"),
        ("RECORD_CURRENT_TIME", "WRITE"),
        ("time_write",),
    ),
    "synchronize_time non_lan": Command(
        lambda m, i: m.synchronize_time(NAME, "non_lan"), ("WRITE",), ("time_write",)
    ),
    "restart cold": Command(lambda m, i: m.restart(NAME, "cold"), ("COLD_RESTART",), ("restart",)),
    "restart warm": Command(lambda m, i: m.restart(NAME, "warm"), ("WARM_RESTART",), ("restart",)),
    "freeze": Command(lambda m, i: m.freeze(NAME), ("IMMED_FREEZE",), ()),
    "freeze no_ack": Command(lambda m, i: m.freeze(NAME, no_ack=True), ("IMMED_FREEZE_NR",), ()),
    "clear_restart": Command(lambda m, i: m.clear_restart(NAME), ("WRITE",), ()),
    "request WRITE": Command(
        lambda m, i: m.request(NAME, "WRITE", clear_restart_body()), ("WRITE",), ()
    ),
    "broadcast DIRECT_OPERATE_NR": Command(
        lambda m, i: m.broadcast(NAME, "DIRECT_OPERATE_NR", build_body({"bo": {str(i): True}})),
        ("DIRECT_OPERATE_NR",),
        ("operate",),
    ),
}
# The functions counted: opendnp3 names these as IEEE 1815 (and gridwire) does.
COMMANDING = {name for c in COMMANDS.values() for name in c.functions}


def test_the_functions_counted_are_the_ones_the_gate_holds_commanding() -> None:
    assert all(gate.commands(FunctionCode[name]) for name in COMMANDING)


@pytest.fixture(scope="module")
def outstation() -> Iterator[OutstationPeer]:
    with yadnp3_outstation(points=len(DEVIATIONS)) as peer:
        yield peer


async def _marker(master: Master, peer: OutstationPeer, index: int) -> list[dict[str, Any]]:
    """Deviations off, a new connection, and a READ of binary input ``index``; returns what
    opendnp3 printed between the command and that READ."""
    master.deviate(NAME, dict.fromkeys(DEVIATIONS, False))
    await master.disconnect(NAME)
    await master.connect(NAME)
    exchange = await master.read(NAME, {"bi": [index]})
    assert exchange.outcome == "complete"
    marker = await peer.aexpect("request", func="READ")
    position = next(n for n, event in enumerate(peer.events) if event is marker)
    return peer.events[:position]


def _counts(events: list[dict[str, Any]]) -> Counter[str]:
    """Each commanding request opendnp3 decoded, by function, and each call of its handlers
    (controls by point)."""
    counted: Counter[str] = Counter()
    for event in events:
        name = event.get("event")
        if name == "request" and event.get("func") in COMMANDING:
            counted[event["func"]] += 1
        elif name in ("select", "operate"):
            counted[f"{name} callback {event.get('index')}"] += 1
        elif name in ("time_write", "restart"):
            counted[f"{name} callback"] += 1
    return counted


def _expected(command: Command, point: int) -> Counter[str]:
    """What the outstation prints for ``command`` to ``point`` when it arrives once."""
    expected: Counter[str] = Counter(command.functions)
    for handler in command.handlers:
        point_of = f" {point}" if handler in ("select", "operate") else ""
        expected[f"{handler} callback{point_of}"] += 1
    return expected


@pytest.mark.parametrize("deviation", sorted(DEVIATIONS))
async def test_no_deviation_sends_a_command_twice(
    outstation: OutstationPeer, deviation: str
) -> None:
    index = sorted(DEVIATIONS).index(deviation)
    delivered = deviation in DELIVERED
    master = Master(allow_control=True)
    timeout = TIMEOUT_DELIVERED if delivered else TIMEOUT_BROKEN
    found: dict[str, Counter[str]] = {}
    wanted: dict[str, Counter[str]] = {}
    try:
        await master.add(
            OutstationSettings(
                name=NAME,
                host="127.0.0.1",
                port=outstation.port,
                manual=True,
                confirm=True,
                response_timeout=timeout,
            )
        )
        for name, command in COMMANDS.items():
            start = outstation.drain()  # what came before is not this command's
            master.deviate(NAME, {deviation: True})
            await command.run(master, index)
            between = (await _marker(master, outstation, index))[start:]
            found[name] = _counts(between)
            wanted[name] = _expected(command, index)
    finally:
        await master.close()
    if delivered:
        assert found == wanted  # each command once
    else:
        twice = {name: c for name, c in found.items() if any(n > 1 for n in c.values())}
        assert twice == {}  # at most once: what is guaranteed
        # What opendnp3 makes of them: none of the commands reached its application.
        assert found == {name: Counter() for name in COMMANDS}
