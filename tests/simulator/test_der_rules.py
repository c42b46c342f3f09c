"""The simulated DER's control rules, one test each (the paragraph "The simulated DER" of
issue 5), on the demo map: indices in the profile's numbering."""

from __future__ import annotations

import pytest

from gridwire.der.demo import demo_map
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.outstation.controls import AnalogCommand, BinaryCommand, Mode
from gridwire.outstation.points import ONLINE
from gridwire.simulator import SimulatedDer

S = CommandStatus
LATCH_ON, LATCH_OFF, PULSE_ON, NUL = 0x03, 0x04, 0x01, 0x00
# Function enables (BO), enabled inputs (BI), supports inputs (BI) in the demo map.
VOLT_VAR_ENABLE, VOLT_VAR_ENABLED, VOLT_VAR_CURVE = 29, 81, 217
VOLT_WATT_ENABLE, VOLT_WATT_CURVE = 25, 173
WATT_VAR_ENABLE, WATT_VAR_SUPPORTS = 30, 49
SELECTOR, CURVE_TYPE, FIRST_X, REFERENCED = 244, 245, 249, 107


@pytest.fixture
def der() -> SimulatedDer:
    return SimulatedDer()


def bo(der: SimulatedDer, index: int, code: int, mode: Mode = "direct") -> CommandStatus:
    return der.control(BinaryCommand(index, code, 1, 0, 0), mode, 1.0)


def ao(der: SimulatedDer, index: int, value: float, mode: Mode = "direct") -> CommandStatus:
    return der.control(AnalogCommand(index, value, 1), mode, 1.0)


def value(der: SimulatedDer, point_type: str, index: int) -> object:
    return der.database.get(point_type, index).value  # type: ignore[arg-type]


def online(der: SimulatedDer, point_type: str, index: int) -> bool:
    return bool(der.database.get(point_type, index).flags & ONLINE)  # type: ignore[arg-type]


def test_serves_every_point_of_the_map_but_an_unsupported_functions(der: SimulatedDer) -> None:
    point_map = demo_map()
    watt_var = {(p.kind.value, p.index) for p in point_map.points if p.enable == WATT_VAR_ENABLE}
    # Of watt-var (not supported) only its supports, enable and enabled points are served.
    says = {("BI", WATT_VAR_SUPPORTS), ("BO", WATT_VAR_ENABLE), ("BI", 82)}
    unserved = watt_var - says
    assert says < watt_var and len(unserved) == 18
    kinds = {"BI": "bi", "BO": "bo", "AI": "ai", "AO": "ao", "CTR": "counter"}
    for kind, point_type in kinds.items():
        expected = [p.index for p in point_map.by_kind(kind) if (kind, p.index) not in unserved]
        assert der.database.indices(point_type) == expected  # type: ignore[arg-type]
    assert all(der.serves(p) == ((p.kind.value, p.index) not in unserved) for p in point_map.points)
    # A control for a setting it does not serve is not supported.
    assert ao(der, 221, 5) is S.NOT_SUPPORTED
    frozen = [p.index for p in point_map.by_kind("CTR") if p.frozen]
    assert der.database.indices("frozen") == frozen
    # Values as transmitted: nominal frequency 60 Hz is 60000 at a multiplier of 0.001.
    assert value(der, "ao", 2) == 60000 and value(der, "ai", 31) == 60000


def test_each_output_is_mirrored_by_its_input(der: SimulatedDer) -> None:
    # BO5 (connect/disconnect switch) and its mirror BI23; AO0 (reference voltage) and AI29.
    assert bo(der, 5, LATCH_OFF) is S.SUCCESS
    assert value(der, "bo", 5) is False and value(der, "bi", 23) is False
    assert bo(der, 5, PULSE_ON) is S.SUCCESS  # a pulse on sets the state like a latch
    assert value(der, "bi", 23) is True
    assert ao(der, 0, 2410) is S.SUCCESS
    assert value(der, "ao", 0) == 2410 and value(der, "ai", 29) == 2410


def test_select_only_asks(der: SimulatedDer) -> None:
    assert bo(der, 5, LATCH_OFF, "select") is S.SUCCESS
    assert value(der, "bo", 5) is True
    assert ao(der, 0, 2410, "select") is S.SUCCESS
    assert value(der, "ao", 0) == 2400


def test_unknown_points_and_operations(der: SimulatedDer) -> None:
    assert bo(der, 99, LATCH_ON) is S.NOT_SUPPORTED
    assert ao(der, 9999, 1) is S.NOT_SUPPORTED
    assert bo(der, 5, NUL) is S.SUCCESS and value(der, "bo", 5) is True
    assert bo(der, 5, 0x07) is S.NOT_SUPPORTED  # operation type 7 is undefined


def test_values_out_of_range_are_refused(der: SimulatedDer) -> None:
    # AO88, the generating limit: 0..1000 (tenths of a percent).
    assert ao(der, 88, 1001) is S.OUT_OF_RANGE
    assert ao(der, 88, -1) is S.OUT_OF_RANGE
    assert value(der, "ao", 88) == 1000
    assert ao(der, 88, 1000) is S.SUCCESS
    # A float command (g41v3/v4) is the engineering value, held as the nearest whole number
    # as transmitted: 49.96 % at a multiplier of 0.1 is 500; 100.06 % is 1001, out of range.
    assert ao(der, 88, 49.96) is S.SUCCESS and value(der, "ao", 88) == 500
    assert ao(der, 88, 100.06) is S.OUT_OF_RANGE and value(der, "ao", 88) == 500


def test_enabling_a_function_sets_its_enabled_input_and_its_inputs_online(
    der: SimulatedDer,
) -> None:
    # Disabled at start: the function's inputs (AI301, reactive power aimed at; AI297, the
    # mirror of its curve setting) are sent without ONLINE; supports/enabled keep it.
    assert not online(der, "ai", 301) and not online(der, "ai", 297)
    assert online(der, "bi", VOLT_VAR_ENABLED) and online(der, "bi", 48)
    assert value(der, "bi", VOLT_VAR_ENABLED) is False
    assert bo(der, VOLT_VAR_ENABLE, LATCH_ON) is S.SUCCESS
    assert value(der, "bi", VOLT_VAR_ENABLED) is True
    assert online(der, "ai", 301) and online(der, "ai", 297)
    assert bo(der, VOLT_VAR_ENABLE, LATCH_OFF) is S.SUCCESS
    assert value(der, "bi", VOLT_VAR_ENABLED) is False
    assert not online(der, "ai", 301)


def test_an_unsupported_function_refuses_its_enable(der: SimulatedDer) -> None:
    assert value(der, "bi", WATT_VAR_SUPPORTS) is False
    assert bo(der, WATT_VAR_ENABLE, LATCH_ON) is S.NOT_SUPPORTED
    assert value(der, "bo", WATT_VAR_ENABLE) is False
    assert bo(der, WATT_VAR_ENABLE, LATCH_OFF) is S.SUCCESS  # disabling it is harmless


def test_selector_naming_a_curve_that_does_not_exist(der: SimulatedDer) -> None:
    assert ao(der, SELECTOR, 5) is S.OUT_OF_RANGE  # four curves are stored
    assert value(der, "ao", SELECTOR) == 1
    assert ao(der, SELECTOR, 2) is S.SUCCESS
    # The window now shows curve 2 (volt-watt, type 5), in the outputs and their mirrors.
    assert value(der, "ao", CURVE_TYPE) == 5 and value(der, "ai", 329) == 5
    assert value(der, "ai", 328) == 2


def test_a_curve_an_enabled_function_references_cannot_change(der: SimulatedDer) -> None:
    assert value(der, "bi", REFERENCED) is True  # curve 1 is named by volt-var's AO217
    assert ao(der, FIRST_X, 91) is S.SUCCESS  # volt-var is disabled: editing is allowed
    assert bo(der, VOLT_VAR_ENABLE, LATCH_ON) is S.SUCCESS
    assert ao(der, FIRST_X, 90) is S.AUTOMATION_INHIBIT
    assert value(der, "ao", FIRST_X) == 91
    # Another curve, not referenced by anything enabled, can be edited.
    assert ao(der, SELECTOR, 4) is S.SUCCESS
    assert value(der, "bi", REFERENCED) is False
    assert ao(der, CURVE_TYPE, 2) is S.SUCCESS


def test_a_curve_type_the_function_does_not_take(der: SimulatedDer) -> None:
    # Volt-var takes type 2 curves; curve 2 is a volt-watt (type 5) curve.
    assert ao(der, VOLT_VAR_CURVE, 2) is S.NOT_SUPPORTED
    assert ao(der, VOLT_VAR_CURVE, 9) is S.OUT_OF_RANGE  # no curve 9
    assert value(der, "ao", VOLT_VAR_CURVE) == 1
    # Make curve 4 a volt-var curve, then point volt-var at it.
    ao(der, SELECTOR, 4)
    ao(der, CURVE_TYPE, 2)
    assert ao(der, VOLT_VAR_CURVE, 4) is S.SUCCESS
    assert value(der, "ai", 297) == 4
    # Volt-watt's curve (2) turned into another type: enabling volt-watt is refused.
    ao(der, SELECTOR, 2)
    assert ao(der, CURVE_TYPE, 3) is S.SUCCESS  # volt-watt is disabled, so this may change
    assert bo(der, VOLT_WATT_ENABLE, LATCH_ON) is S.NOT_SUPPORTED


def test_a_curve_setting_may_name_no_curve(der: SimulatedDer) -> None:
    # 0 names no curve ("release"); a function then cannot be enabled (it has no curve).
    assert ao(der, VOLT_VAR_CURVE, 0) is S.SUCCESS
    assert value(der, "ai", 297) == 0 and value(der, "bi", REFERENCED) is False
    assert bo(der, VOLT_VAR_ENABLE, LATCH_ON) is S.OUT_OF_RANGE
    assert ao(der, VOLT_VAR_CURVE, 1) is S.SUCCESS
    assert bo(der, VOLT_VAR_ENABLE, LATCH_ON) is S.SUCCESS


def test_cold_restart_puts_everything_back(der: SimulatedDer) -> None:
    bo(der, VOLT_VAR_ENABLE, LATCH_ON)
    ao(der, SELECTOR, 3)
    der.tick(0.0)
    der.tick(5.0)
    der.restart(True, 6.0)
    assert value(der, "bi", VOLT_VAR_ENABLED) is False and not online(der, "ai", 301)
    assert value(der, "ao", SELECTOR) == 1 and value(der, "ai", 537) == 0
    der.restart(False, 7.0)  # a warm restart keeps the state
    assert value(der, "ao", SELECTOR) == 1


def test_variations_per_type() -> None:
    der = SimulatedDer(variations={"ai": (5, 7), "frozen": (5, None)})
    assert der.database.get("ai", 536).static_variation == 5
    assert der.database.get("ai", 536).event_variation == 7
    assert der.database.get("frozen", 0).static_variation == 5
    assert der.database.get("ao", 0).static_variation == 1
