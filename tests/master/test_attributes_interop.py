"""``attributes`` (READ g0v254, qualifier 0x06) against outstations we did not write the
master for: ``gridwire sim --der`` as a subprocess (it serves the standard attributes of set
0), and yadnp3 (opendnp3), which has no group 0 and refuses the read: answered ok, with no
attributes, nothing raised. Wireshark's dissector reads the request."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from gridwire import __version__
from gridwire.dnp3.app.headers import range_header
from gridwire.master import Master, OutstationSettings
from gridwire.master.attributes import read_attributes
from gridwire.simulator.attributes import BUILD_DATE_MS, SERIAL, VENDOR
from tests.support.peers import yadnp3_outstation
from tests.support.simulator import der_sim_with_profile
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop


async def test_simulated_der_answers_each_attribute_by_name(tmp_path: Path) -> None:
    with der_sim_with_profile(tmp_path / "profile.xml") as (port, _):
        master = Master()
        try:
            await master.add(OutstationSettings(name="s", host="127.0.0.1", port=port))
            await master.idle("s")
            frames_before = master.session("s").frames.last_id
            result = await read_attributes(master, "s")
            # g0v252 alone (start-stop 0..0), for Wireshark's reading of the value below
            await master.request("s", "READ", range_header(0, 252, 0, 0))
            pcap = base64.b64decode(master.capture("s", frames_before).pcap)
        finally:
            await master.close()
    assert result.answered
    exchange = result.exchange
    assert exchange is not None and exchange.outcome == "complete"
    # application control, READ (01), g0 v254 (00 FE), qualifier 0x06
    assert exchange.request[2:] == "0100fe06"
    values = result.by_key()
    assert values["vendor_name"] == VENDOR
    assert values["serial_number"] == SERIAL
    assert values["software_version"] == __version__
    assert values["subset_level"] == "2:2012"
    assert "kW" in str(values["product_name"])
    named = {a.key: a for a in result.attributes}
    assert named["vendor_name"].name == "Device manufacturer's name"
    assert named["vendor_name"].data_type == "VSTR" and named["vendor_name"].variation == 252
    build = named["configuration_build_date"]
    assert (build.data_type, build.value) == ("TIME", BUILD_DATE_MS)
    assert build.text == "2026-01-01T00:00:00.000Z"
    assert named["device_altitude"].data_type == "FLT" and named["device_altitude"].value == 0.0
    assert named["binary_inputs"].data_type == "UINT" and isinstance(
        named["binary_inputs"].value, int
    )
    # Wireshark reads the request: READ (1), object g0v254 (0x00fe), no range (qualifier 6)
    pcap_path = tmp_path / "attributes.pcap"
    pcap_path.write_bytes(pcap)
    rows = tshark_fields(
        pcap_path,
        port,
        ["dnp3.al.func", "dnp3.al.obj", "dnp3.al.objq.range"],
        f"tcp.dstport=={port} && dnp3.al.func==1",
    )
    assert ["1", "0x00fe", "6"] in rows
    # and the responses: the first object of the whole answer is g0v196 (0x00c4), and the
    # answer to g0v252 alone carries the vendor's name as a visible string (data type 1).
    # (tshark 4.0 stops at a TIME attribute: it reads no length octet after data type 7,
    # which IEEE 1815-2012 gives every attribute; so the whole answer is not read past 198.)
    answers = tshark_fields(
        pcap_path,
        port,
        ["dnp3.al.obj", "dnp3.al.datatype", "dnp3.al.da.value"],
        f"tcp.srcport=={port} && dnp3.al.func==129",
    )
    assert answers[0][0].startswith("0x00c4,")
    assert ["0x00fc", "0x01", VENDOR] in answers


async def test_yadnp3_refuses_group_0_and_is_answered_ok() -> None:
    with yadnp3_outstation(points=3) as peer:
        master = Master()
        try:
            await master.add(OutstationSettings(name="y", host="127.0.0.1", port=peer.port))
            await master.idle("y")
            result = await read_attributes(master, "y")
        finally:
            await master.close()
    assert not result.answered
    assert result.attributes == []
    assert result.exchange is not None and result.exchange.outcome == "complete"
    assert "OBJECT_UNKNOWN" in result.indications
