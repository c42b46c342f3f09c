"""DnpObject as a msgspec Struct that keeps a dataclass's metadata (D221): what orjson,
msgspec, dataclasses and pydantic make of it, and the garbage collector's view of it."""

from __future__ import annotations

import dataclasses
import gc

import msgspec
import orjson
from pydantic import TypeAdapter

from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.records import DnpObject
from gridwire.dnp3.objects.table import lookup

FIELDS = ["type", "group", "variation", "index", "name", "value", "flags", "time_ms"]
FIELDS += ["synchronized", "event"]


def test_decoded_objects_are_written_alike_by_orjson_and_msgspec_and_not_tracked() -> None:
    # g30v1 points 4-5 (start-stop 4..5): flags 0x01 (ONLINE), values 42 and -1.
    g30v1 = lookup(30, 1)
    assert g30v1 is not None
    octets = b"\x01\x2a\x00\x00\x00" + b"\x01\xff\xff\xff\xff"
    objects = fixed_codec(g30v1).ranged(octets, range(4, 6), None, None)
    written = (
        b'[{"type":"ai","group":30,"variation":1,"index":4,"name":null,"value":42,'
        b'"flags":["ONLINE"],"time_ms":null,"synchronized":null,"event":false},'
        b'{"type":"ai","group":30,"variation":1,"index":5,"name":null,"value":-1,'
        b'"flags":["ONLINE"],"time_ms":null,"synchronized":null,"event":false}]'
    )
    assert orjson.dumps(objects) == written
    assert msgspec.json.encode(objects) == written
    assert not any(gc.is_tracked(o) for o in objects)
    assert [f.name for f in dataclasses.fields(DnpObject)] == FIELDS
    assert dataclasses.replace(objects[0], value=7).value == 7
    assert objects[0] == DnpObject("ai", 30, 1, 4, None, 42, ["ONLINE"], None, None, False)


def test_its_json_schema_lists_every_field_required() -> None:
    schema = TypeAdapter(DnpObject).json_schema()
    assert list(schema["properties"]) == FIELDS
    assert schema["required"] == FIELDS
