"""Inside DeerFlow the backend subclasses DeerFlow's own MemoryManager."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import honcho_backend
from honcho_backend import manager

PROBE = textwrap.dedent(
    """
    import deerflow.agents.memory.manager as host
    import honcho_backend
    from honcho_backend import MANAGER_CLASS

    assert issubclass(MANAGER_CLASS, host.MemoryManager)
    assert honcho_backend.MemoryManagerError is host.MemoryManagerError
    manager = MANAGER_CLASS.from_config(
        {"base_url": "http://127.0.0.1:9", "failure_policy": {"read": "fail_closed"}}
    )
    manager.close()
    try:
        manager.get_context("alice")
    except host.MemoryManagerError:
        print("host-error")
    """
)


def test_backend_subclasses_the_host_contract_when_deerflow_is_installed(tmp_path: Path) -> None:
    package = tmp_path / "deerflow" / "agents" / "memory"
    package.mkdir(parents=True)
    for folder in (tmp_path / "deerflow", tmp_path / "deerflow" / "agents", package):
        (folder / "__init__.py").write_text("")
    # Stand in for deerflow.agents.memory.manager with a copy of the mirror: same names.
    (package / "manager.py").write_text(Path(manager.__file__).read_text())
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "host-error"


def test_standalone_mirror_without_deerflow() -> None:
    assert issubclass(honcho_backend.MANAGER_CLASS, manager.MemoryManager)
    assert honcho_backend.MemoryManagerError is manager.MemoryManagerError
