"""der.enable and der.disable: latch a DER function's enable output on or off, then read the
input that reports whether the function is enabled (the enable output's mirror).

``enabled`` is that input's state, null when the tables give the function no such input or
no read returned it; ``status`` is its reading. The readback is read whatever became of the
control, so a refused enable shows the function as it stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind
from gridwire.derops.operated import Mode, Operated, operated_of
from gridwire.derops.profile import function_named
from gridwire.derops.read import read_points
from gridwire.derops.readings import DerReading
from gridwire.master import Master
from gridwire.master.command_log import command
from gridwire.master.controls import Control
from gridwire.master.records import Exchange


@dataclass(slots=True)
class EnableResult:
    """``function`` is the function's key, ``enable`` the address of its enable output."""

    function: str
    name: str
    enable: str
    accepted: bool | None
    enabled: bool | None
    status: DerReading | None
    operated: Operated
    exchanges: list[Exchange]


async def der_enable(
    master: Master,
    outstation: str,
    point_map: PointMap,
    function: str,
    on: bool,
    mode: Mode = "direct",
) -> EnableResult:
    """Latch the enable output of the function ``function`` names (``on``: enable), then read
    its enabled input. Raises NotAllowed from the master when it may not command."""
    with command(
        "der.enable" if on else "der.disable", outstation, {"function": function, "mode": mode}
    ) as record:
        found = function_named(point_map, function)
        control = Control("bo", found.enable, on)
        result = await master.operate_controls(outstation, [control], mode)
        exchanges = list(result.exchanges)
        status: DerReading | None = None
        mirror = None if found.enabled is None else point_map.at(Address(Kind.BI, found.enabled))
        if mirror is not None:
            [status], reads = await read_points(master, outstation, [mirror])
            exchanges.extend(reads)
        enabled = status.value if status is not None and isinstance(status.value, bool) else None
        record.result = (
            f"{found.key} (BO{found.enable}): accepted={result.accepted} enabled={enabled}"
        )
        return EnableResult(
            function=found.key,
            name=found.name,
            enable=f"BO{found.enable}",
            accepted=result.accepted,
            enabled=enabled,
            status=status,
            operated=operated_of(result),
            exchanges=exchanges,
        )
