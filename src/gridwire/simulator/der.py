"""The simulated IEEE 1815.2 DER: a device (see :mod:`gridwire.outstation.device`) that serves a
point map, decides each control by the point map's rules and moves its measurements on a tick.

The database holds one point per map point: BI as g1, BO status as g10, AI as g30 (32-bit),
AO status as g40 (32-bit), CTR as g20 and, where the map says a counter has one, its frozen
counter as g21 (other variations per type with ``variations``, as in the database file);
values as transmitted (raw), event classes as the map gives them (none for output statuses:
their mirror inputs report changes).

Control rules (each pinned by a test in tests/simulator):

- A control for a point the map does not have, or the DER does not serve: NOT_SUPPORTED.
- A binary output takes LATCH_ON, PULSE_ON or CLOSE as on, LATCH_OFF, PULSE_OFF or TRIP as
  off; NUL leaves it as it is. An analog output takes a whole number as transmitted; a float
  command (g41v3, g41v4) is the engineering value, held as the nearest transmitted whole
  number (floating-point variations are not scaled); a value outside its minimum and maximum
  is refused OUT_OF_RANGE.
- Each output's status and its mirror input (the map's associated point) take the value.
- A function's enable output: refused NOT_SUPPORTED when the function's supports input says
  it is not supported; enabling sets its enabled input and brings its inputs ONLINE;
  disabling clears ONLINE from them (the supports and enabled inputs stay ONLINE).
- The points of a function it does not support are not served
  (:mod:`gridwire.simulator.served`).
- Start, stop and their permissions: :mod:`gridwire.simulator.run_state`.
- The curve block refuses a curve that does not exist, an edit of a curve an enabled
  function references, and a curve of a type the function does not take (statuses in
  :class:`~gridwire.simulator.curves.CurveStatuses`); a curve setting may name no curve (0);
  BI107 says whether any function's curve setting names the selected curve.
- The schedule block: :mod:`gridwire.simulator.schedules`.
- ``misbehave`` names its deviations (:mod:`gridwire.simulator.misbehaviour`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from gridwire.der.curve_types import curve_types
from gridwire.der.demo import demo_map
from gridwire.der.functions import CurveBlock, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.controls import AnalogCommand, BinaryCommand, Command, Mode
from gridwire.outstation.database import Database
from gridwire.outstation.database_file import Variations
from gridwire.outstation.points import ONLINE, PointType, Value
from gridwire.simulator import model
from gridwire.simulator import profile as P
from gridwire.simulator.attributes import serve_attributes
from gridwire.simulator.curves import CurveStatuses, CurveStore, NoCurves
from gridwire.simulator.inputs import published
from gridwire.simulator.misbehaviour import (
    ACCEPT_LOCKED_CURVE_EDITS,
    INPUTS_ONLINE_WHEN_DISABLED,
    der_misbehaviours,
)
from gridwire.simulator.run_state import RunState
from gridwire.simulator.schedules import ScheduleRunner
from gridwire.simulator.served import unserved_points
from gridwire.simulator.stored import TYPE_OF_KIND, initial_value

_COUNTERS = (("delivered_wh", 0), ("received_wh", 1), ("injected_varh", 2), ("absorbed_varh", 3))
MAX_STEP_S = 60.0


class SimulatedDer:
    """A battery inverter serving ``point_map`` (the demo map when None)."""

    def __init__(
        self,
        point_map: PointMap | None = None,
        *,
        clock: DeviceClock | None = None,
        event_capacity: int = 1000,
        curve_statuses: CurveStatuses | None = None,
        variations: Variations | None = None,
        misbehave: frozenset[str] = frozenset(),
    ) -> None:
        self.map = point_map if point_map is not None else demo_map()
        self.misbehave = der_misbehaviours(misbehave)
        self._online_when_disabled = INPUTS_ONLINE_WHEN_DISABLED in self.misbehave
        self._curve_lock = ACCEPT_LOCKED_CURVE_EDITS not in self.misbehave
        self.database = Database(clock, event_capacity)
        self.statuses = curve_statuses or CurveStatuses()
        self.variations: Variations = dict(variations or {})
        self.block: CurveBlock | None = self.map.curve_block
        self._functions = {f.enable: f for f in self.map.functions}
        self._curve_settings = {
            ref.setting: (function, curve_types(self.map, function, ref).types)
            for function in self.map.functions
            for ref in function.curves
        }
        self._unserved = unserved_points(self.map)
        self._reset_model()
        self._build()

    # -- building ------------------------------------------------------------------------
    def _reset_model(self) -> None:
        self.curves = CurveStore(self.block) if self.block is not None else None
        block = self.map.schedule_block
        self.schedules = (
            None
            if block is None
            else ScheduleRunner(block, self.map, self.database, self.misbehave)
        )
        self.state = model.State()
        self.ratings = model.Ratings()
        self._started_at: float | None = None
        self._last: float | None = None
        self.run = RunState(self._latched, self._latch, self.misbehave)
        self._counted: dict[int, float] = {}  # energy totals already counted, by counter
        self._carry: dict[int, float] = {}  # fractions of a unit not counted yet

    def serves(self, point: Point) -> bool:
        """Whether the DER serves ``point`` of its map."""
        return (point.kind, point.index) not in self._unserved

    def _build(self) -> None:
        db = self.database
        window = self._window_values()
        for type, index, held in self.schedules.values() if self.schedules else ():
            window[(Kind(type.upper()), index)] = held
        for point in self.map.points:
            if not self.serves(point):
                continue
            type = TYPE_OF_KIND[point.kind]
            value = window.get((point.kind, point.index), initial_value(point))
            output = point.kind.is_output
            event_class = 0 if output else (point.event_class or 0)
            deadband = P.DEADBANDS.get(point.index, 0) if point.kind is Kind.AI else 0
            static, event = self.variations.get(type, (None, None))
            db.add(
                type,
                point.index,
                value,
                event_class=event_class,
                deadband=deadband,
                static_variation=static,
                event_variation=event,
            )
            if point.kind is Kind.CTR and point.frozen:
                static, event = self.variations.get("frozen", (None, None))
                db.add(
                    "frozen",
                    point.index,
                    value,
                    event_class=point.frozen_event_class or 0,
                    static_variation=static,
                    event_variation=event,
                )
        self.state.soc = self._input_engineering(P.SOC, self.state.soc)
        for function in self._functions.values():
            if not self._is_enabled(function) and not self._online_when_disabled:
                for type, index in self._function_inputs(function):
                    stored = db.get(type, index)
                    stored.flags = stored.initial_flags = stored.flags & ~ONLINE
        self._refresh_referenced(0.0, initial=True)
        serve_attributes(db, self.map)

    def _window_values(self) -> dict[tuple[Kind, int], Value]:
        if self.curves is None or self.block is None:
            return {}
        values: dict[tuple[Kind, int], Value] = {}
        for offset, value in enumerate(self.curves.window()):
            values[(Kind.AO, self.block.output(offset))] = value
            values[(Kind.AI, self.block.input(offset))] = value
        return values

    # -- the device protocol -------------------------------------------------------------
    def control(self, command: Command, mode: Mode, now: float) -> CommandStatus:
        if isinstance(command, BinaryCommand):
            return self._binary(command, mode, now)
        return self._analog(command, mode, now)

    def tick(self, now: float) -> None:
        if self._started_at is None:
            self._started_at = self._last = now
        assert self._last is not None
        dt = min(max(now - self._last, 0.0), MAX_STEP_S)
        self._last = now
        self.run.tick(now)
        if self.schedules is not None:
            self.schedules.tick(now)
        self.ratings = self._ratings()
        settings = self._settings()
        model.step(settings, self.ratings, self.state, self._curves(), now - self._started_at, dt)
        self._publish(settings, now)

    def restart(self, cold: bool, now: float) -> None:
        """A cold restart puts the DER back as it started (values, curves, functions)."""
        if cold:
            self.database.reset()
            self._reset_model()
            self.state.soc = self._input_engineering(P.SOC, self.state.soc)

    # -- binary outputs ------------------------------------------------------------------
    def _binary(self, command: BinaryCommand, mode: Mode, now: float) -> CommandStatus:
        point = self.map.get(Kind.BO, command.index)
        if point is None or not self.serves(point):
            return CommandStatus.NOT_SUPPORTED
        state = command.state()
        if state is None:
            if command.op_type != 0:
                return CommandStatus.NOT_SUPPORTED
            return CommandStatus.SUCCESS  # NUL: nothing to do
        if self.schedules is not None and self.schedules.owns(Kind.BO, command.index):
            return self.schedules.ready(state, mode == "select", now)
        function = self._functions.get(command.index)
        if function is not None and state:
            refusal = self._refuse_enable(function)
            if refusal is not None:
                return refusal
        refusal = self.run.refusal(command.index, state)
        if refusal is not None:
            return refusal
        if mode == "select":
            return CommandStatus.SUCCESS
        self._set_output(point, state, now)
        if function is not None:
            self._set_inputs_online(function, state, now)
        self.run.commanded(command.index, state, now)
        return CommandStatus.SUCCESS

    def _refuse_enable(self, function: DerFunction) -> CommandStatus | None:
        if function.supports is not None:
            supports = self.database.point("bi", function.supports)
            if supports is None or not supports.value:
                return CommandStatus.NOT_SUPPORTED
        for ref in function.curves:
            number = int(self._raw("ao", ref.setting, 0))
            if self.curves is None:
                continue
            if not self.curves.exists(number):
                return self.statuses.no_such_curve
            curve = self.curves.curve(number)
            types = self._curve_settings[ref.setting][1]
            if types and (curve is None or curve.type not in types):
                return self.statuses.wrong_type
        return None

    # -- analog outputs ------------------------------------------------------------------
    def _analog(self, command: AnalogCommand, mode: Mode, now: float) -> CommandStatus:
        point = self.map.get(Kind.AO, command.index)
        if point is None or not self.serves(point):
            return CommandStatus.NOT_SUPPORTED
        value = command.value
        if isinstance(value, float):
            # A floating-point variation carries the engineering value: scaling applies to
            # the integer variations only (the DNP3 Device Profile's rule).
            if not math.isfinite(value):
                return CommandStatus.OUT_OF_RANGE
            value = point.to_raw(value)
        if not point.in_range(value):
            return CommandStatus.OUT_OF_RANGE
        if self.schedules is not None and self.schedules.owns(Kind.AO, command.index):
            return self.schedules.analog(command.index, value, mode == "select", now)
        refusal = self._curve_rules(command.index, value)
        if refusal is not None:
            return refusal
        if mode == "select":
            return CommandStatus.SUCCESS
        block = self.block
        if block is not None and self.curves is not None and command.index in block.outputs():
            changed = self.curves.write(command.index - block.selector, value)
            self._publish_window(changed, now)
        else:
            self._set_output(point, value, now)
        self._refresh_referenced(now)
        return CommandStatus.SUCCESS

    def _curve_rules(self, index: int, value: int) -> CommandStatus | None:
        curves, block = self.curves, self.block
        if curves is None or block is None:
            return None
        if index == block.selector:
            return None if curves.exists(value) else self.statuses.no_such_curve
        if index in block.outputs():
            if self._curve_lock and self._referenced_by_enabled(curves.selected):
                return self.statuses.referenced
            return None
        using = self._curve_settings.get(index)
        if using is None:
            return None
        _, types = using
        if value == 0:
            return None  # names no curve
        if not curves.exists(value):
            return self.statuses.no_such_curve
        curve = curves.curve(value)
        if types and (curve is None or curve.type not in types):
            return self.statuses.wrong_type
        return None

    def _referenced_by(self, number: int) -> list[DerFunction]:
        return [
            function
            for setting, (function, _) in self._curve_settings.items()
            if int(self._raw("ao", setting, 0)) == number
        ]

    def _referenced_by_enabled(self, number: int) -> bool:
        return any(self._is_enabled(f) for f in self._referenced_by(number))

    def _refresh_referenced(self, now: float, initial: bool = False) -> None:
        block, curves = self.block, self.curves
        if block is None or curves is None or block.referenced is None:
            return
        referenced = bool(self._referenced_by(curves.selected))
        point = self.database.point("bi", block.referenced)
        if point is None:
            return
        if initial:
            point.value = point.reported = point.initial = referenced
        else:
            self.database.update("bi", block.referenced, referenced, now=now)

    def _publish_window(self, offsets: Iterable[int], now: float) -> None:
        """The window's outputs and inputs at ``offsets`` take the window's values (only the
        offsets a write changed: one control must not walk the whole window)."""
        block, curves = self.block, self.curves
        assert block is not None and curves is not None
        for offset in offsets:
            value = curves.value_at(offset)
            pair: tuple[tuple[PointType, int], ...] = (
                ("ao", block.output(offset)),
                ("ai", block.input(offset)),
            )
            for type, index in pair:
                point = self.database.point(type, index)
                if point is not None and point.value != value:
                    self.database.update(type, index, value, now=now)

    # -- outputs and their mirrors -------------------------------------------------------
    def _set_output(self, point: Point, value: Value, now: float) -> None:
        type = TYPE_OF_KIND[point.kind]
        self.database.update(type, point.index, value, now=now)
        mirror = self.map.mirror(point)
        if mirror is not None and self.database.point(TYPE_OF_KIND[mirror.kind], mirror.index):
            self.database.update(TYPE_OF_KIND[mirror.kind], mirror.index, value, now=now)

    def _function_inputs(self, function: DerFunction) -> list[tuple[PointType, int]]:
        keep = {function.supports, function.enabled}
        return [
            (TYPE_OF_KIND[p.kind], p.index)
            for p in self.map.function_points(function)
            if p.kind.is_input and not (p.kind is Kind.BI and p.index in keep) and self.serves(p)
        ]

    def _latched(self, index: int) -> bool | None:
        stored = self.database.point("bo", index)
        return None if stored is None else bool(stored.value)

    def _latch(self, index: int, state: bool, now: float) -> None:
        point = self.map.get(Kind.BO, index)
        if point is not None and self.serves(point):
            self._set_output(point, state, now)

    def _set_inputs_online(self, function: DerFunction, online: bool, now: float) -> None:
        if not online and self._online_when_disabled:
            return
        for type, index in self._function_inputs(function):
            point = self.database.get(type, index)
            flags = point.flags | ONLINE if online else point.flags & ~ONLINE
            if flags != point.flags:
                self.database.update(type, index, flags=flags, now=now)

    def _is_enabled(self, function: DerFunction) -> bool:
        return bool(self._raw("bo", function.enable, False))

    # -- reading and writing values ------------------------------------------------------
    def _raw(self, type: PointType, index: int, default: Value) -> Value:
        point = self.database.point(type, index)
        return default if point is None else point.value

    def _engineering(self, kind: Kind, index: int, default: float) -> float:
        point = self.map.get(kind, index)
        stored = self.database.point(TYPE_OF_KIND[kind], index)
        if point is None or stored is None:
            return default
        return point.to_engineering(float(stored.value))

    def _input_engineering(self, index: int, default: float) -> float:
        return self._engineering(Kind.AI, index, default)

    def _setting(self, enable: int, index: int) -> float | None:
        """An analog setting of the function enabled by ``enable`` while it is enabled."""
        function = self._functions.get(enable)
        if function is None or not self._is_enabled(function):
            return None
        if self.map.get(Kind.AO, index) is None:
            return None
        return self._engineering(Kind.AO, index, 0.0)

    def _ratings(self) -> model.Ratings:
        r = model.Ratings()
        return model.Ratings(
            generating_w=abs(self._input_engineering(P.RATED_W, r.generating_w)),
            charging_w=abs(self._input_engineering(P.RATED_CHARGE_W, r.charging_w)),
            vars_max=abs(self._input_engineering(P.VARS_MAX, r.vars_max)),
            va_max=abs(self._input_engineering(P.VA_MAX, r.va_max)),
            capacity_wh=abs(self._input_engineering(P.CAPACITY_WH, r.capacity_wh)),
        )

    def _settings(self) -> model.Settings:
        pf_generating = self._setting(P.CONSTANT_POWER_FACTOR, P.POWER_FACTOR_GENERATING)
        pf_charging = self._setting(P.CONSTANT_POWER_FACTOR, P.POWER_FACTOR_CHARGING)
        volt_watt = self._setting(P.VOLT_WATT, P.VOLT_WATT_CURVE)
        volt_var = self._setting(P.VOLT_VAR, P.VOLT_VAR_CURVE)
        return model.Settings(
            vref=self._engineering(Kind.AO, P.VREF, 240.0)
            + self._engineering(Kind.AO, P.VREF_OFFSET, 0.0),
            fnom=self._engineering(Kind.AO, P.FNOM, 60.0),
            connected=bool(self._raw("bo", P.SWITCH, True)),
            started=self.run.started,
            locked=bool(self._raw("bo", P.LOCKOUT, False)),
            charge_discharge=self._setting(P.CHARGE_DISCHARGE, P.CHARGE_DISCHARGE_TARGET),
            limit_generating=self._setting(P.ACTIVE_POWER_LIMIT, P.LIMIT_GENERATING),
            limit_charging=self._setting(P.ACTIVE_POWER_LIMIT, P.LIMIT_CHARGING),
            volt_watt=None if volt_watt is None else round(volt_watt),
            volt_var=None if volt_var is None else round(volt_var),
            power_factor=(
                None
                if pf_generating is None
                else (pf_generating, pf_charging if pf_charging is not None else pf_generating)
            ),
            absorb_generating=bool(self._raw("bo", P.ABSORB_GENERATING, False)),
            absorb_charging=bool(self._raw("bo", P.ABSORB_CHARGING, False)),
            constant_vars=self._setting(P.CONSTANT_VARS, P.CONSTANT_VARS_TARGET),
        )

    def _curves(self) -> model.CurveLookup:
        return self.curves if self.curves is not None else NoCurves()

    def _put(self, type: PointType, index: int, engineering: float | bool, now: float) -> None:
        """Set an input (bi or ai) the model drives, when the map has it."""
        stored = self.database.point(type, index)
        if stored is None:
            return
        if isinstance(engineering, bool):
            value: Value = engineering
        else:
            point = self.map.get(Kind.AI, index)
            if point is None:
                return
            value = point.to_raw(engineering)
        if value != stored.value:
            self.database.update(type, index, value, now=now)

    def _publish(self, settings: model.Settings, now: float) -> None:
        for type, index, value in published(self.state, self.ratings, settings):
            self._put(type, index, value, now)
        self._count(now)

    def _count(self, now: float) -> None:
        """Add the energy since the last tick to the counters. Counters count on from what
        they hold, so a freeze-and-clear (or a master's write) starts them again from there."""
        for name, index in _COUNTERS:
            stored = self.database.point("counter", index)
            total = float(getattr(self.state, name))
            carry = self._carry.get(index, 0.0) + total - self._counted.get(index, 0.0)
            self._counted[index] = total
            whole = int(carry)
            self._carry[index] = carry - whole
            if stored is not None and whole:
                self.database.update("counter", index, int(stored.value) + whole, now=now)
