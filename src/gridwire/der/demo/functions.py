"""The demo map's seven DER functions: each one's support input, enable output and its
mirror, settings and readings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gridwire.der.demo.builder import INT32_MAX, INT32_MIN, NAMEPLATE, SUPPORT_STATES, Builder
from gridwire.der.functions import CurveRef, DerFunction
from gridwire.der.points import Kind


@dataclass(frozen=True)
class _FunctionSpec:
    key: str
    name: str
    supports: int
    enable: int
    enabled: int
    supported: bool
    required_by_1547: bool


_FUNCTIONS = [
    _FunctionSpec("active-power-limit", "Active Power Limit", 36, 17, 69, True, True),
    _FunctionSpec("charge-discharge", "Charge/Discharge", 37, 18, 70, True, False),
    _FunctionSpec("volt-watt", "Volt-Watt", 44, 25, 77, True, True),
    _FunctionSpec("constant-vars", "Constant VArs", 46, 27, 79, True, True),
    _FunctionSpec("constant-power-factor", "Constant Power Factor", 47, 28, 80, True, True),
    _FunctionSpec("volt-var", "Volt-VAr", 48, 29, 81, True, True),
    _FunctionSpec("watt-var", "Watt-VAr", 49, 30, 82, False, True),
]


class _Function:
    """Adds one function's points; ``setting`` and ``reading`` take the function's name as a
    prefix of every point name."""

    def __init__(self, b: Builder, spec: _FunctionSpec) -> None:
        self.b = b
        self.spec = spec
        self.settings: list[int] = []
        self.section = f"{spec.name} function"
        flags = {"mandatory": True, "mandatory_1547": spec.required_by_1547}
        b.add(
            Kind.BI,
            spec.supports,
            f"Supports the {spec.name} function",
            section="Supported functions",
            purpose=NAMEPLATE,
            event_class=0,
            states=SUPPORT_STATES,
            value=spec.supported,
            enable=spec.enable,
            **flags,
        )
        b.binary_pair(
            spec.enable,
            spec.enabled,
            f"{spec.name} function enable",
            ("Disabled", "Enabled"),
            section="Function enables",
            purpose=spec.name,
            event_class=2,
            input_name=f"{spec.name} function enabled",
            **flags,
        )

    def setting(self, ao: int, ai: int, name: str, **attrs: Any) -> None:
        attrs.setdefault("mandatory_1547", self.spec.required_by_1547)
        self.b.pair(
            ao,
            ai,
            f"{self.spec.name} {name}",
            section=self.section,
            purpose=self.spec.name,
            **attrs,
        )
        self.settings.append(ao)

    def reading(self, ai: int, name: str, units: str | None, **attrs: Any) -> None:
        attrs.setdefault("minimum", INT32_MIN)
        attrs.setdefault("maximum", INT32_MAX)
        self.b.add(
            Kind.AI,
            ai,
            f"{self.spec.name} {name}",
            section=self.section,
            purpose=self.spec.name,
            event_class=2,
            units=units,
            enable=self.spec.enable,
            **attrs,
        )

    def common(self, ao: int, ai: int, *, meter: bool) -> None:
        """Priority, enabling time window and ramp, reversion timeout, and the meter it
        follows: the settings every function starts with."""
        self.setting(ao, ai, "priority", value=0)
        self.setting(ao + 1, ai + 1, "enabling time window", units="s", value=0)
        self.setting(ao + 2, ai + 2, "enabling ramp time", units="s", value=0)
        self.setting(ao + 3, ai + 3, "reversion timeout", units="s", value=0)
        if meter:
            self.setting(ao + 4, ai + 4, "signal meter id", value=0)

    def time_constants(self, ao: int, ai: int) -> None:
        """Ramp up and ramp down time constants, in that order."""
        self.setting(ao, ai, "ramp up time constant", units="s", value=10)
        self.setting(ao + 1, ai + 1, "ramp down time constant", units="s", value=10)

    def rates(self, ao: int, ai: int, names: list[str]) -> None:
        for offset, name in enumerate(names):
            self.setting(
                ao + offset,
                ai + offset,
                f"{name} ramp rate",
                units="%/s",
                multiplier=0.1,
                maximum=500000,
                value=1000,
            )

    def build(self, curves: tuple[CurveRef, ...] = ()) -> DerFunction:
        spec = self.spec
        return DerFunction(
            key=spec.key,
            name=spec.name,
            purpose=spec.name,
            enable=spec.enable,
            supports=spec.supports,
            enabled=spec.enabled,
            settings=tuple(self.settings),
            curves=curves,
        )


# Settings in tenths of a percent of a maximum: 0 to 100 %, or -100 to 100 % when signed.
PERCENT: dict[str, Any] = {"units": "%", "multiplier": 0.1, "maximum": 1000}
SIGNED_PERCENT: dict[str, Any] = {**PERCENT, "minimum": -1000}
STORAGE_RATES = ["discharging up", "discharging down", "charging up", "charging down"]


def functions(b: Builder) -> list[DerFunction]:
    specs = {spec.key: spec for spec in _FUNCTIONS}
    built = []

    apl = _Function(b, specs["active-power-limit"])
    apl.common(82, 142, meter=True)
    apl.reading(147, "reference power measured", "W")
    apl.setting(
        87,
        148,
        "charging limit. Largest charging power, as a share of the maximum",
        value=1000,
        **PERCENT,
    )
    apl.setting(
        88,
        149,
        "generating limit. Largest generating power, as a share of the maximum",
        value=1000,
        mandatory=True,
        **PERCENT,
    )
    built.append(apl.build())

    cd = _Function(b, specs["charge-discharge"])
    cd.common(89, 150, meter=False)
    cd.setting(
        93,
        154,
        "active power target. Share of the maximum; charging below zero",
        value=0,
        mandatory=True,
        **SIGNED_PERCENT,
    )
    cd.time_constants(94, 155)
    cd.rates(96, 157, STORAGE_RATES)
    cd.setting(100, 161, "minimum storage reserve", value=100, **SIGNED_PERCENT)
    cd.setting(101, 162, "maximum storage reserve", value=900, **SIGNED_PERCENT)
    built.append(cd.build())

    vw = _Function(b, specs["volt-watt"])
    vw.common(168, 242, meter=True)
    vw.reading(247, "voltage measured", "V", multiplier=0.1, minimum=0)
    vw.setting(173, 248, "curve number", value=2, mandatory=True)
    vw.reading(249, "active power aimed at", "W")
    vw.setting(174, 250, "filter time", units="s", value=5)
    vw.time_constants(175, 251)
    vw.rates(177, 253, STORAGE_RATES)
    built.append(vw.build((CurveRef(173, (5,)),)))

    cv = _Function(b, specs["constant-vars"])
    cv.common(199, 277, meter=False)
    cv.setting(
        203,
        281,
        "reactive power target. Share of the maximum reactive power",
        value=0,
        mandatory=True,
        **SIGNED_PERCENT,
    )
    cv.time_constants(204, 282)
    built.append(cv.build())

    pf = _Function(b, specs["constant-power-factor"])
    pf.common(206, 284, meter=False)
    power_factor = {"multiplier": 0.01, "maximum": 100, "value": 100}
    pf.setting(210, 288, "setpoint when generating", mandatory=True, **power_factor)
    pf.setting(211, 289, "setpoint when charging", **power_factor)
    built.append(pf.build())

    vv = _Function(b, specs["volt-var"])
    vv.common(212, 290, meter=True)
    vv.reading(295, "voltage measured", "V", multiplier=0.1, minimum=0)
    vv.reading(296, "voltage reference in effect", "V", multiplier=0.1, minimum=0)
    vv.setting(217, 297, "curve number", value=1, mandatory=True)
    vv.time_constants(218, 298)
    vv.setting(220, 300, "reference adjustment time constant", units="s", value=300)
    vv.reading(301, "reactive power aimed at", "var")
    built.append(vv.build((CurveRef(217, (2,)),)))

    wv = _Function(b, specs["watt-var"])
    wv.common(221, 302, meter=True)
    wv.reading(307, "active power measured", "W", minimum=0)
    wv.setting(226, 308, "curve number", value=3)
    wv.time_constants(227, 309)
    wv.reading(311, "reactive power aimed at", "var")
    built.append(wv.build((CurveRef(226, (4,)),)))
    return built
