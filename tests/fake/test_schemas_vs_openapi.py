"""``schemas/`` held against the OpenAPI document a real Honcho 3.0.12 publishes
(recorded in ``tests/fidelity/openapi``).

For every schema we ship that names an OpenAPI component, and for the request and
response bodies of every route this package serves, the property names, required
fields, types, nullability, limits, patterns and enums must agree. Descriptions,
titles and ``additionalProperties: false`` on our responses (stricter checks of the
fake itself) are not compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Match

from fake_honcho import FakeHoncho
from fake_honcho.http.schemas import BASE_URI, SchemaSet

# The OpenAPI document a real Honcho publishes, recorded (tests/fidelity/openapi/record.py).
RECORDED = Path(__file__).resolve().parents[1] / "fidelity" / "openapi"

LIMITS = ("minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems")


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((RECORDED / "3.0.12.json").read_text("utf-8"))
    return document  # recorded from a real Honcho 3.0.12 (tests/fidelity/openapi)


@pytest.fixture(scope="module")
def ours() -> SchemaSet:
    return SchemaSet()


class Walker:
    """Resolves ``$ref`` s in either document and compares two schemas structurally."""

    def __init__(self, openapi: dict[str, Any], ours: SchemaSet) -> None:
        self.components = openapi["components"]["schemas"]
        self.ours = ours

    def resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if ref.startswith("#/components/schemas/"):
                schema = self.components[ref.rsplit("/", 1)[1]]
            else:
                schema = self.ours.documents[ref.removeprefix(BASE_URI).removesuffix(".json")]
        return schema

    def unwrap(self, schema: Any) -> tuple[Any, bool]:
        """``X | None`` as ``(X, True)``."""
        schema = self.resolve(schema)
        if isinstance(schema, dict) and "anyOf" in schema:
            branches = [self.resolve(b) for b in schema["anyOf"]]
            rest = [b for b in branches if b != {"type": "null"}]
            if len(rest) == 1 and len(rest) < len(branches):
                return rest[0], True
        return schema, False

    def differences(self, mine: Any, theirs: Any, where: str = "$") -> Iterator[str]:
        mine, mine_null = self.unwrap(mine)
        theirs, their_null = self.unwrap(theirs)
        if mine_null != their_null:
            yield f"{where}: nullable {mine_null} != {their_null}"
        if not isinstance(mine, dict) or not isinstance(theirs, dict):
            if mine != theirs:
                yield f"{where}: {mine!r} != {theirs!r}"
            return
        for keyword in ("type", "enum", "const", *LIMITS):
            if mine.get(keyword) != theirs.get(keyword):
                yield f"{where}: {keyword} {mine.get(keyword)!r} != {theirs.get(keyword)!r}"
        if sorted(mine.get("required", [])) != sorted(theirs.get("required", [])):
            yield f"{where}: required {mine.get('required')} != {theirs.get('required')}"
        my_props, their_props = mine.get("properties", {}), theirs.get("properties", {})
        if set(my_props) != set(their_props):
            yield f"{where}: properties {sorted(my_props)} != {sorted(their_props)}"
        for name in set(my_props) & set(their_props):
            yield from self.differences(my_props[name], their_props[name], f"{where}.{name}")
        if "items" in mine or "items" in theirs:
            yield from self.differences(mine.get("items"), theirs.get("items"), f"{where}[]")
        my_extra, their_extra = mine.get("additionalProperties"), theirs.get("additionalProperties")
        if isinstance(my_extra, dict) or isinstance(their_extra, dict):
            yield from self.differences(my_extra, their_extra, f"{where}{{*}}")
        if "anyOf" in mine or "anyOf" in theirs:
            for i, (a, b) in enumerate(
                zip(mine.get("anyOf", []), theirs.get("anyOf", []), strict=True)
            ):
                yield from self.differences(a, b, f"{where}|{i}")


@pytest.fixture(scope="module")
def walker(openapi: dict[str, Any], ours: SchemaSet) -> Walker:
    return Walker(openapi, ours)


def test_every_component_we_ship_agrees(walker: Walker, ours: SchemaSet) -> None:
    shared = [name for name in ours.names() if name in walker.components]
    assert len(shared) >= 30
    problems = [
        f"{name}: {problem}"
        for name in shared
        for problem in walker.differences(ours.documents[name], walker.components[name])
    ]
    assert problems == []


W = "/v3/workspaces/{workspace_id}"
S = W + "/sessions/{session_id}"

# (method, OpenAPI path, our request schema, our response schema, response is an array)
ROUTES = [
    ("post", "/v3/workspaces", "WorkspaceCreate", "Workspace", False),
    ("post", "/v3/workspaces/list", "WorkspaceGet", "Page_Workspace_", False),
    ("put", W, "WorkspaceUpdate", "Workspace", False),
    ("post", W + "/search", "MessageSearchOptions", "Message", True),
    ("post", W + "/peers", "PeerCreate", "Peer", False),
    ("post", W + "/peers/list", "PeerGet", "Page_Peer_", False),
    ("put", W + "/peers/{peer_id}", "PeerUpdate", "Peer", False),
    ("post", W + "/peers/{peer_id}/sessions", "SessionGet", "Page_Session_", False),
    ("post", W + "/peers/{peer_id}/search", "MessageSearchOptions", "Message", True),
    ("post", W + "/sessions", "SessionCreate", "Session", False),
    ("post", W + "/sessions/list", "SessionGet", "Page_Session_", False),
    ("put", S, "SessionUpdate", "Session", False),
    ("post", S + "/clone", None, "Session", False),
    ("post", S + "/peers", "SessionPeerMap", "Session", False),
    ("put", S + "/peers", "SessionPeerMap", "Session", False),
    ("delete", S + "/peers", "PeerIdList", "Session", False),
    ("get", S + "/peers", None, "Page_Peer_", False),
    ("get", S + "/peers/{peer_id}/config", None, "SessionPeerConfig", False),
    ("put", S + "/peers/{peer_id}/config", "SessionPeerConfig", None, False),
    ("post", S + "/search", "MessageSearchOptions", "Message", True),
    ("post", S + "/messages", "MessageBatchCreate", "Message", True),
    ("post", S + "/messages/list", "MessageGet", "Page_Message_", False),
    ("get", S + "/messages/{message_id}", None, "Message", False),
    ("put", S + "/messages/{message_id}", "MessageUpdate", "Message", False),
    ("post", W + "/webhooks", "WebhookEndpointCreate", "WebhookEndpoint", False),
    ("get", W + "/webhooks", None, "Page_WebhookEndpoint_", False),
]


def _ref(name: str, many: bool) -> dict[str, Any]:
    ref = {"$ref": BASE_URI + name + ".json"}
    return {"type": "array", "items": ref} if many else ref


@pytest.mark.parametrize(
    ("method", "path", "request_schema", "response_schema", "many"),
    ROUTES,
    ids=[f"{method.upper()} {path}" for method, path, *_ in ROUTES],
)
def test_route_bodies_agree(
    walker: Walker,
    openapi: dict[str, Any],
    method: str,
    path: str,
    request_schema: str | None,
    response_schema: str | None,
    many: bool,
) -> None:
    operation = openapi["paths"][path][method]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    if request_schema is None:
        assert "schema" not in body
    else:
        theirs, _ = walker.unwrap(body["schema"])  # optional list bodies are `X | None`
        assert list(walker.differences(_ref(request_schema, False), theirs)) == []
    success = [code for code in operation["responses"] if code.startswith("2")]
    content = operation["responses"][success[0]].get("content", {}).get("application/json", {})
    if response_schema is None:
        assert not content.get("schema")
    else:
        assert list(walker.differences(_ref(response_schema, many), content["schema"])) == []


def test_every_official_operation_is_served(openapi: dict[str, Any], fake: FakeHoncho) -> None:
    """Each (method, path) of the document reaches a route of the fake (not 404/405)."""
    app = fake.core_app
    unserved = []
    for path, operations in openapi["paths"].items():
        concrete = path.replace("{", "").replace("}", "")
        for method in operations:
            scope = {"type": "http", "path": concrete, "method": method.upper()}
            if not any(route.matches(scope)[0] == Match.FULL for route in app.routes):
                unserved.append(f"{method.upper()} {path}")
    assert unserved == []
