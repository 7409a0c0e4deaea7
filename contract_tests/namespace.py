"""Per-test workspace ids on a shared server, and deleting what a test left behind.

Ids look like ``hc-<run>-<worker>-<test>``: ``run`` is random per pytest run
(shared by every xdist worker), ``worker`` is the xdist worker id, ``test`` a
hash of the node id. So no two tests, workers or runs collide on a real
server, and everything one run created shares the prefix ``hc-<run>-``.
"""

from __future__ import annotations

import hashlib
import logging
import re

import httpx

__all__ = ["delete_workspaces", "list_workspaces", "run_prefix", "workspace_id"]

logger = logging.getLogger("contract_tests")

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


def run_prefix(run_uid: str) -> str:
    return f"hc-{run_uid[:10]}-"


def workspace_id(run_uid: str, worker: str, nodeid: str) -> str:
    """A workspace id unique to this run, worker and test (Honcho's id grammar)."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:12]
    return f"{run_prefix(run_uid)}{_UNSAFE.sub('-', worker)}-{digest}"


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
