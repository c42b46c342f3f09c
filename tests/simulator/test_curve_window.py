"""The curve edit window of the simulated DER: each write to it publishes only the window
points it changed (a 100-point curve is 205 writes; each used to walk all 410 window points,
holding the event loop of a console --demo for tenths of a second), and what is published
stays what the window shows."""

from __future__ import annotations

from gridwire.der import demo_map
from gridwire.outstation.controls import AnalogCommand
from gridwire.simulator import SimulatedDer
from gridwire.simulator.curves import Curve, CurveStore

BLOCK = demo_map().curve_block


def test_a_write_says_which_offsets_it_changed() -> None:
    assert BLOCK is not None
    store = CurveStore(BLOCK, {1: Curve(2, 129, 2, [(92, 44), (98, 0)])})
    assert list(store.write(0, 1)) == list(range(BLOCK.size))  # a selection: all of it
    assert store.write(1, 5) == [1]  # the type
    assert store.write(5, 90) == [5]  # X of the first point
    # Y of the fourth point: the curve grows to four points (count and points 3 and 4).
    assert store.write(12, 7) == [12, 2, 9, 10, 11]
    assert store.window()[:13] == [1, 5, 4, 129, 2, 90, 44, 98, 0, 0, 0, 0, 7]
    assert store.write(2, 1) == [2, 7, 8, 9, 10, 11, 12]  # cut to one point
    assert store.window()[5:13] == [90, 44, 0, 0, 0, 0, 0, 0]


def test_a_whole_curve_costs_the_points_it_writes() -> None:
    assert BLOCK is not None
    der = SimulatedDer()
    looked_up = 0
    point = der.database.point

    def counting(*args: object) -> object:
        nonlocal looked_up
        looked_up += 1
        return point(*args)  # type: ignore[arg-type]

    der.database.point = counting  # type: ignore[method-assign]
    writes = [(BLOCK.selector, 4), (BLOCK.output(2), 100)]
    writes += [(BLOCK.output(5 + n), n) for n in range(200)]
    for index, value in writes:
        assert der.control(AnalogCommand(index, value, 1), "direct", 0.0).name == "SUCCESS"
    # The selection and the count publish the window (410 points each); then a few
    # lookups a write (the output and its mirror, the curve rules, the referenced flag).
    assert looked_up < 4 * 410 + 16 * len(writes)  # it was over 80,000
    assert [der.database.get("ai", BLOCK.input(5 + n)).value for n in range(200)] == list(
        range(200)
    )
    assert der.database.get("ai", BLOCK.input(2)).value == 100
