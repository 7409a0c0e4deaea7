"""The in-process transports: fidelity of the ASGI exchange, loops, threads, streaming."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor

import anyio
import anyio.lowlevel
import anyio.to_thread
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, StreamingResponse
from starlette.routing import Route

from fake_honcho.http.server import serve_in_thread
from fake_honcho.http.transport import AsyncASGITransport, SyncASGITransport


async def echo(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "method": request.method,
            "path": request.url.path,
            "raw_path": request.scope["raw_path"].decode(),
            "query": request.url.query,
            "body": (await request.body()).decode(),
            "headers": {k: v for k, v in request.headers.items() if k.startswith("x-")},
        },
        status_code=201,
        headers={"x-reply": "yes"},
    )


async def sse(request: Request) -> StreamingResponse:
    async def events() -> AsyncIterator[str]:
        for n in range(3):
            await anyio.sleep(0)
            yield f"data: {n}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


def blocking(request: Request) -> PlainTextResponse:
    """A sync endpoint: Starlette runs it in a worker thread of the running loop."""
    return PlainTextResponse(threading.current_thread().name)


async def sleepy(request: Request) -> PlainTextResponse:
    await asyncio.sleep(0.001)
    return PlainTextResponse("slept")


async def boom(request: Request) -> PlainTextResponse:
    if "late" in request.query_params:
        await asyncio.sleep(0.001)  # fail after the hand-off to the loop
    raise RuntimeError("fake bug")


request_tag: contextvars.ContextVar[str] = contextvars.ContextVar("request_tag", default="unset")


async def tagged(request: Request) -> PlainTextResponse:
    before = request_tag.get()
    request_tag.set("set by the app")
    return PlainTextResponse(before)


async def scoped(request: Request) -> PlainTextResponse:
    """Task-bound anyio machinery after a checkpoint: a cancel scope and a worker thread."""
    await anyio.lowlevel.checkpoint()
    with anyio.fail_after(5):
        name = await anyio.to_thread.run_sync(lambda: threading.current_thread().name)
    return PlainTextResponse(name)


async def woken(request: Request) -> PlainTextResponse:
    """Waits on an asyncio.Event that another thread sets through the loop."""
    event = asyncio.Event()
    loop = asyncio.get_running_loop()
    threading.Timer(0.01, loop.call_soon_threadsafe, args=(event.set,)).start()
    await event.wait()
    return PlainTextResponse("woken")


app = Starlette(
    routes=[
        Route("/echo/{rest:path}", echo, methods=["GET", "POST", "PUT"]),
        Route("/sse", sse),
        Route("/blocking", blocking),
        Route("/sleepy", sleepy),
        Route("/boom", boom),
        Route("/tagged", tagged),
        Route("/scoped", scoped),
        Route("/woken", woken),
    ]
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(transport=SyncASGITransport(app), base_url="http://fake") as client:
        yield client


def test_sync_transport_passes_method_path_query_body_and_headers(client: httpx.Client) -> None:
    response = client.post(
        "/echo/a%20b", params={"page": 2, "q": "x y"}, json={"k": 1}, headers={"X-Test": "1"}
    )
    assert response.status_code == 201
    assert response.headers["x-reply"] == "yes"
    assert response.json() == {
        "method": "POST",
        "path": "/echo/a b",
        "raw_path": "/echo/a%20b",
        "query": "page=2&q=x+y",
        "body": '{"k":1}',
        "headers": {"x-test": "1"},
    }


def test_sync_transport_buffers_a_streamed_response_whole(client: httpx.Client) -> None:
    response = client.get("/sse")
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.text == "data: 0\n\ndata: 1\n\ndata: 2\n\n"


def test_sync_transport_runs_sync_endpoints_and_real_awaits(client: httpx.Client) -> None:
    assert client.get("/blocking").text != threading.current_thread().name
    assert client.get("/sleepy").text == "slept"


@pytest.mark.parametrize("params", [{}, {"late": "1"}])
def test_app_exceptions_raise_by_default_or_become_the_500(params: dict[str, str]) -> None:
    loud = SyncASGITransport(app)
    with (
        httpx.Client(transport=loud, base_url="http://fake") as client,
        pytest.raises(RuntimeError, match="fake bug"),
    ):
        client.get("/boom", params=params)
    quiet = SyncASGITransport(app, raise_app_exceptions=False)
    with httpx.Client(transport=quiet, base_url="http://fake") as client:
        assert client.get("/boom", params=params).status_code == 500


def test_requests_that_really_wait_are_finished_on_the_loop(client: httpx.Client) -> None:
    assert client.get("/scoped").text != threading.current_thread().name
    assert client.get("/woken").text == "woken"
    assert client.get("/sleepy").text == "slept"


def test_context_variables_set_by_the_app_do_not_leak_into_the_caller(
    client: httpx.Client,
) -> None:
    request_tag.set("caller")
    assert client.get("/tagged").text == "caller"
    assert client.get("/tagged").text == "caller"
    assert request_tag.get() == "caller"


def test_one_loop_per_calling_thread_reused_across_requests(client: httpx.Client) -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def record_loop(scope: object, receive: object, send: object) -> None:
        loops.append(asyncio.get_running_loop())
        await app(scope, receive, send)  # type: ignore[arg-type]

    with httpx.Client(transport=SyncASGITransport(record_loop), base_url="http://f") as other:
        for _ in range(3):
            other.get("/sleepy")
        with ThreadPoolExecutor(1) as worker:
            assert worker.submit(other.get, "/sleepy").result().text == "slept"
    assert loops[0] is loops[1] is loops[2]
    assert loops[3] is not loops[0]


@pytest.mark.anyio
async def test_sync_client_inside_a_running_loop_uses_the_background_loop() -> None:
    transport = SyncASGITransport(app)
    with httpx.Client(transport=transport, base_url="http://fake") as client:
        assert client.get("/sleepy").text == "slept"
        assert client.post("/echo/x", content=b"abc").json()["body"] == "abc"
    # close() stopped the background loop's thread
    assert transport._background is None


def test_concurrent_threads_share_one_transport(client: httpx.Client) -> None:
    def call(n: int) -> str:
        return str(client.post(f"/echo/{n}", content=str(n).encode()).json()["body"])

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(call, range(64)), key=int) == [str(n) for n in range(64)]


@pytest.mark.anyio
async def test_async_transport_runs_on_the_callers_loop() -> None:
    transport = AsyncASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://fake") as client:
        replies = await asyncio.gather(
            *(client.put(f"/echo/{n}", json=n) for n in range(20)), client.get("/sse")
        )
    assert [r.json()["body"] for r in replies[:20]] == [str(n) for n in range(20)]
    assert replies[20].text.count("data:") == 3


@pytest.mark.anyio
@pytest.mark.parametrize("body", [b"", b"x" * 200_000])
async def test_async_transport_request_bodies(body: bytes) -> None:
    async with httpx.AsyncClient(transport=AsyncASGITransport(app), base_url="http://f") as c:
        reply = await c.post("/echo/", content=body)
    assert len(reply.json()["body"]) == len(body)


def test_serve_streams_chunks_as_the_app_sends_them() -> None:
    """The second event is only produced once the client has received the first."""
    first_seen = threading.Event()

    async def handshake(request: Request) -> StreamingResponse:
        async def events() -> AsyncIterator[str]:
            yield "data: first\n\n"
            while not first_seen.is_set():
                await anyio.sleep(0.005)
            yield "data: second\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    streaming_app = Starlette(routes=[Route("/stream", handshake)])
    with (
        serve_in_thread(streaming_app) as base_url,
        httpx.stream("GET", f"{base_url}/stream", timeout=10) as response,
    ):
        lines = []
        for line in response.iter_lines():
            if line:
                lines.append(line)
                first_seen.set()
    assert lines == ["data: first", "data: second"]
