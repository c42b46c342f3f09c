"""The application control octet (IEEE 1815-2012 4.2.2.4): FIR 0x80, FIN 0x40, CON 0x20,
UNS 0x10, and the sequence number in bits 0-3."""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.dnp3.errors import EncodeError

FIR, FIN, CON, UNS, SEQ = 0x80, 0x40, 0x20, 0x10, 0x0F


@dataclass(frozen=True, slots=True)
class AppControl:
    fir: bool = True
    fin: bool = True
    con: bool = False
    uns: bool = False
    seq: int = 0

    @classmethod
    def from_octet(cls, octet: int) -> AppControl:
        return cls(
            bool(octet & FIR), bool(octet & FIN), bool(octet & CON), bool(octet & UNS), octet & SEQ
        )

    def to_octet(self) -> int:
        if not 0 <= self.seq <= SEQ:
            raise EncodeError(f"application sequence {self.seq} is outside 0-15")
        return (
            (FIR if self.fir else 0)
            | (FIN if self.fin else 0)
            | (CON if self.con else 0)
            | (UNS if self.uns else 0)
            | self.seq
        )

    @classmethod
    def request(cls, seq: int) -> AppControl:
        """A master's request: a single fragment (FIR|FIN), no confirmation asked."""
        return cls(True, True, False, False, seq)
