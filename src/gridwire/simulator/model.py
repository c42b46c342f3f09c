"""How the simulated DER behaves: a battery inverter on a grid whose voltage and frequency
wander slowly, its power following its settings and limits. Pure arithmetic on engineering
values; :mod:`.der` reads the settings out of the database and writes the results back.

Rules (each pinned by a test in tests/simulator):

- The grid: voltage ``vref x (1 + 0.03 sin(2 pi t / 600))``, frequency
  ``fnom + 0.015 sin(2 pi t / 97)``, ``t`` in seconds since the simulation started.
- Not connected (switch open), not started, or locked out: no active or reactive power.
- Active power aims at the charge/discharge target when that function is enabled, else at
  half the generating rating; then the active power limit (when enabled) caps generating and
  charging; then the volt-watt curve (when enabled) caps generating at its Y (percent of the
  rating) for the voltage in percent of the reference; a depleted battery does not generate,
  a full one does not charge.
- Reactive power aims, by the first enabled of volt-var (curve Y in percent of the maximum
  vars at the voltage in percent of the reference), constant power factor (the setpoint for
  generating or for charging; the excitation settings BO10/BO11 choose injecting or
  absorbing), constant vars (percent of the maximum vars), at that; else 0. It is limited to
  the maximum vars and to what the apparent power rating leaves.
- Both move toward their aim at most 10 % of their rating a second.
- The state of charge falls with energy delivered and rises with energy taken; energy
  counters accumulate watt-hours and var-hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

RAMP_SHARE_PER_S = 0.10
VOLTAGE_SWING = 0.03
VOLTAGE_PERIOD_S = 600.0
FREQUENCY_SWING_HZ = 0.015
FREQUENCY_PERIOD_S = 97.0


@dataclass(slots=True)
class Ratings:
    generating_w: float = 10000.0
    charging_w: float = 10000.0  # magnitude
    vars_max: float = 4400.0
    va_max: float = 10000.0
    capacity_wh: float = 19500.0


@dataclass(slots=True)
class Settings:
    """What the functions and controls ask for, in engineering units (percent as percent)."""

    vref: float = 240.0
    fnom: float = 60.0
    connected: bool = True
    started: bool = True
    locked: bool = False
    charge_discharge: float | None = None  # target, percent of the rating; None: disabled
    limit_generating: float | None = None  # percent; None: active power limit disabled
    limit_charging: float | None = None
    volt_watt: int | None = None  # curve number when enabled
    volt_var: int | None = None
    power_factor: tuple[float, float] | None = None  # (generating, charging) when enabled
    absorb_generating: bool = False
    absorb_charging: bool = False
    constant_vars: float | None = None  # percent of the maximum vars when enabled


@dataclass(slots=True)
class State:
    """What the DER is doing now."""

    voltage: float = 240.0
    frequency: float = 60.0
    active_w: float = 0.0
    reactive_var: float = 0.0
    active_aim_w: float = 0.0
    reactive_aim_var: float = 0.0
    soc: float = 50.0  # percent
    delivered_wh: float = 0.0
    received_wh: float = 0.0
    injected_varh: float = 0.0
    absorbed_varh: float = 0.0

    @property
    def apparent_va(self) -> float:
        return math.hypot(self.active_w, self.reactive_var)

    @property
    def power_factor(self) -> float:
        """Signed as IEEE lead/lag in EEI notation: negative when absorbing vars."""
        apparent = self.apparent_va
        if apparent < 1e-9:
            return 1.0
        value = abs(self.active_w) / apparent
        return -value if self.reactive_var < 0 else value

    @property
    def current_a(self) -> float:
        return self.apparent_va / self.voltage if self.voltage > 0 else 0.0


class CurveLookup(Protocol):
    """Y of a stored curve at X (see :class:`gridwire.simulator.curves.CurveStore`)."""

    def evaluate(self, number: int, x: float) -> float | None: ...


def grid(settings: Settings, elapsed: float) -> tuple[float, float]:
    """Voltage and frequency of the grid ``elapsed`` seconds into the simulation."""
    voltage = settings.vref * (
        1 + VOLTAGE_SWING * math.sin(2 * math.pi * elapsed / VOLTAGE_PERIOD_S)
    )
    frequency = settings.fnom + FREQUENCY_SWING_HZ * math.sin(
        2 * math.pi * elapsed / FREQUENCY_PERIOD_S
    )
    return voltage, frequency


def active_aim(settings: Settings, ratings: Ratings, state: State, curves: CurveLookup) -> float:
    if not settings.connected or not settings.started or settings.locked:
        return 0.0
    if settings.charge_discharge is not None:
        share = settings.charge_discharge / 100
        aim = share * (ratings.generating_w if share >= 0 else ratings.charging_w)
    else:
        aim = 0.5 * ratings.generating_w
    if settings.limit_generating is not None:
        aim = min(aim, settings.limit_generating / 100 * ratings.generating_w)
    if settings.limit_charging is not None:
        aim = max(aim, -settings.limit_charging / 100 * ratings.charging_w)
    if settings.volt_watt is not None and settings.vref > 0:
        cap = curves.evaluate(settings.volt_watt, state.voltage / settings.vref * 100)
        if cap is not None:
            aim = min(aim, cap / 100 * ratings.generating_w)
    if state.soc <= 0:
        aim = min(aim, 0.0)
    if state.soc >= 100:
        aim = max(aim, 0.0)
    return aim


def reactive_aim(settings: Settings, ratings: Ratings, state: State, curves: CurveLookup) -> float:
    if not settings.connected or not settings.started or settings.locked:
        return 0.0
    aim = 0.0
    if settings.volt_var is not None and settings.vref > 0:
        y = curves.evaluate(settings.volt_var, state.voltage / settings.vref * 100)
        aim = 0.0 if y is None else y / 100 * ratings.vars_max
    elif settings.power_factor is not None:
        generating = state.active_w >= 0
        pf = settings.power_factor[0 if generating else 1]
        pf = min(max(abs(pf), 0.01), 1.0)
        magnitude = abs(state.active_w) * math.tan(math.acos(pf))
        absorb = settings.absorb_generating if generating else settings.absorb_charging
        aim = -magnitude if absorb else magnitude
    elif settings.constant_vars is not None:
        aim = settings.constant_vars / 100 * ratings.vars_max
    aim = max(-ratings.vars_max, min(ratings.vars_max, aim))
    room = math.sqrt(max(ratings.va_max**2 - state.active_w**2, 0.0))
    return max(-room, min(room, aim))


def _toward(value: float, aim: float, step: float) -> float:
    if abs(aim - value) <= step:
        return aim
    return value + math.copysign(step, aim - value)


def step(
    settings: Settings,
    ratings: Ratings,
    state: State,
    curves: CurveLookup,
    elapsed: float,
    dt: float,
) -> None:
    """Advance ``state`` by ``dt`` seconds, to ``elapsed`` seconds into the simulation."""
    state.voltage, state.frequency = grid(settings, elapsed)
    state.active_aim_w = active_aim(settings, ratings, state, curves)
    state.active_w = _toward(
        state.active_w, state.active_aim_w, RAMP_SHARE_PER_S * ratings.generating_w * dt
    )
    state.reactive_aim_var = reactive_aim(settings, ratings, state, curves)
    state.reactive_var = _toward(
        state.reactive_var, state.reactive_aim_var, RAMP_SHARE_PER_S * ratings.vars_max * dt
    )
    hours = dt / 3600
    energy = state.active_w * hours
    if ratings.capacity_wh > 0:
        state.soc = min(100.0, max(0.0, state.soc - energy / ratings.capacity_wh * 100))
    if energy >= 0:
        state.delivered_wh += energy
    else:
        state.received_wh -= energy
    reactive = state.reactive_var * hours
    if reactive >= 0:
        state.injected_varh += reactive
    else:
        state.absorbed_varh -= reactive
