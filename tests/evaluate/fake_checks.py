"""Check functions for testing the run itself, put in place of the catalogue's (whose family
modules may not be written yet) by monkeypatching the runner's ``check_function``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from gridwire.evaluate import runner
from gridwire.evaluate.catalogue import CheckFunction, CheckSpec
from gridwire.evaluate.context import CheckContext


def install(
    monkeypatch: pytest.MonkeyPatch, checks: dict[str, Callable[[CheckContext], Awaitable[None]]]
) -> None:
    """Run ``checks`` (by id) for those ids; every other check stays unimplemented."""

    def found(spec: CheckSpec) -> CheckFunction | None:
        return checks.get(spec.id)

    monkeypatch.setattr(runner, "check_function", found)
