"""Applying the modes to hold to the DER, through the der.* procedures (:class:`Der`: each a
command record, each control sent once, each write verified by reading its mirror).

What to hold (:class:`Desired`) is worked out from the scheduler's targets by :mod:`.modes`'s
rules: settings by address in engineering units, functions to enable, curves to store. It is
compared with what the gateway holds now (:attr:`Applier.held`): only the difference is sent,
as one der.write of every changed setting, then der.write_curve for a new curve, then
der.enable / der.disable. A setting or function the gateway no longer holds is put back to
what was found before the gateway first changed it (:attr:`Applier.found`, read before the
first write). Both are kept by the caller's store (``save`` is called after every step).

A curve goes into a free stored curve: one that no enabled function's curve setting names
(read from the DER just before), the highest such number; then the function's curve setting
names it, then the function is enabled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gridwire.der.points import Kind, Point
from gridwire.derops.der_master import Der
from gridwire.errors import GridwireError
from gridwire.gateway.modes import MAX_CHARGING, MAX_GENERATING, RULE_OF, Rule
from gridwire.gateway.resources import DerCurve, FixedVar, ModeValue, PowerFactor
from gridwire.gateway.schedule import Target

log = logging.getLogger("gridwire.gateway.apply")

Value = bool | float


@dataclass(slots=True)
class Desired:
    points: dict[str, Value] = field(default_factory=dict)  # address -> engineering value
    functions: set[str] = field(default_factory=set)  # function keys to have enabled
    curves: dict[str, DerCurve] = field(default_factory=dict)  # function key -> its curve
    sources: dict[str, str] = field(default_factory=dict)  # address -> the mode's source


@dataclass(slots=True)
class Change:
    """One step sent to the DER."""

    what: str  # write, write_curve, enable, disable
    detail: dict[str, Any]
    accepted: bool | None
    verified: bool | None
    sources: list[str]


@dataclass(slots=True)
class Held:
    """What the gateway holds on the DER (persisted): settings, enabled functions, and the
    curve href stored for each curve function (and the stored curve's number)."""

    points: dict[str, Value] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    curves: dict[str, str] = field(default_factory=dict)
    # Written to the store before a step is sent, cleared once its answer is in: after a
    # kill in between, the DER is read to learn whether the step took effect.
    pending: dict[str, Value] = field(default_factory=dict)
    pending_functions: dict[str, bool] = field(default_factory=dict)
    pending_sources: list[str] = field(default_factory=list)


def _same(held: Value | None, wanted: Value) -> bool:
    """Whether what is held already is what is wanted (a float within a millionth)."""
    if held is None or isinstance(held, bool) or isinstance(wanted, bool):
        return held is wanted
    return abs(float(held) - float(wanted)) <= 1e-6 * max(1.0, abs(float(wanted)))


def _close(der: Der, address: str, read: object, wanted: Value) -> bool:
    """Whether a value read back shows ``wanted`` (within one step of the multiplier)."""
    if isinstance(wanted, bool) or isinstance(read, bool):
        return read is wanted
    if not isinstance(read, (int, float)):
        return False
    step = abs(der.point_map.resolve(address).multiplier)
    return abs(float(read) - float(wanted)) <= step * (1 + 1e-9)


class Applier:
    def __init__(self, der: Der, save: Callable[[], None] = lambda: None) -> None:
        self.der = der
        self.save = save
        self.held = Held()
        self.found: dict[str, Value] = {}  # address -> value before the gateway changed it
        self.found_enabled: dict[str, bool] = {}  # function key -> enabled before
        self.supported_functions: dict[str, bool | None] = {}
        self.enabled: dict[str, bool | None] = {}
        self.ratings: dict[str, float] = {}
        self.changes: list[Change] = []

    # -- what the DER can do ----------------------------------------------------------------

    async def survey(self) -> None:
        """Read which functions the DER supports and its active power ratings."""
        result = await self.der.functions()
        self.supported_functions = {f.key: f.supported for f in result.functions}
        self.enabled = {f.key: f.enabled for f in result.functions}
        names = [n for n in (*MAX_GENERATING, *MAX_CHARGING) if self._point(n, False)]
        if names:
            read = await self.der.read(names)
            for point in read.points:
                if isinstance(point.value, (int, float)) and not isinstance(point.value, bool):
                    self.ratings.setdefault(
                        "gen" if point.name.startswith(MAX_GENERATING) else "charge",
                        abs(float(point.value)),
                    )
        await self._settle_pending()

    async def _settle_pending(self) -> None:
        """After a restart: a step that was being sent when the gateway stopped is taken as
        done where the DER shows its effect, and as not sent otherwise (never sent again
        blindly)."""
        held = self.held
        for key, on in held.pending_functions.items():
            if self.enabled.get(key) is on:
                (held.functions.add if on else held.functions.discard)(key)
        if held.pending:
            read = await self.der.read(list(held.pending))
            for point in read.points:
                wanted = held.pending.get(point.address)
                if wanted is not None and _close(self.der, point.address, point.value, wanted):
                    self._held_as(point.address, wanted, held.pending_sources)
        held.pending.clear()
        held.pending_functions.clear()
        held.pending_sources.clear()
        self.save()

    def _held_as(self, address: str, value: Value, sources: Iterable[str]) -> None:
        if _same(self.found.get(address), value) and "restore" in sources:
            self.held.points.pop(address, None)  # put back: no longer held
        else:
            self.held.points[address] = value

    def supported(self, mode: str) -> bool:
        """Whether the DER can hold ``mode``: a rule, its function present and not reported
        unsupported, its setting in the map, and the rating a watt value needs."""
        rule = RULE_OF.get(mode)
        if rule is None:
            return False
        if rule.function is not None:
            if rule.function not in self.supported_functions:
                return False
            if self.supported_functions[rule.function] is False:
                return False
        if self._setting(rule) is None:
            return False
        if rule.convert == "watts_gen":
            return bool(self.ratings.get("gen"))
        if rule.convert == "watts_charge":
            return bool(self.ratings.get("charge"))
        return rule.convert != "curve" or self.der.point_map.curve_block is not None

    def has_point(self, name: str) -> bool:
        return self._point(name, False) is not None

    def _point(self, name: str, write: bool) -> Point | None:
        try:
            return self.der.point_map.resolve(name, write=write)
        except GridwireError:
            return None

    def _setting(self, rule: Rule) -> Point | None:
        if rule.function is None:
            return self._point(rule.setting, True)
        function = self.der.point_map.function(rule.function)
        if function is None:
            return None
        for index in function.settings:
            point = self.der.point_map.get(Kind.AO, index)
            if point is not None and rule.setting.casefold() in point.name.casefold():
                return point
        return None

    # -- from targets to what to hold -------------------------------------------------------

    def desired(self, targets: Mapping[str, Target], curves: Mapping[str, DerCurve]) -> Desired:
        want = Desired()
        for mode, target in targets.items():
            rule = RULE_OF.get(mode)
            setting = None if rule is None else self._setting(rule)
            if rule is None or setting is None or not self.supported(mode):
                continue
            address = str(setting.address)
            if rule.convert == "curve":
                curve = curves.get(str(target.value))
                if curve is None:
                    log.warning("%s names curve %s, which no program lists", mode, target.value)
                    continue
                assert rule.function is not None
                want.curves[rule.function] = curve
            else:
                value = self._convert(rule, target.value)
                if rule.limit and address in want.points:
                    value = min(float(want.points[address]), float(value))
                want.points[address] = value
                if rule.excitation is not None and isinstance(target.value, PowerFactor):
                    excitation = self._point(rule.excitation, True)
                    if excitation is not None:
                        # 2030.5's excitation true (over-excited) injects vars: state 0.
                        want.points[str(excitation.address)] = not target.value.excitation
            want.sources[address] = f"{mode}:{target.source}"
            if rule.enable and rule.function is not None:
                want.functions.add(rule.function)
        return want

    def _convert(self, rule: Rule, value: ModeValue) -> Value:
        if rule.convert == "bool":
            return bool(value)
        if isinstance(value, PowerFactor):
            return value.value
        if isinstance(value, FixedVar):
            return value.percent
        number = float(value) if isinstance(value, (int, float)) else 0.0
        if rule.convert == "watts_gen":
            return round(100.0 * number / self.ratings["gen"], 3)
        if rule.convert == "watts_charge":
            return round(100.0 * abs(number) / self.ratings["charge"], 3)
        return number

    # -- sending ----------------------------------------------------------------------------

    async def apply(self, want: Desired) -> list[Change]:
        """Send what differs from what is held; put back what is no longer wanted."""
        made: list[Change] = []
        await self._curves(want, made)
        points = dict(want.points)
        for address in self.held.points:
            if address not in points and address in self.found:
                points[address] = self.found[address]
        await self._remember_points(points)  # before the first write: what was found
        changed = {a: v for a, v in points.items() if not _same(self._current(a), v)}
        if changed:
            made.append(await self._write(changed, want.sources))
        functions = {k for k in want.functions}
        for key in sorted(functions - self.held.functions):
            await self._switch(key, True, made)
        for key in sorted(self.held.functions - functions):
            if self.found_enabled.get(key) is False:
                await self._switch(key, False, made)
            else:
                self.held.functions.discard(key)
        for key in [k for k in self.held.curves if k not in want.curves]:
            del self.held.curves[key]
        self.changes.extend(made)
        self.save()
        return made

    def _current(self, address: str) -> Value | None:
        return self.held.points.get(address, self.found.get(address))

    async def _remember_points(self, addresses: Iterable[str]) -> None:
        missing = [a for a in addresses if a not in self.found]
        if not missing:
            return
        read = await self.der.read(missing)
        for point in read.points:
            if isinstance(point.value, (bool, int, float)):
                self.found[point.address] = point.value
        self.save()

    async def _write(self, changed: dict[str, Value], sources: Mapping[str, str]) -> Change:
        shown = sorted({sources.get(a, "restore") for a in changed})
        self.held.pending.update(changed)
        self.held.pending_sources[:] = shown
        self.save()
        result = await self.der.write(changed, verify=True)
        if result.accepted:
            for address, value in changed.items():
                self._held_as(address, value, [] if address in sources else ["restore"])
        self.held.pending.clear()
        self.save()
        log.info("wrote %s: accepted=%s verified=%s", changed, result.accepted, result.verified)
        return Change("write", {"points": changed}, result.accepted, result.verified, shown)

    async def _switch(self, key: str, on: bool, made: list[Change]) -> None:
        if key not in self.found_enabled:
            self.found_enabled[key] = bool(self.enabled.get(key))
            self.save()
        if on and self.found_enabled[key] and key not in self.held.functions:
            self.held.functions.add(key)  # already enabled: nothing to send
            return
        self.held.pending_functions[key] = on
        self.save()
        result = await (self.der.enable(key) if on else self.der.disable(key))
        if result.accepted:
            self.enabled[key] = on
            (self.held.functions.add if on else self.held.functions.discard)(key)
        self.held.pending_functions.pop(key, None)
        self.save()
        made.append(
            Change(
                "enable" if on else "disable",
                {"function": key},
                result.accepted,
                result.enabled is on if result.enabled is not None else None,
                [key],
            )
        )

    async def _curves(self, want: Desired, made: list[Change]) -> None:
        for key, curve in want.curves.items():
            rule = next(r for r in RULE_OF.values() if r.function == key and r.curve)
            setting = self._setting(rule)
            assert setting is not None and rule.curve is not None
            address = str(setting.address)
            if self.held.curves.get(key) == curve.href:
                want.points[address] = self.held.points[address]
                continue
            number = await self._free_curve()
            kind, x_units, y_units = rule.curve
            points = [[round(x), round(y)] for x, y in curve.points]
            result = await self.der.write_curve(number, kind, x_units, y_units, points)
            made.append(
                Change(
                    "write_curve",
                    {"number": number, "type": kind, "points": points},
                    result.accepted,
                    result.matches,
                    [curve.href],
                )
            )
            if result.matches:
                self.held.curves[key] = curve.href
                want.points[address] = float(number)
                want.sources[address] = f"{rule.mode}:{curve.href}"

    async def _free_curve(self) -> int:
        block = self.der.point_map.curve_block
        assert block is not None
        functions = (await self.der.functions()).functions
        self.enabled = {f.key: f.enabled for f in functions}
        settings = [s.address for f in functions if f.enabled for s in f.curve_settings]
        used: set[int] = set()
        if settings:
            for point in (await self.der.read(settings)).points:
                if isinstance(point.value, (int, float)):
                    used.add(int(point.value))
        count = block.curves or 4
        free = [n for n in range(1, count + 1) if n not in used]
        if not free:
            raise GridwireError(
                "no stored curve is free: every one is in use by an enabled function"
            )
        return free[-1]
