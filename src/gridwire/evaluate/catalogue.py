"""The catalogue: the 46 checks an evaluation can run, in the order they run.

Each :class:`CheckSpec` says what the check is (id, title, set; the title is fixed here, the
same for every device, so ``--list``, ``checks``, the reports and JUnit name a check alike
from one device to the next), whether it writes to the
outstation (then it runs only on a master allowed to command) or breaks a protocol rule on
purpose (then only with ``allow_deviations``), and where its code is: the function
``function`` of the family module ``gridwire.evaluate.families.<family>``, called with the
check's :class:`~gridwire.evaluate.context.CheckContext`. ``args`` carries what one function
shared by several checks needs to tell them apart (the enable output of a mode check, the
deviation of a link check).

A family module that is not written yet, or that lacks the function, leaves its checks
unimplemented: :func:`check_function` answers None and the run reports them ``not_run``
("not implemented in this build"); never a verdict.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Final

from gridwire.errors import BadParameter, UnknownName
from gridwire.evaluate.records import CheckInfo
from gridwire.evaluate.spec import CheckSpec as CheckSpec  # re-exported: the catalogue's record

if TYPE_CHECKING:
    from gridwire.evaluate.context import CheckContext

CheckFunction = Callable[["CheckContext"], Awaitable[None]]
"""A check: returns when it passed (having said what it verified, ``ctx.verified``); raises
Failed, NotApplicable (gridwire.evaluate.outcomes)."""

FAMILIES_PACKAGE: Final = "gridwire.evaluate.families"
FAMILIES: Final = (
    "profile",
    "monitoring",
    "service",
    "curves",
    "schedules",
    "modes",
    "link",
    "confirmation",
)
SETS: Final = ("device-profile", "der", "deviation")
NOT_IMPLEMENTED: Final = "not implemented in this build"


def _reads(id: str, title: str, family: str, function: str, set: str = "der") -> CheckSpec:
    return CheckSpec(id, title, set, family, function)


def _writes(id: str, title: str, family: str, function: str) -> CheckSpec:
    return CheckSpec(id, title, "der", family, function, writes=True)


def _mode(id: str, name: str, enable: int) -> CheckSpec:
    title = f"{name} (BO{enable})"
    return CheckSpec(id, title, "der", "modes", "mode", writes=True, args={"enable": enable})


def _link(id: str, title: str, deviation: str, probes: int) -> CheckSpec:
    args = {"deviation": deviation, "probes": probes}
    return CheckSpec(id, title, "deviation", "link", "probe", deviates=True, args=args)


def _confirm(id: str, title: str, deviation: str) -> CheckSpec:
    args = {"deviation": deviation}
    return CheckSpec(
        id, title, "deviation", "confirmation", "events_kept", deviates=True, args=args
    )


_MODES: Final = (
    ("VRT-001", "Voltage Ride-Through", 12),
    ("FRT-001", "Frequency Ride-Through", 13),
    ("DRCS-001", "Dynamic Reactive Current Support", 14),
    ("DVW-001", "Dynamic Volt-Watt", 15),
    ("FW-001", "Frequency-Watt", 16),
    ("APL-001", "Active Power Limit", 17),
    ("CHG-001", "Charge/Discharge", 18),
    ("CCM-001", "Coordinated Charge/Discharge Management", 19),
    ("APR1-001", "Active Power Response 1", 20),
    ("APR2-001", "Active Power Response 2", 21),
    ("APR3-001", "Active Power Response 3", 22),
    ("AGC-001", "Automatic Generation Control", 23),
    ("APS-001", "Active Power Smoothing", 24),
    ("VW-001", "Volt-Watt", 25),
    ("FWC-001", "Frequency-Watt Curve", 26),
    ("CVAR-001", "Constant VArs", 27),
    ("FPF-001", "Fixed Power Factor", 28),
    ("VV-001", "Volt-VAr", 29),
    ("WV-001", "Watt-VAr", 30),
    ("PFC-001", "Power Factor Correction", 31),
    ("PSIG-001", "Pricing Signal", 32),
)
"""The mode checks: id, the catalogue's name of the function, the output (BO) that enables it
in IEEE 1815.2's tables. The title is "<name> (BO<n>)" whatever a device's tables call it."""

CATALOGUE: Final[tuple[CheckSpec, ...]] = (
    _reads(
        "PROFILE-001",
        "Device Profile agrees with what is served",
        "profile",
        "profile_001",
        set="device-profile",
    ),
    _reads("MON-001", "Monitoring", "monitoring", "mon_001"),
    _reads("ALARM-001", "Alarm reporting", "monitoring", "alarm_001"),
    _reads("OP-001", "Operating states", "monitoring", "op_001"),
    _writes("CONN-001", "Connect and disconnect", "service", "conn_001"),
    _writes("SERV-001", "Cease to energize and return to service", "service", "serv_001"),
    _writes("SERV-001.2", "A start without permission is refused", "service", "serv_001_2"),
    _writes("SERV-001.3", "A stop without permission is refused", "service", "serv_001_3"),
    _writes("CURVE-001", "Curve reference indication", "curves", "curve_001"),
    _writes(
        "CURVE-001.2",
        "A curve beyond those stored cannot be selected",
        "curves",
        "curve_001_2",
    ),
    _writes("CURVE-002", "Curve locking", "curves", "curve_002"),
    _writes(
        "CURVE-002.2",
        "An enabled function can be moved to another curve",
        "curves",
        "curve_002_2",
    ),
    _writes(
        "CURVE-003",
        "A function cannot name a curve of another type",
        "curves",
        "curve_003",
    ),
    _writes(
        "CURVE-003.2",
        "Naming an undefined curve or one beyond the count is refused",
        "curves",
        "curve_003_2",
    ),
    _writes("SCHED-001", "Schedule editing", "schedules", "sched_001"),
    _writes("SCHED-002", "A schedule runs", "schedules", "sched_002"),
    *(_mode(id, name, enable) for id, name, enable in _MODES),
    _link("LINK-001", "Bad header CRC", "corrupt_header_crc", 3),
    _link("LINK-002", "Bad data CRC", "corrupt_body_crc", 3),
    _link("LINK-003", "Frame cut short", "truncate", 3),
    _link("LINK-004", "Length overstated", "overstate_length", 3),
    _link("TRANSPORT-001", "Segment with no first", "orphan_segment", 1),
    _link(
        "TRANSPORT-002",
        "A series that never ends gives way to a new first segment",
        "endless_series",
        1,
    ),
    _confirm(
        "CONFIRM-001", "Events kept when the confirmation is withheld", "withhold_confirmation"
    ),
    _confirm(
        "CONFIRM-002",
        "Events kept when the confirmation has the wrong sequence",
        "wrong_confirmation_sequence",
    ),
    _confirm(
        "CONFIRM-003",
        "Events kept when the confirmation comes after the next request",
        "late_confirmation",
    ),
)

_BY_ID: Final = {spec.id.casefold(): spec for spec in CATALOGUE}


def listing() -> list[CheckInfo]:
    """Every check as ``checks`` lists it, in catalogue order."""
    return [spec.info for spec in CATALOGUE]


def select(names: Sequence[str] | None) -> list[CheckSpec]:
    """The checks ``names`` name (ids in any case, set names exactly), in catalogue order;
    all of them for None. RequestError naming the first name that is neither."""
    if names is None:
        return list(CATALOGUE)
    if not names:
        raise BadParameter("checks is empty: name checks or sets, or leave checks out for all")
    chosen: set[str] = set()
    for name in names:
        if name in SETS:
            chosen.update(spec.id for spec in CATALOGUE if spec.set == name)
            continue
        spec = _BY_ID.get(name.strip().casefold())
        if spec is None:
            raise UnknownName(
                f"checks: {name!r} is neither a check nor a set (sets: {', '.join(SETS)}; "
                "the checks operation, or gridwire evaluate --list, lists the checks)"
            )
        chosen.add(spec.id)
    return [spec for spec in CATALOGUE if spec.id in chosen]


def check_function(spec: CheckSpec) -> CheckFunction | None:
    """The function that carries out ``spec``, or None while its family module or the
    function is not written. An error importing a module that exists is raised (a bug)."""
    name = f"{FAMILIES_PACKAGE}.{spec.family}"
    if importlib.util.find_spec(name) is None:
        return None
    module = importlib.import_module(name)
    function: CheckFunction | None = getattr(module, spec.function, None)
    return function
