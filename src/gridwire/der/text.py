"""Reading the profile's point names: the values an enumerated point lists in its name, the
name without them (its label), its first sentence, and the form names are compared in.

The tables write an enumeration inside the name, in one of two ways:

- one marker per value, the value in angle brackets before its name, as the DNP3 profiles for
  DER have done since AN2018: ``Curve mode type. <0> Curve disabled <1> Not applicable``
  (a value may carry a ``+``, ``<234+> Other``, meaning that value and above);
- one bracketed list of ``value=name`` pairs: ``Connection state <0=Open, 1=Closed>``.

A single bracketed value inside a sentence (``Default is <3>.``) is not an enumeration: a
marker counts only when a name follows it, and an enumeration has at least two values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-"})
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"\.(?:\s|$)")
_MARKER = re.compile(r"<\s*(-?\d{1,10})\s*\+?\s*>")
_PAIR_LIST = re.compile(r"<\s*(-?\d{1,10}\s*=[^<>]*)>")
_PAIR_SPLIT = re.compile(r"[,;]\s*(?=-?\d{1,10}\s*=)")
_PAIR = re.compile(r"\s*(-?\d{1,10})\s*=\s*(.*)", re.S)
_NAME_TRIM = " \t\r\n,;:=.-\u2013\u2014"
_LABEL_TRIM = " \t\r\n,;:=-\u2013\u2014(."
_TRAILING_WORD = re.compile(r"(?:enumeration|enumerated values|values)\s*$", re.I)


@dataclass(frozen=True, slots=True)
class EnumValue:
    """One value of an enumerated point and its name."""

    value: int
    name: str


@dataclass(frozen=True, slots=True)
class SplitName:
    """A name taken apart: its label and the values it lists (None when it lists none)."""

    label: str
    enumeration: tuple[EnumValue, ...] | None


def collapse(text: str) -> str:
    """Runs of white space made one space, ends stripped."""
    return _SPACE.sub(" ", text).strip()


def normalize(text: str) -> str:
    """The form names are compared in: case folded, every kind of dash a hyphen, white space
    collapsed, a final full stop dropped."""
    return collapse(text.translate(_DASHES).casefold()).rstrip(".").rstrip()


def first_sentence(text: str) -> str:
    """The text up to its first full stop that ends a sentence (one followed by white space or
    the end), without the stop; the whole text when it has none."""
    match = _SENTENCE_END.search(text)
    return collapse(text[: match.start()] if match else text)


def _pair_list(name: str) -> SplitName | None:
    for match in _PAIR_LIST.finditer(name):
        values: list[EnumValue] = []
        for part in _PAIR_SPLIT.split(match.group(1)):
            pair = _PAIR.fullmatch(part)
            if pair is None:
                break
            label = _value_name(pair.group(2))
            if not label:
                break
            values.append(EnumValue(int(pair.group(1)), label))
        else:
            enumeration = _distinct(values)
            if len(enumeration) >= 2:
                rest = collapse(name[: match.start()] + " " + name[match.end() :])
                return SplitName(_label(rest, name), enumeration)
    return None


def _markers(name: str) -> SplitName | None:
    markers = list(_MARKER.finditer(name))
    values: list[EnumValue] = []
    start: int | None = None
    for i, marker in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(name)
        label = _value_name(name[marker.end() : end])
        if not label:
            continue
        if start is None:
            start = marker.start()
        values.append(EnumValue(int(marker.group(1)), label))
    enumeration = _distinct(values)
    if start is None or len(enumeration) < 2:
        return None
    return SplitName(_label(name[:start], name), enumeration)


def _value_name(text: str) -> str:
    name = collapse(text).strip(_NAME_TRIM)
    if name.endswith(")") and name.count(")") > name.count("("):
        name = name[:-1].rstrip(_NAME_TRIM)
    return name


def _distinct(values: list[EnumValue]) -> tuple[EnumValue, ...]:
    seen: set[int] = set()
    kept: list[EnumValue] = []
    for value in values:
        if value.value not in seen:
            seen.add(value.value)
            kept.append(value)
    return tuple(kept)


def _label(text: str, name: str) -> str:
    label = collapse(text).rstrip(_LABEL_TRIM)
    label = _TRAILING_WORD.sub("", label).rstrip(_LABEL_TRIM)
    return label or collapse(name)


@lru_cache(maxsize=8192)
def split_name(name: str) -> SplitName:
    """The label of a name and the values it lists; a name that lists none is its own label."""
    return _pair_list(name) or _markers(name) or SplitName(collapse(name), None)
