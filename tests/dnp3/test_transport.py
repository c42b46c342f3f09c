"""Transport segments (IEEE 1815-2012 clause 8): headers, segmentation and each reception
rule, against octets derived by hand."""

from __future__ import annotations

import pytest

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.transport import Discarded, Reassembler, header, segment
from gridwire.errors import ConfigError

READ_CLASS_0 = bytes.fromhex("C0 01 3C 01 06")  # application: FIR|FIN seq 0, READ, g60v1 all


def test_header_octets() -> None:
    # FIN 0x80 | FIR 0x40 | sequence in the low six bits.
    assert header(fir=True, fin=True, seq=0) == 0xC0
    assert header(fir=True, fin=False, seq=62) == 0x7E
    assert header(fir=False, fin=False, seq=63) == 0x3F
    assert header(fir=False, fin=True, seq=0) == 0x80
    assert header(fir=False, fin=False, seq=5) == 0x05
    with pytest.raises(EncodeError):
        header(fir=True, fin=True, seq=64)


def test_single_segment_read() -> None:
    # The transport header C0 (FIR, FIN, sequence 0) before the application fragment.
    assert segment(READ_CLASS_0, 0) == ([bytes.fromhex("C0 C0 01 3C 01 06")], 1)
    # Sequence 63 wraps to 0 for the next fragment: header C0 | 3F = FF.
    assert segment(READ_CLASS_0, 63) == ([bytes.fromhex("FF C0 01 3C 01 06")], 0)


def test_empty_fragment_is_one_segment() -> None:
    assert segment(b"", 7) == ([b"\xc7"], 8)


def test_600_octets_in_249_249_102() -> None:
    fragment = bytes(i % 251 for i in range(600))
    tpdus, following = segment(fragment, 62)
    # 600 = 249 + 249 + 102. Headers: FIR|62 = 0x7E; 63 = 0x3F; FIN|0 = 0x80 (wrapped).
    assert [t[0] for t in tpdus] == [0x7E, 0x3F, 0x80]
    assert [len(t) for t in tpdus] == [250, 250, 103]
    assert tpdus[0][1:] == fragment[:249]
    assert tpdus[1][1:] == fragment[249:498]
    assert tpdus[2][1:] == fragment[498:]
    assert following == 1


@pytest.mark.parametrize(
    ("size", "headers"),
    [
        (1, [0xC0]),
        (249, [0xC0]),  # exactly one full segment
        (250, [0x40, 0x81]),  # 249 + 1
        (498, [0x40, 0x81]),  # 249 + 249
        (499, [0x40, 0x01, 0x82]),  # 249 + 249 + 1
    ],
)
def test_segment_boundaries(size: int, headers: list[int]) -> None:
    tpdus, following = segment(bytes(size), 0)
    assert [t[0] for t in tpdus] == headers
    assert sum(len(t) - 1 for t in tpdus) == size
    assert following == len(headers) % 64


def test_segment_sequence_out_of_range() -> None:
    with pytest.raises(EncodeError):
        segment(b"x", -1)
    with pytest.raises(EncodeError):
        segment(b"x", 64)


# --- reception rules -------------------------------------------------------------------


def test_fir_fin_is_a_fragment() -> None:
    r = Reassembler()
    assert r.feed(bytes.fromhex("C0 C0 01 3C 01 06")) == READ_CLASS_0
    assert r.last_discard is None
    assert r.feed(b"\xc5") == b""  # a segment with no payload: an empty fragment


def test_three_segments() -> None:
    r = Reassembler()
    # FIR seq 10 (4A), seq 11 (0B), FIN seq 12 (8C).
    assert r.feed(b"\x4a" + b"ab") is None
    assert r.in_progress == 2
    assert r.feed(b"\x0b" + b"cd") is None
    assert r.feed(b"\x8c" + b"ef") == b"abcdef"
    assert r.in_progress == 0


def test_sequence_wraps_from_63_to_0() -> None:
    r = Reassembler()
    assert r.feed(b"\x7f" + b"a") is None  # FIR, 63
    assert r.feed(b"\x80" + b"b") == b"ab"  # FIN, 0


def test_first_segment_may_carry_any_sequence() -> None:
    # Clause 8.2.1.3: the first segment's number is free; nothing is expected of it.
    r = Reassembler()
    assert r.feed(b"\xc0x") == b"x"
    assert r.feed(b"\xe1y") == b"y"  # FIR|FIN seq 33, not 1


def test_fir_discards_the_fragment_in_progress() -> None:
    r = Reassembler()
    assert r.feed(b"\x40" + bytes(10)) is None
    assert r.feed(b"\x01" + bytes(5)) is None
    result = r.feed(b"\x45" + b"new")  # FIR again (seq 5): the 15 octets go
    assert result == Discarded("FIR while a fragment was in progress", 15)
    assert r.feed(b"\x86" + b"!") == b"new!"


def test_fir_fin_returns_its_fragment_and_notes_the_discard() -> None:
    r = Reassembler()
    assert r.feed(b"\x40" + bytes(7)) is None
    assert r.feed(b"\xc9" + b"whole") == b"whole"
    assert r.last_discard == Discarded("FIR while a fragment was in progress", 7)


def test_non_fir_without_fragment_is_discarded() -> None:
    r = Reassembler()
    assert r.feed(b"\x81" + b"xyz") == Discarded("no fragment in progress", 3)
    assert r.feed(b"\x01" + b"xy") == Discarded("no fragment in progress", 2)
    assert r.feed(b"\xc0ok") == b"ok"


def test_out_of_sequence_discards_segment_and_fragment() -> None:
    r = Reassembler()
    assert r.feed(b"\x40" + b"abcd") is None  # FIR 0
    assert r.feed(b"\x01" + b"ef") is None  # 1
    # 3 where 2 was expected: the 6 octets so far and this segment's 2 are thrown away.
    assert r.feed(b"\x83" + b"gh") == Discarded("out of sequence: expected 2, got 3", 8)
    # The fragment is gone: the segment that should have come next is an orphan now.
    assert r.feed(b"\x82" + b"gh") == Discarded("no fragment in progress", 2)


def test_repeated_segment_is_discarded_alone() -> None:
    # Figure 8-4: a repeat of the previous segment (same header and octets) goes, and the
    # fragment in progress carries on.
    r = Reassembler()
    assert r.feed(b"\x40" + b"ab") is None
    assert r.feed(b"\x01" + b"cd") is None
    assert r.feed(b"\x01" + b"cd") == Discarded("repeated segment", 2)
    assert r.feed(b"\x82" + b"ef") == b"abcdef"
    # Same number but other octets is not a repeat: out of sequence.
    assert r.feed(b"\x40" + b"ab") is None
    assert r.feed(b"\x01" + b"cd") is None
    assert r.feed(b"\x01" + b"XX") == Discarded("out of sequence: expected 2, got 1", 6)


def test_empty_tpdu_is_discarded_and_changes_nothing() -> None:
    r = Reassembler()
    assert r.feed(b"") == Discarded("empty TPDU", 0)
    assert r.feed(b"\x40ab") is None
    assert r.feed(b"") == Discarded("empty TPDU", 0)
    assert r.feed(b"\x81cd") == b"abcd"


def test_max_fragment_exact_fits() -> None:
    r = Reassembler(max_fragment=10)
    assert r.feed(b"\x40" + bytes(6)) is None
    assert r.feed(b"\x81" + bytes(4)) == bytes(10)


def test_oversized_fragment_is_refused_to_its_end() -> None:
    r = Reassembler(max_fragment=10)
    assert r.feed(b"\x40" + bytes(6)) is None
    # 6 + 5 = 11 > 10: refused, with everything so far.
    assert r.feed(b"\x01" + bytes(5)) == Discarded("fragment exceeds 10 octets", 11)
    # The rest of that fragment is refused too, in sequence or not, up to its FIN.
    assert r.feed(b"\x02" + bytes(1)) == Discarded("rest of a refused fragment", 1)
    assert r.feed(b"\x83" + bytes(2)) == Discarded("rest of a refused fragment", 2)
    # After the FIN nothing is being refused: an orphan is an orphan again.
    assert r.feed(b"\x84" + bytes(2)) == Discarded("no fragment in progress", 2)
    assert r.feed(b"\xc0" + b"fine") == b"fine"


def test_oversized_first_segment_and_new_fir_ends_refusal() -> None:
    r = Reassembler(max_fragment=4)
    assert r.feed(b"\x40" + bytes(5)) == Discarded("fragment exceeds 4 octets", 5)
    assert r.feed(b"\x01" + bytes(1)) == Discarded("rest of a refused fragment", 1)
    assert r.feed(b"\x40" + b"ab") is None  # a FIR ends the refusal
    assert r.feed(b"\x81" + b"cd") == b"abcd"
    # FIR|FIN too large: refused; nothing further is refused on its account.
    assert r.feed(b"\xc0" + bytes(5)) == Discarded("fragment exceeds 4 octets", 5)
    assert r.feed(b"\x01" + b"x") == Discarded("no fragment in progress", 1)


def test_oversized_fir_that_cuts_a_fragment_short() -> None:
    r = Reassembler(max_fragment=4)
    assert r.feed(b"\x40" + b"abc") is None
    assert r.feed(b"\x40" + bytes(9)) == Discarded(
        "fragment exceeds 4 octets; FIR while a fragment was in progress (3 octets)", 12
    )


def test_reset_forgets_everything() -> None:
    r = Reassembler(max_fragment=2)
    r.feed(b"\x40" + bytes(5))  # refusing now
    r.reset()
    assert r.feed(b"\x01x") == Discarded("no fragment in progress", 1)
    r.feed(b"\x40a")
    r.reset()
    assert r.in_progress == 0
    assert r.feed(b"\x81b") == Discarded("no fragment in progress", 1)


def test_max_fragment_must_not_be_negative() -> None:
    with pytest.raises(ConfigError):
        Reassembler(max_fragment=-1)


def test_segment_then_reassemble_600() -> None:
    fragment = bytes(i % 253 for i in range(600))
    tpdus, _ = segment(fragment, 30)
    r = Reassembler()
    assert [r.feed(t) for t in tpdus] == [None, None, fragment]
