"""The catalogue of issue 11 (and issue 20's SCHED-001, SCHED-002): 46 checks in their order, sets, what each writes or deviates,
the selection rules of ``checks``, and where each check's code is."""

from __future__ import annotations

import importlib
import importlib.util
import inspect

import pytest

from gridwire.errors import RequestError
from gridwire.evaluate.catalogue import (
    CATALOGUE,
    FAMILIES,
    FAMILIES_PACKAGE,
    SETS,
    CheckSpec,
    check_function,
    listing,
    select,
)

MODES = {
    "VRT-001": 12, "FRT-001": 13, "DRCS-001": 14, "DVW-001": 15, "FW-001": 16, "APL-001": 17,
    "CHG-001": 18, "CCM-001": 19, "APR1-001": 20, "APR2-001": 21, "APR3-001": 22,
    "AGC-001": 23, "APS-001": 24, "VW-001": 25, "FWC-001": 26, "CVAR-001": 27, "FPF-001": 28,
    "VV-001": 29, "WV-001": 30, "PFC-001": 31, "PSIG-001": 32,
}  # fmt: skip


def test_46_checks_in_the_issues_order() -> None:
    ids = [spec.id for spec in CATALOGUE]
    assert len(ids) == 46 == len(set(ids))
    assert ids[:14] == [
        "PROFILE-001", "MON-001", "ALARM-001", "OP-001", "CONN-001", "SERV-001",
        "SERV-001.2", "SERV-001.3", "CURVE-001", "CURVE-001.2", "CURVE-002", "CURVE-002.2",
        "CURVE-003", "CURVE-003.2",
    ]  # fmt: skip
    assert ids[14:16] == ["SCHED-001", "SCHED-002"]
    assert ids[16:37] == list(MODES)
    assert ids[37:] == [
        "LINK-001", "LINK-002", "LINK-003", "LINK-004", "TRANSPORT-001", "TRANSPORT-002",
        "CONFIRM-001", "CONFIRM-002", "CONFIRM-003",
    ]  # fmt: skip


def test_sets_writes_and_deviations() -> None:
    by_id = {spec.id: spec for spec in CATALOGUE}
    assert {spec.set for spec in CATALOGUE} == set(SETS)
    assert by_id["PROFILE-001"].set == "device-profile"
    reads = {"PROFILE-001", "MON-001", "ALARM-001", "OP-001"}
    deviations = {s.id for s in CATALOGUE if s.set == "deviation"}
    assert len(deviations) == 9
    for spec in CATALOGUE:
        assert spec.writes == (spec.id not in reads | deviations), spec.id
        assert spec.deviates == (spec.id in deviations), spec.id
    for check, enable in MODES.items():
        assert by_id[check].args == {"enable": enable}
        assert by_id[check].title.endswith(f" (BO{enable})")
    assert by_id["LINK-003"].args == {"deviation": "truncate", "probes": 3}
    assert by_id["TRANSPORT-002"].args == {"deviation": "endless_series", "probes": 1}
    assert by_id["CONFIRM-003"].args == {"deviation": "late_confirmation"}
    assert listing()[0].id == "PROFILE-001" and listing()[-1].set == "deviation"


def test_selection_by_id_in_any_case_and_by_set_exactly() -> None:
    assert [s.id for s in select(["mon-001", "Profile-001"])] == ["PROFILE-001", "MON-001"]
    assert [s.id for s in select(["deviation", "LINK-001"])][:2] == ["LINK-001", "LINK-002"]
    assert len(select(["deviation"])) == 9
    assert len(select(["der"])) == 36
    assert len(select(None)) == 46
    with pytest.raises(RequestError, match=r"'DER' is neither a check nor a set"):
        select(["DER"])  # set names match exactly
    with pytest.raises(RequestError, match=r"'NOPE-001'"):
        select(["MON-001", "NOPE-001"])
    with pytest.raises(RequestError, match=r"checks is empty"):
        select([])


def test_every_check_points_at_a_family_and_no_family_function_is_orphaned() -> None:
    assert {spec.family for spec in CATALOGUE} == set(FAMILIES)
    named: dict[str, set[str]] = {}
    for spec in CATALOGUE:
        named.setdefault(spec.family, set()).add(spec.function)
        function = check_function(spec)
        module = f"{FAMILIES_PACKAGE}.{spec.family}"
        if importlib.util.find_spec(module) is None:
            assert function is None  # not written: reported not_run, never a verdict
        elif function is not None:
            assert inspect.iscoroutinefunction(function), spec.id
    for family, functions in named.items():
        module_name = f"{FAMILIES_PACKAGE}.{family}"
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        public = {
            name
            for name, value in vars(module).items()
            if inspect.iscoroutinefunction(value)
            and not name.startswith("_")
            and value.__module__ == module_name
        }
        assert public <= functions, f"{family} defines checks the catalogue does not name"


def test_a_family_not_written_gives_no_function() -> None:
    spec = CheckSpec("X-001", "x", "der", "not_written_yet", "x_001")
    assert check_function(spec) is None
    spec = CheckSpec("X-001", "x", "der", "monitoring", "not_written_yet")
    assert check_function(spec) is None
