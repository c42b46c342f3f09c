"""The sample curves a mode check points its curve settings at (D101).

A function's curve setting with sample curves (AO173 volt-watt, AO217 volt-var: two each,
for value sets 0 and 1) is pointed, in each set, at a curve holding that set's sample. The
samples are stored (by der.write_curve) in the outstation's last curves, counted down from
the curve count (:func:`gridwire.evaluate.primitives.curve_count`): two curves a setting,
one a setting (both sets on the first sample, noted) when fewer are stored, none when fewer
still (noted). Each curve is read (by der.curve) before it is overwritten; when the check
ends, every curve overwritten is written back as it was read and the curve the block showed
before (before the curves were counted, too) is selected again. A curve setting of a kind with no sample curve is noted and left alone.

Storing happens while the function is disabled: a curve an enabled function names may not
be edited.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.der.points import Kind, Point, spelled
from gridwire.derops.curve import CurveReading
from gridwire.derops.write_curve import WriteCurveResult
from gridwire.errors import RequestError
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed
from gridwire.evaluate.primitives import SAMPLE_CURVES, SampleCurve, accepted, curve_count


@dataclass(frozen=True, slots=True)
class Pointed:
    """A curve setting and the curves it names in value sets 0 and 1."""

    setting: Point
    numbers: tuple[int, int]


def _judge(result: WriteCurveResult, what: str) -> None:
    if result.stopped_at is not None:
        statuses = [
            f"{spelled(s.type, s.index)} {s.status or 'no status'}"
            for step in result.steps
            for s in step.statuses
            if s.status != "SUCCESS"
        ]
        seen = ", ".join(statuses) or "not accepted"
        raise Failed(f"{what}: the {result.stopped_at} were refused ({seen})")
    if result.accepted is None:
        raise Failed(f"{what}: no answer said whether it was accepted")
    if not result.matches:
        curve = result.curve
        raise Failed(
            f"{what}: it reads back as curve {curve.number}, type {curve.type}, units "
            f"{curve.x_units}/{curve.y_units}, points {curve.points}, not as written"
        )


async def write_curve_judged(
    ctx: CheckContext,
    number: int,
    type: int,
    x_units: int,
    y_units: int,
    points: list[list[int]],
    what: str,
) -> None:
    """Write curve ``number`` with der.write_curve, judged: Failed naming ``what`` when it
    cannot be written, a step was refused, or it reads back otherwise."""
    try:
        result = await ctx.der.write_curve(number, type, x_units, y_units, points)
    except RequestError as exc:
        raise Failed(f"{what}: it cannot be written: {exc}") from None
    _judge(result, what)


def curve_to_write_back(reading: CurveReading) -> tuple[int, int, int, list[list[int]]] | None:
    """What der.write_curve needs to write ``reading`` back; None when a read left a field
    out (or a point is not a whole number)."""
    heads = (reading.type, reading.x_units, reading.y_units)
    if any(h is None for h in heads) or reading.count != len(reading.points):
        return None
    points: list[list[int]] = []
    for pair in reading.points:
        if any(not isinstance(v, int) or isinstance(v, bool) for v in pair):
            return None
        points.append([int(v) for v in pair if v is not None])
    type, x_units, y_units = (int(h) for h in heads if h is not None)
    return type, x_units, y_units, points


class Samples:
    """The sample curves stored for one check, and how the curves it overwrote are put back
    (a restore registered by :meth:`store`)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.saved: list[tuple[int, CurveReading]] = []
        self.shown: int | None = None

    async def store(self, settings: list[Point]) -> list[Pointed]:
        """Store the samples of ``settings`` (see the module's notes); the settings that are
        pointed, each with its two curve numbers."""
        ctx = self.ctx
        sampled = [s for s in settings if s.index in SAMPLE_CURVES]
        for setting in settings:
            if setting.index not in SAMPLE_CURVES:
                ctx.note(f"{setting.address}: no sample curve of its kind; not pointed")
        if not sampled:
            return []
        block = ctx.point_map.curve_block
        if block is None:
            ctx.note("the profile has no curve block: curve settings not pointed")
            return []
        readback = ctx.point_map.get(Kind.AI, block.readback)
        if readback is not None and ctx.serves(readback):
            shown = (await ctx.read([readback]))[str(readback.address)].raw
            self.shown = shown if isinstance(shown, int) and not isinstance(shown, bool) else None
        ctx.restore("the curves overwritten by sample curves", self._put_back)
        count = await curve_count(ctx)
        chosen = self._numbers(sampled, count)
        for pointed in chosen:
            for number in sorted(set(pointed.numbers), reverse=True):
                await self._save(number)
            for set_number, number in enumerate(dict.fromkeys(pointed.numbers)):
                sample = SAMPLE_CURVES[pointed.setting.index][set_number]
                await self._store(number, sample)
        return chosen

    def _numbers(self, sampled: list[Point], count: int) -> list[Pointed]:
        numbers = list(range(count, 0, -1))
        if len(numbers) >= 2 * len(sampled):
            return [Pointed(s, (numbers[2 * n], numbers[2 * n + 1])) for n, s in enumerate(sampled)]
        if len(numbers) >= len(sampled):
            self.ctx.note(
                f"the outstation stores {count} curves: value sets 0 and 1 name one curve, "
                "holding the first sample"
            )
            return [Pointed(s, (numbers[n], numbers[n])) for n, s in enumerate(sampled)]
        self.ctx.note(f"the outstation stores {count} curves: curve settings not pointed")
        return []

    async def _save(self, number: int) -> None:
        result = await self.ctx.der.curve(number)
        if result.selected is not None:
            accepted(result.selected, f"selecting curve {number}")
        self.saved.append((number, result))

    async def _store(self, number: int, sample: SampleCurve) -> None:
        points = [[x, y] for x, y in sample.points]
        what = f"storing a sample curve (type {sample.type}) in curve {number}"
        await write_curve_judged(
            self.ctx, number, sample.type, sample.x_units, sample.y_units, points, what
        )

    async def _put_back(self) -> None:
        problems: list[str] = []
        while self.saved:
            number, reading = self.saved.pop()
            stored = curve_to_write_back(reading)
            if stored is None:
                problems.append(f"curve {number} was not read whole")
                continue
            try:
                await write_curve_judged(self.ctx, number, *stored, f"putting back curve {number}")
            except Failed as exc:
                problems.append(exc.detail)
        if self.shown is not None:
            result = await self.ctx.der.curve(self.shown)
            if result.selected is not None:
                accepted(result.selected, f"selecting curve {self.shown} again")
        if problems:
            raise Failed("; ".join(problems))
