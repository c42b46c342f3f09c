"""The object data of IEEE 1815-2012's file procedures (group 70, free format 0x5B), for the
master to send and the outstation to answer with, and the directory a read of one gives.

Each builder returns one object header and its object (the body of a request or response);
:func:`gridwire.dnp3.requests.request` makes the fragment. The procedures (IEEE 1815-2012
clause 11.7 and the g70 objects of Annex A):

=====================  ===========================  ======================================
request function       master sends                 outstation answers
=====================  ===========================  ======================================
AUTHENTICATE_FILE 29   g70v2 user name, password    g70v2 with the key (0: refused)
OPEN_FILE 25           g70v3 name, mode, block size g70v4 handle, size, block size, status
READ 1                 g70v5 handle, block (empty)  g70v5 the block's data (bit 31: last),
                                                    or g70v6 a status
WRITE 2                g70v5 handle, block, data    g70v6 status of the block
CLOSE_FILE 26          g70v4 handle                 g70v4 status
ABORT_FILE 30          g70v4 handle                 g70v4 status
DELETE_FILE 27         g70v3 name (mode 0)          g70v4 status
GET_FILE_INFO 28       g70v7 name                   g70v7 type, size, time, permissions
=====================  ===========================  ======================================

Opening a directory for reading gives a file whose data are g70v7 descriptors, one after
another, each as long as its name's offset plus its name's size (:func:`read_directory`).
"""

from __future__ import annotations

from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.freeformat import decode_free, encode_free
from gridwire.dnp3.objects.records import (
    FileAuthentication,
    FileCommand,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
)
from gridwire.dnp3.objects.table import lookup

MODE_NULL, MODE_READ, MODE_WRITE, MODE_APPEND = 0, 1, 2, 3
MODES = {"read": MODE_READ, "write": MODE_WRITE, "append": MODE_APPEND}
TYPE_DIRECTORY, TYPE_FILE = 0, 1
DESCRIPTOR_FIXED = 20
"""Octets of a g70v7 before its name: offset, size, type, file size, time, permissions, id."""
FILE_COMMAND_FIXED = 26
"""Octets of a g70v3 before its name."""
BLOCK_OVERHEAD = 4 + 2 + 8
"""Octets a g70v5 takes in a fragment besides its data: header with count (46 05 5B 01),
the size prefix, handle and block number."""


def _one(variation: int, value: object) -> bytes:
    return encode_objects(70, variation, [Item(None, value)])


def authentication(user_name: str, password: str, auth_key: int = 0) -> bytes:
    """g70v2: the master's credentials (key 0), or the outstation's answer with the key."""
    return _one(2, FileAuthentication(user_name, password, auth_key))


def file_command(
    file_name: str,
    mode: int,
    *,
    max_block_size: int = 0,
    request_id: int = 0,
    auth_key: int = 0,
    file_size: int = 0,
    permissions: int = 0,
    created_ms: int = 0,
) -> bytes:
    """g70v3: OPEN_FILE (mode read, write or append) or DELETE_FILE (mode 0)."""
    command = FileCommand(
        file_name, created_ms, permissions, auth_key, file_size, mode, max_block_size, request_id
    )
    return _one(3, command)


def command_status(
    file_handle: int,
    status: str = "SUCCESS",
    *,
    file_size: int = 0,
    max_block_size: int = 0,
    request_id: int = 0,
    text: str = "",
) -> bytes:
    """g70v4: CLOSE_FILE and ABORT_FILE name the handle; the outstation's answer to an open,
    close, abort or delete."""
    return _one(
        4, FileCommandStatus(file_handle, file_size, max_block_size, request_id, status, text)
    )


def transport(file_handle: int, block: int, data: bytes = b"", *, last: bool = False) -> bytes:
    """g70v5: a READ of block ``block`` (no data), or a block of data (a WRITE's, or the
    outstation's answer to a read); ``last`` sets bit 31 of the block number."""
    return _one(5, FileTransport(file_handle, block, last, data))


def transport_status(
    file_handle: int, block: int, status: str, *, last: bool = False, text: str = ""
) -> bytes:
    """g70v6: the outstation's status of a block written, or of a block it cannot read."""
    return _one(6, FileTransportStatus(file_handle, block, last, status, text))


def descriptor(
    file_name: str,
    file_type: int = TYPE_FILE,
    file_size: int = 0,
    created_ms: int = 0,
    permissions: int = 0,
    request_id: int = 0,
) -> bytes:
    """g70v7: GET_FILE_INFO names the file (the rest 0); the outstation answers with it."""
    return _one(
        7, FileDescriptor(file_name, file_type, file_size, created_ms, permissions, request_id)
    )


def descriptor_octets(entry: FileDescriptor) -> bytes:
    """One g70v7 as it sits in a directory's data: no header, no size prefix."""
    layout = lookup(70, 7)
    assert layout is not None and layout.free is not None
    return encode_free(layout.free, entry)


def read_directory(data: bytes) -> list[FileDescriptor]:
    """The g70v7 descriptors a directory's data hold; DecodeError when they do not parse
    (a descriptor cut short, a name outside it)."""
    layout = lookup(70, 7)
    assert layout is not None and layout.free is not None
    entries: list[FileDescriptor] = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < DESCRIPTOR_FIXED:
            raise DecodeError(
                f"directory entry {len(entries)} at octet {pos}: {len(data) - pos} octets, "
                f"fewer than a descriptor's {DESCRIPTOR_FIXED}"
            )
        offset = int.from_bytes(data[pos : pos + 2], "little")
        size = int.from_bytes(data[pos + 2 : pos + 4], "little")
        if offset != DESCRIPTOR_FIXED:
            raise DecodeError(
                f"directory entry {len(entries)}: name offset {offset}, not {DESCRIPTOR_FIXED}"
            )
        end = pos + offset + size
        if end > len(data):
            raise DecodeError(f"directory entry {len(entries)}: name runs past the data")
        entry = decode_free(layout.free, data[pos:end])
        assert isinstance(entry, FileDescriptor)
        entries.append(entry)
        pos = end
    return entries
