"""The demo map's schedule block, in AN2018-001's numbering: the editor selector AO461 (read
back on AI570), the schedule's fields AO462-AO469 (AI571-AI577 and AI580; the selected
schedule's validation status AI578 and status AI579 between them), ten points from AO470/AI581
(AN2018-001 has a hundred; ten keep the demo's class 0 small), the ready output BO42 (BI108),
the running schedule's index AI569. The number of schedules is the nameplate's AI24.

Names are our own words; type codes are those AN2018-001 gives the schedule type (a few), and
the repeat units its list (0 no repeat, 1 seconds ... 5 weeks).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gridwire.der.demo.builder import INT32_MAX, INT32_MIN, Builder
from gridwire.der.points import Address, Kind
from gridwire.der.schedules import FIELDS, ScheduleBlock

SCHEDULE = "Schedule"
SCHEDULES = 4
"""How many schedules the demo DER stores (AI24 says so)."""
SCHEDULE_POINTS = 10
SCHEDULE_TYPES = (
    "<1> Voltage ride-through, high, must trip <2> Voltage ride-through, low, must trip "
    "<3> Voltage ride-through, high, momentary cessation <4> Voltage ride-through, low, "
    "momentary cessation <5> Frequency ride-through, high, must trip <6> Frequency "
    "ride-through, low, must trip <7> Frequency ride-through, high, momentary cessation "
    "<8> Frequency ride-through, low, momentary cessation <9> Dynamic reactive current "
    "support on or off <10> Dynamic volt-watt on or off <11> Frequency-watt on or off "
    "<12> Active power limit, charging <13> Active power limit, generating "
    "<14> Charge/discharge, share of the maximum <15> Coordinated charge/discharge, state of "
    "charge target <16> Active power response 1 on or off <17> Active power response 2 on or "
    "off <18> Active power response 3 on or off <19> Automatic generation control, watts "
    "<20> Active power smoothing on or off <21> Volt-watt, curve number <22> Frequency-watt, "
    "curve number <23> Frequency-watt, high hysteresis <24> Frequency-watt, low hysteresis "
    "<25> Constant vars, share of the maximum <26> Fixed power factor <27> Volt-var, curve "
    "number <28> Watt-var, curve number <29> Power factor correction on or off "
    "<30> Reserved (pricing)"
)
REPEAT_UNITS = (
    "<0> No repeat <1> Seconds <2> Minutes <3> Hours <4> Days <5> Weeks <6> Months "
    "<7> Months, same weekday <8> Months, same weekday from the end"
)
STATUS = "<0> Unknown <1> Not available <2> Inactive <3> Ready to run <4> Running"
VALIDATION = "<0> Unknown <1> Not validated <2> Validated <3> Invalid <4> Not checked"


def _head(b: Builder, ao: int, ai: int, name: str, **shared: Any) -> None:
    """A field of the window: an output and its mirror input, event class 3 (AN2018-001's)."""
    shared.setdefault("minimum", 0)
    shared.setdefault("maximum", INT32_MAX)
    b.mirrored(Address(Kind.AO, ao), ai, name, 3, **shared)


def _tighten(b: Builder, inputs: dict[int, dict[str, Any]]) -> None:
    """The inputs whose range AN2018-001 gives apart from their output's."""
    for i, point in enumerate(b.points):
        if point.kind is Kind.AI and point.index in inputs:
            b.points[i] = dataclasses.replace(point, **inputs[point.index])


def schedule_block(b: Builder) -> ScheduleBlock:
    """The schedule block, its window showing schedule 1 (empty)."""
    section = "Schedule edit window"
    shared: dict[str, Any] = {"section": section, "purpose": SCHEDULE}
    _head(
        b,
        461,
        570,
        "Schedule editor selector. Number of the stored schedule the window shows and edits",
        value=1,
        **shared,
    )
    heads: list[tuple[int, int, str, dict[str, Any]]] = [
        (462, 571, "Schedule identity. A number the utility gives the schedule", {}),
        (463, 572, "Schedule priority. Lower numbers win over higher", {"value": 1}),
        (464, 573, f"Schedule type {SCHEDULE_TYPES}", {"maximum": 30}),
        (465, 574, "Schedule start date. Days since 1 January 1970, UTC", {"units": "d"}),
        (
            466,
            575,
            "Schedule start time. Into the start date",
            {"maximum": 86400000, "units": "ms"},
        ),
        (467, 576, "Schedule repeat interval. Zero: not repeated", {}),
        (468, 577, f"Schedule repeat interval units {REPEAT_UNITS}", {"maximum": 8}),
        (469, 580, "Schedule number of points", {"maximum": 100}),
    ]
    for ao, ai, name, attrs in heads:
        _head(b, ao, ai, name, **{"value": 0, **shared, **attrs})
    _tighten(b, {572: {"minimum": 1}, 573: {"maximum": 21}, 580: {"maximum": INT32_MAX}})
    add = b.inputs(section, SCHEDULE, 2)
    add(578, f"Selected schedule validation status {VALIDATION}", None, 0, maximum=4, event_class=3)
    add(579, f"Selected schedule status {STATUS}", None, 2, maximum=4)
    add(569, "Running schedule index. Zero when no schedule runs", None, 0)
    for n in range(1, SCHEDULE_POINTS + 1):
        at = 470 + 2 * (n - 1)
        b.pair(at, 581 + at - 470, f"Schedule point {n} time offset. Seconds", value=0, **shared)
        b.pair(
            at + 1,
            582 + at - 470,
            f"Schedule point {n} value",
            minimum=INT32_MIN,
            value=0,
            **shared,
        )
    b.binary_pair(
        42,
        108,
        "Set the selected schedule ready",
        ("Not ready", "Ready"),
        event_class=2,
        input_name="Selected schedule is ready",
        **shared,
    )
    return ScheduleBlock(
        selector=461,
        readback=570,
        outputs=tuple((n, ao) for n, (ao, _, _, _) in zip(FIELDS, heads, strict=True)),
        inputs=(
            *((n, ai) for n, (_, ai, _, _) in zip(FIELDS, heads, strict=True)),
            ("status", 579),
            ("validation", 578),
        ),
        point_output=470,
        point_input=581,
        max_points=SCHEDULE_POINTS,
        ready=42,
        ready_input=108,
        running=569,
        number=24,
        schedules=SCHEDULES,
    )
