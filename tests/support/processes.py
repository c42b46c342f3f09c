"""Subprocesses a test starts, each stopped by its pid when the test ends."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def running(cmd: list[str], **kwargs: object) -> Iterator[subprocess.Popen[str]]:
    proc: subprocess.Popen[str] = subprocess.Popen(  # type: ignore[call-overload]
        cmd, text=True, start_new_session=True, **kwargs
    )
    try:
        yield proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[str], grace: float = 5.0) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=grace)
