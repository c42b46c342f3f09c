"""Hypothesis on the group 70 decoder: any octets inside a g70 object, any directory data and
any file request body are read or refused with a clear reason, never a crash; what the
encoders write reads back as it was."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.dnp3 import files as w
from gridwire.dnp3.app.fragments import parse_request, parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.records import FileDescriptor
from gridwire.master import gate
from gridwire.outstation.files import FileServer
from gridwire.outstation.refusal import Refused

VARIATIONS = st.sampled_from([2, 3, 4, 5, 6, 7, 8])
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("served")
    (root / "a").write_bytes(b"abc")
    (root / "d").mkdir()
    return root


FILE_FUNCTIONS = st.sampled_from(
    [FunctionCode.OPEN_FILE, FunctionCode.CLOSE_FILE, FunctionCode.ABORT_FILE]
)


@settings(max_examples=150, deadline=None)
@given(variation=VARIATIONS, body=st.binary(max_size=80), declared=st.integers(0, 0xFFFF))
def test_any_octets_in_a_g70_object(variation: int, body: bytes, declared: int) -> None:
    """A response with one g70 object of any content and any declared size: the object
    decodes, or the walk stops at it with a reason (what follows the object is read as the
    next header)."""
    octets = bytes((0xC0, 0x81, 0, 0, 70, variation, 0x5B, 1)) + struct.pack("<H", declared)
    response = parse_response(octets + body[:declared])
    if response.undecoded:
        (stop,) = response.undecoded
        assert (stop.offset, stop.group, stop.variation) == (4, 70, variation)
        assert stop.reason
    else:
        assert [(o.group, o.variation) for o in response.objects] == [(70, variation)]
        assert declared <= len(body)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=120))
def test_any_directory_data(data: bytes) -> None:
    try:
        entries = w.read_directory(data)
    except DecodeError as exc:
        assert str(exc).startswith("directory entry")
    else:
        assert b"".join(w.descriptor_octets(e) for e in entries) == data


DESCRIPTORS = st.builds(
    FileDescriptor,
    NAMES,
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFFFFFF),
    st.integers(0, 2**48 - 1),
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
)


@settings(max_examples=150, deadline=None)
@given(entries=st.lists(DESCRIPTORS, max_size=5))
def test_directories_read_back(entries: list[FileDescriptor]) -> None:
    data = b"".join(w.descriptor_octets(e) for e in entries)
    assert w.read_directory(data) == entries


@settings(max_examples=150, deadline=None)
@given(function=FILE_FUNCTIONS, body=st.binary(max_size=60), handles=st.sets(st.integers(0, 9)))
def test_the_gate_reads_any_file_request(
    function: FunctionCode, body: bytes, handles: set[int]
) -> None:
    """Whatever the body, the gate answers; it lets a file request through without control
    only when the request parses to g70 objects that all read."""
    verdict = gate.commands(function, body, handles)
    parsed = parse_request(bytes((0xC0, function)) + body)
    if parsed.undecoded or not parsed.objects:
        assert verdict


@settings(max_examples=50, deadline=None)
@given(name=NAMES.filter(bool), mode=st.integers(0, 0xFFFF), handle=st.integers(0, 2**32 - 1))
def test_the_gate_on_file_requests(name: str, mode: int, handle: int) -> None:
    opened = w.file_command(name, mode)
    assert gate.commands(FunctionCode.OPEN_FILE, opened) is (mode != w.MODE_READ)
    closing = w.command_status(handle)
    for function in (FunctionCode.CLOSE_FILE, FunctionCode.ABORT_FILE):
        assert gate.commands(function, closing, {handle}) is False
        assert gate.commands(function, closing, set()) is True
        assert gate.commands(function, None, {handle}) is True  # body unknown
    assert gate.commands(FunctionCode.DELETE_FILE, w.file_command(name, 0)) is True
    assert gate.commands(FunctionCode.GET_FILE_INFO, w.descriptor(name)) is False


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    function=st.sampled_from(
        [
            FunctionCode.OPEN_FILE,
            FunctionCode.DELETE_FILE,
            FunctionCode.GET_FILE_INFO,
            FunctionCode.CLOSE_FILE,
            FunctionCode.READ,
            FunctionCode.WRITE,
        ]
    ),
    name=st.one_of(NAMES, st.text(min_size=250, max_size=400)),
    mode=st.integers(0, 4),
    number=st.integers(0, 3),
)
def test_the_outstation_answers_any_file_request(
    served: Path, function: FunctionCode, name: str, mode: int, number: int
) -> None:
    """gridwire's outstation answers any file request with a g70 object, or refuses it by
    its indications; nothing it is given escapes as another exception."""
    server = FileServer(served, writable=True)
    bodies = {
        FunctionCode.OPEN_FILE: w.file_command(name, mode),
        FunctionCode.DELETE_FILE: w.file_command(name, 0),
        FunctionCode.GET_FILE_INFO: w.descriptor(name),
        FunctionCode.CLOSE_FILE: w.command_status(number),
        FunctionCode.READ: w.transport(number, number),
        FunctionCode.WRITE: w.transport(number, number, b"x"),
    }
    request = parse_request(bytes((0xC0, function)) + bodies[function])
    try:
        answer = server.answer(request)
    except Refused as refused:
        assert refused.iin
    else:
        assert parse_response(bytes((0xC0, 0x81, 0, 0)) + answer).objects[0].group == 70
