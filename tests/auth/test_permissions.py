"""Every route declares its permission rule, and docs/permissions.md is generated from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_honcho.http.auth import OPEN_PATHS
from fake_honcho.http.permissions import rule_of
from fake_honcho.permissions import render_markdown
from fake_honcho.routes import collect_routes
from fake_honcho.versions import VERSIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "permissions.md"


@pytest.mark.parametrize("version", VERSIONS)
def test_every_guarded_route_declares_its_rule(version: str) -> None:
    unguarded = [
        getattr(route, "path", route)
        for route in collect_routes(version)
        if rule_of(route) is None and getattr(route, "path", "") not in OPEN_PATHS
    ]
    assert unguarded == []


def test_the_permission_table_is_generated_from_the_declarations() -> None:
    assert DOC.read_text() == render_markdown(), (
        "docs/permissions.md is stale: python -m fake_honcho.permissions > docs/permissions.md"
    )
