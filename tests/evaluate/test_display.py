"""What ``gridwire evaluate`` shows while a run goes: plain lines off a terminal, and on one a
live display (rich) with the same lines above it, both ending with the summary."""

from __future__ import annotations

import asyncio
import io

from gridwire.cli.evaluate_display import Display, clocks, result_line, wrapped
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
    assert "passed 1, failed 1" in out  # the summary line
    assert "\x1b[" in out  # drawn with terminal controls


def test_the_first_line_says_where_it_connects() -> None:
    stream = io.StringIO()
    Display.for_stream(stream).connecting("192.0.2.7", 20001)  # type: ignore[arg-type]
    Display.for_stream(stream).connecting("192.0.2.7", 20002, tls=True)  # type: ignore[arg-type]
    assert stream.getvalue().splitlines() == [
        "connecting to 192.0.2.7:20001 ...",
        "connecting to 192.0.2.7:20002 (TLS) ...",
    ]


def test_long_details_wrap_under_the_title_on_a_terminal() -> None:
    detail = "after the start (BO1 on): BI15 (Stopped) is True, not False; " * 3
    line = result_line(CheckResult("SERV-001", "Cease to energize", "failed", detail.strip()))
    out = wrapped(line, 80).splitlines()
    assert len(out) > 1 and all(len(part) <= 80 for part in out)
    assert out[0].startswith("SERV-001      FAILED          Cease to energize")
    assert all(part.startswith(" " * 30) and part[30] != " " for part in out[1:])
    assert " ".join(p.strip() for p in out) == line  # nothing lost, no word broken
    assert wrapped("short", 80) == "short"
    # a token longer than the line (an id, a time) is kept whole, not broken mid-word
    long_id = "X" * 90
    assert long_id in wrapped(f"{'A-1':<13} {'passed':<15} {long_id}", 80).split()


async def test_the_bar_labels_both_clocks() -> None:
    assert clocks(3.2, 75) == "this check 0:03 | run 1:15"
    assert clocks(None, 3700) == "this check - | run 1:01:40"
    stream = Terminal()
    display = Display(stream, live=True)  # type: ignore[arg-type]
    display.console.width = 200
    progress = Progress("der", total=2)
    async with display.showing(progress):
        progress.current = "MON-001"
        await asyncio.sleep(0.5)
    out = stream.getvalue()
    assert "this check 0:00 | run 0:00" in out


async def test_a_terminal_wraps_a_long_result_line() -> None:
    stream = Terminal()
    display = Display(stream, live=True)  # type: ignore[arg-type]
    display.console.width = 60
    progress = Progress("der", total=1)
    long = CheckResult("OP-001", "Operating states", "failed", "word " * 30)
    async with display.showing(progress):
        progress.results.append(long)
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    wrapped_lines = [line for line in lines if line.startswith(" " * 30 + "word")]
    assert len(wrapped_lines) >= 2
