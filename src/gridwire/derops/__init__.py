"""The IEEE 1815.2 DER procedures (the ``der.*`` operations), above the master and the point
map: reading points by name in engineering units, writing settings, switching functions, and
the curve block. Written against :class:`gridwire.master.Master`'s public API and
:class:`gridwire.der.PointMap`; ``gridwire.master`` never imports this package.

    from gridwire.derops import DerMaster

    master = DerMaster(allow_control=True)      # profiles: installed tables, else the demo map
    await master.add(OutstationSettings(name="der", host="127.0.0.1", port=20001,
                                        profile="ieee1815.2"))
    result = await master.der("der").read(group="volt-var")
"""

from gridwire.derops.curve import CurveReading, CurveResult
from gridwire.derops.der_master import Der, DerMaster
from gridwire.derops.enable import EnableResult
from gridwire.derops.functions import FunctionInfo, FunctionsResult, SettingInfo
from gridwire.derops.operated import Operated
from gridwire.derops.profile import point_map_of
from gridwire.derops.ranges import IndexRange, RangedRead, ranges_of, read_ranges
from gridwire.derops.read import DerReadResult
from gridwire.derops.readings import DerReading
from gridwire.derops.write import DerWriteResult, Readback, WrittenPoint
from gridwire.derops.write_curve import WriteCurveResult

__all__ = [
    "CurveReading",
    "CurveResult",
    "Der",
    "DerMaster",
    "DerReadResult",
    "DerReading",
    "DerWriteResult",
    "EnableResult",
    "FunctionInfo",
    "FunctionsResult",
    "IndexRange",
    "Operated",
    "RangedRead",
    "Readback",
    "SettingInfo",
    "WriteCurveResult",
    "WrittenPoint",
    "point_map_of",
    "ranges_of",
    "read_ranges",
]
