"""Proof of power: the contract suite catches every deliberately broken backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from .broken_backends import MUTANTS

INNER = """
import pytest
from contract_tests import MemoryManagerContract
from broken_backends import MUTANTS


def suite_for(name, mutant):
    class Suite(MemoryManagerContract):
        capabilities = mutant.capabilities

        @pytest.fixture
        def memory_manager_factory(self):
            return mutant.factory

    Suite.__name__ = Suite.__qualname__ = f"Test_{name}"
    return Suite


for _name, _mutant in MUTANTS.items():
    globals()[f"Test_{_name}"] = suite_for(_name, _mutant)
"""


def test_every_mutant_is_caught_by_its_contract_test(pytester: pytest.Pytester) -> None:
    """One inner run: each mutant against the contract test meant to catch it; a mutant
    whose test passes (or does not exist) survives and fails this test."""
    pytester.syspathinsert(Path(__file__).parent)
    pytester.makepyfile(test_inner=INNER)
    selected = [f"test_inner.py::Test_{name}::{m.killed_by}" for name, m in MUTANTS.items()]
    result = pytester.runpytest_inprocess("-p", "no:syrupy", "-p", "no:cacheprovider", *selected)
    reports = [r for r in result.reprec.getreports("pytest_runtest_logreport") if r.when == "call"]
    caught = {name: False for name in MUTANTS}
    for report in reports:
        name = report.nodeid.split("::")[1].removeprefix("Test_")
        caught[name] = caught[name] or report.failed
    survivors = sorted(name for name, killed in caught.items() if not killed)
    assert not survivors, f"mutants no contract test caught: {survivors}\n{result.stdout.str()}"
