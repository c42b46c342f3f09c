"""A site with several DERs runs one gateway per EndDevice (DESIGN D204): two configurations
in one folder that name no store get a store each, named by their certificate's LFDI (worked
out here from the standard's definition, not by gridwire); a store another process holds is
refused with that process named, and free again once it is killed (kill -9: the system
drops the lock); a store that holds another EndDevice's events is refused."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from gridwire.errors import ConfigError
from gridwire.gateway.config import load_gateway_config
from gridwire.gateway.store import Store
from tests.sep2.headend import lfdi_of
from tests.sep2.pki import Pki, der_of
from tests.support.processes import running

HOLD = "import sys, time\nfrom gridwire.gateway.store import Store\nStore(sys.argv[1])\n"
HOLD += "print('held', flush=True)\ntime.sleep(60)\n"


def write_config(path: Path, pki: Pki, certificate: Path, key: Path, api_port: int) -> Path:
    path.write_text(
        '[server]\nurl = "https://127.0.0.1:9"\n'
        f'[tls]\nca = "{pki.ca}"\ncertificate = "{certificate}"\nkey = "{key}"\n'
        f'[api]\nbind = "127.0.0.1:{api_port}"\n'
        '[der]\nhost = "127.0.0.1"\nport = 1\n'
    )
    return path


def test_two_gateways_in_one_folder_have_a_store_each_and_never_share_one(
    pki: Pki, tmp_path: Path
) -> None:
    first = load_gateway_config(
        write_config(tmp_path / "a.toml", pki, pki.device_certificate, pki.device_key, 8841)
    )
    second = load_gateway_config(
        write_config(
            tmp_path / "b.toml", pki, pki.other_device_certificate, pki.other_device_key, 8842
        )
    )
    lfdi_a = lfdi_of(der_of(pki.device_certificate))
    lfdi_b = lfdi_of(der_of(pki.other_device_certificate))
    path_a, path_b = first.store_path(lfdi_a), second.store_path(lfdi_b)
    assert path_a == tmp_path.resolve() / f"gridwire-gateway-{lfdi_a}.sqlite"
    assert path_b == tmp_path.resolve() / f"gridwire-gateway-{lfdi_b}.sqlite"

    with running([sys.executable, "-c", HOLD, str(path_a)], stdout=-1) as holder:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match=rf"in use by another gateway \(pid {holder.pid}\)"):
            Store(path_a)
        other = Store(path_b)  # the other device's store is its own
        other.claim(lfdi_b)
        other.close()
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)

    store = Store(path_a)  # the killed holder's lock went with it
    try:
        store.claim(lfdi_a)
        store.claim(lfdi_a)  # its own, again
        with pytest.raises(ConfigError, match=f"holds the events of EndDevice LFDI {lfdi_a}"):
            store.claim(lfdi_b)
    finally:
        store.close()
