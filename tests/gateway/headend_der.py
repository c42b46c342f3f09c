"""The head-end test double grown to the DER function set: each FSA of our device lists
DERPrograms (``/edev/D/fsa/F/derp``), each program its DERControlList (``/derp/P/derc``),
DefaultDERControl (``/derp/P/dderc``) and DERCurveList (``/derp/P/dc``), shaped as IEEE
2030.5's schema shapes them (element names and order), paged as the double pages every list;
and a Response sink (``POST /rsp``) that records each Response posted, with the LFDI of the
certificate it came with and when it arrived. Controls and curves are given as literal XML
by the tests; what the sink records is read with the standard library's parser, not with
gridwire's. The MirrorUsagePoint POSTed to ``/mup`` is served back at its Location
(``/mup/0``) with the ``postRate`` the test sets (``mup_post_rate``; None: left out, as the
schema allows), its elements in the schema's MirrorUsagePoint order."""

from __future__ import annotations

import re
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from tests.sep2.headend import NS, HeadEndDouble

_DERP_LIST = re.compile(r"/edev/(\d+)/fsa/(\d+)/derp")
_DERP = re.compile(r"/derp/(\d+)(/derc|/dderc|/dc)?")
_DER_LIST = re.compile(r"/edev/(\d+)/der")
_DER_PART = re.compile(r"/edev/\d+/der/0/(dercap|derg|ders|dera)")


@dataclass
class Program:
    """A DERProgram: ``controls`` and ``curves`` are DERControl and DERCurve elements (literal
    XML, hrefs included); ``default`` the inner XML of DefaultDERControl after its mRID."""

    primacy: int
    controls: list[str] = field(default_factory=list)
    default: str | None = None
    curves: list[str] = field(default_factory=list)
    fsa: int = 0
    poll_rate: int = 1


@dataclass
class Posted:
    method: str
    path: str
    lfdi: str | None
    wall: float
    body: bytes
    status: int | None = None  # a Response's status
    subject: str | None = None  # a Response's subject (the event's mRID)


class DerHeadEnd(HeadEndDouble):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.programs: list[Program] = []
        self.posted: list[Posted] = []
        self.posted_event = threading.Event()
        self.mup_post_rate: int | None = None

    # -- what the tests read ----------------------------------------------------------------

    def responses(self) -> list[tuple[str | None, int | None]]:
        with self.lock:
            return [(p.subject, p.status) for p in self.posted if p.path == "/rsp"]

    # -- the sink ---------------------------------------------------------------------------

    def puts(self, suffix: str) -> list[bytes]:
        """The bodies PUT to this device's DER resource ending ``suffix`` (dercap...)."""
        with self.lock:
            return [p.body for p in self.posted if p.method == "PUT" and p.path.endswith(suffix)]

    def posts(self, path: str) -> list[bytes]:
        with self.lock:
            return [p.body for p in self.posted if p.method == "POST" and p.path == path]

    def accept(
        self, method: str, path: str, body: bytes, lfdi: str | None
    ) -> int | tuple[int, str]:
        posted = Posted(method, path, lfdi, time.time(), body)
        if path == "/rsp" and method == "POST":
            root = ET.fromstring(body)
            posted.status = int(root.findtext(f"{{{NS}}}status") or -1)
            posted.subject = root.findtext(f"{{{NS}}}subject")
        with self.lock:
            self.posted.append(posted)
        self.posted_event.set()
        if method == "POST" and path == "/mup":
            return 201, "/mup/0"
        if method == "PUT" and not _DER_PART.fullmatch(path):
            return 404
        return 201 if method == "POST" else 204

    # -- resources --------------------------------------------------------------------------

    def _respond(self, path: str, query: dict[str, str], lfdi: str | None) -> tuple[int, str]:
        with self.lock:
            if path in self.faults:
                return self.faults[path], ""
            found = _DERP_LIST.fullmatch(path)
            if found and self.device_index(lfdi) == int(found[1]):
                return 200, self._program_list(path, int(found[2]), query)
            found = _DER_LIST.fullmatch(path)
            if found and self.device_index(lfdi) == int(found[1]):
                return 200, self._der_list(path)
            if path == "/mup/0" and self.posts("/mup"):
                return 200, self._mirror_usage_point(self.posts("/mup")[0])
            found = _DERP.fullmatch(path)
            if found and int(found[1]) < len(self.programs):
                return self._program_part(int(found[1]), found[2], query)
            return super()._respond(path, query, lfdi)

    def _mirror_usage_point(self, posted: bytes) -> str:
        """The MirrorUsagePoint as the server keeps it: what was POSTed (its readings left
        out) and the server's postRate, last in the schema's sequence."""
        root = ET.fromstring(posted)
        fields = "".join(
            f"<{name}>{root.findtext(f'{{{NS}}}{name}')}</{name}>"
            for name in ("mRID", "roleFlags", "serviceCategoryKind", "status", "deviceLFDI")
            if root.findtext(f"{{{NS}}}{name}") is not None
        )
        rate = "" if self.mup_post_rate is None else f"<postRate>{self.mup_post_rate}</postRate>"
        return f'<MirrorUsagePoint xmlns="{NS}" href="/mup/0">{fields}{rate}</MirrorUsagePoint>'

    def _der_list(self, path: str) -> str:
        """This device's one DER, linking its four resources (PUT sinks)."""
        links = "".join(
            f'<{name}Link href="{path}/0/{part}"/>'
            for name, part in (
                ("DERAvailability", "dera"),
                ("DERCapability", "dercap"),
                ("DERSettings", "derg"),
                ("DERStatus", "ders"),
            )
        )
        return (
            f'<DERList xmlns="{NS}" href="{path}" all="1" results="1" pollRate="900">'
            f'<DER href="{path}/0">{links}</DER></DERList>'
        )

    def _list(self, tag: str, path: str, items: list[str], query: dict[str, str], rate: int) -> str:
        page = self._page(query, len(items))
        return (
            f'<{tag} xmlns="{NS}" href="{path}" all="{len(items)}" results="{len(page)}" '
            f'pollRate="{rate}">{"".join(items[i] for i in page)}</{tag}>'
        )

    def _program_list(self, path: str, fsa: int, query: dict[str, str]) -> str:
        mine = [(n, p) for n, p in enumerate(self.programs) if p.fsa == fsa]
        rate = min((p.poll_rate for _, p in mine), default=900)
        return self._list(
            "DERProgramList", path, [self._program(n, p) for n, p in mine], query, rate
        )

    def _program(self, n: int, p: Program) -> str:
        base = f"/derp/{n}"
        default = f'<DefaultDERControlLink href="{base}/dderc"/>' if p.default is not None else ""
        return (
            f'<DERProgram href="{base}"><mRID>{0xA0 + n:02X}000000000000000000000000000000</mRID>'
            f"<description>program {n}</description>"
            f'<ActiveDERControlListLink href="{base}/actderc" all="0"/>{default}'
            f'<DERControlListLink href="{base}/derc" all="{len(p.controls)}"/>'
            f'<DERCurveListLink href="{base}/dc" all="{len(p.curves)}"/>'
            f"<primacy>{p.primacy}</primacy></DERProgram>"
        )

    def _program_part(self, n: int, part: str | None, query: dict[str, str]) -> tuple[int, str]:
        p = self.programs[n]
        base = f"/derp/{n}"
        if part is None:
            return 200, self._program(n, p).replace("<DERProgram ", f'<DERProgram xmlns="{NS}" ', 1)
        if part == "/derc":
            return 200, self._list("DERControlList", base + part, p.controls, query, p.poll_rate)
        if part == "/dc":
            return 200, self._list("DERCurveList", base + part, p.curves, query, p.poll_rate)
        if p.default is None:
            return 404, ""
        return 200, (
            f'<DefaultDERControl xmlns="{NS}" href="{base}/dderc">'
            f"<mRID>{0xD0 + n:02X}000000000000000000000000000000</mRID>{p.default}"
            "</DefaultDERControl>"
        )
