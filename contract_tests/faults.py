"""Fault injection in contract tests: the ``honcho_fault`` marker and ``honcho_faults`` fixture.

::

    @pytest.mark.honcho_fault("POST /v3/workspaces/*/sessions/*/messages status=503 times=2")
    def test_write_survives_a_blip(honcho_target, honcho_faults): ...

    def test_slow_reads(honcho_target, honcho_faults):
        honcho_faults.add("GET ** latency=200ms")

A marker takes rules in the fault rule syntax (the Faults section of
docs/testing-a-client.md: ``[METHOD] ROUTE ACTION [times=N]``), ``FaultRule``
objects, or one rule's fields as keywords (``route="/v3/**", status=429``); a test
with the marker gets the fixture without asking for it. Rules are tried closest
marker first and removed after the test. Against a real server (``--honcho-url``)
faults cannot be injected, so such tests are skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

# fake_honcho.harness.faults (starlette) is imported when a test uses faults: this plugin
# loads in every pytest run of a host project.
if TYPE_CHECKING:
    from contract_tests.target import HonchoTarget
    from fake_honcho.harness.faults import FaultRule, Faults

__all__ = ["honcho_faults"]

MARKER = "honcho_fault"
MARKER_HELP = (
    "honcho_fault(*rules, **fields): inject these fake_honcho.harness.faults rules into the "
    "in-process fake for this test (e.g. 'POST /v3/** status=503 times=2'); skipped against a real "
    "server."
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test with the marker uses ``honcho_faults`` even when it does not request it."""
    for item in items:
        fixturenames: list[str] | None = getattr(item, "fixturenames", None)
        if item.get_closest_marker(MARKER) is None or fixturenames is None:
            continue
        if "honcho_faults" not in fixturenames:
            fixturenames.append("honcho_faults")


def _marker_rules(mark: pytest.Mark) -> list[FaultRule]:
    from fake_honcho.harness.faults import FaultRule, parse_rule

    rules: list[FaultRule] = []
    for arg in mark.args:
        if isinstance(arg, FaultRule):
            rules.append(arg)
        elif isinstance(arg, str):
            rules.append(parse_rule(arg))
        else:
            raise ValueError(f"expected a rule string or FaultRule, got {arg!r}")
    if mark.kwargs:
        rules.append(FaultRule(**mark.kwargs))
    if not rules:
        raise ValueError("the marker names no rule")
    return rules


@pytest.fixture
def honcho_faults(request: pytest.FixtureRequest, honcho_target: HonchoTarget) -> Iterator[Faults]:
    """The fake's fault rules (``fake.faults``), preloaded from ``honcho_fault`` markers."""
    if honcho_target.fake is None:
        pytest.skip("fault injection needs the in-process fake (not available with --honcho-url)")
    faults = honcho_target.fake.faults
    for mark in request.node.iter_markers(MARKER):
        try:
            rules = _marker_rules(mark)
        except (TypeError, ValueError) as exc:
            pytest.fail(f"{request.node.nodeid}: bad honcho_fault marker: {exc}", pytrace=False)
        for rule in rules:
            faults.add(rule)
    try:
        yield faults
    finally:
        faults.clear()
