"""A small synchronous Honcho v3 client: one ``httpx.Client``, escaped paths, one error type."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from .config import HonchoConfig

__all__ = ["HonchoClient", "HonchoRequestError"]

_DETAIL_CHARS = 200
logger = logging.getLogger("honcho_backend")


class HonchoRequestError(RuntimeError):
    """A Honcho call failed: transport error, non-2xx status or a non-JSON 2xx body.

    Constructible from a message alone, as DeerFlow's own client raises it.
    ``status`` is ``None`` when no response arrived. ``reached_server`` is
    ``False`` only when the connection was never established, i.e. the server
    cannot have processed the request.
    """

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        path: str | None = None,
        status: int | None = None,
        reached_server: bool = True,
    ) -> None:
        super().__init__(message)
        self.method = method
        self.path = path
        self.status = status
        self.reached_server = reached_server

    @classmethod
    def for_request(
        cls,
        method: str,
        path: str,
        status: int | None,
        reason: str,
        *,
        reached_server: bool = True,
    ) -> HonchoRequestError:
        """The error for one request, its message naming the method, path and status."""
        where = f"{method} {path}" + (f" -> {status}" if status is not None else "")
        return cls(
            f"Honcho request failed: {where}: {reason}",
            method=method,
            path=path,
            status=status,
            reached_server=reached_server,
        )


def _segment(value: str) -> str:
    return quote(value, safe="")


def _workspace_path(workspace: str) -> str:
    return f"/v3/workspaces/{_segment(workspace)}"


def _session_path(workspace: str, session_id: str) -> str:
    return f"{_workspace_path(workspace)}/sessions/{_segment(session_id)}"


def _dumps(payload: Any) -> bytes:
    # Compact separators and raw UTF-8 keep the wire cost close to the content size.
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class HonchoClient:
    """The handful of Honcho routes the memory backend needs.

    ``transport`` replaces the network (``httpx.MockTransport`` or the fake's
    transport in tests). A request that fails before a connection exists is
    retried once; nothing is retried after the server may have seen it.

    The six methods of DeerFlow's own Honcho client are public API here too, with
    its names, parameters and return values (``get_or_create_peer``,
    ``get_or_create_session``, ``set_session_peers``, ``add_messages``,
    ``working_representation``, ``search``), so code written against it works.
    """

    def __init__(self, config: HonchoConfig, *, transport: httpx.BaseTransport | None = None):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._secret = config.api_key
        self._server = config.server
        self._unreachable = False  # in a streak of failed connections (logged once)
        self._streak_lock = threading.Lock()
        self._http = httpx.Client(
            base_url=config.base_url,
            headers=headers,
            timeout=httpx.Timeout(config.timeout_seconds, connect=config.connect_timeout_seconds),
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"HonchoClient(base_url={str(self._http.base_url)!r})"

    @property
    def closed(self) -> bool:
        return self._http.is_closed

    def close(self) -> None:
        self._http.close()

    # -- routes ---------------------------------------------------------------

    def health(self) -> Any:
        """``GET /health``."""
        return self._request("GET", "/health")

    def get_or_create_workspace(self, workspace: str) -> Any:
        """``POST /v3/workspaces``: 201 when created, 200 when it existed."""
        return self._request("POST", "/v3/workspaces", {"id": workspace})

    def get_or_create_peer(self, workspace: str, peer_id: str) -> None:
        """``POST .../peers``: creates the peer (and its workspace) unless it exists."""
        self._request("POST", f"{_workspace_path(workspace)}/peers", {"id": peer_id})

    def get_or_create_session(
        self, workspace: str, session_id: str, peer_ids: Iterable[str] = ()
    ) -> None:
        """``POST .../sessions``; the ``peers`` map creates and joins the peers in the same call."""
        payload: dict[str, Any] = {"id": session_id}
        peers: dict[str, dict[str, Any]] = {peer: {} for peer in peer_ids}
        if peers:
            payload["peers"] = peers
        self._request("POST", f"{_workspace_path(workspace)}/sessions", payload)

    def set_session_peers(self, workspace: str, session_id: str, peer_ids: list[str]) -> None:
        """``POST .../sessions/{id}/peers``: adds the peers (creating them) to the session."""
        self._request(
            "POST",
            f"{_session_path(workspace, session_id)}/peers",
            {peer: {} for peer in peer_ids},
        )

    def newest_messages(self, workspace: str, session_id: str, *, size: int = 100) -> list[Any]:
        """The session's newest messages, newest first (an unknown session has none)."""
        page = self._request(
            "POST",
            f"{_session_path(workspace, session_id)}/messages/list",
            {},
            params={"reverse": "true", "size": str(size), "page": "1"},
        )
        items = page.get("items") if isinstance(page, Mapping) else None
        return list(items) if isinstance(items, list) else []

    def add_messages(
        self, workspace: str, session_id: str, messages: Sequence[Mapping[str, Any]]
    ) -> None:
        """``POST .../messages`` with one batch (Honcho accepts 1..100 messages)."""
        self._request(
            "POST",
            f"{_session_path(workspace, session_id)}/messages",
            {"messages": list(messages)},
        )

    def working_representation(
        self, workspace: str, peer_id: str, *, max_conclusions: int | None = None
    ) -> str:
        """The peer's representation text (``""`` when Honcho has none).

        ``max_conclusions`` is sent only when given: Honcho applies it only
        together with ``search_query``, and the host's recall path has no query,
        so the backend sends an empty body.
        """
        payload = {} if max_conclusions is None else {"max_conclusions": max_conclusions}
        data = self._request(
            "POST",
            f"{_workspace_path(workspace)}/peers/{_segment(peer_id)}/representation",
            payload,
        )
        text = data.get("representation") if isinstance(data, Mapping) else None
        return text if isinstance(text, str) else ""

    def search(
        self,
        workspace: str,
        query: str,
        *,
        limit: int = 5,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        """``POST .../search``: messages in the workspace, best match first."""
        payload: dict[str, Any] = {"query": query, "limit": limit}
        if filters:
            payload["filters"] = dict(filters)
        data = self._request("POST", f"{_workspace_path(workspace)}/search", payload)
        return list(data) if isinstance(data, list) else []

    # -- transport --------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        payload: Any = None,
        *,
        params: Mapping[str, str] | None = None,
    ) -> Any:
        body = None if payload is None else _dumps(payload)
        response = self._send(method, path, body, params)
        if response.is_error:
            raise HonchoRequestError.for_request(
                method, path, response.status_code, self._detail(response.text)
            )
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise HonchoRequestError.for_request(
                method, path, response.status_code, "response is not JSON"
            ) from None

    def _send(
        self, method: str, path: str, body: bytes | None, params: Mapping[str, str] | None
    ) -> httpx.Response:
        try:
            response = self._http.request(method, path, content=body, params=params)
        except httpx.ConnectError:
            pass  # refused or unresolvable: the request never left, so one retry is safe
        except httpx.HTTPError as exc:
            raise self._transport_error(method, path, exc) from None
        else:
            self._connected(True)
            return response
        try:
            response = self._http.request(method, path, content=body, params=params)
        except httpx.HTTPError as exc:
            raise self._transport_error(method, path, exc) from None
        self._connected(True)
        return response

    def _connected(self, connected: bool) -> None:
        """Log the first failed connection of a streak, naming the server and where its URL
        came from; the requests that fail after it say only what failed."""
        with self._streak_lock:
            first_failure = not connected and not self._unreachable
            self._unreachable = not connected
        if first_failure:
            logger.warning(
                "Honcho backend: cannot connect to Honcho at %s; start it there, or point "
                "base_url at it (said once until a request gets through)",
                self._server,
            )

    def _transport_error(self, method: str, path: str, exc: Exception) -> HonchoRequestError:
        reached = not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
        if not reached:
            self._connected(False)
        reason = f"{type(exc).__name__}: {self._detail(str(exc))}"
        return HonchoRequestError.for_request(method, path, None, reason, reached_server=reached)

    def _detail(self, text: str) -> str:
        """Shorten server or transport text and scrub the api key from it."""
        if self._secret:
            text = text.replace(self._secret, "[redacted]")
        return text.strip()[:_DETAIL_CHARS] or "(empty)"
