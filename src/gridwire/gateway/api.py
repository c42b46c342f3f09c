"""The gateway's management API: ``sep2``'s (``/api/v1/time``, ``/api/v1/status``, the same
token, Host and Origin rules, ``/docs``) with the gateway's own routes beside it:

- ``GET /api/v1/gateway/events``: every event known, its state, its drawn randomization,
  when it runs on its FSA's clock, its modes and the Responses it has owed;
- ``GET /api/v1/gateway/state``: the modes held now and where each comes from, what the
  gateway holds on the DER and what it found there, the programs known, the last errors;
- ``GET /api/v1/gateway/responses``: every Response owed, when posted, the head-end's answer;
- ``GET /api/v1/gateway/changes``: every step sent to the DER (newest 200);
- ``GET /api/v1/gateway/readings``: the DER's last readings.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.responses import Response

from gridwire.gateway.modes import RULES
from gridwire.gateway.resources import mode_json
from gridwire.gateway.runner import Gateway
from gridwire.net.http_origin import SameOrigin, allowed_hosts
from gridwire.sep2.api import NO_STORE, ManagementApi, _forbidden
from gridwire.sep2.docs import install_docs
from gridwire.sep2.service import Sep2Service


def _json(body: object) -> Response:
    return Response(orjson.dumps(body), 200, NO_STORE, "application/json")


def events(gateway: Gateway) -> list[dict[str, Any]]:
    return [
        {
            "mrid": r.mrid,
            "href": r.control.href,
            "program": r.program,
            "primacy": r.primacy,
            "fsa": r.fsa,
            "state": r.state,
            "start": r.control.start,
            "duration": r.control.duration,
            "start_draw": r.start_draw,
            "duration_draw": r.duration_draw,
            "runs_from": r.start,
            "runs_to": r.end,
            "modes": {m: mode_json(v) for m, v in r.control.modes.items()},
            "problems": list(r.control.problems),
            "responses": r.responses,
        }
        for r in gateway.scheduler.records.values()
    ]


def state(gateway: Gateway) -> dict[str, Any]:
    decision = gateway.last
    held = gateway.applier.held
    return {
        "targets": {}
        if decision is None
        else {
            m: {"value": mode_json(t.value), "source": t.source, "program": t.program}
            for m, t in decision.targets.items()
        },
        "held": {"points": held.points, "functions": sorted(held.functions), "curves": held.curves},
        "found": gateway.applier.found,
        "supported": {m: gateway.applier.supported(m) for m in _modes()},
        "programs": [
            {
                "href": s.program.href,
                "primacy": s.program.primacy,
                "fsa": s.program.fsa,
                "controls": len(s.controls),
                "default": s.default is not None,
            }
            for s in gateway.feed.program_sets()
        ],
        "der_error": gateway.der_error,
        "feed_error": gateway.feed.last_error,
        "passes": gateway.passes,
    }


def _modes() -> list[str]:
    return [r.mode for r in RULES]


def gateway_app(
    gateway: Gateway, *, token: str | None = None, bound: tuple[str, int] | None = None
) -> FastAPI:
    api = ManagementApi(Sep2Service(gateway.client), token=token)
    router = api.router

    @router.get("/api/v1/gateway/events", tags=["gateway"], summary="Events known")
    async def get_events() -> Response:
        return _json(events(gateway))

    @router.get("/api/v1/gateway/state", tags=["gateway"], summary="What is held, and why")
    async def get_state() -> Response:
        return _json(state(gateway))

    @router.get("/api/v1/gateway/responses", tags=["gateway"], summary="Responses owed")
    async def get_responses() -> Response:
        return _json(gateway.store.responses())

    @router.get("/api/v1/gateway/changes", tags=["gateway"], summary="Steps sent to the DER")
    async def get_changes() -> Response:
        return _json(gateway.store.changes())

    @router.get("/api/v1/gateway/readings", tags=["gateway"], summary="The DER's last readings")
    async def get_readings() -> Response:
        return _json(gateway.readings)

    app = FastAPI(
        title="gridwire gateway", docs_url=None, redoc_url=None, openapi_url="/openapi.json"
    )
    app.include_router(router)
    install_docs(app)
    if bound is not None:
        app.add_middleware(SameOrigin, hosts=allowed_hosts(*bound), refuse=_forbidden)
    return app
