"""What ``gridwire evaluate`` shows while a run goes: plain lines off a terminal, and on one a
live display (rich) with the same lines above it, both ending with the summary."""

from __future__ import annotations

import asyncio
import io

from gridwire.cli.evaluate_display import Display, result_line
from gridwire.evaluate.records import CheckResult, Report, Summary
from gridwire.evaluate.runner import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


RESULTS = [
    CheckResult("MON-001", "Monitoring", "passed"),
    CheckResult("OP-001", "Operating states", "failed", "BI14 and BI15 are both set"),
]


def report() -> Report:
    return Report(
        "gridwire", "0", "der", "t", True, False, "x", 5.0, None, Summary.of(RESULTS), RESULTS
    )


async def show(stream: io.StringIO) -> str:
    display = Display.for_stream(stream)  # type: ignore[arg-type]
    progress = Progress("der", total=2)
    async with display.showing(progress):
        progress.current = "MON-001"
        await asyncio.sleep(0.3)
        progress.results.append(RESULTS[0])
        progress.current = "OP-001"
        await asyncio.sleep(0.3)
        progress.results.append(RESULTS[1])
    display.summary(report())
    return stream.getvalue()


async def test_plain_lines_off_a_terminal() -> None:
    out = await show(io.StringIO())
    assert out.splitlines() == [
        result_line(RESULTS[0]),
        result_line(RESULTS[1]),
        "der: 2 checks: passed 1, failed 1, not applicable 0, not run 0",
    ]
    assert result_line(RESULTS[1]) == (
        "OP-001        FAILED          Operating states: BI14 and BI15 are both set"
    )


async def test_a_live_display_on_a_terminal() -> None:
    out = await show(Terminal())
    assert out.count("MON-001       passed") == 1
    assert out.count("BI14 and BI15 are both set") == 1
    assert "passed 1, failed 1" in out
    assert "\x1b[" in out  # drawn with terminal controls
