"""Hostile JSON messages for the operations service, from a seeded ``random.Random``: whole
messages of every operation with plausible, wrong-typed, missing and unknown parameters;
broken JSON; JSON that is not an object; ids that cannot be written back (deep, long, huge);
nesting past any parser's depth; and messages just under and over the 4 MiB limit.

The operation names and their parameters are the service's own table (what ``--help`` and
OpenAPI list); the values are chosen here. An operation that would end or reshape the run
(``stop``, ``remove``, ``restart``...) is always sent with an unknown parameter as well, so it
is refused before it runs: the run keeps one outstation, connected, to the end.

Each message comes with the ``id`` its answer must carry (:data:`ANY` when the message does
not say: broken JSON, an unusable id, not an object).
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass
from typing import Any

from gridwire.operations.table import default_table

LIMIT = 4 << 20  # the spec's message limit, octets
OUTSTATION = "der"
ANY: Any = object()
"""The answer's id is not checked."""

# Run as messages of their own, with parameters that could be valid, they would end the
# service, forget or restart the outstation, change what the master does unasked, or run
# for minutes: each is refused by an unknown parameter instead.
REFUSED_ONLY = frozenset(
    {"stop", "remove", "disconnect", "connect", "add", "restart", "deviate", "evaluate",
     "repeat", "set_tasks", "idle"}
)  # fmt: skip
UNKNOWN = "fuzz_unknown_parameter"

_KNOWN: dict[str, list[Any]] = {
    "outstation": [OUTSTATION] * 6 + ["nobody", "", "x" * 300, 5, None, ["der"]],
    "kind": ["integrity", "events", "class0", "class1", "class2", "class3", "outputs", "cold",
             "warm", "INTEGRITY", ""],
    "mode": ["direct", "select", "direct_no_ack", "DIRECT", "both"],
    "function": ["READ", "DELAY_MEASURE", "ENABLE_UNSOLICITED", "DISABLE_UNSOLICITED",
                 "RECORD_CURRENT_TIME", "NOPE", 1, 0x81],
    "body": ["", "3c0206", "3c01063c02063c0306", "zz", "3c02", "00" * 2000],
    "procedure": ["lan", "non_lan", "wan"],
    "timeout": [0, 0.01, 0.3, -1, "1", 1e9, float("nan")],
    "after": [0, -1, 2**70, 10**6, "5", None],
    "classes": [[1, 2, 3], [1], [], [4], [0], "1,2"],
    "what": ["frames", "events", "all", "nothing"],
    "names": [["System meter active power"], ["AI537", "BO0"], ["no such point"], [],
              ["ai537", "AI99999"], "AI537"],
    "group": ["Nameplate", "Monitoring", "volt-var", "frequency-watt", "nothing", 3],
    "number": [0, 1, 2, 10, 65535, -1, 2**40],
    "type": ["ai", "bo", 1, 2, 12, -5, "volt-var"],
    "x_units": [29, 33, 38, -1, "V"],
    "y_units": [29, 33, 38, -1, "W"],
    "variation": [None, 1, 2, 3, 4, 0, 255, "float"],
    "verify": [True, False, "yes"],
    "clear": [True, False],
    "no_ack": [True, False],
    "address": ["no_confirm", "shall_confirm", "optional_confirm", 65535, "broadcast"],
    "index": [0, 1, 537, 65535, 65536, -1],
    "checks": [["MON-001"], ["deviation"], []],
    "allow_deviations": [False, True],
    "settle": [0, 1, -1],
    "curves": [0, 1, 4],
    "document": ["<x/>", "not xml at all", '<?xml version="1.0"?><DNP3-DeviceProfile/>',
                 '<!DOCTYPE d [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><d>&b;</d>',
                 '<d xmlns="http://www.dnp3.org/DNP3/DeviceProfile/Jan2010">' + "<x/>" * 500
                 + "</d>"],
}  # fmt: skip


def _points_for_read(rng: random.Random) -> Any:
    ranges = ["0-10", "0-65535", "537", "10-5", "a-b", "0-0", "65535-65535"]
    kinds = ["ai", "ao", "bi", "bo", "counter", "frozen", "nope"]
    return {
        rng.choice(kinds): [
            rng.choice([*ranges, 0, 537, 65536, -1]) for _ in range(rng.randint(0, 6))
        ]
        for _ in range(rng.randint(0, 3))
    }


def _points_for_write(rng: random.Random) -> Any:
    values = [True, False, "LATCH_ON", "PULSE_ON", "CLOSE", "nonsense", 0, 1, 5.5, 1e300, -3]
    return {
        rng.choice(["bo", "ao", "ai", "x"]): {
            str(rng.choice([0, 1, 2, 7, 65535, 65536, -1])): rng.choice(values)
            for _ in range(rng.randint(0, 4))
        }
        for _ in range(rng.randint(0, 2))
    }


def _der_points(rng: random.Random) -> Any:
    names = ["AO0", "AO1", "BO0", "AI537", "Reactive power setpoint", "nope", ""]
    return {rng.choice(names): rng.choice([0, 1, 10.5, -1e9, True, "ON", None]) for _ in range(3)}


def _wait_condition(rng: random.Random) -> Any:
    return rng.choice(
        [
            {"type": "ai", "index": 537},
            {"type": "ai", "index": 537, "at_least": 1e12},
            {"type": "bi", "index": rng.randint(0, 70), "equals": True},
            {"name": "NEED_TIME", "set": rng.choice([True, False])},
            {},
            {"type": "nope", "index": "x"},
        ]
    )


_SPECIAL = {
    "points": None,  # by operation, below
    "value": _wait_condition,
    "event": _wait_condition,
    "indication": _wait_condition,
}


def random_json(rng: random.Random, depth: int = 3) -> Any:
    """Any JSON value, of the kinds parsers stumble on."""
    pick = rng.randrange(12 if depth > 0 else 9)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 1, 2**31, 2**63 - 1, -(2**63), 2**64, 2**70, -(2**100)])
    if pick == 3:
        return rng.choice([0.5, -0.0, 1e308, 5e-324, 1.7976931348623157e308, 3.14])
    if pick == 4:
        return "".join(chr(rng.choice([0, 9, 34, 92, 127, 0xE9, 0x2028, 0xFFFF, 0x1F600]))
                       for _ in range(rng.randint(0, 8)))  # fmt: skip
    if pick == 5:
        return rng.choice(["", "0-65535", "der", "AI537", "null", "x" * 300])
    if pick in (6, 7, 8):
        return rng.choice(["direct", "READ", "integrity", 537, "\ud800", "a\udfff"])
    if pick in (9, 10):
        return [random_json(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    return {random_key(rng): random_json(rng, depth - 1) for _ in range(rng.randint(0, 4))}


def random_key(rng: random.Random) -> str:
    return rng.choice(["", "id", "op", "params", "outstation", "__proto__", "x" * 100, "é", "0"])


@functools.cache
def operations() -> dict[str, list[str]]:
    """Each operation of the service's table, and its parameters' names."""
    return {
        op.name: list(op.params.model_json_schema().get("properties", {})) for op in default_table()
    }


@dataclass(frozen=True)
class Message:
    """A message's octets, what it is, and the id its answer must carry (or :data:`ANY`)."""

    data: bytes
    label: str
    ident: Any = ANY


class Messages:
    """Hostile messages from ``rng``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.operations = operations()
        self.names = sorted(self.operations)

    # -- parameters -------------------------------------------------------------------------

    def params(self, name: str) -> dict[str, Any]:
        """Parameters for operation ``name``: each field plausible, wrong, or left out; now
        and then an unknown one; always an unknown one for :data:`REFUSED_ONLY`."""
        rng = self.rng
        fields = self.operations.get(name) or ["outstation"]
        params: dict[str, Any] = {}
        for field in fields:
            roll = rng.random()
            if roll < 0.15:
                continue  # left out
            params[field] = random_json(rng) if roll < 0.3 else self.plausible(name, field)
        if name in REFUSED_ONLY or rng.random() < 0.05:
            params[UNKNOWN] = random_json(rng, 1)
        if name == "wait_for":
            params["timeout"] = rng.choice([0, 0.01, 0.2, -1, 1e9, "x"])  # never a long wait
        return params

    def plausible(self, name: str, field: str) -> Any:
        rng = self.rng
        if field == "points":
            if name == "read":
                return _points_for_read(rng)
            if name in ("der.write_curve", "der.write_schedule"):
                return [
                    [rng.choice([0, 50, 100, -1]), rng.choice([0, 50, 1e9])]
                    for _ in range(rng.randint(0, 5))
                ]
            return _der_points(rng) if name.startswith("der.") else _points_for_write(rng)
        if field in _SPECIAL:
            return _SPECIAL[field](rng)  # type: ignore[misc]
        if field in _KNOWN:
            return rng.choice(_KNOWN[field])
        return random_json(rng, 1)

    def operation(self) -> str:
        """An operation name: mostly the table's, sometimes one that does not exist."""
        rng = self.rng
        if rng.random() < 0.08:
            return rng.choice(["", "STATUS", "status ", "der.", "der.nope", "../status", "x" * 300,
                               "subscribe" if rng.random() < 0.5 else "openapi"])  # fmt: skip
        return rng.choice(self.names)

    # -- whole messages ---------------------------------------------------------------------

    def ident(self) -> tuple[Any, Any]:
        """An id for a message, and the id its answer must carry."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            # Numbers past 64 bits come back as the nearest double (as JSON readers take them).
            value = rng.choice([rng.randint(-(2**63), 2**63 - 1), rng.randint(0, 1000), 0.25, None,
                                f"c{rng.randint(0, 10**6)}", "é" * 256, "", 2**64, -(2**64) - 1,
                                2**200, 1e300])  # fmt: skip
            return value, value
        if roll < 0.6:
            return None, None  # null, or left out: null back
        unusable = rng.choice([
            [1], {"a": 1}, True, False, "x" * 257, nested(rng.choice([2, 300, 900])),
        ])  # fmt: skip
        return unusable, None

    def message_object(self) -> tuple[dict[str, Any], Any]:
        """A message of the form ``{id, op, outstation, params}`` and the id to expect."""
        rng = self.rng
        name = self.operation()
        params = self.params(name)
        message: dict[str, Any] = {"op": name}
        outstation = params.pop("outstation", None)
        if outstation is not None and rng.random() < 0.5:
            message["outstation"] = outstation
        elif outstation is not None:
            params["outstation"] = outstation
        if rng.random() < 0.9:
            message["params"] = params if rng.random() < 0.95 else random_json(rng, 1)
        ident, expected = self.ident()
        if ident is not None or rng.random() < 0.5:
            message["id"] = ident
        if rng.random() < 0.05:
            message[rng.choice(["", "ID", "x" * 100, "é", "__proto__"])] = 1  # an unknown field
        if name in REFUSED_ONLY and isinstance(message.get("params"), dict):
            message["params"][UNKNOWN] = 1
        elif name in REFUSED_ONLY:
            message["params"] = {UNKNOWN: 1}
        return message, expected

    def message(self) -> Message:
        """One message for ``POST /api`` or a line: mostly whole messages, the rest broken."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            message, expected = self.message_object()
            data = dumps(message)
            return Message(data, "message", expected if strict_json(data) else None)
        if roll < 0.7:
            message, _ = self.message_object()
            while message["op"] in REFUSED_ONLY:  # a mangled field name could drop params
                message, _ = self.message_object()
            return Message(self.mangle(dumps(message)), "mangled")
        if roll < 0.78:
            return Message(dumps(random_json(rng, 2)), "json")
        if roll < 0.86:
            return Message(self.junk(), "junk")
        if roll < 0.985:
            depth = rng.choice([300, 1025, 100_000])
            return Message(
                b'{"op": "status", "params": {"x": ' + nested_text(depth) + b"}}", "deep"
            )
        if roll < 0.995:
            return Message(self.padded(LIMIT - rng.randint(2048, 65536)), "near-limit")
        return Message(
            dumps({"op": "status", "id": "y" * rng.choice([10_000, 1 << 20])}), "long-id", None
        )

    def body(self, name: str) -> Message:
        """A body for ``POST /api/<name>``: its parameters, or something broken."""
        rng = self.rng
        roll = rng.random()
        if name in REFUSED_ONLY and 0.6 <= roll < 0.95:
            roll = 0.8  # whole parameters with the unknown one, or junk: never {} by chance
        if roll < 0.6:
            params = self.params(name)
            if name in REFUSED_ONLY:
                params[UNKNOWN] = 1
            return Message(dumps(params), "params", None)
        if roll < 0.75:
            params = self.params(name)
            params[UNKNOWN] = 1  # mangling may leave it whole: then it is refused anyway
            return Message(self.mangle(dumps(params)), "mangled")
        if roll < 0.85:
            return Message(self.junk(), "junk")
        if roll < 0.95:
            return Message(dumps(random_json(rng, 2)), "json")
        return Message(nested_text(rng.choice([300, 1025, 100_000])), "deep")

    # -- broken octets ----------------------------------------------------------------------

    def mangle(self, data: bytes) -> bytes:
        rng = self.rng
        how = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if how == 0:
            return data[:at]  # truncated
        if how == 1:
            return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        if how == 2:
            return (
                data[:at]
                + rng.choice([b",", b"}", b"]", b'"', b"\\", b"\x00", b"\xff\xfe", b"NaN", b"\r"])
                + data[at:]
            )
        if how == 3:
            return data + rng.choice([b",", b" garbage", b"{}", b"\x00"])
        if how == 4:
            return data.replace(b":", b"=", 1)
        return data[:at] + data[:at]

    def junk(self) -> bytes:
        rng = self.rng
        size = rng.choice([0, 1, 2, 10, 200, 5000])
        return bytes(rng.randrange(256) for _ in range(size)).replace(b"\n", b"\r")

    def padded(self, size: int) -> bytes:
        """A message of ``size`` octets: status with one long unknown parameter."""
        head = b'{"op": "status", "params": {"%s": "' % UNKNOWN.encode()
        return head + b"a" * (size - len(head) - 3) + b'"}}'


def dumps(value: Any) -> bytes:
    """JSON text by the standard library (NaN and huge numbers included, as a careless
    client writes them); nothing here shares gridwire's encoder."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def strict_json(data: bytes) -> bool:
    """Whether ``data`` is JSON as RFC 8259 has it: UTF-8, no NaN (else its id is unread)."""

    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        json.loads(data.decode("utf-8"), parse_constant=refuse)
    except ValueError:
        return False
    return True


def same_id(answered: Any, sent: Any) -> bool:
    """Whether an answer's id is the id sent: numbers as JSON numbers (doubles past 64 bits)."""
    numbers = (int, float)
    if isinstance(answered, bool) or isinstance(sent, bool):
        return answered is sent
    if isinstance(answered, numbers) and isinstance(sent, numbers):
        return answered == sent or float(answered) == float(sent)
    return bool(answered == sent)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def nested_text(depth: int) -> bytes:
    return b"[" * depth + b"1" + b"]" * depth
