"""A pcap file written as frames go by, rotated by size: the I/O edge of :mod:`.tcpflow`.

The current file is ``path``; when the next record would take it past ``max_bytes`` it is
renamed ``path.1`` (an older ``path.1`` becomes ``path.2`` and so on, at most ``keep`` of them
kept, the oldest deleted) and a new ``path`` begins with its own global header. Every file
stands alone: a connection's first record in a file is preceded by a handshake, so Wireshark
follows each stream in each file. A file always takes at least one record, so a record larger
than ``max_bytes`` still gets written (alone in its file).

Writes are unbuffered, one ``write`` per record, so a reader (or a crash) sees whole records.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from gridwire.capture.pcap import GLOBAL_HEADER_SIZE, Timestamp, global_header
from gridwire.capture.tcpflow import Direction, TcpFlow
from gridwire.errors import ConfigError


class RotatingPcapWriter:
    """Writes the records of any number of :class:`TcpFlow` s into ``path``, rotating by size.

    A ``path`` that already holds a capture when the first record comes is rotated away
    first, so a new run never overwrites the last one's frames.
    """

    def __init__(self, path: str | os.PathLike[str], max_bytes: int, keep: int) -> None:
        if max_bytes < 1:
            raise ConfigError(f"capture max_bytes must be at least 1, not {max_bytes}")
        if keep < 0:
            raise ConfigError(f"capture keep must be 0 or more, not {keep}")
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.keep = keep
        self._file: BinaryIO | None = None
        self._size = 0
        self._records = 0
        self._introduced: weakref.WeakSet[TcpFlow] = weakref.WeakSet()

    @property
    def size(self) -> int:
        """Octets in the current file (0 before the first record)."""
        return self._size

    def write(
        self, flow: TcpFlow, direction: Direction, payload: bytes, timestamp: Timestamp
    ) -> None:
        """Append one segment of ``flow`` carrying ``payload``, rotating first if needed."""
        needed = flow.record_size(len(payload))
        if flow not in self._introduced:
            needed += flow.handshake_size
        if self._file is not None and self._records and self._size + needed > self.max_bytes:
            self._rotate()
        if self._file is None:
            self._open()
            assert self._file is not None
        handshake = b""
        if flow not in self._introduced:
            self._introduced.add(flow)
            handshake = flow.handshake(timestamp)
        octets = handshake + flow.record(direction, payload, timestamp)
        self._file.write(octets)
        self._size += len(octets)
        self._records += 1

    def _open(self) -> None:
        if self.path.exists() and self.path.stat().st_size > 0:
            self._shift()
        self._file = open(self.path, "wb", buffering=0)  # noqa: SIM115 - held open across calls
        self._file.write(global_header())
        self._size = GLOBAL_HEADER_SIZE
        self._records = 0

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        self._file = None
        self._introduced = weakref.WeakSet()
        self._shift()
        self._open()

    def _shift(self) -> None:
        """path -> path.1 -> path.2 ... keeping ``keep`` of them; the oldest is deleted."""
        if self.keep == 0:
            self.path.unlink(missing_ok=True)
            return
        self._numbered(self.keep).unlink(missing_ok=True)
        for number in range(self.keep - 1, 0, -1):
            older = self._numbered(number)
            if older.exists():
                older.rename(self._numbered(number + 1))
        self.path.rename(self._numbered(1))

    def _numbered(self, number: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{number}")

    def flush(self) -> None:
        """Nothing to do: every record is written through at once. Kept for file-like use."""

    def close(self) -> None:
        """Close the current file. A later write opens ``path`` again (rotating it first)."""
        if self._file is not None:
            self._file.close()
            self._file = None
            self._introduced = weakref.WeakSet()

    def __enter__(self) -> RotatingPcapWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
