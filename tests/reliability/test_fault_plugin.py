"""The ``honcho_fault`` marker and ``honcho_faults`` fixture, run through pytester."""

from __future__ import annotations

import pytest

TESTS = """
import httpx
import pytest

from fake_honcho.harness.faults import FaultRule


def health(target):
    with target.client() as client:
        return client.get("/health").status_code


@pytest.mark.honcho_fault("GET /health status=503 times=2")
def test_marker_without_fixture(honcho_target):
    assert [health(honcho_target) for _ in range(3)] == [503, 503, 200]
    assert [entry.fault is not None for entry in honcho_target.fake.requests] == [True, True, False]


@pytest.mark.honcho_fault(route="/health", status=429, retry_after=0)
@pytest.mark.honcho_fault(FaultRule(route="/health", status=502, times=1))
def test_closest_marker_first_and_keyword_rules(honcho_target, honcho_faults):
    assert [health(honcho_target) for _ in range(2)] == [502, 429]
    assert [fault.rule.status for fault in honcho_faults] == [502, 429]


def test_fixture_alone(honcho_target, honcho_faults):
    honcho_faults.add("GET /health html times=1")
    with honcho_target.client() as client:
        assert client.get("/health").headers["content-type"].startswith("text/html")


@pytest.mark.honcho_fault("GET /health explode")
def test_bad_marker(honcho_target):
    pass


@pytest.mark.honcho_fault
def test_empty_marker(honcho_target):
    pass
"""


def test_marker_and_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_faults=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*bad honcho_fault marker: unknown fault rule option or action 'explode'*",
            "*bad honcho_fault marker: the marker names no rule*",
        ]
    )


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.honcho_fault(*rules, **fields):*"])


def test_skipped_against_a_real_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_real="""
import pytest

@pytest.mark.honcho_fault("GET /health status=503")
def test_needs_faults(honcho_faults):
    pass
"""
    )
    # Override the target so no real server is contacted: a target without a fake.
    pytester.makeconftest(
        """
import pytest
from contract_tests.target import HonchoTarget

@pytest.fixture
def honcho_target():
    return HonchoTarget("http://honcho.invalid")
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*fault injection needs the in-process fake*"])
