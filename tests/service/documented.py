"""Answers checked against the OpenAPI document the service serves: the status must be one
the document lists for the route, and the body must match its schema (jsonschema_rs, the
validator schemathesis itself uses, Draft 2020-12 as OpenAPI 3.1 says)."""

from __future__ import annotations

from typing import Any

import jsonschema_rs


class Documented:
    """The responses of one OpenAPI document, each status's schema ready to validate."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._validators: dict[tuple[str, str, int], jsonschema_rs.Draft202012Validator] = {}

    def responses(self, path: str, method: str = "post") -> dict[str, Any]:
        operation = self.document["paths"][path][method]
        responses: dict[str, Any] = operation["responses"]
        return responses

    def check(self, path: str, status: int, body: Any, method: str = "post") -> None:
        """AssertionError unless ``status`` is documented for the route and ``body``
        matches the schema documented for it."""
        responses = self.responses(path, method)
        assert str(status) in responses, f"{method.upper()} {path}: {status} is not documented"
        key = (path, method, status)
        validator = self._validators.get(key)
        if validator is None:
            schema = responses[str(status)]["content"]["application/json"]["schema"]
            root = {"components": self.document["components"], "allOf": [schema]}
            validator = jsonschema_rs.Draft202012Validator(root)
            self._validators[key] = validator
        errors = [f"{list(e.instance_path)}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, f"{method.upper()} {path} {status}: {errors[:5]}"
