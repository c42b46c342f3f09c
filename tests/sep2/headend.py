"""A head-end test double: a real HTTPS server on 127.0.0.1, requiring a client certificate,
serving DeviceCapability, Time, EndDeviceList, FunctionSetAssignmentsList and FSA Time
resources shaped as IEEE 2030.5 shapes them (element names and order from the standard's
schema), run in a thread.

It behaves as PEERS.md says a real head-end does: currentTime is truncated to whole seconds,
an FSA's TimeLink may point at the same ``/tm`` as DeviceCapability, a Time resource may carry
no pollRate while DeviceCapability says 300, an FSA may carry a TimeLink and no
DERProgramListLink, and an unknown device draws a 500. Each Time resource's clock can be set
ahead or behind and any of its fields replaced or left out, any path can be made to answer a
given status, to answer one octet at a time, or not at all, lists are served a few entries per
page whatever the client asks, and the whole server can go away and come back on the same
port. It can serve everything under a path prefix (a head-end behind a proxy at
``https://host:port/envoy``), writing its links as absolute paths (``/envoy/edev``, as real
ones do) or as references relative to the document they are in (``../../tm``, computed here
with ``posixpath.relpath``, not with gridwire's code). Every request is logged with the LFDI
of the certificate it came with and the TLS suite it used.

The LFDI is computed here directly from the standard's definition (the first 20 octets of the
SHA-256 of the DER certificate), not with gridwire's code.
"""

from __future__ import annotations

import contextlib
import hashlib
import posixpath
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.sep2.pki import Pki

NS = "urn:ieee:std:2030.5:ns"
BASELINE = "ECDHE-ECDSA-AES128-CCM8"


def lfdi_of(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()[:40].upper()


def sfdi_of(lfdi: str) -> int:
    head = int(lfdi[:9], 16)
    return head * 10 + (10 - sum(map(int, str(head))) % 10) % 10


@dataclass
class Fsa:
    """An FSA of a device. ``time`` is ``"own"`` (its own Time resource at ``<fsa>/tm``),
    ``"global"`` (a TimeLink to DeviceCapability's ``/tm``), None (no TimeLink), or a path."""

    time: str | None = "own"
    der_programs: bool = True
    description: str = ""


@dataclass
class Device:
    """A device the head-end knows; ``post_rate`` its EndDevice's postRate (None: left out)."""

    lfdi: str
    fsas: list[Fsa] = field(default_factory=list)
    post_rate: int | None = None


@dataclass
class Logged:
    path: str
    query: dict[str, str]
    lfdi: str | None
    cipher: str | None
    version: str | None
    accept: str | None


@dataclass
class TimeZone:
    """The time zone fields every Time resource carries (US Eastern, 2024, by default)."""

    tz_offset: int = -18000
    dst_offset: int = 3600
    dst_start: int = 1710054000  # 2024-03-10 07:00:00 UTC, 02:00 EST
    dst_end: int = 1730613600  # 2024-11-03 06:00:00 UTC, 02:00 EDT
    quality: int = 3


class HeadEndDouble:
    """See the module's description. Set attributes between polls to change its behaviour."""

    def __init__(
        self,
        pki: Pki,
        *,
        max_tls: ssl.TLSVersion = ssl.TLSVersion.TLSv1_2,
        ciphers: str = BASELINE,
        server_certificate: tuple[Path, Path] | None = None,
    ) -> None:
        self.pki = pki
        self.port = 0
        self.lock = threading.RLock()
        self.dcap_path = "/dcap"
        self.dcap_poll_rate: int | None = 300
        self.dcap_time: str | None = "/tm"  # DeviceCapability's TimeLink, or None
        self.edev_path = "/edev"
        self.page_limit = 2
        self.devices: list[Device] = []
        self.time_poll_rate: dict[str, int | None] = {}  # Time path -> pollRate (absent: none)
        self.clock_offset: dict[str, float] = {}  # Time path -> seconds ahead of real time
        self.quality: dict[str, int] = {}  # Time path -> its quality (absent: the zone's)
        self.zone = TimeZone()
        self.faults: dict[str, int] = {}  # path -> HTTP status to answer instead
        # Time path -> element -> its text instead (None: left out)
        self.time_fields: dict[str, dict[str, str | None]] = {}
        self.drip: dict[str, float] = {}  # path -> seconds between the answer's octets
        self.drip_headers = True  # False: status line and headers at once, the body dripped
        self.silent: set[str] = set()  # paths answered with nothing at all
        self.prefix = ""  # every resource under this path ("/envoy"), none by default
        self.relative_links = False  # links relative to their document, not absolute paths
        self.log: list[Logged] = []
        self.stopping = threading.Event()
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.maximum_version = max_tls
        self._context.set_ciphers(ciphers)
        cert, key = server_certificate or (pki.server_certificate, pki.server_key)
        self._context.load_cert_chain(str(cert), str(key))
        self._context.load_verify_locations(str(pki.ca))
        self._context.verify_mode = ssl.CERT_REQUIRED
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}{self.prefix}"

    def start(self) -> HeadEndDouble:
        self.stopping.clear()
        server = _Server(("127.0.0.1", self.port), _Handler)
        server.double = self
        server.context = self._context
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="headend", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Go away: stop listening and drop every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        self.stopping.set()  # answers being dripped or withheld end
        server.shutdown()
        server.server_close()
        server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> HeadEndDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inspection -------------------------------------------------------------------------

    def requests_to(self, path: str) -> int:
        with self.lock:
            return sum(1 for entry in self.log if entry.path == path)

    def clear_log(self) -> None:
        with self.lock:
            self.log.clear()

    # -- resources --------------------------------------------------------------------------

    def device_index(self, lfdi: str | None) -> int | None:
        return next((i for i, d in enumerate(self.devices) if d.lfdi == lfdi), None)

    def fsa_time_href(self, device: int, fsa: int) -> str | None:
        spec = self.devices[device].fsas[fsa]
        if spec.time == "own":
            return f"{self.edev_path}/{device}/fsa/{fsa}/tm"
        if spec.time == "global":
            return "/tm"
        return spec.time

    def time_paths(self) -> set[str]:
        paths = {self.dcap_time} if self.dcap_time else set()
        for d, device in enumerate(self.devices):
            for f in range(len(device.fsas)):
                href = self.fsa_time_href(d, f)
                if href:
                    paths.add(href)
        return paths

    def local(self, path: str) -> str | None:
        """The path below the prefix (what faults, clocks and the rest are keyed by)."""
        if not self.prefix:
            return path
        return path[len(self.prefix) :] if path.startswith(self.prefix + "/") else None

    def link(self, document: str, target: str) -> str:
        """How ``document`` (a path below the prefix) writes its link to ``target``."""
        absolute = self.prefix + target
        if not self.relative_links:
            return absolute
        return posixpath.relpath(absolute, posixpath.dirname(self.prefix + document))

    def respond(self, path: str, query: dict[str, str], lfdi: str | None) -> tuple[int, str]:
        with self.lock:
            local = self.local(path)
            if local is None:
                return 404, ""
            return self._respond(local, query, lfdi)

    def _respond(self, path: str, query: dict[str, str], lfdi: str | None) -> tuple[int, str]:
        with self.lock:
            if path in self.faults:
                return self.faults[path], ""
            if path == self.dcap_path:
                return 200, self._dcap()
            if path in self.time_paths():
                return 200, self._time(path)
            if path.startswith(self.edev_path):
                if self.device_index(lfdi) is None:
                    return 500, ""  # a real head-end's answer to an unknown device
                return self._edev(path[len(self.edev_path) :], query)
            return 404, ""

    def accept(
        self, method: str, path: str, body: bytes, lfdi: str | None
    ) -> int | tuple[int, str]:
        """A POST or PUT: the status to answer, with a Location (none is taken here)."""
        return 405

    def _dcap(self) -> str:
        here = self.dcap_path
        rate = "" if self.dcap_poll_rate is None else f' pollRate="{self.dcap_poll_rate}"'
        time_link = (
            f'<TimeLink href="{self.link(here, self.dcap_time)}"/>' if self.dcap_time else ""
        )
        return (
            f'<DeviceCapability xmlns="{NS}" href="{self.link(here, here)}"{rate}>'
            f"{time_link}"
            f'<EndDeviceListLink href="{self.link(here, self.edev_path)}" '
            f'all="{len(self.devices)}"/>'
            f'<MirrorUsagePointListLink href="{self.link(here, "/mup")}" all="0"/>'
            f'<SelfDeviceLink href="{self.link(here, "/sdev")}"/>'
            "</DeviceCapability>"
        )

    def _time(self, path: str) -> str:
        z = self.zone
        now = int(time.time() + self.clock_offset.get(path, 0.0))  # truncated, as real ones do
        dst = z.dst_offset if z.dst_start <= now < z.dst_end else 0
        rate = self.time_poll_rate.get(path)
        rate_attribute = "" if rate is None else f' pollRate="{rate}"'
        fields: dict[str, object] = {
            "currentTime": now,
            "dstEndTime": z.dst_end,
            "dstOffset": z.dst_offset,
            "dstStartTime": z.dst_start,
            "localTime": now + z.tz_offset + dst,
            "quality": self.quality.get(path, z.quality),
            "tzOffset": z.tz_offset,
        }
        fields.update(self.time_fields.get(path, {}))
        elements = "".join(f"<{k}>{v}</{k}>" for k, v in fields.items() if v is not None)
        return (
            f'<Time xmlns="{NS}" href="{self.link(path, path)}"{rate_attribute}>{elements}</Time>'
        )

    def _page(self, query: dict[str, str], count: int) -> range:
        start = int(query.get("s", "0"))
        limit = min(int(query.get("l", "1")), self.page_limit)
        return range(min(start, count), min(start + limit, count))

    def _edev(self, rest: str, query: dict[str, str]) -> tuple[int, str]:
        base = self.edev_path
        parts = [p for p in rest.split("/") if p]
        if not parts:
            entries = "".join(
                self._end_device(i, base) for i in self._page(query, len(self.devices))
            )
            shown = len(self._page(query, len(self.devices)))
            return 200, (
                f'<EndDeviceList xmlns="{NS}" href="{self.link(base, base)}" '
                f'all="{len(self.devices)}" results="{shown}" subscribable="0" pollRate="900">'
                f"{entries}</EndDeviceList>"
            )
        if not parts[0].isdigit() or int(parts[0]) >= len(self.devices):
            return 404, ""
        d = int(parts[0])
        if len(parts) == 1:
            return 200, self._end_device(d, f"{base}/{d}", namespace=True)
        if parts[1:] == ["fsa"]:
            fsas = self.devices[d].fsas
            page = self._page(query, len(fsas))
            here = f"{base}/{d}/fsa"
            entries = "".join(self._fsa(d, f, here) for f in page)
            return 200, (
                f'<FunctionSetAssignmentsList xmlns="{NS}" href="{self.link(here, here)}" '
                f'all="{len(fsas)}" results="{len(page)}" pollRate="900">'
                f"{entries}</FunctionSetAssignmentsList>"
            )
        return 404, ""

    def _end_device(self, d: int, document: str, namespace: bool = False) -> str:
        device = self.devices[d]
        base = f"{self.edev_path}/{d}"
        ns = f' xmlns="{NS}"' if namespace else ""
        fsa_list = self.link(document, f"{base}/fsa")
        # postRate follows FunctionSetAssignmentsListLink in the schema's EndDevice sequence.
        post_rate = "" if device.post_rate is None else f"<postRate>{device.post_rate}</postRate>"
        return (
            f'<EndDevice{ns} href="{self.link(document, base)}" subscribable="0">'
            f'<DERListLink href="{self.link(document, f"{base}/der")}" all="1"/>'
            f"<lFDI>{device.lfdi}</lFDI>"
            f"<sFDI>{sfdi_of(device.lfdi)}</sFDI>"
            "<changedTime>1700000000</changedTime>"
            "<enabled>true</enabled>"
            f'<FunctionSetAssignmentsListLink href="{fsa_list}" all="{len(device.fsas)}"/>'
            f"{post_rate}</EndDevice>"
        )

    def _fsa(self, d: int, f: int, document: str) -> str:
        spec = self.devices[d].fsas[f]
        path = f"{self.edev_path}/{d}/fsa/{f}"
        href = self.link(document, path)
        derp = (
            f'<DERProgramListLink href="{self.link(document, f"{path}/derp")}" all="1"/>'
            if spec.der_programs
            else ""
        )
        time_href = self.fsa_time_href(d, f)
        time_link = f'<TimeLink href="{self.link(document, time_href)}"/>' if time_href else ""
        return (
            f'<FunctionSetAssignments href="{href}">{derp}{time_link}'
            f"<mRID>{d:02X}{f:02X}0000000000000000000000000000</mRID>"
            f"<description>{spec.description or f'FSA {f}'}</description>"
            "<version>0</version></FunctionSetAssignments>"
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    double: HeadEndDouble
    context: ssl.SSLContext

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def finish_request(self, request: Any, client_address: Any) -> None:
        # The TLS handshake runs here, in the connection's own thread.
        tls = self.context.wrap_socket(request, server_side=True, do_handshake_on_connect=False)
        try:
            tls.do_handshake()
        except (ssl.SSLError, OSError):
            self.linger(tls)
            return
        with self.connections_lock:
            self.connections.add(tls)
        try:
            _Handler(tls, client_address, self)
        except (ssl.SSLError, OSError):
            pass
        finally:
            with self.connections_lock:
                self.connections.discard(tls)

    @staticmethod
    def linger(tls: ssl.SSLSocket) -> None:
        """After a failed handshake (its alert sent), read what the client still sends for a
        moment before closing, as a server that closes gracefully does: closing with unread
        octets would reset the connection, and the client might read the reset before the
        alert (with TLS 1.3 the client sends its request before the server judges its
        certificate)."""
        with contextlib.suppress(OSError), socket.socket(fileno=tls.detach()) as raw:
            raw.settimeout(1.0)
            while raw.recv(4096):
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a dropped or refused connection is part of the tests

    def drop_connections(self) -> None:
        with self.connections_lock:
            for sock in list(self.connections):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.connections.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: _Server

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        conn = self.connection
        assert isinstance(conn, ssl.SSLSocket)
        der = conn.getpeercert(binary_form=True)
        lfdi = lfdi_of(der) if der else None
        cipher = conn.cipher()
        double = self.server.double
        with double.lock:
            double.log.append(
                Logged(
                    parts.path,
                    query,
                    lfdi,
                    cipher[0] if cipher else None,
                    conn.version(),
                    self.headers.get("Accept"),
                )
            )
        local = double.local(parts.path)
        if local in double.silent:
            self.close_connection = True
            double.stopping.wait(60)  # no answer at all, until the test ends
            return
        status, body = double.respond(parts.path, query, lfdi)
        payload = body.encode()
        delay = double.drip.get(local or "")
        if delay is not None:
            self.close_connection = True
            self._drip(status, payload, delay)
            return
        self.send_response(status)
        if payload:
            self.send_header("Content-Type", "application/sep+xml")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        self._accept("POST")

    def do_PUT(self) -> None:
        self._accept("PUT")

    def _accept(self, method: str) -> None:
        """A body sent to the double (a subclass's sink); 405 unless it takes it."""
        parts = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        conn = self.connection
        assert isinstance(conn, ssl.SSLSocket)
        der = conn.getpeercert(binary_form=True)
        double = self.server.double
        local = double.local(parts.path) or ""
        answer = double.accept(method, local, body, lfdi_of(der) if der else None)
        status, location = answer if isinstance(answer, tuple) else (answer, None)
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _drip(self, status: int, payload: bytes, delay: float) -> None:
        """The answer, status line first, one octet every ``delay`` seconds (the body only,
        after headers sent at once, unless ``drip_headers``)."""
        head = (
            f"HTTP/1.1 {status} Dripping\r\nContent-Type: application/sep+xml\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        ).encode()
        if not self.server.double.drip_headers:
            self.wfile.write(head)
            head = b""
        for octet in head + payload:
            if self.server.double.stopping.wait(delay):
                return
            self.wfile.write(bytes([octet]))
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        pass
