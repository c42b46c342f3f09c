"""The records an evaluation answers with: a check's result, the report, the catalogue listing,
and the progress of a run.

Slotted dataclasses, as the master's records are (orjson writes them as they are, pydantic
derives their JSON Schema for OpenAPI). Field names are gridwire's where the operations API leaves
the report's shape open (D97-D101).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from gridwire.evaluate.device import DeviceUnderTest, Overall

Verdict = Literal["passed", "failed", "not_applicable", "not_run"]
VERDICTS: tuple[Verdict, ...] = ("passed", "failed", "not_applicable", "not_run")


@dataclass(slots=True)
class CheckResult:
    """One check's result.

    ``detail`` says why (empty when passed); ``notes`` what else was seen (a refusal with an
    unusual status, a restore that failed...); ``requests`` how many requests the check sent;
    ``seconds`` how long it ran; ``frames`` the first and last trace ids of the frames it
    sent and received (null when none); ``packets`` the first and last packet numbers of
    those frames in the run's pcap, when the run was captured (else null); ``interrupted``
    is true for a check ``not_run`` because the run was cancelled or interrupted or the
    connection was lost (false when the flags or the outstation kept it from running).
    """

    id: str
    title: str
    verdict: Verdict
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0
    frames: list[int] | None = None
    packets: list[int] | None = None
    interrupted: bool = False


@dataclass(slots=True)
class Summary:
    """How many checks ended with each verdict; ``incomplete`` when a check was not run
    because the run was cancelled or interrupted or the connection was lost."""

    passed: int = 0
    failed: int = 0
    not_applicable: int = 0
    not_run: int = 0
    incomplete: bool = False

    @classmethod
    def of(cls, results: Iterable[CheckResult]) -> Summary:
        summary = cls()
        for result in results:
            setattr(summary, result.verdict, getattr(summary, result.verdict) + 1)
            summary.incomplete = summary.incomplete or result.interrupted
        return summary


@dataclass(slots=True)
class Report:
    """What ``evaluate`` answers (and ``gridwire evaluate --report`` writes).

    ``started`` is UTC in ISO 8601; ``tables`` names the edition of the point tables the
    outstation's profile follows; ``curves`` is the number of curves given, else the number
    found (null when no check needed it). ``device`` names the device under test
    (:mod:`gridwire.evaluate.device`); ``ended`` (UTC, ISO 8601) and ``seconds`` when the
    run ended and how long it took; ``verdict`` the one badge: pass, fail or incomplete.
    ``left_changed`` lists what the run changed and
    could not put back, each ``{point, as_found, now}`` (``now`` null when it could not be
    read); empty when everything is as found.
    """

    tool: str
    version: str
    outstation: str
    started: str
    allow_control: bool
    allow_deviations: bool
    tables: str
    settle: float
    curves: int | None
    summary: Summary
    results: list[CheckResult]
    device: DeviceUnderTest | None = None
    ended: str | None = None
    seconds: float | None = None
    verdict: Overall | None = None
    left_changed: list[dict[str, object]] = field(default_factory=list)


@dataclass(slots=True)
class CheckInfo:
    """A check as ``checks`` lists it."""

    id: str
    title: str
    set: str
    writes: bool
    deviates: bool


@dataclass(slots=True)
class ChecksResult:
    """``checks``: every check an evaluation can run, in catalogue order."""

    checks: list[CheckInfo]


@dataclass(slots=True)
class EvaluationStatus:
    """``evaluation``: the run under way against an outstation, or the last one.

    ``state`` is ``running``, ``finished`` or ``none`` (no evaluation ran since the service
    started); ``current`` the check under way; ``done`` of ``total`` checks ended so far,
    ``results`` theirs; ``cancelling`` once ``cancel_evaluation`` was asked; ``report`` the
    whole report once finished.
    """

    outstation: str
    state: Literal["running", "finished", "none"]
    started: str | None = None
    current: str | None = None
    done: int = 0
    total: int = 0
    cancelling: bool = False
    summary: Summary = field(default_factory=Summary)
    results: list[CheckResult] = field(default_factory=list)
    report: Report | None = None


@dataclass(slots=True)
class CancelResult:
    """``cancel_evaluation``: whether a run was under way (it stops after ``current``)."""

    outstation: str
    cancelled: bool
    current: str | None
