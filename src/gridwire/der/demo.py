"""The built-in demo map: a DER of our own making, served when no IEEE tables are installed.

It is not IEEE's tables. It follows the profile's numbering (the numbering IEEE 1815.2 took
over from the DNP3 application note AN2018) for what it has: nameplate ratings, the system
meter block AI533-556, status and alarm inputs, the controls BO0-BO11 with their mirror inputs,
seven DER functions (volt-var, volt-watt, active power limit, constant power factor, constant
vars, charge/discharge, and watt-var, which the demo DER does not support), the curve block
(selector AO244, the edit window to AO448 and AI532, the referenced indicator BI107) and energy
counters with frozen counterparts. Names and state names are our own words; the values are a
10 kW, 10 kVA single-phase 240 V battery inverter, as transmitted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gridwire.der.functions import Curve, CurveBlock, CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Number, Point, with_name_values

TITLE = "gridwire demo DER (our own map in the profile's numbering, not IEEE's tables)"
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
WINDOW_POINTS = 100

# Purposes the demo gives its points.
NAMEPLATE = "Nameplate"
SETTINGS = "Settings"
MONITORING = "Monitoring"
STATUS = "Status"
ALARM = "Alarm"
CONTROL = "Control"
CURVE = "Curve"

_ALARM_STATES = ("Normal", "Alarm")
_SUPPORT_STATES = ("Not supported", "Supported")


@dataclass
class _Builder:
    points: list[Point] = field(default_factory=list)

    def add(self, kind: Kind, index: int, name: str, **attrs: Any) -> None:
        point = Point(kind, index, name, **attrs)
        self.points.append(with_name_values(point))

    def mirrored(
        self, output: Address, index: int, name: str, event_class: int, **shared: Any
    ) -> None:
        """An output and the input (of index ``index``) that mirrors it; ``input_name`` may
        name the input apart."""
        kind = output.kind.mirror
        assert kind is not None
        input_name = shared.pop("input_name", None) or name
        self.add(output.kind, output.index, name, associated=Address(kind, index), **shared)
        self.add(kind, index, input_name, associated=output, event_class=event_class, **shared)

    def pair(self, ao: int, ai: int, name: str, **shared: Any) -> None:
        """An analog output and its mirror input (event class 2); ranges default to 0 up."""
        shared.setdefault("minimum", 0)
        shared.setdefault("maximum", INT32_MAX)
        self.mirrored(Address(Kind.AO, ao), ai, name, 2, **shared)

    def inputs(self, section: str, purpose: str, event_class: int) -> Callable[..., None]:
        """A function adding the analog inputs of one section: ``(index, name, units, value,
        **attrs)``; ranges default to 0 and up, ``event_class`` may be given per input."""

        def add_input(
            index: int, name: str, units: str | None, value: Number, **attrs: Any
        ) -> None:
            attrs.setdefault("minimum", 0)
            attrs.setdefault("maximum", INT32_MAX)
            attrs.setdefault("event_class", event_class)
            self.add(
                Kind.AI,
                index,
                name,
                section=section,
                purpose=purpose,
                units=units,
                value=value,
                **attrs,
            )

        return add_input

    def binary_pair(
        self, bo: int, bi: int, name: str, states: tuple[str, str], **shared: Any
    ) -> None:
        """A binary output and its mirror input; ``event_class`` is the input's."""
        event_class = shared.pop("event_class")
        shared.setdefault("value", False)
        self.mirrored(Address(Kind.BO, bo), bi, name, event_class, states=states, **shared)


def _nameplate(b: _Builder) -> None:
    ai = b.inputs("Nameplate ratings", NAMEPLATE, 3)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    rated = {"mandatory_1547": True}
    ai(
        0,
        "Profile version number, times 100",
        None,
        100,
        multiplier=0.01,
        minimum=100,
        maximum=100,
        mandatory=True,
    )
    ai(
        1,
        "Profile implementation level <1> Level 1 <2> Level 2 <3> Level 3",
        None,
        2,
        minimum=1,
        maximum=3,
        mandatory=True,
    )
    ai(2, "Nameplate minimum voltage rating", "V", 2112, multiplier=0.1, mandatory=True, **rated)
    ai(3, "Nameplate maximum voltage rating", "V", 2640, multiplier=0.1, mandatory=True, **rated)
    ai(
        4,
        "Nameplate active power rating, generating at unity power factor",
        "W",
        10000,
        mandatory=True,
        **rated,
    )
    ai(
        5,
        "Nameplate active power rating, charging at unity power factor",
        "W",
        -10000,
        **charging,
        **rated,
    )
    ai(
        6,
        "Nameplate active power rating, generating at the over-excited power factor",
        "W",
        9000,
        **rated,
    )
    ai(
        7,
        "Nameplate active power rating, charging at the over-excited power factor",
        "W",
        -9000,
        **charging,
        **rated,
    )
    ai(
        8,
        "Over-excited power factor the ratings are given at",
        None,
        90,
        multiplier=0.01,
        minimum=-100,
        maximum=100,
        **rated,
    )
    ai(
        9,
        "Nameplate active power rating, generating at the under-excited power factor",
        "W",
        9000,
        **rated,
    )
    ai(
        10,
        "Nameplate active power rating, charging at the under-excited power factor",
        "W",
        -9000,
        **charging,
        **rated,
    )
    ai(
        11,
        "Under-excited power factor the ratings are given at",
        None,
        90,
        multiplier=0.01,
        minimum=-100,
        maximum=100,
        **rated,
    )
    ai(12, "Nameplate reactive power rating, injecting", "var", 4400, mandatory=True, **rated)
    ai(13, "Nameplate reactive power rating, absorbing", "var", -4400, **charging, **rated)
    ai(14, "Nameplate apparent power rating, generating", "VA", 10000, mandatory=True, **rated)
    ai(15, "Nameplate apparent power rating, charging", "VA", -10000, **charging, **rated)
    ai(16, "Nameplate storage energy capacity", "Ah or Wh", 20000)
    ai(17, "Storage capacity in effect (after ageing)", "Ah or Wh", 19500)
    ai(18, "Storage capacity usable", "Ah or Wh", 18000)
    ai(19, "Nameplate maximum AC current, generating", "A", 417, multiplier=0.1, **rated)
    ai(20, "Nameplate maximum AC current, charging", "A", -417, multiplier=0.1, **charging, **rated)
    ai(21, "Reactive susceptance remaining", "S", 0, minimum=INT32_MIN)
    ai(
        22,
        "IEEE 1547 normal performance category <0> Unknown <1> Category A <2> Category B",
        None,
        2,
        maximum=2,
        **rated,
    )
    ai(
        23,
        "IEEE 1547 abnormal performance category <0> Unknown <1> Category I "
        "<2> Category II <3> Category III",
        None,
        2,
        maximum=3,
        **rated,
    )
    ai(24, "Number of schedules", None, 0)
    ai(25, "Number of meters", None, 0)
    ai(26, "Number of inverters", None, 1)
    ai(27, "Number of batteries", None, 1)
    ai(28, "Number of DER units behind the controller", None, 1)


def _references(b: _Builder) -> None:
    section = "Ratings and references in effect"
    b.pair(
        0,
        29,
        "Reference voltage",
        section=section,
        purpose=SETTINGS,
        units="V",
        multiplier=0.1,
        value=2400,
        mandatory=True,
        mandatory_1547=True,
    )
    b.pair(
        1,
        30,
        "Reference voltage offset",
        section=section,
        purpose=SETTINGS,
        units="V",
        multiplier=0.1,
        minimum=INT32_MIN,
        value=0,
    )
    b.pair(
        2,
        31,
        "Nominal grid frequency",
        section=section,
        purpose=SETTINGS,
        units="Hz",
        multiplier=0.001,
        maximum=70000,
        value=60000,
        mandatory=True,
    )

    ai = b.inputs(section, SETTINGS, 2)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    ai(32, "Maximum active power, generating", "W", 10000)
    ai(33, "Maximum active power, charging", "W", -10000, **charging)
    ai(34, "Maximum reactive power, injecting", "var", 4400)
    ai(35, "Maximum reactive power, absorbing", "var", -4400, **charging)
    ai(36, "Maximum apparent power, generating", "VA", 10000)
    ai(37, "Maximum apparent power, charging", "VA", -10000, **charging)
    ai(38, "Minimum voltage", "V", 2112, multiplier=0.1)
    ai(39, "Maximum voltage", "V", 2640, multiplier=0.1)
    b.pair(
        3,
        40,
        "Open loop response time percentage. Share of the target reached within the "
        "open loop response time",
        section=section,
        purpose=SETTINGS,
        units="%",
        multiplier=0.1,
        maximum=1000,
        value=900,
    )
    b.pair(
        4,
        41,
        "Power factor sign convention <1> IEC active power <2> IEEE lead/lag",
        section=section,
        purpose=SETTINGS,
        minimum=1,
        maximum=2,
        value=2,
    )
    b.pair(
        5,
        42,
        "Reactive power setpoints are relative to <0> Not applicable "
        "<1> Percent of maximum active power (WMax) <2> Percent of maximum reactive power "
        "(VArMax) <3> Percent of available reactive power (VArAval)",
        section=section,
        purpose=SETTINGS,
        maximum=3,
        value=2,
    )


def _availability(b: _Builder) -> None:
    ai = b.inputs("System availability", MONITORING, 2)

    charging = {"minimum": INT32_MIN, "maximum": 0}
    ai(43, "Active power available, generating", "W", 10000)
    ai(44, "Active power available, charging", "W", -10000, **charging)
    ai(45, "Reactive power available, injecting", "var", 4400)
    ai(46, "Reactive power available, absorbing", "var", -4400, **charging)
    ai(
        47,
        "State of charge. Stored energy as a share of the capacity in effect",
        "%",
        500,
        multiplier=0.1,
        maximum=1000,
    )
    ai(
        48,
        "Usable state of charge. Usable stored energy as a share of the usable capacity",
        "%",
        450,
        multiplier=0.1,
        maximum=1000,
    )


def _system_meter(b: _Builder) -> None:
    add = b.inputs("System meter", MONITORING, 3)

    def ai(index: int, name: str, units: str | None, event_class: int, **attrs: Any) -> None:
        attrs.setdefault("minimum", INT32_MIN)
        value = attrs.pop("value", None)
        add(index, f"System meter {name}", units, value, event_class=event_class, **attrs)

    measured = {"mandatory": True, "mandatory_1547": True}
    ai(
        533,
        "connection point <0> Unknown <1> DER to local EPS <2> Inside the DER "
        "<3> Local EPS with load to area EPS (PCC with load) <4> Local EPS without load to area "
        "EPS (PCC without load) <5> Load to local EPS <6> Outside the DER, beyond the PCC "
        "<7> Outside the DER, within the local EPS <8> DER auxiliary load "
        "<9> Group of DERs to the area EPS <99> Other",
        None,
        3,
        minimum=0,
        maximum=99,
        value=1,
    )
    ai(
        534,
        "circuit phases <0> Unknown <1> Single phase <2> Split phase <3> Two phase "
        "<4> Three phase delta <5> Three phase wye <6> Three phase wye, grounded "
        "<7> Three phase, three wire (inverter) <8> Three phase, four wire (inverter)",
        None,
        3,
        minimum=0,
        maximum=8,
        value=1,
    )
    ai(
        535,
        "apparent power calculation <0> Unknown <1> Vector sum <2> Arithmetic sum",
        None,
        2,
        minimum=0,
        maximum=2,
        value=1,
    )
    ai(
        536,
        "frequency",
        "Hz",
        3,
        multiplier=0.001,
        minimum=0,
        maximum=70000,
        value=60000,
        **measured,
    )
    ai(537, "active power", "W", 3, value=0, **measured)
    for offset, phase in enumerate("ABC"):
        ai(538 + offset, f"active power, phase {phase}", "W", 1, value=0)
    ai(541, "reactive power", "var", 3, value=0, **measured)
    for offset, phase in enumerate("ABC"):
        ai(542 + offset, f"reactive power, phase {phase}", "var", 1, value=0)
    ai(
        545,
        "power factor",
        None,
        3,
        multiplier=0.01,
        minimum=-100,
        maximum=100,
        value=100,
        mandatory=True,
    )
    ai(546, "apparent power", "VA", 3, value=0)
    volts = (2400, 0, 0)
    for offset, phase in enumerate("ABC"):
        ai(
            547 + 2 * offset,
            f"voltage, phase {phase}",
            "V",
            3,
            multiplier=0.1,
            minimum=0,
            value=volts[offset],
            **(measured if phase == "A" else {}),
        )
        ai(
            548 + 2 * offset,
            f"voltage angle, phase {phase}",
            "deg",
            3,
            multiplier=0.1,
            minimum=0,
            maximum=3600,
            value=0,
        )
    ai(553, "line-to-line voltage, average", "V", 1, multiplier=0.1, minimum=0, value=2400)
    for offset, phase in enumerate("ABC"):
        ai(554 + offset, f"current, phase {phase}", "A", 1, multiplier=0.1, value=0)


def _status_and_alarms(b: _Builder) -> None:
    alarms = [
        "System communication error",
        "Priority 1 alarm present",
        "Priority 2 alarm present",
        "Priority 3 alarm present",
        "Storage at its maximum state of charge",
        "Storage state of charge above its reserve",
        "Storage state of charge below its reserve",
        "Storage at its minimum state of charge (depleted)",
        "Storage internal temperature high",
        "Storage ambient temperature high",
    ]
    for index, name in enumerate(alarms):
        b.add(
            Kind.BI,
            index,
            name,
            section="Alarms",
            purpose=ALARM,
            event_class=1,
            states=_ALARM_STATES,
            value=False,
            mandatory=index == 0,
        )

    def bi(index: int, name: str, states: tuple[str, str], value: bool, **attrs: Any) -> None:
        b.add(
            Kind.BI,
            index,
            name,
            section="System status",
            purpose=STATUS,
            event_class=2,
            states=states,
            value=value,
            **attrs,
        )

    bi(10, "Local control. An operator on site holds the system", ("Remote", "Local"), False)
    bi(14, "Started (in service)", ("No", "Started"), True, mandatory=True, mandatory_1547=True)
    bi(
        15,
        "Stopped (ceased to energize)",
        ("No", "Stopped"),
        False,
        mandatory=True,
        mandatory_1547=True,
    )
    bi(18, "Connected and idle", ("No", "Idle"), False)
    bi(19, "Connected and generating", ("No", "Generating"), True)
    bi(20, "Connected and charging", ("No", "Charging"), False)
    bi(21, "Off and available to start", ("No", "Available"), False)
    bi(22, "Off and not available to start", ("No", "Not available"), False)
    bi(24, "Connect/disconnect switch moving", ("Still", "Moving"), False)

    controls = [
        (0, 11, "Lock out", "Locked out", ("Not locked out", "Locked out"), False, False),
        (1, 12, "Start up (return to service)", "Starting up", ("Idle", "Starting"), False, True),
        (
            2,
            13,
            "Stop (cease to energize)",
            "Stopping (ceasing to energize)",
            ("Idle", "Stopping"),
            False,
            True,
        ),
        (
            3,
            16,
            "Grant permission to start",
            "Permission to start granted",
            ("Not granted", "Granted"),
            True,
            False,
        ),
        (
            4,
            17,
            "Grant permission to stop",
            "Permission to stop granted",
            ("Not granted", "Granted"),
            True,
            False,
        ),
        (
            5,
            23,
            "Connect/disconnect switch",
            "Connect/disconnect switch closed",
            ("Open", "Closed"),
            True,
            True,
        ),
    ]
    for bo, bi_index, name, input_name, states, value, required in controls:
        b.binary_pair(
            bo,
            bi_index,
            name,
            states,
            section="System controls",
            purpose=CONTROL,
            event_class=2,
            input_name=input_name,
            value=value,
            mandatory=required,
            mandatory_1547=required,
        )
    modes = [
        (6, 25, "Islanded mode", ("Isochronous", "Droop"), True, 3),
        (7, 26, "Sensed grid configuration detection", ("Off", "On"), False, 3),
        (8, 27, "Storage capacity units", ("Ampere-hours", "Watt-hours"), True, 3),
        (9, 28, "Time constant mode", ("Open loop response time", "Three tau"), False, 3),
        (
            10,
            29,
            "Power factor excitation when generating",
            ("Injecting vars (Q1)", "Absorbing vars (Q4)"),
            False,
            2,
        ),
        (
            11,
            30,
            "Power factor excitation when charging",
            ("Injecting vars (Q2)", "Absorbing vars (Q3)"),
            False,
            2,
        ),
    ]
    for bo, bi_index, name, states, value, event_class in modes:
        b.binary_pair(
            bo,
            bi_index,
            name,
            states,
            section="Operating modes",
            purpose=SETTINGS,
            event_class=event_class,
            value=value,
        )


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

    def __init__(self, b: _Builder, spec: _FunctionSpec) -> None:
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
            states=_SUPPORT_STATES,
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


def _functions(b: _Builder) -> list[DerFunction]:
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


CURVE_TYPES = (
    "<0> Curve disabled <1> Not applicable <2> Volt-var <3> Frequency-watt <4> Watt-var "
    "<5> Volt-watt <6> Remain connected <7> Temperature <8> Pricing signal "
    "<9> High voltage ride-through, must trip <10> High voltage ride-through, momentary "
    "cessation <11> Low voltage ride-through, must trip <12> Low voltage ride-through, "
    "momentary cessation <13> High frequency ride-through, must trip <14> High frequency "
    "ride-through, momentary cessation <15> Low frequency ride-through, must trip "
    "<16> Low frequency ride-through, mandatory operation"
)
X_UNITS = (
    "<0> Curve disabled <1> Not applicable <4> Time <23> Temperature (Celsius) <29> Voltage "
    "<33> Frequency <38> Watts <100> Price (hundredths of the local currency) "
    "<129> Percent of voltage <133> Percent of frequency <138> Percent of watts "
    "<233> Frequency deviation"
)
Y_UNITS = (
    "<0> Curve disabled <1> Not applicable <2> Vars, percent of maximum vars (VArMax) "
    "<3> Vars, percent of available vars (VArAval) <4> Vars, percent of maximum watts (WMax) "
    "<5> Watts, percent of maximum watts (WMax) <6> Watts, percent of frozen active power "
    "<7> Power factor (EEI notation) <8> Volts, percent of nominal voltage (VRef) "
    "<9> Frequency, percent of nominal frequency"
)


# The curves the demo DER stores at start, points in whole units of the declared units:
# volt-var (percent of the reference voltage to percent of maximum vars), volt-watt (to percent
# of maximum watts), watt-var (percent of maximum watts to percent of maximum vars), one unused.
DEMO_CURVES = (
    Curve(1, 2, 129, 2, ((92, 44), (98, 0), (102, 0), (108, -44))),
    Curve(2, 5, 129, 5, ((100, 100), (106, 100), (110, 0))),
    Curve(3, 4, 138, 2, ((0, 0), (50, 0), (100, -44))),
    Curve(4, 0, 0, 0),
)


def _curve_block(b: _Builder) -> CurveBlock:
    """The curve block, its window showing the first stored curve."""
    shown = DEMO_CURVES[0]
    block = CurveBlock(
        selector=244,
        readback=328,
        referenced=107,
        max_points=WINDOW_POINTS,
        curves=len(DEMO_CURVES),
    )
    section = "Curve edit window"
    shared: dict[str, Any] = {"section": section, "purpose": CURVE, "mandatory": True}
    heads = [
        (
            "Curve edit selector. Number of the stored curve the window shows and edits",
            {"minimum": 1, "value": shown.number},
        ),
        (f"Curve type {CURVE_TYPES}", {"maximum": 20, "value": shown.type}),
        ("Curve number of points", {"maximum": WINDOW_POINTS, "value": len(shown.points)}),
        (f"Curve X units {X_UNITS}", {"maximum": 255, "value": shown.x_units}),
        (f"Curve Y units {Y_UNITS}", {"maximum": 255, "value": shown.y_units}),
    ]
    for offset, (name, attrs) in enumerate(heads):
        b.pair(block.output(offset), block.input(offset), name, **shared, **attrs)
    for n in range(1, WINDOW_POINTS + 1):
        given = shown.points[n - 1] if n <= len(shown.points) else (None, None)
        for axis, value in zip("XY", given, strict=True):
            at = block.x_offset(n) + (axis == "Y")
            b.pair(
                block.output(at),
                block.input(at),
                f"Curve point {n} {axis}",
                section=section,
                purpose=CURVE,
                minimum=INT32_MIN,
                value=value,
            )
    b.add(
        Kind.BI,
        107,
        "Selected curve is referenced by a function",
        section=section,
        purpose=CURVE,
        event_class=1,
        states=("Not referenced", "Referenced"),
        value=True,
        mandatory=True,
    )
    return block


def _counters(b: _Builder) -> None:
    counters = [
        (0, "Active energy delivered. Energy the DER has delivered to the grid", "Wh"),
        (1, "Active energy received. Energy the DER has taken from the grid", "Wh"),
        (2, "Reactive energy injected", "varh"),
        (3, "Reactive energy absorbed", "varh"),
    ]
    for index, name, units in counters:
        b.add(
            Kind.CTR,
            index,
            name,
            section="Energy counters",
            purpose=MONITORING,
            event_class=3,
            units=units,
            frozen=True,
            frozen_event_class=3,
            value=0,
            mandatory=index == 0,
        )


@lru_cache(maxsize=1)
def demo_map() -> PointMap:
    """The demo map (built once; a PointMap does not change)."""
    b = _Builder()
    _nameplate(b)
    _references(b)
    _availability(b)
    _system_meter(b)
    _status_and_alarms(b)
    functions = _functions(b)
    curve_block = _curve_block(b)
    _counters(b)
    return PointMap(
        b.points,
        title=TITLE,
        demo=True,
        source="gridwire (built in)",
        functions=functions,
        curve_block=curve_block,
    )
