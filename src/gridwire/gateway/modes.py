"""How each IEEE 2030.5 control mode lands on an IEEE 1815.2 DER (DESIGN D164 holds the same
table with the source of each row).

A rule names the DER function that carries the mode (its key in the point map: the demo map's
and the one derived from IEEE's tables are the same), the setting it writes (a fragment of the
setting's name, looked up within the function's analog outputs, or within the whole map for a
mode with no function), how the value converts, and whether the function is enabled while the
mode holds. Curve modes carry the 1815.2 curve block's type, X units and Y units codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Convert = Literal["bool", "percent", "watts_gen", "watts_charge", "pf", "var", "curve", "plain"]


@dataclass(frozen=True, slots=True)
class Rule:
    mode: str
    function: str | None
    setting: str
    convert: Convert
    enable: bool = True
    excitation: str | None = None  # the binary output of the power factor's excitation
    curve: tuple[int, int, int] | None = None  # 1815.2 curve type, X units, Y units
    limit: bool = False  # several limits on one setting: the lowest holds


RULES: tuple[Rule, ...] = (
    Rule("opModConnect", None, "Connect/disconnect switch", "bool", enable=False),
    Rule("opModEnergize", None, "Grant permission to start", "bool", enable=False),
    Rule("opModMaxLimW", "active-power-limit", "generating limit", "percent", limit=True),
    Rule("opModGenLimW", "active-power-limit", "generating limit", "watts_gen", limit=True),
    Rule("opModExpLimW", "active-power-limit", "generating limit", "watts_gen", limit=True),
    Rule("opModImpLimW", "active-power-limit", "charging limit", "watts_charge", limit=True),
    Rule("opModLoadLimW", "active-power-limit", "charging limit", "watts_charge", limit=True),
    Rule("opModFixedW", "charge-discharge", "active power target", "percent"),
    Rule("opModTargetW", "charge-discharge", "active power target", "watts_gen"),
    Rule(
        "opModFixedPFInjectW",
        "constant-power-factor",
        "setpoint when generating",
        "pf",
        excitation="Power factor excitation when generating",
    ),
    Rule(
        "opModFixedPFAbsorbW",
        "constant-power-factor",
        "setpoint when charging",
        "pf",
        excitation="Power factor excitation when charging",
    ),
    Rule("opModFixedVar", "constant-vars", "reactive power target", "var"),
    Rule("opModVoltVar", "volt-var", "curve number", "curve", curve=(2, 129, 2)),
    Rule("opModVoltWatt", "volt-watt", "curve number", "curve", curve=(5, 129, 5)),
    Rule("opModWattVar", "watt-var", "curve number", "curve", curve=(4, 138, 2)),
    Rule("opModFreqWatt", "frequency-watt", "curve number", "curve", curve=(3, 133, 5)),
    Rule("rampTms", "active-power-limit", "enabling ramp time", "plain", enable=False),
    Rule("setGradW", "charge-discharge", "discharging up ramp rate", "plain", enable=False),
)
RULE_OF = {rule.mode: rule for rule in RULES}

# The ratings watts are taken as a share of (the first that the map has).
MAX_GENERATING = ("Maximum active power, generating", "Nameplate active power rating, generating")
MAX_CHARGING = ("Maximum active power, charging", "Nameplate active power rating, charging")
