"""The gateway end to end, in-process: the head-end double over real mutual TLS serving DER
programs, gridwire's simulated 1815.2 DER over DNP3 on loopback (it keeps every control it
carried out, so each can be counted). What the DER holds is read back from it through a
second read, and the Responses from the double's sink, in the order they arrived."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from gridwire.derops import Der
from gridwire.gateway.api import gateway_app
from tests.gateway.conftest import NS, der_control, rig
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.waiting import until

DEFAULT = (
    "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase><setGradW>27</setGradW>"
)
VOLT_VAR = (
    '<DERCurve href="/derp/0/dc/1"><mRID>C1000000000000000000000000000000</mRID>'
    "<description>volt-var</description><creationTime>1767225600</creationTime>"
    + "".join(
        f"<CurveData><xvalue>{x}</xvalue><yvalue>{y}</yvalue></CurveData>"
        for x, y in ((9200, 3000), (9800, 0), (10200, 0), (10800, -3000))
    )
    + "<curveType>11</curveType><xMultiplier>-2</xMultiplier><yMultiplier>-2</yMultiplier>"
    "<yRefType>2</yRefType></DERCurve>"
)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


async def values(der: Der, *names: str) -> list[object]:
    return [p.value for p in (await der.read(list(names))).points]


async def test_an_event_runs_on_time_the_head_end_goes_away_and_the_default_follows(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    limit = "<opModMaxLimW>5000</opModMaxLimW>"
    program = Program(1, [], DEFAULT)
    headend.programs = [program]
    async with rig(headend, pki, tmp_path / "gw.db") as r:
        now = int(time.time())
        program.controls.append(der_control("A1", now + 2, 2, limit))
        await until(lambda: headend.responses() == [("A1", 1)], within=10)
        assert await values(r.der, "AI149") == [100.0]  # the default before the event
        await until(lambda: ("A1", 2) in headend.responses(), within=10)
        started = headend.posted[-1].wall
        # Within a pass of its start; the head-end truncates its clock to whole seconds and the
        # timebase takes the middle of that second, so up to half a second early.
        assert now + 1.5 <= started < now + 4
        await until(lambda: ("ao", 88, 500) in r.sim.received, within=5)
        assert await values(r.der, "AI149") == [50.0]
        headend.stop()  # the head-end goes away mid-event
        await until(lambda: r.gateway.scheduler.records["A1"].state == "completed", within=10)
        await until(lambda: ("ao", 88, 1000) in r.sim.received, within=5)
        assert await values(r.der, "AI149") == [100.0]  # the default, from what was last read
        headend.start()  # back on the same port: the Response owed is posted, once
        await until(lambda: ("A1", 3) in headend.responses(), within=10)
    assert headend.responses() == [("A1", 1), ("A1", 2), ("A1", 3)]
    writes = [c for c in r.sim.received if c[:2] == ("ao", 88)]
    # The default was there already (nothing sent); the event, then the default: once each.
    assert writes == [("ao", 88, 500), ("ao", 88, 1000)]


async def test_every_mode_the_demo_der_has_is_applied_and_put_back(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    base = (
        "<opModConnect>false</opModConnect>"
        "<opModFixedPFInjectW><displacement>95</displacement><excitation>true</excitation>"
        "<multiplier>-2</multiplier></opModFixedPFInjectW>"
        "<opModFixedVar><refType>2</refType><value>-2500</value></opModFixedVar>"
        "<opModTargetW><multiplier>3</multiplier><value>4</value></opModTargetW>"
        '<opModVoltVar href="/derp/0/dc/1"/><opModWattVar href="/derp/0/dc/1"/>'
        "<rampTms>500</rampTms>"
    )
    freq_watt = '<opModFreqWatt href="/derp/0/dc/1"/>'
    program = Program(1, [], curves=[VOLT_VAR])
    headend.programs = [program]
    names = ["BI23", "AI288", "BI29", "AI281", "AI154", "AI297", "AI144"]
    async with rig(headend, pki, tmp_path / "gw.db") as r:
        found = await values(r.der, *names)
        now = int(time.time())
        program.controls += [
            der_control("B1", now + 2, 2, base),
            der_control("B2", now + 2, 2, freq_watt),
        ]
        await until(lambda: ("B1", 2) in headend.responses(), within=10)
        await until(lambda: any(c[:2] == ("bo", 29) for c in r.sim.received), within=10)
        # connect open; pf 0.95 over-excited (injecting: state 0); -25 % vars; 4000 W of
        # 10000 W is 40 %; volt-var on stored curve 4 (the free one); ramp 5 s.
        assert await values(r.der, *names) == [False, 0.95, False, -25.0, 40.0, 4.0, 5.0]
        curve = r.sim.curves.curve(4) if r.sim.curves else None
        assert curve is not None and (curve.type, curve.x_units, curve.y_units) == (2, 129, 2)
        assert list(curve.points) == [(92, 30), (98, 0), (102, 0), (108, -30)]
        enabled = {f.key: f.enabled for f in (await r.der.functions()).functions}
        assert enabled["volt-var"] and enabled["constant-vars"] and enabled["charge-discharge"]
        await until(lambda: ("B1", 3) in headend.responses(), within=10)
        await until(lambda: not r.gateway.applier.held.points, within=5)
        await until(lambda: not r.gateway.applier.held.functions, within=5)
        assert await values(r.der, *names) == found  # no default: what was found
    # Watt-VAr is not supported by the demo DER: skipped, the event runs the rest; an event
    # of nothing but frequency-watt (no such function) is not applicable.
    assert headend.responses() == [("B1", 1), ("B2", 252), ("B1", 2), ("B1", 3)]
    assert not any(c[:2] == ("bo", 30) for c in r.sim.received)  # watt-var never enabled


async def test_cancelled_after_and_before_start_and_superseded(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    now = int(time.time())
    limit = "<opModMaxLimW>3000</opModMaxLimW>"
    program = Program(
        1,
        [
            der_control("C1", now + 2, 30, limit),
            der_control("C2", now + 60, 60, limit),
            der_control("C3", now + 120, 60, limit, created=now),
            der_control("C4", now + 120, 10, limit, created=now + 1),
        ],
        DEFAULT,
    )
    headend.programs = [program]
    headend.faults["/derp/0/dc"] = 500  # a curve list that fails stops no event
    async with rig(headend, pki, tmp_path / "gw.db") as r:
        await until(lambda: ("C1", 2) in headend.responses(), within=10)
        await until(lambda: ("ao", 88, 300) in r.sim.received, within=5)
        assert await values(r.der, "AI149") == [30.0]
        program.controls[0] = der_control("C1", now + 2, 30, limit, status=2)
        program.controls[1] = der_control("C2", now + 60, 60, limit, status=2)
        await until(lambda: ("C2", 6) in headend.responses(), within=10)
        await until(lambda: r.sim.received[-1] == ("ao", 88, 1000), within=5)
        assert await values(r.der, "AI149") == [100.0]  # the default again
    by_event: dict[str, list[int]] = {}
    for mrid, status in headend.responses():
        by_event.setdefault(str(mrid), []).append(int(status or 0))
    assert by_event == {"C1": [1, 2, 6], "C2": [1, 6], "C3": [1, 7], "C4": [1]}


async def test_the_der_is_reported_back_and_the_api_tells_what_is_known(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    later = der_control("D1", int(time.time()) + 3600, 60, "<opModMaxLimW>2000</opModMaxLimW>")
    headend.programs = [Program(1, [later], DEFAULT)]
    async with rig(headend, pki, tmp_path / "gw.db") as r:
        await until(lambda: headend.posts("/mup/0"), within=10)
        names = ["AI4", "AI32", "BI23", "AI43"]
        rated_w, max_w, connected, available_w = await values(r.der, *names)
        app = gateway_app(r.gateway, token="t0k3n", bound=("127.0.0.1", 8831))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8831") as c:
            assert (await c.get("/api/v1/gateway/events")).status_code == 401
            auth = {"Authorization": "Bearer t0k3n"}
            events = (await c.get("/api/v1/gateway/events", headers=auth)).json()
            state = (await c.get("/api/v1/gateway/state", headers=auth)).json()
            responses = (await c.get("/api/v1/gateway/responses", headers=auth)).json()
            clock = (await c.get("/api/v1/time", headers=auth)).json()
            foreign = await c.get(
                "/api/v1/gateway/state", headers={**auth, "Origin": "http://evil.example"}
            )
    assert [(e["mrid"], e["state"], e["modes"]) for e in events] == [
        ("D1", "scheduled", {"opModMaxLimW": 20.0})
    ]
    assert state["targets"]["opModMaxLimW"] == {
        "value": 100.0,
        "source": "default",
        "program": "/derp/0",
    }
    assert state["supported"]["opModVoltVar"] and not state["supported"]["opModFreqWatt"]
    assert [(x["mrid"], x["status"], x["answer"]) for x in responses] == [("D1", 1, 201)]
    assert clock["source"] == "server"
    assert foreign.status_code == 403
    ns = {"s": NS}
    (capability,) = [ET.fromstring(b) for b in headend.puts("dercap")]
    # Connect, energize, fixed pf absorbing and injecting, fixed var, fixed W (bits 2-7), max
    # W (20), target W (22), volt-var (23), volt-watt (24); not freq-watt nor watt-var: the
    # demo DER has no frequency-watt function and reports watt-var unsupported.
    assert capability.findtext("s:modesSupported", namespaces=ns) == "01D000FC"
    assert capability.findtext("s:rtgMaxW/s:value", namespaces=ns) == str(round(rated_w))
    (settings,) = [ET.fromstring(b) for b in headend.puts("derg")]
    assert settings.findtext("s:setMaxW/s:value", namespaces=ns) == str(round(max_w))
    (status,) = [ET.fromstring(b) for b in headend.puts("ders")]
    bits = int(status.findtext("s:genConnectStatus/s:value", namespaces=ns) or "", 16)
    assert bool(bits & 1) is connected
    (availability,) = [ET.fromstring(b) for b in headend.puts("dera")]
    assert availability.findtext("s:statWAvail/s:value", namespaces=ns) == str(round(available_w))
    (mup,) = [ET.fromstring(b) for b in headend.posts("/mup")]
    uoms = [e.text for e in mup.iterfind("s:MirrorMeterReading/s:ReadingType/s:uom", ns)]
    assert uoms == ["38", "63", "29", "33"]  # W, var, V, Hz
    (readings,) = [ET.fromstring(b) for b in headend.posts("/mup/0")]
    assert len(readings.findall("s:MirrorMeterReading/s:Reading/s:value", ns)) == 4
