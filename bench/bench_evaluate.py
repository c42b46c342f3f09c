"""The full evaluation of the simulated DER (``gridwire sim --der``, a subprocess), control and
deviations allowed, through the Python API: the whole run's seconds, the survey's, and each
family's (the sum of its checks' seconds, with how many ran and their verdicts). Checks whose
family is not written yet are reported not run and cost nothing. The issue's goal: the whole
run in at most 30 s. Run with ``make bench`` or ``.venv/bin/python -m bench evaluate``.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.support.net import free_port, wait_listening
from tests.support.processes import running

from gridwire.derops import DerMaster
from gridwire.evaluate import CATALOGUE, Options, Progress, evaluate
from gridwire.master import OutstationSettings

NAME = "der"


async def _run(port: int, document: Path) -> None:
    master = DerMaster(allow_control=True)
    try:
        settings = OutstationSettings(
            name=NAME,
            host="127.0.0.1",
            port=port,
            profile="ieee1815.2",
            device_profile=str(document),
        )
        await master.add(settings)
        await master.idle(NAME)
        progress = Progress(NAME)
        started = time.perf_counter()
        report = await evaluate(master, NAME, Options(allow_deviations=True), progress=progress)
        total = time.perf_counter() - started
    finally:
        await master.close()
    checks = sum(r.seconds for r in report.results)
    print(
        f"   whole run: {total:.2f} s (goal: at most 30 s); survey and the rest: "
        f"{total - checks:.2f} s"
    )
    family_of = {spec.id: spec.family for spec in CATALOGUE}
    seconds: Counter[str] = Counter()
    verdicts: dict[str, Counter[str]] = {}
    for result in report.results:
        family = family_of[result.id]
        seconds[family] += result.seconds
        verdicts.setdefault(family, Counter())[result.verdict] += 1
    for family, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        counts = ", ".join(f"{v} {n}" for v, n in sorted(verdicts[family].items()))
        print(f"   {family:<13} {spent:6.2f} s  ({counts})")
    summary = report.summary
    print(
        f"   verdicts: passed {summary.passed}, failed {summary.failed}, not applicable "
        f"{summary.not_applicable}, not run {summary.not_run}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        document = Path(folder) / "device-profile.xml"
        port = free_port()
        command = [sys.executable, "-m", "gridwire", "sim", "--der"]
        command += ["--bind", f"127.0.0.1:{port}", "--write-device-profile", str(document)]
        with running(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            wait_listening(port, timeout=60)
            logging.disable(logging.WARNING)  # each deviation turned on is logged at WARNING
            try:
                asyncio.run(_run(port, document))
            finally:
                logging.disable(logging.NOTSET)
