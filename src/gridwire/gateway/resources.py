"""Typed models of the IEEE 2030.5 DER function set the gateway reads: DERProgram,
DERControl, DefaultDERControl and DERCurve (names as in the standard's schema, in snake case).

A control's modes are read into engineering terms once, here, so nothing above deals in the
schema's encodings (see :mod:`.parsing` for each element's type):

- ``opModConnect``, ``opModEnergize``: bool;
- ``opModMaxLimW``, ``opModFixedW``: percent of setMaxW (PerCent / SignedPerCent, hundredths);
- ``opModTargetW`` and CSIP-AUS's ``opModExpLimW``, ``opModGenLimW``, ``opModImpLimW``,
  ``opModLoadLimW``: watts (ActivePower: value times ten to its multiplier);
- ``opModFixedPFInjectW``, ``opModFixedPFAbsorbW``: :class:`PowerFactor`;
- ``opModFixedVar``: :class:`FixedVar` (percent of the reference its refType names);
- ``opModVoltVar``, ``opModVoltWatt``, ``opModFreqWatt``, ``opModWattVar`` (and the other
  curve modes): the DERCurve's href;
- ``rampTms``: seconds; ``setGradW`` (DefaultDERControl): percent of setMaxW per second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PowerFactor:
    """A fixed power factor and its excitation (True: over-excited)."""

    value: float
    excitation: bool


@dataclass(frozen=True, slots=True)
class FixedVar:
    """Fixed reactive power: a signed percent of the reference ``ref_type`` names
    (DERUnitRefType: 2 setMaxVar, 3 statVarAvail...)."""

    ref_type: int
    percent: float


ModeValue = bool | float | str | PowerFactor | FixedVar

# currentStatus of EventStatus
SCHEDULED, ACTIVE, CANCELLED, CANCELLED_RANDOM, SUPERSEDED_BY_SERVER = 0, 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class DerProgram:
    href: str
    mrid: str | None
    description: str | None
    primacy: int
    default_href: str | None
    controls_href: str | None
    curves_href: str | None
    fsa: str | None = None  # the FSA whose DERProgramList listed it (None: DeviceCapability's)


@dataclass(frozen=True, slots=True)
class DerControl:
    """A DERControl (an event). ``problems`` names what makes it invalid (then answered 253)."""

    href: str
    mrid: str
    description: str | None
    creation_time: int
    start: int
    duration: int
    randomize_start: int
    randomize_duration: int
    current_status: int
    reply_to: str | None
    response_required: int
    modes: Mapping[str, ModeValue]
    problems: tuple[str, ...] = ()

    @property
    def end(self) -> int:
        return self.start + self.duration


@dataclass(frozen=True, slots=True)
class DefaultControl:
    href: str
    mrid: str | None
    modes: Mapping[str, ModeValue]


@dataclass(frozen=True, slots=True)
class DerCurve:
    """A DERCurve: points in the curve's own units (multipliers applied)."""

    href: str
    mrid: str | None
    curve_type: int
    points: tuple[tuple[float, float], ...]
    y_ref_type: int | None


@dataclass(frozen=True, slots=True)
class ProgramSet:
    """One program with what it holds, as last polled."""

    program: DerProgram
    controls: tuple[DerControl, ...] = ()
    default: DefaultControl | None = None
    curves: Mapping[str, DerCurve] = field(default_factory=dict)


def mode_json(value: ModeValue) -> Any:
    """A mode's value as JSON (the management API, the store)."""
    if isinstance(value, PowerFactor):
        return {"power_factor": value.value, "excitation": value.excitation}
    if isinstance(value, FixedVar):
        return {"ref_type": value.ref_type, "percent": value.percent}
    return value
