"""Webhook endpoints: registration only; the fake never delivers events."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlparse

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError, value_error
from fake_honcho.http.endpoint import fake_of, no_content, public, read_body, respond
from fake_honcho.http.operations import PAGE, SIZE, Answer, Body, api_route
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import IN_WORKSPACE
from fake_honcho.store.resources import fail_if_cached_only, get_workspace, now

W = "/v3/workspaces/{workspace_id}"
WEBHOOK_MAX_WORKSPACE_LIMIT = 10


def _check_url(url: str) -> None:
    """The server's ``validate_webhook_url``, in its order and with its texts."""
    parsed = urlparse(url)
    if not (parsed.scheme and parsed.netloc):
        raise value_error(("body", "url"), "Invalid URL format", url)
    if parsed.scheme not in ("http", "https"):
        raise value_error(("body", "url"), "Only HTTP and HTTPS URLs are allowed", url)
    try:
        address = ipaddress.ip_address(parsed.hostname or "")
    except ValueError:
        return
    if (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    ):
        raise value_error(("body", "url"), "Private/internal IP addresses are not allowed", url)


async def create(request: Request) -> Response:
    """Get-or-create by URL: 201 when new, 200 when already registered; 409 past 10."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, "WebhookEndpointCreate")
    url = body["url"]
    _check_url(url)
    with fake.store.lock:
        fail_if_cached_only(fake, ws)
        get_workspace(fake, ws)
        mine = [row for key, row in fake.store.items("webhooks") if key[0] == ws]
        existing = next((row for row in mine if row["url"] == url), None)
        if existing is not None:
            return respond(request, public(existing), schema="WebhookEndpoint")
        if len(mine) >= WEBHOOK_MAX_WORKSPACE_LIMIT:
            raise HonchoError(
                409,
                f"Maximum number of webhook endpoints ({WEBHOOK_MAX_WORKSPACE_LIMIT}) "
                "reached for this workspace.",
            )
        row = {"id": fake.new_id(), "workspace_id": ws, "url": url, "created_at": now(fake)}
        fake.store.put("webhooks", (ws, row["id"]), row)
    return respond(request, public(row), status=201, schema="WebhookEndpoint")


async def list_webhooks(request: Request) -> Response:
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    params = page_params(request, with_reverse=False)
    with fake.store.lock:
        rows = [row for key, row in fake.store.items("webhooks") if key[0] == ws]
    return respond(request, page_of(rows, params), schema="Page_WebhookEndpoint_")


async def delete(request: Request) -> Response:
    fake = fake_of(request)
    ws, endpoint = request.path_params["workspace_id"], request.path_params["endpoint_id"]
    with fake.store.lock:
        if fake.store.get("webhooks", (ws, endpoint)) is None:
            raise HonchoError(404, f"Webhook endpoint {endpoint} not found for workspace {ws}")
        fake.store.delete("webhooks", (ws, endpoint))
    return no_content()


async def test_event(request: Request) -> Response:
    """Would publish a test event; like the server, it checks no workspace and answers ``null``."""
    return respond(request, None)


routes = [
    api_route(IN_WORKSPACE, "POST", W + "/webhooks", create,
        "get_or_create_webhook_endpoint", "webhooks",
        "Registers a webhook URL for the workspace (at most 10); the fake never calls it.",
        Answer(200, "WebhookEndpoint"), Body("WebhookEndpointCreate")),
    api_route(IN_WORKSPACE, "GET", W + "/webhooks", list_webhooks,
        "list_webhook_endpoints", "webhooks",
        "One page of the workspace's webhook endpoints.",
        Answer(200, "Page_WebhookEndpoint_"), None, PAGE, SIZE),
    api_route(IN_WORKSPACE, "GET", W + "/webhooks/test", test_event,
        "test_emit", "webhooks",
        "Asks for a test event to be sent to the workspace's endpoints.",
        Answer(200)),
    api_route(IN_WORKSPACE, "DELETE", W + "/webhooks/{endpoint_id}", delete,
        "delete_webhook_endpoint", "webhooks",
        "Removes a webhook endpoint.",
        Answer(204, empty=True)),
]  # fmt: skip
