"""The verbs scripts are written in: one :class:`Step` per request, and the paths they share."""

from __future__ import annotations

from typing import Any

from fake_honcho.drift.exchange import Step

__all__ = ["S", "W", "delete", "get", "post", "put"]

W = "/v3/workspaces/{ws}"
"""The script's workspace."""
S = W + "/sessions"


def get(path: str, **kw: Any) -> Step:
    return Step("GET", path, **kw)


def post(path: str, json: Any = None, **kw: Any) -> Step:
    return Step("POST", path, json=json, **kw)


def put(path: str, json: Any = None, **kw: Any) -> Step:
    return Step("PUT", path, json=json, **kw)


def delete(path: str, json: Any = None, **kw: Any) -> Step:
    return Step("DELETE", path, json=json, **kw)
