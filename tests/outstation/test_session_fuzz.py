"""Arbitrary input never breaks the session: whatever octets arrive, it raises nothing, always
finishes, and everything it sends is a well-formed response."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.fragments import parse_response
from tests.outstation.conftest import make_wire

# Requests that look like requests: a control octet with FIR|FIN, a known function code
# mostly, then object headers made of plausible groups, variations and qualifiers.
_GROUPS = st.sampled_from([1, 2, 3, 10, 12, 20, 21, 22, 30, 32, 40, 41, 50, 51, 52, 60, 80, 110])
_QUALIFIERS = st.sampled_from([0x00, 0x01, 0x06, 0x07, 0x08, 0x17, 0x28, 0x5B, 0xFF])
_HEADER = st.tuples(_GROUPS, st.integers(0, 8), _QUALIFIERS, st.binary(max_size=24)).map(
    lambda t: bytes(t[:3]) + t[3]
)
_REQUEST = st.tuples(
    st.integers(0, 15),
    st.integers(0, 0x22) | st.integers(0, 255),
    st.lists(_HEADER, max_size=4),
).map(lambda t: bytes((0xC0 | t[0], t[1])) + b"".join(t[2]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=300), max_size=6))
def test_arbitrary_octets(chunks: list[bytes]) -> None:
    wire = make_wire(unsolicited=True)
    for n, chunk in enumerate(chunks):
        wire.session.receive(chunk, float(n))
        wire.session.poll(float(n) + 0.5)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_REQUEST, min_size=1, max_size=5))
def test_arbitrary_requests(requests: list[bytes]) -> None:
    wire = make_wire(unsolicited=True)
    wire.session.database.update("ai", 0, 5, now=0.5)
    for n, request in enumerate(requests):
        for fragment in wire.send(request, now=float(n)) + wire.poll(float(n) + 0.5):
            assert len(fragment) <= 2048
            response = parse_response(fragment)
            assert response.undecoded == [], (request.hex(" "), fragment.hex(" "))
