"""Settings of an outstation session (addresses, timers, limits, unsolicited reporting)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gridwire.errors import ConfigError
from gridwire.outstation.misbehaviour import misbehaviours

RangeGaps = Literal["refuse", "answer"]
RANGE_GAPS: tuple[RangeGaps, ...] = ("refuse", "answer")
DEFERRABLE = (
    "OPEN_FILE",
    "CLOSE_FILE",
    "DELETE_FILE",
    "GET_FILE_INFO",
    "ABORT_FILE",
    "READ",
    "WRITE",
)
"""The file requests whose answers ``files_defer`` may defer (D200)."""


@dataclass(slots=True)
class OutstationConfig:
    """Every setting of the sans-IO session, with the defaults ``gridwire sim`` uses.

    Timers are seconds. ``unsolicited`` allows unsolicited reporting at all (``--unsolicited``;
    without it ENABLE/DISABLE_UNSOLICITED are refused FUNC_NOT_SUPPORTED);
    ``unsolicited_classes`` are the classes reported unsolicited before a master says
    otherwise (none: a master enables what it wants); an unsolicited response not confirmed
    within ``unsolicited_retry`` is sent again, identical, until it is. ``confirm_timeout``
    bounds the wait for a solicited response's confirm. ``max_fragment`` bounds each response
    fragment (and what is accepted from the master); ``max_controls`` the controls one request
    may carry (more are all answered TOO_MANY_OBJS; 256 by default, room for the 200 X and Y
    outputs of a 100-point IEEE 1815.2 curve, which der.write_curve writes in one request). ``need_time_after`` is how long a time
    written by a master is trusted before NEED_TIME is raised again (None: for ever).
    ``range_gaps`` says how a read naming an index with no point is answered: ``refuse`` it
    whole with PARAMETER_ERROR, or ``answer`` the points there are with PARAMETER_ERROR (as
    opendnp3 does); see :mod:`gridwire.outstation.reads`. ``misbehave`` names its deviations,
    rules broken on purpose (:mod:`gridwire.outstation.misbehaviour`). ``files`` is a
    directory served by the file procedures (read-only unless ``files_writable``; an open or
    delete needs the key ``files_credentials`` give, when set): :mod:`gridwire.outstation.files`.
    ``files_defer`` names the file requests answered with a null response, their answer
    following as an event of class ``files_event_class`` (D200; e.g. ``("OPEN_FILE",)``, as an
    outstation does that takes time to gather a large directory): OPEN_FILE, CLOSE_FILE,
    DELETE_FILE, GET_FILE_INFO, ABORT_FILE, READ (a block) or WRITE (a block).
    """

    outstation_address: int = 1024
    master_address: int = 1
    select_timeout: float = 10.0
    confirm_timeout: float = 5.0
    unsolicited: bool = False
    unsolicited_classes: tuple[int, ...] = ()
    unsolicited_retry: float = 5.0
    max_fragment: int = 2048
    max_controls: int = 256
    cold_restart_delay_s: int = 2
    warm_restart_delay_ms: int = 500
    need_time_after: float | None = 1800.0
    misbehave: frozenset[str] = frozenset()
    range_gaps: RangeGaps = "refuse"
    files: Path | None = None
    files_writable: bool = False
    files_credentials: tuple[str, str] | None = None
    files_defer: tuple[str, ...] = ()
    files_event_class: int = 1

    def validate(self) -> OutstationConfig:
        for name, address in (
            ("outstation address", self.outstation_address),
            ("master address", self.master_address),
        ):
            if not 0 <= address <= 0xFFEF:
                raise ConfigError(f"{name} {address} is outside 0..65519")
        if self.outstation_address == self.master_address:
            raise ConfigError("the outstation and master addresses must differ")
        if not 249 <= self.max_fragment <= 65535:
            raise ConfigError(f"max_fragment {self.max_fragment} is outside 249..65535")
        for name, seconds in (
            ("select_timeout", self.select_timeout),
            ("confirm_timeout", self.confirm_timeout),
            ("unsolicited_retry", self.unsolicited_retry),
        ):
            if not seconds > 0:
                raise ConfigError(f"{name} must be more than 0 seconds, not {seconds}")
        if any(c not in (1, 2, 3) for c in self.unsolicited_classes):
            raise ConfigError("unsolicited_classes holds classes 1, 2 and 3 only")
        if self.max_controls < 1:
            raise ConfigError("max_controls must be at least 1")
        self.misbehave = misbehaviours(self.misbehave)
        if self.range_gaps not in RANGE_GAPS:
            raise ConfigError(f"range_gaps {self.range_gaps!r} is not refuse or answer")
        if self.files is not None and not self.files.is_dir():
            raise ConfigError(f"files {self.files} is not a directory")
        unknown = sorted(set(self.files_defer) - set(DEFERRABLE))
        if unknown:
            raise ConfigError(f"files_defer: {', '.join(unknown)} (one of {', '.join(DEFERRABLE)})")
        if self.files_event_class not in (1, 2, 3):
            raise ConfigError(f"files_event_class {self.files_event_class} is not 1, 2 or 3")
        return self
