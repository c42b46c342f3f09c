"""The curve checks (each writes): CURVE-001, CURVE-001.2, CURVE-002, CURVE-002.2, CURVE-003
and CURVE-003.2.

Each works on a :class:`~.curve_lab.Lab` (its preconditions, the release at start and end,
the curves it overwrites read first and put back, the subject function; see that module):
curves A and B are the last two stored (A the last), the subject a function with a sample
curve setting (volt-watt AO173, else volt-var AO217), found disabled or disabled by the lab,
its setting released (0).

- CURVE-001 Curve reference indication: the referenced indicator (BI107, "selected curve is
  referenced by a function") says whether the curve shown is one a function uses. Verified:
  false with A shown while no setting names a curve; true with A shown once the subject names
  A and is enabled; false with B shown; true with A shown again; false after the release.
  While the subject, disabled, still names A, the indicator is read and noted, not judged:
  the tables say "referenced by a function" without saying the function must be enabled,
  and the simulated DER (DESIGN "curve block statuses") reports any curve a setting names.
- CURVE-001.2: selecting curve N+1 (N the curve count) is refused (usual OUT_OF_RANGE) and
  the selector's mirror reads afterwards what it read before.
- CURVE-002 Curve locking: A and B hold the subject's two samples, the subject enabled naming
  A: an edit of A's type, number of points and units (one request) and one of its first
  point (another) are refused (usual AUTOMATION_INHIBIT) and A reads back unchanged; B, which
  no function names, is written (a whole curve, read back); the subject disabled, A is
  written again.
- CURVE-002.2: from the same start, the subject is moved to B (accepted, read back); A is
  then written; B refuses edits as above and reads back unchanged.
- CURVE-003: B holds a curve of a type the subject's setting does not take. Naming B is
  refused (usual NOT_SUPPORTED), disabled and again enabled naming A, the setting reading
  back what it named before. With the subject disabled and naming A, a change of A's type to
  B's is either refused (usual NOT_SUPPORTED; A's type reads back unchanged) or, when
  accepted, enabling the subject is refused (usual NOT_SUPPORTED) and it stays disabled
  (noted): both keep a function from running on a curve of another type.
- CURVE-003.2: naming A holding an undefined curve (type 0) is refused (usual
  NOT_SUPPORTED), and naming curve N+1 (usual OUT_OF_RANGE); the setting still names none.
"""

from __future__ import annotations

from gridwire.der.functions import CURVE_TYPE
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.curve_lab import UNDEFINED, Lab, holds, shows
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import OUT_OF_RANGE, SUCCESS, refused

NOT_SUPPORTED = "NOT_SUPPORTED"


async def curve_001(ctx: CheckContext) -> None:
    lab = await Lab.open(ctx, 2)
    a, b = lab.numbers
    subject = lab.subject
    await lab.store(a, subject.samples[0])
    await lab.select(a)
    await lab.indicates(False, f"curve {a} shown, no curve setting naming a curve")
    await lab.name(a)
    await lab.switch(True)
    named = f"named by the enabled {subject.name} function"
    await lab.indicates(True, f"curve {a} shown, {named}")
    await lab.select(b)
    await lab.indicates(False, f"curve {b} shown, which no function names")
    await lab.select(a)
    await lab.indicates(True, f"curve {a} shown again, {named}")
    await lab.switch(False)
    seen = (await ctx.read([lab.indicator]))[str(lab.indicator.address)].value
    ctx.note(
        f"{lab.indicator.address} reads {seen} with curve {a} shown, named by {subject.name} "
        "while it is disabled (either is taken)"
    )
    await lab.close()
    await lab.indicates(False, f"curve {a} shown, after the release")
    ctx.verified(
        f"{lab.indicator.address} read off with curve {a} shown and no curve named, on once the "
        f"enabled {subject.name} named it, off with curve {b} shown, on with curve {a} shown "
        "again, off after the release"
    )


async def curve_001_2(ctx: CheckContext) -> None:
    lab = await Lab.open(ctx, 0, subject=False)
    beyond = lab.count + 1
    before = await lab.selected()
    if before is None:
        raise Failed(f"AI{lab.block.readback} (the curve selector's mirror) was not reported")
    what = f"selecting curve {beyond} ({lab.count} stored)"
    how = await lab.select_refused(beyond, OUT_OF_RANGE, what)
    after = await lab.selected()
    if after != before:
        raise Failed(
            f"after {what} was refused, AI{lab.block.readback} (the selector's mirror) reads "
            f"{after}, not {before} as before"
        )
    await lab.close()
    ctx.verified(
        f"{what} refused {how}; AI{lab.block.readback} (the selector's mirror) still reads "
        f"curve {before}"
    )


async def _enabled_on_a(ctx: CheckContext) -> Lab:
    """The lab with A holding the subject's first sample and B its second, the subject
    enabled naming A."""
    lab = await Lab.open(ctx, 2)
    first, second = lab.subject.samples
    a, b = lab.numbers
    await lab.store(a, first)
    await lab.store(b, second)
    await lab.name(a)
    await lab.switch(True)
    return lab


async def curve_002(ctx: CheckContext) -> None:
    lab = await _enabled_on_a(ctx)
    a, b = lab.numbers
    name = lab.subject.name
    first, second = lab.subject.samples
    locked = await lab.locked(a, first, f"named by the enabled {name} function")
    await lab.store(b, first, f"writing curve {b}, which no function names, beside it")
    await lab.switch(False)
    await lab.store(a, second, f"writing curve {a} once {name} was disabled")
    await lab.close()
    ctx.verified(f"curve {a} named by the enabled {name}: {locked}")
    ctx.verified(f"curve {b}, named by none, written and read back beside it")
    ctx.verified(f"curve {a} written and read back once {name} was disabled")


async def curve_002_2(ctx: CheckContext) -> None:
    lab = await _enabled_on_a(ctx)
    a, b = lab.numbers
    name = lab.subject.name
    second = lab.subject.samples[1]
    await lab.name(b, f"moving the enabled {name} function from curve {a} to {b}")
    await lab.store(a, second, f"writing curve {a}, which {name} left")
    locked = await lab.locked(b, second, f"named by the enabled {name} function since the move")
    await lab.close()
    setting = lab.subject.setting.address
    ctx.verified(f"the enabled {name} moved from curve {a} to {b} ({setting} read back)")
    ctx.verified(f"curve {a}, which it left, written and read back")
    ctx.verified(f"curve {b}: {locked}")


async def curve_003(ctx: CheckContext) -> None:
    lab = await Lab.open(ctx, 2)
    a, b = lab.numbers
    subject = lab.subject
    other = subject.other
    if other is None:
        raise NotApplicable(f"{subject.setting.address} ({subject.name}) takes a curve of any type")
    taken = ", ".join(str(t) for t in subject.types)
    if subject.types_from == "standard":
        ctx.note(
            f"the curve types {subject.setting.address} takes ({taken}) are IEEE 1815.2's: "
            f"the tables enumerate no values for the curve type point AO{lab.block.output(CURVE_TYPE)}"
        )
    await lab.store(a, subject.samples[0])
    await lab.store(b, other)
    wrong = f"curve {b} (type {other.type}; {subject.setting.address} takes {taken})"
    off = await lab.not_named(b, NOT_SUPPORTED, f"naming {wrong}, {subject.name} disabled")
    await lab.name(a)
    await lab.switch(True)
    on = await lab.not_named(
        b, NOT_SUPPORTED, f"moving the enabled {subject.name} function to {wrong}"
    )
    await lab.switch(False)
    changed = await _type_change(ctx, lab, a, other.type)
    await lab.close()
    ctx.verified(
        f"naming {wrong} refused {off} with {subject.name} disabled and {on} with it enabled "
        f"on curve {a}, the setting read back unchanged"
    )
    ctx.verified(changed)


async def _type_change(ctx: CheckContext, lab: Lab, number: int, kind: int) -> str:
    """Curve ``number``, named by the disabled subject, has its type changed to ``kind``:
    refused, or accepted and then the subject cannot be enabled (see the module's notes).
    Answers which, for the detail."""
    subject = lab.subject
    held = subject.samples[0]
    await lab.select(number)
    what = f"changing the type of curve {number} to {kind} while {subject.name} names it"
    result = await lab.edit([(CURVE_TYPE, kind)])
    statuses = [s.status for s in result.statuses]
    if statuses != [SUCCESS]:
        how = refused(ctx, result, what, NOT_SUPPORTED)
        reading = await lab.read()
        if not holds(reading, held):
            raise Failed(f"after {what} was refused, curve {number} reads {shows(reading)}")
        return f"{what} refused {how}, curve {number} read back unchanged"
    enable = f"enabling {subject.name} ({subject.enable.address}) on it"
    lab.on = True  # until the refusal is seen
    how = refused(ctx, await lab.try_enable(), f"{what} was accepted; then {enable}", NOT_SUPPORTED)
    lab.on = False
    if subject.enabled is not None:
        state = (await ctx.read([subject.enabled]))[str(subject.enabled.address)].value
        if state is not False:
            raise Failed(f"{enable} was refused, yet {subject.enabled.address} reads {state}")
    ctx.note(
        f"{what} was accepted; enabling {subject.name} was then refused, so it does not run on "
        "a curve of another type"
    )
    return f"{what} accepted, then {enable} refused {how}: it stayed disabled"


async def curve_003_2(ctx: CheckContext) -> None:
    lab = await Lab.open(ctx, 1)
    [a] = lab.numbers
    subject = lab.subject
    setting = subject.setting.address
    await lab.store(a, UNDEFINED, f"storing an undefined curve (type 0) in curve {a}")
    undefined = f"naming curve {a}, undefined (type 0), with {setting}"
    first = await lab.not_named(a, NOT_SUPPORTED, undefined)
    beyond = lab.count + 1
    what = f"naming curve {beyond} ({lab.count} stored) with {setting}"
    second = await lab.not_named(beyond, OUT_OF_RANGE, what)
    await lab.close()
    ctx.verified(f"{undefined} refused {first}; {what} refused {second}; {setting} names none")
