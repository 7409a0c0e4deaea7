"""DispatchRouter picks exactly the route Starlette's linear scan picks, or defers to it."""

from __future__ import annotations

import asyncio
import functools
import itertools
import re

import httpx
import pytest
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route, Router, request_response

from fake_honcho import FakeHoncho
from fake_honcho.errors import HonchoError
from fake_honcho.http.routing import DispatchRouter, RoutedShortcut, _plain_endpoint, _serve

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _scan(router: Router, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """Starlette's own choice: the first route that fully matches."""
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    for route in router.routes:
        match, child = route.matches(scope)
        if match is Match.FULL:
            assert isinstance(route, Route)
            return route, child["path_params"]
    return None


def _paths(router: Router) -> list[str]:
    """Each route's path with its parameters filled by values that stress the shape."""
    fills = ("x", "list", "peers", "a b", "%2F", "é", "", "x/y", "x\n")
    paths = {"/", "", "/v3", "/v3/", "/v3/workspaces/", "//", "/health/", "/health\n"}
    for route in router.routes:
        assert isinstance(route, Route)
        for fill in fills:
            path = re.sub(r"\{[^}]+\}", fill, route.path)
            paths.update({path, path + "/", path.rstrip("/"), path + "\n"})
    return sorted(paths)


@pytest.fixture(scope="module")
def router() -> DispatchRouter:
    with FakeHoncho() as fake:
        assert isinstance(fake.core_app.router, DispatchRouter)
        return fake.core_app.router


def test_lookup_agrees_with_starlettes_scan_or_defers(router: DispatchRouter) -> None:
    disagreements = []
    hits = 0
    for method, path in itertools.product(METHODS, _paths(router)):
        found = router.lookup(method, path)
        expected = _scan(router, method, path)
        if found is not None:
            hits += 1
            if found != expected:
                disagreements.append((method, path, found, expected))
        elif expected is not None and not path.endswith("\n"):
            disagreements.append((method, path, None, expected))
    assert disagreements == []
    assert hits > len(router.routes)


def test_a_route_list_it_cannot_index_leaves_every_request_to_starlette() -> None:
    async def endpoint(request: object) -> None:  # pragma: no cover - never called
        raise AssertionError

    router = DispatchRouter(
        [Route("/items/{item_id:int}", endpoint), Route("/items/{name}", endpoint)]
    )
    assert router.lookup("GET", "/items/7") is None
    assert _scan(router, "GET", "/items/7") is not None


def test_path_parameters_reach_the_handler_and_misses_keep_starlettes_answers() -> None:
    with (
        FakeHoncho() as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        created = client.post("/v3/workspaces/w1/peers", json={"id": "p1"})
        assert created.status_code == 201
        assert created.json()["workspace_id"] == "w1"
        wrong_method = client.get("/v3/workspaces/w1/peers")
        assert wrong_method.status_code == 405
        assert wrong_method.json() == {"detail": "Method Not Allowed"}
        assert wrong_method.headers["allow"] == "POST"
        unknown = client.post("/v3/workspaces/w1/nothing")
        assert unknown.status_code == 404
        assert unknown.json() == {"detail": "Not Found"}


def test_matched_requests_skip_the_exception_middleware_but_keep_its_handling() -> None:
    async def honcho_error(request: Request) -> Response:
        raise HonchoError(409, "taken")

    async def http_error(request: Request) -> Response:
        raise HTTPException(418, "teapot")

    async def bug(request: Request) -> Response:
        raise RuntimeError("a bug in the fake")

    with FakeHoncho() as fake:
        fake.core_app.router.routes += [
            Route("/_test/honcho", honcho_error, methods=["GET"]),
            Route("/_test/http", http_error, methods=["GET"]),
            Route("/_test/bug", bug, methods=["GET"]),
        ]
        lenient = httpx.Client(
            transport=fake.transport(raise_app_exceptions=False), base_url="http://fake"
        )
        strict = httpx.Client(transport=fake.transport(), base_url="http://fake")
        with lenient, strict:
            answer = lenient.get("/_test/honcho")
            assert (answer.status_code, answer.json()) == (409, {"detail": "taken"})
            answer = lenient.get("/_test/http")
            assert (answer.status_code, answer.json()) == (418, {"detail": "teapot"})
            answer = lenient.get("/_test/bug")
            assert answer.status_code == 500
            assert answer.json() == {"detail": "An unexpected error occurred"}
            with pytest.raises(RuntimeError, match="a bug in the fake"):
                strict.get("/_test/bug")
        assert isinstance(fake.core_app.middleware_stack, ServerErrorMiddleware)
        assert isinstance(fake.core_app.middleware_stack.app, RoutedShortcut)


def test_the_fakes_routes_are_served_without_starlettes_per_request_wrappers(
    router: DispatchRouter,
) -> None:
    shapes = [shape for group in router._index().values() for shape in group.shapes()]
    direct = {shape.route.path for shape in shapes if shape.endpoint is not None}
    assert "/v3/workspaces/{workspace_id}/search" in direct
    assert len(direct) > len(router.routes) // 2


def test_only_a_plain_coroutine_endpoint_is_called_directly() -> None:
    async def endpoint(request: Request) -> Response:  # pragma: no cover - never called
        raise AssertionError

    def sync_endpoint(request: Request) -> Response:  # pragma: no cover - never called
        raise AssertionError

    class Tagging:
        def __init__(self, app: object) -> None:  # pragma: no cover - never called
            self.app = app

    assert _plain_endpoint(Route("/a", endpoint)) is endpoint
    assert _plain_endpoint(Route("/a", sync_endpoint)) is None
    assert _plain_endpoint(Route("/a", endpoint, middleware=[Middleware(Tagging)])) is None


class _Broken(Exception):
    """What a failing ``send`` raises."""


async def _answer(request: Request) -> Response:
    return Response(b"ok")


async def _run(app: object, handlers: dict[object, object], fail_on: str | None) -> object:
    """What ``app`` raises (or None) when ``send`` fails on the message type ``fail_on``."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [],
        "query_string": b"",
        "starlette.exception_handlers": (handlers, {}),
    }
    sent: list[str] = []

    async def receive() -> dict[str, object]:  # pragma: no cover - never called
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(str(message["type"]))
        if message["type"] == fail_on:
            raise _Broken

    try:
        await app(scope, receive, send)  # type: ignore[operator]
    except Exception as error:
        return (type(error), type(error.__cause__), sent)
    return (None, None, sent)


@pytest.mark.parametrize("fail_on", [None, "http.response.start", "http.response.body"])
@pytest.mark.parametrize("handled", [False, True])
def test_a_failing_send_ends_as_under_starlettes_wrappers(
    fail_on: str | None, handled: bool
) -> None:
    async def on_broken(request: Request, error: Exception) -> Response:  # pragma: no cover
        return Response(b"handled")

    handlers: dict[object, object] = {_Broken: on_broken} if handled else {}
    starlette_way = asyncio.run(_run(request_response(_answer), handlers, fail_on))
    direct = asyncio.run(_run(functools.partial(_serve, _answer), handlers, fail_on))
    assert direct == starlette_way
