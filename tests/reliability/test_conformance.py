"""Schemathesis runs the OpenAPI document of a real Honcho 3.0.12 (recorded in
``tests/fidelity/openapi``) against a served fake.

Every operation the fake implements gets a bounded number of generated requests
(the document's examples, valid and invalid data; ``$HONCHO_CONFORMANCE_EXAMPLES`` per
operation, default 3). The checks: no server error, and every response with a documented
status validates against the official response schema.

Operations are a plain ``pytest.mark.parametrize`` over schemathesis strategies rather than
``schema.parametrize()``, whose items all share one node id under pytest 9 (so no case could
be selected or told apart): here each is ``test_official_schema[POST /v3/workspaces]``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import given
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from fake_honcho import FakeHoncho

from .support import bounded, fake_operations

# The OpenAPI document a real Honcho publishes, recorded (tests/fidelity/openapi/record.py).
RECORDED = Path(__file__).resolve().parents[1] / "fidelity" / "openapi"

SPEC = RECORDED / "3.0.12.json"  # from a real Honcho 3.0.12 (tests/fidelity/openapi)

# Fuzzed cases per operation: small for CI; raise it for a deeper local run.
EXAMPLES_PER_OPERATION = int(os.environ.get("HONCHO_CONFORMANCE_EXAMPLES", "3"))


def _template_key(method: str, path: str) -> tuple[str, str]:
    return method.upper(), re.sub(r"\{[^}]+\}", "{}", path)


IMPLEMENTED = {_template_key(method, path) for method, path in fake_operations()}


# Deterministic generation; the coverage phase (boundary values without an example budget)
# is not used: CI runs the explicit examples and bounded fuzzing only.
CONFIG = SchemathesisConfig.from_dict({"generation": {"deterministic": True}})
schema = schemathesis.openapi.from_path(str(SPEC), config=CONFIG)
OPERATIONS = [
    operation
    for operation in (result.ok() for result in schema.get_all_operations())
    if _template_key(operation.method, operation.path) in IMPLEMENTED
]


def cases(operation: Any) -> st.SearchStrategy[schemathesis.Case]:
    """The document's examples plus valid and invalid generated requests for ``operation``."""
    generated = [operation.as_strategy(mode) for mode in GenerationMode]
    return st.one_of(*schema.get_strategies_from_examples(operation), *generated)


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    # real_bugs="correct": a real server's deterministic 500s (ids that break the pattern,
    # page offsets past a bigint) are the register's; here the fake must never answer 5xx.
    with FakeHoncho(strict=True, real_bugs="correct") as fake, fake.serve() as url:
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


@pytest.mark.parametrize("operation", OPERATIONS, ids=[op.label for op in OPERATIONS])
@bounded(EXAMPLES_PER_OPERATION)
@given(data=st.data())
def test_official_schema(operation: Any, served: str, data: st.DataObject) -> None:
    case = data.draw(cases(operation), label="case")
    case.call_and_validate(base_url=served, checks=[not_a_server_error, honcho_schema_conformance])
