"""The OpenAPI documents real Honcho servers publish, recorded and committed here.

Tests compare against these instead of any file outside the repository: a user's clone
and CI have no real server. ``python -m tests.openapi.record URL`` re-records one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def document_path(version: str = "3.0.12") -> Path:
    """Where the recorded document of Honcho ``version`` is kept."""
    return HERE / f"honcho-{version}.json"


def document(version: str = "3.0.12") -> dict[str, Any]:
    """The recorded OpenAPI document of Honcho ``version``."""
    loaded: dict[str, Any] = json.loads(document_path(version).read_text(encoding="utf-8"))
    return loaded
