"""Where the simulated DER finds what it drives, in the profile's numbering (IEEE 1815.2, as
AN2018 numbered it; the demo map and IEEE's tables share it). A map without one of these
points simply lacks that behaviour.

Functions are recognised by their enable output, so a map built from IEEE's workbook (whose
function keys are its own) drives the same model.
"""

from __future__ import annotations

from typing import Final

# Analog inputs
RATED_W: Final = 4
RATED_CHARGE_W: Final = 5
VARS_MAX: Final = 12
VA_MAX: Final = 14
CAPACITY_WH: Final = 17
AVAILABLE_W: Final = 43
AVAILABLE_CHARGE_W: Final = 44
AVAILABLE_VARS: Final = 45
AVAILABLE_ABSORB_VARS: Final = 46
SOC: Final = 47
USABLE_SOC: Final = 48
FREQUENCY: Final = 536
ACTIVE: Final = 537
ACTIVE_A: Final = 538
REACTIVE: Final = 541
REACTIVE_A: Final = 542
POWER_FACTOR: Final = 545
APPARENT: Final = 546
VOLTAGE_A: Final = 547
VOLTAGE_LL: Final = 553
CURRENT_A: Final = 554

# Analog outputs
VREF: Final = 0
VREF_OFFSET: Final = 1
FNOM: Final = 2

# Binary outputs and the states they drive
LOCKOUT: Final = 0
START: Final = 1
STOP: Final = 2
START_PERMISSION: Final = 3
STOP_PERMISSION: Final = 4
SWITCH: Final = 5
ABSORB_GENERATING: Final = 10
ABSORB_CHARGING: Final = 11

# Binary inputs the model sets
SOC_FULL: Final = 4
SOC_DEPLETED: Final = 7
STARTED: Final = 14
STOPPED: Final = 15
IDLE: Final = 18
GENERATING: Final = 19
CHARGING: Final = 20
OFF_AVAILABLE: Final = 21
OFF_UNAVAILABLE: Final = 22

# Functions by enable output, and the settings / readings the model uses
ACTIVE_POWER_LIMIT: Final = 17
CHARGE_DISCHARGE: Final = 18
VOLT_WATT: Final = 25
CONSTANT_VARS: Final = 27
CONSTANT_POWER_FACTOR: Final = 28
VOLT_VAR: Final = 29

LIMIT_CHARGING: Final = 87
LIMIT_GENERATING: Final = 88
CHARGE_DISCHARGE_TARGET: Final = 93
VOLT_WATT_CURVE: Final = 173
CONSTANT_VARS_TARGET: Final = 203
POWER_FACTOR_GENERATING: Final = 210
POWER_FACTOR_CHARGING: Final = 211
VOLT_VAR_CURVE: Final = 217

APL_POWER_MEASURED: Final = 147
VOLT_WATT_VOLTAGE: Final = 247
VOLT_WATT_AIM: Final = 249
VOLT_VAR_VOLTAGE: Final = 295
VOLT_VAR_REFERENCE: Final = 296
VOLT_VAR_AIM: Final = 301

# Deadbands of the inputs that move on their own, as transmitted: about 1 % of their scale,
# so that the grid's slow wander alone does not flood the event buffers.
DEADBANDS: Final[dict[int, float]] = {
    FREQUENCY: 50,  # 0.05 Hz
    ACTIVE: 100,
    ACTIVE_A: 100,
    REACTIVE: 44,
    REACTIVE_A: 44,
    POWER_FACTOR: 2,
    APPARENT: 100,
    VOLTAGE_A: 24,  # 2.4 V
    VOLTAGE_LL: 24,
    CURRENT_A: 4,
    SOC: 5,
    USABLE_SOC: 5,
    APL_POWER_MEASURED: 100,
    VOLT_WATT_VOLTAGE: 24,
    VOLT_WATT_AIM: 100,
    VOLT_VAR_VOLTAGE: 24,
    VOLT_VAR_AIM: 44,
}
