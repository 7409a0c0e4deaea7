"""The recorded exchanges (tests/fidelity/exchanges/<version>/, each from a real server of
that version) replayed against the fake speaking that version: one test per version and
script, failing with each exchange that answers differently.

Re-record with ``fake-honcho compare --against URL --honcho-version V --record
tests/fidelity/exchanges/V`` (``--script`` for each script of ``SCRIPTS``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.routing import Route

from fake_honcho import FakeHoncho
from fake_honcho.drift.recording import declared_at, parse_configuration, replay
from fake_honcho.drift.scripts import SCRIPTS
from fake_honcho.harness.divergences import divergence
from fake_honcho.versions import VERSIONS
from tests.fidelity.recorded import assert_recorded_as_written, by_name, recorded_cases

EXCHANGES = Path(__file__).parent / "exchanges"
RECORDINGS = by_name(EXCHANGES)


@pytest.mark.parametrize(("version", "name"), recorded_cases(RECORDINGS))
def test_fake_answers_as_the_real_server_did(version: str, name: str) -> None:
    """Every exchange equal, except those a register entry declares; and those must still
    differ (a declaration the fake no longer needs is stale)."""
    recording = RECORDINGS[version][name]
    found = replay(recording)
    undeclared = [difference for difference in found if not difference.declared]
    assert not undeclared, f"{name}: the fake differs from {recording.server}\n" + "\n".join(
        difference.render() for difference in undeclared
    )
    for step in recording.script.steps:
        if step.divergence:
            divergence(step.divergence)  # KeyError naming the known ids if it is not declared
    differing = {difference.index for difference in found}
    stale = [
        f"[{i}] {step.note or step.path} ({step.divergence})"
        for i, step in enumerate(recording.script.steps)
        if declared_at(step, parse_configuration(version)[0]) and i not in differing
    ]
    assert not stale, f"{name}: declared but now equal: {stale}"


@pytest.mark.parametrize("version", sorted(RECORDINGS))
def test_every_script_is_recorded_as_it_is_written(version: str) -> None:
    """Changing a script without re-recording it would replay an old request."""
    assert_recorded_as_written(RECORDINGS[version], SCRIPTS, parse_configuration(version)[0])


# Routes no script sends, and why (their behaviour is checked elsewhere).
UNSCRIPTED = {
    ("POST", "/v3/workspaces/{workspace_id}/search"): "search ranking: tests/fidelity/search",
    ("POST", "/v3/workspaces/{workspace_id}/peers/{peer_id}/search"): "search ranking",
    ("POST", "/v3/workspaces/{workspace_id}/sessions/{session_id}/search"): "search ranking",
    ("POST", "/v3/workspaces/{workspace_id}/peers/{peer_id}/chat"): "needs an LLM",
    ("POST", "/v3/workspaces/{workspace_id}/conclusions/query"): "needs embeddings",
    ("GET", "/openapi.json"): "our own prose: its structure in tests/fidelity/test_openapi.py",
    ("GET", "/docs"): "an HTML page of our own (tests/fidelity/test_openapi.py)",
    ("GET", "/redoc"): "an HTML page of our own (tests/fidelity/test_openapi.py)",
}
_PARAM = re.compile(r"\{[^}]+\}")


@pytest.mark.parametrize("version", list(VERSIONS))
def test_every_route_of_the_fake_is_scripted(version: str) -> None:
    """Each (method, route) the fake serves is sent by some script, or named above."""
    with FakeHoncho(version=version) as fake:
        operations = {
            (method, route.path)
            for route in fake.core_app.routes
            if isinstance(route, Route) and not route.path.startswith("/_fake/")
            for method in route.methods or ()
            if method != "HEAD"
        }
    patterns = {op: re.compile(_PARAM.sub("[^/]+", op[1]) + "$") for op in operations}
    sent = {(step.method, step.path) for script in SCRIPTS for step in script.steps}
    unsent = sorted(
        op
        for op, pattern in patterns.items()
        if op not in UNSCRIPTED
        and not any(method == op[0] and pattern.match(path) for method, path in sent)
    )
    assert unsent == []
