"""Where a gridwire program listens: one rule for every address it binds.

The same text is read the same way by ``gridwire console`` (``--bind``, ``console.bind``),
``gridwire serve`` (``--bind``, ``serve.bind``), ``gridwire sim`` (``--bind``, ``bind``) and
``gridwire sep2`` (``--api-bind``, ``api.bind``):

- ``HOST:PORT``: that host and port. HOST is an IPv4 address (``0.0.0.0`` for every
  interface), a name (``localhost``, ``gateway.example``), or an IPv6 address in brackets
  (``[::1]:8815``, ``[::]:8815`` for every interface).
- ``HOST`` alone (``[IPv6]`` alone): the program's own port (console 8815, serve 8816, sim
  20000, sep2 8830).
- ``:PORT``: 127.0.0.1 with that port. A host left out is this machine, never every
  interface (as ``:8080`` is in some tools): these programs command equipment, so listening
  beyond this machine is always written out.
- PORT is a number from 0 to 65535; 0 takes a free port, which the program prints.
- Spaces around the whole are ignored. Anything else (an IPv6 address without brackets, a
  port that is not a number, a colon with no port after it) is refused in one line that
  names the setting, the text given, what is wrong and this rule.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Final, NoReturn

from gridwire.errors import ConfigError

LOOPBACK: Final = "127.0.0.1"
"""The host of a bind that names none."""
RULE: Final = "HOST:PORT, HOST, :PORT (host 127.0.0.1) or [IPv6]:PORT, with a port 0-65535"
"""The rule, as the errors state it."""
HOST_LENGTH: Final = 253
"""The longest host name (a DNS name's most)."""
LONGEST: Final = 300
"""The longest bind text read (a DNS name's 253 characters, a port, and room to spare)."""

_LABEL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
_DOTTED = re.compile(r"[0-9.]+")
_PORT = re.compile(r"[0-9]{1,5}")


def parse_bind(text: str, default_port: int, setting: str = "bind") -> tuple[str, int]:
    """The host (IPv6 without its brackets) and port that ``text`` names, by the rule above;
    ``default_port`` when it names none. ConfigError naming ``setting`` otherwise."""

    def refuse(why: str) -> NoReturn:
        shown = text if len(text) <= 80 else f"{text[:77]}..."
        raise ConfigError(f"{setting} {shown!r}: {why}; expected {RULE}")

    given = text.strip()
    if not given:
        refuse("names no address")
    if len(given) > LONGEST:
        refuse(f"is longer than {LONGEST} characters")
    if given.startswith("["):
        inside, closed, rest = given[1:].partition("]")
        if not closed:
            refuse("an IPv6 address in brackets needs its closing ]")
        if rest and not rest.startswith(":"):
            refuse("only :PORT may follow the ]")
        if not _is_ipv6(inside):
            refuse(f"{inside!r} in brackets is not an IPv6 address")
        host, port_text = inside, rest[1:] if rest else None
    elif given.count(":") > 1:
        refuse("an IPv6 address goes in brackets, as [::1]:8815")
    else:
        host, colon, after = given.partition(":")
        port_text = after if colon else None
        host = host or LOOPBACK
        problem = _host_problem(host)
        if problem is not None:
            refuse(problem)
    if port_text is None:
        return host, default_port
    if not port_text:
        refuse("no port follows the ':'")
    if not _PORT.fullmatch(port_text) or int(port_text) > 65535:
        refuse(f"the port {port_text!r} is not 0-65535")
    return host, int(port_text)


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _host_problem(host: str) -> str | None:
    """Why ``host`` (not in brackets) is neither an IPv4 address nor a DNS name, or None."""
    if host.isdecimal() and host.isascii():
        return f"{host!r} is not a host (a port alone is written :{host})"
    if _DOTTED.fullmatch(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"{host!r} is not an IPv4 address"
        return None
    name = host[:-1] if host.endswith(".") else host
    if len(name) <= HOST_LENGTH and all(_LABEL.fullmatch(label) for label in name.split(".")):
        return None
    return f"{host!r} is not a host name or address"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as :func:`parse_bind` gives it, or in brackets) names this machine
    only: a loopback address, or ``localhost``."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
