"""Proof of power and of precision: the contract suite catches every deliberately broken
backend, with a verdict that says what a user sees, and raises no false alarm on backends
that keep DeerFlow's rules in their own way (as its noop and DeerMem do)."""

from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path

import pytest

from .broken_backends import MUTANTS

INNER = """
import pytest
from contract_tests import MemoryManagerContract
from broken_backends import {table}


def suite_for(name, mutant):
    class Suite(MemoryManagerContract):
        capabilities = mutant.capabilities

        @pytest.fixture
        def memory_manager_factory(self):
            return mutant.factory

    Suite.__name__ = Suite.__qualname__ = f"Test_{{name}}"
    return Suite


for _name, _mutant in {table}.items():
    globals()[f"Test_{{_name}}"] = suite_for(_name, _mutant)
"""

NO_SNAPSHOTS = ("-p", "no:syrupy", "-p", "no:cacheprovider")
# The report runs leave out the snapshot (it needs syrupy) and the loop-lag probe (a loaded
# machine can stall any loop; the mutants' run holds that test).
NOT_TIMED = "not scripted and not event_loop"


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def test_every_mutant_is_caught_by_its_contract_test(pytester: pytest.Pytester) -> None:
    """One inner run: each mutant against the contract test meant to catch it; a mutant
    whose test passes (or does not exist), or whose verdict does not say what its entry
    says, survives and fails this test."""
    pytester.syspathinsert(Path(__file__).parent)
    pytester.makepyfile(test_inner=INNER.format(table="MUTANTS"))
    selected = [f"test_inner.py::Test_{name}::{m.killed_by}" for name, m in MUTANTS.items()]
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, *selected)
    reports = [r for r in result.reprec.getreports("pytest_runtest_logreport") if r.when == "call"]
    verdicts: dict[str, list[str]] = {name: [] for name in MUTANTS}
    for report in reports:
        if report.failed:
            name = report.nodeid.split("::")[1].removeprefix("Test_")
            verdicts[name].append(report.longreprtext)
    survivors = sorted(
        name
        for name, mutant in MUTANTS.items()
        if not any(fnmatch.fnmatch(text, f"*{mutant.says}*") for text in verdicts[name])
    )
    shown = {name: [v[-600:] for v in verdicts[name]] for name in survivors}
    assert not survivors, f"mutants caught vaguely or not at all: {json.dumps(shown, indent=1)}"


def test_no_false_alarm_on_backends_that_keep_the_host_rules(pytester: pytest.Pytester) -> None:
    """The whole suite passes each backend that breaks no rule of DeerFlow's host, however
    unusual its shape; the only skips are for capabilities it does not declare."""
    pytester.syspathinsert(Path(__file__).parent)
    pytester.makepyfile(test_inner=INNER.format(table="FALSE_ALARMS"))
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rs")
    failed = [r.nodeid for r in result.reprec.getfailures()]
    assert failed == [], result.stdout.str()[-3000:]
    assert result.parseoutcomes()["passed"] >= 3 * 8


CONFORMANCE = """
import pytest
from contract_tests import Capabilities, MemoryManagerContract
from contract_tests.examples.honcho import honcho_manager_factory
from broken_backends import MUTANTS, ForgetfulManager


class TestResends(MemoryManagerContract):
    capabilities = Capabilities(recall=False)

    @pytest.fixture
    def memory_manager_factory(self):
        return honcho_manager_factory(ForgetfulManager)


class TestNoTransport(MemoryManagerContract):
    capabilities = Capabilities()

    @pytest.fixture
    def memory_manager_factory(self):
        return MUTANTS["factory_forgets_the_transport"].factory
"""


def test_conformance_report_prints_and_writes_json(pytester: pytest.Pytester) -> None:
    """The report names each backend's level and each clause's verdict at the end of the run,
    and ``--honcho-conformance-json`` writes the same as JSON: a backend that re-sends its
    history fails exactly that clause and stays at level ``base``; one whose requests never
    reach the target fails the canary, is at level ``none``, and its remote clauses are not
    judged (never passed)."""
    pytester.syspathinsert(Path(__file__).parent)
    pytester.makepyfile(test_conf=CONFORMANCE)
    out = pytester.path / "conformance.json"
    result = pytester.runpytest_inprocess(
        *NO_SNAPSHOTS, "-k", NOT_TIMED, "--honcho-conformance-json", str(out)
    )
    result.stdout.fnmatch_lines(
        [
            "*honcho conformance: memory backends*",
            "test_conf.py::TestResends: level base, 1 failed",
            "  base (every backend)",
            "    PASS        signatures",
            "  remote (declared)",
            "    FAIL        no_resend: 12 messages posted over 3 turns, 6 distinct*",
            "  recall: not declared: recall, isolation_context",
            "test_conf.py::TestNoTransport: level none, 1 failed",
            "  * clause(s) not judged: TestNoTransport's requests never reached the target*",
        ]
    )
    report = json.loads(out.read_text())
    backends = {b["backend"]: b for b in report["backends"]}
    resends = backends["test_conf.py::TestResends"]
    assert (resends["level"], resends["failed"]) == ("base", ["no_resend"])
    remote = resends["capabilities"]["remote"]
    assert remote["declared"] is True
    assert remote["clauses"]["batches_of_100"]["outcome"] == "pass"
    assert resends["capabilities"]["recall"] == {
        "declared": False,
        "clauses": {
            "recall": {
                "outcome": "not declared",
                "summary": "get_context returns what add wrote, once settled",
                "detail": "TestResends does not declare capability ['recall']",
            },
            "isolation_context": {
                "outcome": "not declared",
                "summary": "one user's writes never show in another's context",
                "detail": "TestResends does not declare capability ['recall']",
            },
        },
    }
    blind = backends["test_conf.py::TestNoTransport"]
    assert (blind["level"], blind["failed"]) == ("none", ["canary"])
    outcomes = {
        name: clause["outcome"]
        for group in blind["capabilities"].values()
        for name, clause in group["clauses"].items()
    }
    assert outcomes["signatures"] == "pass"  # judged without the remote
    assert outcomes["writes_survive_outage"] == outcomes["fail_open"] == "not judged"
    assert "pass" not in {outcomes[name] for name in ("search", "isolation_requests", "no_resend")}


def test_conformance_report_is_whole_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under xdist each worker runs the canary for itself and the results travel to the
    controller with the reports: the JSON names the same failures as a one-process run."""
    here = [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(part for part in here if part))
    pytester.makepyfile(test_conf=CONFORMANCE)
    out = pytester.path / "conformance.json"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2", "-k", NOT_TIMED,
        "--honcho-conformance-json", str(out),
    )  # fmt: skip
    report = json.loads(out.read_text())
    failed = {b["backend"]: (b["level"], b["failed"]) for b in report["backends"]}
    assert failed == {
        "test_conf.py::TestResends": ("base", ["no_resend"]),
        "test_conf.py::TestNoTransport": ("none", ["canary"]),
    }, result.stdout.str()[-3000:]


DESIGN_CHOICE = """
import pytest
from contract_tests import Capabilities, MemoryManagerContract
from broken_backends import UserRequiredManager


class Base(MemoryManagerContract):
    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: UserRequiredManager.from_config({})


class TestUndeclared(Base):
    capabilities = Capabilities(remote=False, read_policy=False, fact_crud=True)


class TestDeclared(Base):
    capabilities = Capabilities(
        remote=False, read_policy=False, fact_crud=True, ignores_missing_user=True
    )
"""


def test_a_design_choice_is_judged_only_when_declared_and_its_failure_names_it(
    pytester: pytest.Pytester,
) -> None:
    """``missing_user`` (a backend that refuses ``get_context("")``, as DeerMem does) is not
    judged by default; declared, it fails, and the failure says which capability to turn
    off. No capability heading is printed without a clause under it."""
    pytester.syspathinsert(Path(__file__).parent)
    pytester.makepyfile(test_choice=DESIGN_CHOICE)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-k", "missing_user or fact_crud")
    result.assert_outcomes(passed=3, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*ValueError: user_id must be a non-empty string",
            "*clause missing_user is judged because TestDeclared declares "
            "Capabilities(ignores_missing_user=True); if the backend does not promise it, "
            "declare ignores_missing_user=False",
            "test_choice.py::TestUndeclared: level full",
            "  ignores_missing_user: not declared: missing_user",
            "test_choice.py::TestDeclared: level base, 1 failed",
            "  ignores_missing_user (declared)",
            "    FAIL        missing_user: ValueError: user_id must be a non-empty string",
        ]
    )
    assert "fact_crud (declared)" not in result.stdout.str()  # no heading without a clause
