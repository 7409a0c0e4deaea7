"""Record a real Honcho's ``/openapi.json`` into ``tests/openapi/honcho-<version>.json``.

``python -m tests.openapi.record http://127.0.0.1:18000`` (the version is the one the
server's ``info.version`` names). The prose (descriptions, summaries, titles) is left
out: the tests compare structure (paths, operations, parameters, bodies, schemas,
limits, examples), and the file stays small.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx

from tests.openapi import document_path

PROSE = frozenset({"description", "summary", "title"})


def trim(node: Any, parent: str | None = None) -> Any:
    """``node`` without prose; a schema property that happens to be named so is kept."""
    if isinstance(node, dict):
        return {
            key: trim(value, key)
            for key, value in node.items()
            if not (key in PROSE and isinstance(value, str) and parent != "properties")
        }
    if isinstance(node, list):
        return [trim(item) for item in node]
    return node


def main(argv: list[str]) -> int:
    (url,) = argv
    published = httpx.get(f"{url.rstrip('/')}/openapi.json", timeout=30).raise_for_status().json()
    version = published["info"]["version"]
    trimmed = trim(published)
    trimmed["info"] = {"version": version, "recorded_from": "GET /openapi.json"}
    path = document_path(version)
    path.write_text(json.dumps(trimmed, indent=1) + "\n", encoding="utf-8")
    print(f"{path}: {len(trimmed['paths'])} paths")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
