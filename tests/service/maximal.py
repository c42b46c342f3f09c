"""Worst-case messages for an operation, worked out from its parameter model's JSON Schema, so
that an operation declared later (``der.*``, ``evaluate``...) gets its own without anyone
writing them.

Each body starts from the smallest valid parameters (required fields only, the first choice
of every union) and fills ONE place to just under the message limit:

- a list with the costliest valid-looking item of each kind it takes (``"0-65535"`` for a
  range, 65535 for an index, ``"00"`` for hex text...), and with empty lists, the JSON
  value that costs the most to parse;
- an object with as many keys as fit: unknown parameters for a model, entries (keys of the
  pattern the schema asks for) for a map;
- a string (hex text stays hex text, so it passes its pattern).

    for label, params in maximal_bodies(operation.params, {"outstation": "y"}):
        ...
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

TARGET = (4 << 20) - (16 << 10)
"""A body this many octets: just under the 4 MiB message limit, leaving room for the message
form's other fields."""

# Strings tried, longest first, against a pattern: the first it takes is the item a list of
# such strings is filled with.
_SAMPLES = ("0-65535", "65535", "AO65535", "00", "a", "0")
_MAX_DEPTH = 8

Schema = dict[str, Any]
Path = tuple[str, ...]


class _Schema:
    """A JSON Schema with its ``$defs``, references resolved on the way."""

    def __init__(self, root: Schema, overrides: dict[str, Any]) -> None:
        self.defs: dict[str, Schema] = root.get("$defs", {})
        self.root = root
        self.overrides = overrides

    def resolve(self, node: Schema) -> Schema:
        while "$ref" in node:
            node = self.defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def choices(self, node: Schema) -> list[Schema]:
        """The non-null choices of a union (the node itself when it is none)."""
        node = self.resolve(node)
        options = node.get("anyOf") or node.get("oneOf")
        if options and all(
            isinstance(o, dict)
            and ("type" in o or "$ref" in o or "enum" in o or "anyOf" in o or "const" in o)
            for o in options
        ):
            picked = [self.resolve(o) for o in options if self.resolve(o).get("type") != "null"]
            return [c for o in picked for c in self.choices(o)] or [node]
        return [node]

    def minimal(self, node: Schema, name: str | None = None, depth: int = 0) -> Any:
        """The smallest valid value of ``node`` (``overrides`` by property name)."""
        if name is not None and name in self.overrides:
            return copy.deepcopy(self.overrides[name])
        node = self.choices(node)[0]
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return node["enum"][0]
        kind = _kind(node)
        if kind == "object":
            if depth > _MAX_DEPTH:
                return {}
            properties = node.get("properties", {})
            required = list(node.get("required", []))
            for option in node.get("oneOf", []):  # exactly one of (wait_for's conditions)
                required += [r for r in option.get("required", []) if r not in required]
                break
            value = {key: self.minimal(properties.get(key, {}), key, depth + 1) for key in required}
            wanted = node.get("minProperties", 0)
            entries = _entry_schema(node)
            if len(value) < wanted and entries is not None:
                keys = _keys(node, wanted)
                value.update({k: self.minimal(entries, None, depth + 1) for k in keys})
            return value
        if kind == "array":
            count = node.get("minItems", 0)
            return [self.minimal(node.get("items", {}), None, depth + 1) for _ in range(count)]
        if kind == "string":
            sample = _sample(node.get("pattern"))
            return sample * max(1, node.get("minLength", 1) // max(1, len(sample)))
        if kind == "integer":
            return int(node.get("minimum", node.get("exclusiveMinimum", -1) + 1))
        if kind == "number":
            if "minimum" in node:
                return node["minimum"]
            return node.get("exclusiveMinimum", 0) + 1
        if kind == "boolean":
            return False
        return None

    def spots(self, node: Schema, path: Path = (), depth: int = 0) -> Iterator[tuple[Path, Schema]]:
        """Every place of ``node`` that can grow: objects, arrays and strings, at any depth."""
        if depth > _MAX_DEPTH:
            return
        for choice in self.choices(node):
            kind = _kind(choice)
            if kind == "object":
                yield path, choice
                for key, child in choice.get("properties", {}).items():
                    yield from self.spots(child, (*path, key), depth + 1)
                entries = _entry_schema(choice)
                if entries is not None:  # a map: one of its entries
                    yield from self.spots(entries, (*path, _keys(choice, 1)[0]), depth + 1)
            elif kind == "array" or (
                kind == "string" and "enum" not in choice and "const" not in choice
            ):
                yield path, choice


def _kind(node: Schema) -> str | None:
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and ("properties" in node or "additionalProperties" in node):
        return "object"
    return kind if isinstance(kind, str) else None


def _sample(pattern: str | None) -> str:
    if pattern is None:
        return "y"
    for sample in _SAMPLES:
        if re.fullmatch(pattern, sample):
            return sample
    return "y"


def _entry_schema(node: Schema) -> Schema | None:
    """The schema of a map's values (additionalProperties or patternProperties)."""
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        return extra
    patterns = node.get("patternProperties")
    if patterns:
        return next(iter(patterns.values()))  # type: ignore[no-any-return]
    return None


def _keys(node: Schema, count: int) -> list[str]:
    """``count`` distinct keys, those the map's schema allows first."""
    return list(_key_stream(node, count))


def _key_stream(node: Schema, count: int) -> Iterator[str]:
    """:func:`_keys`, made as they are taken (a body takes far fewer than a room's worth)."""
    names = node.get("propertyNames", {}).get("enum")
    allowed = list(names) if names else []
    patterns = list(node.get("patternProperties", {}))
    numeric = bool(patterns) and re.fullmatch(patterns[0], "0") is not None
    made = map(str if numeric else "k{}".format, range(max(0, count - len(allowed))))
    return itertools.islice(itertools.chain(allowed, made), count)


def _set(body: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    if not path:
        assert isinstance(value, dict)
        return value
    node = body
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return body


def _size(value: Any) -> int:
    return len(orjson.dumps(value))


def _entries(keys: Iterable[str], value: Any, room: int) -> dict[str, Any]:
    """Entries ``key: value`` while they fit in ``room`` octets."""
    each = _size(value) + 4  # quotes, colon, comma
    out: dict[str, Any] = {}
    for key in keys:
        room -= len(key) + each
        if room < 0:
            break
        out[key] = value
    return out


def _fill(room: int, item: Any) -> list[Any]:
    return [item] * max(1, room // (_size(item) + 1))


def items(value: Any) -> int:
    """Array elements and object members of a JSON value, an empty one counting one (as the
    service counts a message's items)."""
    if isinstance(value, list):
        return max(len(value), 1) + sum(items(v) for v in value)
    if isinstance(value, dict):
        return max(len(value), 1) + sum(items(v) for v in value.values())
    return 0


def _grown(
    schema: _Schema, node: Schema, path: Path, room: int, most: int
) -> Iterator[tuple[str, Any]]:
    """(label, value) for each way of filling ``room`` octets at ``node``, and, for lists
    and objects, of filling it with as many valid-looking items as a message may hold
    (``most`` items more)."""
    kind = _kind(node)
    where = ".".join(path) or "params"
    if kind == "array":
        for choice in schema.choices(node.get("items", {})):
            item = schema.minimal(choice)
            if _kind(choice) == "string":
                item = _sample(choice.get("pattern"))
            elif _kind(choice) == "integer" and "maximum" in choice:
                item = choice["maximum"]
            yield f"{where}[{_size(item)}-octet items]", _fill(room, item)
            count = most // (1 + items(item))
            # count distinct copies of item (orjson makes them far sooner than deepcopy)
            yield f"{where}[{count} items]", orjson.loads(orjson.dumps([item] * count))
        yield f"{where}[empty lists]", _fill(room, [])
    elif kind == "object":
        entries = _entry_schema(node)
        base = {} if entries is not None else schema.minimal(node)
        value = schema.minimal(entries) if entries is not None else 0
        keys = (
            _key_stream(node, room // 4) if entries is not None else map("k{}".format, range(room))
        )
        label = "entries" if entries is not None else "unknown keys"
        filled = _entries(keys, value, room - _size(base))
        yield f"{where}{{{label}}}", {**base, **filled}
        count = (most - items(base)) // (1 + items(value))
        few = dict(list(filled.items())[:count])
        yield f"{where}{{{len(few)} {label}}}", {**base, **few}
    elif kind == "string":
        sample = _sample(node.get("pattern"))
        yield f"{where}[string]", sample * (room // len(sample))


def maximal_bodies(
    params: type[Any], overrides: dict[str, Any], most: int, target: int = TARGET
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, parameters) of each worst-case body of an operation's parameter model: each
    place filled to ``target`` octets, and each list and object also to ``most`` items (the
    most a message may hold), less those of the rest of the body."""
    schema = _Schema(params.model_json_schema(), overrides)
    base = schema.minimal(schema.root)
    for path, node in schema.spots(schema.root):
        body = copy.deepcopy(base)
        parent = body
        for key in path[:-1]:  # a place inside an optional object: make that object first
            parent = parent.setdefault(key, {})
        if path and path[-1] not in parent:
            parent[path[-1]] = schema.minimal(node, path[-1])
        room = target - _size(body)
        for label, value in _grown(schema, node, path, room, most - items(body) - 8):
            yield label, _set(copy.deepcopy(body), path, value)
