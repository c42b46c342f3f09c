"""Who is being served: the client on whose behalf the code now running acts, for the log.

A transport names the client a message came from while that message is carried out
(:func:`on_behalf`): ``http HOST:PORT`` or ``line HOST:PORT``, the client's own address.
Code called straight from Python acts for ``python``. It is a context variable, so each
message (its own asyncio task, or the tasks it starts) carries its own client down to the
master's log lines that say who asked (``deviate``), with no parameter passed through the
layers between.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextvars import ContextVar
from typing import Final, TypeVar

PYTHON: Final = "python"

_caller: ContextVar[str] = ContextVar("gridwire_caller", default=PYTHON)
T = TypeVar("T")


def caller() -> str:
    """The client the code now running acts for."""
    return _caller.get()


async def on_behalf(who: str, work: Awaitable[T]) -> T:
    """Await ``work`` acting for ``who`` (and the tasks it starts, which copy the context)."""
    token = _caller.set(who)
    try:
        return await work
    finally:
        _caller.reset(token)


def peer_name(transport: str, address: object) -> str:
    """``TRANSPORT HOST:PORT`` for a peer address as asyncio or ASGI give it (a tuple whose
    first two items are the host and the port); an IPv6 host is bracketed."""
    if isinstance(address, tuple | list) and len(address) >= 2:
        host, port = address[0], address[1]
        shown = f"[{host}]" if ":" in str(host) else str(host)
        return f"{transport} {shown}:{port}"
    return f"{transport} (address unknown)"
