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

import os
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
from tests.support import gridappsd as gridappsd_venv
from tests.support.net import free_port
from tests.support.processes import running
from tests.support.waiting import until

pytestmark = pytest.mark.interop

PYTHON = Path(os.environ.get("GRIDWIRE_GRIDAPPSD_PYTHON", gridappsd_venv.PYTHON))
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


PYTHON_310 = gridappsd_venv.python_310()  # looked for before a test changes HOME


def _installed() -> bool:
    return gridappsd_venv.installed(PYTHON)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


@pytest.fixture
def gridappsd() -> Path:
    """The interpreter with gridappsd-2030-5, its virtual environment made the first time
    (or waited for while .ci/run makes it: tests/support/gridappsd.py)."""
    if _installed():
        return PYTHON
    if "GRIDWIRE_GRIDAPPSD_PYTHON" in os.environ:
        pytest.fail(f"GRIDWIRE_GRIDAPPSD_PYTHON={PYTHON} does not import gridappsd-2030-5")
    if PYTHON_310 is None:
        pytest.skip("no Python 3.10 on PATH or under pyenv: gridappsd-2030-5's pins need it")
    problem = gridappsd_venv.ensure(PYTHON_310)
    assert problem is None, problem
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
