"""Segmentation and reassembly under hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.transport import Discarded, Reassembler, segment

FIR, FIN = 0x40, 0x80


def _completes(tpdus: list[bytes], end: int, max_fragment: int) -> bytes | None:
    """The fragment that the rules say ``tpdus[end]`` completes, or None: the last FIR
    segment up to ``end`` begins a run of segments without FIR, each numbered one more than
    the one before (modulo 64), exact repeats of the one before skipped, empty TPDUs ignored,
    no FIN before ``tpdus[end]``, which has FIN and is not itself a repeat; and the whole is
    no longer than ``max_fragment``. Written from the rules, not from the code."""
    if not tpdus[end]:
        return None
    indices = [i for i in range(end + 1) if tpdus[i]]
    firs = [i for i in indices if tpdus[i][0] & FIR]
    if not firs:
        return None
    kept = [firs[-1]]
    for i in indices[indices.index(firs[-1]) + 1 :]:
        previous = tpdus[kept[-1]]
        if tpdus[i] == previous:
            continue
        if previous[0] & FIN or (tpdus[i][0] & 0x3F) != ((previous[0] & 0x3F) + 1) % 64:
            return None
        kept.append(i)
    if kept[-1] != end or not tpdus[end][0] & FIN:
        return None
    fragment = b"".join(tpdus[i][1:] for i in kept)
    return fragment if len(fragment) <= max_fragment else None


# Headers drawn so that FIR, FIN and neighbouring sequence numbers come up often.
_tpdu = st.builds(
    lambda flags, seq, payload: bytes([flags | seq]) + payload,
    st.sampled_from([0x00, FIR, FIN, FIR | FIN]),
    st.integers(0, 4) | st.integers(0, 63),
    st.binary(max_size=12),
) | st.binary(max_size=6)


@st.composite
def _sequences(draw: st.DrawFn) -> list[bytes]:
    """Random TPDUs mixed with plausible runs (FIR, numbers counting up, sometimes a FIN),
    whose segments are sometimes repeated and sometimes followed by an empty TPDU."""
    out: list[bytes] = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            out.append(draw(_tpdu))
            continue
        first = draw(st.integers(0, 63))
        count = draw(st.integers(1, 4))
        for j in range(count):
            fin = j == count - 1 and draw(st.integers(0, 3)) > 0
            flags = (FIR if j == 0 else 0) | (FIN if fin else 0)
            tpdu = bytes([flags | (first + j) % 64]) + draw(st.binary(max_size=8))
            out.append(tpdu)
            if draw(st.integers(0, 4)) == 0:
                out.append(tpdu)
            if draw(st.integers(0, 8)) == 0:
                out.append(b"")
    return out


@settings(max_examples=300)
@given(_sequences(), st.integers(0, 40))
def test_arbitrary_tpdus(tpdus: list[bytes], max_fragment: int) -> None:
    r = Reassembler(max_fragment=max_fragment)
    for index, tpdu in enumerate(tpdus):
        # Reassembly raises nothing at all (stricter than the rule: nothing but DnpError).
        result = r.feed(tpdu)
        assert r.in_progress <= max_fragment
        expected = _completes(tpdus, index, max_fragment)
        if expected is not None:
            assert result == expected
        elif isinstance(result, Discarded):
            assert result.reason and result.octets >= 0
            assert r.last_discard == result
        else:
            assert result is None  # not a fragment the rules do not make


@settings(max_examples=200)
@given(
    st.binary(max_size=2048),
    st.integers(0, 63),
    st.lists(st.binary(max_size=20).filter(lambda t: not t or not t[0] & FIR), max_size=5),
)
def test_segments_reassemble_after_noise(fragment: bytes, seq: int, noise: list[bytes]) -> None:
    # Whatever came before (orphans, half fragments without FIR), a fragment's own segments
    # give it back: its FIR starts afresh.
    tpdus, following = segment(fragment, seq)
    assert len(tpdus) == max(1, -(-len(fragment) // 249))
    assert all(len(t) <= 250 for t in tpdus)
    assert following == (seq + len(tpdus)) % 64
    r = Reassembler(max_fragment=2048)
    for t in noise:
        r.feed(t)
    results = [r.feed(t) for t in tpdus]
    assert results[-1] == fragment
    assert all(result is None for result in results[1:-1])
