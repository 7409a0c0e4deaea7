"""The mirror and the backend held to DeerFlow's real contract, recorded from its source.

``data/deerflow_contract.json`` was recorded from ``bytedance/deer-flow`` (commit in
the file) by ``tests/backend/deerflow_contract.py``: every method's parameter names,
kinds, order, annotations and defaults, the fields and class variables, the host
hooks with their providers' signatures, and how DeerFlow's backends call
``should_keep_hidden_message``. A copy of our own mirror cannot notice drift from
DeerFlow; this record can.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import pytest

from honcho_backend import HonchoMemoryManager, manager
from honcho_backend.manager import MemoryManager, resolve_manager_class

from .conftest import ManagerFactory, MockHoncho, msg
from .deerflow_contract import describe_method, normalise, recorded, recorded_params

CONTRACT = recorded()
MANAGER = CONTRACT["classes"]["MemoryManager"]
CALLBACKS = CONTRACT["classes"]["MemoryCallbacks"]
HOOKS = CONTRACT["host_hooks"]


def expected(method: dict[str, Any]) -> dict[str, Any]:
    return {**method, "params": recorded_params(method), "returns": normalise(method["returns"])}


def test_the_record_names_the_commit_it_came_from() -> None:
    source = CONTRACT["source"]
    assert source["repository"] == "bytedance/deer-flow"
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])


@pytest.mark.parametrize("name", list(MANAGER["methods"]))
def test_mirror_method_matches_deerflow(name: str) -> None:
    assert describe_method(MemoryManager, name) == expected(MANAGER["methods"][name])


@pytest.mark.parametrize("name", list(CALLBACKS["methods"]))
def test_mirror_callbacks_match_deerflow(name: str) -> None:
    assert describe_method(manager.MemoryCallbacks, name) == expected(CALLBACKS["methods"][name])


def test_mirror_has_no_public_method_deerflow_lacks() -> None:
    ours = [n for n, v in vars(MemoryManager).items() if callable(v) or isinstance(v, classmethod)]
    assert sorted(n for n in ours if not n.startswith("_")) == sorted(MANAGER["methods"])


def test_mirror_fields_and_class_variables_match_deerflow() -> None:
    annotations = MemoryManager.__annotations__
    fields = MemoryManager.model_fields
    for name, annotation, default in MANAGER["fields"]:
        assert normalise(annotations[name]) == normalise(annotation), name
        field = fields[name]
        if default == "Field(default_factory=dict)":
            assert field.default_factory is dict
        else:
            assert repr(field.default) == default, name
    assert list(fields) == [name for name, _, _ in MANAGER["fields"]]
    for name, annotation, value in MANAGER["class_vars"]:
        assert normalise(annotations[name]) == normalise(annotation), name
        assert repr(getattr(MemoryManager, name)) == value, name


def test_mirror_validators_are_deerflows() -> None:
    decorators = MemoryManager.__pydantic_decorators__
    ours = {**decorators.field_validators, **decorators.model_validators}
    assert {name: ours[name].info.mode for name in ours} == {
        name: re.search(r"mode='(\w+)'", v["decorators"])[1]  # type: ignore[index]
        for name, v in MANAGER["validators"].items()
    }


@pytest.mark.parametrize("empty", [None, "", [], {}, 0])
def test_an_empty_backend_config_is_coerced_as_deerflow_does(empty: Any) -> None:
    assert MANAGER["validators"]["_coerce_backend_config"]["returns"] == "value or {}"

    class Backend(MemoryManager):
        def add(self, thread_id: str, messages: list[Any], **_: Any) -> None:
            return None

        def get_context(self, user_id: str | None, **_: Any) -> str:
            return ""

        @classmethod
        def from_config(cls, backend_config: dict[str, Any], **_: Any) -> Backend:
            return cls(backend_config=backend_config)

    assert Backend(backend_config=empty).backend_config == {}


def test_error_classes_match_deerflow() -> None:
    for name, bases in CONTRACT["errors"].items():
        assert [base.__name__ for base in getattr(manager, name).__bases__] == bases


@pytest.mark.parametrize("name", [n for n in MANAGER["methods"] if n in vars(HonchoMemoryManager)])
def test_backend_overrides_keep_deerflows_parameters(name: str) -> None:
    ours = describe_method(HonchoMemoryManager, name)
    theirs = expected(MANAGER["methods"][name])
    assert ours["kind"] == theirs["kind"]
    assert [p[:2] + p[3:] for p in ours["params"]] == [p[:2] + p[3:] for p in theirs["params"]]


def test_backend_accepts_every_host_hook_deerflow_passes() -> None:
    hooks = {name: object() for name in HOOKS}
    hooks["should_keep_hidden_message"] = lambda additional_kwargs: False
    backend = HonchoMemoryManager.from_config({}, mode="tool", **hooks)
    try:
        assert backend.mode == "tool"
    finally:
        backend.close()


def test_deerflow_calls_the_hidden_message_hook_with_additional_kwargs() -> None:
    provider = HOOKS["should_keep_hidden_message"]["signature"]
    assert [p[0] for p in provider["params"]] == ["additional_kwargs"]
    calls = CONTRACT["hidden_message_hook_calls"]
    assert calls and all(call["args"] == ["additional_kwargs"] for call in calls)


def deerflow_default_hook(additional_kwargs: Mapping[str, Any]) -> bool:
    """Behaves as DeerFlow's default: reads a human-input response from the kwargs mapping."""
    raw = additional_kwargs.get("human_input_response")
    return isinstance(raw, Mapping) and raw.get("kind") == "human_input_response"


def test_with_deerflows_hook_kept_hidden_messages_are_stored_once_others_never(
    honcho: MockHoncho, make_manager: ManagerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    answer = msg(
        "human",
        "the blue one",
        id="h2",
        additional_kwargs={
            "hide_from_ui": True,
            "human_input_response": {"version": 1, "kind": "human_input_response"},
        },
    )
    injected = msg(
        "human",
        "<memory>alice likes tea</memory>",
        id="h0__memory",
        additional_kwargs={"hide_from_ui": True, "dynamic_context_reminder": True},
    )
    history = [injected, msg("human", "which one?", id="h1"), answer]
    backend = make_manager(hooks={"should_keep_hidden_message": deerflow_default_hook})
    with caplog.at_level(logging.WARNING, logger="honcho_backend"):
        backend.add("t", history, user_id="alice")
        backend.add("t", [*history, msg("ai", "Noted.", id="a1")], user_id="alice")
    assert [m["content"] for m in honcho.posted()] == ["which one?", "the blue one", "Noted."]
    assert caplog.records == []


def test_manager_class_forms_are_deerflows() -> None:
    assert CONTRACT["manager_class"]["forms"][1:] == ["pkg.mod:Cls", "pkg.mod.Cls"]
    assert resolve_manager_class("honcho_backend.honcho_manager:HonchoMemoryManager") is (
        HonchoMemoryManager
    )
    assert resolve_manager_class("honcho_backend.honcho_manager.HonchoMemoryManager") is (
        HonchoMemoryManager
    )
    # A bare name is only a folder under DeerFlow's own backends/ (honcho is upstream's).
    assert "honcho_backend" not in CONTRACT["manager_class"]["registered_backends"]
    with pytest.raises(ValueError, match="honcho_backend"):
        resolve_manager_class("honcho_backend")
