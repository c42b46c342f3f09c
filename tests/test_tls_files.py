"""One record and one loader for TLS files on every side: the master (``add``'s ``tls``), the
simulated outstation (``TlsSettings``) and the IEEE 2030.5 client (``tls.*``) take the same
three files and refuse one that cannot be used with the same line, naming the setting, the
file and why."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from gridwire.errors import ConfigError, GridwireError, RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.master import TlsSettings as MasterTls
from gridwire.net.tls_files import ClientTls, TlsFileError, TlsFiles
from gridwire.outstation.database_file import default_database
from gridwire.outstation.server import OutstationServer
from gridwire.outstation.tls import TlsSettings as OutstationTls
from gridwire.sep2 import Sep2Client, build_config
from gridwire.sep2.errors import CertificateError
from tests.support.certs import Pki, make_pki

Files = dict[str, Path]


async def _master(files: Files) -> str:
    """What ``add`` answers for these files (nothing is added, nothing connects)."""
    master = Master()
    try:
        tls = MasterTls(**{k: str(v) for k, v in files.items()})
        with pytest.raises(RequestError) as caught:
            await master.add(OutstationSettings(name="o", host="127.0.0.1", port=1, tls=tls))
        assert master.status().outstations == []
        return str(caught.value)
    finally:
        await master.close()


async def _outstation(files: Files) -> str:
    with pytest.raises(ConfigError) as caught:
        OutstationServer(default_database(), port=0, tls=OutstationTls(**files))
    return str(caught.value)


async def _sep2(files: Files) -> str:
    tls = {k: str(v) for k, v in files.items()}
    config = build_config({"server": {"url": "https://127.0.0.1:1"}, "tls": tls})
    with pytest.raises(CertificateError) as caught:
        Sep2Client(config)
    return str(caught.value)


SIDES: dict[str, Callable[[Files], object]] = {
    "master": _master,
    "outstation": _outstation,
    "sep2": _sep2,
}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"), "ec-p256")


def _cases(pki: Pki, folder: Path) -> list[tuple[Files, str]]:
    """Files with one thing wrong, and the line every side must say about them."""
    good: Files = {"ca": pki.ca, "certificate": pki.client.certificate, "key": pki.client.key}
    junk = folder / "junk.pem"
    junk.write_text("not PEM at all\n")
    locked = folder / "locked.key"
    key = serialization.load_pem_private_key(pki.client.key.read_bytes(), password=None)
    locked.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    missing = folder / "missing.pem"
    certificate = pki.client.certificate
    return [
        ({**good, "ca": missing}, f"tls.ca {missing}: no such file"),
        ({**good, "ca": folder}, f"tls.ca {folder}: not a file"),
        (
            {**good, "ca": junk},
            f"tls.ca {junk}: not a CA certificate (NO_CERTIFICATE_OR_CRL_FOUND)",
        ),
        ({**good, "certificate": missing}, f"tls.certificate {missing}: no such file"),
        ({**good, "certificate": junk}, f"tls.certificate {junk}: not a PEM certificate"),
        ({**good, "key": missing}, f"tls.key {missing}: no such file"),
        ({**good, "key": junk}, f"tls.key {junk}: not a PEM private key"),
        ({**good, "key": certificate}, f"tls.key {certificate}: not a PEM private key"),
        (
            {**good, "key": locked},
            f"tls.key {locked}: the key is encrypted; give it without a password",
        ),
        (
            {**good, "key": pki.server.key},
            f"tls.key {pki.server.key} is not the key of tls.certificate {certificate}",
        ),
    ]


async def test_every_side_says_the_same_line(pki: Pki, tmp_path: Path) -> None:
    for files, expected in _cases(pki, tmp_path):
        said = {side: await read(files) for side, read in SIDES.items()}  # type: ignore[misc]
        assert said == dict.fromkeys(SIDES, expected), files


def test_one_record_on_every_side(pki: Pki) -> None:
    files = {"ca": pki.ca, "certificate": pki.client.certificate, "key": pki.client.key}
    master = MasterTls(**{k: str(v) for k, v in files.items()}, server_name="outstation-1")
    outstation = OutstationTls(**files, allow=("master-1",))
    config = build_config({"tls": {k: str(v) for k, v in files.items()}})
    assert isinstance(master, ClientTls) and isinstance(config.tls, ClientTls)
    assert isinstance(outstation, TlsFiles)
    for tls in (master, outstation, config.tls):
        assert (tls.ca, tls.certificate, tls.key) == tuple(str(p) for p in files.values())
    # A sep2 error is caught as every side's: one type to catch at the edges.
    assert issubclass(CertificateError, TlsFileError) and issubclass(TlsFileError, GridwireError)


def test_an_encrypted_key_is_refused_without_asking(pki: Pki, tmp_path: Path) -> None:
    """OpenSSL asks for a pass phrase on the terminal when a key needs one and none is given:
    ``gridwire sim`` started from a terminal would wait there for good. The loader refuses
    the key instead: run on a terminal of its own, the command ends at once with the line."""
    files, expected = _cases(pki, tmp_path)[8]
    command = [sys.executable, "-m", "gridwire", "sim", "--bind", "127.0.0.1:0"]
    for name in ("ca", "certificate", "key"):
        command += [f"--tls-{name}", str(files[name])]
    controller, terminal = os.openpty()
    with subprocess.Popen(
        command,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    ) as process:
        os.close(terminal)
        said = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            if select.select([controller], [], [], 0.2)[0]:
                with contextlib.suppress(OSError):
                    said += os.read(controller, 4096)
            if b"pass phrase" in said:
                break
        if process.poll() is None:
            process.kill()
        with contextlib.suppress(OSError):
            while select.select([controller], [], [], 0.2)[0]:
                said += os.read(controller, 4096)
        os.close(controller)
    text = said.decode(errors="replace")
    assert "pass phrase" not in text and process.returncode == 2, text
    assert f"gridwire sim: {expected}" in text
