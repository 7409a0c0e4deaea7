"""The coercion matrix: every scalar-typed request field of Honcho 3.0.12 x lax values.

Honcho's models (``src/schemas/api.py``, ``configuration.py``) and routers' query
parameters are validated by pydantic in lax mode. For each field these scripts send
values pydantic accepts and converts (``"yes"``, ``" 2 "``, ``true`` for an integer,
``1700000000`` for a datetime) and values it refuses, in the place the field lives
(body, nested body, query). Where the route echoes the field, the answer shows the
coerced value (configuration, peer config, page size, reverse order, search limit,
context budget); elsewhere the status tells acceptance. Routes that need an LLM at
the tag (chat) are sent refused values only: an accepted one is a 500 there.

``fake-honcho compare --against URL`` runs them beside the exchange scripts;
``--script coercion_... --record tests/fidelity/coercion`` re-records the ones this
project's ``tests/fidelity/test_coercion.py`` replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fake_honcho.drift.exchange import Script, Step

__all__ = ["COERCION_SCRIPTS"]

W = "/v3/workspaces/{ws}"
S = W + "/sessions/s1"

# Body values (JSON), accepted then refused, per pydantic type.
BOOL_OK: list[Any] = [True, False, "yes", "off", "1", "0", 1, 0, "t", "F", "on", "n", "TRUE", 1.0]
BOOL_BAD: list[Any] = [2, 1.5, -1, "maybe", "", " true ", "1.0", [], {}]
INT_OK: list[Any] = [3, "2", " 2 ", 2.0, True, "1.0", "+3", "1_0"]
INT_BAD: list[Any] = [2.5, "2.5", "x", "", "1e2", False, 0, 101, [], {}, "\u0661\u0662"]
FLOAT_OK: list[Any] = [0.5, "0.5", " 0.5 ", 1, True, "1e-1", 0, "0"]
FLOAT_BAD: list[Any] = ["x", "", "nan", "inf", 2, -0.1, "-0.1", [], {}]
STR_BAD: list[Any] = [5, 5.5, True, [], {"a": 1}]
DATETIME_OK: list[Any] = [
    "2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05",
    "2024-01-02T03:04:05.123456+02:00",
    "2024-01-02 03:04:05",
    "2024-01-02",
    1700000000,
    1700000000.5,
    "1700000000",
    0,
]
DATETIME_BAD: list[Any] = ["2024-13-01T00:00:00Z", "2024-01-02T25:00:00", "x", "", True, [], {}]
DICT_BAD: list[Any] = [[], "x", 5, True]
STR_LIST_OK: list[Any] = [["a", "b"], []]
STR_LIST_BAD: list[Any] = ["a", [1], [None], {"a": 1}, None, 5]

# Query values (always strings on the wire).
QBOOL_OK = ["yes", "off", "1", "0", "t", "F", "on", "n", "TRUE", "true", "False"]
QBOOL_BAD = ["2", "maybe", "", " true ", "1.0", "-1"]
QINT_OK = ["2", " 2 ", "1.0", "+2", "02"]
QINT_BAD = ["2.5", "x", "", "0", "101", "1e2", "true", "\u0661"]
QFLOAT_OK = ["0.5", " 0.5 ", "1", "1e-1", "0"]
QFLOAT_BAD = ["x", "", "nan", "inf", "2", "-0.1", "true"]


def body_field(
    method: str, path: str, build: Any, ok: Sequence[Any], bad: Sequence[Any], note: str
) -> list[Step]:
    """One step per value: ``build(value)`` is the JSON body."""
    return [
        Step(method, path, json=build(value), note=f"{note} = {value!r}") for value in [*ok, *bad]
    ]


def beside(base: dict[str, Any], key: str) -> Any:
    """A body builder: ``base`` with ``key`` set to the value under test."""
    return lambda value: {**base, key: value}


def keyed(method: str, path: str, key: str, ok: Sequence[Any], bad: Sequence[Any]) -> list[Step]:
    """``body_field`` for a body holding the one field ``key``."""
    return body_field(method, path, lambda value: {key: value}, ok, bad, key)


def query_field(
    method: str, path: str, name: str, ok: Sequence[str], bad: Sequence[str], **fixed: str
) -> list[Step]:
    """One step per value of query parameter ``name`` (beside the ``fixed`` ones)."""
    return [
        Step(method, path, params={**fixed, name: value}, note=f"?{name}={value!r}")
        for value in [*ok, *bad]
    ]


def _config(section: str, key: str) -> Any:
    return lambda value: {"configuration": {section: {key: value}}}


WORKSPACES = Script(
    "coercion_workspaces",
    [
        Step("POST", "/v3/workspaces", json={"name": "{ws}"}, note="name is accepted for id"),
        *body_field(
            "POST", "/v3/workspaces", lambda v: {"id": v}, [], STR_BAD, "WorkspaceCreate.id"
        ),
        *body_field(
            "POST",
            "/v3/workspaces",
            lambda v: {"id": "{ws}", "metadata": v},
            [],
            DICT_BAD,
            "metadata",
        ),
        *body_field(
            "PUT", W, _config("reasoning", "enabled"), BOOL_OK, BOOL_BAD, "reasoning.enabled"
        ),
        *body_field("PUT", W, _config("reasoning", "enabled"), [None], [], "reasoning.enabled"),
        *body_field(
            "PUT", W, _config("peer_card", "use"), BOOL_OK[:4], BOOL_BAD[:4], "peer_card.use"
        ),
        *body_field(
            "PUT", W, _config("peer_card", "create"), BOOL_OK[4:8], BOOL_BAD[4:], "peer_card.create"
        ),
        *body_field(
            "PUT", W, _config("dream", "enabled"), BOOL_OK[8:], BOOL_BAD[:3], "dream.enabled"
        ),
        *body_field(
            "PUT", W, _config("summary", "enabled"), ["yes", 0], ["no way"], "summary.enabled"
        ),
        *body_field(
            "PUT",
            W,
            _config("summary", "messages_per_short_summary"),
            ["12", " 10 ", 15.0, "1_0"],
            [True, 9, "9", 10.5, "ten"],
            "summary.messages_per_short_summary",
        ),
        *body_field(
            "PUT",
            W,
            _config("summary", "messages_per_long_summary"),
            ["30", 25.0],
            [19, "x", []],
            "summary.messages_per_long_summary",
        ),
        *body_field(
            "PUT",
            W,
            _config("reasoning", "custom_instructions"),
            [],
            STR_BAD,
            "custom_instructions",
        ),
        *body_field("PUT", W, lambda v: {"configuration": v}, [], DICT_BAD, "configuration"),
        *body_field(
            "PUT", W, lambda v: {"configuration": {"reasoning": v}}, [], DICT_BAD, "reasoning"
        ),
        *query_field("POST", "/v3/workspaces/list", "reverse", [], QBOOL_BAD),
        *query_field("POST", "/v3/workspaces/list", "page", [], [*QINT_BAD[:4], "true"]),
        *query_field("POST", "/v3/workspaces/list", "size", [], QINT_BAD),
    ],
    "Workspace create/update fields and the list's query parameters.",
)

_PEERS = [Step("POST", W + "/peers", json={"id": name}) for name in ("alice", "bob", "carol")]

PEERS = Script(
    "coercion_peers",
    [
        *_PEERS,
        Step("POST", W + "/peers", json={"name": "dave"}, note="name is accepted for id"),
        *body_field("POST", W + "/peers", lambda v: {"id": v}, [], STR_BAD, "PeerCreate.id"),
        *body_field(
            "POST",
            W + "/peers",
            lambda v: {"id": "erin", "configuration": v},
            [],
            DICT_BAD,
            "configuration",
        ),
        *body_field(
            "PUT",
            W + "/peers/alice",
            lambda v: {"metadata": v},
            [],
            DICT_BAD,
            "PeerUpdate.metadata",
        ),
        *query_field("POST", W + "/peers/list", "reverse", QBOOL_OK, QBOOL_BAD),
        *query_field("POST", W + "/peers/list", "page", QINT_OK, QINT_BAD[:5], size="1"),
        *query_field("POST", W + "/peers/list", "size", QINT_OK, QINT_BAD),
        *body_field(
            "PUT",
            W + "/peers/alice/card",
            lambda v: {"peer_card": v},
            STR_LIST_OK,
            STR_LIST_BAD,
            "peer_card",
        ),
        *query_field("GET", W + "/peers/alice/context", "search_top_k", QINT_OK[:3], QINT_BAD),
        *query_field(
            "GET", W + "/peers/alice/context", "max_conclusions", QINT_OK[3:], QINT_BAD[:4]
        ),
        *query_field(
            "GET", W + "/peers/alice/context", "search_max_distance", QFLOAT_OK, QFLOAT_BAD
        ),
        *query_field(
            "GET", W + "/peers/alice/context", "include_most_frequent", QBOOL_OK[:4], QBOOL_BAD
        ),
        *[
            step
            for key, ok, bad in (
                ("search_top_k", INT_OK, INT_BAD),
                ("max_conclusions", INT_OK[:3], [None, *INT_BAD[:4]]),
                ("search_max_distance", FLOAT_OK, FLOAT_BAD),
                ("include_most_frequent", BOOL_OK[:5], BOOL_BAD),
                ("session_id", [], STR_BAD),
                ("target", [], STR_BAD),
            )
            for step in keyed("POST", W + "/peers/alice/representation", key, ok, bad)
        ],
        *[
            step
            for key, base, bad in (
                ("stream", {"query": "hi"}, BOOL_BAD),
                ("query", {}, [*STR_BAD, ""]),
                ("reasoning_level", {"query": "hi"}, ["LOW", "x", 1, None]),
            )
            for step in body_field("POST", W + "/peers/alice/chat", beside(base, key), [], bad, key)
        ],
        *query_field("POST", W + "/peers/alice/sessions", "reverse", QBOOL_OK[:3], QBOOL_BAD[:3]),
        *body_field("POST", W + "/peers/list", lambda v: {"filters": v}, [], DICT_BAD, "filters"),
    ],
    "Peer fields, the peer list's query parameters, card, context and representation.",
)

TEA = {"query": "tea"}

# Four messages to search, page and budget, one request each: they rank alike, and the
# server breaks ties by created_at only, which messages of one request share (the order
# among them is then the plan's: search-tie-order).
_MESSAGES = [
    Step(
        "POST",
        S + "/messages",
        json={"messages": [{"peer_id": "alice", "content": f"tea number {n} " * 3}]},
        note=f"message {n} of four to search, page and budget",
    )
    for n in range(4)
]


def _message(**fields: Any) -> Any:
    return lambda value: {"messages": [{"peer_id": "alice", "content": "hello", **fields, **value}]}


MESSAGES = Script(
    "coercion_messages",
    [
        *_MESSAGES,
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": "alice", "content": v}]},
            [],
            [*STR_BAD, None],
            "content",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": v, "content": "x"}]},
            [],
            STR_BAD,
            "peer_id",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": "bob", "content": "x", "created_at": v}]},
            DATETIME_OK,
            DATETIME_BAD,
            "created_at",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": "bob", "content": "x", "metadata": v}]},
            [],
            DICT_BAD,
            "metadata",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {
                "messages": [
                    {
                        "peer_id": "bob",
                        "content": "x",
                        "configuration": {"reasoning": {"enabled": v}},
                    }
                ]
            },
            BOOL_OK[:3],
            BOOL_BAD[:4],
            "message configuration.reasoning.enabled",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": v},
            [],
            ["x", {"a": 1}, [5], ["x"], None],
            "messages",
        ),
        *body_field("POST", S + "/messages", lambda v: v, [], [[], "x", 5], "MessageBatchCreate"),
        *body_field(
            "POST",
            W + "/search",
            lambda v: {"query": "tea", "limit": v},
            INT_OK,
            INT_BAD,
            "search limit",
        ),
        *body_field(
            "POST", W + "/search", lambda v: {"query": v}, [], [*STR_BAD, None], "search query"
        ),
        *body_field(
            "POST",
            W + "/search",
            lambda v: {"query": "tea", "filters": v},
            [],
            DICT_BAD,
            "search filters",
        ),
        *body_field(
            "POST",
            S + "/search",
            lambda v: {"query": "tea", "limit": v},
            INT_OK[:3],
            INT_BAD[:3],
            "session search limit",
        ),
        *body_field(
            "POST",
            W + "/peers/alice/search",
            lambda v: {"query": "tea", "limit": v},
            INT_OK[3:],
            INT_BAD[3:6],
            "peer search limit",
        ),
        *query_field("POST", S + "/messages/list", "reverse", QBOOL_OK[:5], QBOOL_BAD),
        *query_field("POST", S + "/messages/list", "size", QINT_OK, QINT_BAD[:6]),
        *query_field("POST", S + "/messages/list", "page", QINT_OK[:2], QINT_BAD[:3], size="2"),
    ],
    "Message create fields (nested in the batch), search limits, the message list's query.",
)

SESSIONS = Script(
    "coercion_sessions",
    [
        Step("POST", W + "/sessions", json={"name": "s1"}, note="name is accepted for id"),
        *_MESSAGES,
        *body_field("POST", W + "/sessions", lambda v: {"id": v}, [], STR_BAD, "SessionCreate.id"),
        *body_field(
            "POST",
            W + "/sessions",
            lambda v: {"id": "s2", "peers": {"bob": {"observe_me": v}}},
            [],
            BOOL_BAD,
            "peers.observe_me",
        ),
        Step(
            "POST",
            W + "/sessions",
            json={"id": "s3", "peer_names": {"bob": {"observe_others": "yes"}}},
            note="peer_names is accepted for peers",
        ),
        Step("GET", W + "/sessions/s3/peers/bob/config", note="the config sent as peer_names"),
        *[
            step
            for value in [*BOOL_OK, *BOOL_BAD, None]
            for step in (
                Step(
                    "PUT",
                    S + "/peers/alice/config",
                    json={"observe_me": value},
                    note=f"observe_me = {value!r}",
                ),
                Step("GET", S + "/peers/alice/config", note="as stored"),
            )
        ],
        *[
            step
            for value in ["on", 0, "maybe"]
            for step in (
                Step(
                    "POST",
                    S + "/peers",
                    json={"carol": {"observe_others": value}},
                    note=f"add peers observe_others = {value!r}",
                ),
                Step("GET", S + "/peers/carol/config", note="as stored"),
            )
        ],
        *body_field(
            "PUT",
            S + "/peers",
            lambda v: {"alice": {"observe_me": v}},
            ["f"],
            ["x", 3],
            "set peers observe_me",
        ),
        *body_field("PUT", S + "/peers", lambda v: {"alice": v}, [], DICT_BAD, "set peers config"),
        *body_field(
            "DELETE",
            S + "/peers",
            lambda v: v,
            [],
            ["alice", [1], {"a": 1}, 5],
            "remove peers list",
        ),
        *body_field(
            "PUT", S, _config("summary", "enabled"), ["no", 1], ["nope"], "session summary.enabled"
        ),
        *body_field("PUT", S, lambda v: {"metadata": v}, [], DICT_BAD, "session metadata"),
        *query_field("POST", W + "/sessions/list", "reverse", QBOOL_OK[:2], QBOOL_BAD[:3]),
        *query_field("POST", W + "/sessions/list", "size", QINT_OK[:2], QINT_BAD[:3]),
        *query_field(
            "GET",
            S + "/context",
            "tokens",
            ["9", " 9 ", "9.0", "+9", "0", "-5"],
            ["9.5", "x", "", "100001", "true"],
        ),
        *query_field("GET", S + "/context", "summary", QBOOL_OK, QBOOL_BAD),
        *query_field("GET", S + "/context", "limit_to_session", QBOOL_OK[:3], QBOOL_BAD[:3]),
        *query_field("GET", S + "/context", "include_most_frequent", QBOOL_OK[3:6], QBOOL_BAD[3:]),
        *query_field("GET", S + "/context", "search_top_k", QINT_OK[:2], QINT_BAD[:4]),
        *query_field("GET", S + "/context", "max_conclusions", QINT_OK[2:], QINT_BAD[4:]),
        *query_field("GET", S + "/context", "search_max_distance", QFLOAT_OK[:3], QFLOAT_BAD),
    ],
    "Session fields, session-peer configs (stored and read back), list and context queries.",
)

CONCLUSIONS = Script(
    "coercion_conclusions",
    [
        *_PEERS,
        *body_field(
            "POST",
            W + "/conclusions",
            lambda v: {
                "conclusions": [{"content": v, "observer_id": "alice", "observed_id": "bob"}]
            },
            [],
            [*STR_BAD, ""],
            "conclusion content",
        ),
        *body_field(
            "POST",
            W + "/conclusions",
            lambda v: {"conclusions": [{"content": "x", "observer_id": v, "observed_id": "bob"}]},
            [],
            STR_BAD,
            "observer_id",
        ),
        *body_field(
            "POST",
            W + "/conclusions",
            lambda v: {"observations": v},
            [],
            ["x", [5], {}],
            "observations (alias)",
        ),
        *[
            step
            for key, bad in (("top_k", INT_BAD), ("distance", FLOAT_BAD))
            for step in body_field(
                "POST", W + "/conclusions/query", beside(TEA, key), [], bad, f"query {key}"
            )
        ],
        *query_field("POST", W + "/conclusions/list", "reverse", QBOOL_OK[:3], QBOOL_BAD[:3]),
        *query_field("POST", W + "/conclusions/list", "size", QINT_OK[:2], QINT_BAD[:3]),
        *[
            step
            for key, base, bad in (
                ("dream_type", {"observer": "alice"}, ["OMNI", "x", 1, None]),
                ("rebuild", {"observer": "alice", "dream_type": "omni"}, BOOL_BAD),
                ("observer", {"dream_type": "omni"}, STR_BAD),
            )
            for step in body_field("POST", W + "/schedule_dream", beside(base, key), [], bad, key)
        ],
        *body_field("POST", W + "/webhooks", lambda v: {"url": v}, [], STR_BAD, "webhook url"),
    ],
    "Conclusions, conclusion queries, dreams and webhooks: the refusals (the accepted "
    "values of these routes need embeddings or an LLM at the tag).",
)

# custom_instructions at the 2,000-token budget (o200k_base), and text holding a special
# token, which Honcho's estimate counts as len // 4 (tiktoken's encode refuses it).
WORDS_2000 = "word" + " word" * 1999
WORDS_2001 = WORDS_2000 + " word"
SPECIAL_2000 = "<|endoftext|>" + "x" * 7990
SPECIAL_2003 = "<|endoftext|>" + "x" * 8000
# A conclusion's content is embedded: at most EMBEDDING.MAX_INPUT_TOKENS (8,192) tokens.
WORDS_8193 = "word" + " word" * 8192
INSTRUCTIONS_OK: list[Any] = [WORDS_2000, "   ", "", SPECIAL_2000, None]
INSTRUCTIONS_BAD: list[Any] = [WORDS_2001, SPECIAL_2003]
THRESHOLDS_OK: list[Any] = [
    {"messages_per_short_summary": 10, "messages_per_long_summary": 20},
    {"messages_per_short_summary": 30},
    {"messages_per_long_summary": 20},
]
THRESHOLDS_BAD: list[Any] = [
    {"messages_per_short_summary": 30, "messages_per_long_summary": 20},
    {"messages_per_short_summary": 20, "messages_per_long_summary": 20},
    {"messages_per_short_summary": "30", "messages_per_long_summary": "20"},
]


def _instructions(value: Any) -> dict[str, Any]:
    return {"reasoning": {"custom_instructions": value}}


VALIDATORS = Script(
    "coercion_validators",
    [
        Step("POST", "/v3/workspaces", json={"id": "{ws}"}, note="the workspace"),
        *body_field(
            "PUT",
            W,
            _config("reasoning", "custom_instructions"),
            INSTRUCTIONS_OK,
            INSTRUCTIONS_BAD,
            "workspace custom_instructions",
        ),
        *body_field(
            "POST",
            "/v3/workspaces",
            lambda v: {"id": "{ws}", "configuration": _instructions(v)},
            [],
            INSTRUCTIONS_BAD[:1],
            "created workspace custom_instructions",
        ),
        *body_field(
            "PUT",
            W,
            lambda v: {"configuration": {"summary": v}},
            THRESHOLDS_OK,
            THRESHOLDS_BAD,
            "summary thresholds",
        ),
        *body_field(
            "POST",
            W + "/sessions",
            lambda v: {"id": "s1", "configuration": _instructions(v)},
            INSTRUCTIONS_OK[:1],
            INSTRUCTIONS_BAD[:1],
            "session custom_instructions",
        ),
        *body_field(
            "POST",
            W + "/sessions",
            lambda v: {"id": "s2", "configuration": {"summary": v}},
            THRESHOLDS_OK[:1],
            THRESHOLDS_BAD[:1],
            "session summary thresholds",
        ),
        *body_field(
            "PUT",
            S,
            lambda v: {"configuration": _instructions(v)},
            [],
            INSTRUCTIONS_BAD[:1],
            "session update custom_instructions",
        ),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": "alice", "content": "hi", "configuration": v}]},
            [_instructions(WORDS_2000)],
            [_instructions(WORDS_2001), _instructions(SPECIAL_2003)],
            "message custom_instructions",
        ),
        *body_field(
            "POST",
            W + "/conclusions",
            lambda v: {
                "conclusions": [{"content": v, "observer_id": "alice", "observed_id": "bob"}] * 2
            },
            [],
            [WORDS_8193, "<|endofprompt|> tea", "\u0000\u0000" + WORDS_8193],
            "conclusion content",
        ),
    ],
    "Honcho's field and model validators beyond the types: the custom_instructions token "
    "budget and the summary thresholds' order, wherever a configuration is accepted, and "
    "a conclusion's embedding token limit (accepted conclusions need embeddings).",
)


# Metadata (``_SanitizedMetadata``) is checked by a field validator: at most 100 top-level
# keys and 5 levels, NULs stripped from keys and values. pydantic reports its items with
# every other refused field of the body, in field order.
META_101 = {f"k{i}": i for i in range(101)}
DEEP_6: dict[str, Any] = {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}
DEEP_5: dict[str, Any] = {"a": {"b": {"c": {"d": {"e": 1}}}}}
WITH_NUL = {"k\u0000ey": ["v\u0000", {"n\u0000": "\u0000"}], "n": 1}
METADATA_OK: list[Any] = [DEEP_5, WITH_NUL, {f"k{i}": i for i in range(100)}, {}]
METADATA_BAD: list[Any] = [META_101, DEEP_6, {"x": DEEP_5}]
SPECIAL = "<|endoftext|> hello"

METADATA = Script(
    "coercion_metadata",
    [
        *body_field(
            "POST",
            "/v3/workspaces",
            lambda v: {"id": "{ws}", "metadata": v},
            METADATA_OK[:1],
            METADATA_BAD,
            "WorkspaceCreate.metadata",
        ),
        Step(
            "POST",
            "/v3/workspaces",
            json={"id": "", "metadata": META_101},
            note="a bad id and bad metadata: both items",
        ),
        *keyed("PUT", W, "metadata", METADATA_OK, METADATA_BAD),
        *body_field(
            "POST",
            W + "/peers",
            lambda v: {"id": "p1", "metadata": v},
            METADATA_OK[1:2],
            METADATA_BAD,
            "PeerCreate.metadata",
        ),
        Step(
            "POST",
            W + "/peers",
            json={"id": "", "metadata": DEEP_6, "configuration": {"observe_me": "maybe"}},
            note="a bad id, metadata and configuration: every item",
        ),
        *keyed("PUT", W + "/peers/p1", "metadata", METADATA_OK[1:2], METADATA_BAD[:1]),
        *body_field(
            "POST",
            W + "/sessions",
            lambda v: {"id": "s1", "metadata": v},
            METADATA_OK[1:2],
            METADATA_BAD[:2],
            "SessionCreate.metadata",
        ),
        Step(
            "POST",
            W + "/sessions",
            json={"id": "s2", "metadata": META_101, "peers": {"p1": {"observe_me": "maybe"}}},
            note="bad metadata and a bad peer config: both items",
        ),
        *keyed("PUT", S, "metadata", METADATA_OK[1:2], METADATA_BAD[1:2]),
        *body_field(
            "POST",
            S + "/messages",
            lambda v: {"messages": [{"peer_id": "alice", "content": "hi\u0000", "metadata": v}]},
            METADATA_OK[1:2],
            METADATA_BAD,
            "MessageCreate.metadata",
        ),
        Step(
            "POST",
            S + "/messages",
            json={
                "messages": [
                    {"peer_id": "alice", "content": "x", "metadata": META_101},
                    {"peer_id": "", "content": 5, "metadata": DEEP_6},
                    {"peer_id": "alice", "content": SPECIAL},
                    {"peer_id": "alice", "content": SPECIAL, "metadata": DEEP_6},
                    {"peer_id": "alice", "content": SPECIAL, "created_at": "x"},
                ]
            },
            note="every message's items, in field order; special tokens only once valid",
        ),
        Step(
            "POST",
            S + "/messages",
            json={"messages": [{"peer_id": "alice", "content": "kept"}]},
            note="a message to update",
            save={"mid": "0.id"},
        ),
        *keyed("PUT", S + "/messages/{mid}", "metadata", METADATA_OK[1:2], METADATA_BAD[:2]),
    ],
    "Metadata's limits and NUL stripping wherever metadata is accepted, alone and beside "
    "other refused fields (pydantic reports every item of a body, in field order).",
)

COERCION_SCRIPTS = (WORKSPACES, PEERS, MESSAGES, SESSIONS, CONCLUSIONS, VALIDATORS, METADATA)
