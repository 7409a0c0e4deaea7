"""``POST /v3/keys``: JWT minting, which a server with auth off refuses."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho.errors import HonchoError


async def create_key(request: Request) -> Response:
    """405 "Feature is disabled", as a real Honcho with ``AUTH_USE_AUTH=false``.

    With auth on, the runtime's auth layer answers this route before it gets here.
    """
    raise HonchoError(405, "Feature is disabled")


routes = [Route("/v3/keys", create_key, methods=["POST"])]
