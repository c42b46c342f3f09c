"""The DER procedures through the Python API (``DerMaster.der(name)``) against gridwire's
simulated DER over TCP, on the demo map (indexes in the profile's numbering). The simulated
DER decides every control by the profile's rules (tests/simulator pins them), so what is
checked here is what the procedures send, in what order, and how they read the answers."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from gridwire.der.demo import demo_map
from gridwire.der.pointmap import PointMap
from gridwire.derops import DerReading
from gridwire.errors import ConnectionFailed, NotAllowed, RequestError
from gridwire.outstation import OutstationConfig
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME, simulated, without


def functions(exchanges: list[object]) -> list[str]:
    return [e.function for e in exchanges]  # type: ignore[attr-defined]


async def test_read_by_name_address_and_group_in_engineering_units() -> None:
    async with simulated() as s:
        result = await s.der.read(["AO0", "reference voltage", "ai 29", "AI537"], group="Nameplate")
        by_address = {p.address: p for p in result.points}
        assert [p.address for p in result.points][:3] == ["AO0", "AI29", "AI537"]
        assert len(by_address) == len(result.points)  # AI29 named twice, listed once
        assert (by_address["AO0"].value, by_address["AO0"].raw) == (240.0, 2400)
        assert (by_address["AO0"].units, by_address["AO0"].quality) == ("V", "good")
        assert by_address["AI29"].value == 240.0
        assert functions(result.exchanges) == ["READ"]  # one request reads them all


async def test_a_disabled_functions_inputs_come_back_offline() -> None:
    async with simulated() as s:
        before = {p.address: p for p in (await s.der.read(group="volt-var")).points}
        assert before["AI301"].quality == "offline" and before["AI301"].flags == []
        assert before["BI81"].state == "Disabled" and before["BI48"].state == "Supported"
        enabled = await s.der.enable("Volt-VAr")
        assert (enabled.function, enabled.enable, enabled.accepted, enabled.enabled) == (
            "volt-var",
            "BO29",
            True,
            True,
        )
        assert enabled.status is not None and enabled.status.address == "BI81"
        assert functions(enabled.exchanges) == ["DIRECT_OPERATE", "READ"]
        during = {p.address: p for p in (await s.der.read(group="volt-var")).points}
        assert during["AI301"].quality == "good" and during["BI81"].value is True
        disabled = await s.der.disable("bo29", mode="select")
        assert disabled.enabled is False and disabled.operated.mode == "select"
        assert functions(disabled.exchanges) == ["SELECT", "OPERATE", "READ"]
        after = {p.address: p for p in (await s.der.read(["AI301"])).points}
        assert after["AI301"].quality == "offline"


def with_volt_var(point_map: PointMap, **changes: object) -> PointMap:
    """The map with the volt-var function changed (its enabled input, say)."""
    functions = tuple(
        dataclasses.replace(f, **changes) if f.key == "volt-var" else f  # type: ignore[arg-type]
        for f in point_map.functions
    )
    return PointMap(
        list(point_map.points),
        title=point_map.title,
        functions=functions,
        curve_block=point_map.curve_block,
    )


async def test_enabled_is_null_when_the_input_is_missing_or_not_reported() -> None:
    # A profile whose volt-var function has no enabled input: nothing is read back.
    async with simulated(point_map=with_volt_var(demo_map(), enabled=None)) as s:
        result = await s.der.enable("volt-var")
        assert (result.accepted, result.enabled, result.status) == (True, None, None)
        assert functions(result.exchanges) == ["DIRECT_OPERATE"]
    # A DER that does not serve BI81, the enabled input the profile names: the readback is
    # refused, the input not reported.
    unmirrored = [
        dataclasses.replace(p, associated=None) if str(p.address) == "BO29" else p
        for p in demo_map().points
        if str(p.address) != "BI81"
    ]
    device = SimulatedDer(with_volt_var(PointMap(unmirrored, title="no BI81"), enabled=None))
    async with simulated(device=device) as s:
        result = await s.der.disable("volt-var")
        assert (result.accepted, result.enabled) == (True, None)
        assert result.status is not None and result.status.quality == "not_reported"
        assert functions(result.exchanges) == ["DIRECT_OPERATE", "READ"]
        assert "PARAMETER_ERROR" in result.exchanges[1].indications


async def test_an_unsupported_function_is_refused_and_read_disabled() -> None:
    async with simulated() as s:
        result = await s.der.enable("watt-var")
        assert (result.accepted, result.enabled) == (False, False)
        assert result.operated.operated is True
        with pytest.raises(
            RequestError, match=r"no function is named 'pump' \(functions: .*volt-var"
        ):
            await s.der.enable("pump")


async def test_write_in_the_order_given_with_verify() -> None:
    async with simulated() as s:
        result = await s.der.write({"AO88": 50.0, "BO5": "open"}, verify=True)
        assert (result.accepted, result.verified) == (True, True)
        limit, switch = result.points
        assert (limit.address, limit.requested, limit.sent, limit.sent_value) == (
            "AO88",
            50.0,
            500,
            50.0,
        )
        assert (limit.status, limit.echoed, limit.matches, limit.units) == (
            "SUCCESS",
            True,
            True,
            "%",
        )
        assert limit.readback is not None
        assert (limit.readback.address, limit.readback.value, limit.readback.raw) == (
            "AI149",
            50.0,
            500,
        )
        assert switch.readback is not None and switch.readback.value is False
        assert functions(result.exchanges) == ["DIRECT_OPERATE", "READ"]
        # In the order given: the analog output's header (g41v1) before the CROB's (g12v1).
        request = result.exchanges[0].request
        assert request[2:4] == "05" and request.index("2901") < request.index("0c01")
        assert s.device.database.get("ao", 88).value == 500


async def test_select_mode() -> None:
    async with simulated() as s:
        result = await s.der.write({"reference voltage": 241.5}, mode="select", verify=True)
        assert functions(result.exchanges) == ["SELECT", "OPERATE", "READ"]
        assert (result.operated.mode, result.operated.operated, result.accepted) == (
            "select",
            True,
            True,
        )
        assert result.points[0].sent == 2415 and result.verified is True


async def test_a_write_out_of_range_sends_nothing() -> None:
    async with simulated() as s:
        frames = s.frames()
        with pytest.raises(RequestError, match=r"AO88 .*100.1 % is outside the tables' range"):
            await s.der.write({"AO0": 241.0, "AO88": 100.1})
        assert s.frames() == frames
        assert s.device.database.get("ao", 0).value == 2400  # AO0, named first, was not sent


async def test_variation_3_sends_the_engineering_value() -> None:
    async with simulated() as s:
        result = await s.der.write({"AO88": 25.5}, variation=3, verify=True)
        [point] = result.points
        assert (point.sent, point.sent_value, point.matches) == (None, 25.5, True)
        assert "2903" in result.exchanges[0].request  # g41v3
        assert point.readback is not None and point.readback.raw == 255


async def test_a_refused_write_reads_back_unmatched() -> None:
    # Curve 3 is a watt-var curve; volt-var's curve setting takes volt-var curves only.
    async with simulated() as s:
        result = await s.der.write({"Volt-VAr curve number": 3}, verify=True)
        [point] = result.points
        assert (result.accepted, point.status) == (False, "NOT_SUPPORTED")
        assert point.readback is not None and point.readback.value == 1
        assert (point.matches, result.verified) == (False, False)


async def test_functions_are_listed_from_one_read() -> None:
    async with simulated() as s:
        result = await s.der.functions()
        assert functions(result.exchanges) == ["READ"]
        listed = {f.key: f for f in result.functions}
        volt_var = listed["volt-var"]
        assert (volt_var.enable, volt_var.status, volt_var.supports) == ("BO29", "BI81", "BI48")
        assert (volt_var.supported, volt_var.enabled) == (True, False)
        assert [(c.address, c.types) for c in volt_var.curve_settings] == [("AO217", [2])]
        inputs = {p.address for p in volt_var.inputs}
        assert "AI301" in inputs and "AI297" in inputs and not inputs & {"BI48", "BI81"}
        assert listed["watt-var"].supported is False
        setpoint = next(x for x in listed["constant-power-factor"].settings if x.address == "AO210")
        assert (setpoint.multiplier, setpoint.minimum, setpoint.maximum) == (0.01, 0.0, 1.0)
        assert (setpoint.mirror, setpoint.units) == ("AI288", None)
        target = next(x for x in listed["charge-discharge"].settings if x.address == "AO93")
        assert (target.units, target.minimum, target.maximum) == ("%", -100.0, 100.0)


async def test_curve_read_and_selected() -> None:
    async with simulated() as s:
        shown = await s.der.curve()
        assert (shown.number, shown.type, shown.type_name, shown.count) == (1, 2, "Volt-var", 4)
        assert (shown.x_units, shown.y_units, shown.referenced) == (129, 2, True)
        assert shown.points == [[92, 44], [98, 0], [102, 0], [108, -44]]
        assert shown.selected is None and functions(shown.exchanges) == ["READ", "READ"]
        second = await s.der.curve(2)
        assert second.selected is not None and second.selected.accepted is True
        assert functions(second.exchanges) == ["DIRECT_OPERATE", "READ", "READ"]
        assert (second.number, second.type_name, second.count) == (2, "Volt-watt", 3)
        assert second.points == [[100, 100], [106, 100], [110, 0]]
        missing = await s.der.curve(9)  # the DER stores four
        assert missing.selected is not None and missing.selected.accepted is False
        assert missing.number == 2
        empty = await s.der.curve(4)
        assert (empty.count, empty.points, empty.type_name) == (0, [], "Curve disabled")
        assert functions(empty.exchanges) == ["DIRECT_OPERATE", "READ"]  # no points to read


async def test_curve_names_fall_back_to_the_published_codes() -> None:
    # A profile whose curve block lists no codes in its names: the names come from the code
    # lists AN2018 publishes (gridwire.derops.curve_codes).
    plain = demo_map()
    renamed = {
        "AO245": "Curve type",
        "AI329": "Curve type",
        "AO247": "Curve X units",
        "AI331": "Curve X units",
        "AO248": "Curve Y units",
        "AI332": "Curve Y units",
    }
    points = [
        dataclasses.replace(p, name=renamed[str(p.address)], enumeration=None)
        if str(p.address) in renamed
        else p
        for p in plain.points
    ]
    bare = type(plain)(
        points, title="bare", functions=plain.functions, curve_block=plain.curve_block
    )
    async with simulated(point_map=bare) as s:
        shown = await s.der.curve()
        assert (shown.type_name, shown.x_units_name, shown.y_units_name) == (
            "Volt-var",
            "Percent of nominal voltage",
            "VArs as a percent of VARMax",
        )
        watts = await s.der.curve(2)
        assert watts.y_units_name == "Watts as a percent of WMax"


async def test_write_curve_reads_back_matching() -> None:
    async with simulated() as s:
        result = await s.der.write_curve(4, 5, 129, 5, [[100, 100], [105.0, 50], [110, 0]])
        assert (result.accepted, result.matches, result.stopped_at) == (True, True, None)
        assert [len(step.statuses) for step in result.steps] == [1, 4, 6]
        assert functions(result.exchanges) == ["DIRECT_OPERATE"] * 3 + ["READ", "READ"]
        curve = result.curve
        assert (curve.number, curve.type, curve.count, curve.referenced) == (4, 5, 3, False)
        assert curve.points == [[100, 100], [105, 50], [110, 0]]


async def test_write_curve_of_100_points() -> None:
    # The window's whole size: 200 X and Y outputs in one request, which the simulated DER
    # takes (it used to answer all 200 TOO_MANY_OBJS, its limit being 64 controls).
    points = [[80 + n // 2, 100 - 2 * n] for n in range(100)]
    async with simulated() as s:
        result = await s.der.write_curve(4, 2, 129, 2, points)
        assert (result.accepted, result.matches, result.stopped_at) == (True, True, None)
        assert [len(step.statuses) for step in result.steps] == [1, 4, 200]
        assert result.curve.count == 100 and result.curve.points == points


async def test_write_curve_without_acknowledgment_reads_each_step_before_the_next() -> None:
    async with simulated() as s:
        stored = await s.der.write_curve(4, 5, 129, 5, [[100, 100], [110, 0]], "direct_no_ack")
        assert (stored.accepted, stored.matches, stored.stopped_at) == (None, True, None)
        sent = "DIRECT_OPERATE_NR"
        assert functions(stored.exchanges) == [sent, "READ"] * 3 + ["READ"]
        # Curve 9 does not exist: the selector still shows curve 4, so neither the fields
        # nor the points are sent (they would have landed on curve 4).
        refused = await s.der.write_curve(9, 2, 129, 2, [[90, 40]], "direct_no_ack")
        assert (refused.accepted, refused.matches, refused.stopped_at) == (None, False, "selector")
        assert functions(refused.exchanges) == [sent, "READ", "READ", "READ"]
        assert len(refused.steps) == 1
        assert (refused.curve.number, refused.curve.type, refused.curve.points) == (
            4,
            5,
            [[100, 100], [110, 0]],
        )


async def test_write_curve_stopped_at_fields_by_a_referenced_curve() -> None:
    async with simulated() as s:
        await s.der.enable("volt-var")  # curve 1 is volt-var's, now in use
        result = await s.der.write_curve(1, 2, 129, 2, [[90, 40], [110, -40]])
        assert (result.accepted, result.matches, result.stopped_at) == (False, False, "fields")
        assert len(result.steps) == 2 and result.steps[0].accepted is True
        assert {c.status for c in result.steps[1].statuses} == {"AUTOMATION_INHIBIT"}
        assert result.curve.points == [[92, 44], [98, 0], [102, 0], [108, -44]]
        assert functions(result.exchanges) == ["DIRECT_OPERATE"] * 2 + ["READ", "READ"]


async def test_write_curve_refuses_a_fraction_before_sending() -> None:
    async with simulated() as s:
        frames = s.frames()
        with pytest.raises(RequestError, match=r"points\[1\] y \(AO252 .*900.5 is not a whole"):
            await s.der.write_curve(4, 2, 129, 2, [[90, 40], [110, 900.5]])
        assert s.frames() == frames


GAP_READ = ["AI537", "AI27", "AI28", "AI29", "BI23"]
"""Names read over a DER that does not serve AI28: ranges BI23, AI27-29 and AI537."""


def qualities(points: list[DerReading]) -> list[str]:
    return [p.quality for p in points]


async def test_a_read_refused_whole_is_read_again_range_by_range() -> None:
    # The DER does not serve AI28, which the profile names. The read of three ranges (BI23,
    # AI27-29, AI537) is refused whole: PARAMETER_ERROR, since the range AI27-29 holds an
    # index with no point, though AI27 and AI29 are served. Then it is read range by range:
    # AI27-29 refused again, BI23 and AI537 answered.
    device = SimulatedDer(without(demo_map(), "AI28"))
    async with simulated(device=device) as s:
        result = await s.der.read(GAP_READ)
        assert functions(result.exchanges) == ["READ"] * 4
        first = result.exchanges[0]
        assert "PARAMETER_ERROR" in first.indications and first.object_count == 0
        # READ (01): g1v0 0x00 23-23, g30v0 0x00 27-29, g30v0 0x01 537-537 (0x0219).
        assert first.request[2:] == "0101000017171e00001b1d1e000119021902"
        refusals = ["PARAMETER_ERROR" in e.indications for e in result.exchanges[1:]]
        assert refusals == [False, True, False]  # BI23, AI27-29, AI537
        assert [p.address for p in result.points] == GAP_READ
        assert qualities(result.points) == ["good"] + ["not_reported"] * 3 + ["good"]


async def test_a_read_answered_in_part_keeps_the_points_that_came() -> None:
    # Served with range_gaps "answer" (opendnp3's way), the DER answers the same read in one
    # response: the points it has, and PARAMETER_ERROR. Nothing is read again.
    device = SimulatedDer(without(demo_map(), "AI28"))
    async with simulated(device=device, config=OutstationConfig(range_gaps="answer")) as s:
        result = await s.der.read(GAP_READ)
        [exchange] = result.exchanges
        assert "PARAMETER_ERROR" in exchange.indications and exchange.object_count == 4
        assert qualities(result.points) == ["good", "good", "not_reported", "good", "good"]


async def test_without_control_parameters_are_checked_first_and_nothing_is_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    async with simulated(allow_control=False) as s:
        frames = s.frames()
        with pytest.raises(RequestError, match="outside the tables' range"):
            await s.der.write({"AO88": 150})
        with pytest.raises(NotAllowed):
            await s.der.write({"AO88": 50})
        with pytest.raises(NotAllowed):
            await s.der.enable("volt-var")
        with pytest.raises(NotAllowed):
            await s.der.curve(2)
        with pytest.raises(NotAllowed):
            await s.der.write_curve(4, 2, 129, 2, [])
        assert s.frames() == frames
        assert (await s.der.curve()).number == 1  # reading needs no control
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 4 and all("refused" in r.getMessage() for r in warned)


async def test_an_outstation_with_no_profile_or_no_connection() -> None:
    async with simulated(profile=False) as s:
        with pytest.raises(RequestError, match=r"'der' was given no profile.*ieee1815.2"):
            await s.der.read(["AI537"])
    async with simulated() as s:
        await s.master.disconnect(NAME)
        with pytest.raises(ConnectionFailed):
            await s.der.read(["AI537"])
        with pytest.raises(RequestError, match="unknown outstation"):
            s.master.der("nobody")


async def test_verified_is_null_when_no_written_point_has_a_mirror() -> None:
    plain = demo_map()
    unpaired = [
        dataclasses.replace(p, associated=None) if str(p.address) in ("BO5", "BI23") else p
        for p in plain.points
    ]
    profile = type(plain)(
        unpaired, title="unpaired", functions=plain.functions, curve_block=plain.curve_block
    )
    async with simulated(point_map=profile) as s:
        result = await s.der.write({"BO5": False}, verify=True)
        [point] = result.points
        assert (point.matches, point.readback, result.verified) == (None, None, None)
        assert functions(result.exchanges) == ["DIRECT_OPERATE"]  # nothing to read back
        mixed = await s.der.write({"BO5": True, "AO88": 20}, verify=True)
        assert [p.matches for p in mixed.points] == [None, True] and mixed.verified is True
