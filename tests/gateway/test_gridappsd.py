"""The gateway against a 2030.5 server we did not write: GridAPPS-D's ``gridappsd-2030-5``
(Flask, mutual TLS of its own, certificates it makes with openssl), run as a subprocess
under Python 3.10, its pins needing that version: ``$GRIDWIRE_GRIDAPPSD_PYTHON``, else
``.venv-gridappsd/bin/python`` at the repository's root, which the test makes itself the first
time (``python3.10 -m venv .venv-gridappsd && .venv-gridappsd/bin/pip install
gridappsd-2030-5``, about a minute) from a Python 3.10 on PATH or under pyenv. Skipped, saying
so, only where there is no Python 3.10.

What it could do here (0.0.2a37): serve DeviceCapability, Time, the EndDeviceList with our
device and a DERProgramList from DeviceCapability; take a DERControl through its admin
endpoint (``POST /admin/derp/0/derc``) and list it. What it could not: its DERCurveList answers 500 (the gateway reads the program's controls
all the same, D168); its Time answers 500
when the machine's zone is UTC (it looks for daylight-saving transitions there), so it runs
with TZ set; it has no Response sink (``POST`` to the replyTo answers 404), and the
DefaultDERControl its admin endpoint takes is not served (404): the gateway runs the event,
puts the DER back to what it found, and keeps the Responses owed with the 404 noted.
"""

from __future__ import annotations

import glob
import os
import shutil
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from gridwire.derops import DerMaster
from gridwire.gateway.runner import Gateway
from gridwire.gateway.store import Store
from gridwire.master import OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from tests.gateway.conftest import CountingDer
from tests.support.net import free_port
from tests.support.processes import running
from tests.support.waiting import until

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("GRIDWIRE_GRIDAPPSD_PYTHON", ROOT / ".venv-gridappsd/bin/python"))
OPENSSL_CNF = """[ ca ]
default_ca = CA_default
[ CA_default ]
dir = REPLACE_WITH_REPO_PATH
certs = $dir/certs
new_certs_dir = $dir/certs
database = $dir/index.txt
serial = $dir/serial
default_md = sha256
default_days = 3650
policy = policy_any
copy_extensions = copy
[ policy_any ]
countryName = optional
commonName = supplied
[ req ]
distinguished_name = req_dn
prompt = no
[ req_dn ]
CN = placeholder
[ v3_ca ]
basicConstraints = critical,CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
"""


def _python_310() -> str | None:
    """A Python 3.10 interpreter on PATH or under pyenv (looked for before HOME is changed)."""
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    found = [
        shutil.which("python3.10"),
        *sorted(glob.glob(f"{pyenv}/versions/3.10*/bin/python3.10")),
    ]
    for candidate in filter(None, found):
        probe = [candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 10)"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return candidate
    return None


PYTHON_310 = _python_310()


def _installed() -> bool:
    if not PYTHON.exists():
        return False
    found = subprocess.run(
        [str(PYTHON), "-c", "import ieee_2030_5"], capture_output=True, check=False
    )
    return found.returncode == 0


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


@pytest.fixture
def gridappsd() -> Path:
    """The interpreter with gridappsd-2030-5, its virtual environment made the first time."""
    if _installed():
        return PYTHON
    if PYTHON_310 is None:
        pytest.skip("no Python 3.10 on PATH or under pyenv: gridappsd-2030-5's pins need it")
    venv = PYTHON.parents[1]
    subprocess.run([PYTHON_310, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin/pip"), "install", "-q", "gridappsd-2030-5"]
    made = subprocess.run(pip, capture_output=True, text=True, check=False, timeout=480)
    assert made.returncode == 0 and _installed(), f"installing gridappsd-2030-5: {made.stderr}"
    return PYTHON


@pytest.mark.timeout(600)  # the first run installs gridappsd-2030-5 (about a minute)
async def test_an_event_from_gridappsd_2030_5_reaches_the_der(
    tmp_path: Path, gridappsd: Path
) -> None:
    port = free_port()
    (tmp_path / "openssl.cnf").write_text(OPENSSL_CNF)
    (tmp_path / "config.yml").write_text(
        f"openssl_cnf: {tmp_path}/openssl.cnf\ntls_repository: {tmp_path}/tls\n"
        f"server: 127.0.0.1\nport: {port}\nstorage_path: {tmp_path}/store\n"
        "generate_admin_cert: true\ninclude_default_der_on_all_devices: false\n"
        "include_default_der_program_on_ders: false\n"
        "devices:\n  - id: dev1\n    poll_rate: 5\n"
        "programs:\n  - description: p1\n    primacy: 1\n"
    )
    log = (tmp_path / "server.log").open("w")
    command = [str(gridappsd), "-m", "ieee_2030_5", "config.yml", "--create-certs"]
    env = {**os.environ, "TZ": "America/New_York"}
    tls = tmp_path / "tls"
    with running(command, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT):
        await until(lambda: "Running on" in (tmp_path / "server.log").read_text(), within=90)
        now = int(time.time())
        control = (
            '<DERControl xmlns="urn:ieee:std:2030.5:ns" replyTo="/rsps/0/rsp" '
            'responseRequired="03"><mRID>ABCDEF0123456789ABCDEF0123456789</mRID>'
            f"<description>gateway</description><creationTime>{now}</creationTime>"
            f"<EventStatus><currentStatus>0</currentStatus><dateTime>{now}</dateTime>"
            "<potentiallySuperseded>false</potentiallySuperseded></EventStatus>"
            f"<interval><duration>4</duration><start>{now + 6}</start></interval>"
            "<DERControlBase><opModMaxLimW>5000</opModMaxLimW></DERControlBase></DERControl>"
        )
        admin = ssl.create_default_context()
        admin.check_hostname, admin.verify_mode = False, ssl.CERT_NONE  # its own test CA
        admin.load_cert_chain(tls / "certs/admin.crt", tls / "private/admin.pem")
        async with httpx.AsyncClient(verify=admin) as c:
            made = await c.post(
                f"https://127.0.0.1:{port}/admin/derp/0/derc",
                content=control,
                headers={"Content-Type": "application/sep+xml"},
            )
        assert made.status_code == 201
        sim = CountingDer()
        async with run_outstation(sim, "127.0.0.1", 0) as server:
            master = DerMaster(allow_control=True)
            settings = {
                "server": {"url": f"https://127.0.0.1:{port}"},
                "tls": {
                    "ca": str(tls / "certs/ca.crt"),
                    "certificate": str(tls / "certs/dev1.crt"),
                    "key": str(tls / "private/dev1.pem"),
                    "check_hostname": False,  # its server certificate names no SAN
                },
            }
            client = Sep2Client(build_config(settings))
            store = Store(tmp_path / "gw.db")
            gateway = None
            try:
                await master.add(
                    OutstationSettings(
                        name="der", host="127.0.0.1", port=server.port, profile="ieee1815.2"
                    )
                )
                gateway = Gateway(client, master.der("der"), store, post_seconds=None)
                await gateway.start()
                await until(lambda: ("ao", 88, 500) in sim.received, within=30)
                await until(lambda: ("ao", 88, 1000) in sim.received, within=15)
            finally:
                if gateway is not None:
                    await gateway.stop()
                await master.close()
        answers = [(r["status"], r["answer"]) for r in store.responses()]
        store.close()
    log.close()
    assert [c for c in sim.received if c[:2] == ("ao", 88)] == [("ao", 88, 500), ("ao", 88, 1000)]
    assert answers[0] == (1, 404)  # it has no Response sink
