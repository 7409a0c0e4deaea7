"""Per-test workspace ids on a shared server, and deleting what a test left behind.

Ids look like ``hc-<run>-<worker>-<test>``: ``run`` is random per pytest run
(shared by every xdist worker), ``worker`` is the xdist worker id, ``test`` a
hash of the node id. So no two tests, workers or runs collide on a real
server, and everything one run created shares the prefix ``hc-<run>-``.
"""

from __future__ import annotations

import hashlib
import re

from fake_honcho.drift.cleanup import delete_workspaces, list_workspaces

__all__ = ["delete_workspaces", "list_workspaces", "run_prefix", "workspace_id"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


def run_prefix(run_uid: str) -> str:
    return f"hc-{run_uid[:10]}-"


def workspace_id(run_uid: str, worker: str, nodeid: str) -> str:
    """A workspace id unique to this run, worker and test (Honcho's id grammar)."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:12]
    return f"{run_prefix(run_uid)}{_UNSAFE.sub('-', worker)}-{digest}"
