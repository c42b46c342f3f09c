"""Reference figures: yadnp3's own master polling yadnp3's outstation on loopback.

What a third-party C++ stack achieves on this machine, for gridwire's master to be compared
with: integrity polls (classes 1, 2, 3, 0) one after another, each timed from issue to the
master's task-completion callback. ``points`` is per type; the outstation has nine types.
"""

from __future__ import annotations

from tests.support.peers import yadnp3_bench, yadnp3_outstation

CASES = ((1000, 200), (9000, 40))  # (points of each type, polls)


def main() -> None:
    for points, polls in CASES:
        with yadnp3_outstation(points=points) as outstation:
            figures = yadnp3_bench(outstation.port, polls)
        if figures.get("event") != "bench":
            print(f"   {points * 9} points: no figures: {figures}")
            continue
        print(
            f"   {points * 9:>6} points ({figures['fragments']:g} fragments), {polls} polls: "
            f"median {figures['median_ms']:.2f} ms, p90 {figures['p90_ms']:.2f} ms, "
            f"min {figures['min_ms']:.2f} ms, max {figures['max_ms']:.2f} ms"
        )


if __name__ == "__main__":
    main()
