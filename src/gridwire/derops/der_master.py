"""The Python API of the DER procedures: ``master.der("name").read(...)``.

:class:`DerMaster` is a :class:`gridwire.master.Master` that knows the IEEE 1815.2 profile
(its profile source is the map file given, else the installed tables, else the demo map: what
``gridwire console`` uses) and hands out a :class:`Der` per outstation. :class:`Der` works over
any Master that was given a profile source::

    master = DerMaster(allow_control=True)
    await master.add(OutstationSettings(name="der", host="127.0.0.1", port=20001,
                                        profile="ieee1815.2"))
    der = master.der("der")
    reading = await der.read(["AI537"], group="volt-var")
    result = await der.write({"AO88": 50.0}, verify=True)
    await der.enable("volt-var")

Each method is the operation of the same name in the operations API, with the same
parameters and result, and the same errors: RequestError (a bad parameter, an outstation with
no point map), ConnectionFailed, NotAllowed (a command on a master not allowed to command,
checked after the parameters).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gridwire.der.pointmap import PointMap
from gridwire.der.profiles import ProfileLoader
from gridwire.derops.compare import CompareResult, der_compare
from gridwire.derops.curve import CurveResult, der_curve
from gridwire.derops.documents import Document, der_document
from gridwire.derops.enable import EnableResult, der_enable
from gridwire.derops.functions import FunctionsResult, der_functions
from gridwire.derops.operated import Mode
from gridwire.derops.profile import point_map_of
from gridwire.derops.read import DerReadResult, der_read
from gridwire.derops.schedule import ScheduleResult, der_schedule
from gridwire.derops.schedule_ready import ScheduleReadyResult, der_schedule_ready
from gridwire.derops.values import Requested
from gridwire.derops.write import DerWriteResult, der_write
from gridwire.derops.write_curve import WriteCurveResult, der_write_curve
from gridwire.derops.write_schedule import WriteScheduleResult, der_write_schedule
from gridwire.devprofile.layout import Layout
from gridwire.master import Master, ProfileSource


class Der:
    """The DER procedures on one outstation of ``master``."""

    def __init__(self, master: Master, outstation: str) -> None:
        self.master = master
        self.outstation = outstation

    @property
    def point_map(self) -> PointMap:
        """The outstation's point map; RequestError when it was given no profile."""
        return point_map_of(self.master, self.outstation)

    async def read(
        self, names: Sequence[str] | None = None, group: str | None = None
    ) -> DerReadResult:
        return await der_read(self.master, self.outstation, self.point_map, names, group)

    async def write(
        self,
        points: Mapping[str, Requested],
        *,
        verify: bool = False,
        mode: Mode = "direct",
        variation: int | None = None,
    ) -> DerWriteResult:
        return await der_write(
            self.master,
            self.outstation,
            self.point_map,
            points,
            verify=verify,
            mode=mode,
            variation=variation,
        )

    async def enable(self, function: str, mode: Mode = "direct") -> EnableResult:
        return await der_enable(self.master, self.outstation, self.point_map, function, True, mode)

    async def disable(self, function: str, mode: Mode = "direct") -> EnableResult:
        return await der_enable(self.master, self.outstation, self.point_map, function, False, mode)

    async def functions(self) -> FunctionsResult:
        return await der_functions(self.master, self.outstation, self.point_map)

    async def curve(self, number: int | float | None = None, mode: Mode = "direct") -> CurveResult:
        return await der_curve(self.master, self.outstation, self.point_map, number, mode)

    async def write_curve(
        self,
        number: int | float,
        type: int | float,
        x_units: int | float,
        y_units: int | float,
        points: Sequence[Sequence[int | float]],
        mode: Mode = "direct",
    ) -> WriteCurveResult:
        return await der_write_curve(
            self.master,
            self.outstation,
            self.point_map,
            number,
            type,
            x_units,
            y_units,
            points,
            mode,
        )

    async def schedule(
        self, number: int | float | None = None, mode: Mode = "direct"
    ) -> ScheduleResult:
        return await der_schedule(self.master, self.outstation, self.point_map, number, mode)

    async def write_schedule(
        self,
        number: int | float,
        points: Sequence[Sequence[int | float | str]],
        mode: Mode = "direct",
        **values: int | float | str | None,
    ) -> WriteScheduleResult:
        """der.write_schedule: ``values`` are the fields (identity, priority, type,
        start_date, start_time, repeat_interval, repeat_units)."""
        return await der_write_schedule(
            self.master, self.outstation, self.point_map, number, values, points, mode
        )

    async def schedule_ready(
        self, number: int | float, on: bool, mode: Mode = "direct"
    ) -> ScheduleReadyResult:
        """der.enable_schedule (``on``) or der.disable_schedule."""
        return await der_schedule_ready(
            self.master, self.outstation, self.point_map, number, on, mode
        )

    async def compare(
        self, document: Document | None = None, *, fallback: Path | None = None
    ) -> CompareResult:
        """der.compare against ``document`` (text, octets or a file), else the outstation's
        own ``device_profile``, else ``fallback``; needs no profile."""
        return await der_compare(self.master, self.outstation, document, fallback)

    async def document(
        self, document: Document | None = None, *, fallback: Path | None = None
    ) -> Layout:
        """der.document of ``document``, else of the outstation's own ``device_profile``,
        else of ``fallback``; sends nothing."""
        return await der_document(self.master, self.outstation, document, fallback)


class DerMaster(Master):
    """A Master whose outstations may be IEEE 1815.2 DERs: ``profiles`` defaults to the
    profile loader over ``tables`` (a map file; None: the installed tables, else the demo
    map), and :meth:`der` gives the DER procedures of one outstation."""

    def __init__(
        self, *, tables: Path | None = None, profiles: ProfileSource | None = None, **kwargs: Any
    ) -> None:
        super().__init__(profiles=profiles or ProfileLoader(tables), **kwargs)

    def der(self, outstation: str) -> Der:
        """The DER procedures on ``outstation`` (RequestError now for an unknown one)."""
        self.settings(outstation)
        return Der(self, outstation)
