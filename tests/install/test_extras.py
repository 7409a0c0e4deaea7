"""The extras split: what each entry point checks, and what loading the plugin costs a host.

``fake_honcho._extras`` is the one place that says which modules each extra brings;
the entry points (``fake-honcho``, the ``pytest11`` plugin) consult it, so it must
name exactly the distributions ``pyproject.toml`` puts in those extras.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fake_honcho import _extras, _launch

REPO = Path(__file__).resolve().parents[2]
SELF = re.compile(rf"^{re.escape(_extras.DISTRIBUTION)}\[(?P<extra>[a-z]+)\]$")
# Modules a host that never uses the suites must not pay for at collection time.
HEAVY = ("httpx", "syrupy", "starlette", "uvicorn", "jsonschema", "pydantic", "fake_honcho.fake")


def extra_distributions(extra: str) -> set[str]:
    """Distribution names an extra pulls in, following the kit's own sub-extras."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names: set[str] = set()
    for requirement in extras[extra]:
        if ";" in requirement:
            continue  # a platform's speed-up (uvloop): the entry points cannot demand it
        nested = SELF.match(requirement)
        if nested:
            names |= extra_distributions(nested["extra"])
        else:
            names.add(re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower())
    return names


def test_the_fake_check_names_exactly_the_fake_extra() -> None:
    assert {d.lower() for d in _extras.FAKE} == extra_distributions("fake")


def test_the_plugin_check_names_the_contract_extra_except_pytest_itself() -> None:
    # pytest is running whenever the plugin is asked, so it is the one name not checked.
    assert {d.lower() for d in _extras.CONTRACT} == extra_distributions("contract") - {"pytest"}


def test_each_checked_module_is_the_one_its_distribution_installs() -> None:
    provides = importlib.metadata.packages_distributions()
    for dist, module in _extras.CONTRACT.items():
        assert dist.lower() in [d.lower() for d in provides.get(module, [])], (dist, module)


def test_missing_lists_only_the_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # find_spec answers None for it
    assert _extras.missing(_extras.FAKE) == ["uvicorn"]


def test_fake_honcho_without_its_extra_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    assert _launch.main(["--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "fake-honcho: error: the 'fake' extra is not installed (missing starlette, "
        f"jsonschema); install it with: {_extras.install_line('fake')}\n"
    )


def test_fake_honcho_with_its_extra_runs_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    import fake_honcho.cli

    seen: list[object] = []
    monkeypatch.setattr(fake_honcho.cli, "main", lambda argv: seen.append(argv) or 0)
    assert _launch.main(["--port", "0"]) == 0
    assert seen == [["--port", "0"]]


def _host_project(root: Path, conftest: str = "") -> None:
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "test_host.py").write_text("def test_host():\n    assert 1 + 1 == 2\n")
    if conftest:
        (root / "conftest.py").write_text(conftest)


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a subprocess with only the plugins named on the command line."""
    env = {
        **os.environ,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONPATH": os.pathsep.join([str(REPO), str(root)]),
    }
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)


RECORD_MODULES = """
import json, sys

def pytest_collection_finish(session):
    with open("modules.json", "w") as out:
        json.dump(sorted(sys.modules), out)
"""


def test_a_host_that_never_uses_the_suites_imports_nothing_heavy(tmp_path: Path) -> None:
    _host_project(tmp_path, RECORD_MODULES)
    done = _pytest(tmp_path, "-p", "contract_tests._entry", "--co", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = set(json.loads((tmp_path / "modules.json").read_text()))
    assert "contract_tests.plugin" in loaded  # the real plugin is registered ...
    assert not loaded & set(HEAVY)  # ... but nothing heavy came with it
    assert not {m for m in loaded if m.startswith("contract_tests.")} - {
        "contract_tests._entry",
        "contract_tests.options",
        "contract_tests.conformance",  # the conformance collector the plugin registers
        "contract_tests.plugin",
        "contract_tests.faults",
        "contract_tests.capabilities",
    }


def test_the_plugin_still_offers_its_options_markers_and_fixtures(tmp_path: Path) -> None:
    _host_project(tmp_path)
    (tmp_path / "test_uses_kit.py").write_text(
        "def test_kit(honcho_target, honcho_workspace):\n"
        "    assert honcho_target.is_fake and honcho_workspace.startswith('hc-')\n"
    )
    done = _pytest(tmp_path, "-p", "contract_tests._entry", "-q", "--markers")
    assert "honcho_requires" in done.stdout and "honcho_fault" in done.stdout
    done = _pytest(tmp_path, "-p", "contract_tests._entry", "-q", "--honcho-settle-timeout=5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


BLOCK_SYRUPY = "import sys\nsys.modules['syrupy'] = None\n"


def test_without_the_contract_extra_the_plugin_disables_itself_in_one_line(
    tmp_path: Path,
) -> None:
    _host_project(tmp_path)
    (tmp_path / "block_syrupy.py").write_text(BLOCK_SYRUPY)
    done = _pytest(tmp_path, "-p", "block_syrupy", "-p", "contract_tests._entry")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "honcho_contract" in line]
    assert lines == [
        "honcho_contract: disabled: the 'contract' extra is not installed (missing syrupy); "
        f"install it with: {_extras.install_line('contract')}"
    ]
    assert "1 passed" in done.stdout
    assert importlib.util.find_spec("syrupy") is not None  # only the subprocess lacked it


def test_without_the_contract_extra_its_options_stop_the_run_in_one_line(
    tmp_path: Path,
) -> None:
    """``pytest --honcho-url URL`` with only the fake extra: the line naming the extra, not
    argparse's "unrecognized arguments"; ``--help`` still lists the options."""
    _host_project(tmp_path)
    (tmp_path / "block_syrupy.py").write_text(BLOCK_SYRUPY)
    plugins = ("-p", "block_syrupy", "-p", "contract_tests._entry")
    done = _pytest(tmp_path, *plugins, "--honcho-url", "http://127.0.0.1:9")
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "ERROR: honcho_contract: --honcho-url: the 'contract' extra is not installed "
        f"(missing syrupy); install it with: {_extras.install_line('contract')}"
    ]
    helped = _pytest(tmp_path, *plugins, "--help")
    assert "--honcho-url=URL" in helped.stdout and "--honcho-settle-timeout" in helped.stdout


def test_install_line_follows_where_pip_installed_the_kit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded: dict[str, str | None] = {"text": None}

    class Dist:
        def read_text(self, name: str) -> str | None:
            assert name == "direct_url.json"
            return recorded["text"]

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Dist())
    assert _extras.install_line("fake") == "pip install 'honcho-contract-kit[fake]'"
    recorded["text"] = json.dumps({"url": "file:///src/my%20kit", "dir_info": {"editable": True}})
    assert _extras.install_line("fake") == "pip install -e '/src/my kit[fake]'"
    wheel = "file:///w/honcho_contract_kit-0.1.0-py3-none-any.whl"
    recorded["text"] = json.dumps({"url": wheel, "archive_info": {}})
    assert _extras.install_line("contract") == (
        "pip install '/w/honcho_contract_kit-0.1.0-py3-none-any.whl[contract]'"
    )
    recorded["text"] = json.dumps(
        {"url": "https://example.org/kit.git", "vcs_info": {"vcs": "git", "commit_id": "abc"}}
    )
    assert _extras.install_line("fake") == (
        "pip install 'honcho-contract-kit[fake] @ git+https://example.org/kit.git@abc'"
    )


def test_tox_checks_the_oldest_honcho_ai_the_test_extra_accepts() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    (sdk,) = [r for r in extras["test"] if r.startswith("honcho-ai")]
    oldest = re.search(r">=([\d.]+)", sdk)
    tox = (REPO / "tox.ini").read_text()
    assert oldest is not None and oldest[1] == "2.2.0"  # the version Hermes' provider pins
    assert f"deps = honcho-ai=={oldest[1]}\n" in tox.split("[testenv:sdk-oldest]")[1]


def test_every_lazily_exported_name_resolves() -> None:
    import contract_tests
    import fake_honcho

    assert sorted(contract_tests.__all__) == sorted(contract_tests._HOMES)
    for name, home in contract_tests._HOMES.items():
        module = importlib.import_module(f"contract_tests.{home}")
        assert getattr(contract_tests, name) is getattr(module, name)
    assert fake_honcho.FakeHoncho.__name__ == "FakeHoncho"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = contract_tests.nope


def test_a_missing_fake_extra_is_one_import_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fake_honcho

    monkeypatch.setitem(sys.modules, "starlette", None)
    with pytest.raises(ImportError) as raised:
        from fake_honcho import FakeHoncho  # noqa: F401
    assert str(raised.value) == (
        f"fake_honcho needs the 'fake' extra (missing starlette): {_extras.install_line('fake')}"
    )
    with pytest.raises(ImportError, match="needs the 'fake' extra"):
        _ = fake_honcho.FakeHoncho


def test_a_missing_contract_extra_is_one_import_error_naming_it(tmp_path: Path) -> None:
    """Outside pytest (a script using FakeControl), without pytest or without syrupy."""
    cases = {
        "pytest": "from contract_tests.control import FakeControl",
        "syrupy": "from contract_tests import HonchoAPIContract",
    }
    for absent, statement in cases.items():
        probe = f"import sys\nsys.modules[{absent!r}] = None\n{statement}\n"
        done = subprocess.run(
            [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 1
        assert done.stderr.splitlines()[-1] == (
            f"ImportError: contract_tests needs the 'contract' extra (missing {absent}): "
            f"{_extras.install_line('contract')}"
        )


def test_the_drift_report_needs_only_the_fake_extra() -> None:
    """``fake-honcho compare`` is the fake's own tool: it never imports the contract kit,
    pytest or syrupy (which only the ``contract`` extra installs)."""
    code = (
        "import sys, fake_honcho.drift.cli, fake_honcho.cli\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(json.dumps(sorted(loaded & {'pytest', 'syrupy', 'contract_tests', 'xdist'})))"
    )
    found = subprocess.run(
        [sys.executable, "-c", "import json\n" + code],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert json.loads(found.stdout) == []
