"""Reading by ranges (gridwire.derops.ranges): the fewest ranges, one READ, and the per-range
retry when the outstation refuses the read whole. The reader here answers as an outstation
that serves a fixed set of points would (see tests/derops/test_read.py for the same against
the simulated DER over TCP)."""

from __future__ import annotations

import pytest

from gridwire.derops.ranges import IndexRange, ranges_of, read_ranges, refused
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import Exchange


def exchange(
    indications: list[str], objects: list[DnpObject], outcome: str = "complete"
) -> Exchange:
    return Exchange(
        function="READ",
        task=None,
        sequence=0,
        outcome=outcome,  # type: ignore[arg-type]
        fragments=1,
        indications=indications,
        object_count=len(objects),
        elapsed_ms=1.0,
        request="",
        undecoded=[],
        objects=objects,
    )


def obj(point_type: str, index: int) -> DnpObject:
    return DnpObject(point_type, 30, 1, index, None, index, ["ONLINE"], None, None, False)


class Outstation:
    """Serves ``served`` points; refuses a whole read when a range holds none of them, or
    (``partial``, as opendnp3 does) answers the points it has with PARAMETER_ERROR when a
    range holds an index it does not serve."""

    def __init__(
        self, served: set[tuple[str, int]], outcome: str = "complete", *, partial: bool = False
    ) -> None:
        self.served = served
        self.outcome = outcome
        self.partial = partial
        self.reads: list[dict[str, list[int | str]]] = []

    async def read(self, outstation: str, points: dict[str, list[int | str]]) -> Exchange:
        self.reads.append(points)
        found: list[DnpObject] = []
        missing = False
        for point_type, items in points.items():
            for item in items:
                start, _, stop = str(item).partition("-")
                indexes = range(int(start), int(stop or start) + 1)
                hits = [obj(point_type, i) for i in indexes if (point_type, i) in self.served]
                missing = missing or len(hits) < len(indexes)
                if not hits and not self.partial:
                    return exchange(["PARAMETER_ERROR"], [], self.outcome)
                found.extend(hits)
        indications = ["PARAMETER_ERROR"] if missing and self.partial else []
        return exchange(indications, found, self.outcome)


def test_the_fewest_ranges_name_exactly_the_points() -> None:
    points = [("ai", 5), ("ai", 3), ("bi", 9), ("ai", 4), ("ai", 7), ("ao", 1), ("ai", 5)]
    assert ranges_of(points) == [
        IndexRange("bi", 9, 9),
        IndexRange("ai", 3, 5),
        IndexRange("ai", 7, 7),
        IndexRange("ao", 1, 1),
    ]
    assert str(IndexRange("ai", 3, 5)) == "ai 3-5" and str(IndexRange("bi", 9, 9)) == "bi 9"
    with pytest.raises(ValueError, match="not a point type"):
        ranges_of([("xx", 1)])


async def test_one_read_when_the_outstation_serves_every_range() -> None:
    outstation = Outstation({("ai", 3), ("ai", 4), ("bi", 9)})
    result = await read_ranges(outstation, "o", [("ai", 3), ("ai", 4), ("bi", 9)])
    assert outstation.reads == [{"bi": ["9-9"], "ai": ["3-4"]}]
    assert len(result.exchanges) == 1 and not result.retried and result.refused == []
    assert [(o.type, o.index) for o in result.objects] == [("bi", 9), ("ai", 3), ("ai", 4)]


async def test_a_read_refused_whole_is_read_again_range_by_range() -> None:
    # AI 7 is not served: the read of three ranges is refused whole, then each range alone.
    outstation = Outstation({("ai", 3), ("bi", 9)})
    result = await read_ranges(outstation, "o", [("ai", 3), ("ai", 7), ("bi", 9)])
    assert outstation.reads == [
        {"bi": ["9-9"], "ai": ["3-3", "7-7"]},
        {"bi": ["9-9"]},
        {"ai": ["3-3"]},
        {"ai": ["7-7"]},
    ]
    assert result.retried
    assert [refused(e) for e in result.exchanges] == [True, False, False, True]
    assert result.refused == [IndexRange("ai", 7, 7)]
    assert [(o.type, o.index) for o in result.objects] == [("bi", 9), ("ai", 3)]


async def test_a_single_range_refused_is_not_read_again() -> None:
    outstation = Outstation(set())
    result = await read_ranges(outstation, "o", [("ai", 3), ("ai", 4)])
    assert len(outstation.reads) == 1 and not result.retried
    assert result.refused == [IndexRange("ai", 3, 4)] and result.objects == []


async def test_a_read_that_timed_out_is_not_retried_here() -> None:
    outstation = Outstation(set(), outcome="timeout")
    result = await read_ranges(outstation, "o", [("ai", 3), ("bi", 4)])
    assert len(outstation.reads) == 1 and result.refused == [] and not result.retried


async def test_nothing_to_read_sends_nothing() -> None:
    outstation = Outstation(set())
    result = await read_ranges(outstation, "o", [])
    assert outstation.reads == [] and result.exchanges == []


async def test_a_read_of_very_many_ranges_is_split() -> None:
    points = [("ai", 2 * i) for i in range(300)]  # 300 ranges of one point each
    outstation = Outstation(set(points))
    result = await read_ranges(outstation, "o", points)
    assert [len(r["ai"]) for r in outstation.reads] == [256, 44]
    assert len(result.objects) == 300


async def test_a_range_answered_in_part_keeps_what_came_back() -> None:
    # opendnp3's way: AI 5 is not served; the range 3-5 comes back with AI 3 and AI 4 and
    # PARAMETER_ERROR. What came back is kept; the range is not read again nor refused.
    outstation = Outstation({("ai", 3), ("ai", 4)}, partial=True)
    result = await read_ranges(outstation, "o", [("ai", 3), ("ai", 4), ("ai", 5)])
    assert outstation.reads == [{"ai": ["3-5"]}] and not result.retried
    assert result.refused == []
    assert [(o.type, o.index) for o in result.objects] == [("ai", 3), ("ai", 4)]


async def test_only_the_ranges_nothing_came_back_for_are_read_again() -> None:
    # Answered in part: BI 9 and AI 3 came back, AI 7 did not; AI 7 alone is read again.
    outstation = Outstation({("ai", 3), ("bi", 9)}, partial=True)
    result = await read_ranges(outstation, "o", [("ai", 3), ("ai", 7), ("bi", 9)])
    assert outstation.reads == [{"bi": ["9-9"], "ai": ["3-3", "7-7"]}, {"ai": ["7-7"]}]
    assert result.retried and result.refused == [IndexRange("ai", 7, 7)]
    assert [(o.type, o.index) for o in result.objects] == [("bi", 9), ("ai", 3)]
