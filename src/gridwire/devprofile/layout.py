"""The layout of a Device Profile document (the result of ``der.document``), made from element names alone so that any edition and any
vendor's document is laid out.

- ``title``: the header's ``documentName``, else the device's name.
- ``facts``: the root's attributes, the header's leaf children, and the device's vendor,
  name, hardware and software versions and document version (from ``referenceDevice``'s
  configuration, each its current value).
- ``sections``, in document order: the header (each kind of record it holds, such as the
  revision history, as a table of records), then each part of ``referenceDevice``
  (configuration, database, implementation table, data points list, and any other), then
  any other part of the root.

Inside a part, an element whose children are settings (a setting has ``capabilities``,
``currentValue`` or ``methods``) is a settings table: a row per child, columns Item,
Capabilities, Current value, Methods (when a row has any) and Stated (what else a row says).
An element whose children state only values (``<fixed/>``, a leaf with text), none of them
a setting, is a table of Item and Stated. A list of records (``dataPoints``, the
implementation table's ``table``, ``files``, or any element of two or more children of one
name that have children of their own) is a table with a row per entry and a column per
property (child or attribute) the entries carry. Anything else is descended into, its tables
titled by its label; an empty element among such groups (``<masterConfig/>``) is a table of
its own with no rows, since the document states nothing of it.

A cell is text; it states several things on separate lines, and is empty where the document
says nothing. Codes are shown with their names (``1 READ``, ``0x06 all``, ``Class 1``).
Tables wider than :data:`~gridwire.devprofile.limits.MAX_COLUMNS` columns, or more than
:data:`~gridwire.devprofile.limits.MAX_CELLS` cells in all
(a fact counts as two: its label and its value), are refused (RequestError naming the rule)
before they are filled.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from gridwire.devprofile.codes import choice, coded, is_event_class
from gridwire.devprofile.errors import RefusedDocument
from gridwire.devprofile.labels import label
from gridwire.devprofile.limits import MAX_CELLS, MAX_COLUMNS

NOTICE: Final = (
    "Laid out by gridwire from the document's own element names; the arrangement is "
    "gridwire's, not that of the DNP Users Group's style sheets."
)

SETTING_PARTS: Final = ("capabilities", "currentValue", "methods")
RECORD_LISTS: Final = frozenset({"dataPoints", "table", "files"})
_GENERIC: Final = frozenset({"configuration", "dataPoints", "files", "points"})
_PLAIN: Final = frozenset({"value", "functionCode", "qualifierCode"})
_DEVICE_FACTS: Final = (
    "vendorName",
    "deviceName",
    "hardwareVersion",
    "softwareVersion",
    "documentVersionNumber",
)
_HEADER, _DEVICE, _FACTS = "documentHeader", "referenceDevice", "Facts"


@dataclass(slots=True)
class Table:
    """A table of text: ``rows`` of as many cells as ``columns``."""

    title: str
    columns: list[str]
    rows: list[list[str]]


@dataclass(slots=True)
class Section:
    title: str
    tables: list[Table]


@dataclass(slots=True)
class Fact:
    label: str
    value: str


@dataclass(slots=True)
class Layout:
    """A Device Profile document laid out: what ``der.document`` answers."""

    title: str
    notice: str
    facts: list[Fact]
    sections: list[Section]


class _Budget:
    """The cells laid out so far, against :data:`MAX_CELLS`."""

    def __init__(self) -> None:
        self.cells = 0

    def take(self, title: str, rows: int, columns: int) -> None:
        if columns > MAX_COLUMNS:
            raise RefusedDocument(
                f"Device Profile document refused: table {title!r} would have {columns} "
                f"columns (at most {MAX_COLUMNS})"
            )
        self.cells += rows * max(columns, 1)
        if self.cells > MAX_CELLS:
            raise RefusedDocument(
                f"Device Profile document refused: its facts and tables would hold more than "
                f"{MAX_CELLS:,} cells (the limit)"
            )


# -- text -------------------------------------------------------------------------------------


def text_of(element: ET.Element) -> str:
    """An element's own text, white space collapsed."""
    return " ".join((element.text or "").split())


def _attributes(element: ET.Element) -> str:
    return "".join(f" ({label(k)}: {v})" for k, v in element.attrib.items())


def _leaf_line(leaf: ET.Element, parent: str) -> str:
    text = text_of(leaf)
    attributes = _attributes(leaf)
    if not text:
        return choice(leaf.tag, parent) + attributes
    if leaf.tag in _PLAIN or is_event_class(leaf.tag):
        return coded(leaf.tag, text) + attributes
    return f"{label(leaf.tag)}: {coded(leaf.tag, text)}{attributes}"


def lines_of(element: ET.Element, setting: str = "") -> list[str]:
    """What an element states, a line per thing: its attributes, its own text, then each
    child (a choice such as ``<always/>`` by its label, a value as ``Label: value``, a
    nested element as its label and what it states, on one line) and any text after it.
    ``setting`` names the setting whose capabilities or current value the element is, which
    says what a choice's code means."""
    lines = [f"{label(k)}: {v}" for k, v in element.attrib.items()]
    if own := text_of(element):
        lines.append(own)
    for child in element:
        if len(child) == 0:
            lines.append(_leaf_line(child, setting or element.tag))
        else:
            lines.append(f"{label(child.tag)}: " + "; ".join(lines_of(child)))
        if tail := " ".join((child.tail or "").split()):
            lines.append(tail)
    return lines


def cell(element: ET.Element, setting: str = "") -> str:
    """An element as one cell: a leaf's text (with its code's name, then its attributes),
    else its lines."""
    if len(element) == 0:
        text = text_of(element)
        if not element.attrib:
            return coded(element.tag, text)
        if text:
            return coded(element.tag, text) + _attributes(element)
    return "\n".join(lines_of(element, setting))


def _joined(cells: Iterable[str]) -> str:
    return "\n".join(c for c in cells if c)


# -- tables -----------------------------------------------------------------------------------


def is_setting(element: ET.Element) -> bool:
    return any(child.tag in SETTING_PARTS for child in element)


def _is_record_list(element: ET.Element) -> bool:
    if element.tag in RECORD_LISTS:
        return True
    if len(element) < 2:
        return False
    first = element[0].tag
    return all(child.tag == first and len(child) > 0 for child in element)


def _is_empty(element: ET.Element) -> bool:
    return len(element) == 0 and not element.attrib and not text_of(element)


def _states_values(element: ET.Element) -> bool:
    return all(len(child) == 0 for child in element)


def _title(child: ET.Element, parent: ET.Element, parent_title: str) -> str:
    if len(parent) == 1 or child.tag == "table":
        return parent_title
    if child.tag in _GENERIC:
        return f"{parent_title}: {label(child.tag)}"
    return label(child.tag)


def _expanded(
    rows: list[ET.Element | tuple[str, str]], prefix: str = ""
) -> Iterable[tuple[str, ET.Element | str]]:
    """Each row with its Item; a row that is not a setting but holds settings (broadcast by
    function code: write clock, clear restart...) stands for a row per child."""
    for row in rows:
        if isinstance(row, tuple):
            yield prefix + label(row[0]), row[1]
        elif not is_setting(row) and not row.attrib and any(is_setting(c) for c in row):
            yield from _expanded(list(row), f"{prefix}{label(row.tag)}: ")
        else:
            yield prefix + label(row.tag), row


def _settings_table(title: str, rows: list[ET.Element | tuple[str, str]], budget: _Budget) -> Table:
    laid: list[tuple[str, str, str, str, str]] = []
    settings = False
    for item, row in _expanded(rows):
        if not isinstance(row, ET.Element):
            laid.append((item, "", "", "", row))
            continue
        parts: dict[str, list[str]] = {name: [] for name in SETTING_PARTS}
        stated: list[str] = [f"{label(k)}: {v}" for k, v in row.attrib.items()]
        stated.append(coded(row.tag, text_of(row)))  # its own text, if any
        for child in row:
            if child.tag in parts:
                settings = True
                parts[child.tag].append(cell(child, row.tag) if len(child) else text_of(child))
            elif len(child) == 0:
                stated.append(_leaf_line(child, row.tag))
            else:
                stated.append(f"{label(child.tag)}: " + "; ".join(lines_of(child)))
        laid.append(
            (
                item,
                _joined(parts["capabilities"]),
                _joined(parts["currentValue"]),
                _joined(parts["methods"]),
                _joined(stated),
            )
        )
    keep = [True, settings, settings, any(r[3] for r in laid), True]
    names = ["Item", "Capabilities", "Current value", "Methods", "Stated"]
    columns = [n for n, k in zip(names, keep, strict=True) if k]
    budget.take(title, len(laid), len(columns))
    return Table(title, columns, [[c for c, k in zip(r, keep, strict=True) if k] for r in laid])


def _states_itself(entry: ET.Element) -> bool:
    """Whether an entry has a Value of its own: its text, or nothing else to show."""
    return bool(text_of(entry)) or (len(entry) == 0 and not entry.attrib)


def record_table(title: str, entries: list[ET.Element], budget: _Budget) -> Table:
    """A row per entry, a column per property (attribute or child) the entries carry; an
    Entry column first when the entries are of more than one kind."""
    keys: dict[str, None] = {}
    kinds: dict[str, None] = {}
    itself = [_states_itself(entry) for entry in entries]
    for entry, own in zip(entries, itself, strict=True):
        kinds[entry.tag] = None
        for name in entry.attrib:
            keys["@" + name] = None
        for child in entry:
            keys[child.tag] = None
        if own:
            keys["#"] = None
    mixed = len(kinds) > 1
    columns = (["Entry"] if mixed else []) + [
        "Value" if k == "#" else label(k.lstrip("@")) for k in keys
    ]
    budget.take(title, len(entries), len(columns))
    position = {key: i for i, key in enumerate(keys)}
    rows: list[list[str]] = []
    for entry, own in zip(entries, itself, strict=True):
        cells: list[list[str]] = [[] for _ in keys]
        for name, value in entry.attrib.items():
            cells[position["@" + name]].append(value)
        for child in entry:
            cells[position[child.tag]].append(cell(child))
        if own:
            cells[position["#"]].append(coded(entry.tag, text_of(entry)))
        row = [_joined(c) for c in cells]
        rows.append([label(entry.tag), *row] if mixed else row)
    return Table(title, columns, rows)


def _tables(element: ET.Element, title: str, budget: _Budget) -> list[Table]:
    """The tables of a part or of an element within one, in document order."""
    if _is_record_list(element):  # a part that is itself a list of records
        return [record_table(title, list(element), budget)]
    tables: list[Table] = []
    rows: list[ET.Element | tuple[str, str]] = list(element.attrib.items())
    row_at = 0 if rows else None
    settings = is_setting(element) or any(is_setting(child) for child in element)
    groups = not settings and not _states_values(element)
    if own := text_of(element):  # a leaf's value, or text among elements (kept apart)
        rows.append(element if len(element) == 0 else (element.tag, own))
        row_at = 0
    for child in element:
        if _is_record_list(child):
            tables.append(record_table(_title(child, element, title), list(child), budget))
        elif groups and _is_empty(child):  # <masterConfig/> among groups: a group, stated empty
            tables.append(Table(_title(child, element, title), [], []))
        elif settings or is_setting(child) or _states_values(child):
            if row_at is None:
                row_at = len(tables)
            rows.append(child)
        else:
            tables.extend(_tables(child, _title(child, element, title), budget))
    if rows and row_at is not None:
        tables.insert(row_at, _settings_table(title, rows, budget))
    return tables


# -- the document -----------------------------------------------------------------------------


def _header(header: ET.Element, budget: _Budget) -> tuple[list[Fact], Section | None]:
    leaves = [c for c in header if len(c) == 0 and (text_of(c) or c.attrib)]
    budget.take(_FACTS, len(leaves), 2)
    facts = [Fact(label(child.tag), cell(child)) for child in leaves]
    kinds: dict[str, list[ET.Element]] = {}
    for child in header:
        if len(child) > 0:
            kinds.setdefault(child.tag, []).append(child)
    tables = [record_table(label(tag), entries, budget) for tag, entries in kinds.items()]
    section = Section(label(header.tag), tables) if tables else None
    return facts, section


def _device_facts(device: ET.Element | None) -> list[Fact]:
    configuration = device.find("configuration") if device is not None else None
    if configuration is None:
        return []
    facts: list[Fact] = []
    for name in _DEVICE_FACTS:
        found = configuration.find(f".//{name}")
        if found is None:
            continue
        current = found.find("currentValue")
        value = cell(current) if current is not None else cell(found)
        if value:
            facts.append(Fact(label(name), value))
    return facts


def lay_out(root: ET.Element) -> Layout:
    """The layout of a document read by :func:`gridwire.devprofile.reader.read_document`;
    RequestError when its tables would be wider or larger than the layout allows."""
    budget = _Budget()
    budget.take(_FACTS, len(root.attrib), 2)  # facts are cells too: a label and a value
    facts = [Fact(label(k), v) for k, v in root.attrib.items()]
    sections: list[Section] = []
    header = root.find(_HEADER)
    device = root.find(_DEVICE)
    for part in root:
        if part.tag == _HEADER and part is header:
            header_facts, section = _header(part, budget)
            facts.extend(header_facts)
            if section is not None:
                sections.append(section)
        elif part.tag == _DEVICE and part is device:
            sections.extend(
                Section(label(child.tag), _tables(child, label(child.tag), budget))
                for child in part
            )
        else:
            sections.append(Section(label(part.tag), _tables(part, label(part.tag), budget)))
    device_facts = _device_facts(device)
    budget.take(_FACTS, len(device_facts), 2)
    facts.extend(device_facts)
    name = header.find("documentName") if header is not None else None
    title = text_of(name) if name is not None else ""
    if not title:
        title = next((f.value for f in facts if f.label == label("deviceName")), "")
    return Layout(title or "Device Profile", NOTICE, facts, sections)
