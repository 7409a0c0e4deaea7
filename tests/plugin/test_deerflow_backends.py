"""DeerFlow's own memory backends at the recorded commit, judged by ``MemoryManagerContract``.

DeerFlow's code is never committed here: the test extracts its memory package from a clone
of ``bytedance/deer-flow`` named by ``$DEERFLOW_GIT_DIR`` (a bare git dir is fine) at the
commit ``tests/backend/data/deerflow_contract.json`` records, and loads it without running
DeerFlow's package ``__init__`` files (they import the whole agent harness, which needs
Python 3.12+; the memory modules themselves do not). DeerMem also needs ``langchain-core``,
``pyyaml`` and ``tiktoken``.

Each backend gets honest capabilities and the verdicts it must get: the Honcho backend fails
exactly its two real bugs, with what a user sees; a factory that forgets to route its
client fails only the canary; noop and DeerMem fail nothing. CI holds the same behaviour
without DeerFlow through ``broken_backends.py`` (mutants and false alarms).
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.backend.deerflow_contract import DATA

HARNESS = "backend/packages/harness/deerflow"
EXTRACTED = (f"{HARNESS}/agents/memory", f"{HARNESS}/config/memory_config.py")

CONFTEST = """
import sys
import types
from pathlib import Path

# DeerFlow's package __init__ files import the whole harness; the memory modules need none
# of it, so the packages above them are bare modules over the extracted directories.
ROOT = Path(__file__).parent / "{harness}"
for name, sub in (("deerflow", ""), ("deerflow.agents", "agents"), ("deerflow.config", "config")):
    module = types.ModuleType(name)
    module.__path__ = [str(ROOT / sub)]
    sys.modules.setdefault(name, module)
"""

SUITES = """
import pytest

from contract_tests import Capabilities, MemoryManagerContract
from contract_tests.examples.honcho import honcho_backend_config as honcho_config
from deerflow.agents.memory.backends.deermem.deer_mem import DeerMem
from deerflow.agents.memory.backends.honcho.client import HonchoClient
from deerflow.agents.memory.backends.honcho.honcho_manager import HonchoMemoryManager
from deerflow.agents.memory.backends.noop.noop_manager import NoopMemoryManager
from deerflow.agents.memory.manager import MemoryManager, MemoryManagerError


def routed(ctx):
    manager = HonchoMemoryManager.from_config(honcho_config(ctx))
    manager._client.close()
    manager._client = HonchoClient(manager._config, transport=ctx.transport)
    return manager


class DeerFlowContract(MemoryManagerContract):
    manager_base = MemoryManager
    manager_error = MemoryManagerError


class TestHoncho(DeerFlowContract):
    capabilities = Capabilities(ignores_missing_user=True)

    @pytest.fixture
    def memory_manager_factory(self):
        return routed


class TestHonchoTransportForgotten(DeerFlowContract):
    capabilities = Capabilities(ignores_missing_user=True)

    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: HonchoMemoryManager.from_config(
            honcho_config(ctx), transport=ctx.transport
        )


class TestNoop(DeerFlowContract):
    capabilities = Capabilities(
        remote=False,
        recall=False,
        search=False,
        context_cap=False,
        read_policy=False,
        ignores_missing_user=True,
    )

    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: NoopMemoryManager.from_config({"storage_path": ctx.storage_path})


class TestDeerMem(DeerFlowContract):
    # recall and search come from its LLM extraction, which needs a model: none here
    capabilities = Capabilities(
        remote=False, recall=False, search=False, read_policy=False, fact_crud=True
    )

    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: DeerMem.from_config({"storage_path": ctx.storage_path})
"""

EXPECTED_FAILURES = {
    "TestHoncho": ["batches_of_100", "no_resend"],
    "TestHonchoTransportForgotten": ["canary"],
    "TestNoop": [],
    "TestDeerMem": [],
}


def _extract(git_dir: str, commit: str, into: Path) -> None:
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, *EXTRACTED],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into)  # a git archive of a recorded commit: plain files


def test_deerflow_backends_get_exactly_their_verdicts(pytester: pytest.Pytester) -> None:
    git_dir = os.environ.get("DEERFLOW_GIT_DIR")
    if not git_dir:
        pytest.skip("set DEERFLOW_GIT_DIR to a bytedance/deer-flow clone to judge its backends")
    for module in ("langchain_core", "yaml", "tiktoken"):
        pytest.importorskip(module, reason=f"DeerFlow's DeerMem backend imports {module}")
    commit = json.loads(DATA.read_text())["source"]["commit"]
    _extract(git_dir, commit, pytester.path)
    pytester.makeconftest(CONFTEST.format(harness=HARNESS))
    pytester.makepyfile(test_deerflow=SUITES)
    report_path = pytester.path / "conformance.json"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-k", "not scripted",
        "--honcho-conformance-json", str(report_path),
    )  # fmt: skip
    report = json.loads(report_path.read_text())
    failures = {b["backend"].split("::")[1]: b["failed"] for b in report["backends"]}
    assert failures == EXPECTED_FAILURES, result.stdout.str()[-4000:]
    result.stdout.fnmatch_lines_random(
        [
            "*a 101-message thread was sent as one batch of 101 messages; Honcho refused it "
            "with 422*0 of 101 messages stored*",
            "*12 messages posted over 3 turns, 6 distinct*",
            "*TestHonchoTransportForgotten sent no request through ctx.transport*",
        ]
    )
    levels = {b["backend"].split("::")[1]: b["level"] for b in report["backends"]}
    assert levels == {
        "TestHoncho": "base",
        "TestHonchoTransportForgotten": "none",
        "TestNoop": "full",
        "TestDeerMem": "full",
    }
