"""``/_fake/...``: the served fake's control routes (see ``fake_honcho.harness.control``).

Beside ``/_fake/faults``, behind auth like every route but ``/health``, never faulted:

- ``GET /_fake/about``: ``{"server": "fake-honcho", "version", "honcho_version"}``, how
  a client tells a served fake from a real server (which answers 404);
- ``GET /_fake/deriver``: ``{"mode", "queued", "failed"}``;
- ``POST /_fake/deriver/step`` ``{"count": 1}``: run queued units, ``{"ran", "queued"}``;
- ``POST /_fake/deriver/drain`` ``{"timeout": 30}``: run until idle, or 408 at the timeout;
- ``GET /_fake/embeddings``: ``{"embed_messages", "mode", "pending"}``;
- ``POST /_fake/embeddings/release``: write the held embeddings, ``{"released"}``;
- ``POST /_fake/reset``: forget everything (204);
- ``GET /_fake/state``: the state as a state file; ``PUT /_fake/state``: load one (a seed);
- ``GET /_fake/journal``: ``{"requests": [...]}``; ``DELETE /_fake/journal``: ``{"removed"}``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fake_honcho.harness import control
from fake_honcho.harness.persistence import StateFileError
from fake_honcho.http.permissions import ADMIN_ONLY, guarded

DEFAULT_DRAIN_TIMEOUT = 30.0


async def _option(request: Request, name: str, default: float, *, integer: bool) -> float:
    """One number from an optional JSON object body (``{}`` or no body: ``default``)."""
    raw = await request.body()
    try:
        body = json.loads(raw) if raw.strip() else {}
    except ValueError:
        raise ValueError("the body must be a JSON object") from None
    if not isinstance(body, dict) or set(body) - {name}:
        raise ValueError(f'the body must be {{}} or {{"{name}": <number>}}')
    value = body.get(name, default)
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return value


async def _in_thread(work: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """``work(*args, stop=stop)`` on a worker thread, so the event loop keeps serving meanwhile.

    If the request is cancelled (shutdown), ``stop`` is set and the thread is left to
    notice it at its next unit instead of holding the shutdown up until it is done.
    """
    stop = threading.Event()
    try:
        return await anyio.to_thread.run_sync(
            partial(work, *args, stop=stop), abandon_on_cancel=True
        )
    except anyio.get_cancelled_exc_class():
        stop.set()
        raise


def _error(status: int, detail: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"detail": detail, **extra}, status_code=status)


async def get_deriver(request: Request) -> Response:
    return JSONResponse(control.deriver_status(control.harness_of(request)))


async def step_deriver(request: Request) -> Response:
    try:
        count = int(await _option(request, "count", 1, integer=True))
        return JSONResponse(await _in_thread(control.step, control.harness_of(request), count))
    except ValueError as error:  # a bad body, or a count control.step refuses
        return _error(422, str(error))


async def drain_deriver(request: Request) -> Response:
    try:
        timeout = await _option(request, "timeout", DEFAULT_DRAIN_TIMEOUT, integer=False)
        result = await _in_thread(control.drain, control.harness_of(request), timeout)
    except ValueError as error:  # a bad body, or a timeout control.drain refuses
        return _error(422, str(error))
    return JSONResponse(result, status_code=200 if result["idle"] else 408)


async def get_embeddings(request: Request) -> Response:
    return JSONResponse(control.embeddings_status(control.harness_of(request)))


async def release_embeddings(request: Request) -> Response:
    return JSONResponse(control.release_embeddings(control.harness_of(request)))


async def reset(request: Request) -> Response:
    control.harness_of(request).reset()
    return Response(status_code=204)


async def get_state(request: Request) -> Response:
    return Response(
        control.export_state(control.harness_of(request)), media_type=control.STATE_MEDIA_TYPE
    )


async def put_state(request: Request) -> Response:
    data = await request.body()
    try:
        loaded = await anyio.to_thread.run_sync(
            control.load_state, control.harness_of(request), data
        )
    except StateFileError as error:
        return _error(422, str(error))
    return JSONResponse(loaded)


async def get_about(request: Request) -> Response:
    return JSONResponse(control.about(control.harness_of(request)))


async def get_journal(request: Request) -> Response:
    return JSONResponse({"requests": control.journal(control.harness_of(request))})


async def clear_journal(request: Request) -> Response:
    return JSONResponse(control.clear_journal(control.harness_of(request)))


routes = [
    guarded(ADMIN_ONLY, Route("/_fake/about", get_about, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/deriver", get_deriver, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/deriver/step", step_deriver, methods=["POST"])),
    guarded(ADMIN_ONLY, Route("/_fake/deriver/drain", drain_deriver, methods=["POST"])),
    guarded(ADMIN_ONLY, Route("/_fake/embeddings", get_embeddings, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/embeddings/release", release_embeddings, methods=["POST"])),
    guarded(ADMIN_ONLY, Route("/_fake/reset", reset, methods=["POST"])),
    guarded(ADMIN_ONLY, Route("/_fake/state", get_state, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/state", put_state, methods=["PUT"])),
    guarded(ADMIN_ONLY, Route("/_fake/journal", get_journal, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/journal", clear_journal, methods=["DELETE"])),
]
