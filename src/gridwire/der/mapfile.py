"""The JSON map format (documented in docs/point-map.md): reading it, checked field by field, and
writing it, with fields at their defaults left out."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gridwire.der.errors import MapError
from gridwire.der.functions import CurveBlock, CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import MAX_INDEX, Address, Kind, Point, with_name_values
from gridwire.der.schedules import FIELDS as SCHEDULE_FIELDS
from gridwire.der.schedules import STATUS_INPUTS, ScheduleBlock
from gridwire.der.text import EnumValue, split_name

FORMAT = "gridwire.der-map"
VERSION = 1
MAX_FILE = 64 * 1024 * 1024


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _EnumModel(_Model):
    value: int
    name: str


class _PointModel(_Model):
    kind: Literal["BI", "BO", "AI", "AO", "CTR"]
    index: int = Field(ge=0, le=MAX_INDEX)
    name: str = Field(min_length=1)
    section: str = ""
    purpose: str = ""
    event_class: int | None = None
    mandatory: bool = False
    mandatory_1547: bool = False
    minimum: int | float | None = None
    maximum: int | float | None = None
    multiplier: float = 1.0
    offset: float = 0.0
    units: str | None = None
    states: tuple[str, str] | None = None
    enumeration: list[_EnumModel] | None = None
    iec61850: str | None = None
    associated: str | None = None
    enable: str | None = None
    block: str | None = None
    unit: int | None = None
    frozen: bool = False
    frozen_event_class: int | None = None
    value: bool | int | float | None = None


class _CurveRefModel(_Model):
    setting: str
    types: list[int] = []


class _FunctionModel(_Model):
    key: str = Field(min_length=1)
    name: str = Field(min_length=1)
    purpose: str = ""
    enable: str
    supports: str | None = None
    enabled: str | None = None
    settings: list[str] = []
    curves: list[_CurveRefModel] = []


class _CurveBlockModel(_Model):
    selector: str
    readback: str
    referenced: str | None = None
    max_points: int = Field(ge=1, le=10000)
    curves: int | None = Field(default=None, ge=1)


class _SchedulePointsModel(_Model):
    output: str
    input: str | None = None
    max_points: int = Field(ge=1, le=10000)


class _ScheduleBlockModel(_Model):
    selector: str
    readback: str | None = None
    outputs: dict[str, str] = {}
    inputs: dict[str, str] = {}
    points: _SchedulePointsModel
    ready: str | None = None
    ready_input: str | None = None
    running: str | None = None
    number: str | None = None
    schedules: int | None = Field(default=None, ge=1)


class _MapModel(_Model):
    format: Literal["gridwire.der-map"]
    version: Literal[1]
    title: str
    demo: bool = False
    source: str | None = None
    blocks: dict[str, int] = {}
    points: list[_PointModel]
    functions: list[_FunctionModel] = []
    curve_block: _CurveBlockModel | None = None
    schedule_block: _ScheduleBlockModel | None = None


_FIELDS = frozenset(
    name
    for model in (
        _EnumModel,
        _PointModel,
        _CurveRefModel,
        _FunctionModel,
        _CurveBlockModel,
        _SchedulePointsModel,
        _ScheduleBlockModel,
        _MapModel,
    )
    for name in model.model_fields
)

# -- reading --------------------------------------------------------------------------------


def loads(data: bytes | str, source: str = "map") -> PointMap:
    """A point map from JSON text; MapError names what is wrong and where."""
    try:
        model = _MapModel.model_validate_json(data)
    except ValidationError as exc:
        raise MapError(f"{source}: {_first_error(exc, data)}") from None
    try:
        return _build(model)
    except MapError as exc:
        raise MapError(f"{source}: {exc}") from None


def load_map(path: Path) -> PointMap:
    """A point map from a JSON file."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE + 1)
    except OSError as exc:
        raise MapError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE:
        raise MapError(f"{path}: larger than {MAX_FILE // (1024 * 1024)} MiB")
    return loads(data, str(path))


def _first_error(exc: ValidationError, data: bytes | str) -> str:
    errors = exc.errors(include_url=False)
    if errors[0]["type"] == "json_invalid":
        return f"not JSON ({errors[0]['msg']})"
    # A union reports once per member, under the member's name: fold those into one place.
    by_place: dict[tuple[str | int, ...], list[str]] = {}
    for error in errors:
        loc = error["loc"]
        extra = error["type"] == "extra_forbidden"
        place = tuple(
            p
            for i, p in enumerate(loc)
            if isinstance(p, int) or p in _FIELDS or (extra and i == len(loc) - 1)
        )
        messages = by_place.setdefault(place, [])
        if error["msg"] not in messages:
            messages.append(error["msg"])
    loc, messages = next(iter(by_place.items()))
    where = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            where += f"[{part}]"
            if i == 1 and loc[0] == "points":
                where += _point_hint(data, part)
        else:
            where += ("." if where else "") + part
    more = f" (and {len(by_place) - 1} more)" if len(by_place) > 1 else ""
    return f"{where or 'the map'}: {', or '.join(messages)}{more}"


def _point_hint(data: bytes | str, i: int) -> str:
    """`` (AO7)`` for the i-th point of a map that is JSON, to say which point is wrong."""
    try:
        entry = orjson.loads(data)["points"][i]
        return f" ({entry['kind']}{entry['index']})"
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return ""


def _address(text: str, kind: Kind, where: str) -> Address:
    address = Address.parse(text)
    if address is None or address.kind is not kind:
        raise MapError(f"{where}: '{text}' is not a {kind.value} address such as {kind.value}12")
    return address


def _optional_index(text: str | None, kind: Kind, where: str) -> int | None:
    return None if text is None else _address(text, kind, where).index


def _point(model: _PointModel) -> Point:
    kind = Kind(model.kind)
    where = str(Address(kind, model.index))
    associated = None
    if model.associated is not None:
        associated = Address.parse(model.associated)
        if associated is None:
            raise MapError(f"{where}.associated: '{model.associated}' is not an address")
    enumeration = None
    if model.enumeration is not None:
        enumeration = tuple(EnumValue(item.value, item.name) for item in model.enumeration)
    point = Point(
        kind=kind,
        index=model.index,
        name=model.name,
        section=model.section,
        purpose=model.purpose,
        event_class=model.event_class,
        mandatory=model.mandatory,
        mandatory_1547=model.mandatory_1547,
        minimum=model.minimum,
        maximum=model.maximum,
        multiplier=model.multiplier,
        offset=model.offset,
        units=model.units,
        states=model.states,
        enumeration=enumeration,
        iec61850=model.iec61850,
        associated=associated,
        enable=_optional_index(model.enable, Kind.BO, f"{where}.enable"),
        block=model.block,
        unit=model.unit,
        frozen=model.frozen,
        frozen_event_class=model.frozen_event_class,
        value=model.value,
    )
    return with_name_values(point)


def _function(model: _FunctionModel) -> DerFunction:
    where = f"function '{model.key}'"
    settings = tuple(_address(s, Kind.AO, f"{where}.settings").index for s in model.settings)
    curves = tuple(
        CurveRef(_address(ref.setting, Kind.AO, f"{where}.curves").index, tuple(ref.types))
        for ref in model.curves
    )
    return DerFunction(
        key=model.key,
        name=model.name,
        purpose=model.purpose,
        enable=_address(model.enable, Kind.BO, f"{where}.enable").index,
        supports=_optional_index(model.supports, Kind.BI, f"{where}.supports"),
        enabled=_optional_index(model.enabled, Kind.BI, f"{where}.enabled"),
        settings=settings,
        curves=curves,
    )


def _build(model: _MapModel) -> PointMap:
    curve_block = None
    if model.curve_block is not None:
        block = model.curve_block
        curve_block = CurveBlock(
            selector=_address(block.selector, Kind.AO, "curve_block.selector").index,
            readback=_address(block.readback, Kind.AI, "curve_block.readback").index,
            referenced=_optional_index(block.referenced, Kind.BI, "curve_block.referenced"),
            max_points=block.max_points,
            curves=block.curves,
        )
    return PointMap(
        (_point(p) for p in model.points),
        schedule_block=_schedule_block(model.schedule_block),
        title=model.title,
        demo=model.demo,
        source=model.source,
        blocks=model.blocks,
        functions=[_function(f) for f in model.functions],
        curve_block=curve_block,
    )


def _schedule_block(model: _ScheduleBlockModel | None) -> ScheduleBlock | None:
    if model is None:
        return None
    where = "schedule_block"

    def named(
        given: dict[str, str], kind: Kind, known: tuple[str, ...]
    ) -> tuple[tuple[str, int], ...]:
        for name in given:
            if name not in known:
                raise MapError(f"{where}: no field {name!r} (fields: {', '.join(known)})")
        return tuple(
            (n, _address(given[n], kind, f"{where}.{n}").index) for n in known if n in given
        )

    return ScheduleBlock(
        selector=_address(model.selector, Kind.AO, f"{where}.selector").index,
        readback=_optional_index(model.readback, Kind.AI, f"{where}.readback"),
        outputs=named(model.outputs, Kind.AO, SCHEDULE_FIELDS),
        inputs=named(model.inputs, Kind.AI, SCHEDULE_FIELDS + STATUS_INPUTS),
        point_output=_address(model.points.output, Kind.AO, f"{where}.points.output").index,
        point_input=_optional_index(model.points.input, Kind.AI, f"{where}.points.input"),
        max_points=model.points.max_points,
        ready=_optional_index(model.ready, Kind.BO, f"{where}.ready"),
        ready_input=_optional_index(model.ready_input, Kind.BI, f"{where}.ready_input"),
        running=_optional_index(model.running, Kind.AI, f"{where}.running"),
        number=_optional_index(model.number, Kind.AI, f"{where}.number"),
        schedules=model.schedules,
    )


def schedule_block_dict(block: ScheduleBlock) -> dict[str, Any]:
    """A schedule block as the JSON map writes it."""

    def at(kind: str, index: int | None) -> str | None:
        return None if index is None else f"{kind}{index}"

    out: dict[str, Any] = {"selector": f"AO{block.selector}", "readback": at("AI", block.readback)}
    out["outputs"] = {name: f"AO{i}" for name, i in block.outputs}
    out["inputs"] = {name: f"AI{i}" for name, i in block.inputs}
    out["points"] = {
        "output": f"AO{block.point_output}",
        "input": at("AI", block.point_input),
        "max_points": block.max_points,
    }
    for key, kind in (("ready", "BO"), ("ready_input", "BI"), ("running", "AI"), ("number", "AI")):
        out[key] = at(kind, getattr(block, key))
    out["schedules"] = block.schedules
    return out


# -- writing --------------------------------------------------------------------------------

_DEFAULTS: dict[str, Any] = {
    "section": "",
    "purpose": "",
    "event_class": None,
    "mandatory": False,
    "mandatory_1547": False,
    "minimum": None,
    "maximum": None,
    "multiplier": 1.0,
    "offset": 0.0,
    "units": None,
    "states": None,
    "iec61850": None,
    "associated": None,
    "enable": None,
    "block": None,
    "unit": None,
    "frozen": False,
    "frozen_event_class": None,
    "value": None,
}


def point_dict(point: Point) -> dict[str, Any]:
    """A point as the JSON map writes it."""
    out: dict[str, Any] = {"kind": point.kind.value, "index": point.index, "name": point.name}
    for field, default in _DEFAULTS.items():
        value = getattr(point, field)
        if value == default and type(value) is type(default):
            continue
        if field == "associated":
            value = str(value)
        elif field == "enable":
            value = f"BO{value}"
        elif field == "states":
            value = list(value)
        out[field] = value
    if point.enumeration is not None and point.enumeration != split_name(point.name).enumeration:
        out["enumeration"] = [{"value": e.value, "name": e.name} for e in point.enumeration]
    return out


def _function_dict(function: DerFunction) -> dict[str, Any]:
    out: dict[str, Any] = {"key": function.key, "name": function.name}
    if function.purpose:
        out["purpose"] = function.purpose
    out["enable"] = f"BO{function.enable}"
    if function.supports is not None:
        out["supports"] = f"BI{function.supports}"
    if function.enabled is not None:
        out["enabled"] = f"BI{function.enabled}"
    out["settings"] = [f"AO{i}" for i in function.settings]
    if function.curves:
        out["curves"] = [
            {"setting": f"AO{r.setting}", "types": list(r.types)} for r in function.curves
        ]
    return out


def to_dict(point_map: PointMap) -> dict[str, Any]:
    """A point map as the JSON map format holds it."""
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION, "title": point_map.title}
    if point_map.demo:
        out["demo"] = True
    if point_map.source is not None:
        out["source"] = point_map.source
    if point_map.blocks:
        out["blocks"] = dict(point_map.blocks)
    out["points"] = [point_dict(p) for p in point_map.points]
    out["functions"] = [_function_dict(f) for f in point_map.functions]
    block = point_map.curve_block
    if block is not None:
        out["curve_block"] = {
            "selector": f"AO{block.selector}",
            "readback": f"AI{block.readback}",
            "referenced": None if block.referenced is None else f"BI{block.referenced}",
            "max_points": block.max_points,
            "curves": block.curves,
        }
    if point_map.schedule_block is not None:
        out["schedule_block"] = schedule_block_dict(point_map.schedule_block)
    return out


def dumps(point_map: PointMap) -> bytes:
    return orjson.dumps(to_dict(point_map), option=orjson.OPT_INDENT_2) + b"\n"


def save_map(point_map: PointMap, path: Path) -> None:
    """Write a map to ``path`` (its folder made if needed), replacing any file there whole."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(dumps(point_map))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise MapError(f"{path}: cannot write it ({exc.strerror or exc})") from None
