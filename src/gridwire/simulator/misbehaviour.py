"""The simulated DER's deviations: rules it breaks on purpose, so that an evaluation's check
can be seen to fail a DER that breaks them. All are off unless named (``SimulatedDer(misbehave=...)``;
``gridwire sim --der --misbehave NAME`` or ``"misbehave": [NAME, ...]`` in its settings,
beside the outstation's own of :mod:`gridwire.outstation.misbehaviour`).

``inputs_online_when_disabled``
    A disabled function's inputs keep ONLINE (the profile has them sent offline while it is
    disabled): the mode checks' "inputs offline" fails.
``start_without_permission``
    A start (BO1 on) is accepted while the permission to start (BO3) is withdrawn:
    SERV-001.2 fails.
``accept_locked_curve_edits``
    An edit of the curve shown (its type, number of points, units or points) is accepted
    while an enabled function names it (the curve lock is not kept): CURVE-002 and
    CURVE-002.2 fail.
``accept_schedule_edits_in_use``
    An edit of the schedule shown is accepted while it is ready (in use): SCHED-001 fails.
``ignore_schedule_points``
    A ready schedule reports running but its points are never applied: SCHED-002 fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from gridwire.outstation.misbehaviour import MISBEHAVIOURS, misbehaviours
from gridwire.simulator.run_state import START_WITHOUT_PERMISSION
from gridwire.simulator.schedules import ACCEPT_EDITS_IN_USE, IGNORE_POINTS

INPUTS_ONLINE_WHEN_DISABLED: Final = "inputs_online_when_disabled"
ACCEPT_LOCKED_CURVE_EDITS: Final = "accept_locked_curve_edits"
DER_MISBEHAVIOURS: Final = {
    INPUTS_ONLINE_WHEN_DISABLED: "keep ONLINE on a disabled function's inputs",
    START_WITHOUT_PERMISSION: "accept a start while the permission to start is withdrawn",
    ACCEPT_LOCKED_CURVE_EDITS: "accept edits of a curve an enabled function names",
    ACCEPT_EDITS_IN_USE: "accept edits of a schedule that is ready (in use)",
    IGNORE_POINTS: "report a ready schedule running but never apply its points",
}
SIM_MISBEHAVIOURS: Final = {**MISBEHAVIOURS, **DER_MISBEHAVIOURS}
"""Every rule ``gridwire sim`` can break: the outstation's and the simulated DER's."""


def der_misbehaviours(names: Iterable[str]) -> frozenset[str]:
    """The names given, checked; ConfigError naming one the simulated DER does not know."""
    return misbehaviours(names, DER_MISBEHAVIOURS)


def split_misbehaviours(names: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names given, checked against every rule ``gridwire sim`` can break (ConfigError
    naming one it cannot): the outstation's, then the simulated DER's."""
    chosen = misbehaviours(names, SIM_MISBEHAVIOURS)
    return chosen - DER_MISBEHAVIOURS.keys(), chosen & DER_MISBEHAVIOURS.keys()
