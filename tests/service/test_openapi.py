"""The OpenAPI document and the service agree: a route for every operation and nothing else,
each route's request schema the operation's parameter model, and (through the harness's
HttpTransport, which checks every answer of the HTTP tests against the document) every answer
documented. Then schemathesis, a third-party tool, fuzzes a running ``gridwire console``
(a subprocess, over a socket, in front of yadnp3's outstation) from /openapi.json: no server
error, and every answer matching the status codes and schemas documented."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import schemathesis
from hypothesis import HealthCheck, given, reject, settings
from pydantic import BaseModel
from schemathesis.checks import positive_data_acceptance

from gridwire.operations.declaration import OperationTable, OutstationParams, Params, declare
from gridwire.operations.openapi import openapi_document, openapi_octets
from gridwire.operations.table import default_table
from gridwire.transports.http_app import build_app
from tests.service.harness import HttpTransport, running_service
from tests.support.net import free_port
from tests.support.peers import yadnp3_outstation
from tests.support.processes import running
from tests.support.waiting import eventually

OTHER_PATHS = {"/api", "/events", "/openapi.json"}


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    resolved: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return resolved


async def test_the_document_and_the_service_agree() -> None:
    table = default_table()
    async with running_service() as svc, HttpTransport(svc) as http:
        document = (await http.client.get("/openapi.json")).json()
        assert document["openapi"] == "3.1.0"
        expected = {f"/api/{op.name}" for op in table} | OTHER_PATHS
        assert set(document["paths"]) == expected
        app_paths = {getattr(r, "path", None) for r in build_app(svc.service).router.routes}
        assert expected <= app_paths
        for op in table:
            post = document["paths"][f"/api/{op.name}"]["post"]
            assert post["operationId"] == op.name and post["summary"] == op.summary
            body = resolve(document, post["requestBody"]["content"]["application/json"]["schema"])
            fields = op.params.model_fields
            assert set(body.get("properties", {})) == set(fields), op.name
            required = {name for name, field in fields.items() if field.is_required()}
            assert set(body.get("required", [])) == required, op.name
            assert post["requestBody"]["required"] is True  # {} for no parameters
            # 403 is not_allowed where the operation may command, else only the Refusal of
            # a foreign Host or Origin.
            refusal = post["responses"]["403"]["content"]["application/json"]["schema"]
            assert (refusal["$ref"].endswith("/ErrorEnvelope")) is op.may_command
            ok_schema = post["responses"]["200"]["content"]["application/json"]["schema"]
            assert ok_schema["properties"]["ok"] == {"const": True}
            # The service refuses an empty object exactly when the document requires a
            # parameter; the transport checks the answer against the document. (stop would
            # end the test.)
            if op.name == "stop":
                continue
            status, answer = await http.post(op.name)
            assert (status == 400 and "is missing" in answer["error"]["message"]) is (
                bool(required)
            ), (op.name, status, answer)
        message = document["components"]["schemas"]["Message"]
        assert message["properties"]["op"]["enum"] == table.names


class ProbeParams(Params):
    depth: int = 1  # nothing required: the request body may be left out


class PokeParams(OutstationParams):
    level: float  # with the outstation: both required


class Probed(BaseModel):
    seen: int


def _unused(context: object, params: object) -> None:
    raise AssertionError("the document test calls no operation")


PROBE = declare(
    "probe", params=ProbeParams, result=Probed, handler=_unused, summary="Probe the thing"
)
POKE = declare(
    "poke", params=PokeParams, result=Probed, handler=_unused, summary="Poke it", commands=True
)


def test_the_document_is_built_once_for_tables_of_the_same_operations() -> None:
    # Services start by the hundred (tests, a cluster's workers): the document of a table is
    # made once per process, and a table of other operations, or of the same names described
    # otherwise, gets its own.
    first = openapi_octets(OperationTable([PROBE, POKE]))
    assert openapi_octets(OperationTable([PROBE, POKE])) is first
    assert orjson.loads(first) == openapi_document(OperationTable([PROBE, POKE]))
    alone = orjson.loads(openapi_octets(OperationTable([PROBE])))
    assert set(alone["paths"]) == {"/api/probe"} | OTHER_PATHS
    again = orjson.loads(openapi_octets(OperationTable([replace(PROBE, summary="Probe again")])))
    assert again["paths"]["/api/probe"]["post"]["summary"] == "Probe again"


async def test_the_document_is_built_from_the_table_alone() -> None:
    # A table of two operations made here: the document served names them and nothing of the
    # default table, each laid out as openapi.py's docstring says (probe commands nothing and
    # needs no parameter; poke commands, so 403 and --allow-control, and needs outstation and
    # level; both need a body, {} at least).
    table = OperationTable([PROBE, POKE])
    async with running_service(table=table) as svc, HttpTransport(svc) as http:
        response = await http.client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    served = response.json()
    assert served == openapi_document(table)  # the route serves this table's document
    assert set(served["paths"]) == {"/api/probe", "/api/poke"} | OTHER_PATHS
    assert served["components"]["schemas"]["Message"]["properties"]["op"]["enum"] == [
        "probe",
        "poke",
    ]
    probe, poke = served["paths"]["/api/probe"]["post"], served["paths"]["/api/poke"]["post"]
    assert (probe["operationId"], probe["summary"]) == ("probe", "Probe the thing")
    assert probe["description"] == "Probe the thing"  # no description: the summary
    assert poke["description"] == "Poke it Commands an outstation: needs --allow-control."
    # 500 (kind internal, a bug: D133) on every operation's route.
    probed = ["200", "400", "503", "500", "401", "408", "413", "415", "403"]
    poked = ["200", "400", "403", "503", "500", "401", "408", "413", "415"]
    assert list(probe["responses"]) == probed
    assert list(poke["responses"]) == poked
    assert probe["requestBody"]["required"] is True and poke["requestBody"]["required"] is True
    body = resolve(served, poke["requestBody"]["content"]["application/json"]["schema"])
    assert set(body["properties"]) == {"outstation", "level"}
    assert set(body["required"]) == {"outstation", "level"}
    assert body["properties"]["level"]["type"] == "number"
    result = probe["responses"]["200"]["content"]["application/json"]["schema"]
    seen = resolve(served, result["properties"]["result"])
    assert seen["properties"]["seen"]["type"] == "integer" and seen["required"] == ["seen"]
    # and from the default table less one operation, the document less that operation
    table = default_table()
    smaller = openapi_document(type(table)([op for op in table if op.name != "scan"]))
    assert "/api/scan" not in smaller["paths"]
    assert "scan" not in smaller["components"]["schemas"]["Message"]["properties"]["op"]["enum"]


# Operations the fuzzer leaves out: add would connect to whatever host and port it makes up
# (on a shared machine), stop would end the service under test, /events never ends.
SKIPPED = {"/api/add", "/api/stop", "/events"}
# Operations whose outstation is switched to the connected one, so that their successful
# answers are checked too: the ones that neither change the connection nor load or break the
# outstation (repeat, deviate, disconnect, remove keep made-up names, and answer 400).
ON_THE_OUTSTATION = {
    "idle", "set_tasks", "wait_for", "profile", "scan", "read", "values", "events",
    "request", "operate", "write_time", "clear_restart", "synchronize_time", "freeze",
    "restart", "broadcast", "enable_unsolicited", "disable_unsolicited", "trace", "capture",
    "clear", "connect",
}  # fmt: skip
TOKEN = "fuzz-token"


def adjust(case: schemathesis.Case, name: str) -> None:
    body = case.body
    if not isinstance(body, dict):
        return
    if name == "message" and body.get("op") in ("add", "stop"):
        body["op"] = "status"
    if name in ON_THE_OUTSTATION and "outstation" in body:
        body["outstation"] = "y"
        if isinstance(body.get("timeout"), int | float) and body["timeout"] > 0.5:
            body["timeout"] = 0.5


# Left out: schemathesis's check that every schema-valid request is accepted. Whether an
# outstation exists is state, not schema: a well-formed name nobody added is answered 400
# (kind request, as the spec says). Every other check runs, not_a_server_error among them.


class Bearer:
    """The token, given to schemathesis as the schema's credentials: its auth check then
    takes them away, and puts wrong ones in, and expects the service to refuse (401)."""

    def get(self, case: schemathesis.Case, ctx: schemathesis.AuthContext) -> str:
        return TOKEN

    def set(self, case: schemathesis.Case, data: str, ctx: schemathesis.AuthContext) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


def fuzz(
    operation: schemathesis.APIOperation,
    mode: schemathesis.GenerationMode,
    name: str,
    base: str,
    seen: set[int],
) -> None:
    """Run schemathesis's cases of one operation (data the schema allows, or data it does
    not), each answer validated by its checks."""

    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=12,  # x2 modes x every operation: ~1,400 requests (D219)
        deadline=None,
        database=None,
        derandomize=True,  # the same cases every run: a failure reproduces, none flakes
        suppress_health_check=list(HealthCheck),
    )
    def check(case: schemathesis.Case) -> None:
        if mode is schemathesis.GenerationMode.POSITIVE:  # a negative case stays as made
            adjust(case, name)
        elif isinstance(case.body, dict) and case.body.get("op") in ("add", "stop"):
            # ...but never one the service may take as add or stop: that would end the run (a
            # negative message once sent "params": null with "op": "stop", which the service
            # takes as no parameters; the document now says null is allowed).
            reject()
        response = case.call_and_validate(
            base_url=base, timeout=60, excluded_checks=[positive_data_acceptance]
        )
        seen.add(response.status_code)

    check()


@pytest.mark.interop
@pytest.mark.timeout(600)  # CPU-bound: 126 s in the parallel phase on a loaded machine (D126)
def test_schemathesis_finds_no_server_error_and_no_undocumented_answer(tmp_path: Path) -> None:
    log = tmp_path / "console.log"  # every operation carried out, should the console end
    with yadnp3_outstation(points=3) as peer:
        port = free_port()
        command = [
            sys.executable, "-m", "gridwire", "console", "--bind", f"127.0.0.1:{port}",
            "--token", TOKEN, "--outstation", f"y=127.0.0.1:{peer.port}", "--log-level", "INFO",
            "--log-file", str(log),
        ]  # fmt: skip
        with (
            (tmp_path / "console.out").open("w") as printed,
            running(command, stdout=printed, stderr=subprocess.STDOUT) as console,
        ):
            base = f"http://127.0.0.1:{port}"
            if not eventually(lambda: _answers(base) or console.poll() is not None, 60):
                pytest.fail("the console did not start within 60 s")
            assert console.poll() is None, (tmp_path / "console.out").read_text()
            try:
                _fuzz_every_operation(base)
            except Exception as exc:
                ended = console.poll()
                tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
                raise AssertionError(f"console exit status {ended}; its log ends:\n{tail}") from exc
            headers = {"Authorization": f"Bearer {TOKEN}"}
            still = httpx.post(f"{base}/api/status", headers=headers, json={}, timeout=30)
            assert still.json()["result"]["outstations"][0]["connected"] is True


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/openapi.json", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _fuzz_every_operation(base: str) -> None:
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    schema.auth()(Bearer)
    statuses: dict[str, set[int]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path in SKIPPED:
            continue
        name = operation.path.rsplit("/", 1)[-1] if operation.path != "/api" else "message"
        for mode in schemathesis.GenerationMode:
            fuzz(operation, mode, name, base, statuses.setdefault(name, set()))
    # The fuzzer reached the outstation: successes of reads were checked too.
    assert 200 in statuses["scan"] and 200 in statuses["read"]
    assert 403 in statuses["operate"]  # without --allow-control
    assert all(code < 500 for codes in statuses.values() for code in codes), statuses
