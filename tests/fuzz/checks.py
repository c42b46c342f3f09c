"""What every answer of a fuzz run must be: an envelope (``{"id", "ok", "result"}`` or
``{"id", "ok": false, "error": {"kind", "message"}}``, the spec's), carrying the message's id
when it had a usable one, and over HTTP never a 5xx, save the spec's 503 of kind
``connection`` (the outstation could not be asked). Each check says what is wrong, or None.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.fuzz.messages import ANY, same_id
from tests.fuzz.swarm import Client
from tests.fuzz.wire import Answer

KINDS = {"request", "connection", "not_allowed"}

KNOWN: dict[str, Callable[[Answer], bool]] = {
    # tests/fuzz/test_found.py shows each; when one is fixed, its entry goes. None now.
}
"""Defects found in files others own, counted (in the report's ``known``) instead of
failing every run until they are fixed."""


def envelope_problem(data: bytes, ident: Any = ANY) -> str | None:
    try:
        envelope = json.loads(data)
    except ValueError as exc:
        return f"not JSON ({exc})"
    if not isinstance(envelope, dict) or not isinstance(envelope.get("ok"), bool):
        return "not an envelope"
    if "id" not in envelope:
        return "an envelope without id"
    if envelope["ok"]:
        if "result" not in envelope:
            return "ok without a result"
    else:
        error = envelope.get("error")
        if not (
            isinstance(error, dict)
            and error.get("kind") in KINDS
            and isinstance(error.get("message"), str)
        ):
            return f"a malformed error: {error!r}"
    if ident is not ANY and not same_id(envelope["id"], ident):
        return f"id {envelope['id']!r}, not {ident!r}"
    return None


def kind_of(data: bytes) -> str | None:
    try:
        envelope = json.loads(data)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or envelope.get("ok") is not False:
        return None
    error = envelope.get("error")
    return error.get("kind") if isinstance(error, dict) else None


def check_http(
    client: Client,
    sent: bytes,
    answer: Answer | None,
    *,
    envelope: bool,
    ident: Any = ANY,
    must: bool = True,
) -> None:
    """An answer to ``sent``: an envelope (when ``envelope``), never a 5xx but the spec's
    503 ``connection``; a missing answer is a problem when ``must``."""
    tally = client.run.tally
    if must:
        tally.messages += 1
    if answer is None:
        if must:
            client.problem("no answer to a whole request", sent)
        return
    tally.answered += must
    tally.answers[str(answer.status)] += 1
    if answer.status >= 500:
        if not (answer.status == 503 and kind_of(answer.body) == "connection"):
            client.problem(f"HTTP {answer.status}: {answer.body[:300]!r}", sent)
            return
        tally.answers["503 connection"] += 1
    if not envelope:
        return
    problem = envelope_problem(answer.body, ident)
    if problem is None and not answer.json_type:
        problem = f"Content-Type {answer.headers.get('content-type')!r}"
    if problem is None and (answer.status == 200) != (json.loads(answer.body)["ok"] is True):
        problem = f"HTTP {answer.status} for ok {json.loads(answer.body)['ok']}"
    if problem is None:
        return
    for defect, matches in KNOWN.items():
        if matches(answer):
            tally.known[defect] += 1
            return
    client.problem(f"HTTP {answer.status}, {problem}: {answer.body[:300]!r}", sent)
