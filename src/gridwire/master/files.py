"""IEEE 1815-2012's file procedures (group 70), each one operation: list a directory, a
file's descriptor, read a file, write one, delete one (see :mod:`gridwire.dnp3.files` for
the requests and their answers).

A transfer opens the file (after AUTHENTICATE_FILE when credentials are given: the key it
answers goes into the open), moves its blocks in order (block numbers from 0, the last with
bit 31 set; a READ of a block may be sent again after no answer, a WRITE never is), and
closes it. A transfer interrupted once the file is open (an error status, no answer, a block
out of sequence, ``max_size`` passed, the time up, the caller gone) is aborted on the
outstation (ABORT_FILE) and answered with what happened; nothing is kept of a partial read.

Limits (:mod:`gridwire.master.file_records`): blocks of at most ``block_size`` octets
(1024 unless given; fewer when the outstation says so, or when a written block would not fit
one request), files of at most ``max_size`` (64 MiB), the whole operation within ``timeout``
seconds (600), each request within the outstation's response timeout. Files are held in
memory except a read saved ``to`` a path, which is written block by block.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from gridwire.dnp3 import files as wire
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.records import (
    FileAuthentication,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
)
from gridwire.errors import BadParameter, ConnectionFailed, GridwireError
from gridwire.master.file_deferred import Match, Watch, by_block, by_handle, by_request
from gridwire.master.file_records import (
    ABORT_WAIT,
    BLOCK_SIZE,
    INLINE_MAX,
    MAX_SIZE,
    MAX_SIZE_LIMIT,
    TRANSFER_TIMEOUT,
    FileResult,
    entry_of,
)

if TYPE_CHECKING:
    from gridwire.master.master import Master
    from gridwire.master.session import Session

F = FunctionCode
log = logging.getLogger("gridwire.master.files")
_REFUSING = ("FUNC_NOT_SUPPORTED", "OBJECT_UNKNOWN", "PARAMETER_ERROR")
V = TypeVar("V")


class Stop(Exception):
    """The procedure ends here with ``status`` (not an error of the operation)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Procedure:
    """One file operation against one outstation: its requests and what they answered."""

    def __init__(self, master: Master, outstation: str, operation: str, path: str) -> None:
        if not path or len(path.encode("utf-8")) > 0xFFFF - wire.FILE_COMMAND_FIXED:
            raise BadParameter("path must be 1 to 65000 octets of UTF-8")
        self.session: Session = master.session(outstation)
        self.bus = master.bus
        self.result = FileResult(outstation, operation, path, False, "")
        self.started = time.monotonic()
        self.handle: int | None = None
        self._request_id = 0

    def next_id(self) -> int:
        self._request_id = (self._request_id + 1) & 0xFFFF
        return self._request_id

    async def ask(
        self, function: FunctionCode, body: bytes, variations: tuple[int, ...], match: Match | None
    ) -> object:
        """Send one request and return its one g70 answer of ``variations``: in the response,
        or, after a null response, the one ``match`` picks among the file events that follow
        (D200; None: not deferred, as AUTHENTICATE_FILE's is not); Stop for no answer, a
        refusal or anything else."""
        self.result.requests += 1
        with Watch(self.bus, self.session) as watch:  # open before the request leaves
            exchange = (await self.session.exchange(function, body)).record
            self.result.indications = exchange.indications
            if exchange.outcome != "complete":
                raise Stop("TIMEOUT", f"{function.name}: no answer ({exchange.outcome})")
            refused = [name for name in exchange.indications if name in _REFUSING]
            found = [
                o.value for o in exchange.objects if o.group == 70 and o.variation in variations
            ]
            if refused and not found:
                raise Stop("REFUSED", f"{function.name} refused: {', '.join(refused)}")
            if match and not found and not exchange.objects and not exchange.undecoded:
                try:
                    return await watch.answer(match)
                finally:
                    self.result.deferred += 1
                    self.result.requests += watch.polls
        if len(found) != 1 or exchange.undecoded:
            raise Stop("BAD_ANSWER", f"{function.name}: {len(found)} file objects answered")
        return found[0]

    async def authenticate(self, user: str | None, password: str | None) -> int:
        """The key AUTHENTICATE_FILE gives for the credentials (0 without credentials)."""
        if user is None:
            return 0
        answer = await self.ask(
            F.AUTHENTICATE_FILE, wire.authentication(user, password or ""), (2,), None
        )
        if not isinstance(answer, FileAuthentication) or answer.auth_key == 0:
            raise Stop("PERMISSION_DENIED", "the outstation gave no key for these credentials")
        return answer.auth_key

    def status_of(self, answer: object, what: str) -> FileCommandStatus:
        if not isinstance(answer, FileCommandStatus):
            raise Stop("BAD_ANSWER", f"{what}: answered with {type(answer).__name__}")
        if answer.status != "SUCCESS":
            raise Stop(answer.status, f"{what}: {answer.status} {answer.text}".rstrip())
        return answer

    async def open(
        self, mode: int, key: int, block_size: int, size: int = 0, perms: int = 0
    ) -> int:
        """OPEN_FILE; the block size to use. The handle is kept for the close or abort."""
        request_id = self.next_id()
        body = wire.file_command(
            self.result.path,
            mode,
            max_block_size=block_size,
            request_id=request_id,
            auth_key=key,
            file_size=size,
            permissions=perms,
            created_ms=int(time.time() * 1000) if mode != wire.MODE_READ else 0,
        )
        answer = await self.ask(F.OPEN_FILE, body, (4,), by_request(request_id))
        opened = self.status_of(answer, "OPEN_FILE")
        self.handle = opened.file_handle
        if mode == wire.MODE_READ:
            self.session.wire.read_handles.add(opened.file_handle)
        self.result.size = opened.file_size
        chosen = min(block_size, opened.max_block_size or block_size)
        self.result.block_size = chosen
        return chosen

    async def close(self) -> None:
        handle = self._take_handle()
        body = wire.command_status(handle, request_id=self.next_id())
        try:
            answer = await self.ask(F.CLOSE_FILE, body, (4,), by_handle(handle))
            self.status_of(answer, "CLOSE_FILE")
        finally:
            self.session.wire.read_handles.discard(handle)

    async def abort(self) -> str:
        """ABORT_FILE of the open file; the status it was answered with (or why none)."""
        handle = self._take_handle()
        body = wire.command_status(handle, request_id=self.next_id())
        try:
            async with asyncio.timeout(ABORT_WAIT):
                answer = await self.ask(F.ABORT_FILE, body, (4,), by_handle(handle))
            return answer.status if isinstance(answer, FileCommandStatus) else "BAD_ANSWER"
        except Stop as stop:
            return stop.status
        except TimeoutError:
            return "TIMEOUT"
        except GridwireError as exc:
            log.warning("ABORT_FILE not sent: %s", exc)
            return "COMM_LOST"
        finally:
            self.session.wire.read_handles.discard(handle)

    def _take_handle(self) -> int:
        """The open file's handle, which is then no longer open as far as we are concerned."""
        handle, self.handle = self.handle, None
        assert handle is not None
        return handle

    async def read_blocks(
        self, block_size: int, max_size: int, sink: Callable[[bytes], None]
    ) -> None:
        """READ every block in order until the last, handing each to ``sink``."""
        assert self.handle is not None
        total, block = 0, 0
        while True:
            body = wire.transport(self.handle, block)
            answer = await self.ask(F.READ, body, (5, 6), by_block(self.handle, block))
            if isinstance(answer, FileTransportStatus):
                raise Stop(answer.status, f"block {block}: {answer.status} {answer.text}".rstrip())
            assert isinstance(answer, FileTransport)
            if answer.block != block or answer.file_handle != self.handle:
                raise Stop("BLOCK_SEQ", f"asked for block {block}, given {answer.block}")
            if len(answer.data) > max(block_size, 1):
                raise Stop("BAD_ANSWER", f"block {block} of {len(answer.data)} octets")
            total += len(answer.data)
            if total > max_size:
                raise Stop("TOO_LARGE", f"more than max_size {max_size} octets")
            sink(answer.data)
            self.result.blocks = block + 1
            if answer.last:
                return
            block += 1

    async def write_blocks(self, data: bytes, block_size: int, digest: Any) -> None:
        """WRITE the blocks in order, each hashed into ``digest`` as it goes (a large file
        is never copied or hashed whole in one turn of the loop)."""
        assert self.handle is not None
        room = self.session.association.request_room - wire.BLOCK_OVERHEAD
        size = min(block_size, room)
        if size < 1:
            raise Stop("BAD_ANSWER", "no room for a block in one request")
        count = max(1, -(-len(data) // size))
        self.result.block_size = size
        view = memoryview(data)
        for block in range(count):
            chunk = bytes(view[block * size : (block + 1) * size])
            digest.update(chunk)
            last = block == count - 1
            body = wire.transport(self.handle, block, chunk, last=last)
            answer = await self.ask(F.WRITE, body, (6,), by_block(self.handle, block))
            assert isinstance(answer, FileTransportStatus)
            if answer.status != "SUCCESS":
                raise Stop(answer.status, f"block {block}: {answer.status} {answer.text}".rstrip())
            self.result.blocks = block + 1

    async def run(self, steps: Awaitable[V], seconds: float) -> FileResult:
        """Run ``steps``; on an interruption abort the open file and say what happened."""
        result = self.result
        try:
            async with asyncio.timeout(seconds):
                await steps
            result.complete, result.status = True, "SUCCESS"
        except Stop as stop:
            result.status, result.message = stop.status, stop.message
        except TimeoutError:
            result.status, result.message = "TIMEOUT", f"not done within {seconds:g} s"
        except ConnectionFailed as exc:
            result.status, result.message = "COMM_LOST", str(exc)
        except asyncio.CancelledError:
            if self.handle is not None:
                await asyncio.shield(self.abort())
            raise
        finally:
            result.elapsed_ms = round((time.monotonic() - self.started) * 1000, 3)
        if self.handle is not None:
            answered = await self.abort()
            result.aborted = answered == "SUCCESS"
            result.message += f"; ABORT_FILE answered {answered}"
        return result


@dataclass(frozen=True, slots=True)
class FileOptions:
    """What a file operation may be given besides its path (None: the default limit)."""

    user: str | None = None
    password: str | None = None
    block_size: int | None = None
    max_size: int | None = None
    seconds: float | None = None

    def limits(self) -> tuple[int, int, float]:
        """Block size asked for, largest file, seconds for the whole operation."""
        block = BLOCK_SIZE if self.block_size is None else self.block_size
        if not 1 <= block <= 0xFFFF:
            raise BadParameter(f"block_size {block} is outside 1..65535")
        largest = MAX_SIZE if self.max_size is None else self.max_size
        if not 0 <= largest <= MAX_SIZE_LIMIT:
            raise BadParameter(f"max_size {largest} is outside 0..{MAX_SIZE_LIMIT}")
        seconds = TRANSFER_TIMEOUT if self.seconds is None else self.seconds
        if not seconds > 0:
            raise BadParameter(f"timeout {seconds} must be more than 0 seconds")
        return block, largest, seconds


_DEFAULT = FileOptions()


async def list_directory(
    master: Master, outstation: str, path: str, options: FileOptions = _DEFAULT
) -> FileResult:
    """Open ``path`` (a directory) for reading, read its descriptors, close it."""
    proc = _Procedure(master, outstation, "list", path)
    block, limit, seconds = options.limits()
    data = bytearray()

    async def steps() -> None:
        key = await proc.authenticate(options.user, options.password)
        size = await proc.open(wire.MODE_READ, key, block)
        await proc.read_blocks(size, limit, data.extend)
        await proc.close()
        try:
            proc.result.entries = [entry_of(e) for e in wire.read_directory(bytes(data))]
        except DecodeError as exc:
            raise Stop("BAD_ANSWER", f"not a directory's descriptors: {exc}") from None

    return await proc.run(steps(), seconds)


async def file_info(
    master: Master, outstation: str, path: str, options: FileOptions = _DEFAULT
) -> FileResult:
    """GET_FILE_INFO: the descriptor of ``path``."""
    proc = _Procedure(master, outstation, "info", path)
    _, _, seconds = options.limits()

    async def steps() -> None:
        request_id = proc.next_id()
        body = wire.descriptor(path, 0, request_id=request_id)
        answer = await proc.ask(
            F.GET_FILE_INFO, body, (4, 7), by_request(request_id, descriptor=True)
        )
        if not isinstance(answer, FileDescriptor):
            proc.status_of(answer, "GET_FILE_INFO")
            raise Stop("BAD_ANSWER", "GET_FILE_INFO answered with no descriptor")
        proc.result.entry = entry_of(answer)
        proc.result.size = answer.file_size

    return await proc.run(steps(), seconds)


def _save_to(to: str) -> tuple[Path, IO[bytes]]:
    path = Path(to)
    if not path.is_absolute():
        raise BadParameter(f"to {to!r} must be an absolute path on the service's machine")
    try:
        return path, path.open("xb")
    except FileExistsError:
        raise BadParameter(f"to {to!r} exists: a read does not overwrite a file") from None
    except OSError as exc:
        raise BadParameter(f"to {to!r} cannot be written: {exc.strerror}") from None


async def read_file(
    master: Master,
    outstation: str,
    path: str,
    options: FileOptions = _DEFAULT,
    *,
    to: str | None = None,
) -> FileResult:
    """Read ``path`` whole: base64 in the answer (at most INLINE_MAX octets), or saved ``to``
    a new file (an absolute path on the service's machine; removed if the read fails)."""
    proc = _Procedure(master, outstation, "read", path)
    block, limit, seconds = options.limits()
    if to is None:
        limit = min(limit, INLINE_MAX)
    digest = hashlib.sha256()
    data = bytearray()
    target = _save_to(to) if to is not None else None
    received = [0]

    def sink(chunk: bytes) -> None:
        digest.update(chunk)
        received[0] += len(chunk)
        if target is not None:
            target[1].write(chunk)
        else:
            data.extend(chunk)

    async def steps() -> None:
        key = await proc.authenticate(options.user, options.password)
        size = await proc.open(wire.MODE_READ, key, block)
        await proc.read_blocks(size, limit, sink)
        await proc.close()

    try:
        result = await proc.run(steps(), seconds)
    finally:
        if target is not None:
            target[1].close()
    if result.complete:
        result.size, result.sha256 = received[0], digest.hexdigest()
        if target is not None:
            result.saved_to = str(target[0])
        else:
            result.data = base64.b64encode(bytes(data)).decode("ascii")
    elif target is not None:
        with contextlib.suppress(OSError):
            os.unlink(target[0])
    return result


async def write_file(
    master: Master,
    outstation: str,
    path: str,
    data: bytes,
    options: FileOptions = _DEFAULT,
    *,
    append: bool = False,
    permissions: int = 0o644,
) -> FileResult:
    """Write ``data`` to ``path`` (or append it): open for writing, blocks, close."""
    proc = _Procedure(master, outstation, "write", path)
    block, limit, seconds = options.limits()
    if len(data) > limit:
        raise BadParameter(f"{len(data)} octets: more than the {limit} a transfer moves")
    if not 0 <= permissions <= 0o777:
        raise BadParameter(f"permissions {permissions:o} are not 9 bits (0..777 octal)")
    mode = wire.MODE_APPEND if append else wire.MODE_WRITE

    async def steps() -> None:
        key = await proc.authenticate(options.user, options.password)
        size = await proc.open(mode, key, block, len(data), permissions)
        digest = hashlib.sha256()
        await proc.write_blocks(data, size, digest)
        await proc.close()
        proc.result.size = len(data)
        proc.result.sha256 = digest.hexdigest()

    return await proc.run(steps(), seconds)


async def delete_file(
    master: Master, outstation: str, path: str, options: FileOptions = _DEFAULT
) -> FileResult:
    """DELETE_FILE ``path``."""
    proc = _Procedure(master, outstation, "delete", path)
    _, _, seconds = options.limits()

    async def steps() -> None:
        key = await proc.authenticate(options.user, options.password)
        request_id = proc.next_id()
        body = wire.file_command(path, wire.MODE_NULL, request_id=request_id, auth_key=key)
        answer = await proc.ask(F.DELETE_FILE, body, (4,), by_request(request_id))
        proc.status_of(answer, "DELETE_FILE")

    return await proc.run(steps(), seconds)
