"""Safe parsing of the DER function set's bodies (through :mod:`gridwire.sep2.parsing`'s
readers: defusedxml, DTDs refused, size limit, links resolved against the URL they came from).

Encodings (IEEE 2030.5 schema): PerCent and SignedPerCent are hundredths of a percent;
ActivePower is ``value`` times ten to ``multiplier`` watts; PowerFactorWithExcitation is
``displacement`` times ten to ``multiplier`` with ``excitation``; FixedVar is ``refType`` and a
SignedPerCent ``value``; a curve mode is a DERCurveLink; rampTms and setGradW are hundredths
(of a second; of a percent per second). CSIP-AUS's extensions (opModExpLimW, opModGenLimW,
opModImpLimW, opModLoadLimW) come in their own namespace and are read by local name.

A DERControl with a bad mode or interval is not refused: it is kept with ``problems`` so the
gateway can answer it 253 (invalid); a body that cannot be read at all raises ResourceError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from xml.etree.ElementTree import Element

from gridwire.gateway.resources import (
    DefaultControl,
    DerControl,
    DerCurve,
    DerProgram,
    FixedVar,
    ModeValue,
    PowerFactor,
)
from gridwire.sep2.errors import ResourceError
from gridwire.sep2.links import resolve
from gridwire.sep2.parsing import (
    INT32,
    INT64,
    UINT8,
    Reader,
    href_of,
    parse_list,
    root_reader,
)
from gridwire.sep2.resources import ListPage

BOOLEAN_MODES = ("opModConnect", "opModEnergize")
PERCENT_MODES = ("opModMaxLimW", "opModFixedW")
WATT_MODES = ("opModTargetW", "opModExpLimW", "opModGenLimW", "opModImpLimW", "opModLoadLimW")
PF_MODES = ("opModFixedPFInjectW", "opModFixedPFAbsorbW")
CURVE_MODES = (
    "opModVoltVar",
    "opModVoltWatt",
    "opModFreqWatt",
    "opModWattVar",
    "opModWattPF",
    "opModHFRTMayTrip",
    "opModHFRTMustTrip",
    "opModHVRTMayTrip",
    "opModHVRTMomentaryCessation",
    "opModHVRTMustTrip",
    "opModLFRTMayTrip",
    "opModLFRTMustTrip",
    "opModLVRTMayTrip",
    "opModLVRTMomentaryCessation",
    "opModLVRTMustTrip",
)
HUNDREDTHS_MODES = ("rampTms", "setGradW")
T = TypeVar("T")


def _local(element: Element) -> str:
    return element.tag.rpartition("}")[2]


def _sub(element: Element, name: str) -> str | None:
    for child in element:
        if _local(child) == name:
            return (child.text or "").strip()
    return None


def _number(element: Element, name: str, where: str) -> int:
    raw = _sub(element, name)
    if raw is None:
        raise ValueError(f"{where} has no {name}")
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{where}.{name} {raw[:20]!r} is not an integer") from None


def _mode(element: Element, name: str, base: str) -> ModeValue:
    text = (element.text or "").strip()
    if name in BOOLEAN_MODES:
        if text not in ("true", "false", "1", "0"):
            raise ValueError(f"{name} {text[:20]!r} is not a boolean")
        return text in ("true", "1")
    if name in PERCENT_MODES or name in HUNDREDTHS_MODES:
        try:
            return int(text) / 100
        except ValueError:
            raise ValueError(f"{name} {text[:20]!r} is not an integer") from None
    if name in WATT_MODES:
        multiplier = int(_sub(element, "multiplier") or 0)
        return _number(element, "value", name) * 10.0**multiplier
    if name in PF_MODES:
        multiplier = int(_sub(element, "multiplier") or 0)
        displacement = _number(element, "displacement", name) * 10.0**multiplier
        excitation = (_sub(element, "excitation") or "false") in ("true", "1")
        return PowerFactor(round(displacement, 6), excitation)
    if name == "opModFixedVar":
        ref_type = _number(element, "refType", name)
        return FixedVar(ref_type, _number(element, "value", name) / 100)
    if name in CURVE_MODES:
        href = (element.get("href") or "").strip()
        if not href:
            raise ValueError(f"{name} has no href")
        return resolve(base, href)
    raise ValueError(f"{name} is not a mode the gateway reads")


def read_modes(
    base_element: Element | None, base: str, extra: Element | None = None
) -> tuple[dict[str, ModeValue], list[str]]:
    """The modes of a DERControlBase (and of ``extra``'s setGradW), and what was wrong."""
    modes: dict[str, ModeValue] = {}
    problems: list[str] = []
    children = list(base_element) if base_element is not None else []
    if extra is not None:
        children += [c for c in extra if _local(c) == "setGradW"]
    for child in children:
        name = _local(child)
        try:
            modes[name] = _mode(child, name, base)
        except (ValueError, OverflowError) as exc:
            problems.append(str(exc))
    return modes, problems


def _program(r: Reader) -> DerProgram:
    def link(name: str) -> str | None:
        found = r.link(name)
        return found.href if found else None

    return DerProgram(
        href=href_of(r),
        mrid=r.hex_text("mRID", 32),
        description=r.text("description"),
        primacy=r.integer("primacy", UINT8),
        default_href=link("DefaultDERControlLink"),
        controls_href=link("DERControlListLink"),
        curves_href=link("DERCurveListLink"),
    )


def _control(r: Reader) -> DerControl:
    element = r.element
    problems: list[str] = []
    status = r.child("EventStatus")
    interval = r.child("interval")
    start = duration = 0
    if interval is None:
        problems.append("no interval")
    else:
        try:
            start = _number(interval, "start", "interval")
            duration = _number(interval, "duration", "interval")
        except ValueError as exc:
            problems.append(str(exc))
    if duration < 0:
        problems.append(f"duration {duration} is negative")
    modes, bad = read_modes(r.child("DERControlBase"), r.base)
    problems += bad
    if not modes and not bad:
        problems.append("DERControlBase holds no mode")
    try:
        mrid = r.hex_text("mRID", 32) or href_of(r)
    except ResourceError as exc:  # answered 253 under the mRID it gave, not a list refused
        problems.append(str(exc))
        mrid = (r.text("mRID") or href_of(r))[:64]
    reply_to = (element.get("replyTo") or "").strip()
    required = (element.get("responseRequired") or "0").strip()
    return DerControl(
        href=href_of(r),
        mrid=mrid,
        description=r.text("description"),
        creation_time=r.optional_integer("creationTime", INT64) or 0,
        start=start,
        duration=duration,
        randomize_start=r.optional_integer("randomizeStart", INT32) or 0,
        randomize_duration=r.optional_integer("randomizeDuration", INT32) or 0,
        current_status=0 if status is None else int(_sub(status, "currentStatus") or 0),
        reply_to=resolve(r.base, reply_to) if reply_to else None,
        response_required=int(required, 16) if required else 0,
        modes=modes,
        problems=tuple(problems),
    )


def _curve(r: Reader) -> DerCurve:
    x_mult = r.optional_integer("xMultiplier", INT32) or 0
    y_mult = r.optional_integer("yMultiplier", INT32) or 0
    points = []
    for data in r.children("CurveData"):
        x = _number(data, "xvalue", "CurveData") * 10.0**x_mult
        y = _number(data, "yvalue", "CurveData") * 10.0**y_mult
        points.append((round(x, 6), round(y, 6)))
    return DerCurve(
        href=href_of(r),
        mrid=r.hex_text("mRID", 32),
        curve_type=r.integer("curveType", UINT8),
        points=tuple(points),
        y_ref_type=r.optional_integer("yRefType", UINT8),
    )


def parse_der_program_list(body: bytes, href: str = "") -> ListPage[DerProgram]:
    return _wrap(lambda: parse_list(body, "DERProgramList", "DERProgram", href, _program))


def parse_der_control_list(body: bytes, href: str = "") -> ListPage[DerControl]:
    return _wrap(lambda: parse_list(body, "DERControlList", "DERControl", href, _control))


def parse_der_curve_list(body: bytes, href: str = "") -> ListPage[DerCurve]:
    return _wrap(lambda: parse_list(body, "DERCurveList", "DERCurve", href, _curve))


def parse_default_control(body: bytes, href: str = "") -> DefaultControl:
    def read() -> DefaultControl:
        r = root_reader(body, "DefaultDERControl", href)
        modes, problems = read_modes(r.child("DERControlBase"), r.base, r.element)
        if problems:
            raise ResourceError(f"{r.where}: {'; '.join(problems)}")
        return DefaultControl(href_of(r), r.hex_text("mRID", 32), modes)

    return _wrap(read)


def _wrap(read: Callable[[], T]) -> T:
    """Turn a value the schema's types cannot hold into ResourceError, as sep2's parsers do."""
    try:
        return read()
    except (ValueError, OverflowError) as exc:
        raise ResourceError(str(exc)) from None
