"""What the curve checks (CURVE-001 ... CURVE-003.2) share: :class:`Lab`, the curve block and
one function that names curves, set up the same way for each check and put back after it.

Preconditions (the check is not applicable without them): the profile's curve block served
whole (its outputs, AO244-AO448 in the profile's numbering with the selector first, and
their mirrors AI328-AI532), its referenced indicator (BI107) served, and at least one served
curve setting that has sample curves (AO173 volt-watt, AO217 volt-var). The curve count is
:func:`~gridwire.evaluate.primitives.curve_count` (``curves``, else found once per run; a
refusal other than OUT_OF_RANGE while counting fails every curve check, naming it). A check
that needs more curves than are stored is not applicable.

The subject: the function of the first such setting (AO173, then AO217) whose enable output
is served and whose supports input, when served, says it is supported. Its sample curves are
the two :data:`~gridwire.evaluate.primitives.SAMPLE_CURVES` gives its setting; ``other`` is
the first sample of a type the setting does not take. The types it takes are the tables', else
IEEE 1815.2's where the tables enumerate none (:mod:`gridwire.der.curve_types`; CURVE-003 notes
it).

:meth:`Lab.open`, in order: one read of what it will change (the curve shown, every served
curve setting, whether each function naming curves is enabled, the candidates' supports
inputs); every function found enabled that names curves disabled (so that nothing locks a
curve the check works on); the release (0 to every served curve setting); then the curves the
check works on, the last ones stored counted down from the count, each read before it is
overwritten. :meth:`Lab.close` releases again at the end (the subject disabled first).

Restores, run however the check ended: the subject disabled and the curves released when the
check left them so; every curve overwritten written back as it was read; the curve shown
selected again; the curve settings written back as found; the functions found enabled
enabled again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gridwire.der.curve_types import Source, curve_types
from gridwire.der.functions import (
    CURVE_POINTS,
    CURVE_TYPE,
    CURVE_X_UNITS,
    CURVE_Y_UNITS,
    CurveBlock,
    DerFunction,
)
from gridwire.der.points import Kind, Point
from gridwire.derops.curve import CurveReading
from gridwire.derops.readings import DerReading
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.outputs import Values, operate, read_back, states
from gridwire.evaluate.families.samples import curve_to_write_back, write_curve_judged
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import (
    SAMPLE_CURVES,
    SampleCurve,
    accepted,
    curve_count,
    curve_settings,
    refused,
    release,
)
from gridwire.master.controls import Control
from gridwire.master.records import OperateResult

AUTOMATION_INHIBIT = "AUTOMATION_INHIBIT"
"""The usual refusal of an edit of a curve an enabled function names."""
UNDEFINED = SampleCurve(0, 0, 0, 0, ())
"""A curve of type 0 ("curve disabled": undefined), no units and no points (no setting)."""
LISTED = 8
Stored = tuple[int, int, int, list[list[int]]]


@dataclass(frozen=True, slots=True)
class Subject:
    """The function the checks enable, the setting by which it names a curve, its sample
    curves, and a sample of a type it does not take (None when it takes any type);
    ``types_from`` says whether the types came from the tables or from IEEE 1815.2."""

    function: DerFunction
    setting: Point
    enable: Point
    enabled: Point | None
    supports: Point | None
    types: tuple[int, ...]
    samples: tuple[SampleCurve, SampleCurve]
    other: SampleCurve | None
    types_from: Source = "tables"

    @property
    def name(self) -> str:
        return self.function.name


def _block(ctx: CheckContext) -> CurveBlock:
    """The curve block when every precondition holds; NotApplicable naming the first that
    does not."""
    block = ctx.point_map.curve_block
    if block is None:
        raise NotApplicable("the profile has no curve block")
    addresses = [f"AO{i}" for i in block.outputs()] + [f"AI{i}" for i in block.inputs()]
    gone = [a for a in addresses if not ctx.serves(a)]
    if gone:
        more = f" and {len(gone) - LISTED} more" if len(gone) > LISTED else ""
        listed = ", ".join(gone[:LISTED])
        raise NotApplicable(f"the curve block is not served whole: {listed}{more} not served")
    if block.referenced is None:
        raise NotApplicable("the profile's curve block has no referenced indicator")
    if not ctx.serves(f"BI{block.referenced}"):
        raise NotApplicable(f"the referenced indicator BI{block.referenced} is not served")
    if not _sampled(ctx):
        settings = ", ".join(f"AO{i}" for i in SAMPLE_CURVES)
        raise NotApplicable(f"no curve setting with sample curves ({settings}) is served")
    return block


def _sampled(ctx: CheckContext) -> list[Point]:
    return [p for p in curve_settings(ctx) if p.index in SAMPLE_CURVES]


def _naming(ctx: CheckContext, settings: Iterable[Point]) -> list[DerFunction]:
    """The functions with a curve setting among ``settings``, each once."""
    indexes = {p.index for p in settings}
    return [f for f in ctx.point_map.functions if any(r.setting in indexes for r in f.curves)]


def _served(ctx: CheckContext, kind: Kind, index: int | None) -> Point | None:
    point = None if index is None else ctx.point_map.get(kind, index)
    return point if point is not None and ctx.serves(point) else None


def _candidates(ctx: CheckContext) -> list[Subject]:
    """Every served sample setting whose function's enable output is served, as a Subject."""
    found = []
    for setting in _sampled(ctx):
        for function in _naming(ctx, [setting]):
            enable = _served(ctx, Kind.BO, function.enable)
            if enable is None:
                continue
            ref = next(r for r in function.curves if r.setting == setting.index)
            resolved = curve_types(ctx.point_map, function, ref)
            types = resolved.types
            others = [s[0] for s in SAMPLE_CURVES.values() if types and s[0].type not in types]
            found.append(
                Subject(
                    function,
                    setting,
                    enable,
                    _served(ctx, Kind.BI, function.enabled),
                    _served(ctx, Kind.BI, function.supports),
                    types,
                    SAMPLE_CURVES[setting.index],
                    others[0] if others else None,
                    resolved.source,
                )
            )
    return found


def _whole(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def shows(reading: CurveReading) -> str:
    """A curve as read, for a detail."""
    return (
        f"type {reading.type}, units {reading.x_units}/{reading.y_units}, "
        f"{reading.count} points {reading.points}"
    )


def holds(reading: CurveReading, curve: SampleCurve) -> bool:
    """Whether ``reading`` shows ``curve`` (type, count, units and every point)."""
    heads = (reading.type, reading.count, reading.x_units, reading.y_units)
    expected = (curve.type, len(curve.points), curve.x_units, curve.y_units)
    return heads == expected and reading.points == [list(p) for p in curve.points]


@dataclass(slots=True)
class Found:
    """What the lab reads before it changes anything."""

    shown: int
    settings: Values
    enabled: list[DerFunction]
    readings: dict[str, DerReading]


async def _found(ctx: CheckContext, block: CurveBlock, candidates: list[Subject]) -> Found:
    """One read: the curve shown, every served curve setting, whether each function naming
    curves is enabled (its enabled input, else its enable output), the candidates' supports."""
    settings = curve_settings(ctx)
    functions = _naming(ctx, settings)
    status = {
        f.enable: _served(ctx, Kind.BI, f.enabled) or _served(ctx, Kind.BO, f.enable)
        for f in functions
    }
    readback = ctx.point_map.get(Kind.AI, block.readback)
    assert readback is not None  # served: see _block
    wanted = [readback, *settings, *(p for p in status.values() if p is not None)]
    wanted += [c.supports for c in candidates if c.supports is not None]
    readings = await ctx.read({str(p.address): p for p in wanted}.values())
    shown = _whole(readings[str(readback.address)].raw)
    if shown is None:
        raise Failed(f"{readback.address} (the curve selector's mirror) was not reported")
    values: Values = []
    for setting in settings:
        raw = readings[str(setting.address)].raw
        if raw is None or isinstance(raw, bool):
            ctx.note(f"{setting.address} was not reported: it cannot be put back as found")
            continue
        values.append((setting, raw))
    enabled = [
        f
        for f in functions
        if (p := status[f.enable]) is not None and readings[str(p.address)].value is True
    ]
    return Found(shown, values, enabled, readings)


def _supported(candidates: list[Subject], readings: dict[str, DerReading]) -> Subject:
    """The first candidate whose supports input (when served) says it is supported."""
    refusals = []
    for candidate in candidates:
        supports = candidate.supports
        if supports is None or readings[str(supports.address)].value is True:
            return candidate
        refusals.append(f"{supports.address} says {candidate.name} is not supported")
    raise NotApplicable("; ".join(refusals))


class Lab:
    """One curve check's bench (see the module's notes). ``numbers`` are the curves it may
    overwrite; ``naming`` is the curve the subject's setting names now."""

    def __init__(self, ctx: CheckContext, block: CurveBlock, count: int, shown: int) -> None:
        self.ctx = ctx
        self.block = block
        self.count = count
        self.shown = shown
        self.numbers: list[int] = []
        self._subject: Subject | None = None
        self.naming = 0
        self.on = False
        self.pointed = False
        self.saved: list[tuple[int, Stored]] = []

    # --- opening and closing ---------------------------------------------------------------

    @classmethod
    async def open(cls, ctx: CheckContext, curves: int, *, subject: bool = True) -> Lab:
        """The bench for a check that overwrites ``curves`` curves and (``subject``) enables
        a function (see the module's notes)."""
        block = _block(ctx)
        candidates = _candidates(ctx)
        if subject and not candidates:
            raise NotApplicable(
                "no function with a served sample curve setting has its enable output served"
            )
        found = await _found(ctx, block, candidates)
        count = await curve_count(ctx)  # after the read: counting moves the selector
        if count < curves:
            raise NotApplicable(f"the outstation stores {count} curve(s); the check needs {curves}")
        lab = cls(ctx, block, count, found.shown)
        if subject:
            lab._subject = _supported(candidates, found.readings)
        await lab._prepare(found.settings, found.enabled)
        for number in range(count, count - curves, -1):
            await lab._save(number)
        return lab

    async def _prepare(self, found: Values, enabled: list[DerFunction]) -> None:
        ctx = self.ctx
        outputs: Values = []
        for function in enabled:
            enable = ctx.point_map.get(Kind.BO, function.enable)
            if enable is not None:
                outputs.append((enable, True))
        if outputs:
            names = ", ".join(f.name for f in enabled)

            async def enabled_again() -> None:
                await operate(ctx, outputs, f"enabling {names} again, as found")

            ctx.restore(f"{names} enabled again", enabled_again)
        if any(value for _, value in found):

            async def as_found() -> None:
                await operate(ctx, found, "putting back the curve settings as found")

            ctx.restore("the curve settings as found", as_found)
        ctx.restore(f"curve {self.shown} shown again", lambda: self.select(self.shown))
        ctx.restore("the curves overwritten put back", self._put_back)
        ctx.restore("the curves released", self._left)
        if outputs:
            self.pointed = True
            off: Values = [(p, False) for p, _ in outputs]
            await operate(ctx, off, f"disabling {names}, found enabled, before the release")
        await release(ctx)

    async def close(self) -> None:
        """The end of a check: the subject disabled (when the check left it enabled) and the
        curves released."""
        if self.on:
            await self.switch(False)
        await release(self.ctx)
        self.pointed = False
        self.naming = 0

    async def _left(self) -> None:
        if self.on:
            subject = self.subject
            await operate(self.ctx, [(subject.enable, False)], f"disabling {subject.name}")
            self.on = False
        if self.pointed:
            await release(self.ctx)
            self.pointed = False

    async def _save(self, number: int) -> None:
        result = await self.ctx.der.curve(number)
        if result.selected is not None:
            accepted(result.selected, f"selecting curve {number}")
        stored = curve_to_write_back(result)
        if stored is None:
            raise Failed(
                f"curve {number} did not read back whole ({shows(result)}): it could not be "
                "put back, so it is not overwritten"
            )
        self.numbers.append(number)
        self.saved.append((number, stored))

    async def _put_back(self) -> None:
        problems: list[str] = []
        for number, stored in reversed(self.saved):
            try:
                await write_curve_judged(self.ctx, number, *stored, f"putting back curve {number}")
            except Failed as exc:
                problems.append(exc.detail)
        if problems:
            raise Failed("; ".join(problems))

    # --- the subject -----------------------------------------------------------------------

    @property
    def subject(self) -> Subject:
        assert self._subject is not None, "opened without a subject"
        return self._subject

    async def switch(self, on: bool) -> None:
        """The subject enabled (``on``) or disabled: accepted, and its enabled input
        following."""
        subject = self.subject
        what = f"{'enabling' if on else 'disabling'} {subject.name} ({subject.enable.address})"
        if on:
            self.on = True  # until the disable is seen accepted
        await operate(self.ctx, [(subject.enable, on)], what)
        self.on = on
        if subject.enabled is not None:
            await states(self.ctx, [(subject.enabled, on)], f"after {what}")

    async def try_enable(self) -> OperateResult:
        """One control enabling the subject, judged by the caller."""
        control = Control("bo", self.subject.enable.index, True)
        return await self.ctx.master.operate_controls(self.ctx.outstation, [control])

    async def name(self, number: int, what: str = "") -> None:
        """The subject's curve setting names curve ``number``: accepted, read back."""
        setting = self.subject.setting
        what = what or f"naming curve {number} with {setting.address} ({self.subject.name})"
        self.pointed = True
        await operate(self.ctx, [(setting, number)], what)
        self.naming = number
        await read_back(self.ctx, [(setting, number)], what)

    async def not_named(self, number: int, usual: str, what: str) -> str:
        """Naming curve ``number`` is refused (``usual``: see primitives.refused) and the
        setting still names the curve it named; answers how it was refused."""
        setting = self.subject.setting
        self.pointed = True
        control = Control("ao", setting.index, number)
        result = await self.ctx.master.operate_controls(self.ctx.outstation, [control])
        how = refused(self.ctx, result, what, usual)
        mirror = self.ctx.point_map.mirror(setting)
        shown = mirror if mirror is not None and self.ctx.serves(mirror) else setting
        raw = (await self.ctx.read([shown]))[str(shown.address)].raw
        if _whole(raw) != self.naming:
            raise Failed(
                f"after {what} was refused, {shown.address} reads {raw}, not curve "
                f"{self.naming} as before"
            )
        return how

    # --- the curve block -------------------------------------------------------------------

    async def store(self, number: int, curve: SampleCurve, what: str = "") -> None:
        """``curve`` written to curve ``number`` (der.write_curve): accepted, read back."""
        what = what or f"storing a curve of type {curve.type} in curve {number}"
        points = [[x, y] for x, y in curve.points]
        await write_curve_judged(
            self.ctx, number, curve.type, curve.x_units, curve.y_units, points, what
        )

    async def select(self, number: int) -> None:
        """Curve ``number`` shown in the window: the selector's control accepted."""
        control = Control("ao", self.block.selector, number)
        result = await self.ctx.master.operate_controls(self.ctx.outstation, [control])
        accepted(result, f"selecting curve {number}")

    async def select_refused(self, number: int, usual: str, what: str) -> str:
        """Selecting curve ``number`` is refused; answers how."""
        control = Control("ao", self.block.selector, number)
        result = await self.ctx.master.operate_controls(self.ctx.outstation, [control])
        return refused(self.ctx, result, what, usual)

    async def selected(self) -> int | None:
        """The curve the selector's mirror says is shown (None when not reported)."""
        point = self.ctx.point_map.get(Kind.AI, self.block.readback)
        assert point is not None
        return _whole((await self.ctx.read([point]))[str(point.address)].raw)

    async def read(self) -> CurveReading:
        """The curve the window shows (der.curve)."""
        return await self.ctx.der.curve()

    @property
    def indicator(self) -> Point:
        point = self.ctx.point_map.get(Kind.BI, self.block.referenced or 0)
        assert point is not None  # served: see _block
        return point

    async def indicates(self, referenced: bool, what: str) -> None:
        """The referenced indicator reads ``referenced`` (retried until settle)."""
        await states(self.ctx, [(self.indicator, referenced)], what)

    async def edit(self, offsets: list[tuple[int, int]]) -> OperateResult:
        """One request writing ``value`` at each window ``offset`` of the curve shown."""
        controls = [Control("ao", self.block.output(o), v) for o, v in offsets]
        return await self.ctx.master.operate_controls(self.ctx.outstation, controls)

    async def locked(self, number: int, held: SampleCurve, why: str) -> str:
        """Curve ``number``, holding ``held``, refuses an edit of its fields and one of its
        first point (usual AUTOMATION_INHIBIT), and reads back unchanged; answers what was
        refused and how."""
        ctx = self.ctx
        await self.select(number)
        other = self.subject.other
        kind = other.type if other is not None else self._other_value(CURVE_TYPE, held.type)
        fields = [
            (CURVE_TYPE, kind),
            (CURVE_POINTS, len(held.points) - 1 if held.points else 1),
            (CURVE_X_UNITS, self._other_value(CURVE_X_UNITS, held.x_units)),
            (CURVE_Y_UNITS, self._other_value(CURVE_Y_UNITS, held.y_units)),
        ]
        what = f"editing the type, number of points and units of curve {number} ({why})"
        seen = [refused(ctx, await self.edit(fields), what, AUTOMATION_INHIBIT)]
        edits = "its type, number of points and units"
        if held.points:
            x, y = held.points[0]
            first = self.block.x_offset(1)
            what = f"editing point 1 of curve {number} ({why})"
            edit = await self.edit([(first, x + 1), (first + 1, y + 1)])
            seen.append(refused(ctx, edit, what, AUTOMATION_INHIBIT))
            edits += ", and its point 1,"
        reading = await self.read()
        if not holds(reading, held):
            raise Failed(
                f"curve {number} ({why}) reads {shows(reading)} after the refused edits, not "
                f"as it was"
            )
        how = " and ".join(dict.fromkeys(seen))
        return f"edits of {edits} refused {how}, curve {number} read back unchanged"

    def _other_value(self, offset: int, value: int) -> int:
        """A value other than ``value`` that the tables' range of the window's output at
        ``offset`` takes."""
        point = self.ctx.point_map.get(Kind.AO, self.block.output(offset))
        for other in (value + 1, value - 1):
            if point is None or point.in_range(other):
                return other
        return value
