"""What the file procedures answer with (:mod:`gridwire.master.files`), and their limits.

A file operation that ran is answered, whatever the outstation said: ``complete`` says
whether it did what was asked, ``status`` why not (the outstation's file status by the
standard's name, FILE_NOT_FOUND, PERMISSION_DENIED..., or one of gridwire's: TIMEOUT no
answer in time, REFUSED the request refused by its indications, BAD_ANSWER an answer that is
not the procedure's, TOO_LARGE past ``max_size``, CANCELLED the caller went away), and an
interrupted transfer says whether the ABORT_FILE sent for it was answered SUCCESS.
``deferred`` counts the answers that came as file events after a null response (D200);
``requests`` counts every request the operation sent, the event reads made while waiting
for those included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from gridwire.dnp3.files import TYPE_DIRECTORY, TYPE_FILE
from gridwire.dnp3.objects.records import FileDescriptor

BLOCK_SIZE = 1024
"""Largest block asked for when none is given (the outstation's answer may lower it)."""
MAX_SIZE = 64 * 1024 * 1024
"""Largest file a transfer moves unless ``max_size`` says less (or more, up to MAX_SIZE_LIMIT)."""
MAX_SIZE_LIMIT = 1024 * 1024 * 1024
INLINE_MAX = 2 * 1024 * 1024
"""Largest file ``file.read`` answers with in base64; a larger one needs ``to`` (a path)."""
TRANSFER_TIMEOUT = 600.0
"""Seconds a whole operation may take unless ``timeout`` says otherwise (each request also
has the outstation's response timeout)."""
ABORT_WAIT = 10.0
"""Seconds given to the ABORT_FILE of an interrupted transfer."""

_PERMISSION_BITS = "rwxrwxrwx"


@dataclass(slots=True)
class FileEntry:
    """One file or directory as the outstation describes it (g70v7): ``type`` file,
    directory or ``type <n>``; ``time_ms`` its creation time (ms since 1970, UTC) and
    ``time`` the same in ISO 8601; ``permissions`` the 9 bits owner/group/world read, write,
    execute (``mode`` as ``ls`` shows them)."""

    name: str
    type: str
    size: int
    time_ms: int
    time: str
    permissions: int
    mode: str


@dataclass(slots=True)
class FileResult:
    """The answer of ``file.list``, ``file.info``, ``file.read``, ``file.write`` and
    ``file.delete`` (fields a procedure does not fill stay null)."""

    outstation: str
    operation: str
    path: str
    complete: bool
    status: str
    message: str = ""
    size: int | None = None
    blocks: int = 0
    block_size: int | None = None
    entries: list[FileEntry] | None = None
    entry: FileEntry | None = None
    data: str | None = None
    saved_to: str | None = None
    sha256: str | None = None
    aborted: bool | None = None
    requests: int = 0
    deferred: int = 0
    elapsed_ms: float = 0.0
    indications: list[str] = field(default_factory=list)


def _time_text(ms: int) -> str:
    try:
        return (
            datetime.fromtimestamp(ms / 1000, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z")
        )
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"


def mode_text(permissions: int) -> str:
    """``rwxr-x---`` of the 9 permission bits (owner read is bit 8, world execute bit 0)."""
    return "".join(
        letter if permissions >> (8 - k) & 1 else "-" for k, letter in enumerate(_PERMISSION_BITS)
    )


def entry_of(descriptor: FileDescriptor) -> FileEntry:
    kind = {TYPE_DIRECTORY: "directory", TYPE_FILE: "file"}.get(
        descriptor.file_type, f"type {descriptor.file_type}"
    )
    return FileEntry(
        name=descriptor.file_name,
        type=kind,
        size=descriptor.file_size,
        time_ms=descriptor.created_ms,
        time=_time_text(descriptor.created_ms),
        permissions=descriptor.permissions,
        mode=mode_text(descriptor.permissions),
    )
