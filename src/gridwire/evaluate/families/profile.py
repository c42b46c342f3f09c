"""PROFILE-001: the Device Profile agrees with what is served (reads only).

No document (the outstation's ``device_profile``, else the service's ``--device-profile``):
not applicable. Else der.compare (:mod:`gridwire.derops.compare`); the check fails on any
declared point not served (absent), any served point not declared (undeclared), or any
served point whose presence in the class 0 response is not what the document declares,
listing the first 8 of each. Passed: "the N points the Device Profile declares are the N
served...".
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwire.der.points import spelled
from gridwire.derops.compare import Class0Difference, PointRef
from gridwire.errors import RequestError
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import answered

LISTED = 8
"""Points of each kind named in the detail at most."""


def _listed(points: Sequence[PointRef | Class0Difference], what: str) -> str:
    def one(p: PointRef | Class0Difference) -> str:
        text = spelled(p.type, p.index)
        if isinstance(p, Class0Difference):
            seen = "carried" if p.carried else "left out"
            text += f" (declared {p.declared}, {seen})"
        return text

    names = ", ".join(one(p) for p in points[:LISTED])
    more = f" and {len(points) - LISTED} more" if len(points) > LISTED else ""
    return f"{len(points)} {what}: {names}{more}"


async def profile_001(ctx: CheckContext) -> None:
    own = ctx.master.settings(ctx.outstation).device_profile
    if own is None and ctx.run.device_profile is None:
        raise NotApplicable(
            "no Device Profile document: give the outstation device_profile (in add or its "
            "--config entry) or start the service with --device-profile"
        )
    try:
        result = await ctx.der.compare(fallback=ctx.run.device_profile)
    except RequestError as exc:
        raise Failed(f"the Device Profile document could not be used: {exc}") from None
    for exchange in result.exchanges:
        answered(exchange, "a read of the comparison")
    ctx.note(f"{result.declared} points declared, {result.served} served")
    problems = []
    if result.absent:
        problems.append(_listed(result.absent, "declared but not served"))
    if result.undeclared:
        problems.append(_listed(result.undeclared, "served but not declared"))
    if result.class_0:
        problems.append(_listed(result.class_0, "not in class 0 as declared"))
    if problems:
        raise Failed("; ".join(problems))
    ctx.verified(
        f"the {result.declared} points the Device Profile declares are the {result.served} "
        "served, none absent or undeclared, each in class 0 as declared"
    )
