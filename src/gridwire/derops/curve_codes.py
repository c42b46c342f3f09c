"""Names of the curve block's codes, for tables that do not list them.

The curve block's type, X units and Y units points (AO245, AO247, AO248 and their mirrors in
the profile's numbering) hold codes. Tables that list the codes in the point's name (as IEEE's
workbook and gridwire's demo map do) name them; these lists are the fallback. The codes are
those the DNP3 profile for DER publishes for the curve block: DNP Application Note
AN2018-001, "DNP3 Profile for Communications with Distributed Energy Resources" (DNP Users
Group and EPRI, 2018), whose point lists IEEE 1815.2 took over; checked against the
enumerations of AO245, AO247 and AO248 in VOLTTRON's MESA point list (shared test data,
``an2018/volttron-mesa-points.json``). The names are written in our own words.
"""

from __future__ import annotations

from typing import Final

from gridwire.der.curve_types import STANDARD_CURVE_TYPES

CURVE_TYPES: Final[dict[int, str]] = STANDARD_CURVE_TYPES
"""The curve types, one table for the whole project (:mod:`gridwire.der.curve_types`)."""

X_UNITS: Final[dict[int, str]] = {
    0: "Curve disabled",
    1: "Not applicable",
    4: "Time",
    23: "Temperature (degrees Celsius)",
    29: "Voltage",
    33: "Frequency",
    38: "Watts",
    100: "Price (hundredths of the local currency)",
    129: "Percent of nominal voltage",
    133: "Percent of nominal frequency",
    138: "Percent of watts",
    233: "Frequency deviation",
}

Y_UNITS: Final[dict[int, str]] = {
    0: "Curve disabled",
    1: "Not applicable",
    2: "VArs as a percent of VARMax",
    3: "VArs as a percent of available VArs (VArAval)",
    4: "VArs as a percent of WMax",
    5: "Watts as a percent of WMax",
    6: "Watts as a percent of the frozen active power",
    7: "Power factor (EEI notation)",
    8: "Volts as a percent of the nominal voltage (VRef)",
    9: "Frequency as a percent of the nominal frequency",
}
