"""The 21 mode checks (VRT-001 ... PSIG-001): "the function enabled by BOn" (each writes).

The title is the catalogue's ("Volt-VAr (BO29)"), whatever the tables call the function:
the tables' name, and whether this DER supports it, are said in the detail.

No function of the tables is enabled by BOn, or its supports input is not served: not
applicable. Else the supports input is read and the check verifies what it says: that the
DER acts as a DER without the function (not supported), or that the function works
(supported). A pass says which, and what was verified ("reports Watt-VAr unsupported (BI49
off) and acts so: enabling it (BO30) refused NOT_SUPPORTED, none of its 13 other points
served"); never "passed - not supported" alone.

Not supported: enabling it is refused (usual NOT_SUPPORTED), and none of its points is
served but the three that say what it is: its supports input, its enable output and its
enabled input (what der.functions and der.enable read; a DER may list every function it
knows).

Supported (its enable output and enabled input must be served):

1. disabled when found enabled (the latch accepted, the enabled input false);
2. its inputs offline (its readings and its settings' mirrors);
3. its settings written with value set 1 and read back, offline; a curve setting with
   sample curves (:mod:`.samples`) is pointed at the curve holding set 1's sample, stored
   first, so the function can be enabled naming a curve of its kind;
4. enabled: the latch accepted, the enabled input true; its inputs online;
5. for value sets 0 and 1: its settings written and read back online, its other binary
   outputs latched (off, then on) and mirrored, its curve settings pointed at the set's
   sample curve and read back, all in one request;
6. disabled; its inputs offline; its curve settings back to 0 (read back offline).

When it ends, however it ended: the function disabled and its curve settings released if
it was left enabled or pointed; the curves overwritten put back; its settings and outputs
written back as found (one request); enabled again when found enabled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gridwire.der.functions import DerFunction
from gridwire.der.points import Kind, Point
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.outputs import (
    LISTED,
    Kept,
    Values,
    flagged,
    found_values,
    operate,
    set_of,
    span,
    states,
    write,
)
from gridwire.evaluate.families.samples import Pointed, Samples
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import accepted, refused
from gridwire.master.controls import Control

NOT_SUPPORTED = "NOT_SUPPORTED"


def _function(ctx: CheckContext, enable: int) -> DerFunction:
    for function in ctx.point_map.functions:
        if function.enable == enable:
            return function
    raise NotApplicable(f"no function of the tables is enabled by BO{enable}")


def _unique(points: Iterable[Point | None]) -> list[Point]:
    seen: dict[str, Point] = {}
    for point in points:
        if point is not None:
            seen.setdefault(str(point.address), point)
    return list(seen.values())


async def mode(ctx: CheckContext) -> None:
    function = _function(ctx, ctx.arg("enable"))
    supports = None if function.supports is None else ctx.point_map.get(Kind.BI, function.supports)
    if supports is None or not ctx.serves(supports):
        shown = "none in the tables" if supports is None else f"{supports.address}"
        raise NotApplicable(f"{function.name}: its supports input ({shown}) is not served")
    reading = (await ctx.read([supports]))[str(supports.address)]
    if not isinstance(reading.value, bool):
        raise Failed(f"{supports.address} (supports {function.name}) was not reported")
    checked = Mode(ctx, function, supports)
    if reading.value:
        await checked.supported()
    else:
        await checked.not_supported()


@dataclass(slots=True)
class Mode:
    """One mode check's function, its points, and what it has left changed."""

    ctx: CheckContext
    function: DerFunction
    supports: Point
    enabled_now: bool = False
    pointed_now: bool = False
    pointed: list[Pointed] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def enable(self) -> Point | None:
        return self.ctx.point_map.get(Kind.BO, self.function.enable)

    @property
    def enabled(self) -> Point | None:
        index = self.function.enabled
        return None if index is None else self.ctx.point_map.get(Kind.BI, index)

    def _points(self) -> list[Point]:
        function, point_map = self.function, self.ctx.point_map
        return _unique(
            [
                *point_map.function_points(function),
                *(point_map.get(Kind.AO, i) for i in function.settings),
                *(point_map.get(Kind.AO, ref.setting) for ref in function.curves),
            ]
        )

    def _own(self) -> list[Point]:
        """Its points less the three that say what it is (supports, enable, enabled)."""
        keep = {str(self.supports.address), f"BO{self.function.enable}"}
        if self.function.enabled is not None:
            keep.add(f"BI{self.function.enabled}")
        return [p for p in self._points() if str(p.address) not in keep]

    # --- not supported ---------------------------------------------------------------------

    async def not_supported(self) -> None:
        ctx = self.ctx
        self.ctx.restore(f"{self.name} disabled", self._disabled_if_left)
        self.enabled_now = True  # until the enable is seen refused
        result = await ctx.master.operate_controls(
            ctx.outstation, [Control("bo", self.function.enable, True)]
        )
        enable = f"BO{self.function.enable}"
        how = refused(ctx, result, f"enabling {self.name} ({enable})", NOT_SUPPORTED)
        self.enabled_now = False
        own = self._own()
        served = [str(p.address) for p in own if ctx.serves(p)]
        if served:
            more = f" and {len(served) - LISTED} more" if len(served) > LISTED else ""
            raise Failed(
                f"{self.name} is not supported ({self.supports.address}), yet "
                f"{len(served)} of its points are served: {', '.join(served[:LISTED])}{more}"
            )
        others = f"none of its {len(own)} other points served" if own else "no other point"
        ctx.verified(
            f"reports {self.name} unsupported ({self.supports.address} off) and acts so: "
            f"enabling it ({enable}) refused {how}, {others}"
        )

    # --- supported -------------------------------------------------------------------------

    async def supported(self) -> None:
        ctx = self.ctx
        enable, enabled = self.enable, self.enabled
        if enable is None or not ctx.serves(enable):
            raise Failed(f"{self.name} is supported, but its enable output is not served")
        if enabled is not None and not ctx.serves(enabled):
            raise Failed(f"{self.name} is supported, but its enabled input is not served")
        if enabled is None:
            ctx.note(f"the tables give {self.name} no enabled input: enabling not read back")
        own = [p for p in self._own() if ctx.serves(p)]
        inputs = [p for p in own if p.kind.is_input]
        curves = {ref.setting for ref in self.function.curves}
        settings = [p for p in own if p.kind is Kind.AO and p.index not in curves]
        curve_settings = [p for p in own if p.kind is Kind.AO and p.index in curves]
        outputs = [p for p in own if p.kind is Kind.BO]

        found_enabled = await self._is_enabled(enable, enabled)
        self.enabled_now = found_enabled
        ctx.restore(f"{self.name} enabled as found", lambda: self._as_found(found_enabled))
        found = await found_values(ctx, settings + curve_settings + outputs)
        kept = Kept(ctx, found, f"the settings of {self.name} as found")

        if found_enabled:
            await self._switch(False, "found enabled")
        await flagged(ctx, inputs, "offline", f"{self.name} disabled, its inputs")
        self.pointed = await Samples(ctx).store(curve_settings)
        ctx.restore(f"{self.name} disabled and its curves released", self._left)

        kept.changed()
        self.pointed_now = True
        await write(
            ctx,
            set_of(settings, 1) + self._curves(1),
            f"{self.name} disabled, value set 1",
            "offline",
        )
        await self._switch(True, "")
        await flagged(ctx, inputs, "online", f"{self.name} enabled, its inputs")
        for number in (0, 1):
            values = set_of(settings, number) + set_of(outputs, number) + self._curves(number)
            await write(ctx, values, f"{self.name} enabled, value set {number}", "online")
        await self._switch(False, "")
        await flagged(ctx, inputs, "offline", f"{self.name} disabled again, its inputs")
        await self._release(curve_settings, read_back=True)
        self._verified(enable, enabled, inputs, settings, outputs, found_enabled)

    def _verified(
        self,
        enable: Point,
        enabled: Point | None,
        inputs: list[Point],
        settings: list[Point],
        outputs: list[Point],
        found_enabled: bool,
    ) -> None:
        """The detail of a supported function's pass."""
        ctx, name = self.ctx, self.name
        ctx.verified(f"reports {name} supported ({self.supports.address} on)")
        follows = f", {enabled.address} following" if enabled is not None else ""
        found = "found enabled: disabled first, then " if found_enabled else ""
        ctx.verified(f"{found}{enable.address} enabled and disabled again{follows}")
        if inputs:
            ctx.verified(f"{len(inputs)} inputs online when enabled, offline when disabled")
        if settings:
            ctx.verified(
                f"{span(settings)} written and read back: value set 1 disabled (offline), "
                "sets 0 and 1 enabled (online)"
            )
        if outputs:
            ctx.verified(f"{span(outputs)} latched off and on, mirrored")
        if self.pointed:
            named = ", ".join(f"{p.setting.address}" for p in self.pointed)
            ctx.verified(f"{named} pointed at sample curves of each set, then released")

    def _curves(self, number: int) -> Values:
        return [(p.setting, p.numbers[number]) for p in self.pointed]

    async def _is_enabled(self, enable: Point, enabled: Point | None) -> bool:
        shows = enabled if enabled is not None else enable
        value = (await self.ctx.read([shows]))[str(shows.address)].value
        if not isinstance(value, bool):
            raise Failed(f"{shows.address} ({self.name} enabled) was not reported")
        return value

    async def _switch(self, on: bool, why: str) -> None:
        """Latch the enable output ``on``; accepted, and the enabled input follows."""
        what = f"{'enabling' if on else 'disabling'} {self.name} (BO{self.function.enable})"
        if why:
            what += f", {why}"
        if on:
            self.enabled_now = True
        await self._latch(on, what)
        enabled = self.enabled
        if enabled is not None:
            await states(self.ctx, [(enabled, on)], f"after {what}")

    async def _latch(self, on: bool, what: str) -> None:
        """The enable output latched ``on`` (one control, accepted)."""
        control = Control("bo", self.function.enable, on)
        result = await self.ctx.master.operate_controls(self.ctx.outstation, [control])
        accepted(result, what)
        self.enabled_now = on

    async def _release(self, curve_settings: list[Point], *, read_back: bool) -> None:
        if not curve_settings:
            self.pointed_now = False
            return
        values: Values = [(p, 0) for p in curve_settings]
        what = f"{self.name}: its curve settings back to 0"
        if read_back:
            await write(self.ctx, values, what, "offline")
        else:
            await operate(self.ctx, values, what)
        self.pointed_now = False

    async def _left(self) -> None:
        """Restore: disable the function and release its curve settings when the check left
        it enabled or pointed (so the curves can be put back and the settings written)."""
        if self.enabled_now:
            await self._latch(False, f"disabling {self.name}")
        if self.pointed_now:
            await self._release([p.setting for p in self.pointed], read_back=False)

    async def _as_found(self, found: bool) -> None:
        if self.enabled_now != found:
            await self._latch(found, f"{'enabling' if found else 'disabling'} {self.name} as found")

    async def _disabled_if_left(self) -> None:
        if self.enabled_now:
            await self._latch(False, f"disabling {self.name} again")
