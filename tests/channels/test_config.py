"""A config file's channels: loaded with their kinds and defaults, outstations naming them,
and mistakes refused with one line naming the place."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from gridwire.channels.settings import SerialChannel, UdpChannel
from gridwire.errors import ConfigError
from gridwire.service.config import ServiceConfig, load_config
from gridwire.service.runner import open_service
from tests.channels.drops import drop_server


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "gridwire.json"
    path.write_bytes(orjson.dumps(document))
    return path


def test_channels_load_with_their_defaults(tmp_path: Path) -> None:
    config = load_config(
        _write(
            tmp_path,
            {
                "channels": [
                    {"kind": "serial", "name": "rs485", "device": "/dev/ttyUSB0"},
                    {
                        "kind": "udp",
                        "name": "cell",
                        "remote_host": "10.0.0.7",
                        "remote_port": 20000,
                    },
                ],
                "outstations": [{"name": "inv7", "channel": "rs485", "outstation_address": 7}],
            },
        )
    )
    serial, udp = config.channels
    assert isinstance(serial, SerialChannel) and isinstance(udp, UdpChannel)
    assert (serial.baud, serial.data_bits, serial.parity, serial.stop_bits) == (9600, 8, "none", 1)
    assert (serial.inter_character_timeout, serial.response_timeout) == (0.1, 2.0)
    assert serial.one_request and not udp.one_request
    assert udp.fragment_limit == 1245
    assert config.outstations[0].channel == "rs485"


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"channels": [{"kind": "radio", "name": "x"}]}, "channels.0"),
        (
            {"channels": [{"kind": "serial", "name": "x", "device": "/d", "parity": "weird"}]},
            "parity",
        ),
        (
            {"channels": [{"kind": "tcp", "name": "x", "host": "h", "port": 1}] * 2},
            "channel x is given twice",
        ),
        (
            {"outstations": [{"name": "o", "channel": "x", "host": "h", "port": 1}]},
            "either channel",
        ),
        ({"outstations": [{"name": "o"}]}, "give host and port, or channel"),
    ],
)
def test_mistakes_are_refused(tmp_path: Path, document: object, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        load_config(_write(tmp_path, document))


async def test_the_service_adds_the_channels_before_the_outstations() -> None:
    server = drop_server(unsolicited=False)
    await server.serve_tcp("127.0.0.1", 0)
    config = ServiceConfig.model_validate(
        {
            "channels": [{"kind": "tcp", "name": "gw", "host": "127.0.0.1", "port": server.port}],
            "outstations": [
                {"name": "a", "channel": "gw", "outstation_address": 1024, "manual": True},
                {"name": "b", "channel": "gw", "outstation_address": 1025, "manual": True},
            ],
        }
    )
    try:
        async with open_service(config) as service:
            status = service.master.status()
            assert [o.connected for o in status.outstations] == [True, True]
            assert status.channels[0].attached == [1024, 1025]
            assert server.connections == 1
    finally:
        await server.close()
