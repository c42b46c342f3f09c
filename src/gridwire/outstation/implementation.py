"""The implementation table of this outstation: every object it parses in a request, with the
function codes and qualifier codes it takes it in, and every object it sends in a response,
as a Device Profile lists them (a row per group and variation).

The rows are derived from the tables the outstation itself is driven by (the point types and
their variations in :mod:`.points`, the controls in :mod:`.commands`), and from what
:mod:`.reads`, :mod:`.functions` and the session accept, so the table says what is served:

- static groups: READ and ASSIGN_CLASS in variation 0 (and READ in each variation served)
  for all points, a range or points by index; counters also the four freeze functions;
  responses carry start-stop ranges, or index prefixes for points read by index;
- event groups: READ of all or at most a count; responses (and unsolicited responses)
  carry index-prefixed events;
- controls (g12v1, g41v1-4): SELECT, OPERATE, DIRECT_OPERATE and DIRECT_OPERATE_NR,
  index-prefixed, echoed in the response;
- the time (g50v1 read and written, g50v3 written), time delays (g52v1-2 in responses),
  common times of occurrence (g51v1-2), class data (g60v1-4), the restart indication (g80v1);
- and the functions that take no object: cold and warm restart, delay measurement and
  record current time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from gridwire.dnp3.app.functions import FunctionCode as F
from gridwire.dnp3.objects.table import lookup
from gridwire.outstation.commands import COMMAND_OBJECTS
from gridwire.outstation.points import TYPES

_POINTS: Final = (0x00, 0x01, 0x06, 0x17, 0x28)
_RANGED: Final = (0x00, 0x01, 0x17, 0x28)
_EVENTS: Final = (0x06, 0x07, 0x08)
_PREFIXED: Final = (0x17, 0x28)
_COMMANDS: Final = (0x17, 0x28, 0x39)
_RESPONSE: Final = int(F.RESPONSE)
_UNSOLICITED: Final = int(F.UNSOLICITED_RESPONSE)
_FREEZES: Final = (F.IMMED_FREEZE, F.IMMED_FREEZE_NR, F.FREEZE_CLEAR, F.FREEZE_CLEAR_NR)
_CONTROLS: Final = (F.SELECT, F.OPERATE, F.DIRECT_OPERATE, F.DIRECT_OPERATE_NR)
_NO_OBJECT: Final = (F.COLD_RESTART, F.WARM_RESTART, F.DELAY_MEASURE, F.RECORD_CURRENT_TIME)


@dataclass(frozen=True, slots=True)
class Supported:
    """One row: ``group`` None for a function code that takes no object."""

    group: int | None
    variation: int
    description: str
    requests: Mapping[int, Sequence[int]] = field(default_factory=dict)
    responses: Mapping[int, Sequence[int]] = field(default_factory=dict)


_GROUPS: Final[dict[int, str]] = {
    1: "Binary Input",
    2: "Binary Input Event",
    3: "Double-bit Binary Input",
    4: "Double-bit Binary Input Event",
    10: "Binary Output",
    11: "Binary Output Event",
    12: "Binary Command",
    20: "Counter",
    21: "Frozen Counter",
    22: "Counter Event",
    23: "Frozen Counter Event",
    30: "Analog Input",
    32: "Analog Input Event",
    40: "Analog Output Status",
    41: "Analog Output",
    42: "Analog Output Event",
    50: "Time and Date",
    51: "Common Time of Occurrence",
    52: "Time Delay",
    60: "Class Objects",
    80: "Internal Indications",
}


def _name(group: int, variation: int) -> str:
    """``Counter - 32-bit with flag``; ``Counter - any variation`` for variation 0."""
    found = lookup(group, variation) if variation else None
    what = found.name if found is not None else "any variation"
    return f"{_GROUPS.get(group, f'Group {group}')} - {what}"


def implementation_table() -> list[Supported]:
    """The rows, by group then variation."""
    rows: list[Supported] = []
    for spec in TYPES.values():
        static = spec.static_group
        static_requests: dict[int, Sequence[int]] = {int(F.READ): _POINTS}
        rows.append(
            Supported(
                static,
                0,
                _name(static, 0),
                {**static_requests, int(F.ASSIGN_CLASS): _POINTS}
                | ({int(f): _POINTS for f in _FREEZES} if spec.type == "counter" else {}),
            )
        )
        rows.extend(
            Supported(static, v, _name(static, v), static_requests, {_RESPONSE: _RANGED})
            for v in spec.static_variations
        )
        event = spec.event_group
        rows.append(Supported(event, 0, _name(event, 0), {int(F.READ): _EVENTS}))
        rows.extend(
            Supported(
                event,
                v,
                _name(event, v),
                {int(F.READ): _EVENTS},
                {_RESPONSE: _PREFIXED, _UNSOLICITED: _PREFIXED},
            )
            for v in spec.event_variations
        )
    controls = {int(f): _COMMANDS for f in _CONTROLS}
    rows.extend(
        Supported(g, v, _name(g, v), controls, {_RESPONSE: _COMMANDS})
        for g, v in sorted(COMMAND_OBJECTS)
    )
    rows += [
        Supported(
            50,
            1,
            _name(50, 1),
            {int(F.READ): (0x06, 0x07), int(F.WRITE): (0x07,)},
            {_RESPONSE: (0x07,)},
        ),
        Supported(50, 3, _name(50, 3), {int(F.WRITE): (0x07,)}),
        Supported(51, 1, _name(51, 1), {}, {_RESPONSE: (0x07,), _UNSOLICITED: (0x07,)}),
        Supported(51, 2, _name(51, 2), {}, {_RESPONSE: (0x07,), _UNSOLICITED: (0x07,)}),
        Supported(52, 1, _name(52, 1), {}, {_RESPONSE: (0x07,)}),
        Supported(52, 2, _name(52, 2), {}, {_RESPONSE: (0x07,)}),
        Supported(60, 1, _name(60, 1), {int(F.READ): (0x06,), int(F.ASSIGN_CLASS): (0x06,)}),
    ]
    class_requests = {
        int(F.READ): _EVENTS,
        int(F.ENABLE_UNSOLICITED): (0x06,),
        int(F.DISABLE_UNSOLICITED): (0x06,),
        int(F.ASSIGN_CLASS): (0x06,),
    }
    rows.extend(Supported(60, v, _name(60, v), class_requests) for v in (2, 3, 4))
    rows.append(Supported(80, 1, _name(80, 1), {int(F.WRITE): (0x00,)}))
    rows.extend(Supported(None, 0, f.name, {int(f): ()}) for f in _NO_OBJECT)
    rows.sort(key=lambda r: (r.group is None, r.group or 0, r.variation))
    return rows
