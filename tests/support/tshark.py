"""Wireshark's dissector (tshark) as an independent reader of what we put on the wire.

Where tshark is missing the test is skipped, except under CI (CI=true), where .ci/run installs
it and its absence is a failure rather than a silent skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def tshark_path() -> str:
    path = shutil.which("tshark")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tshark is not installed; .ci/run should have installed it")
        pytest.skip("tshark is not installed (apt-get install tshark)")
    return path


# Wireshark leaves IP and TCP checksums unverified by default; these preferences verify them.
VALIDATE_CHECKSUMS = ["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"]


def tshark_fields(
    pcap: Path,
    port: int,
    fields: list[str],
    display_filter: str = "",
    *,
    validate_checksums: bool = False,
) -> list[list[str]]:
    """Decode ``pcap`` with DNP3 on ``port`` and return one list of field values per packet
    (several occurrences of a field joined by commas); with ``validate_checksums`` Wireshark
    verifies the IP and TCP checksums, so their ``*.checksum.status`` fields are filled."""
    cmd = [tshark_path(), "-r", str(pcap), "-d", f"tcp.port=={port},dnp3", "-T", "fields"]
    cmd += VALIDATE_CHECKSUMS if validate_checksums else []
    cmd += ["-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def tshark_verbose(pcap: Path, port: int) -> str:
    cmd = [tshark_path(), "-r", str(pcap), "-d", f"tcp.port=={port},dnp3", "-V"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout
