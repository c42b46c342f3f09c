"""Where restore journals are kept and what their files are named (D117, D201): one file per
outstation, written durably, refused while left, discarded on request."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import platformdirs

from gridwire.errors import Conflict
from gridwire.master.settings import OutstationSettings


def default_state_dir() -> Path:
    """Where journals are kept unless ``--state-dir`` says: the user's state directory."""
    return Path(platformdirs.user_state_dir("gridwire"))


def journal_path(state_dir: Path, settings: OutstationSettings) -> Path:
    """The journal of one outstation, never its nickname's (D201): on a named channel
    ``journal-channel=<channel>-<link>.json``, else ``journal-<host>-<port>-<link>.json`` as
    before. A journal a channel's outstation left under the one name all of them shared
    before D201 (``journal--0-<link>.json``) is still found when it was written for this
    outstation (its name and link address) and no journal of the new name exists."""
    link = settings.outstation_address
    if settings.channel is None:
        host = re.sub(r"[^A-Za-z0-9.-]", "_", settings.host)
        return state_dir / f"journal-{host}-{settings.port}-{link}.json"
    path = state_dir / f"journal-channel={_file_part(settings.channel)}-{link}.json"
    shared = state_dir / f"journal--0-{link}.json"
    if not path.exists() and _written_for(shared, settings):
        return shared
    return path


def _file_part(name: str) -> str:
    """A channel's name in a file name, one to one: letters, digits, ``.``, ``_`` and ``-``
    as they are, every other octet of its UTF-8 ``=XX``; a name that would take more than 150
    characters so is ``=`` and its SHA-256."""
    encoded = "".join(
        chr(octet) if chr(octet) in _KEPT else f"={octet:02X}" for octet in name.encode()
    )
    if len(encoded) > 150:
        return "=" + hashlib.sha256(name.encode()).hexdigest()
    return encoded


_KEPT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _written_for(path: Path, settings: OutstationSettings) -> bool:
    """Whether the journal at ``path`` says it was written for this outstation."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("outstation") == settings.name
        and data.get("link") == settings.outstation_address
    )


def write_journal(path: Path, data: dict[str, Any] | None) -> None:
    """Write ``data`` to ``path`` durably (temporary file, fsync, rename, fsync of the
    folder); None removes the file."""
    if data is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as file:
        json.dump(data, file, indent=1)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def refuse_if_left(path: Path) -> None:
    """RequestError naming the journal when one is left for the outstation."""
    if path.exists():
        raise Conflict(
            f"a restore journal is left for this outstation ({path}): an earlier evaluation "
            "did not put back what it changed. Write it back first (gridwire evaluate NAME "
            "--restore, or the restore_evaluation operation), or discard it "
            "(--discard-journal)"
        )


def discard_journal(state_dir: Path, settings: OutstationSettings) -> Path | None:
    """Remove the journal left for the outstation; its path, or None when there was none."""
    path = journal_path(state_dir, settings)
    if not path.exists():
        return None
    path.unlink()
    return path
