"""The simulated DER's schedules (gridwire.simulator.schedules), driven in process by the
controls a master sends and by its own clock: the window, the lock on a schedule in use, a
schedule beyond the count, and a ready schedule followed point by point in time."""

from __future__ import annotations

from gridwire.der import demo_map
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.controls import AnalogCommand, BinaryCommand
from gridwire.simulator import SimulatedDer

BLOCK = demo_map().schedule_block
DAY_MS = 86_400_000
START_DAY = 20_000  # 2024-10-04, days since 1970-01-01
LIMIT, LIMIT_READ = 88, 149  # the active power limit, generating (AO88), its mirror


def _der(*misbehave: str) -> SimulatedDer:
    clock = DeviceClock(wall_ms=START_DAY * DAY_MS, now=0.0)  # midnight at now=0
    return SimulatedDer(clock=clock, misbehave=frozenset(misbehave))


def _ao(der: SimulatedDer, index: int, value: int) -> str:
    return der.control(AnalogCommand(index, value, 1), "direct", 0.0).name


def _bo(der: SimulatedDer, index: int, on: bool) -> str:
    return der.control(BinaryCommand(index, 3 if on else 4, 1, 0, 0), "direct", 0.0).name


def _ai(der: SimulatedDer, index: int) -> object:
    return der.database.get("ai", index).value


def _store(der: SimulatedDer, number: int, priority: int = 1) -> None:
    """Schedule ``number``: active power limit, generating (type 13), from 10 s after
    midnight: 30 % at 0 s, 60 % at 5 s, 90 % at 10 s (AO88 is in tenths of a percent)."""
    writes = [(461, number), (462, 70 + number), (463, priority), (464, 13)]
    writes += [(465, START_DAY), (466, 10_000), (467, 0), (468, 0), (469, 3)]
    writes += [(470, 0), (471, 300), (472, 5), (473, 600), (474, 10), (475, 900)]
    assert [_ao(der, i, v) for i, v in writes] == ["SUCCESS"] * len(writes)


def test_the_window_shows_what_was_written_and_the_block_derives() -> None:
    assert BLOCK is not None
    der = _der()
    _store(der, 2)
    # The mirrors: identity, type, start, count (AI580, apart from the outputs), points.
    seen = [_ai(der, i) for i in (570, 571, 573, 574, 575, 580, 581, 582, 585, 586)]
    assert seen == [2, 72, 13, START_DAY, 10_000, 3, 0, 300, 10, 900]
    assert _ai(der, 579) == 2  # inactive
    assert _ao(der, 461, 1) == "SUCCESS"
    assert [_ai(der, i) for i in (570, 573, 580)] == [1, 0, 0]  # schedule 1: empty
    assert _ao(der, 461, 5) == "OUT_OF_RANGE"  # four stored
    assert _ai(der, 570) == 1


def test_a_ready_schedule_is_followed_in_time_and_stops_when_not_ready() -> None:
    der = _der()
    _store(der, 2)
    before = der.database.get("ao", LIMIT).value
    assert _bo(der, 42, True) == "SUCCESS"
    assert der.database.get("bi", 108).value is True
    seen = []
    for now in (9.0, 10.5, 12.0, 15.5, 20.5, 30.0):
        der.tick(now)
        seen.append((now, _ai(der, LIMIT_READ), _ai(der, 569), _ai(der, 579)))
    assert seen == [
        (9.0, before, 0, 3),  # before the start: ready to run
        (10.5, 300, 2, 4),
        (12.0, 300, 2, 4),
        (15.5, 600, 2, 4),
        (20.5, 900, 2, 4),
        (30.0, 900, 2, 4),  # not repeated: the last point holds
    ]
    assert der.database.get("ao", LIMIT).value == 900
    # An edit while it is ready is refused and changes nothing.
    assert _ao(der, 471, 100) == "AUTOMATION_INHIBIT"
    assert _ai(der, 582) == 300
    assert _bo(der, 42, False) == "SUCCESS"
    der.tick(31.0)
    assert (_ai(der, 569), _ai(der, 579), _ai(der, LIMIT_READ)) == (0, 2, 900)


def test_repeat_and_priority() -> None:
    der = _der()
    _store(der, 2, priority=5)
    _store(der, 3, priority=1)
    for index, value in ((461, 3), (467, 12), (468, 1), (471, 100)):  # every 12 s; 10 %
        assert _ao(der, index, value) == "SUCCESS"
    for number in (2, 3):
        assert _ao(der, 461, number) == "SUCCESS"
        assert _bo(der, 42, True) == "SUCCESS"
    seen = []
    for now in (10.5, 16.0, 21.0, 22.5):
        der.tick(now)
        seen.append((_ai(der, 569), _ai(der, LIMIT_READ)))
    # Schedule 3 (priority 1) wins; 22.5 s is 0.5 s into its second repetition.
    assert seen == [(3, 100), (3, 600), (3, 900), (3, 100)]


def test_an_empty_schedule_cannot_be_made_ready() -> None:
    der = _der()
    assert _bo(der, 42, True) == "NOT_SUPPORTED"


def test_misbehaviours() -> None:
    der = _der("accept_schedule_edits_in_use")
    _store(der, 2)
    assert _bo(der, 42, True) == "SUCCESS"
    assert _ao(der, 471, 100) == "SUCCESS"
    der = _der("ignore_schedule_points")
    _store(der, 2)
    before = _ai(der, LIMIT_READ)
    assert _bo(der, 42, True) == "SUCCESS"
    der.tick(16.0)
    assert (_ai(der, 569), _ai(der, 579), _ai(der, LIMIT_READ)) == (2, 4, before)
