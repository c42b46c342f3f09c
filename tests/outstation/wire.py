"""A master on the other end of an outstation session, in memory: it sends application
fragments (given as literal octets) in link frames and hands back the application fragments
the session answers with. The link and transport layers are the protocol core's, which has
its own tests against literal octets; what the tests here check is the application layer."""

from __future__ import annotations

from gridwire.dnp3.app.fragments import Response, parse_response
from gridwire.dnp3.link import LinkFrame, LinkReader, user_data
from gridwire.dnp3.transport import Reassembler
from gridwire.outstation.session import OutstationSession

OUTSTATION, MASTER = 1024, 1


class Wire:
    def __init__(self, session: OutstationSession) -> None:
        self.session = session
        self.reader = LinkReader()
        self.reassembler = Reassembler(65536)
        self.transport_seq = 0
        self.frames: list[LinkFrame] = []

    def connect(self, now: float = 0.0) -> list[bytes]:
        return self.fragments(self.session.connect(now))

    def send(
        self, app: bytes | str, now: float = 1.0, destination: int = OUTSTATION
    ) -> list[bytes]:
        """Send one application fragment (a single segment); the fragments answered."""
        octets = bytes.fromhex(app) if isinstance(app, str) else app
        tpdu = bytes((0xC0 | self.transport_seq,)) + octets
        self.transport_seq = (self.transport_seq + 1) & 0x3F
        frame = user_data(destination, MASTER, tpdu, from_master=True)
        return self.fragments(self.session.receive(frame, now))

    def poll(self, now: float) -> list[bytes]:
        return self.fragments(self.session.poll(now))

    def fragments(self, out: list[bytes]) -> list[bytes]:
        found: list[bytes] = []
        for chunk in out:
            for frame in self.reader.feed(chunk):
                assert isinstance(frame, LinkFrame), frame
                self.frames.append(frame)
                assert not frame.dir and frame.destination == MASTER
                assert frame.source == OUTSTATION
                if not frame.prm:
                    continue
                fragment = self.reassembler.feed(frame.data)
                if isinstance(fragment, bytes):
                    found.append(fragment)
        return found

    def ask(self, app: bytes | str, now: float = 1.0) -> Response:
        """Send a request and return its one response fragment, parsed."""
        answers = self.send(app, now)
        assert len(answers) == 1, [a.hex(" ") for a in answers]
        return parse_response(answers[0])


def hexes(fragments: list[bytes]) -> list[str]:
    return [f.hex(" ").upper() for f in fragments]
