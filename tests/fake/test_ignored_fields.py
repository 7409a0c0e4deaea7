"""The ignored-field guard: fields a version drops are journaled, warned about or refused."""

from __future__ import annotations

import itertools
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.cli import build_parser, create_fake
from fake_honcho.http.ignored import IgnoredFieldWarning, later_fields
from fake_honcho.http.schemas import schemas_for
from fake_honcho.versions import VERSIONS, Feature

BASE = "http://fake-honcho.test"
CHAT = "/v3/workspaces/w/peers/alice/chat"
CONTEXT = "/v3/workspaces/w/sessions/s/context"


def _client(fake: FakeHoncho) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url=BASE)


@contextmanager
def no_ignored_field_warning() -> Iterator[None]:
    """Fail if an IgnoredFieldWarning is raised (other warnings are left alone)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert not [w for w in caught if w.category is IgnoredFieldWarning]


@pytest.fixture
def old() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.0.12", strict=True) as fake:
        yield fake


def _first_reading(field: str, schema: str) -> str:
    """The first version whose request schema ``schema`` reads ``field``."""
    for version in VERSIONS.values():
        document = schemas_for(version.schema_layers).documents[schema]
        if field in document.get("properties", {}):
            return version.name
    raise AssertionError(f"no version reads {field}")


def test_scope_sent_to_3_0_12_warns_naming_field_route_version_and_outcome(
    old: FakeHoncho,
) -> None:
    with _client(old) as client, pytest.warns(IgnoredFieldWarning) as caught:
        answer = client.post(CHAT, json={"query": "what tea?", "scope": "work"})
    assert answer.status_code == 200  # the answer a real 3.0.12 gives: unscoped
    [warning] = caught
    served = _first_reading("scope", "DialecticOptions")
    assert str(warning.message) == (
        "Honcho 3.0.12 ignores the field `scope` on POST /v3/workspaces/{w}/peers/{peer_id}"
        "/chat: the answer is not narrowed to the scope "
        f"(served from {served} on)"
    )
    assert old.requests[-1].ignored == ("body.scope",)


def test_the_warning_comes_once_per_route_and_field_and_nothing_else_is_said(
    old: FakeHoncho, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """One channel: a test that catches the warning prints nothing (no log line too)."""
    caplog.set_level(logging.DEBUG)
    with _client(old) as client, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            client.post(CHAT, json={"query": "tea?", "scope": "work"})
        client.post(CHAT, json={"query": "tea?", "include_evidence": True})
    messages = [str(w.message) for w in caught if w.category is IgnoredFieldWarning]
    assert len(messages) == 2
    assert "`scope`" in messages[0] and "`include_evidence`" in messages[1]
    assert "the answer comes without evidence" in messages[1]
    assert [r for r in caplog.records if r.name.startswith("fake_honcho")] == []
    assert capsys.readouterr() == ("", "")
    assert [entry.ignored for entry in old.requests] == [("body.scope",)] * 3 + [
        ("body.include_evidence",)
    ]


def test_error_mode_refuses_with_a_422_naming_each_field() -> None:
    with FakeHoncho(version="3.0.12", ignored_fields="error") as fake, _client(fake) as client:
        answer = client.post(CHAT, json={"query": "tea?", "scope": ["a", "b"]})
        assert answer.status_code == 422
        [item] = answer.json()["detail"]
        assert item["type"] == "extra_forbidden"
        assert item["loc"] == ["body", "scope"]
        assert item["input"] == ["a", "b"]
        assert item["msg"].startswith("Honcho 3.0.12 ignores the field `scope` on POST ")
        assert fake.requests[-1].ignored == ("body.scope",)
        assert fake.store.get("peers", ("w", "alice")) is None  # refused before any write


def test_allow_mode_answers_and_only_journals() -> None:
    with FakeHoncho(version="3.0.12", ignored_fields="allow") as fake, _client(fake) as client:
        with no_ignored_field_warning():
            answer = client.post(CHAT, json={"query": "tea?", "scope": "work"})
        assert answer.status_code == 200
        assert fake.requests[-1].ignored == ("body.scope",)


def test_null_or_false_fields_ask_for_nothing_and_are_not_reported(old: FakeHoncho) -> None:
    with _client(old) as client, no_ignored_field_warning():
        client.post(CHAT, json={"query": "tea?", "scope": None, "include_evidence": False})
    assert old.requests[-1].ignored == ()


def test_a_version_that_reads_the_field_reports_nothing() -> None:
    with FakeHoncho(version="3.2") as fake, _client(fake) as client:
        with no_ignored_field_warning():
            client.post(CHAT, json={"query": "tea?", "include_evidence": True})
            client.get(CONTEXT, params={"peer_target": "alice", "sessions": ["s"]})
        assert [entry.ignored for entry in fake.requests] == [(), ()]


def test_context_sessions_do_nothing_on_3_0_12_and_are_reported(old: FakeHoncho) -> None:
    with _client(old) as client, pytest.warns(IgnoredFieldWarning, match="query parameter"):
        client.post("/v3/workspaces/w/sessions", json={"id": "s", "peers": {"alice": {}}})
        # On 3.1 a `sessions` allowlist without this session is a 422; 3.0.12 never reads it.
        answer = client.get(CONTEXT, params={"peer_target": "alice", "sessions": ["other"]})
    assert answer.status_code == 200
    assert old.requests[-1].ignored == ("query.sessions",)


def test_context_sessions_still_act_from_3_1_on() -> None:
    with FakeHoncho(version="3.1") as fake, _client(fake) as client:
        answer = client.get(
            CONTEXT,
            params={"peer_target": "alice", "sessions": ["s"], "limit_to_session": "true"},
        )
    assert answer.status_code == 422


@pytest.mark.parametrize("name", list(VERSIONS))
def test_dropped_fields_are_exactly_what_a_later_schema_adds(name: str) -> None:
    """Every field the guard names is missing here and read by the version it names."""
    version = VERSIONS[name]
    own = schemas_for(version.schema_layers)
    newest = list(VERSIONS.values())[-1]
    for schema in own.names():
        for field, (served, inner) in later_fields(version, schema).items():
            if served is None:
                continue
            assert field not in own.documents[schema].get("properties", {})
            later = schemas_for(VERSIONS[served].schema_layers).documents[schema]
            assert field in later.get("properties", {}), (schema, field, served)
            assert not inner
    if version is newest:
        assert all(not later_fields(version, schema) for schema in own.names())


def test_the_3_2_fields_are_dropped_before_3_2() -> None:
    for name in ("3.0.12", "3.1"):
        tree = later_fields(VERSIONS[name], "DialecticOptions")
        assert tree["include_evidence"] == ("3.2", {})
    assert VERSIONS["3.2"].speaks(Feature.CHAT_EVIDENCE)


def test_cli_option() -> None:
    args = build_parser().parse_args(["--ignored-fields", "error", "--honcho-version", "3.0.12"])
    with create_fake(args) as fake:
        assert fake.ignored_fields == "error"
    with create_fake(build_parser().parse_args([])) as fake:
        assert fake.ignored_fields == "warn"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--ignored-fields", "shout"])


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="warn, error, allow"):
        FakeHoncho(ignored_fields="shout")  # type: ignore[arg-type]


def test_a_later_version_keeps_every_field_an_earlier_one_reads() -> None:
    """A layer file replaces a whole component: one written before a parent layer changed
    the same component (3.2's chat options over 3.1's) must carry that change too, so a
    field an earlier version reads is in the later one, unchanged."""
    for older, newer in itertools.pairwise(VERSIONS.values()):
        before, after = schemas_for(older.schema_layers), schemas_for(newer.schema_layers)
        for name, document in before.documents.items():
            theirs = after.documents[name].get("properties", {})
            for field, schema in document.get("properties", {}).items():
                assert field in theirs, f"{newer.name}'s {name} drops {field}"
                assert theirs[field] == schema, f"{newer.name}'s {name} changes {field}"


def test_scope_on_workspace_search_read_as_its_3_1_component(old: FakeHoncho) -> None:
    """3.1 reads workspace search as another component (with `scope`): the guard compares
    3.0.12's body with that one."""
    with _client(old) as client, pytest.warns(IgnoredFieldWarning) as caught:
        answer = client.post("/v3/workspaces/w/search", json={"query": "tea", "scope": "work"})
    assert answer.status_code == 200
    assert str(caught[0].message) == (
        "Honcho 3.0.12 ignores the field `scope` on POST /v3/workspaces/{w}/search: "
        "the answer is not narrowed to the scope (served from 3.1 on)"
    )
    with FakeHoncho(version="3.0.12", ignored_fields="error") as fake, _client(fake) as client:
        refused = client.post("/v3/workspaces/w/search", json={"query": "tea", "scope": "work"})
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["body", "scope"]
