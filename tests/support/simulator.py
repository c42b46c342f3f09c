"""``gridwire sim --der`` as a user runs it: a subprocess on a free port of 127.0.0.1, having
written its own Device Profile document to a file, stopped by its pid at the end."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.net import free_port
from tests.support.processes import running


@contextmanager
def der_sim_with_profile(path: Path, *options: str) -> Iterator[tuple[int, list[str]]]:
    """The port the simulated DER listens on, and the lines it printed until it listened;
    ``options`` are more of ``gridwire sim``'s (``--misbehave NAME``...)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gridwire",
        "sim",
        "--der",
        "--bind",
        f"127.0.0.1:{port}",
        *options,
    ]
    with running(
        [*command, "--write-device-profile", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        printed: list[str] = []
        for line in proc.stdout:
            printed.append(line.rstrip("\n"))
            if re.search(r"listening on TCP ", line):
                yield port, printed
                return
        raise AssertionError(f"gridwire sim did not start: {proc.stderr and proc.stderr.read()}")
