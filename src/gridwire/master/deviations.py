"""Protocol rules the master breaks on purpose, to see what an outstation makes of it.

Every deviation is off until :meth:`Deviations.set` turns it on. They are applied outside the
association: the session hands :meth:`Deviations.outgoing` the frames the association built
(correct ones) at the one place octets are written, and writes what comes back. So the
association's own state (sequence numbers, what it waits for) stays as if the rules had been
kept, and the outstation sees the broken version.

What each one does on the wire (``kind`` is what the frames carry: ``request``, ``confirm``
(of a solicited response), ``unsolicited_confirm``, or ``link``):

``silence``
    Nothing is written, of any kind: the request goes unanswered (outcome timeout) and no
    confirmation or link frame leaves either.
``repeat_request``
    Every frame of a request that commands nothing (READ, ENABLE_UNSOLICITED,
    DISABLE_UNSOLICITED, DELAY_MEASURE: what :mod:`gridwire.master.gate` lets a master without
    control send) is written a second time, straight after the first copy: the outstation
    receives the same fragment, same sequence number, twice. A request that commands is
    written once (see below).
``second_master_address``
    A request's frames carry another source address (``True``: the master's address plus
    one, wrapping below 0xFFF0; or the address given), header CRC made good. The outstation
    answers (if at all) to an address this master does not listen for.
``corrupt_header_crc``
    Each frame of a request has its header CRC inverted (every bit flipped), so no receiver
    can read it as a frame (tshark: ``tcp.len>0 && !dnp3``).
``corrupt_body_crc``
    Each frame of a request has the CRC of its first data block inverted; the header is
    good, so the frame's length is known and the whole frame is dropped (tshark:
    ``dnp.data_chunk.CRC.status==0``).
``truncate``
    The last frame of a request is cut after its header and half of the octets after it;
    the rest is never sent. A reader that trusts the header's length waits for octets that
    belong to the next frame, and loses that one in turn; one that checks each data block as
    it arrives (gridwire's) drops the cut frame and finds the next.
``overstate_length``
    Each frame of a request says LENGTH 255 (the most a frame can claim), header CRC made
    good, while carrying only its real data. A frame already at 255 cannot be overstated and
    goes as it is.
``break_transport_sequence``
    The request travels as at least two segments (a one-segment request is split in two
    halves) and every segment after the first is numbered one more than it should be, so
    the second skips a number. A receiver following IEEE 1815-2012 clause 8.2 discards the
    fragment.
``orphan_segment``
    Before the request, one extra frame carries a segment without FIR (FIN set, numbered one
    before the request's first segment) holding a copy of the request's first octets: a
    segment with nothing before it, which a receiver must discard. The request follows
    intact. For a request that commands, the orphan holds as many zero octets instead, so
    a receiver that wrongly takes it in finds a CONFIRM, not a second copy of the command.
``endless_series``
    The request's first segment goes without FIN, followed by ``n`` non-FIR, non-FIN
    segments of 249 zero octets in sequence (``True``: 64, about 18 KiB): a series that never
    completes a fragment. The request is never finished, so it is not answered.
``withhold_confirmation``
    Confirmations of solicited responses are not sent.
``late_confirmation``
    Confirmations (solicited and unsolicited) are written late: ``True`` is 10 seconds, a
    number is seconds.
``wrong_confirmation_sequence``
    Confirmations (solicited and unsolicited) carry the next application sequence number
    (one more, modulo 16) instead of the response's.
``withhold_unsolicited_confirmation``
    Confirmations of unsolicited responses are not sent.

A request that commands (every function the wire gate does not let a master without control
send: SELECT, OPERATE, DIRECT_OPERATE with or without acknowledgment, WRITE, the freezes, the
restarts, RECORD_CURRENT_TIME...) is never put on the wire twice, whatever is on, so no
outstation can carry it out twice. Whether a request commands is read from its own fragment
as well as from the function the session names: either saying so is enough, and a request
whose function is known from neither counts as commanding (frames that are not ours to read are written as
they are, once, under every deviation but ``silence``). For such a request: ``silence`` writes nothing; ``repeat_request`` does nothing
(logged at INFO); ``orphan_segment`` sends zeros where the copy would be;
``second_master_address``, ``overstate_length``, ``corrupt_header_crc``, ``corrupt_body_crc``,
``truncate``, ``break_transport_sequence`` and ``endless_series`` change or cut the one copy
sent (an outstation may take it in once, or not at all); the confirmation deviations leave
requests alone.

Combined, they apply in this order: the request is re-segmented (endless_series, else
break_transport_sequence), then its frames are rewritten (second_master_address,
overstate_length, corrupt_body_crc, corrupt_header_crc, truncate), then orphan_segment puts
its frame first and repeat_request doubles the lot (when it commands nothing); confirmations are withheld, renumbered,
then delayed; silence overrides everything.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Final

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.crc import append_crc
from gridwire.dnp3.errors import DnpError
from gridwire.dnp3.link import HEADER_SIZE, LinkFrame, encode_frame, parse_frame
from gridwire.dnp3.transport import FIN, FIR, MAX_PAYLOAD, SEQ_MASK
from gridwire.errors import BadParameter, UnknownName
from gridwire.master import gate
from gridwire.master.limits import MAX_LATE_SECONDS, MAX_SERIES
from gridwire.process.caller import caller

log = logging.getLogger(__name__)

DEFAULT_LATE_SECONDS: Final = 10.0
DEFAULT_SERIES: Final = 64
_APP_SEQ: Final = 0x0F
_LENGTH_MAX: Final = 255
_ADDRESS_LIMIT: Final = 0xFFF0  # 0xFFF0 and above are reserved or broadcast addresses


def _flag(name: str, value: object) -> object:
    if value is True:
        return True
    raise BadParameter(f"deviation {name} takes true or false, not {value!r}")


def _number(
    default: object, valid: Callable[[float], bool], kind: type, says: str
) -> Callable[[str, object], object]:
    """A check for a deviation that takes a parameter: True means ``default``; otherwise a
    number of ``kind`` (int, or float which also takes an int) for which ``valid`` holds."""

    def check(name: str, value: object) -> object:
        if value is True:
            return default
        if isinstance(value, int | float) and not isinstance(value, bool):
            fits = isinstance(value, int) or kind is float
            if fits and math.isfinite(value) and valid(value):
                return kind(value)
        raise BadParameter(f"deviation {name} takes {says}, not {value!r}")

    return check


_seconds = _number(
    DEFAULT_LATE_SECONDS,
    lambda v: 0 < v <= MAX_LATE_SECONDS,
    float,
    f"true ({DEFAULT_LATE_SECONDS:g} s) or seconds in (0, {MAX_LATE_SECONDS:g}]",
)
_count = _number(
    DEFAULT_SERIES,
    lambda v: 1 <= v <= MAX_SERIES,
    int,
    f"true ({DEFAULT_SERIES} segments) or a number of segments 1..{MAX_SERIES}",
)
_address = _number(
    True,
    lambda v: 0 <= v < _ADDRESS_LIMIT,
    int,
    f"true (the master's address plus one) or an address 0..{_ADDRESS_LIMIT - 1}",
)


# Every deviation by name, with the check of the value that turns it on.
DEVIATIONS: Final[dict[str, Callable[[str, object], object]]] = {
    "silence": _flag,
    "repeat_request": _flag,
    "second_master_address": _address,
    "corrupt_header_crc": _flag,
    "corrupt_body_crc": _flag,
    "truncate": _flag,
    "overstate_length": _flag,
    "break_transport_sequence": _flag,
    "orphan_segment": _flag,
    "endless_series": _count,
    "withhold_confirmation": _flag,
    "late_confirmation": _seconds,
    "wrong_confirmation_sequence": _flag,
    "withhold_unsolicited_confirmation": _flag,
}

CONFIRM_KINDS: Final = frozenset({"confirm", "unsolicited_confirm"})
KINDS: Final = frozenset({"request", "link"}) | CONFIRM_KINDS


class Deviations:
    """The deviations on for one outstation (``owner`` names it in the log), and the hook
    that applies them."""

    __slots__ = ("_on", "owner")

    def __init__(self, owner: str = "") -> None:
        self._on: dict[str, object] = {}
        self.owner = owner

    @property
    def on(self) -> dict[str, object]:
        """The deviations on, each with its parameter (True for those that take none)."""
        return dict(self._on)

    def __bool__(self) -> bool:
        return bool(self._on)

    def set(self, changes: dict[str, object]) -> dict[str, object]:
        """Turn deviations on (True or a parameter) or off (False or None); returns those on.

        All or nothing: RequestError naming the first unknown deviation or bad value, and
        then nothing changes. Every change is logged at WARNING with the client that asked
        for it (:func:`gridwire.process.caller.caller`) and the deviations on after it."""
        unknown = sorted(set(changes) - set(DEVIATIONS))
        if unknown:
            raise UnknownName(
                f"unknown deviation {', '.join(unknown)} (deviations: {', '.join(DEVIATIONS)})"
            )
        updated = dict(self._on)
        for name, value in changes.items():
            if value is False or value is None:
                updated.pop(name, None)
            else:
                updated[name] = DEVIATIONS[name](name, value)
        self._on = updated
        log.warning(
            "deviate %s by %s: %s; now on: %s",
            self.owner or "outstation",
            caller(),
            _changes_text(changes, updated),
            _listed(updated) or "none",
        )
        return self.on

    def clear(self) -> None:
        """Turn every deviation off."""
        self._on = {}

    def outgoing(
        self, kind: str, function: FunctionCode | None, frames: list[bytes], now: float
    ) -> list[tuple[float, bytes]]:
        """What to write for ``frames`` of ``kind``: (delay in seconds from now, octets) in
        order; [] writes nothing. With no deviation on: every frame at once, unchanged."""
        on = self._on
        if not on:
            return [(0.0, f) for f in frames]
        if "silence" in on:
            return []
        if kind == "request":
            return [(0.0, f) for f in self._request(function, frames)]
        if kind in CONFIRM_KINDS:
            return self._confirm(kind, frames)
        return [(0.0, f) for f in frames]

    def _request(self, function: FunctionCode | None, frames: list[bytes]) -> list[bytes]:
        on = self._on
        parsed = _parse_all(frames)
        if parsed is None:  # not frames we built: leave them be
            return list(frames)
        commanding = _commands(function, parsed)
        if "endless_series" in on:
            count = on["endless_series"]
            assert isinstance(count, int)
            parsed = _endless(parsed, count)
        elif "break_transport_sequence" in on:
            parsed = _skip_sequence(parsed)
        if "second_master_address" in on:
            parsed = [_from_address(f, on["second_master_address"]) for f in parsed]
        out = [f.raw for f in parsed]
        if "overstate_length" in on:
            out = [_overstate(raw) for raw in out]
        if "corrupt_body_crc" in on:
            out = [_corrupt_body(raw) for raw in out]
        if "corrupt_header_crc" in on:
            out = [_corrupt_header(raw) for raw in out]
        if "truncate" in on and out:
            out[-1] = _truncate(out[-1])
        if "orphan_segment" in on:
            out.insert(0, _orphan(parsed[0], blank=commanding))
        if "repeat_request" in on:
            if not commanding:
                out = out + out
            else:
                log.info(
                    "%s: repeat_request left out: %s commands, and a request that commands "
                    "is sent once",
                    self.owner or "outstation",
                    _function_name(function, parsed),
                )
        return out

    def _confirm(self, kind: str, frames: list[bytes]) -> list[tuple[float, bytes]]:
        on = self._on
        if kind == "confirm" and "withhold_confirmation" in on:
            return []
        if kind == "unsolicited_confirm" and "withhold_unsolicited_confirmation" in on:
            return []
        out = list(frames)
        if "wrong_confirmation_sequence" in on:
            out = [_next_app_sequence(f) for f in out]
        delay = on.get("late_confirmation", 0.0)
        assert isinstance(delay, float)
        return [(delay, f) for f in out]


def _listed(on: dict[str, object]) -> str:
    return ", ".join(name if value is True else f"{name}={value}" for name, value in on.items())


def _changes_text(changes: dict[str, object], updated: dict[str, object]) -> str:
    turned_on = {name: updated[name] for name in changes if name in updated}
    turned_off = [name for name in changes if name not in updated]
    parts = [f"on {_listed(turned_on)}"] if turned_on else []
    parts += [f"off {', '.join(turned_off)}"] if turned_off else []
    return "; ".join(parts) or "nothing named"


def _parse_all(frames: list[bytes]) -> list[LinkFrame] | None:
    try:
        parsed = [parse_frame(f) for f in frames]
    except DnpError:
        return None
    return parsed if parsed and all(f.data for f in parsed) else None


def _fragment_function(frames: list[LinkFrame]) -> FunctionCode | None:
    """The function code the fragment's first segment names, None when it names none."""
    data = frames[0].data
    if len(data) < 3 or not data[0] & FIR:
        return None
    try:
        return FunctionCode(data[2])
    except ValueError:
        return None


def _commands(function: FunctionCode | None, frames: list[LinkFrame]) -> bool:
    """Whether the request commands: by the function the session names or the one its
    fragment carries, either being enough; with neither known, it does."""
    known = [code for code in (function, _fragment_function(frames)) if code is not None]
    return not known or any(gate.commands(code) for code in known)


def _function_name(function: FunctionCode | None, frames: list[LinkFrame]) -> str:
    code = function if function is not None else _fragment_function(frames)
    return code.name if code is not None else "a request of unknown function"


def _reframe(frame: LinkFrame, data: bytes, *, source: int | None = None) -> LinkFrame:
    raw = encode_frame(
        frame.function,
        frame.destination,
        frame.source if source is None else source,
        data,
        from_master=frame.dir,
        primary=frame.prm,
        fcb=frame.fcb,
        fcv=frame.fcv,
    )
    return parse_frame(raw)


def _segments(frames: list[LinkFrame]) -> tuple[int, bytes]:
    """The first segment's sequence number and the fragment the frames carry."""
    return frames[0].data[0] & SEQ_MASK, b"".join(f.data[1:] for f in frames)


def _endless(frames: list[LinkFrame], count: int) -> list[LinkFrame]:
    seq, fragment = _segments(frames)
    first = frames[0]
    out = [_reframe(first, bytes((FIR | seq,)) + fragment[:MAX_PAYLOAD])]
    filler = bytes(MAX_PAYLOAD)
    out.extend(
        _reframe(first, bytes(((seq + n) & SEQ_MASK,)) + filler) for n in range(1, count + 1)
    )
    return out


def _skip_sequence(frames: list[LinkFrame]) -> list[LinkFrame]:
    seq, fragment = _segments(frames)
    if len(frames) > 1:
        payloads = [f.data[1:] for f in frames]
    else:
        half = max(1, len(fragment) // 2)
        payloads = [fragment[:half], fragment[half:]]
    out = []
    last = len(payloads) - 1
    for n, payload in enumerate(payloads):
        number = seq if n == 0 else (seq + n + 1) & SEQ_MASK
        header = (FIR if n == 0 else 0) | (FIN if n == last else 0) | number
        out.append(_reframe(frames[0], bytes((header,)) + payload))
    return out


def _from_address(frame: LinkFrame, address: object) -> LinkFrame:
    if address is True:
        source = (frame.source + 1) % _ADDRESS_LIMIT
    else:
        assert isinstance(address, int)
        source = address
    return _reframe(frame, frame.data, source=source)


def _orphan(first: LinkFrame, *, blank: bool) -> bytes:
    """The orphan segment: a copy of the first octets of the request, or (``blank``) as many
    zero octets, which no receiver can take for the request."""
    seq, fragment = _segments([first])
    header = FIN | ((seq - 1) & SEQ_MASK)
    payload = fragment[:MAX_PAYLOAD]
    if blank:
        payload = bytes(len(payload))
    return _reframe(first, bytes((header,)) + payload).raw


def _overstate(raw: bytes) -> bytes:
    if raw[2] >= _LENGTH_MAX:
        return raw
    header = raw[:2] + bytes((_LENGTH_MAX,)) + raw[3:8]
    return append_crc(header) + raw[HEADER_SIZE:]


def _corrupt_header(raw: bytes) -> bytes:
    return raw[:8] + bytes((raw[8] ^ 0xFF, raw[9] ^ 0xFF)) + raw[HEADER_SIZE:]


def _corrupt_body(raw: bytes) -> bytes:
    if len(raw) <= HEADER_SIZE + 2:
        return raw
    block = min(16, len(raw) - HEADER_SIZE - 2)
    at = HEADER_SIZE + block
    return raw[:at] + bytes((raw[at] ^ 0xFF, raw[at + 1] ^ 0xFF)) + raw[at + 2 :]


def _truncate(raw: bytes) -> bytes:
    return raw[: HEADER_SIZE + (len(raw) - HEADER_SIZE) // 2]


def _next_app_sequence(raw: bytes) -> bytes:
    try:
        frame = parse_frame(raw)
    except DnpError:
        return raw
    data = frame.data
    if len(data) < 2 or not data[0] & FIR:
        return raw
    control = data[1]
    renumbered = (control & ~_APP_SEQ) | ((control + 1) & _APP_SEQ)
    return _reframe(frame, data[:1] + bytes((renumbered,)) + data[2:]).raw
