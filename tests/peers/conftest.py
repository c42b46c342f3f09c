from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.certs import Pki, make_pki


@pytest.fixture(scope="module")
def rsa_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki-rsa"), "rsa2048")


@pytest.fixture(scope="module")
def ec_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki-ec"), "ec-p256")


@pytest.fixture(scope="module")
def stranger_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A PKI no peer trusts: its client certificate must be refused."""
    return make_pki(Path(tmp_path_factory.mktemp("pki-stranger")), "rsa2048", name="stranger")
