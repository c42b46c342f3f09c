"""The JSON of an exchange's objects, made fragment by fragment as the master takes them in.

A 9000-point integrity scan arrives as some 18 fragments, and after each CONFIRM the
outstation takes about 300 us to send the next, while decoding one takes us less: the loop
waits. Written at the end, the 9000 objects' JSON (about 2 ms) came after the exchange, on
top of it. An operation whose answer is the exchange itself therefore hands the master an
:class:`EarlyObjects` (through :data:`~gridwire.master.in_flight.taken_observer`): it writes
each fragment's objects as that fragment is taken in, in the waits, and the answer's encoder
then joins those parts (D235).

The parts are written by :func:`~gridwire.operations.encoding.fragment_json`, so the octets
are those ``dumps`` gives. They are used only for a list made of the observed fragments'
object lists, in order, as the session gathers an exchange's objects
(:meth:`~gridwire.master.in_flight.InFlight.take`): the last fragments' lists, whose lengths
add up to the list's, with each one's first and last object at its place. Any other list is
written as before.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gridwire.dnp3.app.fragments import Response
from gridwire.master.in_flight import taken_observer
from gridwire.operations.encoding import CHUNK, Part, fragment_json

EARLY_OBJECTS = 4 * CHUNK
"""A fragment with more objects than this (packed binary inputs: some 16,000 in 2048 octets)
is not written as it arrives, which would hold the loop for milliseconds: its objects are
written a slice at a time with the answer, between the others' parts."""


class EarlyObjects:
    """The observer of one operation's requests: each taken fragment's objects as JSON."""

    __slots__ = ("_taken", "closed", "used")

    def __init__(self) -> None:
        self._taken: list[tuple[list[Any], memoryview | None]] = []
        self.closed = False
        """Set once the operation's answer is written: a request made later by a task the
        call started (and that inherited its context) is no longer observed."""
        self.used = 0
        """How many lists were written from these parts (for tests and benches)."""

    def __call__(self, response: Response) -> None:
        objects = response.objects
        if not objects or self.closed:
            return
        if len(objects) > EARLY_OBJECTS:
            self._taken.append((objects, None))
        else:
            octets = fragment_json(objects, response.headers)
            self._taken.append((objects, memoryview(octets)[1:-1]))

    def close(self) -> None:
        """Observe no more, and let the parts go (an answer made from them holds its own)."""
        self.closed = True
        self._taken.clear()

    def parts_for(self, items: list[Any]) -> list[Part | list[Any]] | None:
        """The JSON array of ``items`` in parts, when ``items`` is made of the last observed
        object lists in order (see the module's text); else None. A fragment's list too long
        to have been written as it came is given as it is, to be written a slice at a time."""
        taken = self._taken
        count = len(items)
        start = len(taken)
        total = 0
        while total < count and start > 0:
            start -= 1
            total += len(taken[start][0])
        if total != count or not count:
            return None
        parts: list[Part | list[Any]] = [b"["]
        position = 0
        for objects, octets in taken[start:]:
            last = position + len(objects) - 1
            if items[position] is not objects[0] or items[last] is not objects[-1]:
                return None
            if position:
                parts.append(b",")
            parts.append(objects if octets is None else octets)
            position = last + 1
        parts.append(b"]")
        self.used += 1
        return parts


@contextmanager
def observing(early: EarlyObjects | None) -> Iterator[None]:
    """Hand the master ``early`` as the observer of the requests made in this block, and
    close it at the block's end."""
    if early is None:
        yield
        return
    token: contextvars.Token[Any] = taken_observer.set(early)
    try:
        yield
    finally:
        taken_observer.reset(token)
        early.close()
