"""``make bench``: runs every ``bench/bench_*.py`` module's ``main()`` and prints its figures.

Benchmarks print numbers; they never pass or fail. ``python -m bench NAME`` runs only the
modules whose name contains NAME.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def run(selected: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    for name in names:
        if selected and not any(s in name for s in selected):
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        module = importlib.import_module(f"bench.{name}")
        module.main()
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
