"""The ``operated`` field of the DER results that command: the Operate result in brief."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gridwire.master.records import OperateResult

Mode = Literal["direct", "select", "direct_no_ack"]
MODES: tuple[Mode, ...] = ("direct", "select", "direct_no_ack")


@dataclass(slots=True)
class Operated:
    """How the request that operated went: ``mode``; ``operated``, whether a request that
    operates was sent (false after a refused select); ``accepted``, true when every control
    was accepted, false when one was refused, null when the outstation never said."""

    mode: Mode
    operated: bool
    accepted: bool | None


def operated_of(result: OperateResult) -> Operated:
    return Operated(result.mode, result.operated, result.accepted)
