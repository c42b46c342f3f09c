"""The schedule block found from the tables' names and stated in the JSON map: against EPRI's
AN2018-001 point list (../shared/data/an2018, third-party: skipped when absent), where the
inputs do not line up with the outputs (AI578/AI579 sit between the repeat units and the
number of points, which has no mirror of its own), and the map's own form, read back and
checked."""

from __future__ import annotations

import csv
import dataclasses
from typing import Any

import orjson
import pytest

from gridwire.der import demo_map, dumps, loads
from gridwire.der.errors import MapError
from gridwire.der.points import Address, Kind, Point
from gridwire.der.schedules import ScheduleBlock, derive_schedule_block
from tests.support.shared import shared_file


def _epri_points() -> list[Point]:
    path = shared_file("data/an2018/epri-an2018-points.csv")
    points = []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["type"] not in ("AO", "AI", "BO", "BI"):
                continue
            kind, mapped = Kind(row["type"]), row["mapped_input"]
            associated = None
            if mapped and mapped != "65535":
                associated = Address(Kind.AI if kind is Kind.AO else Kind.BI, int(mapped))
            points.append(Point(kind, int(row["index"]), row["name"], associated=associated))
    return points


def test_the_block_from_an2018s_names() -> None:
    block = derive_schedule_block(_epri_points())
    assert block == ScheduleBlock(
        selector=461,  # ScheduleEditorSelector
        readback=570,  # its mapped input
        outputs=(
            ("identity", 462),
            ("priority", 463),
            ("type", 464),
            ("start_date", 465),
            ("start_time", 466),
            ("repeat_interval", 467),
            ("repeat_units", 468),
            ("count", 469),  # mapped input 65535: none
        ),
        inputs=(
            ("identity", 571),
            ("priority", 572),
            ("type", 573),
            ("start_date", 574),
            ("start_time", 575),
            ("repeat_interval", 576),
            ("repeat_units", 577),
            ("count", 580),  # "Selected Schedule Number of Points", found by name
            ("status", 579),
            ("validation", 578),
        ),
        point_output=470,  # SelectedSchedulePoint1TimeOffset, 100 pairs to AO669
        point_input=581,  # "Selected Schedule Point [1] Time Offset", to AI780
        max_points=100,
        ready=42,  # "Set Selected Schedule Ready"
        ready_input=108,
        running=569,  # "Running Schedule Index"
        number=24,  # "Number of System Schedules"
    )
    assert block.offset_output(100) == 668 and block.offset_input(100) == 779
    assert block.mirror_input(469) == 580 and block.mirror_input(471) == 582


def test_no_block_without_a_selector_or_points() -> None:
    points = _epri_points()
    assert (
        derive_schedule_block([p for p in points if p.index != 461 or p.kind is not Kind.AO])
        is None
    )
    assert (
        derive_schedule_block([p for p in points if not (p.kind is Kind.AO and p.index == 470)])
        is None
    )


def test_the_demo_maps_block_derives_from_its_names_and_survives_the_json_map() -> None:
    demo = demo_map()
    assert demo.schedule_block is not None
    derived = derive_schedule_block(demo.points)
    assert derived == dataclasses.replace(demo.schedule_block, schedules=None)
    again = loads(dumps(demo))
    assert again.schedule_block == demo.schedule_block


def _map(block: dict[str, Any]) -> bytes:
    document = orjson.loads(dumps(demo_map()))
    document["schedule_block"] = block
    return orjson.dumps(document)


def test_the_json_map_refuses_a_wrong_block_naming_the_place() -> None:
    block = orjson.loads(dumps(demo_map()))["schedule_block"]
    with pytest.raises(MapError, match=r"schedule_block: no field 'colour'"):
        loads(_map({**block, "outputs": {**block["outputs"], "colour": "AO462"}}))
    with pytest.raises(MapError, match=r"schedule_block.selector: 'AI461' is not a AO address"):
        loads(_map({**block, "selector": "AI461"}))
    with pytest.raises(MapError, match=r"names AO490, which is not in the map"):
        loads(_map({**block, "points": {**block["points"], "max_points": 11}}))
