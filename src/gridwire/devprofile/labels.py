"""Element names made readable: ``gatewayIPAddress`` is "Gateway IP Address".

A name is cut into words where its case changes and where digits begin or end; each word is
capitalized, and the abbreviations the Device Profile documents use are written in capitals
however the element spells them (``tcpListenPort`` is "TCP Listen Port", ``outstationId``
"Outstation ID", ``dnp3...`` "DNP3 ...").
"""

from __future__ import annotations

import re
from functools import lru_cache

ABBREVIATIONS = frozenset(
    {"DNP3", "IIN", "TCP", "TLS", "UDP", "UTC", "XML", "CROB", "IP", "LAN", "IEC", "ID"}
)
_BY_FOLDED = {a.casefold(): a for a in ABBREVIATIONS}
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@lru_cache(maxsize=4096)
def label(name: str) -> str:
    """The readable form of an element or attribute name (the name itself when it is not
    ASCII or has no letters or digits to make words of)."""
    words = _WORDS.findall(name) if name.isascii() else []
    out: list[str] = []
    for word in words:
        if out and word.isdigit() and out[-1] == "DNP" and word == "3":
            out[-1] = "DNP3"
            continue
        known = _BY_FOLDED.get(word.casefold())
        if known is not None:
            out.append(known)
        elif word.casefold() == "dnp":
            out.append("DNP")
        else:
            out.append(word[:1].upper() + word[1:])
    return " ".join(out) if out else name
