"""What the simulated DER's monitoring inputs read: each (type, index, engineering value) from
the model's state, its ratings and the settings in force, published on every tick."""

from __future__ import annotations

from gridwire.outstation.points import PointType
from gridwire.simulator import model
from gridwire.simulator import profile as P


def published(
    state: model.State, ratings: model.Ratings, settings: model.Settings
) -> list[tuple[PointType, int, float | bool]]:
    """The inputs the model drives, with what each reads now."""
    running = settings.connected and settings.started and not settings.locked
    return [
        ("ai", P.FREQUENCY, state.frequency),
        ("ai", P.ACTIVE, state.active_w),
        ("ai", P.ACTIVE_A, state.active_w),
        ("ai", P.REACTIVE, state.reactive_var),
        ("ai", P.REACTIVE_A, state.reactive_var),
        ("ai", P.POWER_FACTOR, state.power_factor),
        ("ai", P.APPARENT, state.apparent_va),
        ("ai", P.VOLTAGE_A, state.voltage),
        ("ai", P.VOLTAGE_LL, state.voltage),
        ("ai", P.CURRENT_A, state.current_a),
        ("ai", P.SOC, state.soc),
        ("ai", P.USABLE_SOC, state.soc),
        ("ai", P.AVAILABLE_W, ratings.generating_w if state.soc > 0 else 0.0),
        ("ai", P.AVAILABLE_CHARGE_W, -ratings.charging_w if state.soc < 100 else 0.0),
        ("ai", P.AVAILABLE_VARS, ratings.vars_max),
        ("ai", P.AVAILABLE_ABSORB_VARS, -ratings.vars_max),
        ("ai", P.APL_POWER_MEASURED, state.active_w),
        ("ai", P.VOLT_WATT_VOLTAGE, state.voltage),
        ("ai", P.VOLT_WATT_AIM, state.active_aim_w),
        ("ai", P.VOLT_VAR_VOLTAGE, state.voltage),
        ("ai", P.VOLT_VAR_REFERENCE, settings.vref),
        ("ai", P.VOLT_VAR_AIM, state.reactive_aim_var),
        ("bi", P.SOC_FULL, state.soc >= 100),
        ("bi", P.SOC_DEPLETED, state.soc <= 0),
        ("bi", P.STARTED, settings.started),
        ("bi", P.STOPPED, not settings.started),
        ("bi", P.IDLE, running and state.active_w == 0),
        ("bi", P.GENERATING, running and state.active_w > 0),
        ("bi", P.CHARGING, running and state.active_w < 0),
        ("bi", P.OFF_AVAILABLE, not running and not settings.locked),
        ("bi", P.OFF_UNAVAILABLE, settings.locked),
    ]
