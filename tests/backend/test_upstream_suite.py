"""DeerFlow's own Honcho backend tests, run against our modules with only module paths redirected.

DeerFlow's code is never committed here: the test reads
``backend/tests/test_honcho_memory_backend.py`` from a clone of
``bytedance/deer-flow`` named by ``$DEERFLOW_GIT_DIR`` (a bare git dir is fine),
rewrites its ``deerflow...honcho`` imports to ``honcho_backend`` in a scratch
directory and runs it. Its client tests must pass; the tests listed in
``KNOWN_DIFFERENT`` replace the manager's private ``_client`` with a fake that
records upstream's five-calls-per-turn write path, which this backend replaced.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

UPSTREAM_TEST = "backend/tests/test_honcho_memory_backend.py"
REDIRECTS = (
    ("deerflow.agents.memory.backends.honcho.", "honcho_backend."),
    ("deerflow.agents.memory.backends.honcho", "honcho_backend"),
    ("deerflow.agents.memory.manager", "honcho_backend.manager"),
)
_FAKE_WRITE = (
    "its _FakeClient records get_or_create_peer/set_session_peers calls; this backend "
    "writes through get_or_create_workspace, a session created with its peers, a "
    "messages/list recovery read and one add_messages, which the fake does not have"
)
_FAKE_SEARCH = (
    "its _FakeClient.search takes no filters; this backend scopes a shared workspace's "
    "search to the user's peer with filters"
)
KNOWN_DIFFERENT = {
    "TestHonchoManagerWrite::test_add_maps_messages_to_peers": _FAKE_WRITE,
    "TestHonchoManagerWrite::test_add_prefix_workspace_for_unmapped_user": _FAKE_WRITE,
    "TestHonchoManagerWrite::test_add_truncates_long_content": _FAKE_WRITE,
    "TestHonchoManagerWrite::test_add_normalizes_list_content": _FAKE_WRITE,
    "TestHonchoManagerWrite::test_session_ids_resist_sanitize_collisions": _FAKE_WRITE,
    "TestHonchoManagerRead::test_search_maps_results": _FAKE_SEARCH,
    "TestHonchoManagerAsync::test_async_entrypoints_delegate": f"{_FAKE_WRITE}; {_FAKE_SEARCH}",
}
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR) [^:\s]+::(\S+)(?: - .*)?$", re.MULTILINE)


def redirect(source: str) -> str:
    """Upstream's test module with its DeerFlow module paths pointing at ours."""
    for old, new in REDIRECTS:
        source = source.replace(old, new)
    return source


def test_redirect_rewrites_only_module_paths() -> None:
    source = (
        "from deerflow.agents.memory.backends.honcho.client import HonchoClient\n"
        "from deerflow.agents.memory.manager import MemoryManagerError\n"
        "from deerflow.agents.memory.backends.honcho import MANAGER_CLASS\n"
        'assert cfg.assistant_peer == "deerflow"\n'
    )
    assert redirect(source) == (
        "from honcho_backend.client import HonchoClient\n"
        "from honcho_backend.manager import MemoryManagerError\n"
        "from honcho_backend import MANAGER_CLASS\n"
        'assert cfg.assistant_peer == "deerflow"\n'
    )


def test_upstreams_suite_passes_against_our_modules(tmp_path: Path) -> None:
    git_dir = os.environ.get("DEERFLOW_GIT_DIR")
    if not git_dir:
        pytest.skip("set DEERFLOW_GIT_DIR to a bytedance/deer-flow clone to run its Honcho tests")
    source = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"HEAD:{UPSTREAM_TEST}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = redirect(source)
    assert not re.search(r"^\s*(from|import) deerflow", module, re.MULTILINE)
    (tmp_path / "test_upstream_honcho.py").write_text(module)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "--tb=no", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    outcomes = {name: outcome for outcome, name in OUTCOME.findall(done.stdout)}
    assert len(outcomes) > 60, done.stdout[-2000:]  # it collected (upstream has 67)
    failed = {name for name, outcome in outcomes.items() if outcome != "PASSED"}
    client_tests = [name for name in outcomes if name.startswith("TestHonchoClient")]
    assert client_tests and not failed & set(client_tests)
    assert failed == set(KNOWN_DIFFERENT)
