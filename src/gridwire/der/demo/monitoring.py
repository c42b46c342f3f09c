"""The demo map's system meter (AI533-556), status and alarm inputs, and energy
counters."""

from __future__ import annotations

from typing import Any

from gridwire.der.demo.builder import (
    ALARM,
    ALARM_STATES,
    CONTROL,
    INT32_MIN,
    MONITORING,
    SETTINGS,
    STATUS,
    Builder,
)
from gridwire.der.points import Kind


def system_meter(b: Builder) -> None:
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


def status_and_alarms(b: Builder) -> None:
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
            states=ALARM_STATES,
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


def counters(b: Builder) -> None:
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
