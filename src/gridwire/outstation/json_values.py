"""Reading settings files: JSON from a file, and values checked one by one, every mistake a
ConfigError naming where it is (``points.ai[0].class``, ``select_timeout``...)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any, cast

from gridwire.errors import ConfigError


def read_json(path: Path, what: str) -> object:
    """The parsed contents of ``path``; ConfigError saying which ``what`` file failed."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{what} file {path} is not JSON: {exc}") from None


def mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected an object, not {type(value).__name__}")
    return cast(Mapping[str, Any], value)


def only(value: Mapping[str, Any], allowed: Set[str], where: str) -> None:
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed))
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {known})")


def whole(value: object, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: expected a whole number, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{where}: {value} is outside {low}..{high}")
    return value


def number(value: object, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: expected a number, not {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: {value} is not a finite number")
    return value


def text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected text, not {value!r}")
    return value


def flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, not {value!r}")
    return value
