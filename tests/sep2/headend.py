"""A head-end test double: a real HTTPS server on 127.0.0.1, requiring a client certificate,
serving DeviceCapability, Time, EndDeviceList, FunctionSetAssignmentsList and FSA Time
resources shaped as IEEE 2030.5 shapes them (element names and order from the standard's
schema), run in a thread.

It behaves as PEERS.md says a real head-end does: currentTime is truncated to whole seconds,
an FSA's TimeLink may point at the same ``/tm`` as DeviceCapability, a Time resource may carry
no pollRate while DeviceCapability says 300, an FSA may carry a TimeLink and no
DERProgramListLink, and an unknown device draws a 500. Each Time resource's clock can be set
ahead or behind, any path can be made to answer a given status, lists are served a few
entries per page whatever the client asks, and the whole server can go away and come back on
the same port. Every request is logged with the LFDI of the certificate it came with and the
TLS suite it used.

The LFDI is computed here directly from the standard's definition (the first 20 octets of the
SHA-256 of the DER certificate), not with gridwire's code.
"""

from __future__ import annotations

import contextlib
import hashlib
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
    lfdi: str
    fsas: list[Fsa] = field(default_factory=list)


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
        self.log: list[Logged] = []
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
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> HeadEndDouble:
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

    def respond(self, path: str, query: dict[str, str], lfdi: str | None) -> tuple[int, str]:
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

    def _dcap(self) -> str:
        rate = "" if self.dcap_poll_rate is None else f' pollRate="{self.dcap_poll_rate}"'
        time_link = f'<TimeLink href="{self.dcap_time}"/>' if self.dcap_time else ""
        return (
            f'<DeviceCapability xmlns="{NS}" href="{self.dcap_path}"{rate}>'
            f"{time_link}"
            f'<EndDeviceListLink href="{self.edev_path}" all="{len(self.devices)}"/>'
            '<MirrorUsagePointListLink href="/mup" all="0"/>'
            '<SelfDeviceLink href="/sdev"/>'
            "</DeviceCapability>"
        )

    def _time(self, path: str) -> str:
        z = self.zone
        now = int(time.time() + self.clock_offset.get(path, 0.0))  # truncated, as real ones do
        dst = z.dst_offset if z.dst_start <= now < z.dst_end else 0
        rate = self.time_poll_rate.get(path)
        rate_attribute = "" if rate is None else f' pollRate="{rate}"'
        return (
            f'<Time xmlns="{NS}" href="{path}"{rate_attribute}>'
            f"<currentTime>{now}</currentTime>"
            f"<dstEndTime>{z.dst_end}</dstEndTime>"
            f"<dstOffset>{z.dst_offset}</dstOffset>"
            f"<dstStartTime>{z.dst_start}</dstStartTime>"
            f"<localTime>{now + z.tz_offset + dst}</localTime>"
            f"<quality>{self.quality.get(path, z.quality)}</quality>"
            f"<tzOffset>{z.tz_offset}</tzOffset>"
            "</Time>"
        )

    def _page(self, query: dict[str, str], count: int) -> range:
        start = int(query.get("s", "0"))
        limit = min(int(query.get("l", "1")), self.page_limit)
        return range(min(start, count), min(start + limit, count))

    def _edev(self, rest: str, query: dict[str, str]) -> tuple[int, str]:
        base = self.edev_path
        parts = [p for p in rest.split("/") if p]
        if not parts:
            entries = "".join(self._end_device(i) for i in self._page(query, len(self.devices)))
            shown = len(self._page(query, len(self.devices)))
            return 200, (
                f'<EndDeviceList xmlns="{NS}" href="{base}" all="{len(self.devices)}" '
                f'results="{shown}" subscribable="0" pollRate="900">{entries}</EndDeviceList>'
            )
        if not parts[0].isdigit() or int(parts[0]) >= len(self.devices):
            return 404, ""
        d = int(parts[0])
        if len(parts) == 1:
            return 200, self._end_device(d, namespace=True)
        if parts[1:] == ["fsa"]:
            fsas = self.devices[d].fsas
            page = self._page(query, len(fsas))
            entries = "".join(self._fsa(d, f) for f in page)
            return 200, (
                f'<FunctionSetAssignmentsList xmlns="{NS}" href="{base}/{d}/fsa" '
                f'all="{len(fsas)}" results="{len(page)}" pollRate="900">'
                f"{entries}</FunctionSetAssignmentsList>"
            )
        return 404, ""

    def _end_device(self, d: int, namespace: bool = False) -> str:
        device = self.devices[d]
        base = f"{self.edev_path}/{d}"
        ns = f' xmlns="{NS}"' if namespace else ""
        return (
            f'<EndDevice{ns} href="{base}" subscribable="0">'
            f'<DERListLink href="{base}/der" all="1"/>'
            f"<lFDI>{device.lfdi}</lFDI>"
            f"<sFDI>{sfdi_of(device.lfdi)}</sFDI>"
            "<changedTime>1700000000</changedTime>"
            "<enabled>true</enabled>"
            f'<FunctionSetAssignmentsListLink href="{base}/fsa" all="{len(device.fsas)}"/>'
            "</EndDevice>"
        )

    def _fsa(self, d: int, f: int) -> str:
        spec = self.devices[d].fsas[f]
        href = f"{self.edev_path}/{d}/fsa/{f}"
        derp = f'<DERProgramListLink href="{href}/derp" all="1"/>' if spec.der_programs else ""
        time_href = self.fsa_time_href(d, f)
        time_link = f'<TimeLink href="{time_href}"/>' if time_href else ""
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
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
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
        status, body = double.respond(parts.path, query, lfdi)
        payload = body.encode()
        self.send_response(status)
        if payload:
            self.send_header("Content-Type", "application/sep+xml")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass
