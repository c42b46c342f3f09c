"""A pair of pseudo-terminals joined by Debian's socat, as a null-modem cable: what one end
writes the other reads. Started by the test, stopped by its pid."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.processes import running
from tests.support.waiting import eventually


def socat_path() -> str:
    path = shutil.which("socat")
    if path is None:
        pytest.skip("socat is not installed (apt-get install socat; .ci/run installs it)")
    return path


@contextmanager
def pty_pair(where: Path) -> Iterator[tuple[str, str]]:
    """Two device paths, each end of one serial line."""
    a, b = where / "ttyA", where / "ttyB"
    command = [socat_path(), "-d", "-d"]
    command += [f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={b}"]
    with running(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        if not eventually(lambda: (a.exists() and b.exists()) or proc.poll() is not None, 10):
            raise AssertionError("socat made no pseudo-terminals")
        if proc.poll() is not None:
            raise AssertionError(f"socat ended: {proc.stderr and proc.stderr.read()}")
        yield str(a), str(b)
