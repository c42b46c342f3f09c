"""The simulated DER's measurements on a tick (an injected clock): each rule of
gridwire.simulator.model, with values worked out by hand from the demo DER's ratings
(10 kW, 4.4 kvar, 10 kVA, 19.5 kWh, 240 V, 60 Hz)."""

from __future__ import annotations

import math

import pytest

from gridwire.outstation.controls import AnalogCommand, BinaryCommand
from gridwire.simulator import SimulatedDer

LATCH_ON, LATCH_OFF = 0x03, 0x04


def run(der: SimulatedDer, seconds: float, start: float = 0.0, step: float = 1.0) -> None:
    t = start
    while t <= start + seconds + 1e-9:
        der.tick(t)
        t += step


def ai(der: SimulatedDer, index: int) -> float:
    return float(der.database.get("ai", index).value)


def command(der: SimulatedDer, index: int, value: int) -> None:
    assert der.control(AnalogCommand(index, value, 1), "direct", 0.0) == 0


def switch(der: SimulatedDer, index: int, on: bool) -> None:
    code = LATCH_ON if on else LATCH_OFF
    assert der.control(BinaryCommand(index, code, 1, 0, 0), "direct", 0.0) == 0


def test_grid_frequency_and_voltage_stay_near_nominal() -> None:
    der = SimulatedDer()
    for t in range(0, 700, 7):
        der.tick(float(t))
        # AI536 in mHz: 60 Hz +- 0.015 Hz; AI547 in 0.1 V: 240 V +- 3 %.
        assert 59985 <= ai(der, 536) <= 60015
        assert 2328 <= ai(der, 547) <= 2472
    # 150 s into the run the voltage is at its crest: 240 x 1.03 = 247.2 V.
    fresh = SimulatedDer()
    fresh.tick(0.0)
    fresh.tick(150.0)
    assert ai(fresh, 547) == 2472


def test_power_ramps_to_half_the_rating_at_ten_percent_a_second() -> None:
    der = SimulatedDer()
    der.tick(0.0)
    der.tick(1.0)
    assert ai(der, 537) == 1000  # 10 % of 10 kW in one second
    run(der, 10, start=2.0)
    assert ai(der, 537) == 5000  # half the generating rating, with no function enabled
    assert der.database.get("bi", 19).value is True  # connected and generating


def test_charge_discharge_target_and_state_of_charge() -> None:
    der = SimulatedDer()
    command(der, 93, -500)  # target -50.0 % (charging)
    switch(der, 18, True)  # enable charge/discharge
    run(der, 20)
    assert ai(der, 537) == -5000
    assert der.database.get("bi", 20).value is True  # charging
    soc = ai(der, 47)
    run(der, 3600, start=21.0, step=60.0)
    # An hour at 5 kW into 19.5 kWh: about +25.6 % of charge (in tenths of a percent).
    assert ai(der, 47) - soc == pytest.approx(5000 / 19500 * 1000, abs=3)


def test_active_power_limit() -> None:
    der = SimulatedDer()
    command(der, 88, 300)  # generating limit 30.0 %
    switch(der, 17, True)
    run(der, 20)
    assert ai(der, 537) == 3000
    assert ai(der, 147) == 3000  # the function's reading of the power, now ONLINE


def test_constant_vars_and_constant_power_factor() -> None:
    der = SimulatedDer()
    command(der, 203, 500)  # 50.0 % of 4400 var
    switch(der, 27, True)
    run(der, 20)
    assert ai(der, 541) == 2200
    switch(der, 27, False)
    command(der, 210, 90)  # power factor 0.90 when generating
    switch(der, 10, True)  # absorbing vars when generating
    switch(der, 28, True)
    run(der, 20, start=21.0)
    # 5000 W at 0.9: 5000 x tan(acos 0.9) = 2421.6 var, absorbed.
    assert ai(der, 541) == round(-5000 * math.tan(math.acos(0.9)))
    assert ai(der, 545) == -90  # power factor, EEI sign (absorbing), in hundredths


def test_volt_var_follows_its_curve() -> None:
    der = SimulatedDer()
    switch(der, 29, True)
    der.tick(0.0)
    der.tick(150.0)  # the voltage crest: 103 % of the reference
    der.tick(151.0)
    der.tick(152.0)
    # Curve 1: (102 %, 0) to (108 %, -44 %): at 103 % (and a little less a second later)
    # the aim is about -44/6 % of 4400 var = -322.7 var.
    assert ai(der, 301) == pytest.approx(-322.7, abs=2)
    assert ai(der, 541) == pytest.approx(ai(der, 301), abs=2)


def test_volt_watt_caps_generation_by_its_curve() -> None:
    der = SimulatedDer()
    # Make volt-watt bite near the reference voltage: curve 2's first two points (100 %,
    # 100 %) and (106 %, 100 %) become (100 %, 20 %) and (106 %, 20 %); then enable it.
    command(der, 244, 2)
    command(der, 250, 20)  # Y of point 1
    command(der, 252, 20)  # Y of point 2
    command(der, 244, 1)
    switch(der, 25, True)
    run(der, 30)
    assert ai(der, 537) <= 2000 + 1
    assert ai(der, 249) == pytest.approx(2000, abs=1)


def test_no_power_when_disconnected_stopped_or_locked_out() -> None:
    for index, on in ((5, False), (2, True), (0, True)):  # switch open, stop, lock out
        der = SimulatedDer()
        run(der, 10)
        assert ai(der, 537) == 5000
        switch(der, index, on)
        run(der, 10, start=11.0)
        assert ai(der, 537) == 0 and ai(der, 541) == 0
    # Start again after a stop.
    der = SimulatedDer()
    switch(der, 2, True)
    run(der, 5)
    assert der.database.get("bi", 15).value is True  # stopped
    switch(der, 1, True)
    run(der, 10, start=6.0)
    assert ai(der, 537) == 5000 and der.database.get("bi", 14).value is True


def test_energy_counters_accumulate() -> None:
    der = SimulatedDer()
    run(der, 10)  # ramps to 5000 W
    before = der.database.get("counter", 0).value
    run(der, 3600, start=11.0, step=10.0)
    # An hour at 5 kW: 5000 Wh delivered.
    delivered = der.database.get("counter", 0).value
    assert isinstance(before, int) and isinstance(delivered, int)
    assert delivered - before == pytest.approx(5000, abs=15)
    assert der.database.get("counter", 1).value == 0  # nothing received


def test_counters_freeze_into_their_frozen_counterparts() -> None:
    from gridwire.outstation.session import OutstationSession
    from tests.outstation.wire import Wire

    der = SimulatedDer()
    wire = Wire(OutstationSession(der))
    wire.connect(0.0)
    run(der, 100)
    delivered = der.database.get("counter", 0).value
    assert isinstance(delivered, int) and delivered > 0
    # IMMED_FREEZE (07) of every counter (g20v0, qualifier 0x06); then FREEZE_CLEAR (09).
    wire.send("C0 07 14 00 06", now=101.0)
    assert der.database.get("frozen", 0).value == delivered
    wire.send("C1 09 14 00 06", now=102.0)
    assert der.database.get("counter", 0).value == 0
    # Energy is counted at each tick: from the last tick (100 s) to 175 s, 75 s at 5 kW is
    # 104.2 Wh, counted on from 0.
    run(der, 72, start=103.0)
    assert der.database.get("counter", 0).value == 104
