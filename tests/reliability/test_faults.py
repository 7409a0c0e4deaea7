"""The fault middleware, rules and control routes on a tiny Starlette app (no fake needed)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.harness import faults as faults_module
from fake_honcho.harness.faults import (
    FAULT_SCOPE_KEY,
    FaultMiddleware,
    FaultRule,
    Faults,
    compile_route,
    parse_rule,
    with_connection_drop,
)
from fake_honcho.routes.faults import routes as fault_routes


class TinyApp:
    """A two-route app behind the fault middleware, counting what reached it."""

    def __init__(self) -> None:
        self.faults = Faults()
        self.served: list[str] = []
        self.seen_faults: list[str | None] = []

        async def echo(request: Request) -> JSONResponse:
            self.served.append(f"{request.method} {request.url.path}")
            return JSONResponse({"id": request.path_params.get("ws"), "ok": True}, status_code=201)

        starlette = Starlette(
            routes=[
                Route("/v3/workspaces/{ws}/sessions/{sid}/messages", echo, methods=["POST"]),
                Route("/v3/workspaces/{ws}", echo, methods=["GET", "PUT"]),
                Route("/health", echo),
                *fault_routes,
            ]
        )
        starlette.state.fake = SimpleNamespace(faults=self.faults)
        self.asgi: ASGIApp = self._journal(FaultMiddleware(starlette, self.faults))

    def _journal(self, app: ASGIApp) -> ASGIApp:
        async def journal(scope: Scope, receive: Receive, send: Send) -> None:
            try:
                await app(scope, receive, send)
            finally:
                if scope["type"] == "http":
                    self.seen_faults.append(scope.get(FAULT_SCOPE_KEY))

        return journal


@pytest.fixture
def tiny() -> TinyApp:
    return TinyApp()


@pytest.fixture
async def client(tiny: TinyApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(tiny.asgi), base_url="http://fake"
    ) as http:
        yield http


MESSAGES = "/v3/workspaces/ws1/sessions/s1/messages"


class TestParseRule:
    @pytest.mark.parametrize(
        ("spec", "expected"),
        [
            (
                "POST /v3/workspaces/*/sessions/*/messages status=503 times=2",
                FaultRule(
                    method="POST", route="/v3/workspaces/*/sessions/*/messages", status=503, times=2
                ),
            ),
            ("** status=429 retry_after=0", FaultRule(status=429, retry_after=0.0)),
            (
                "GET,PUT ^/v3/.*$ latency=250ms",
                FaultRule(method="GET,PUT", route="^/v3/.*$", latency=0.25),
            ),
            ("/health latency=1.5s html", FaultRule(route="/health", latency=1.5, html=True)),
            (
                "* /v3/** drop rate=0.25 seed=7",
                FaultRule(route="/v3/**", drop=True, rate=0.25, seed=7),
            ),
            (
                "/v3/** content_type",
                FaultRule(route="/v3/**", content_type="text/plain; charset=utf-8"),
            ),
            ("/v3/** content_type=text/html", FaultRule(route="/v3/**", content_type="text/html")),
            ("/v3/** truncated", FaultRule(route="/v3/**", truncated=True)),
            ("/v3/** refuse times=1", FaultRule(route="/v3/**", refuse=True, times=1)),
            (
                "/v3/** status=500 'detail=Disk on fire'",
                FaultRule(route="/v3/**", status=500, detail="Disk on fire"),
            ),
        ],
    )
    def test_parses_and_round_trips(self, spec: str, expected: FaultRule) -> None:
        rule = parse_rule(spec)
        assert rule == expected
        assert parse_rule(rule.spec) == rule
        assert FaultRule.from_json(rule.to_json()) == rule

    @pytest.mark.parametrize(
        ("spec", "message"),
        [
            ("", "ROUTE ACTION"),
            ("POST GET /v3 drop", "ROUTE ACTION"),
            ("/v3/**", "needs an action"),
            ("/v3/** status=503 drop", "one action, got status and drop"),
            ("/v3/** status=200", "400..599"),
            ("/v3/** status=abc", "integer"),
            ("/v3/** latency=soon", "500ms"),
            ("/v3/** drop times=0", "times must be >= 1"),
            ("/v3/** drop rate=0", "rate must be in"),
            ("/v3/** drop rate=1.5", "rate must be in"),
            ("/v3/** drop retry_after=1", "retry_after needs status="),
            ("/v3/** drop colour=red", "unknown fault rule option or action 'colour'"),
            ("FETCH /v3/** drop", "unknown HTTP method"),
            ("v3/** drop", "ROUTE ACTION"),
            ("^/v3/( drop", "invalid route regex"),
            ("/v3/** status=500 'detail=unterminated", "cannot parse"),
        ],
    )
    def test_rejects_with_a_clear_message(self, spec: str, message: str) -> None:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            parse_rule(spec)


class TestRoutePatterns:
    @pytest.mark.parametrize(
        ("route", "path", "matches"),
        [
            ("/v3/workspaces/*/sessions/*/messages", MESSAGES, True),
            ("/v3/workspaces/*/sessions/*/messages", MESSAGES + "/list", False),
            ("/v3/workspaces/*", "/v3/workspaces/ws1", True),
            ("/v3/workspaces/*", "/v3/workspaces/ws1/peers", False),
            ("/v3/workspaces/**", "/v3/workspaces/ws1/peers", True),
            ("/v3/workspaces/ws?", "/v3/workspaces/ws1", True),
            ("**", "/health", True),
            ("*", "/v3/workspaces/ws1", True),
            ("^/v3/workspaces/[^/]+/search$", "/v3/workspaces/w/search", True),
            ("^/v3/workspaces/[^/]+/search$", "/v3/workspaces/w/search/x", False),
            ("/v3/workspaces/a.b", "/v3/workspaces/aXb", False),
        ],
    )
    def test_glob_and_regex(self, route: str, path: str, matches: bool) -> None:
        assert bool(compile_route(route).fullmatch(path)) is matches


@pytest.mark.anyio
class TestActions:
    async def test_status_answers_in_honchos_shape_without_reaching_the_app(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("POST /v3/workspaces/*/sessions/*/messages status=503")
        response = await client.post(MESSAGES, json={})
        assert response.status_code == 503
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"detail": "Service Unavailable"}
        assert "retry-after" not in response.headers
        assert tiny.served == []

    @pytest.mark.parametrize(
        ("status", "detail"),
        [
            (500, "An unexpected error occurred"),
            (502, "Bad Gateway"),
            (503, "Service Unavailable"),
            (504, "Gateway Timeout"),
        ],
    )
    async def test_server_error_texts(
        self, tiny: TinyApp, client: httpx.AsyncClient, status: int, detail: str
    ) -> None:
        tiny.faults.add(f"** status={status}")
        response = await client.get("/v3/workspaces/ws1")
        assert (response.status_code, response.json()) == (status, {"detail": detail})

    async def test_429_sends_retry_after(self, tiny: TinyApp, client: httpx.AsyncClient) -> None:
        tiny.faults.add("** status=429")
        response = await client.get("/v3/workspaces/ws1")
        assert response.status_code == 429
        assert response.headers["retry-after"] == "1"
        assert response.json() == {"detail": "Too Many Requests"}

    async def test_custom_retry_after_and_detail(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add(status=503, retry_after=0, detail="draining")
        response = await client.get("/health")
        assert response.headers["retry-after"] == "0"
        assert response.json() == {"detail": "draining"}

    async def test_html_maintenance_page_with_status_200(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("PUT /v3/workspaces/* html")
        response = await client.put("/v3/workspaces/ws1", json={})
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert response.text.startswith("<!DOCTYPE html>")
        with pytest.raises(json.JSONDecodeError):
            response.json()
        assert tiny.served == []

    async def test_truncated_json_after_the_app_processed_the_request(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("POST ** truncated")
        response = await client.post(MESSAGES, json={})
        assert response.status_code == 201
        assert int(response.headers["content-length"]) == len(response.content)
        assert response.content == b'{"id":"ws1","ok":true}'[:11]
        with pytest.raises(json.JSONDecodeError):
            response.json()
        assert tiny.served == [f"POST {MESSAGES}"]

    async def test_wrong_content_type_keeps_the_body(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("** content_type")
        response = await client.post(MESSAGES, json={})
        assert response.headers["content-type"] == "text/plain; charset=utf-8"
        assert response.json() == {"id": "ws1", "ok": True}
        assert tiny.served == [f"POST {MESSAGES}"]

    async def test_drop_raises_a_remote_protocol_error_in_process(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("POST ** drop")
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post(MESSAGES, json={})
        assert tiny.served == []

    async def test_refuse_raises_a_connect_error_in_process(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        tiny.faults.add("** refuse")
        with pytest.raises(httpx.ConnectError):
            await client.get("/health")
        assert tiny.served == []

    async def test_latency_delays_then_serves(
        self, tiny: TinyApp, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        slept: list[float] = []

        async def record_sleep(seconds: float) -> None:
            slept.append(seconds)

        monkeypatch.setattr(faults_module.anyio, "sleep", record_sleep)
        tiny.faults.add("GET ** latency=250ms")
        assert (await client.get("/health")).status_code == 201
        assert (await client.post(MESSAGES, json={})).status_code == 201
        assert slept == [0.25]
        assert len(tiny.served) == 2


@pytest.mark.anyio
class TestFiring:
    async def test_first_n_matches_then_served(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        fault = tiny.faults.add("POST /v3/workspaces/*/sessions/*/messages status=503 times=2")
        statuses = [(await client.post(MESSAGES, json={})).status_code for _ in range(4)]
        assert statuses == [503, 503, 201, 201]
        assert (fault.matched, fault.fired, fault.remaining) == (4, 2, 0)

    async def test_method_must_match(self, tiny: TinyApp, client: httpx.AsyncClient) -> None:
        tiny.faults.add("GET,PUT /v3/workspaces/* status=500")
        assert (await client.get("/v3/workspaces/ws1")).status_code == 500
        assert (await client.put("/v3/workspaces/ws1")).status_code == 500
        assert (await client.post(MESSAGES, json={})).status_code == 201

    def test_seeded_fraction_replays_exactly(self) -> None:
        def pattern(seed: int) -> list[bool]:
            faults = Faults()
            faults.add(f"** status=503 rate=0.5 seed={seed}")
            return [faults.match("GET", "/health") is not None for _ in range(200)]

        first = pattern(7)
        assert first == pattern(7)
        assert first != pattern(8)
        assert 0 < sum(first) < 200

    def test_rate_and_times_cap_the_firings(self) -> None:
        faults = Faults()
        fault = faults.add("** drop rate=0.5 times=3")
        fired = [faults.match("GET", "/health") is not None for _ in range(100)]
        assert sum(fired) == 3 == fault.fired
        assert fault.matched == 100

    def test_first_firing_rule_wins_and_control_routes_are_exempt(self) -> None:
        faults = Faults()
        first = faults.add("/v3/** status=503 times=1")
        second = faults.add("** status=500")
        assert faults.match("GET", "/v3/workspaces/w").id == first.id  # type: ignore[union-attr]
        assert faults.match("GET", "/v3/workspaces/w").id == second.id  # type: ignore[union-attr]
        assert faults.match("GET", "/_fake/faults") is None

    async def test_inject_removes_the_rule_afterwards(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        with tiny.faults.inject("** status=502") as fault:
            assert (await client.get("/health")).status_code == 502
            assert [f.id for f in tiny.faults] == [fault.id]
        assert len(tiny.faults) == 0
        assert (await client.get("/health")).status_code == 201

    def test_inject_tolerates_a_clear_inside_the_block(self) -> None:
        faults = Faults()
        with faults.inject("** drop"):
            assert faults.clear() == 1
        assert len(faults) == 0

    async def test_fired_rule_reaches_the_journal_scope(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        fault = tiny.faults.add("POST ** status=503 times=1")
        await client.post(MESSAGES, json={})
        await client.post(MESSAGES, json={})
        assert tiny.seen_faults == [f"{fault.id}: POST ** status=503 times=1", None]

    async def test_dropped_request_reaches_the_journal_scope(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        fault = tiny.faults.add("** drop")
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get("/health")
        assert tiny.seen_faults == [fault.describe()]

    def test_repr_lists_the_rules(self) -> None:
        faults = Faults()
        faults.add("GET /health status=503")
        assert repr(faults) == "<Faults ['GET /health status=503']>"


@pytest.mark.anyio
class TestControlRoutes:
    async def test_add_list_get_remove_clear(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        created = await client.post(
            "/_fake/faults", json={"spec": "POST /v3/** status=503 times=2"}
        )
        assert created.status_code == 201
        body = created.json()
        assert body["spec"] == "POST /v3/** status=503 times=2"
        assert body["rule"] == {"method": "POST", "route": "/v3/**", "status": 503, "times": 2}
        assert (body["matched"], body["fired"], body["remaining"]) == (0, 0, 2)

        by_fields = await client.post("/_fake/faults", json={"route": "/health", "html": True})
        assert by_fields.status_code == 201
        assert (await client.get("/health")).status_code == 200

        await client.post(MESSAGES, json={})
        listed = (await client.get("/_fake/faults")).json()["rules"]
        assert [(rule["id"], rule["fired"]) for rule in listed] == [
            (body["id"], 1),
            (by_fields.json()["id"], 1),
        ]
        assert (await client.get(f"/_fake/faults/{body['id']}")).json()["remaining"] == 1

        assert (await client.delete(f"/_fake/faults/{body['id']}")).status_code == 204
        assert (await client.get(f"/_fake/faults/{body['id']}")).status_code == 404
        assert (await client.delete("/_fake/faults")).json() == {"removed": 1}
        assert (await client.get("/_fake/faults")).json() == {"rules": []}
        assert (await client.get("/health")).status_code == 201

    async def test_control_routes_survive_a_catch_all_rule(
        self, tiny: TinyApp, client: httpx.AsyncClient
    ) -> None:
        await client.post("/_fake/faults", json={"spec": "** drop"})
        assert (await client.get("/_fake/faults")).status_code == 200
        assert (await client.delete("/_fake/faults")).json() == {"removed": 1}

    @pytest.mark.parametrize(
        ("body", "message"),
        [
            (b"{not json", "must be a JSON fault rule"),
            (b"[1, 2]", "must be a JSON object"),
            (b'"** drop"', "must be a JSON object"),
            (b'{"spec": "** explode"}', "option or action 'explode'"),
            (b'{"spec": "** drop", "times": 1}', "either"),
            (
                b'{"route": "/v3/**", "colour": "red", "drop": true}',
                "unknown fault rule field(s): colour",
            ),
            (b'{"route": "/v3/**", "status": "503"}', "'status' has the wrong type"),
            (b'{"route": "/v3/**", "drop": 1}', "'drop' has the wrong type"),
            (b'{"route": "/v3/**", "times": true, "drop": true}', "'times' has the wrong type"),
            (b'{"route": null, "drop": true}', "'route' has the wrong type"),
        ],
    )
    async def test_bad_rules_get_422(
        self, client: httpx.AsyncClient, body: bytes, message: str
    ) -> None:
        response = await client.post("/_fake/faults", content=body)
        assert response.status_code == 422
        assert message in response.json()["detail"]
        assert (await client.get("/_fake/faults")).json() == {"rules": []}

    async def test_unknown_rule_id_is_404(self, client: httpx.AsyncClient) -> None:
        response = await client.delete("/_fake/faults/f99")
        assert (response.status_code, response.json()) == (
            404,
            {"detail": "Fault rule f99 not found"},
        )


class TestUnderUvicorn:
    """``drop`` closes the socket without a response (no 500) when served for real."""

    @pytest.fixture
    def served(self, tiny: TinyApp) -> Iterator[str]:
        # log_config=None: uvicorn's records then reach caplog instead of its own handlers.
        config = uvicorn.Config(
            with_connection_drop(tiny.asgi), host="127.0.0.1", port=0, log_config=None
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            if not thread.is_alive():
                pytest.fail("uvicorn did not start")
            threading.Event().wait(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
        server.should_exit = True
        thread.join(timeout=10)

    def test_drop_closes_the_connection_unanswered(
        self, tiny: TinyApp, served: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        tiny.faults.add("POST ** drop times=1")
        with (
            caplog.at_level(logging.ERROR, logger="uvicorn.error"),
            httpx.Client(base_url=served) as http,
        ):
            with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
                http.post(MESSAGES, json={})
            assert http.post(MESSAGES, json={}).status_code == 201
        assert tiny.served == [f"POST {MESSAGES}"]
        assert not [record for record in caplog.records if record.name.startswith("uvicorn")]

    def test_refuse_also_closes_the_connection(self, tiny: TinyApp, served: str) -> None:
        tiny.faults.add("** refuse times=1")
        with httpx.Client(base_url=served) as http, pytest.raises(httpx.RemoteProtocolError):
            http.get("/health")
