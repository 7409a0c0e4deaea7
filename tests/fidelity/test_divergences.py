"""The divergence register stays honest: entries still differ, name real tests, are documented."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from contract_tests import (
    api_contract,
    memory_contract,
    probe,  # imported before pytester snapshots sys.modules
)
from contract_tests.target import HonchoTarget
from fake_honcho import FakeHoncho
from fake_honcho.divergences import render_markdown
from fake_honcho.drift.probe import Served
from fake_honcho.harness.divergences import (
    DIVERGENCES,
    UNSTABLE,
    UNVERIFIED,
    Divergence,
    affecting,
    divergence,
)
from fake_honcho.versions import VERSIONS, Feature

DOC = Path(__file__).resolve().parents[2] / "docs" / "divergences.md"
IDS = [entry.id for entry in DIVERGENCES]


@pytest.fixture(scope="module")
def served_urls() -> Iterator[dict[tuple[str, str, Any], str]]:
    """One fake behind uvicorn per version entries are about and ``real_bugs`` setting:
    probes look at connections, so they need real sockets."""
    with ExitStack() as stack:
        urls = {}
        for version, settings in sorted(
            {(entry.first_version.name, entry.fake_settings) for entry in DIVERGENCES}
        ):
            for real_bugs in ("reproduce", "correct"):
                fake = stack.enter_context(
                    FakeHoncho(version=version, real_bugs=real_bugs, **dict(settings))
                )
                urls[version, real_bugs, settings] = stack.enter_context(fake.serve())
        yield urls


def _observed(entry: Divergence, url: str) -> object:
    with httpx.Client(base_url=url, timeout=30) as client:
        return entry.probe(client, f"div-{uuid.uuid4().hex[:12]}")


@pytest.mark.parametrize("entry", DIVERGENCES, ids=IDS)
def test_probe_still_differs_on_the_fake(
    entry: Divergence, served_urls: dict[tuple[str, str, Any], str]
) -> None:
    """The fake answers ``fake_result``: by default, or, for a reproduced real bug, with
    ``real_bugs="correct"``."""
    real_bugs = "correct" if entry.reproduced else "reproduce"
    observed = _observed(
        entry, served_urls[entry.first_version.name, real_bugs, entry.fake_settings]
    )
    assert observed == entry.fake_result, f"{entry.id}: the fake now answers {observed!r}"
    assert observed != entry.real_result, (
        f"{entry.id}: the fake now behaves as real Honcho does; delete the entry"
    )


@pytest.mark.parametrize(
    "entry", [e for e in DIVERGENCES if e.reproduced], ids=lambda entry: entry.id
)
def test_reproduced_bugs_are_answered_as_the_real_server_does(
    entry: Divergence, served_urls: dict[tuple[str, str, Any], str]
) -> None:
    assert entry.kind == "real-bug" and entry.real_result not in (UNSTABLE, UNVERIFIED)
    observed = _observed(
        entry, served_urls[entry.first_version.name, "reproduce", entry.fake_settings]
    )
    assert observed == entry.real_result, f"{entry.id}: the fake now answers {observed!r}"


@pytest.mark.parametrize("entry", DIVERGENCES, ids=IDS)
def test_probe_matches_the_real_server(
    entry: Divergence, honcho_target: HonchoTarget, honcho_workspace: str, honcho_served: Served
) -> None:
    """With ``--honcho-url``: the recorded real result is still what the server answers,
    for the entries that apply to what the server is probed to serve."""
    if honcho_target.served_fake is not None:
        pytest.skip(
            f"the server at --honcho-url is {honcho_target.served_fake}: the probes describe "
            "a real Honcho"
        )
    if honcho_target.is_fake:
        pytest.skip("compares with a real server: run with --honcho-url")
    if not entry.applies_to(honcho_served.features):
        pytest.skip(
            f"{entry.id} applies to Honcho {', '.join(entry.versions)}; the server serves "
            f"{honcho_served.describe()}"
        )
    if entry.real_result is UNVERIFIED:
        pytest.skip(f"{entry.id} is modelled from the SDKs: no real result to compare with")
    with honcho_target.client() as client:
        observed = entry.probe(client, honcho_workspace)
    if entry.real_result is UNSTABLE:
        return  # nothing a single run reproduces; the probe ran without error
    assert observed == entry.real_result, f"{entry.id}: the real server now answers {observed!r}"


def test_each_reproduced_bug_says_what_correct_changes() -> None:
    """docs/divergences.md names, for each real bug, what ``real_bugs="correct"`` answers."""
    for entry in DIVERGENCES:
        if entry.reproduced:
            assert "corrected: " in entry.fake, f"{entry.id}: say 'corrected: ...' in fake"
    assert DOC.read_text(encoding="utf-8").count('**With `real_bugs="correct"`:**') == sum(
        entry.kind == "real-bug" for entry in DIVERGENCES
    )


def test_entries_are_complete_and_ids_unique() -> None:
    assert len(set(IDS)) == len(IDS)
    for entry in DIVERGENCES:
        assert entry.versions, f"{entry.id}: applies to no version"
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry.id), entry.id
        for field in ("summary", "real", "fake", "reason", "evidence"):
            assert getattr(entry, field).strip(), f"{entry.id}: empty {field}"
        if entry.kind == "unspecified":
            assert entry.real_result is UNSTABLE, f"{entry.id}: unspecified yet reproducible"
        assert (entry.kind == "modelled") == (entry.real_result is UNVERIFIED), entry.id
        if entry.kind == "modelled":
            assert "modelled, not verified" in entry.evidence, f"{entry.id}: name the source"


@pytest.mark.parametrize(
    "name", sorted({name for entry in DIVERGENCES for name in entry.affects}), ids=str
)
def test_affected_tests_exist(name: str) -> None:
    """A renamed contract test must not silently stop being skipped on a real server."""
    class_name, _, test_name = name.partition(".")
    suites = {**vars(api_contract), **vars(memory_contract)}
    assert class_name in suites, f"no contract class {class_name}"
    assert callable(getattr(suites[class_name], test_name, None)), f"no test {name}"


def test_lookup_by_id() -> None:
    assert divergence("real-clone-cross-workspace").kind == "real-bug"
    with pytest.raises(KeyError, match="known: real-invalid-author-500"):
        divergence("nope")


def test_affecting_matches_class_qualified_names() -> None:
    found = affecting({"ContractSuite.x", "HonchoAPIContract.test_clone_session"})
    assert [entry.id for entry in found] == ["real-clone-cross-workspace"]
    assert affecting({"TestHoncho.test_clone_session"}) == []


def test_a_bug_a_version_fixed_is_no_divergence_there() -> None:
    """real-invalid-author-500 holds on 3.0.12 and is gone from 3.1 (peer-name-422) on."""
    entry = divergence("real-invalid-author-500")
    assert entry.versions == ("3.0.12",)
    assert entry.applies_to(VERSIONS["3.0.12"].features)
    assert not entry.applies_to(VERSIONS["3.1"].features)
    names = {"HonchoAPIContract.test_new_peer_name_from_message_is_validated"}
    assert [e.id for e in affecting(names, VERSIONS["3.0.12"].features)] == [entry.id]
    assert affecting(names, {Feature.PEER_NAME_422}) == []
    assert "real Honcho 3.0.12 differs here" in entry.skip_reason
    assert divergence("webhooks-order").versions == tuple(VERSIONS)


def test_docs_page_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        "docs/divergences.md is stale: python -m fake_honcho.divergences > docs/divergences.md"
    )


INNER_SUITE = """
from contract_tests import HonchoAPIContract

class TestHoncho(HonchoAPIContract):
    pass
"""


def test_suites_skip_declared_tests_on_a_real_server(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against a server given by ``--honcho-url`` a declared test is skipped, naming its entry
    (a served fake stands in for the real server, made not to say what it is)."""
    monkeypatch.setattr(probe, "served_fake", lambda target: None)
    pytester.makepyfile(INNER_SUITE)
    with FakeHoncho() as fake, fake.serve() as url:
        result = pytester.runpytest_inprocess(
            "-p", "no:cacheprovider", "-p", "no:syrupy", "-rs", "--honcho-url", url,
            "-k", "test_clone_session or test_delete_session",
        )  # fmt: skip
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*divergence real-clone-cross-workspace*"])


def test_a_served_fake_is_not_taken_for_a_real_server(pytester: pytest.Pytester) -> None:
    """It says what it is (GET /_fake/about): the header names it, declared tests run."""
    pytester.makepyfile(INNER_SUITE)
    with FakeHoncho() as fake, fake.serve() as url:
        result = pytester.runpytest_inprocess(
            "-p", "no:cacheprovider", "-p", "no:syrupy", "-rs", "--honcho-url", url,
            "-k", "test_clone_session or test_delete_session",
        )  # fmt: skip
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [f"honcho contract target: fake-honcho (served) at {url}: fake-honcho * speaking *"]
    )
