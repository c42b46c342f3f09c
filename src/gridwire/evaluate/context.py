"""What a check is given: :class:`CheckContext`.

One :class:`RunState` is shared by every check of a run (the master, the outstation, its
profile, the survey, settle, the curve count once found); each check gets its own
:class:`CheckContext` over it, which also collects what the check reports beside its verdict
(notes), what a check that passed verified (its detail), and what must be put back when it
ends (restores, run last-first however it ended).

A check's title is its catalogue entry's (:attr:`CheckSpec.title`), the same for every device:
``ctx.title`` reads it and cannot be set. What is particular to the device (the tables' name
of a function, "not supported by this DER") goes in the detail or a note.

A family module (``gridwire.evaluate.families.<family>``) writes each check as::

    async def mon_001(ctx: CheckContext) -> None:
        points = ctx.served_points(ctx.point_map.get("AI", i) for i in range(533, 557))
        if not points:
            raise NotApplicable("none of AI533-AI556 is served")
        readings = await ctx.read(points)
        ...
        ctx.verified(f"{len(points)} of 24 meter points online, within the tables' ranges")

and uses :mod:`gridwire.evaluate.primitives` for what several checks share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Point
from gridwire.derops.der_master import Der
from gridwire.derops.read import read_points
from gridwire.derops.readings import DerReading
from gridwire.evaluate.journal import Journal
from gridwire.evaluate.outcomes import Failed
from gridwire.evaluate.spec import CheckSpec
from gridwire.evaluate.survey import Survey, key_of
from gridwire.master import Master
from gridwire.process.clock import Clock

Undo = Callable[[], Awaitable[object]]


@dataclass(slots=True)
class RunState:
    """What every check of one run shares.

    ``curves`` is the number given to ``evaluate`` (None: found by
    :func:`gridwire.evaluate.primitives.curve_count` when a check first needs it, then kept
    in ``curves_found``, or the refusal that made it impossible in ``curves_problem``).
    ``device_profile`` is the service's ``--device-profile``, the fallback document of
    PROFILE-001 when the outstation was given none. ``journal`` records every point the run
    changes as found (:mod:`gridwire.evaluate.journal`); ``restore_wait`` is how long the
    restores wait for a lost connection; ``lost`` is set once a check lost the connection;
    ``left_changed`` is what the run has left changed so far (:mod:`gridwire.evaluate.restores`).
    """

    master: Master
    outstation: str
    point_map: PointMap
    survey: Survey
    settle: float
    curves: int | None
    allow_deviations: bool
    device_profile: Path | None = None
    curves_found: int | None = None
    curves_problem: str | None = None
    journal: Journal | None = None
    restore_wait: float = 30.0
    lost: bool = False
    left_changed: list[dict[str, object]] = field(default_factory=list)

    @property
    def allow_control(self) -> bool:
        return self.master.allow_control


@dataclass(slots=True)
class CheckContext:
    """One check's view of the run (see the module's notes)."""

    spec: CheckSpec
    run: RunState
    notes: list[str] = field(default_factory=list)
    restores: list[tuple[str, Undo]] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The check's title, the catalogue's (read-only: the same for every device)."""
        return self.spec.title

    # --- what the check works on -----------------------------------------------------------

    @property
    def master(self) -> Master:
        return self.run.master

    @property
    def outstation(self) -> str:
        return self.run.outstation

    @property
    def point_map(self) -> PointMap:
        return self.run.point_map

    @property
    def survey(self) -> Survey:
        return self.run.survey

    @property
    def settle(self) -> float:
        return self.run.settle

    @property
    def clock(self) -> Clock:
        """The master's clock: what a check measures or waits until is read from it."""
        return self.run.master.clock

    @property
    def der(self) -> Der:
        """The DER procedures (der.read, der.write, der.enable, der.curve, der.write_curve,
        der.compare...) on the outstation."""
        return Der(self.master, self.outstation)

    def arg(self, name: str) -> Any:
        """A catalogue argument of this check (``enable``, ``deviation``...)."""
        return self.spec.args[name]

    def point(self, address: str) -> Point | None:
        """The profile's point at ``address`` (``AO173``), or None when the profile has none."""
        return self.point_map.at(address)

    def serves(self, point: Point | str | None) -> bool:
        """Whether the survey found ``point`` (a Point or an address) served."""
        if isinstance(point, str):
            point = self.point(point)
        return point is not None and self.survey.serves(key_of(point))

    def served_points(self, points: Iterable[Point | str | None]) -> list[Point]:
        """Those of ``points`` the outstation serves, in the order given."""
        found = [self.point(p) if isinstance(p, str) else p for p in points]
        return [p for p in found if p is not None and self.survey.serves(key_of(p))]

    async def read(self, points: Iterable[Point]) -> dict[str, DerReading]:
        """Read ``points`` (one READ, range by range when refused whole): readings by address.
        Failed when the outstation did not answer."""
        chosen = list(points)
        found, exchanges = await read_points(self.master, self.outstation, chosen)
        for exchange in exchanges:
            if exchange.outcome != "complete":
                names = ", ".join(str(p.address) for p in chosen[:8])
                more = f" and {len(chosen) - 8} more" if len(chosen) > 8 else ""
                if exchange.fragments:
                    raise Failed(
                        f"the answer to the read of {names}{more} did not end "
                        f"({exchange.outcome} after {exchange.fragments} fragment(s))"
                    )
                raise Failed(f"no answer to the read of {names}{more} ({exchange.outcome})")
        return {r.address: r for r in found}

    # --- what the check reports and puts back ----------------------------------------------

    def note(self, text: str) -> None:
        """Something seen that is worth reporting beside the verdict."""
        self.notes.append(text)

    def verified(self, text: str) -> None:
        """Say what was verified, with its figures ("22 of 22 alarm points online"): the
        detail of the result when the check passes, the parts joined by "; " in the order
        said. Ignored when the check ends otherwise (its detail is why)."""
        self.checked.append(text)

    @property
    def passed_detail(self) -> str:
        """The detail of a check that passed: what it said it verified."""
        return "; ".join(self.checked)

    def restore(self, what: str, undo: Undo) -> None:
        """Register how to put back something the check changed. Restores run last-first
        when the check ends, however it ended; one that raises becomes a note naming
        ``what`` and fails the check. The journal then puts back, from the values as found,
        what they left changed (:mod:`gridwire.evaluate.restores`)."""
        self.restores.append((what, undo))

    def deviate(self, name: str, value: object = True) -> None:
        """Turn on the deviation ``name`` (only in a check that ``deviates``); it is turned
        off when the check ends, unless the check turned it off itself."""
        if not self.spec.deviates:
            raise RuntimeError(f"{self.spec.id} does not deviate; it may not turn on {name}")
        self.master.deviate(self.outstation, {name: value})

        async def off() -> None:
            if name in self.master.deviations(self.outstation):
                self.master.deviate(self.outstation, {name: False})

        self.restore(f"deviation {name} off", off)
