"""The plugin knows versions: what a target serves (probed once for --honcho-url, shared
with xdist workers, printed in the header), ``honcho_needs`` skips naming the reason, and
the fields a target ignores reported in the summary (inner runs via ``pytester``)."""

from __future__ import annotations

from collections.abc import Iterator

import httpcore  # noqa: F401  # imported here, not first inside an in-process inner run
import pytest

from fake_honcho import FakeHoncho

NO_SNAPSHOTS = ("-p", "no:syrupy", "-p", "no:cacheprovider")

NEEDS = """
import pytest
from fake_honcho.versions import Feature

@pytest.mark.honcho_needs("scopes")
def test_scopes(honcho_served):
    assert "scopes" in honcho_served.features

@pytest.mark.honcho_needs(Feature.WORKSPACE_CHAT, Feature.CONCLUSION_GET)
def test_chat_and_get(honcho_served):
    assert Feature.CONCLUSION_GET in honcho_served.features

def test_served(honcho_served):
    print("SERVED", honcho_served.version, sorted(honcho_served.features))
"""


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def served_3_0_12() -> Iterator[tuple[FakeHoncho, str]]:
    """A fake speaking 3.0.12 over HTTP, standing in for a real 3.0.12."""
    with FakeHoncho(version="3.0.12", ignored_fields="allow") as fake, fake.serve() as url:
        yield fake, url


def test_needs_skips_naming_the_feature_on_a_fake_that_lacks_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(NEEDS)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rs", "--honcho-version", "3.0.12")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines_random(
        [
            "*needs Honcho feature(s) scopes; the in-process fake serves Honcho 3.0.12 without "
            "them (--honcho-version)",
            "*needs Honcho feature(s) conclusion-get, workspace-chat; *",
        ]
    )


def test_needs_runs_where_the_version_serves_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(NEEDS)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rs", "--honcho-version", "3.2")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["honcho contract target: in-process fake, speaking Honcho 3.2 *"])


def test_needs_refuses_an_unknown_feature(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.honcho_needs("scopez")
        def test_typo():
            pass
        """
    )
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS)
    assert result.ret != 0
    assert "honcho_needs names unknown feature(s) ['scopez']; known: chat-evidence, " in (
        result.stdout.str()
    )


def test_url_target_is_probed_once_and_reported(
    pytester: pytest.Pytester, served_3_0_12: tuple[FakeHoncho, str]
) -> None:
    """Against a --honcho-url the header says what the probe found, honcho_needs skips say
    it was probed, and the summary lists the fields the server drops without a word."""
    fake, url = served_3_0_12
    pytester.makepyfile(NEEDS)
    result = pytester.runpytest_inprocess(*NO_SNAPSHOTS, "-rs", "-s", "--honcho-url", url)
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines_random(
        [
            f"honcho contract target: fake-honcho (served) at {url}: *, serves Honcho 3.0.12 (*",
            f"*needs Honcho feature(s) scopes; the served fake-honcho at {url} serves Honcho "
            "3.0.12 without them (probed)",
            "*SERVED 3.0.12 *",
            "*honcho: request fields the target ignores (about the server, not your tests)*",
            "  `scope` on workspace search: hits from every session of the workspace, not only "
            "the scope's",
            "  `scopes` on session create: the session joins no scope",
            "  `include_evidence` on peer chat: the answer carries no evidence",
        ]
    )
    probes = [entry for entry in fake.requests if entry.path.endswith("/scopes/list")]
    assert len(probes) == 1


def test_xdist_workers_get_the_controllers_probe(
    pytester: pytest.Pytester, served_3_0_12: tuple[FakeHoncho, str]
) -> None:
    """Probed once, in the controller: the workers neither probe nor guess."""
    fake, url = served_3_0_12
    pytester.makepyfile(NEEDS)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "-rs", "--honcho-url", url
    )  # fmt: skip
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        ["*the served fake-honcho at * serves Honcho 3.0.12 without them (probed)"]
    )
    probes = [entry for entry in fake.requests if entry.path.endswith("/scopes/list")]
    assert len(probes) == 1


SCOPED = """
from contract_tests import HonchoAPIContract

class TestHoncho(HonchoAPIContract):
    pass
"""


def test_a_broadened_scoped_read_is_reported_not_failed(pytester: pytest.Pytester) -> None:
    """On a target without scopes the scoped read is xfailed with its reason (even under
    xfail_strict) and listed in the summary; the run passes."""
    pytester.makeini("[pytest]\nxfail_strict = true\n")
    pytester.makepyfile(SCOPED)
    result = pytester.runpytest_inprocess(
        *NO_SNAPSHOTS, "-k", "scoped_read_is_honoured", "--honcho-version", "3.0.12"
    )
    result.assert_outcomes(xfailed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*honcho: request fields the target ignores (about the server, not your tests)*",
            "  seen: *scoped_read*: `scope` on workspace search answered 200 with hits from "
            "?'inside', 'outside'?, outside the scope; the target serves Honcho 3.0.12, "
            "without scopes: upgrade it before the SDK",
        ]
    )
