"""One of each (DESIGN D134, D135): the evaluation and the DER procedures ask the master by
outstation name, never through its Session; an evaluation measures and stamps on the master's
clock; every point address a report or a detail spells is der.points' spelling."""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path

import pytest

from gridwire.der.demo import demo_map
from gridwire.der.points import spelled
from gridwire.derops import DerMaster
from gridwire.derops.compare import Class0Difference, PointRef
from gridwire.dnp3.objects.records import DnpObject
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.confirmation import shown
from gridwire.evaluate.families.profile import _listed
from gridwire.evaluate.families.samples import _judge
from gridwire.evaluate.journal import Entry
from gridwire.evaluate.outcomes import Failed
from gridwire.evaluate.primitives import accepted, eventually
from gridwire.master import OutstationSettings
from gridwire.master.records import ControlStatus, OperateResult
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME
from tests.evaluate.fake_checks import install
from tests.evaluate.test_primitives import exchange

SRC = Path(__file__).resolve().parents[2] / "src" / "gridwire"


# --- no Session reached ---------------------------------------------------------------------


def _session_reaches(source: str, name: str) -> list[str]:
    """Where ``source`` gets at a Session: calls ``.session(...)``, reads ``_sessions``, or
    imports the session module (so no Session object can be had to reach through)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and node.attr in ("session", "_sessions"):
            found.append(f"{where} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in (
            "gridwire.master.session",
            "gridwire.master.session_protocol",
        ):
            found.append(f"{where} from {node.module} import")
        if isinstance(node, ast.ImportFrom) and any(
            a.name in ("Session", "SessionLike") for a in node.names
        ):
            found.append(f"{where} imports a Session")
    return found


def test_evaluate_and_derops_reach_no_session() -> None:
    files = sorted([*(SRC / "evaluate").rglob("*.py"), *(SRC / "derops").rglob("*.py")])
    assert len(files) > 40
    hits = [
        hit
        for path in files
        for hit in _session_reaches(path.read_text("utf-8"), str(path.relative_to(SRC)))
    ]
    assert hits == []


def test_the_check_finds_a_reach() -> None:
    sample = (
        "from gridwire.master.session import Session\n"
        "def f(m): return m.session('x').frames.last_id\n"
        "def g(m): return m._sessions\n"
    )
    assert sorted(_session_reaches(sample, "sample")) == [
        "sample:1 from gridwire.master.session import",
        "sample:1 imports a Session",
        "sample:2 .session",
        "sample:3 ._sessions",
    ]


# --- one spelling of a point address --------------------------------------------------------


def test_der_points_spells_every_address() -> None:
    assert spelled("ao", 12) == "AO12"
    assert spelled("counter", 3) == "CTR3"
    assert spelled("frozen", 3) == "CTR3 (frozen)"
    assert spelled("bi", 107) == "BI107"
    assert spelled("bo", 0) == "BO0"
    assert spelled("ai", 537) == "AI537"
    assert spelled("dbi", 4) == "dbi 4"  # no kind of the tables: as given


def _status(type_: str, index: int, status: str) -> ControlStatus:
    return ControlStatus(type_, index, None, 1, 7, status, True)  # type: ignore[arg-type]


def test_reports_and_details_use_that_spelling() -> None:
    refused = OperateResult("direct", True, False, [_status("ao", 12, "BLOCKED")], [exchange()])
    with pytest.raises(Failed, match=r"^the write was refused: AO12 BLOCKED$"):
        accepted(refused, "the write")
    assert Entry("ao", 12, 5).name == "AO12"
    assert Entry("ao", 245, 1, selector=3).name == "AO245 (curve 3)"
    assert Entry("bo", 2, True).name == "BO2"
    counted = DnpObject("counter", 22, 1, 3, None, 5, [], None, None, True)
    frozen = DnpObject("frozen", 23, 1, 3, None, 6, [], None, None, True)
    other = DnpObject(None, 110, 2, 0, None, b"ab", None, None, None, True)
    assert shown([counted, frozen, other]) == "CTR3 = 5, CTR3 (frozen) = 6, g110v2 0 = b'ab'"
    listed = _listed(
        [PointRef("counter", 3, None), Class0Difference("frozen", 4, None, "never", True)],
        "absent",
    )
    assert listed == "2 absent: CTR3, CTR4 (frozen) (declared never, carried)"
    stopped = OperateResult("direct", True, False, [_status("ao", 250, "NOT_SUPPORTED")], [])
    result = type("R", (), {"stopped_at": "points", "steps": [stopped]})()
    with pytest.raises(Failed, match=r"\(AO250 NOT_SUPPORTED\)$"):
        _judge(result, "storing")  # type: ignore[arg-type]


# --- one clock ------------------------------------------------------------------------------

SEPTEMBER_2001 = 1_000_000_000.0
RATE = 4.0


class Fast2001:
    """A host clock whose wall reads September 2001 and whose seconds pass ``RATE`` times as
    fast as the real ones (monotonic and wall alike)."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def monotonic(self) -> float:
        return RATE * time.monotonic()

    def wall(self) -> float:
        return SEPTEMBER_2001 + RATE * (time.monotonic() - self.started)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


async def test_an_evaluation_is_timed_and_stamped_by_the_masters_clock(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clocks: list[object] = []
    settled: list[float] = []

    async def check(ctx: CheckContext) -> None:
        clocks.append(ctx.clock)
        await asyncio.sleep(0.5)  # real seconds: 2 on the master's clock

    async def never(ctx: CheckContext) -> None:
        async def attempt() -> None:
            raise Failed("not yet")

        started = time.monotonic()
        try:
            await eventually(ctx.settle, attempt, clock=ctx.clock)
        finally:
            settled.append(time.monotonic() - started)

    install(monkeypatch, {"MON-001": check, "ALARM-001": never})
    clock = Fast2001()
    point_map = demo_map()
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as server:
        master = DerMaster(allow_control=False, profiles=lambda _: point_map, clock=clock)
        try:
            settings = OutstationSettings(
                name=NAME, host="127.0.0.1", port=server.port, profile="ieee1815.2"
            )
            await master.add(settings)
            options = Options(["MON-001", "ALARM-001"])
            report = await evaluate(master, NAME, options, state_dir=tmp_path)
        finally:
            await master.close()
    assert clocks == [clock]
    # Stamped by the master's wall clock (2001-09-09T01:46:40Z), not the machine's.
    assert report.started.startswith("2001-09-09T01:4") and report.ended.startswith("2001-09-09")
    slept, unsettled = report.results
    assert slept.verdict == "passed"
    # Measured on the master's monotonic clock: half a real second is two of its seconds.
    assert slept.seconds >= 2.0
    # settle (5 s) counted on the master's clock too: about 1.25 real seconds, not 5.
    assert (unsettled.verdict, unsettled.detail) == ("failed", "not yet")
    assert unsettled.seconds >= 5.0 and settled[0] < 4.0
