"""Deleting the workspaces a run left on a server (sessions first, as Honcho requires)."""

from __future__ import annotations

import logging

import httpx

__all__ = ["delete_workspaces", "list_workspaces"]

logger = logging.getLogger("fake_honcho.drift")


def list_workspaces(client: httpx.Client, prefix: str) -> list[str]:
    """Ids of every workspace whose id starts with ``prefix`` (admin route; paginated)."""
    found: list[str] = []
    page = 1
    while True:
        response = client.post(
            "/v3/workspaces/list",
            params={"page": page, "size": 100},
            json={"filters": {"id": {"contains": prefix}}},
        )
        response.raise_for_status()
        body = response.json()
        found.extend(item["id"] for item in body["items"] if item["id"].startswith(prefix))
        if page >= body.get("pages", 0):
            return found
        page += 1


def _session_ids(client: httpx.Client, workspace: str) -> list[str]:
    ids: list[str] = []
    page = 1
    while True:
        response = client.post(
            f"/v3/workspaces/{workspace}/sessions/list", params={"page": page, "size": 100}
        )
        if response.status_code == 404:
            return ids
        response.raise_for_status()
        body = response.json()
        ids.extend(item["id"] for item in body["items"])
        if page >= body.get("pages", 0):
            return ids
        page += 1


def delete_workspaces(client: httpx.Client, prefix: str) -> list[str]:
    """Delete every workspace under ``prefix``; sessions first (workspace delete is 409 while
    active sessions remain). Returns the deleted ids; failures are logged, not raised, so one
    stuck workspace does not hide the others."""
    deleted: list[str] = []
    for workspace in list_workspaces(client, prefix):
        try:
            for session in _session_ids(client, workspace):
                client.delete(f"/v3/workspaces/{workspace}/sessions/{session}")
            response = client.delete(f"/v3/workspaces/{workspace}")
            if response.status_code in (200, 202, 204, 404):
                deleted.append(workspace)
            else:
                logger.warning(
                    "could not delete workspace %s: HTTP %s", workspace, response.status_code
                )
        except httpx.HTTPError as exc:
            logger.warning("could not delete workspace %s: %s", workspace, type(exc).__name__)
    return deleted
