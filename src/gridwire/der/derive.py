"""Finding the DER functions and the curve block in tables that list only points (a workbook).

The workbook has no column for "this point belongs to that function", so the loader reads the
profile's conventions from the names:

- an enable output is a BO whose name starts with "Enable"; it makes a function when a BI
  named "Supports ..." with the same rest of the name (ignoring case, spacing and punctuation)
  exists, or else the one "Supports ..." BI of the same purpose does;
- the function's name is the enable output's first sentence without "Enable" and a final
  "Mode" or "Function"; its key is the name in lower case with each run of other characters
  a hyphen (``volt-var``); its enabled input is the enable output's associated BI;
- its settings are the AOs of the enable output's purpose when no other enable output shares
  that purpose, else the AOs whose section names the function;
- a setting whose name speaks of a curve index or number takes the curve types (values of the
  curve block's type point) whose names begin with the function's name;
- the curve block's selector is the lowest AO whose first sentence speaks of a curve and of
  selecting; its readback is its associated AI; the window runs while X and Y outputs and
  inputs follow; the referenced indicator is a BI that speaks of a curve being referenced.

A function or curve block these rules do not find is simply absent from the map; the JSON map
can be edited to add it (docs/point-map.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gridwire.der.functions import CURVE_FIRST_X, CURVE_TYPE, CurveBlock, CurveRef, DerFunction
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import EnumValue, first_sentence, normalize

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_SYNONYMS = (("voltage", "volt"), ("frequency", "freq"), ("vars", "var"), ("watts", "watt"))
_FILLER = re.compile(r"\b(?:modes?|control|function|curve)\b")


def _squash(text: str) -> str:
    return _NOT_ALNUM.sub("", normalize(text))


def _after(point: Point, *prefixes: str) -> str | None:
    """The first sentence after one of ``prefixes`` (squashed), or None when it starts with
    none of them."""
    sentence = normalize(first_sentence(point.name))
    for prefix in prefixes:
        if sentence.startswith(prefix):
            return _squash(sentence[len(prefix) :])
    return None


def _function_name(enable: Point) -> str:
    name = first_sentence(enable.name)
    name = re.sub(r"^\s*enable\s+(?:the\s+)?", "", name, flags=re.I)
    name = re.sub(r"\s+(?:mode|function)\s*$", "", name, flags=re.I)
    return name.strip() or first_sentence(enable.name)


def curve_key(text: str) -> str:
    key = normalize(text)
    for long, short in _SYNONYMS:
        key = key.replace(long, short)
    return _NOT_ALNUM.sub("", _FILLER.sub(" ", key))


def _slug(name: str, taken: set[str]) -> str:
    """The key of a function named ``name``: lower case, each run of other characters one
    hyphen (``Volt-VAr`` is ``volt-var``); ``-2``, ``-3``... after a key already taken."""
    base = re.sub(r"[^a-z0-9]+", "-", normalize(name)).strip("-") or "function"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    taken.add(key)
    return key


def derive_functions(
    points: Sequence[Point], curve_types: Iterable[EnumValue] = ()
) -> list[DerFunction]:
    """The DER functions the points' names and purposes describe."""
    bis = [p for p in points if p.kind is Kind.BI]
    aos = [p for p in points if p.kind is Kind.AO]
    enables = [p for p in points if p.kind is Kind.BO and _after(p, "enable") is not None]
    supports: dict[str, Point] = {}
    for bi in bis:
        rest = _after(bi, "supports", "support")
        if rest:
            supports.setdefault(rest, bi)
    types = list(curve_types)
    taken: set[str] = set()
    functions = []
    for enable in enables:
        support = supports.get(_after(enable, "enable") or "")
        if support is None and enable.purpose:
            same = [b for b in bis if b.purpose == enable.purpose and _after(b, "support")]
            support = same[0] if len(same) == 1 else None
        if support is None:
            continue
        name = _function_name(enable)
        settings = _settings(enable, name, enables, aos)
        enabled = enable.associated.index if enable.associated is not None else None
        functions.append(
            DerFunction(
                key=_slug(name, taken),
                name=name,
                purpose=enable.purpose or name,
                enable=enable.index,
                supports=support.index,
                enabled=enabled,
                settings=tuple(s.index for s in settings),
                curves=_curve_refs(name, settings, types),
            )
        )
    return functions


def _settings(enable: Point, name: str, enables: list[Point], aos: list[Point]) -> list[Point]:
    if enable.purpose and sum(e.purpose == enable.purpose for e in enables) == 1:
        return [p for p in aos if p.purpose == enable.purpose]
    wanted = _squash(name)
    return [p for p in aos if wanted and wanted in _squash(p.section)]


def _curve_refs(name: str, settings: list[Point], types: list[EnumValue]) -> tuple[CurveRef, ...]:
    key = curve_key(name)
    taken = tuple(t.value for t in types if key and curve_key(t.name).startswith(key))
    refs = []
    for setting in settings:
        words = normalize(first_sentence(setting.name))
        if "curve" in words and ("index" in words or "number" in words):
            refs.append(CurveRef(setting.index, taken))
    return tuple(refs)


def derive_curve_block(points: Sequence[Point]) -> CurveBlock | None:
    """The curve block the points lay out, or None when they lay out none."""
    by_address = {p.address: p for p in points}
    selectors = [
        p
        for p in points
        if p.kind is Kind.AO
        and "curve" in (words := normalize(first_sentence(p.name)))
        and "select" in words
    ]
    for selector in sorted(selectors, key=lambda p: p.index):
        readback = _readback(selector, points)
        if readback is None:
            continue
        layout = range(CURVE_TYPE, CURVE_FIRST_X)
        if not all(
            Address(Kind.AO, selector.index + i) in by_address
            and Address(Kind.AI, readback + i) in by_address
            for i in layout
        ):
            continue
        pairs = 0
        while all(
            Address(kind, start + CURVE_FIRST_X + 2 * pairs + axis) in by_address
            for kind, start in ((Kind.AO, selector.index), (Kind.AI, readback))
            for axis in (0, 1)
        ):
            pairs += 1
        if pairs == 0:
            continue
        referenced = [
            p.index
            for p in points
            if p.kind is Kind.BI and "curve" in (n := normalize(p.name)) and "referenced" in n
        ]
        return CurveBlock(
            selector=selector.index,
            readback=readback,
            referenced=referenced[0] if referenced else None,
            max_points=pairs,
        )
    return None


def _readback(selector: Point, points: Sequence[Point]) -> int | None:
    if selector.associated is not None and selector.associated.kind is Kind.AI:
        return selector.associated.index
    for point in points:
        if point.kind is Kind.AI and point.associated == selector.address:
            return point.index
    return None
