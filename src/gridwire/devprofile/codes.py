"""Codes a Device Profile states as bare numbers or words, shown with their names beside them:
function codes (``1 READ``), qualifier codes (``0x06 all``), event classes (``Class 1``) and
control status codes (``<code4/>`` among the codes supported: ``4 NOT_SUPPORTED``).

Function code names are IEEE 1815-2012's, as :class:`gridwire.dnp3.app.functions.FunctionCode`
holds them; qualifier names say what the code's range field and index prefix are (IEEE
1815-2012 4.2.2.7), in our own words.
"""

from __future__ import annotations

import re
from typing import Final

from gridwire.devprofile.labels import label
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.controls import CommandStatus

QUALIFIER_NAMES: Final[dict[int, str]] = {
    0x00: "8-bit start-stop",
    0x01: "16-bit start-stop",
    0x02: "32-bit start-stop",
    0x03: "8-bit virtual start-stop",
    0x04: "16-bit virtual start-stop",
    0x05: "32-bit virtual start-stop",
    0x06: "all",
    0x07: "8-bit count",
    0x08: "16-bit count",
    0x09: "32-bit count",
    0x0B: "free-format, 8-bit count",
    0x17: "8-bit count, 8-bit index prefix",
    0x18: "8-bit count, 16-bit index prefix",
    0x19: "8-bit count, 32-bit index prefix",
    0x27: "16-bit count, 8-bit index prefix",
    0x28: "16-bit count, 16-bit index prefix",
    0x29: "16-bit count, 32-bit index prefix",
    0x37: "32-bit count, 8-bit index prefix",
    0x38: "32-bit count, 16-bit index prefix",
    0x39: "32-bit count, 32-bit index prefix",
    0x5B: "free-format, 16-bit object size prefix",
}

CLASS_WORDS: Final[dict[str, int]] = {"none": 0, "zero": 0, "one": 1, "two": 2, "three": 3}
"""Event classes as the documents write them."""

CLASS_WORD_OF: Final[dict[int, str]] = {0: "none", 1: "one", 2: "two", 3: "three"}

_STATUS_CODE = re.compile(r"code(\d{1,3})")


def _number(text: str) -> int | None:
    text = text.strip()
    try:
        return int(text, 16) if text[:2].lower() == "0x" else int(text)
    except ValueError:
        return None


def function_code(text: str) -> str:
    """``1`` -> ``1 READ``; text that is not a known code is shown as it stands."""
    number = _number(text)
    if number is None:
        return text
    try:
        return f"{number} {FunctionCode(number).name}"
    except ValueError:
        return text


def qualifier_code(text: str) -> str:
    """``6`` (or ``0x06``) -> ``0x06 all``; text that is not a known code as it stands."""
    number = _number(text)
    if number is None or number not in QUALIFIER_NAMES:
        return text
    return f"0x{number:02X} {QUALIFIER_NAMES[number]}"


def event_class(text: str) -> str:
    """``one`` -> ``Class 1``, ``none`` -> ``None``; other text as it stands."""
    number = CLASS_WORDS.get(text.strip().casefold())
    if number is None:
        return text
    return "None" if number == 0 else f"Class {number}"


def is_event_class(name: str) -> bool:
    """Whether an element states an event class (``changeEventClass``, ``eventClass``...)."""
    return name.endswith(("EventClass", "eventClass"))


def choice(name: str, parent: str) -> str:
    """An empty element chosen among its parent's options, shown by the code it names
    (``<one/>`` under ``changeEventClass``: ``Class 1``; ``<code4/>`` under
    ``controlStatusCodesSupported``: ``4 NOT_SUPPORTED``), else by its label."""
    if is_event_class(parent) and name.casefold() in CLASS_WORDS:
        return event_class(name)
    status = _STATUS_CODE.fullmatch(name)
    if status is not None and parent.endswith("StatusCodesSupported"):
        number = int(status.group(1))
        if number <= 255:
            return f"{number} {CommandStatus.name_of(number)}"
    return label(name)


def coded(name: str, text: str) -> str:
    """A leaf's text shown with the name of the code it states, by the element's name."""
    if name == "functionCode":
        return function_code(text)
    if name == "qualifierCode":
        return qualifier_code(text)
    if is_event_class(name):
        return event_class(text)
    return text
