"""How a request is refused: out loud, with the internal indication that says why."""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.table import lookup


class Refused(Exception):
    """A request (or one of its headers) the outstation will not carry out. ``iin`` is the
    indication the response carries: FUNC_NOT_SUPPORTED, OBJECT_UNKNOWN or PARAMETER_ERROR.
    Nothing of a refused request is carried out."""

    def __init__(self, iin: IIN, reason: str) -> None:
        super().__init__(reason)
        self.iin = iin


def unreadable(group: int | None, variation: int | None, reason: str) -> Refused:
    """The refusal for a header the request parser could not read: OBJECT_UNKNOWN when the
    object library does not know its group and variation, else PARAMETER_ERROR."""
    if group is not None and variation is not None and lookup(group, variation) is None:
        return Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation}: {reason}")
    return Refused(IIN.PARAMETER_ERROR, reason)
