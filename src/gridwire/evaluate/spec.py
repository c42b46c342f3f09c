"""A check as the catalogue declares it (:class:`CheckSpec`): what the check is and where its
code is. Its own module, so that what a check is given (:mod:`gridwire.evaluate.context`)
and the catalogue that names the checks' code (:mod:`gridwire.evaluate.catalogue`) each
import it without importing one another."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridwire.evaluate.records import CheckInfo


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check of the catalogue (see :mod:`gridwire.evaluate.catalogue`)."""

    id: str
    title: str
    set: str
    family: str
    function: str
    writes: bool = False
    deviates: bool = False
    args: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def info(self) -> CheckInfo:
        return CheckInfo(self.id, self.title, self.set, self.writes, self.deviates)
