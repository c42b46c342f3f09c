"""Polling of the DER function set, on from what sep2's discovery found: DeviceCapability's
DERProgramList (global scope) and every FSA's, then each program's DERControlList,
DefaultDERControl and DERCurveList.

Cadence: each DERProgramList at its own pollRate; each program's control list, default and
curves together at the control list's pollRate (the schema's 900 s where none is given),
never more often than ``min_poll_seconds``. What fails to be read keeps what was last read
(a program that cannot be had keeps its events, so running events run to their end on the
offset last observed); a program no longer listed is dropped, and with it its events (the
scheduler cancels those that had not ended).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from gridwire.gateway.parsing import (
    parse_default_control,
    parse_der_control_list,
    parse_der_curve_list,
    parse_der_program_list,
)
from gridwire.gateway.resources import (
    DefaultControl,
    DerControl,
    DerProgram,
    ProgramSet,
)
from gridwire.process.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.discovery import Getter, Structure, read_list_rated
from gridwire.sep2.errors import HeadEndError, ResourceError
from gridwire.sep2.resources import DEFAULT_POLL_RATE

log = logging.getLogger("gridwire.gateway.feed")


@dataclass(slots=True)
class _Due:
    at: float = 0.0
    interval: float = float(DEFAULT_POLL_RATE)


@dataclass(slots=True)
class Feed:
    """The programs as last read (:attr:`sets`), polled by :meth:`poll`."""

    headend: Getter
    page_size: int = 25
    min_poll_seconds: float = 1.0
    clock: Clock = SYSTEM_CLOCK
    sets: dict[str, ProgramSet] = field(default_factory=dict)  # program href -> what it holds
    polled: int = 0  # rounds that read anything
    last_error: str | None = None
    warnings: set[str] = field(default_factory=set)  # parts that fail without stopping
    _lists: dict[str, tuple[DerProgram, ...]] = field(default_factory=dict)
    _due: dict[str, _Due] = field(default_factory=dict)

    def program_sets(self) -> list[ProgramSet]:
        return list(self.sets.values())

    def sources(self, structure: Structure | None) -> list[tuple[str, str | None]]:
        """Every DERProgramList href and the FSA it belongs to (None: DeviceCapability's)."""
        if structure is None:
            return []
        found: list[tuple[str, str | None]] = []
        if structure.dcap.der_program_list_link is not None:
            found.append((structure.dcap.der_program_list_link.href, None))
        found.extend(
            (f.der_program_list_link.href, f.href)
            for f in structure.fsas
            if f.der_program_list_link is not None
        )
        return found

    def next_due(self) -> float:
        """Seconds until something is due (a large number when nothing is known yet)."""
        now = self.clock.monotonic()
        return max(0.0, min((d.at - now for d in self._due.values()), default=60.0))

    def poll_now(self) -> None:
        for due in self._due.values():
            due.at = 0.0

    def _is_due(self, href: str) -> bool:
        return self._due.setdefault(href, _Due()).at <= self.clock.monotonic()

    def _done(self, href: str, rate: int | None) -> None:
        interval = max(self.min_poll_seconds, float(DEFAULT_POLL_RATE if rate is None else rate))
        self._due[href] = _Due(self.clock.monotonic() + interval, interval)

    def _retry(self, href: str) -> None:
        due = self._due.setdefault(href, _Due())
        due.at = self.clock.monotonic() + min(due.interval, 5.0)

    async def poll(self, structure: Structure | None) -> bool:
        """Read what is due; True when anything was read (changed or not)."""
        read = False
        sources = self.sources(structure)
        for href, fsa in sources:
            if self._is_due(href):
                read |= await self._read_programs(href, fsa)
        listed = {p.href: p for programs in self._lists.values() for p in programs}
        listed_lists = {href for href, _ in sources}
        for gone in [h for h in self._lists if h not in listed_lists]:
            del self._lists[gone]
        for gone in [h for h in self.sets if h not in listed]:
            del self.sets[gone]
        for program in listed.values():
            if self._is_due(program.href) or program.href not in self.sets:
                read |= await self._read_program(program)
        self.polled += read
        return read

    async def _read_programs(self, href: str, fsa: str | None) -> bool:
        try:
            programs, rate = await read_list_rated(
                self.headend, href, parse_der_program_list, self.page_size
            )
        except (HeadEndError, ResourceError) as exc:
            self._failed(href, exc)
            return False
        self._lists[href] = tuple(replace(p, fsa=fsa) for p in programs)
        self._done(href, rate)
        return True

    async def _read_program(self, program: DerProgram) -> bool:
        """The program's controls (needed), then its curves and default: one of those that
        fails keeps what was last read of it (a head-end whose curve list fails must not
        stop its events)."""
        before = self.sets.get(program.href)
        try:
            controls: tuple[DerControl, ...] = ()
            rate: int | None = None
            if program.controls_href:
                controls, rate = await read_list_rated(
                    self.headend, program.controls_href, parse_der_control_list, self.page_size
                )
        except (HeadEndError, ResourceError) as exc:
            self._failed(program.href, exc)
            return False
        curves = before.curves if before else {}
        default = before.default if before else None
        try:
            if program.curves_href:
                found, _ = await read_list_rated(
                    self.headend, program.curves_href, parse_der_curve_list, self.page_size
                )
                curves = {c.href: c for c in found}
        except (HeadEndError, ResourceError) as exc:
            self._noted(f"DERCurveList of {program.href}: {exc}")
        try:
            default = await self._default(program)
        except (HeadEndError, ResourceError) as exc:
            self._noted(f"DefaultDERControl of {program.href}: {exc}")
        self.sets[program.href] = ProgramSet(program, controls, default, curves)
        self._done(program.href, rate)
        self.last_error = None
        return True

    async def _default(self, program: DerProgram) -> DefaultControl | None:
        if program.default_href is None:
            return None
        fetched = await self.headend.get(program.default_href)
        if fetched.empty:
            return None
        return parse_default_control(fetched.require_ok(), fetched.url)

    def _noted(self, message: str) -> None:
        if message not in self.warnings:
            log.warning("DER function set: %s; keeping what was last read", message)
            self.warnings.add(message)

    def _failed(self, href: str, exc: Exception) -> None:
        if str(exc) != self.last_error:
            log.warning("DER function set: %s", exc)
        self.last_error = str(exc)
        self._retry(href)
