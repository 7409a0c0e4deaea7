"""The plugin seen from a consumer project: options, markers, fixtures, target switching,
the override guard and capability validation (inner pytest runs via ``pytester``)."""

from __future__ import annotations

import configparser
import re
import shlex
from typing import TYPE_CHECKING

import pytest

from contract_tests import probe  # imported before pytester snapshots sys.modules
from fake_honcho import FakeHoncho

if TYPE_CHECKING:
    from conftest import ServedFake

# In-process inner runs must not start a second syrupy session (it keeps a module global).
NO_SNAPSHOTS = ("-p", "no:syrupy", "-p", "no:cacheprovider")
# Subprocess runs skip the heavy plugins they do not need (seconds of start-up per process).
LEAN = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:schemathesis",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:anyio",
)


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner runs are their own sessions, even when this one runs on an xdist worker (syrupy
    and others read these variables to decide whether they are a worker)."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


TARGET_PROBES = """
import re
import pytest

def test_target_and_workspace(honcho_target, honcho_workspace, request):
    assert re.fullmatch(r"hc-[0-9a-f]{10}-[a-z0-9]+-[0-9a-f]{12}", honcho_workspace)
    with honcho_target.client() as client:
        created = client.post("/v3/workspaces", json={"id": honcho_workspace})
    assert created.status_code == 201, created.text
    request.config.cache_report = (honcho_target.is_fake, honcho_target.base_url)
    print("TARGET", honcho_target.is_fake, honcho_target.base_url, honcho_workspace)

@pytest.mark.parametrize("n", [1, 2])
def test_workspaces_differ(honcho_workspace, n):
    print("WS", honcho_workspace)

def test_settle(honcho_target, honcho_workspace, honcho_settle):
    with honcho_target.client() as client:
        response = client.post(
            f"/v3/workspaces/{honcho_workspace}/sessions/s1/messages",
            json={"messages": [{"peer_id": "alice", "content": "I love tea."}]},
        )
        assert response.status_code == 201
        honcho_settle()
        status = client.get(f"/v3/workspaces/{honcho_workspace}/queue/status").json()
    assert status["pending_work_units"] == status["in_progress_work_units"] == 0

def test_leaves_debris(honcho_target, honcho_workspace):
    leftover = honcho_workspace.rsplit("-", 2)[0] + "-leftover"
    with honcho_target.client() as client:
        assert client.post("/v3/workspaces", json={"id": leftover}).status_code == 201

@pytest.mark.honcho_fake_only(reason="steps the deriver by hand")
def test_fake_only(honcho_target):
    assert honcho_target.fake is not None

@pytest.mark.honcho_llm
def test_needs_llm(honcho_target):
    pass

def test_failure_does_not_leak_key(honcho_target):
    assert honcho_target.api_key is None or str(honcho_target.api_key) == repr(honcho_target)
"""


def test_help_and_markers(pytester: pytest.Pytester) -> None:
    help_text = pytester.runpytest_inprocess("--help").stdout.str()
    for option in ("--honcho-url=URL", "--honcho-api-key=KEY", "--honcho-llm"):
        assert option in help_text
    markers = pytester.runpytest_inprocess("--markers").stdout.str()
    for marker in ("honcho_fake_only(reason)", "honcho_llm", "honcho_requires(*capabilities)"):
        assert f"@pytest.mark.{marker}" in markers


def test_empty_url_is_a_usage_error_not_the_fake(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(honcho_target): pass")
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "--honcho-url", " ")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--honcho-url is empty*"])


def test_unreachable_url_is_one_early_usage_error(pytester: pytest.Pytester) -> None:
    """Not one error per test: the run stops before collection with one line saying what to do
    (and never falls back to the fake)."""
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("n", range(5))
        def test_x(honcho_target, n):
            pass
        """
    )
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "--honcho-url", "http://127.0.0.1:9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [
        "ERROR: --honcho-url http://127.0.0.1:9 is not reachable (ConnectError); start the "
        "server, or omit --honcho-url to use the in-process fake"
    ]
    assert "passed" not in result.stdout.str() and "error" not in result.stdout.str()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "not-a-url",
            "--honcho-url not-a-url is not an http(s) URL; give the server's root, "
            "e.g. http://127.0.0.1:8000",
        ),
        (
            "ftp://honcho.example",
            "--honcho-url ftp://honcho.example is not an http(s) URL; give the server's root, "
            "e.g. http://127.0.0.1:8000",
        ),
        (
            "http://127.0.0.1:9/v3/",
            "--honcho-url http://127.0.0.1:9/v3: drop the trailing /v3 (the kit adds it): "
            "--honcho-url http://127.0.0.1:9",
        ),
    ],
    ids=["no-scheme", "ftp", "v3-suffix"],
)
def test_a_malformed_url_is_one_usage_error_with_the_fix(
    pytester: pytest.Pytester, url: str, expected: str
) -> None:
    pytester.makepyfile("def test_x(honcho_target): pass")
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "--honcho-url", url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [f"ERROR: {expected}"]


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (None, "needs an api key (HTTP 401); pass --honcho-api-key KEY or set HONCHO_API_KEY"),
        ("sk-wrong-key-42", "rejected the api key (HTTP 401); check --honcho-api-key*"),
    ],
    ids=["missing-key", "wrong-key"],
)
def test_unauthorised_url_names_the_key_option(
    pytester: pytest.Pytester,
    served_fake: ServedFake,
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
    expected: str,
) -> None:
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    pytester.makepyfile("def test_x(honcho_target): pass")
    args = ["--honcho-url", served_fake.url] + (["--honcho-api-key", key] if key else [])
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --honcho-url {served_fake.url} {expected}"])
    assert len([line for line in result.stderr.lines if line.startswith("ERROR:")]) == 1
    assert "sk-wrong-key-42" not in result.stderr.str() + result.stdout.str()


def test_unreachable_url_stops_an_xdist_run_before_workers_start(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_x(honcho_target): pass")
    result = pytester.runpytest_subprocess(*LEAN, "-n", "2", "--honcho-url", "http://127.0.0.1:9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --honcho-url http://127.0.0.1:9 is not reachable*"])
    assert "created: 2/2 workers" not in result.stdout.str()


def test_tox_real_without_honcho_url_says_what_to_set(
    pytester: pytest.Pytester, pytestconfig: pytest.Config
) -> None:
    """``tox -e real`` with ``$HONCHO_URL`` unset substitutes an empty value (not a missing
    argument, which argparse would report), and the plugin names the variable."""
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(pytestconfig.rootpath / "tox.ini")
    command = ini["testenv:real"]["commands"].replace("{posargs}", "")
    args = shlex.split(command.replace("{env:HONCHO_URL:}", ""))
    assert args[0] == "pytest"
    pytester.makepyfile("def test_x(honcho_target): pass")
    result = pytester.runpytest_inprocess(
        *NO_SNAPSHOTS, *[arg for arg in args if arg.startswith("--honcho")]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --honcho-url is empty*reads it from $HONCHO_URL*"])


def test_fake_target_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_probes=TARGET_PROBES)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rP")
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(
        ["honcho contract target: in-process fake, speaking Honcho *", "TARGET True *"]
    )
    workspaces = re.findall(r"^WS (\S+)", result.stdout.str(), re.MULTILINE)
    assert len(set(workspaces)) == 2


def test_url_targets_a_real_server_with_teardown_and_reaper(
    pytester: pytest.Pytester, served_fake: ServedFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--honcho-url switches every fixture to that server: the key comes from the env and is
    never printed, fake-only and LLM tests skip with a reason, each test's workspaces are
    deleted at teardown and the reaper removes what a test left outside its namespace. (The
    served fake stands in for a real server: it is made not to say what it is.)"""
    monkeypatch.setattr(probe, "served_fake", lambda target: None)
    monkeypatch.setenv("HONCHO_API_KEY", served_fake.api_key)
    pytester.makepyfile(test_probes=TARGET_PROBES)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rsP", "--honcho-url", served_fake.url)
    result.assert_outcomes(passed=5, skipped=2, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            f"honcho contract target: real server at {served_fake.url} (api key set), serves *",
            f"TARGET False {served_fake.url} *",
            "*needs the in-process fake's controls: steps the deriver by hand*",
            "*needs an LLM-backed deriver; pass --honcho-llm*",
            "honcho: reaped 1 leftover workspace(s) of this run: hc-*-leftover",
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    assert served_fake.api_key not in output
    left = [row["id"] for row in served_fake.fake.store.rows("workspaces")]
    assert left == []


def test_contract_suites_pass_against_a_served_fake_with_the_same_snapshots(
    pytester: pytest.Pytester, served_fake: ServedFake, pytestconfig: pytest.Config
) -> None:
    """The project's contract suites, under xdist, against a fake served over HTTP (standing
    in for a real Honcho), with the very snapshot files the in-process run uses (and the
    kit's shipped reference snapshots for HonchoAPIContract)."""
    contract = pytestconfig.rootpath / "tests" / "contract"
    for name in ("test_api_contract.py", "test_memory_managers.py"):
        pytester.makepyfile(**{name[:-3]: (contract / name).read_text()})
    snapshots = pytester.path / "__snapshots__"
    for source in (contract / "__snapshots__").rglob("*.json"):
        target = snapshots / source.relative_to(contract / "__snapshots__")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text())
    result = pytester.runpytest_subprocess(
        *LEAN, "-n", "2", "-k", SERVED_SUBSET,
        "--honcho-url", served_fake.url, "--honcho-api-key", served_fake.api_key,
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()[-4000:]
    assert result.parseoutcomes()["passed"] >= 9
    result.stdout.fnmatch_lines(["*1 snapshot passed*"])
    assert served_fake.api_key not in result.stdout.str() + result.stderr.str()


# Every snapshot test plus a sample of the rest: the full suites against a served fake are
# what `tox -e real` runs; here the point is real mode + xdist + the same snapshot files.
SERVED_SUBSET = "snapshot or scripted or get_or_create or isolated_in_search or fail_closed"


def test_api_contract_first_run_in_a_new_project_passes_on_shipped_references(
    pytester: pytest.Pytester,
) -> None:
    """A consumer's ``class TestHoncho(HonchoAPIContract): pass`` passes its snapshot tests on
    the first run: they compare with the real-Honcho references in the kit, recording nothing."""
    pytester.makepyfile(
        test_honcho="""
        from contract_tests import HonchoAPIContract

        class TestHoncho(HonchoAPIContract):
            pass
        """
    )
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-k", "snapshot")
    result.assert_outcomes(passed=2)
    assert not (pytester.path / "__snapshots__").exists()


def test_update_reference_needs_a_real_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "--honcho-update-reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --honcho-update-reference *pass --honcho-url too*"])


def test_a_backends_unrecorded_snapshot_says_how_to_record_it(pytester: pytest.Pytester) -> None:
    """MemoryManagerContract's request snapshot pins the consumer's backend: the first run
    skips it with the command to run (and a summary line), --snapshot-update records it, and
    from then on it is compared."""
    pytester.makepyfile(
        test_backend="""
        import pytest
        from contract_tests import Capabilities, MemoryManagerContract
        from contract_tests.examples.honcho import honcho_manager_factory

        class TestMine(MemoryManagerContract):
            capabilities = Capabilities()

            @pytest.fixture
            def memory_manager_factory(self):
                return honcho_manager_factory()
        """
    )
    stored = "__snapshots__/test_backend/TestMine.test_scripted_conversation_requests.json"
    first = pytester.runpytest_subprocess(*LEAN, "-rs", "-k", "scripted")
    first.assert_outcomes(skipped=1)
    first.stdout.fnmatch_lines_random(
        [
            f"*no snapshot recorded yet for this backend: {stored}: run `pytest "
            "--snapshot-update -k test_scripted_conversation_requests` once*",
            "honcho: 1 test(s) skipped: no snapshot recorded yet for this backend; run*",
        ]
    )
    assert not (pytester.path / stored).exists()
    pytester.runpytest_subprocess(*LEAN, "-k", "scripted", "--snapshot-update").assert_outcomes(
        passed=1
    )
    assert (pytester.path / stored).is_file()
    again = pytester.runpytest_subprocess(*LEAN, "-k", "scripted")
    again.assert_outcomes(passed=1)
    assert "honcho:" not in again.stdout.str()


GUARDED = """
import pytest
from contract_tests import Capabilities, MemoryManagerContract
from contract_tests.examples import InMemoryMemoryManager


class Base(MemoryManagerContract):
    capabilities = Capabilities(remote=False, read_policy=False, fact_crud=True)

    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: InMemoryMemoryManager.from_config({})


class TestHonest(Base):
    @pytest.mark.xfail(reason="closing twice is not supported yet")
    def test_close_is_idempotent(self, make_manager):
        super().test_close_is_idempotent(make_manager)


class TestOverridden(Base):
    def test_close_is_idempotent(self, make_manager):
        pass


class TestDeleted(Base):
    test_fact_crud = None


class TestXfailWithoutReason(Base):
    @pytest.mark.xfail
    def test_close_is_idempotent(self, make_manager):
        pass


class TestParamXfail(Base):
    @pytest.mark.parametrize(
        "outage", [pytest.param("http_503", marks=pytest.mark.xfail(reason="retries forever"))]
    )
    def test_add_never_raises_while_remote_fails(self, make_manager, honcho_workspace, outage):
        pass
"""

BAD_CAPABILITY = """
from contract_tests import Capabilities, MemoryManagerContract

class TestTypo(MemoryManagerContract):
    capabilities = Capabilities(supports_serach=True)
"""

BAD_CAPABILITY_MAPPING = """
from contract_tests import MemoryManagerContract

class TestTypoMapping(MemoryManagerContract):
    capabilities = {"fact_crud": True, "has_tool_calling": True}
"""


def test_guard_and_capability_validation(pytester: pytest.Pytester) -> None:
    """Overriding or deleting a contract test without a reasoned xfail fails the guard; an
    unknown capability name is a collection error, not a silent no-op."""
    pytester.makepyfile(
        test_guarded=GUARDED, test_bad_caps=BAD_CAPABILITY, test_bad_map=BAD_CAPABILITY_MAPPING
    )
    result = pytester.runpytest_inprocess(
        *NO_SNAPSHOTS, "--continue-on-collection-errors", "-k", "DO_NOT_OVERRIDE"
    )
    result.assert_outcomes(passed=2, failed=3, errors=2)
    result.stdout.fnmatch_lines_random(
        [
            "*MemoryManagerContract.test_close_is_idempotent is overridden without*",
            "*MemoryManagerContract.test_fact_crud was deleted*",
            "*unexpected keyword argument 'supports_serach'*",
            "*unknown capability name(s) [[]'has_tool_calling'[]]*",
        ]
    )
    failed = {r.nodeid.split("::")[1] for r in result.reprec.getfailures() if r.when == "call"}
    assert failed == {"TestOverridden", "TestDeleted", "TestXfailWithoutReason"}


def test_capability_gated_tests_skip_with_the_capability_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_noop="""
import pytest
from contract_tests import Capabilities, MemoryManagerContract
from contract_tests.examples import NoopMemoryManager

class TestNoop(MemoryManagerContract):
    capabilities = Capabilities(remote=False, recall=False, search=False, read_policy=False)

    @pytest.fixture
    def memory_manager_factory(self):
        return lambda ctx: NoopMemoryManager.from_config({})
"""
    )
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rs", "-k", "recall or batches")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines_random(
        [
            "*TestNoop does not declare capability [[]'recall'[]]*",
            "*TestNoop does not declare capability [[]'remote'[]]*",
        ]
    )


def test_fake_target_is_isolated_per_test(pytester: pytest.Pytester) -> None:
    """State scoping is explicit: every test gets a fresh fake, never a shared default."""
    pytester.makepyfile(
        """
        seen = []

        def test_one(honcho_target):
            seen.append(honcho_target.fake)

        def test_two(honcho_target):
            assert honcho_target.fake is not seen[0]
            assert honcho_target.fake.store.count("workspaces") == 0
        """
    )
    pytester.runpytest_inprocess(*NO_SNAPSHOTS).assert_outcomes(passed=2)
    assert isinstance(FakeHoncho(), FakeHoncho)


SNAPSHOTTED = """
import os
import pytest

NANO = "V1StGXR8_Z5jdHi6B-my{}"


@pytest.mark.parametrize("n", range(4))
def test_page(honcho_snapshot, honcho_workspace, n):
    ids = [NANO.format(chr(65 + i)) for i in range(n + 1)]
    assert honcho_snapshot == {
        "workspace_id": honcho_workspace,
        "items": [{"id": i, "created_at": "2026-01-01T00:00:00Z", "token_count": n} for i in ids],
        "first_id": ids[0],
    }


def test_sometimes_skipped(honcho_snapshot):
    if os.environ.get("SKIP_CAPABILITY"):
        pytest.skip("capability not declared")
    assert honcho_snapshot == ["kept while skipped"]


def test_removed_later(honcho_snapshot):
    assert honcho_snapshot == ["goes away"]
"""


def test_snapshot_update_and_unused_detection_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--snapshot-update -n 2`` writes one normalised JSON file per snapshot; later, a
    skipped test's snapshot is kept while a removed test's snapshot is found unused and
    deleted (syrupy aggregates the workers' reports on the controller)."""
    pytester.makepyfile(test_snap=SNAPSHOTTED)
    snapshots = pytester.path / "__snapshots__" / "test_snap"

    written = pytester.runpytest_subprocess(*LEAN, "-n", "2", "--snapshot-update")
    assert written.ret == 0, written.stdout.str()
    assert len(list(snapshots.glob("*.json"))) == 6
    page = (snapshots / "test_page[3].json").read_text()
    assert '"workspace_id": "<workspace:1>"' in page
    assert '"first_id": "<id:1>"' in page and '"id": "<id:4>"' in page
    assert '"token_count": "<int>"' in page and '"<timestamp>"' in page

    monkeypatch.setenv("SKIP_CAPABILITY", "1")
    pytester.makepyfile(test_snap=SNAPSHOTTED.split("\n\ndef test_removed_later")[0])
    cleaned = pytester.runpytest_subprocess(
        *LEAN, "-n", "2", "--snapshot-update", "--snapshot-details"
    )
    assert cleaned.ret == 0, cleaned.stdout.str()
    cleaned.stdout.fnmatch_lines(["*4 snapshots passed. 1 unused snapshot deleted.*"])
    cleaned.stdout.fnmatch_lines(["*test_removed_later*"])
    assert sorted(p.name for p in snapshots.glob("*.json")) == [
        "test_page[0].json", "test_page[1].json", "test_page[2].json", "test_page[3].json",
        "test_sometimes_skipped.json",
    ]  # fmt: skip
