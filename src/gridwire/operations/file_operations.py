"""The file operations (IEEE 1815-2012 group 70, :mod:`gridwire.master.files`): one
declaration each. ``file.list``, ``file.info`` and ``file.read`` read and need no control;
``file.write`` and ``file.delete`` command the outstation (D193)."""

from __future__ import annotations

import asyncio
import base64
import binascii
from pathlib import Path
from typing import Any

from pydantic import Field

from gridwire.errors import BadParameter
from gridwire.master.file_records import (
    BLOCK_SIZE,
    INLINE_MAX,
    MAX_SIZE,
    MAX_SIZE_LIMIT,
    TRANSFER_TIMEOUT,
    FileResult,
)
from gridwire.master.files import (
    FileOptions,
    delete_file,
    file_info,
    list_directory,
    read_file,
    write_file,
)
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, declare

_TEXT = 255


class FileParams(OutstationParams):
    path: str = Field(
        min_length=1,
        max_length=4096,
        description="The file or directory on the outstation, as it names them ('/' its "
        "top directory, '/logs/a.txt')",
    )
    user: str | None = Field(
        default=None,
        max_length=_TEXT,
        description="With password: AUTHENTICATE_FILE first, its key in the open or delete "
        "(for an outstation that asks for credentials)",
    )
    password: str | None = Field(default=None, max_length=_TEXT)
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=86400,
        description=f"Seconds the whole operation may take ({TRANSFER_TIMEOUT:g})",
    )

    def options(self, block_size: int | None = None, max_size: int | None = None) -> FileOptions:
        return FileOptions(self.user, self.password, block_size, max_size, self.timeout)


class FileReadParams(FileParams):
    to: str | None = Field(
        default=None,
        max_length=4096,
        description="Save the file to this new file (an absolute path on the machine the "
        f"service runs on) instead of answering with it in base64 (at most {INLINE_MAX} "
        "octets); an existing file is not overwritten",
    )
    block_size: int | None = Field(
        default=None, ge=1, le=65535, description=f"Largest block asked for ({BLOCK_SIZE})"
    )
    max_size: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SIZE_LIMIT,
        description=f"Largest file read ({MAX_SIZE}); a larger one is aborted",
    )


class FileWriteParams(FileParams):
    data: str | None = Field(
        default=None,
        max_length=4 * 1024 * 1024,
        description="The file's contents in base64 (or give source)",
    )
    source: str | None = Field(
        default=None,
        max_length=4096,
        description="A file on the machine the service runs on (an absolute path) to send "
        "instead of data",
    )
    append: bool = Field(default=False, description="Append (mode 3) instead of replacing")
    permissions: str = Field(
        default="644", pattern=r"^[0-7]{1,3}$", description="Permissions, octal (644)"
    )
    block_size: int | None = Field(
        default=None, ge=1, le=65535, description=f"Largest block sent ({BLOCK_SIZE})"
    )


async def _contents(params: FileWriteParams) -> bytes:
    if (params.data is None) == (params.source is None):
        raise BadParameter("file.write takes data (base64) or source (a path), one of them")
    if params.data is not None:
        try:
            return base64.b64decode(params.data, validate=True)
        except (binascii.Error, ValueError):
            raise BadParameter("data is not base64") from None
    source = Path(params.source or "")
    if not source.is_absolute():
        raise BadParameter(f"source {params.source!r} must be an absolute path")
    return await asyncio.to_thread(_read_source, source)  # up to 64 MiB: off the loop


def _read_source(source: Path) -> bytes:
    try:
        if source.stat().st_size > MAX_SIZE:
            raise BadParameter(f"source {str(source)!r} is larger than {MAX_SIZE} octets")
        return source.read_bytes()
    except OSError as exc:
        raise BadParameter(f"source {str(source)!r} cannot be read: {exc.strerror}") from None


async def _write(c: Context, p: FileWriteParams) -> FileResult:
    data = await _contents(p)
    options = p.options(p.block_size)
    return await write_file(
        c.master,
        p.outstation,
        p.path,
        data,
        options,
        append=p.append,
        permissions=int(p.permissions, 8),
    )


_RESULT = (
    " Answered ok whatever the outstation said: complete, and status (its file status by "
    "name, or TIMEOUT, REFUSED, BAD_ANSWER, TOO_LARGE, COMM_LOST); an interrupted transfer "
    "is aborted on the outstation (ABORT_FILE) and aborted says whether that succeeded."
)

FILE_OPERATIONS: list[Operation[Any]] = [
    declare(
        "file.list",
        params=FileParams,
        result=FileResult,
        handler=lambda c, p: list_directory(c.master, p.outstation, p.path, p.options()),
        summary="A directory's entries on the outstation: name, type, size, time, permissions",
        description="OPEN_FILE of the directory for reading, READ of its blocks (g70v7 "
        "descriptors), CLOSE_FILE." + _RESULT,
    ),
    declare(
        "file.info",
        params=FileParams,
        result=FileResult,
        handler=lambda c, p: file_info(c.master, p.outstation, p.path, p.options()),
        summary="One file's descriptor on the outstation (GET_FILE_INFO)",
        description="GET_FILE_INFO with a g70v7 naming the file; entry is its answer." + _RESULT,
    ),
    declare(
        "file.read",
        params=FileReadParams,
        result=FileResult,
        handler=lambda c, p: read_file(
            c.master, p.outstation, p.path, p.options(p.block_size, p.max_size), to=p.to
        ),
        summary="A file's contents from the outstation: base64, or saved to a path",
        description="OPEN_FILE for reading, READ of each block in order (g70v5) until the "
        "last, CLOSE_FILE; data in base64 with its sha256, or saved_to." + _RESULT,
    ),
    declare(
        "file.write",
        params=FileWriteParams,
        result=FileResult,
        handler=_write,
        commands=True,
        summary="Write (or append to) a file on the outstation",
        description="OPEN_FILE for writing, WRITE of each block in order (g70v5, each "
        "answered g70v6), CLOSE_FILE. No block is sent twice." + _RESULT,
    ),
    declare(
        "file.delete",
        params=FileParams,
        result=FileResult,
        handler=lambda c, p: delete_file(c.master, p.outstation, p.path, p.options()),
        commands=True,
        summary="Delete a file on the outstation (DELETE_FILE)",
        description="DELETE_FILE with a g70v3 naming the file." + _RESULT,
    ),
]
