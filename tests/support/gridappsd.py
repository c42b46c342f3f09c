"""The virtual environment GridAPPS-D's 2030.5 server (``gridappsd-2030-5``) runs in, for
tests/gateway/test_gridappsd.py: ``.venv-gridappsd`` at the repository's root, made from a
Python 3.10 on PATH or under pyenv (the package's pins need that version). It is made once,
under a lock, so ``.ci/run`` can start making it in the background while the suite is set up
and the test waits for it rather than making it a second time. Standard library only: .ci/run
runs this file with the system's python3 (``python3 tests/support/gridappsd.py``)."""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-gridappsd"
PYTHON = VENV / "bin" / "python"
LOCK = ROOT / ".venv-gridappsd.lock"


def python_310() -> str | None:
    """A Python 3.10 interpreter on PATH or under pyenv, or None."""
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    found = [
        shutil.which("python3.10"),
        *sorted(glob.glob(f"{pyenv}/versions/3.10*/bin/python3.10")),
    ]
    for candidate in filter(None, found):
        probe = [candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 10)"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return candidate
    return None


def installed(python: Path = PYTHON) -> bool:
    """Whether ``python`` runs and imports the server's package."""
    if not python.exists():
        return False
    probe = subprocess.run([str(python), "-c", "import ieee_2030_5"], capture_output=True)
    return probe.returncode == 0


def ensure(base: str | None) -> str | None:
    """Make the environment from ``base`` unless it is there; what went wrong, or None."""
    if base is None:
        return "no Python 3.10 on PATH or under pyenv: gridappsd-2030-5's pins need it"
    with LOCK.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a build under way (.ci/run's) is waited for
        if installed():
            return None
        subprocess.run([base, "-m", "venv", "--clear", str(VENV)], check=True, timeout=120)
        pip = [str(VENV / "bin" / "pip"), "install", "-q", "gridappsd-2030-5"]
        made = subprocess.run(pip, capture_output=True, text=True, check=False, timeout=480)
        if made.returncode != 0 or not installed():
            return f"installing gridappsd-2030-5 failed: {made.stderr[-2000:]}"
    return None


if __name__ == "__main__":
    problem = ensure(python_310())
    print(problem or f"{PYTHON}: gridappsd-2030-5 is installed")
    sys.exit(0)
