"""The client against the head-end double over real mutual TLS: discovery, polling, the
timebase it feeds, failures and rediscovery.

Offsets are checked to within 1.5 s: the head-end truncates to whole seconds (up to 1 s) and
the request takes a little time on loopback."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from gridwire.sep2.errors import HeadEndError, Unreachable
from gridwire.sep2.identity import identity_from_der
from gridwire.sep2.polling import Poller, PollSettings
from gridwire.sep2.timebase import Timebase
from gridwire.sep2.transport import Fetched
from tests.sep2.conftest import ClientFactory, SteppedClock
from tests.sep2.headend import Device, Fsa, HeadEndDouble, TimeZone, lfdi_of
from tests.sep2.pki import Pki

TOLERANCE = 1.5
FSA0, FSA1, FSA2 = "/edev/2/fsa/0", "/edev/2/fsa/1", "/edev/2/fsa/2"
FSA0_TM = "/edev/2/fsa/0/tm"


def near(value: float | None, expected: float) -> bool:
    return value is not None and abs(value - expected) <= TOLERANCE


def ahead_and_behind(headend: HeadEndDouble) -> None:
    headend.clock_offset["/tm"] = 3600.0  # the head-end's global clock an hour ahead
    headend.clock_offset[FSA0_TM] = -120.0  # FSA 0's Time two minutes behind


async def test_discovery_through_paged_lists_and_an_offset_per_scope(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    ahead_and_behind(headend)
    client = make_client()
    reading = await client.observe_once()
    assert reading.source == "server" and near(reading.offset_seconds, 3600)
    assert near(reading.current_time, time.time() + 3600)
    status = client.status()
    assert status.device.end_device == "/edev/2"
    assert status.connection.state == "connected"
    entries = {e.fsa: e for e in status.timebase.per_fsa}
    assert list(entries) == [FSA0, FSA1, FSA2]
    assert near(entries[FSA0].offset_seconds, -120) and entries[FSA0].href == FSA0_TM
    assert near(entries[FSA1].offset_seconds, 3600) and entries[FSA1].href == "/tm"
    assert entries[FSA2].offset_seconds is None and entries[FSA2].href is None
    # Events are scheduled on each scope's own offset; an FSA with no Time uses the global.
    assert near(client.now(FSA0) - time.time(), -120)
    assert near(client.now(FSA1) - time.time(), 3600)
    assert near(client.now(FSA2) - time.time(), 3600)
    # The device list was paged two at a time and read only until this device was found;
    # the FSA list (three entries) took two pages.
    pages = [(e.path, e.query) for e in headend.log if e.path in ("/edev", "/edev/2/fsa")]
    assert pages == [
        ("/edev", {"s": "0", "l": "25"}),
        ("/edev", {"s": "2", "l": "25"}),
        ("/edev/2/fsa", {"s": "0", "l": "25"}),
        ("/edev/2/fsa", {"s": "2", "l": "25"}),
    ]
    # Every request came with this device's certificate over the baseline suite, asking for
    # IEEE 2030.5's media type.
    ours = lfdi_of(headend.pki.device_der)
    assert {(e.lfdi, e.cipher, e.version, e.accept) for e in headend.log} == {
        (ours, "ECDHE-ECDSA-AES128-CCM8", "TLSv1.2", "application/sep+xml")
    }
    assert client.identity.lfdi == ours


async def test_each_distinct_time_resource_is_fetched_once_per_round(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.devices[2].fsas += [Fsa("global"), Fsa("global")]  # three FSAs and DCAP share /tm
    client = make_client()
    await client.observe_once()
    await client.observe_once()
    assert headend.requests_to("/tm") == 2
    assert headend.requests_to(FSA0_TM) == 2
    assert headend.requests_to("/dcap") == 2


@pytest.mark.parametrize("status", [404, 204])
async def test_fsa_time_404_or_204_means_it_has_none(
    headend: HeadEndDouble, make_client: ClientFactory, status: int
) -> None:
    ahead_and_behind(headend)
    client = make_client()
    await client.observe_once()
    assert near(client.now(FSA0) - time.time(), -120)
    headend.faults[FSA0_TM] = status
    await client.observe_once()
    entry = client.status().timebase.per_fsa[0]
    assert (entry.fsa, entry.offset_seconds, entry.stale) == (FSA0, None, False)
    assert near(client.now(FSA0) - time.time(), 3600)
    assert client.status().connection.state == "connected"
    assert client.poller.rediscoveries == 0


async def test_time_link_only_on_fsas(headend: HeadEndDouble, make_client: ClientFactory) -> None:
    headend.dcap_time = None
    headend.devices[2].fsas = [Fsa("own", der_programs=False), Fsa("own")]
    headend.clock_offset[FSA0_TM] = -600.0
    headend.clock_offset["/edev/2/fsa/1/tm"] = 45.0
    client = make_client()
    reading = await client.observe_once()
    assert reading.source == "server" and reading.href in (FSA0_TM, "/edev/2/fsa/1/tm")
    status = client.status()
    assert status.timebase.global_ is None
    offsets = [e.offset_seconds for e in status.timebase.per_fsa]
    assert near(offsets[0], -600) and near(offsets[1], 45)
    assert near(client.now(FSA0) - time.time(), -600)
    assert client.now() == pytest.approx(time.time(), abs=0.5)  # nothing global: local clock


async def test_one_failing_scope_does_not_stop_the_others(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    ahead_and_behind(headend)
    headend.faults[FSA0_TM] = 500
    client = make_client()
    reading = await client.observe_once()
    assert near(reading.offset_seconds, 3600)
    status = client.status()
    assert status.connection.state == "connected"
    assert status.timebase.per_fsa[0].offset_seconds is None


async def test_every_time_resource_failing_is_a_connection_failure(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.faults["/tm"] = 500
    headend.faults[FSA0_TM] = 500
    client = make_client()
    with pytest.raises(HeadEndError, match=r"every Time resource failed.*HTTP 500"):
        await client.observe_once()
    connection = client.status().connection
    assert connection.state == "failed"
    assert connection.error is not None and "every Time resource failed" in connection.error
    assert client.time_reading().source == "unavailable"


async def test_head_end_going_away_and_coming_back(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    ahead_and_behind(headend)
    client = make_client()
    headend.stop()
    with pytest.raises(Unreachable, match="unreachable: connection refused"):
        await client.observe_once()
    assert client.time_reading().source == "unavailable"  # 503 until the first observation
    assert client.status().connection.state == "failed"
    headend.start()
    first = await client.observe_once()
    assert first.source == "server" and near(first.offset_seconds, 3600)
    headend.stop()
    with pytest.raises(Unreachable):
        await client.observe_once()
    during = client.time_reading()  # afterwards the reading stays good
    assert during.source == "server" and during.offset_seconds == first.offset_seconds
    assert near(during.current_time, time.time() + 3600)
    status = client.status()
    assert status.connection.state == "failed"
    assert status.connection.error is not None and "connection refused" in status.connection.error
    headend.start()
    again = await client.observe_once()
    assert again.source == "server" and client.status().connection.state == "connected"


async def test_the_poll_loop_recovers_by_itself(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.dcap_poll_rate = 1  # every second, so the loop goes round while the test waits
    headend.clock_offset["/tm"] = -30.0
    client = make_client()
    await client.start()
    await wait_for(lambda: client.time_reading().source == "server")
    headend.stop()
    await wait_for(lambda: client.status().connection.state == "failed")
    assert client.time_reading().source == "server"
    headend.clear_log()
    headend.start()
    await wait_for(lambda: client.status().connection.state == "connected")
    await wait_for(lambda: headend.requests_to("/tm") >= 2)
    assert near(client.time_reading().offset_seconds, -30)


async def wait_for(condition: object, within: float = 20.0) -> None:
    assert callable(condition)
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def daylight_saving_now(headend: HeadEndDouble) -> None:
    """The head-end's zone: daylight saving in effect from a day ago until a day from now."""
    now = int(time.time())
    headend.zone = TimeZone(dst_start=now - 86_400, dst_end=now + 86_400)


async def test_rediscovery_keeps_offsets_and_forgets_withdrawn_fsas(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    ahead_and_behind(headend)
    daylight_saving_now(headend)
    client = make_client()
    await client.observe_once()
    before = client.time_reading()
    assert (before.tz_offset, before.dst_active) == (-18000, True)
    # The head-end withdraws FSA 2 and, in the same breath, its Time resources fail.
    headend.devices[2].fsas = headend.devices[2].fsas[:2]
    headend.faults["/tm"] = 500
    headend.faults[FSA0_TM] = 500
    with pytest.raises(HeadEndError):
        await client.observe_once()
    assert client.poller.rediscoveries == 1
    assert [e.fsa for e in client.status().timebase.per_fsa] == [FSA0, FSA1]
    during = client.time_reading()
    assert during.source == "server" and during.offset_seconds == before.offset_seconds
    assert (during.local_time, during.tz_offset, during.dst_offset) == (None, None, None)
    assert during.dst_active is False  # a boolean: nothing held, no dstOffset applied
    headend.faults.clear()
    after = await client.observe_once()
    assert after.tz_offset == -18000 and after.dst_active is True
    assert after.current_time is not None and after.local_time == after.current_time - 14400
    assert client.poller.rediscoveries == 1  # no change since: no further rediscovery


async def test_changed_device_capability_links_rediscover(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    client = make_client()
    await client.observe_once()
    headend.edev_path = "/ed"  # the head-end moved its EndDeviceList and everything under it
    await client.observe_once()
    assert client.poller.rediscoveries == 1
    fsas = [e.fsa for e in client.status().timebase.per_fsa]
    assert fsas == ["/ed/2/fsa/0", "/ed/2/fsa/1", "/ed/2/fsa/2"]  # old paths forgotten


async def test_global_time_disappearing_rediscovers_and_keeps_the_offset(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    ahead_and_behind(headend)
    client = make_client()
    first = await client.observe_once()
    headend.faults["/tm"] = 404
    await client.observe_once()  # FSA 0's Time still answers
    assert client.poller.rediscoveries == 0
    await client.observe_once()  # the next DeviceCapability poll rediscovers
    assert client.poller.rediscoveries == 1
    reading = client.time_reading()
    assert reading.offset_seconds == first.offset_seconds and reading.tz_offset is None


async def test_device_capability_disappearing_is_a_failure_then_rediscovery(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    client = make_client()
    await client.observe_once()
    headend.faults["/dcap"] = 404
    with pytest.raises(
        HeadEndError, match=f"DeviceCapability {headend.url}/dcap answered HTTP 404"
    ):
        await client.observe_once()
    assert client.time_reading().source == "server"
    del headend.faults["/dcap"]
    await client.observe_once()
    assert client.poller.rediscoveries == 1
    assert client.status().connection.state == "connected"


async def test_unknown_device_draws_500_and_global_time_is_still_observed(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.devices = [Device(lfdi="0" * 40)]
    headend.clock_offset["/tm"] = 10.0
    client = make_client()
    reading = await client.observe_once()
    assert near(reading.offset_seconds, 10)
    status = client.status()
    assert status.device.end_device is None and status.timebase.per_fsa == []


async def test_a_stepped_wall_clock_changes_no_age(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.clock_offset["/tm"] = 50.0
    clock = SteppedClock()
    client = make_client(clock)
    first = await client.observe_once()
    assert near(first.offset_seconds, 50)
    started = time.monotonic()
    clock.wall_step = 500.0  # the device's clock is set 500 s ahead
    status = client.status().timebase.global_
    assert status is not None and status.offset_seconds == first.offset_seconds
    assert status.age_seconds is not None
    assert status.age_seconds <= time.monotonic() - started + 0.5
    # The next observation measures against the stepped clock: 500 s less.
    second = await client.observe_once()
    assert near(second.offset_seconds, 50 - 500)
    assert near(second.current_time, time.time() + 50)


async def test_stale_fsa_falls_back_to_global_with_one_warning(
    headend: HeadEndDouble, make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    ahead_and_behind(headend)
    clock = SteppedClock()
    client = make_client(clock)
    await client.observe_once()
    headend.faults[FSA0_TM] = 500  # FSA 0's Time stops answering; /tm goes on
    clock.elapsed += 3601  # an hour and a second pass
    caplog.set_level(logging.WARNING, "gridwire.sep2.timebase")
    await client.observe_once()
    entry = client.status().timebase.per_fsa[0]
    assert entry.stale and near(entry.offset_seconds, -120)
    assert near(client.now(FSA0) - time.time(), 3600)  # scheduled on the global offset
    await client.observe_once()
    bypass = [r.getMessage() for r in caplog.records if r.name == "gridwire.sep2.timebase"]
    assert len(bypass) == 1 and FSA0 in bypass[0] and FSA0_TM in bypass[0]
    del headend.faults[FSA0_TM]
    await client.observe_once()
    assert not client.status().timebase.per_fsa[0].stale
    assert near(client.now(FSA0) - time.time(), -120)


@pytest.mark.parametrize(
    ("dcap_rate", "time_rate", "time_poll", "stale"),
    [
        (300, None, 300, 3600),  # Time carries none (900 by default): DCAP's 300 wins
        (300, 60, 60, 3600),  # the Time resource asks for more: it gets it
        (None, None, 900, 3600),  # neither says: 900, three of which are 2700, raised to 3600
        (3600, None, 900, 3600),  # DCAP slower than the Time default: 900
        (3600, 2000, 2000, 6000),  # three intervals of 2000
    ],
)
async def test_time_cadence_and_staleness_threshold(
    headend: HeadEndDouble,
    make_client: ClientFactory,
    dcap_rate: int | None,
    time_rate: int | None,
    time_poll: int,
    stale: int,
) -> None:
    headend.dcap_poll_rate = dcap_rate
    headend.time_poll_rate["/tm"] = time_rate
    headend.time_poll_rate[FSA0_TM] = time_rate
    client = make_client()
    await client.observe_once()
    status = client.status()
    assert status.polling.dcap_poll_seconds == (900 if dcap_rate is None else dcap_rate)
    assert status.polling.time_poll_seconds == time_poll
    assert status.timebase.fsa_stale_seconds == stale
    delay = await client.poller.cycle()  # nothing due now: the next poll is a cadence away
    assert time_poll - 5 < delay <= time_poll
    assert headend.requests_to("/tm") == 1


async def test_fsa_stale_seconds_override(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    client = make_client(fsa_stale_seconds=120)
    await client.observe_once()
    assert client.status().timebase.fsa_stale_seconds == 120


async def test_use_server_time_off_schedules_on_the_local_clock_but_reports(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.clock_offset["/tm"] = 3600.0
    client = make_client(use_server_time=False)
    reading = await client.observe_once()
    assert reading.timebase_enabled is False and near(reading.offset_seconds, 3600)
    assert client.now() == pytest.approx(time.time(), abs=0.5)
    assert client.status().timebase_enabled is False


async def test_an_unusable_time_link_fails_only_its_scope(
    headend: HeadEndDouble, make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    headend.devices[2].fsas[2] = Fsa("ftp://elsewhere/tm")
    headend.devices[2].fsas.append(Fsa("http://[::zz/tm"))
    client = make_client()
    caplog.set_level(logging.WARNING, "gridwire.sep2.polling")
    reading = await client.observe_once()
    assert reading.source == "server"
    status = client.status()
    assert status.connection.state == "connected"
    assert [e.offset_seconds is None for e in status.timebase.per_fsa] == [False, False, True, True]
    assert sum("not a usable URL" in r.getMessage() for r in caplog.records) == 2


async def test_an_unexpected_error_fails_the_round_and_the_poller_goes_on(pki: Pki) -> None:
    class Exploding:
        async def get(self, href: str, params: dict[str, int | str] | None = None) -> Fetched:
            raise RuntimeError("boom")

    settings = PollSettings(retry_initial_seconds=0.5, retry_max_seconds=2)
    poller = Poller(Exploding(), identity_from_der(pki.device_der), Timebase(), settings)
    assert await poller.cycle() == 0.5
    assert 0 < await poller.cycle() <= 0.5  # not due yet: nothing is asked
    poller.poll_now()
    assert await poller.cycle() == 1.0  # backing off, still running
    status = poller.connection_status()
    assert status.state == "failed" and status.error is not None and "boom" in status.error


class RefusingHeadEnd:
    """A head-end nothing reaches: every request fails Unreachable; ``asked`` lists them."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def get(self, href: str, params: dict[str, int | str] | None = None) -> Fetched:
        self.asked.append(href)
        raise Unreachable("connection refused")


async def test_retry_back_off_doubles_up_to_its_cap(pki: Pki) -> None:
    # Five failed rounds from 0.5 s, capped at 2 s: 0.5, 1, 2 (= 0.5 * 4, at the cap), then
    # 2 and 2 where doubling would give 4 and 8. Each round runs when its delay has passed.
    headend = RefusingHeadEnd()
    clock = SteppedClock()
    settings = PollSettings(retry_initial_seconds=0.5, retry_max_seconds=2)
    poller = Poller(headend, identity_from_der(pki.device_der), Timebase(), settings, clock=clock)
    delays = []
    for _ in range(5):
        delays.append(await poller.cycle())
        clock.elapsed += delays[-1]  # the delay passes
    assert delays == [0.5, 1.0, 2.0, 2.0, 2.0]
    assert headend.asked == ["/dcap"] * 5  # every round tried discovery again
    assert poller.connection_status().state == "failed"


async def test_quality_is_carried_through_unchanged_per_scope(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # Each Time resource's own claim reaches its own scope as sent: the global /tm says 7
    # (intentionally uncoordinated), FSA 0's own Time says 4; FSA 1 links to /tm.
    headend.quality["/tm"] = 7
    headend.quality[FSA0_TM] = 4
    client = make_client()
    reading = await client.observe_once()
    assert (reading.quality, reading.href) == (7, "/tm")
    status = client.status().timebase
    assert status.global_ is not None and status.global_.quality == 7
    assert [e.quality for e in status.per_fsa] == [4, 7, None]
    headend.quality["/tm"] = 5  # a new claim replaces the old at the next observation
    assert (await client.observe_once()).quality == 5


async def test_dcap_path_setting_is_where_discovery_starts(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.dcap_path = "/sep2/dcap"
    headend.clock_offset["/tm"] = 20.0
    default = make_client()
    with pytest.raises(
        HeadEndError, match=f"DeviceCapability {headend.url}/dcap answered HTTP 404"
    ):
        await default.observe_once()
    moved = make_client(dcap_path="/sep2/dcap")
    assert near((await moved.observe_once()).offset_seconds, 20)
    assert headend.requests_to("/sep2/dcap") == 1


async def test_reading_stays_good_when_the_only_time_resources_go(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # TimeLink only on an FSA. Its Time then answers 404 (it has none after all), and then the
    # head-end withdraws the FSA: /time was available and stays so on the measured offset.
    headend.dcap_time = None
    headend.devices[2].fsas = [Fsa("own")]
    headend.clock_offset[FSA0_TM] = -300.0
    client = make_client()
    first = await client.observe_once()
    assert first.source == "server" and first.tz_offset == -18000
    headend.faults[FSA0_TM] = 404
    gone = await client.observe_once()
    assert gone.source == "server" and gone.offset_seconds == first.offset_seconds
    assert (gone.tz_offset, gone.local_time, gone.dst_active) == (None, None, False)
    headend.devices[2].fsas = []
    withdrawn = await client.observe_once()
    assert client.poller.rediscoveries == 1 and client.status().timebase.per_fsa == []
    assert withdrawn.source == "server" and withdrawn.offset_seconds == first.offset_seconds
    assert near(withdrawn.current_time, time.time() - 300)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_the_poller_stops_even_when_just_woken(pki: Pki, turns: int) -> None:
    # Stopping cancels run(); poll_now() can wake it in the same turns of the event loop. On
    # Python 3.11 asyncio.wait_for swallows a cancellation that arrives as its event is set,
    # and run() then went on polling.
    settings = PollSettings(retry_initial_seconds=30, retry_max_seconds=30)
    for _ in range(20):
        poller = Poller(RefusingHeadEnd(), identity_from_der(pki.device_der), Timebase(), settings)
        running = asyncio.create_task(poller.run())
        await asyncio.sleep(0.01)  # the first round failed; run() waits 30 s to retry
        poller.poll_now()
        for _ in range(turns):
            await asyncio.sleep(0)
        running.cancel()
        async with asyncio.timeout(5):
            await asyncio.wait([running])
        assert running.cancelled()
