"""Waiting for a condition in a test: the one polling helper, in a synchronous and an
asynchronous form. Prefer an event where the code under test offers one; poll where it
does not (a peer's log, a process's state)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def eventually(condition: Callable[[], object], within: float = 10.0, every: float = 0.05) -> bool:
    """Whether ``condition()`` is true within ``within`` seconds, asked every ``every`` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


async def until(condition: Callable[[], object], within: float = 10.0, every: float = 0.02) -> None:
    """Wait, letting the loop run, until ``condition()`` is true; AssertionError naming the
    time allowed when it is not within ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"the condition did not hold within {within} s")
        await asyncio.sleep(every)
