"""Settings of ``gridwire sim``: from a JSON file (``--config``), overridden by flags.

Keys of the file (all optional; documented in docs/outstation.md)::

    {"bind": "127.0.0.1:20000", "outstation_address": 1024, "master_address": 1,
     "der": false, "tables": "FILE", "database": "FILE" or {...the database format...},
     "unsolicited": false, "unsolicited_classes": [], "accept": "replace",
     "tls": {"ca": "FILE", "certificate": "FILE", "key": "FILE", "allow": ["NAME or SHA-256"]},
     "select_timeout": 10, "confirm_timeout": 5, "unsolicited_retry": 5, "tick": 1.0,
     "variations": {"ai": {"static": 5, "event": 7}}, "misbehave": [], "range_gaps": "refuse",
     "files": "DIR", "files_writable": false, "files_defer": []}

``variations`` sets the DER's variations per point type (the generic database takes them in
its own file). ``range_gaps`` says how a read naming an index with no point is answered
(``refuse`` it whole, the default, or ``answer`` what there is; both with PARAMETER_ERROR:
:class:`gridwire.outstation.config.OutstationConfig`). ``misbehave`` names the
outstation's deviations, rules it breaks on purpose
(:mod:`gridwire.outstation.misbehaviour`: ``accept_bad_crc``, ``forget_unconfirmed_events``)
and, with ``der``, rules the simulated DER breaks (:mod:`gridwire.simulator.misbehaviour`:
``inputs_online_when_disabled``, ``start_without_permission``, ``accept_locked_curve_edits``).
``files`` is a directory served by the file procedures (group 70), read-only unless
``files_writable`` (:mod:`gridwire.outstation.files`); ``files_defer`` names the file
requests answered later, as file events (``OPEN_FILE``..., DESIGN D200).

Relative file names in the file are taken relative to the file's folder. ``bind`` (and
``--bind``) are read by the rule of every bind (:mod:`gridwire.net.binding`), the port 20000
when none is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from os import PathLike, fspath
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gridwire.errors import ConfigError
from gridwire.net.binding import parse_bind
from gridwire.outstation.config import RANGE_GAPS, OutstationConfig, RangeGaps
from gridwire.outstation.database_file import Variations, parse_variations
from gridwire.outstation.json_values import flag, mapping, number, only, read_json, text, whole
from gridwire.outstation.tls import TlsSettings
from gridwire.simulator.misbehaviour import split_misbehaviours

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 20000
_KEYS = frozenset(
    {
        "bind",
        "outstation_address",
        "master_address",
        "der",
        "tables",
        "database",
        "unsolicited",
        "unsolicited_classes",
        "accept",
        "tls",
        "select_timeout",
        "confirm_timeout",
        "unsolicited_retry",
        "tick",
        "variations",
        "misbehave",
        "range_gaps",
        "files",
        "files_writable",
        "files_defer",
    }
)


@dataclass(slots=True)
class SimSettings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    der: bool = False
    tables: Path | None = None
    database: Path | dict[str, Any] | None = None
    accept: str = "replace"
    tls: TlsSettings | None = None
    tick: float = 1.0
    variations: Variations = field(default_factory=dict)
    outstation: OutstationConfig = field(default_factory=OutstationConfig)
    der_misbehave: frozenset[str] = frozenset()


def load_settings(path: Path) -> SimSettings:
    """Read a ``--config`` file; ConfigError naming the file and key for any problem."""
    document = read_json(path, "config")
    try:
        return settings_from_json(mapping(document, "the settings"), path.parent)
    except ConfigError as exc:
        raise ConfigError(f"config file {path}: {exc}") from None


def settings_from_json(document: Mapping[str, Any], base: Path) -> SimSettings:
    only(document, _KEYS, "the settings")
    settings = SimSettings()
    config = settings.outstation
    if "bind" in document:
        settings.host, settings.port = parse_bind(text(document["bind"], "bind"), DEFAULT_PORT)
    for key in ("outstation_address", "master_address"):
        if key in document:
            setattr(config, key, whole(document[key], key))
    for key in ("select_timeout", "confirm_timeout", "unsolicited_retry"):
        if key in document:
            setattr(config, key, float(number(document[key], key)))
    if "unsolicited" in document:
        config.unsolicited = flag(document["unsolicited"], "unsolicited")
    if "unsolicited_classes" in document:
        classes = document["unsolicited_classes"]
        if not isinstance(classes, list) or not all(c in (1, 2, 3) for c in classes):
            raise ConfigError("unsolicited_classes: a list of 1, 2 and 3")
        config.unsolicited_classes = tuple(classes)
    if "der" in document:
        settings.der = flag(document["der"], "der")
    if "tables" in document:
        settings.tables = base / text(document["tables"], "tables")
    if "database" in document:
        database = document["database"]
        if isinstance(database, str):
            settings.database = base / database
        elif isinstance(database, dict):
            settings.database = database
        else:
            raise ConfigError("database: a file name or the database itself (an object)")
    if "accept" in document:
        settings.accept = text(document["accept"], "accept")
    if "tick" in document:
        settings.tick = float(number(document["tick"], "tick"))
    if "variations" in document:
        settings.variations = parse_variations(document["variations"])
    if "misbehave" in document:
        names = document["misbehave"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError("misbehave: a list of names")
        config.misbehave, settings.der_misbehave = split_misbehaviours(names)
    if "tls" in document:
        settings.tls = _tls(document["tls"], base)
    if "range_gaps" in document:
        config.range_gaps = range_gaps(text(document["range_gaps"], "range_gaps"), "range_gaps")
    if "files" in document:
        config.files = (base / text(document["files"], "files")).resolve()
    if "files_writable" in document:
        config.files_writable = flag(document["files_writable"], "files_writable")
    if "files_defer" in document:
        names = document["files_defer"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError("files_defer: a list of file request names")
        config.files_defer = tuple(names)
    return settings


def range_gaps(value: str, where: str) -> RangeGaps:
    """``value`` as a ``range_gaps`` setting; ConfigError naming ``where`` otherwise."""
    for choice in RANGE_GAPS:
        if value == choice:
            return choice
    raise ConfigError(f"{where}: {value!r} is not one of {', '.join(RANGE_GAPS)}")


def _tls(raw: object, base: Path) -> TlsSettings:
    value = mapping(raw, "tls")
    only(value, {"ca", "certificate", "key", "allow"}, "tls")
    missing = [k for k in ("ca", "certificate", "key") if not isinstance(value.get(k), str)]
    if missing:
        raise ConfigError(f"tls: {missing[0]} (a file name) is missing")
    allow = value.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise ConfigError("tls.allow: a list of common names or SHA-256 fingerprints")
    return tls_settings(base / value["ca"], base / value["certificate"], base / value["key"], allow)


def tls_settings(
    ca: str | PathLike[str],
    certificate: str | PathLike[str],
    key: str | PathLike[str],
    allow: Iterable[str] = (),
) -> TlsSettings:
    """The outstation's TLS settings; ConfigError naming the setting that cannot be taken."""
    try:
        return TlsSettings(
            ca=fspath(ca), certificate=fspath(certificate), key=fspath(key), allow=tuple(allow)
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"tls.{first['loc'][0]}: {first['msg']}") from None
