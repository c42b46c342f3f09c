"""Element names made readable: ``gatewayIPAddress`` is "Gateway IP Address".

A name is cut into words where its case changes and where digits begin or end; each word is
capitalized, and the abbreviations the Device Profile documents use are written in capitals
however the element spells them (``tcpListenPort`` is "TCP Listen Port", ``outstationId``
"Outstation ID", ``dnp3...`` "DNP3 ...", ``additionalCriticalFCs`` "Additional Critical FCs");
an internal indication's two digits are its octet and bit (``outstationSetsIIN14`` is
"Outstation Sets IIN1.4"), and a serial standard reads as written (``rs485Options`` is
"RS-485 Options").
"""

from __future__ import annotations

import re
from functools import lru_cache

ABBREVIATIONS = frozenset(
    {"DNP3", "IIN", "TCP", "TLS", "UDP", "UTC", "XML", "CROB", "IP", "LAN", "IEC", "ID"}
)
_BY_FOLDED = {a.casefold(): a for a in ABBREVIATIONS}
# A plural abbreviation (``FCs``) first, then an abbreviation before a word, a word, an
# abbreviation, a number.
_WORDS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SERIAL = frozenset({"232", "422", "485"})  # rs232Options: "RS-232 Options"


@lru_cache(maxsize=4096)
def label(name: str) -> str:
    """The readable form of an element or attribute name (the name itself when it is not
    ASCII or has no letters or digits to make words of)."""
    words = _WORDS.findall(name) if name.isascii() else []
    out: list[str] = []
    for word in words:
        if out and word.isdigit():
            if out[-1] == "DNP" and word == "3":
                out[-1] = "DNP3"
                continue
            if out[-1] == "IIN" and len(word) == 2:  # outstationSetsIIN14: IIN1.4
                out[-1] = f"IIN{word[0]}.{word[1]}"
                continue
            if out[-1] == "Rs" and word in _SERIAL:
                out[-1] = f"RS-{word}"
                continue
        known = _BY_FOLDED.get(word.casefold())
        if known is not None:
            out.append(known)
        elif word.casefold() == "dnp":
            out.append("DNP")
        else:
            out.append(word[:1].upper() + word[1:])
    return " ".join(out) if out else name
