"""Config parsing: upstream defaults and rules, plus the stricter fixes."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from honcho_backend import HonchoConfig, HonchoMemoryManager, sanitize_id, session_id_for, stable_id


def parse(**cfg: Any) -> HonchoConfig:
    return HonchoConfig.from_backend_config(cfg)


def test_defaults() -> None:
    cfg = parse()
    assert cfg.base_url == "http://localhost:8000"
    assert cfg.api_key is None
    assert cfg.workspace_prefix == "deerflow-u-"
    assert cfg.workspace_overrides == {} and cfg.user_peer_overrides == {}
    assert cfg.assistant_peer == "deerflow"
    assert (cfg.timeout_seconds, cfg.connect_timeout_seconds) == (10.0, 3.0)
    assert (cfg.message_char_limit, cfg.max_injection_chars) == (8000, 6000)
    assert cfg.read_fail_closed is False
    assert cfg.allow_insecure_http is False
    assert HonchoConfig.from_backend_config(None) == cfg


def test_parses_knobs_and_ignores_unknown_keys(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="honcho_backend"):
        cfg = parse(
            base_url="https://api.honcho.dev/",
            api_key="sk-h",
            workspace_overrides={"alice": "shared"},
            user_peer_overrides={"alice": "alice"},
            failure_policy={"read": "fail_closed"},
            storage_path="/tmp/deerflow",
            surprise="value-not-logged",
        )
    assert cfg.base_url == "https://api.honcho.dev"
    assert cfg.workspace_overrides == {"alice": "shared"}
    assert cfg.user_peer_overrides == {"alice": "alice"}
    assert cfg.read_fail_closed is True
    assert cfg.storage_path == "/tmp/deerflow"
    assert "surprise" in caplog.text and "value-not-logged" not in caplog.text


@pytest.mark.parametrize(
    ("given", "warning"),
    [
        (
            {"base_ur": "http://x"},
            "ignoring unknown backend_config key `base_ur` (did you mean `base_url`?)",
        ),
        (
            {"apikey_env": "K"},
            "ignoring unknown backend_config key `apikey_env` (did you mean `api_key_env`?)",
        ),
        ({"zzz": 1}, "ignoring unknown backend_config key `zzz`"),
        (
            {"failure_policy": {"raed": "fail_open"}},
            "ignoring unknown failure_policy key `raed` (did you mean `read`?)",
        ),
    ],
)
def test_an_unknown_key_warns_naming_the_nearest_known_one(
    caplog: pytest.LogCaptureFixture, given: dict[str, object], warning: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="honcho_backend"):
        parse(**given)  # upstream DeerFlow accepts unknown keys: a warning, never a refusal
    assert [r.getMessage() for r in caplog.records] == [f"Honcho backend: {warning}"]


def test_http_with_api_key_requires_opt_in() -> None:
    with pytest.raises(ValueError, match="allow_insecure_http"):
        parse(base_url="http://honcho.local", api_key="sk-h")
    cfg = parse(base_url="http://honcho.local", api_key="sk-h", allow_insecure_http=True)
    assert cfg.api_key == "sk-h"


def test_from_config_errors_are_one_line_value_errors_naming_the_key() -> None:
    cases = {
        "refusing to send api_key over plain http": {
            "base_url": "http://honcho.local",
            "api_key": "sk-secret-9",
        },
        "timeout_seconds must be a number": {"timeout_seconds": "soon"},
        "failure_policy.read must be fail_open or fail_closed": {
            "failure_policy": {"read": "maybe"}
        },
        "backend_config: Input should be a valid dictionary": "not a mapping",
    }
    for text, config in cases.items():
        with pytest.raises(ValueError) as raised:
            HonchoMemoryManager.from_config(config)  # type: ignore[arg-type]
        message = str(raised.value)
        assert type(raised.value) is ValueError and "\n" not in message, message
        assert text in message and "sk-secret-9" not in message
        assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_http_without_api_key_is_fine() -> None:
    assert parse(base_url="http://honcho.local").base_url == "http://honcho.local"


@pytest.mark.parametrize(
    ("key", "overrides"),
    [
        ("workspace_overrides", {"alice": ""}),
        ("workspace_overrides", {"alice": None}),
        ("user_peer_overrides", {"alice": "   "}),
    ],
)
def test_empty_override_values_rejected(key: str, overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=key):
        parse(**{key: overrides})


@pytest.mark.parametrize("key", ["timeout_seconds", "connect_timeout_seconds"])
@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), float("-inf")])
def test_rejects_invalid_timeouts(key: str, bad: float) -> None:
    with pytest.raises(ValueError, match=key):
        parse(**{key: bad})


@pytest.mark.parametrize("key", ["message_char_limit", "max_injection_chars"])
@pytest.mark.parametrize("bad", [0, -1])
def test_rejects_non_positive_character_limits(key: str, bad: int) -> None:
    with pytest.raises(ValueError, match=key):
        parse(**{key: bad})


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("timeout_seconds", 0.0),
        ("connect_timeout_seconds", float("nan")),
        ("message_char_limit", 0),
        ("max_injection_chars", -5),
    ],
)
def test_direct_construction_enforces_limits(key: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=key):
        HonchoConfig(**{key: bad})


def test_accepts_custom_positive_timeouts_and_character_limits() -> None:
    cfg = parse(
        timeout_seconds=2.5,
        connect_timeout_seconds="0.5",
        message_char_limit=12,
        max_injection_chars=8,
    )
    assert (cfg.timeout_seconds, cfg.connect_timeout_seconds) == (2.5, 0.5)
    assert (cfg.message_char_limit, cfg.max_injection_chars) == (12, 8)


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("timeout_seconds", "soon"),
        ("timeout_seconds", True),
        ("message_char_limit", 10.5),
        ("message_char_limit", "many"),
        ("base_url", 8000),
        ("workspace_overrides", ["alice"]),
        ("failure_policy", "fail_closed"),
    ],
)
def test_wrong_types_name_the_key(key: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=key):
        parse(**{key: bad})


def test_message_char_limit_never_exceeds_honcho_maximum() -> None:
    assert parse(message_char_limit=100_000).effective_message_char_limit == 25_000
    assert parse(message_char_limit=10).effective_message_char_limit == 10


# -- fixes over upstream -------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(True, True), (False, False), ("true", True), ("false", False), (" FALSE ", False)],
)
def test_booleans_parsed_strictly(raw: Any, expected: bool) -> None:
    cfg = parse(allow_insecure_http=raw)
    assert cfg.allow_insecure_http is expected


@pytest.mark.parametrize("bad", ["yes", "0", 1, 0, [], {}])
def test_non_boolean_is_an_error(bad: Any) -> None:
    with pytest.raises(ValueError, match="allow_insecure_http"):
        parse(allow_insecure_http=bad)


def test_string_false_does_not_opt_into_insecure_http() -> None:
    with pytest.raises(ValueError, match="allow_insecure_http"):
        parse(base_url="http://h", api_key="sk", allow_insecure_http="false")


@pytest.mark.parametrize("policy", ["fail_open", "FAIL_OPEN", None])
def test_read_policy_fail_open(policy: Any) -> None:
    assert parse(failure_policy={"read": policy}).read_fail_closed is False


@pytest.mark.parametrize("bad", ["fail_close", "closed", "raise", 1])
def test_misspelt_read_policy_is_an_error(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"failure_policy\.read"):
        parse(failure_policy={"read": bad})


@pytest.mark.parametrize("bad", ["ftp://honcho", "honcho.local:8000", "http://", "", "https:// x"])
def test_base_url_must_be_http_or_https(bad: str) -> None:
    with pytest.raises(ValueError, match="base_url"):
        parse(base_url=bad)


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("https://h/v3", "https://h"),
        ("https://h/v3/", "https://h"),
        ("https://h/honcho/v3/workspaces", "https://h/honcho"),
        ("https://h/?a=1", "https://h/"),
        ("https://h#top", "https://h"),
    ],
)
def test_base_url_that_misses_every_route_is_refused_with_the_fix(url: str, fix: str) -> None:
    """With ``/v3`` in base_url every request goes to ``/v3/v3/...`` and gets a 404: under
    fail_open every write would be dropped and every read empty, without an error. So
    ``from_config`` refuses it in one line naming the key and the value to use."""
    with pytest.raises(ValueError) as raised:
        HonchoMemoryManager.from_config({"base_url": url})
    message = str(raised.value)
    assert "\n" not in message and "base_url" in message
    assert message.endswith(f"use base_url: {fix}")


def test_base_url_under_a_path_prefix_is_kept() -> None:
    assert parse(base_url="https://h/honcho/").base_url == "https://h/honcho"


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("workspace_prefix", "deer flow."),
        ("workspace_prefix", "p" * 500),
        ("assistant_peer", "deer.flow"),
        ("assistant_peer", ""),
        ("assistant_peer", "a" * 513),
        ("workspace_overrides", {"alice": "shared space"}),
        ("user_peer_overrides", {"alice": "al@ice"}),
        ("user_peer_overrides", {"alice": "x" * 513}),
    ],
)
def test_ids_must_stay_inside_honchos_grammar(key: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=key):
        parse(**{key: bad})


def test_empty_prefix_and_longest_prefix_are_accepted() -> None:
    assert parse(workspace_prefix="").workspace_for("alice") == stable_id("alice")
    longest = "p" * (512 - 57)
    workspace = parse(workspace_prefix=longest).workspace_for("u" * 300)
    assert len(workspace) == 512


def test_api_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HONCHO_TEST_KEY", "sk-from-env")
    assert parse(api_key="$HONCHO_TEST_KEY", base_url="https://h").api_key == "sk-from-env"
    assert parse(api_key_env="HONCHO_TEST_KEY", base_url="https://h").api_key == "sk-from-env"


@pytest.mark.parametrize(
    ("key", "value"), [("api_key", "$NO_SUCH_VAR_X"), ("api_key_env", "NO_SUCH_VAR_X")]
)
def test_missing_environment_variable_is_named(
    monkeypatch: pytest.MonkeyPatch, key: str, value: str
) -> None:
    monkeypatch.delenv("NO_SUCH_VAR_X", raising=False)
    with pytest.raises(ValueError, match="NO_SUCH_VAR_X") as info:
        parse(**{key: value})
    assert key in str(info.value)


def test_api_key_and_api_key_env_are_exclusive() -> None:
    with pytest.raises(ValueError, match="api_key_env"):
        parse(api_key="sk", api_key_env="X", base_url="https://h")


def test_api_key_never_in_repr_or_errors() -> None:
    secret = "sk-very-secret-123"
    cfg = parse(api_key=secret, base_url="https://h")
    assert secret not in repr(cfg) and secret not in str(cfg)
    with pytest.raises(ValueError) as info:
        parse(api_key=secret, base_url="http://h")
    assert secret not in str(info.value)
    with pytest.raises(ValueError) as info:
        parse(api_key="sk with space", base_url="https://h")
    assert "with space" not in str(info.value)
    manager = HonchoMemoryManager.from_config({"api_key": secret, "base_url": "https://h"})
    assert secret not in repr(manager) and secret not in str(manager)


# -- identity ------------------------------------------------------------------


def test_sanitize_passthrough_and_cleanup() -> None:
    assert sanitize_id("alice_01-x") == "alice_01-x"
    assert sanitize_id("weird id@example.com") == "weird-id-example-com"
    assert sanitize_id("x" * 200) == "x" * 64
    assert sanitize_id("") == ""
    assert sanitize_id("..a..") == "a"


def test_stable_id_matches_upstream_formula() -> None:
    # sha256("alice") starts with 2bd806c9.
    assert stable_id("alice") == "alice-2bd806c9"
    assert stable_id("!!!") == stable_id("!!!").strip("-") and "-" not in stable_id("!!!")
    long_raw = "a" * 47 + "." + "b" * 10
    assert stable_id(long_raw).startswith("a" * 47 + "-")
    assert len(stable_id(long_raw)) == 47 + 1 + 8


def test_default_workspace_and_peer_resist_sanitize_collisions() -> None:
    cfg = parse()
    a, b = "user.name@x", "user-name@x"
    assert sanitize_id(a) == sanitize_id(b)
    assert cfg.workspace_for(a) != cfg.workspace_for(b)
    assert cfg.user_peer_for(a) != cfg.user_peer_for(b)


def test_user_peer_never_empty_for_degenerate_raw_id() -> None:
    cfg = parse()
    assert cfg.user_peer_for("!!!")
    assert cfg.workspace_for("!!!") != cfg.workspace_prefix


def test_overrides_win() -> None:
    cfg = parse(workspace_overrides={"alice": "shared"}, user_peer_overrides={"alice": "al"})
    assert (cfg.workspace_for("alice"), cfg.user_peer_for("alice")) == ("shared", "al")
    assert cfg.shares_workspace("alice") and not cfg.shares_workspace("bob")
    assert cfg.workspace_for("bob") == "deerflow-u-" + stable_id("bob")


def test_session_ids_resist_sanitize_collisions() -> None:
    assert session_id_for("t.1") != session_id_for("t-1")
    assert session_id_for("t-1") == "df-" + stable_id("t-1")
