"""Our 422 items (compiled from schemas/) against pydantic models with the same constraints.

Honcho validates bodies with pydantic v2 (via FastAPI). The models below restate the
3.0.12 request components with the same field types and limits, and serve as an
oracle: for each bad body, ``SchemaSet.check_request`` must produce exactly the
``{type, loc, msg, input, ctx}`` items pydantic produces (under ``loc`` ``body``).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from fake_honcho.errors import RequestValidationError
from fake_honcho.http.schemas import default_schemas

NAME = {"min_length": 1, "max_length": 512, "pattern": "^[a-zA-Z0-9_-]+$"}


class Model(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class SessionPeerConfig(Model):
    observe_me: bool | None = None
    observe_others: bool | None = None


class ReasoningConfiguration(Model):
    enabled: bool | None = None
    custom_instructions: str | None = None


class SessionConfiguration(Model):
    model_config = ConfigDict(from_attributes=True, extra="allow")
    reasoning: ReasoningConfiguration | None = None


class PeerCreate(Model):
    id: str = Field(**NAME)  # type: ignore[call-overload]
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class SessionCreate(Model):
    id: str = Field(**NAME)  # type: ignore[call-overload]
    metadata: dict[str, Any] | None = None
    peers: dict[str, SessionPeerConfig] | None = None
    configuration: SessionConfiguration | None = None


class MessageCreate(Model):
    content: str = Field(min_length=0, max_length=25000)
    peer_id: str
    metadata: dict[str, Any] | None = None


class MessageBatchCreate(Model):
    messages: list[MessageCreate] = Field(min_length=1, max_length=100)


class MessageSearchOptions(Model):
    query: str
    filters: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=100)


ORACLES: dict[str, type[BaseModel]] = {
    "PeerCreate": PeerCreate,
    "SessionCreate": SessionCreate,
    "MessageBatchCreate": MessageBatchCreate,
    "MessageSearchOptions": MessageSearchOptions,
}

BAD_BODIES: list[tuple[str, Any]] = [
    ("PeerCreate", {}),
    ("PeerCreate", {"id": ""}),
    ("PeerCreate", {"id": "a b"}),
    ("PeerCreate", {"id": "x" * 513}),
    ("PeerCreate", {"id": 7}),
    ("PeerCreate", {"id": None}),
    ("PeerCreate", {"id": "ok", "metadata": "text"}),
    ("PeerCreate", {"id": "ok", "configuration": [1]}),
    ("PeerCreate", []),
    ("PeerCreate", "just a string"),
    ("SessionCreate", {"id": "s", "peers": {"a": {"observe_me": "perhaps"}}}),
    ("SessionCreate", {"id": "s", "peers": {"a": 3}}),
    ("SessionCreate", {"id": "s", "peers": ["a"]}),
    ("SessionCreate", {"id": "s", "configuration": {"reasoning": "on"}}),
    ("SessionCreate", {"id": "s", "configuration": {"reasoning": {"enabled": []}}}),
    ("SessionCreate", {"metadata": {}, "peers": {"a": {"observe_others": {}}}}),
    ("MessageBatchCreate", {}),
    ("MessageBatchCreate", {"messages": []}),
    ("MessageBatchCreate", {"messages": {}}),
    ("MessageBatchCreate", {"messages": [{"content": "x"}]}),
    ("MessageBatchCreate", {"messages": [{"peer_id": "p", "content": 5}]}),
    ("MessageBatchCreate", {"messages": [{"peer_id": "p", "content": "c" * 25001}]}),
    ("MessageBatchCreate", {"messages": [{"peer_id": "p", "content": "c", "metadata": 1}]}),
    ("MessageBatchCreate", {"messages": [{"peer_id": "p", "content": "c"}, "nope"]}),
    ("MessageSearchOptions", {}),
    ("MessageSearchOptions", {"query": "q", "limit": 0}),
    ("MessageSearchOptions", {"query": "q", "limit": 101}),
    ("MessageSearchOptions", {"query": "q", "limit": 2.5}),
    ("MessageSearchOptions", {"query": "q", "limit": None}),
    ("MessageSearchOptions", {"query": "q", "filters": "peer"}),
    ("MessageSearchOptions", {"query": ["q"], "limit": 500}),
]


def _pydantic_items(name: str, body: Any) -> list[dict[str, Any]]:
    try:
        TypeAdapter(ORACLES[name]).validate_python(body)
    except ValidationError as error:
        return [
            {**item, "loc": ["body", *item["loc"]]}
            for item in error.errors(include_url=False, include_context=True)
        ]
    raise AssertionError(f"the oracle accepted {body!r}")


@pytest.mark.parametrize(
    ("name", "body"), BAD_BODIES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_BODIES)]
)
def test_items_match_pydantic(name: str, body: Any) -> None:
    with pytest.raises(RequestValidationError) as raised:
        default_schemas().check_request(name, body)
    assert raised.value.items == _pydantic_items(name, body)


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("PeerCreate", {"id": "alice", "metadata": {"a": [1, {"b": None}]}, "unknown": 1}),
        ("SessionCreate", {"id": "s", "peers": {"a": {}, "b": {"observe_me": None}}}),
        ("SessionCreate", {"id": "s", "configuration": {"custom": {"kept": True}}}),
        ("MessageBatchCreate", {"messages": [{"peer_id": "p", "content": ""}] * 100}),
        ("MessageSearchOptions", {"query": "", "filters": None, "limit": 100}),
    ],
)
def test_valid_bodies_pass_both(name: str, body: Any) -> None:
    default_schemas().check_request(name, body)
    TypeAdapter(ORACLES[name]).validate_python(body)
