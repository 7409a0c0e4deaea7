"""``/openapi.json``, ``/docs`` and ``/redoc`` on the fake.

The document is valid OpenAPI 3.1, describes exactly the routes the fake serves, and
has the structure of a real server's document recorded for each version under
``tests/fidelity/openapi`` (re-record with ``python -m tests.fidelity.openapi.record``).
The pages answer without a key and load nothing from elsewhere; their renderer escapes
what it shows (checked with Node when it is installed). tests/browser opens the served pages
in a real Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import schemathesis
from schemathesis.specs.openapi.definitions import OPENAPI_31
from starlette.routing import Match, Route

from fake_honcho import FakeHoncho
from fake_honcho.http.operations import Answer, Operation, Param
from fake_honcho.openapi import document_for
from fake_honcho.openapi.pages import inline_script
from fake_honcho.versions import VERSIONS, Feature
from tests.fidelity.openapi.record import trimmed

RECORDED = Path(__file__).parent / "openapi"
SCRIPT = Path(__file__).parents[2] / "fake_honcho" / "openapi" / "static" / "api-docs.js"
PAGES = ("/openapi.json", "/docs", "/redoc")
# Routes the fake serves that a real server's document leaves out too, and why.
UNDOCUMENTED = {
    ("GET", "/metrics"): "Prometheus endpoint (include_in_schema=False on the server)",
    ("POST", "/v3/workspaces/{workspace_id}/sessions/{session_id}/messages/"): "old spelling",
    ("GET", "/openapi.json"): "the document itself",
    ("GET", "/docs"): "docs page",
    ("GET", "/redoc"): "docs page",
}


@pytest.fixture(scope="module", params=sorted(VERSIONS))
def fake(request: pytest.FixtureRequest) -> Iterator[FakeHoncho]:
    with FakeHoncho(version=request.param, api_key="docs-key") as fake:
        yield fake


@pytest.fixture(scope="module")
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        yield client


@pytest.fixture(scope="module")
def document(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    found: dict[str, Any] = response.json()
    return found


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, item in document["paths"].items() for method in item}


def _schemas(document: Any) -> Iterator[Any]:
    """Every schema object of the document (components, parameters, bodies, answers)."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "schema":
                yield value
            elif key == "schemas" and isinstance(value, dict):
                yield from value.values()
            else:
                yield from _schemas(value)
    elif isinstance(document, list):
        for item in document:
            yield from _schemas(item)


def _refs(document: Any) -> Iterator[str]:
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(document, list):
        for item in document:
            yield from _refs(item)


def test_the_document_is_openapi_3_1(fake: FakeHoncho, document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == fake.version.name
    errors = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in jsonschema.Draft202012Validator(OPENAPI_31).iter_errors(document)
    ]
    assert errors == []
    for schema in _schemas(document):
        jsonschema.Draft202012Validator.check_schema(schema)
    components = document["components"]["schemas"]
    dangling = {
        ref
        for ref in _refs(document)
        if ref.removeprefix("#/components/schemas/") not in components
    }
    assert dangling == set()
    loaded = schemathesis.openapi.from_dict(document)
    assert len(list(loaded.get_all_operations())) == len(_operations(document))


def test_the_document_describes_the_routes_the_fake_serves(
    fake: FakeHoncho, document: dict[str, Any]
) -> None:
    served = {
        (method, route.path)
        for route in fake.core_app.routes
        if isinstance(route, Route) and not route.path.startswith("/_fake/")
        for method in route.methods or ()
        if method != "HEAD"
    }
    assert _operations(document) == served - set(UNDOCUMENTED)
    assert set(UNDOCUMENTED) <= served


def test_every_documented_operation_reaches_a_route(
    fake: FakeHoncho, document: dict[str, Any]
) -> None:
    """Seen from outside: each (method, path) of the document matches a route fully."""
    unserved = []
    for method, path in _operations(document):
        scope = {"type": "http", "method": method, "path": re.sub(r"[{}]", "", path)}
        if not any(route.matches(scope)[0] is Match.FULL for route in fake.core_app.routes):
            unserved.append(f"{method} {path}")
    assert unserved == []


def _canonical(value: Any) -> Any:
    """Numbers by value (pydantic writes ``minimum: 1.0`` for an integer field)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    return value


def _differences(ours: Any, theirs: Any, where: str = "") -> Iterator[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            here = f"{where}/{key}"
            if key not in theirs:
                yield f"{here}: only in the fake's document"
            elif key not in ours:
                yield f"{here}: only in the real document"
            else:
                yield from _differences(ours[key], theirs[key], here)
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (mine, real) in enumerate(zip(ours, theirs, strict=True)):
            yield from _differences(mine, real, f"{where}[{i}]")
    elif ours != theirs:
        yield f"{where}: fake {json.dumps(ours)[:120]} != real {json.dumps(theirs)[:120]}"


def _under(difference: str, pointer: str) -> bool:
    """Whether a difference (``"<pointer>: ..."``) is at or below ``pointer``."""
    return difference.startswith((f"{pointer}:", f"{pointer}/"))


def _recorded(version: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((RECORDED / f"{version}.json").read_text("utf-8"))
    return recorded


# Where a version's document differs from the real one recorded for it, by JSON pointer
# prefix, and why. Any other difference fails; an entry that no longer differs fails as
# stale.
EVIDENCE = (
    "chat evidence (Feature.CHAT_EVIDENCE) is modelled from honcho-ai 2.7.0: the server "
    "recorded as 3.2 (main + pull requests 931 and 952) has none"
)
KNOWN: dict[str, dict[str, str]] = {
    "3.2": {
        "/components/schemas/DialecticOptions/properties/include_evidence": EVIDENCE,
        "/components/schemas/WorkspaceChatOptions/properties/include_evidence": EVIDENCE,
        "/components/schemas/Evidence": EVIDENCE,
        "/components/schemas/EvidenceMessageRef": EVIDENCE,
        "/components/schemas/EvidenceObservation": EVIDENCE,
        "/components/schemas/EvidenceToolCall": EVIDENCE,
        "/paths//v3/workspaces/{workspace_id}/chat/post/responses/200/content/application/json/"
        "schema/properties/evidence": EVIDENCE,
        "/paths//v3/workspaces/{workspace_id}/peers/{peer_id}/chat/post/responses/200/content/"
        "application/json/schema/properties/evidence": EVIDENCE,
    },
}


@pytest.mark.parametrize("version", sorted(p.stem for p in RECORDED.glob("*.json")))
def test_the_document_has_the_real_servers_structure(version: str) -> None:
    """Same paths, methods, parameters, bodies, answers, status codes and components as the
    real document of that version; only descriptions, summaries and titles are our own.
    (``info.version`` is not compared: the 3.1 and 3.2 servers, built from Honcho's main
    branch, still call themselves 3.0.12.)"""
    with FakeHoncho(version=version) as fake:
        ours = trimmed(document_for(fake.core_app))
    theirs = _recorded(version)
    found = list(
        _differences(
            _canonical({key: ours[key] for key in ("openapi", "paths", "components")}),
            _canonical({key: theirs[key] for key in ("openapi", "paths", "components")}),
        )
    )
    known = KNOWN.get(version, {})
    assert [d for d in found if not any(_under(d, p) for p in known)] == []
    stale = [p for p in known if not any(_under(d, p) for d in found)]
    assert stale == [], f"no longer differs: remove from KNOWN[{version!r}]"


def test_pages_answer_without_a_key(client: httpx.Client) -> None:
    for path in PAGES:
        assert client.get(path).status_code == 200, path
    assert client.post("/v3/workspaces/list").status_code == 401


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_pages_are_self_contained(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = response.text
    assert "mountApiDocs(" in page and '"documentUrl": "openapi.json"' in page
    assert re.findall(r"""(?:src|href)\s*=\s*["']?https?:""", page) == []
    assert re.findall(r"https?://", page) == [], "a page must load nothing from elsewhere"
    assert ('"tryIt": true' in page) is (path == "/docs")


def _render(document: dict[str, Any], options: dict[str, Any]) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the pages' renderer runs in a browser")
    program = (
        "const docs = require(process.argv[1]);"
        "let input = '';"
        "process.stdin.on('data', (chunk) => { input += chunk; });"
        "process.stdin.on('end', () => {"
        "  const args = JSON.parse(input);"
        "  process.stdout.write(docs.renderDocument(args.document, args.options));"
        "});"
    )
    done = subprocess.run(
        [node, "-e", program, str(SCRIPT)],
        input=json.dumps({"document": document, "options": options}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_the_page_inlines_its_script_as_written(client: httpx.Client) -> None:
    """Only what could end the script element early is rewritten: the regex ``/</g``
    the renderer escapes with reaches the browser intact."""
    script = SCRIPT.read_text("utf-8")
    assert "/</g" in script and script in client.get("/docs").text


def test_only_a_script_end_is_escaped_in_an_inlined_script() -> None:
    source = 'a = "</Script>"; b = /</g; c = "</td>";'
    assert inline_script(source) == 'a = "<\\/Script>"; b = /</g; c = "</td>";'
    with pytest.raises(ValueError, match="<!--"):
        inline_script("x = '<!--';")


def test_the_renderer_escapes_what_it_shows(document: dict[str, Any]) -> None:
    hostile = json.loads(json.dumps(document))
    hostile["info"]["description"] = "<script>alert(1)</script>"
    html = _render(hostile, {})
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_parameter_with_needs_is_there_from_its_version_on() -> None:
    scoped = Param("scope", {"type": "string"}, "A scope.", needs=Feature.SCOPES)
    operation = Operation("GET", "/x", "x", None, "X.", Answer(200), query=(scoped,))
    assert operation.parameters(VERSIONS["3.0.12"]) == []
    assert operation.parameters(VERSIONS["3.1"]) == [scoped]


def test_every_typed_query_parameter_is_one_the_fake_reads(
    client: httpx.Client, document: dict[str, Any]
) -> None:
    """The operations table against the handlers: a value of the wrong type for a declared
    integer, number or boolean parameter is a 422 naming it."""
    unread = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for param in operation.get("parameters", []):
                schema = param["schema"]
                kinds = {branch.get("type") for branch in schema.get("anyOf", [schema])}
                if param["in"] != "query" or not kinds & {"integer", "number", "boolean"}:
                    continue
                url = re.sub(r"\{[^}]+\}", "x", path)
                answer = client.request(
                    method,
                    url,
                    params={param["name"]: "zz"},
                    headers={"Authorization": "Bearer docs-key"},
                )
                detail = answer.json().get("detail") if answer.status_code == 422 else None
                locs = [entry.get("loc") for entry in detail] if isinstance(detail, list) else []
                if ["query", param["name"]] not in locs:
                    unread.append(f"{method.upper()} {path} {param['name']}: {answer.status_code}")
    assert unread == []
