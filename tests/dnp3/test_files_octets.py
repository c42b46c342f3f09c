"""The file procedures' requests and answers (IEEE 1815-2012 group 70, free format 0x5B) as
octets derived by hand from the standard's object layouts: each builder's fragment, and each
answer read back by the response parser. A size-prefixed object is: group 46, variation,
qualifier 5B (2-octet size prefix, 1-octet count), count 01, size (u16), the object."""

from __future__ import annotations

import pytest

from gridwire.dnp3 import files as w
from gridwire.dnp3.app.fragments import parse_request, parse_response
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.records import (
    FileAuthentication,
    FileCommand,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
)
from gridwire.dnp3.requests import request


def _hex(text: str) -> bytes:
    return bytes.fromhex(text)


REQUESTS = [
    (
        "open for reading",
        request(3, "OPEN_FILE", w.file_command("/a.txt", 1, max_block_size=1024, request_id=1)),
        # C3 (FIR FIN seq 3) 19 (OPEN_FILE 25); g70v3 of 0x20 = 26 + 6 octets: name at 0x1A
        # size 6; created 0 (6); permissions 0; key 0; file size 0; mode 1; block 0x0400;
        # request id 1; "/a.txt"
        "C3 19 46 03 5B 01 20 00 1A 00 06 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        " 01 00 00 04 01 00 2F 61 2E 74 78 74",
    ),
    (
        "open for writing",
        request(
            5,
            "OPEN_FILE",
            w.file_command(
                "b",
                2,
                max_block_size=512,
                request_id=9,
                auth_key=0x11223344,
                file_size=300,
                permissions=0o644,
                created_ms=0x0102030405,
            ),
        ),
        # name at 26 size 1; created 05 04 03 02 01 00; permissions 0x01A4; key 44 33 22 11;
        # size 0x012C; mode 2; block 0x0200; request 9; "b"
        "C5 19 46 03 5B 01 1B 00 1A 00 01 00 05 04 03 02 01 00 A4 01 44 33 22 11 2C 01 00 00"
        " 02 00 00 02 09 00 62",
    ),
    (
        "read block 2 of handle 7",
        request(4, "READ", w.transport(7, 2)),
        # READ (01); g70v5 of 8 octets: handle 7, block 2, no data
        "C4 01 46 05 5B 01 08 00 07 00 00 00 02 00 00 00",
    ),
    (
        "write the last block",
        request(6, "WRITE", w.transport(7, 1, b"xy", last=True)),
        # WRITE (02); g70v5 of 10: handle 7, block 1 | bit 31, "xy"
        "C6 02 46 05 5B 01 0A 00 07 00 00 00 01 00 00 80 78 79",
    ),
    (
        "close",
        request(7, "CLOSE_FILE", w.command_status(7, request_id=3)),
        # CLOSE_FILE (1A); g70v4 of 13: handle 7, size 0, block 0, request 3, status 0
        "C7 1A 46 04 5B 01 0D 00 07 00 00 00 00 00 00 00 00 00 03 00 00",
    ),
    (
        "abort",
        request(8, "ABORT_FILE", w.command_status(7, request_id=4)),
        "C8 1E 46 04 5B 01 0D 00 07 00 00 00 00 00 00 00 00 00 04 00 00",
    ),
    (
        "delete",
        request(9, "DELETE_FILE", w.file_command("/c", 0, request_id=2)),
        # DELETE_FILE (1B); g70v3 of 28: name at 26 size 2, mode 0, request 2, "/c"
        "C9 1B 46 03 5B 01 1C 00 1A 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        " 00 00 00 00 02 00 2F 63",
    ),
    (
        "get file info",
        request(10, "GET_FILE_INFO", w.descriptor("/c", 0, request_id=5)),
        # GET_FILE_INFO (1C); g70v7 of 22: name at 20 (0x14) size 2, type 0, size 0, time 0,
        # permissions 0, request 5, "/c"
        "CA 1C 46 07 5B 01 16 00 14 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 05 00 2F 63",
    ),
    (
        "authenticate",
        request(11, "AUTHENTICATE_FILE", w.authentication("op", "pw")),
        # AUTHENTICATE_FILE (1D); g70v2 of 16: user at 12 size 2, password at 14 size 2,
        # key 0, "op", "pw"
        "CB 1D 46 02 5B 01 10 00 0C 00 02 00 0E 00 02 00 00 00 00 00 6F 70 70 77",
    ),
]


@pytest.mark.parametrize(("name", "built", "octets"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_request_octets(name: str, built: bytes, octets: str) -> None:
    assert built == _hex(octets)
    # and the outstation's parser reads each back to one g70 object
    parsed = parse_request(built)
    assert not parsed.undecoded and len(parsed.objects) == 1


def _answer(body: str) -> object:
    """The one object of a RESPONSE (C0 81, IIN 00 00) carrying ``body``."""
    response = parse_response(_hex("C0 81 00 00 " + body))
    assert not response.undecoded
    (obj,) = response.objects
    return obj.value


def test_answers_read_back() -> None:
    # open answered: handle 7, size 5000 (0x1388), block 0x0400, request 1, SUCCESS
    assert _answer("46 04 5B 01 0D 00 07 00 00 00 88 13 00 00 00 04 01 00 00") == (
        FileCommandStatus(7, 5000, 1024, 1, "SUCCESS", "")
    )
    # an error status with text: 3 FILE_NOT_FOUND, "no"
    assert _answer("46 04 5B 01 0F 00 00 00 00 00 00 00 00 00 00 00 01 00 03 6E 6F") == (
        FileCommandStatus(0, 0, 0, 1, "FILE_NOT_FOUND", "no")
    )
    # block 0 of handle 7, the last, "hi"
    assert _answer("46 05 5B 01 0A 00 07 00 00 00 00 00 00 80 68 69") == (
        FileTransport(7, 0, True, b"hi")
    )
    # a written block's status: handle 7, block 3, 20 BLOCK_SEQ
    assert _answer("46 06 5B 01 09 00 07 00 00 00 03 00 00 00 14") == (
        FileTransportStatus(7, 3, False, "BLOCK_SEQ", "")
    )
    # authenticated: key 0xCAFE
    assert _answer("46 02 5B 01 0C 00 0C 00 00 00 0C 00 00 00 FE CA 00 00") == (
        FileAuthentication("", "", 0xCAFE)
    )
    # a file's descriptor: "/c", file, 100 octets, time 0x0102030405, rw-r--r--, request 5
    assert _answer(
        "46 07 5B 01 16 00 14 00 02 00 01 00 64 00 00 00 05 04 03 02 01 00 A4 01 05 00 2F 63"
    ) == FileDescriptor("/c", 1, 100, 0x0102030405, 0o644, 5)


def test_builders_of_answers_match_the_same_octets() -> None:
    assert w.command_status(7, file_size=5000, max_block_size=1024, request_id=1) == _hex(
        "46 04 5B 01 0D 00 07 00 00 00 88 13 00 00 00 04 01 00 00"
    )
    assert w.transport_status(7, 3, "BLOCK_SEQ") == _hex(
        "46 06 5B 01 09 00 07 00 00 00 03 00 00 00 14"
    )
    assert w.authentication("", "", 0xCAFE) == _hex(
        "46 02 5B 01 0C 00 0C 00 00 00 0C 00 00 00 FE CA 00 00"
    )


# A directory's data: two g70v7 without header or size prefix, each 20 octets and its name.
DIRECTORY = (
    "14 00 05 00 01 00 0A 00 00 00 00 00 00 00 00 00 A4 01 00 00 61 2E 74 78 74"  # a.txt
    " 14 00 04 00 00 00 00 00 00 00 00 00 00 00 00 00 ED 01 00 00 6C 6F 67 73"  # logs
)


def test_directory_data() -> None:
    entries = w.read_directory(_hex(DIRECTORY))
    assert entries == [
        FileDescriptor("a.txt", 1, 10, 0, 0o644, 0),
        FileDescriptor("logs", 0, 0, 0, 0o755, 0),
    ]
    assert b"".join(w.descriptor_octets(e) for e in entries) == _hex(DIRECTORY)
    assert w.read_directory(b"") == []


@pytest.mark.parametrize(
    ("octets", "reason"),
    [
        ("14 00 05 00 01 00", "fewer than a descriptor's 20"),
        ("10 00 00 00" + " 00" * 16, "name offset 16"),
        ("14 00 09 00" + " 00" * 16 + " 61", "runs past"),
    ],
)
def test_directory_data_that_does_not_parse(octets: str, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        w.read_directory(_hex(octets))


def test_a_file_command_read_back_whole() -> None:
    parsed = parse_request(REQUESTS[1][1])
    assert parsed.objects[0].value == FileCommand(
        "b", 0x0102030405, 0o644, 0x11223344, 300, 2, 512, 9
    )
