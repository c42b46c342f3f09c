"""Curve types when the tables give none: tables derived from AN2018's point lists (see
:mod:`tests.evaluate.an2018_curve_tables`) name the curve type point without its values,
so the curve types a setting takes are IEEE 1815.2's (volt-watt takes 5), said to come from
the standard; a JSON map overrides them. The simulated DER loaded with those tables refuses
a curve of another type, and CURVE-003 runs against it (not "not applicable"), its report
saying where the types came from."""

from __future__ import annotations

import orjson

from gridwire.der import mapfile
from gridwire.der.curve_types import curve_types, standard_types, tables_enumerate
from gridwire.der.functions import CurveRef
from gridwire.evaluate import Options, evaluate
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME, simulated
from tests.evaluate.an2018_curve_tables import an2018_curve_map
from tests.support.shared import shared_file


def test_an2018_tables_without_the_enumeration_take_the_standards_types() -> None:
    point_map = an2018_curve_map()
    assert not tables_enumerate(point_map)
    (volt_watt,) = point_map.functions
    assert (volt_watt.key, volt_watt.enable, volt_watt.supports, volt_watt.enabled) == (
        "volt-watt",
        25,
        44,
        77,
    )
    # The derivation found the curve setting but no type for it: the tables list none.
    assert volt_watt.curves == (CurveRef(173, ()),)
    found = curve_types(point_map, volt_watt, volt_watt.curves[0])
    assert (found.types, found.source) == ((5,), "standard")  # IEEE 1815.2: 5 volt-watt


def test_ride_through_settings_by_their_names_in_volttrons_list() -> None:
    # VOLTTRON's names of AN2018's ride-through curve settings AO23-AO31; the types by hand
    # from the standard's list (9 HV must trip, 10 HV momentary cessation, 11 LV must
    # trip, 12 LV momentary cessation, 13 HF must trip, 14 HF momentary cessation, 15 LF
    # must trip, 16 LF mandatory operation).
    data = orjson.loads(shared_file("data/an2018/volttron-mesa-points.json").read_bytes())
    names = {p["index"]: p["description"] for p in data if p["data_type"] == "AO"}
    found = {i: standard_types("", names[i]) for i in (23, 24, 25, 26, 28, 29, 30, 31)}
    assert found == {
        23: (9,),
        24: (11,),
        25: (10,),
        26: (12,),
        28: (13,),
        29: (15,),
        30: (14,),
        31: (),  # low frequency momentary cessation: the standard lists no such type
    }
    assert standard_types("Volt-VAR Control") == (2,)
    assert standard_types("Frequency-Watt Curve") == (3,)
    assert standard_types("Watt-VAr") == (4,)
    assert standard_types("Constant VArs") == ()


def test_a_json_map_overrides_the_standard() -> None:
    data = mapfile.to_dict(an2018_curve_map())
    (function,) = data["functions"]
    function["curves"] = [{"setting": "AO173", "types": [2, 5]}]
    given = mapfile.loads(orjson.dumps(data))
    (volt_watt,) = given.functions
    found = curve_types(given, volt_watt, volt_watt.curves[0])
    assert (found.types, found.source) == ((2, 5), "tables")
    # An enumeration given to the type point is the tables' own: no type of it is named
    # volt-watt here, so the setting takes any type, and the standard is not consulted.
    function["curves"] = [{"setting": "AO173", "types": []}]
    point = next(p for p in data["points"] if (p["kind"], p["index"]) == ("AO", 245))
    point["enumeration"] = [{"value": 0, "name": "Off"}, {"value": 7, "name": "Vendor curve"}]
    enumerated = mapfile.loads(orjson.dumps(data))
    assert tables_enumerate(enumerated)
    (volt_watt,) = enumerated.functions
    assert curve_types(enumerated, volt_watt, volt_watt.curves[0]).source == "none"


async def test_curve_003_runs_against_the_simulated_der_with_the_standards_types() -> None:
    point_map = an2018_curve_map()
    device = SimulatedDer(point_map)
    async with simulated(device=device, point_map=point_map) as s:
        functions = await s.der.functions()
        report = await evaluate(s.master, NAME, Options(["CURVE-003"], settle=1.5))
    (setting,) = functions.functions[0].curve_settings
    assert (setting.address, setting.types, setting.types_from) == ("AO173", [5], "standard")
    (result,) = report.results
    assert result.verdict == "passed", result
    # B holds a volt-var sample (type 2), which the standard says AO173 does not take.
    assert result.detail.startswith(
        "naming curve 3 (type 2; AO173 takes 5) refused NOT_SUPPORTED with Volt-Watt disabled"
    )
    assert result.notes[0] == (
        "the curve types AO173 takes (5) are IEEE 1815.2's: the tables enumerate no values "
        "for the curve type point AO245"
    )
