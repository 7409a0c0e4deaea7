"""Schemathesis runs the official OpenAPI document against a served fake.

Every operation the fake implements gets a bounded number of generated requests
(valid and invalid; ``$HONCHO_CONFORMANCE_EXAMPLES`` per operation, default 3). The
checks: no server error, and every response with a documented status validates
against the official response schema.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import response_schema_conformance

from fake_honcho import FakeHoncho

from .support import bounded, fake_operations, openapi_path

SPEC = openapi_path()
if SPEC is None:
    pytest.skip(
        "the official OpenAPI document is absent: set $HONCHO_OPENAPI or place it at "
        "<repo>/../shared/honcho-openapi-3.0.12.json",
        allow_module_level=True,
    )

# Fuzzed cases per operation: small for CI; raise it for a deeper local run.
EXAMPLES_PER_OPERATION = int(os.environ.get("HONCHO_CONFORMANCE_EXAMPLES", "3"))


def _template_key(method: str, path: str) -> tuple[str, str]:
    return method.upper(), re.sub(r"\{[^}]+\}", "{}", path)


IMPLEMENTED = {_template_key(method, path) for method, path in fake_operations()}


def implemented(ctx: Any) -> bool:
    return _template_key(ctx.operation.method, ctx.operation.path) in IMPLEMENTED


# The coverage phase enumerates boundary values without an example budget: CI runs the
# explicit examples and bounded fuzzing (valid and invalid data) only.
CONFIG = SchemathesisConfig.from_dict(
    {
        "phases": {"coverage": {"enabled": False}},
        "generation": {"mode": "all", "deterministic": True},
    }
)
schema = schemathesis.openapi.from_path(str(SPEC), config=CONFIG).include(implemented)


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    with FakeHoncho(strict=True) as fake, fake.serve() as url:
        yield url


def honcho_schema_conformance(ctx: Any, response: Any, case: schemathesis.Case) -> bool | None:
    """The official response schema, except for Honcho's own string-detail errors.

    The spec documents every 422 as a pydantic error list, but a real Honcho also
    answers ``{"detail": "<text>"}`` for its application errors (bad filters, missing
    peers, ``ValidationException``...), as ``honcho-v3-api.md`` records; those must be
    a JSON object with exactly a non-empty string ``detail``.
    """
    if 400 <= response.status_code < 500:
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("detail"), str):
            assert list(body) == ["detail"] and body["detail"], body
            return True
    return response_schema_conformance(ctx, response, case)


@schema.parametrize()
@bounded(EXAMPLES_PER_OPERATION)
def test_official_schema(case: schemathesis.Case, served: str) -> None:
    case.call_and_validate(base_url=served, checks=[not_a_server_error, honcho_schema_conformance])
