"""The channel operations through the service's HTTP API, every answer checked against the
OpenAPI document it serves: add_channel, add on a channel beside the link address, status with
the channels and each outstation's, channel_trace, remove_channel refused while in use; bad
combinations refused with a clear error."""

from __future__ import annotations

from gridwire.operations.openapi import openapi_document
from gridwire.operations.table import default_table
from tests.channels.drops import drop_server
from tests.service.harness import HttpTransport, error, ok, running_service


def test_openapi_describes_channels() -> None:
    document = openapi_document(default_table())
    schemas = document["components"]["schemas"]
    text = str(schemas)
    for field in ("inter_character_timeout", "max_datagram", "remote_port", "stop_bits"):
        assert field in text
    assert "/api/add_channel" in document["paths"]
    body = document["paths"]["/api/add"]["post"]["requestBody"]["content"]["application/json"]
    name = body["schema"]["$ref"].rsplit("/", 1)[1]
    assert "channel" in schemas[name]["properties"]
    assert "add_channel" in document["paths"]["/api/add_channel"]["post"]["operationId"]


async def test_add_channel_then_outstations_on_it() -> None:
    server = drop_server(unsolicited=False)
    await server.serve_tcp("127.0.0.1", 0)
    try:
        async with running_service() as running, HttpTransport(running) as http:
            tcp = {"kind": "tcp", "name": "gw", "host": "127.0.0.1", "port": server.port}
            added = ok(await http.call("add_channel", channel=tcp))
            assert (added["kind"], added["open"], added["half_duplex"]) == ("tcp", False, False)
            for name, address in (("a", 1024), ("b", 1025)):
                status = ok(
                    await http.call(
                        "add", name=name, channel="gw", outstation_address=address, manual=True
                    )
                )
                assert (status["channel"], status["connected"]) == ("gw", True)
            message = error(
                await http.call("add", name="c", channel="gw", outstation_address=1024),
                "request",
            )
            assert "link address 1024" in message
            message = error(
                await http.call("add", name="d", channel="gw", host="127.0.0.1", port=1),
                "request",
            )
            assert "either channel or host" in message
            error(await http.call("add", name="e", channel="nowhere"), "request")
            status = ok(await http.call("status"))
            [channel] = status["channels"]
            assert channel["open"] and channel["attached"] == [1024, 1025]
            assert ok(await http.call("channel_trace", channel="gw")) == []
            assert "used by outstation" in error(
                await http.call("remove_channel", channel="gw"), "request"
            )
            ok(await http.call("remove", outstation="a"))
            ok(await http.call("remove", outstation="b"))
            removed = ok(await http.call("remove_channel", channel="gw"))
            assert not removed["open"]
    finally:
        await server.close()
