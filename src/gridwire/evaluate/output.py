"""What a run leaves besides its report, gathered before the master closes, and the files
``gridwire evaluate`` writes.

With a capture, the run's frames (every frame of the outstation's connection after the run
began) become one pcap file, as ``capture`` builds it: a TCP handshake of three packets, then
one packet per frame in trace order. So the frame with trace id ``f`` is packet
``3 + f - frames_before``, which fills each result's ``packets``. When the trace no longer
holds the run's first frames, numbers cannot be given: ``packets`` stays null.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from gridwire.errors import ConfigError
from gridwire.evaluate.evidence import FrameEvidence, decode
from gridwire.evaluate.html import render_html
from gridwire.evaluate.junit import render_junit
from gridwire.evaluate.records import Report
from gridwire.evaluate.verdict import settle_verdict
from gridwire.master import Master

HANDSHAKE_PACKETS = 3
"""Packets a capture begins with before the first frame (SYN, SYN-ACK, ACK)."""


@dataclass(slots=True)
class RunOutput:
    """The report (its ``packets`` filled when captured), the decoded frames of each failed
    check, and the run's pcap file."""

    report: Report
    evidence: dict[str, list[FrameEvidence]] = field(default_factory=dict)
    pcap: bytes | None = None


def collect_output(
    master: Master,
    report: Report,
    frames_before: int,
    *,
    evidence: bool = False,
    capture: bool = False,
) -> RunOutput:
    """Everything the files need, read from the master's trace while it is still open."""
    name = report.outstation
    output = RunOutput(report)
    kept = master.trace(name, frames_before)
    numbered = capture and bool(kept) and kept[0].id == frames_before + 1
    if capture:
        output.pcap = base64.b64decode(master.capture(name, frames_before).pcap)

    def packet_of(frame_id: int) -> int:
        return HANDSHAKE_PACKETS + frame_id - frames_before

    if numbered:
        for result in report.results:
            if result.frames is not None:
                result.packets = [packet_of(result.frames[0]), packet_of(result.frames[1])]
    if evidence:
        by_id = {frame.id: frame for frame in kept}
        for result in report.results:
            if result.verdict != "failed" or result.frames is None:
                continue
            first, last = result.frames
            frames = [by_id[i] for i in range(first, last + 1) if i in by_id]
            output.evidence[result.id] = decode(frames, packet_of if numbered else None)
    return output


def evidence_in_trace(master: Master, report: Report) -> dict[str, list[FrameEvidence]]:
    """The decoded frames of each failed check, as far as the master's trace still holds
    them (the service's report downloads; a run of ``gridwire evaluate`` gathers them with
    :func:`collect_output`)."""
    failed = [r for r in report.results if r.verdict == "failed" and r.frames is not None]
    if not failed:
        return {}
    first = min(r.frames[0] for r in failed if r.frames is not None)
    by_id = {frame.id: frame for frame in master.trace(report.outstation, first - 1)}
    found: dict[str, list[FrameEvidence]] = {}
    for result in failed:
        if result.frames is None:
            continue
        start, stop = result.frames
        found[result.id] = decode([by_id[i] for i in range(start, stop + 1) if i in by_id])
    return found


def report_json(report: Report) -> bytes:
    settle_verdict(report)
    return orjson.dumps(dataclasses.asdict(report), option=orjson.OPT_INDENT_2) + b"\n"


REPORT_FORMATS: dict[str, tuple[str, str]] = {
    "json": ("application/json", "json"),
    "html": ("text/html; charset=utf-8", "html"),
    "junit": ("application/xml", "junit.xml"),
}
"""Each format a report is written in: its media type and file name suffix."""


def render_report(
    report: Report,
    format: str,
    evidence: Mapping[str, list[FrameEvidence]] | None = None,
) -> bytes:
    """The report in ``format`` (json, html or junit): the one writer of each, used by
    ``gridwire evaluate`` and by the service's report downloads alike."""
    settle_verdict(report)
    if format == "json":
        return report_json(report)
    if format == "html":
        return render_html(report, evidence).encode("utf-8")
    if format == "junit":
        return render_junit(report)
    raise ValueError(f"no report format {format!r} (json, html, junit)")


def write_outputs(
    output: RunOutput, paths: Mapping[str, Path | None], say: Callable[[str], None]
) -> None:
    """Write each file asked for; ConfigError naming a file that cannot be written."""
    report = output.report
    capture = paths.get("capture")
    if report.device is not None and capture is not None and output.pcap is not None:
        report.device.capture = capture.name
    writers: dict[str, Callable[[], bytes]] = {
        "report": lambda: render_report(report, "json"),
        "html": lambda: render_report(report, "html", output.evidence),
        "junit": lambda: render_report(report, "junit"),
    }
    if output.pcap is not None:
        pcap = output.pcap
        writers["capture"] = lambda: pcap
    for name, make in writers.items():
        path = paths.get(name)
        if path is None:
            continue
        try:
            path.write_bytes(make())
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
        say(f"wrote {path}")
