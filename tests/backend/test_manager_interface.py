"""The MemoryManager base mirrors DeerFlow's (upstream test_memory_manager_interface.py)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from honcho_backend.manager import (
    MemoryCallbacks,
    MemoryConflictError,
    MemoryCorruptionError,
    MemoryManager,
    MemoryManagerError,
    resolve_manager_class,
)


class MinimalBackend(MemoryManager):
    """Implements only the tier-1 methods; records what it was given."""

    def model_post_init(self, __context: Any) -> None:
        self.__dict__["calls"] = []

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        self.__dict__["calls"].append(("add", thread_id, list(messages), agent_name, user_id))

    def get_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        return f"ctx:{user_id}:{agent_name}:{thread_id}"

    @classmethod
    def from_config(
        cls, backend_config: dict[str, Any], *, mode: Any = "middleware", **host_hooks: Any
    ) -> MinimalBackend:
        return cls(backend_config=backend_config, mode=mode)


class SearchBackend(MinimalBackend):
    supports_search = True

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        return [{"id": "1", "content": query}][:top_k]


def test_minimal_backend_has_every_default() -> None:
    backend = MinimalBackend.from_config({"storage_path": "/tmp/x"})
    backend.add_nowait("t", ["m"], agent_name="a", user_id="u")
    assert backend.__dict__["calls"] == [("add", "t", ["m"], "a", "u")]
    assert backend.shutdown_flush(1.0) is True
    for name in ("get_memory", "clear_memory", "export_memory", "delete_memory", "reload_memory"):
        with pytest.raises(NotImplementedError, match=f"{name} not supported by MinimalBackend"):
            getattr(backend, name)()
    with pytest.raises(NotImplementedError, match="search not supported"):
        backend.search("q")
    with pytest.raises(NotImplementedError, match="import_memory"):
        backend.import_memory({})
    assert backend.warm() is None
    assert backend.on_pre_compress([]) == ""
    assert backend.on_turn_start(1, None) is None
    with pytest.raises(NotImplementedError, match="create_fact"):
        backend.create_fact("x")
    with pytest.raises(NotImplementedError, match="delete_fact"):
        backend.delete_fact("id")
    with pytest.raises(NotImplementedError, match="update_fact"):
        backend.update_fact("id", content="y")
    assert backend.close() is None


@pytest.mark.parametrize("missing", ["add", "get_context"])
def test_tier1_abstract_enforcement(missing: str) -> None:
    namespace = {
        name: getattr(MinimalBackend, name) for name in ("add", "get_context") if name != missing
    }
    namespace["from_config"] = MinimalBackend.__dict__["from_config"]
    incomplete = type("Incomplete", (MemoryManager,), namespace)
    with pytest.raises(TypeError, match=missing):
        incomplete()


def test_only_tier1_methods_are_abstract() -> None:
    assert MemoryManager.__abstractmethods__ == frozenset({"add", "get_context", "from_config"})
    assert MinimalBackend.__abstractmethods__ == frozenset()


def test_tool_mode_requires_search() -> None:
    with pytest.raises(ValueError, match="requires a backend that implements search"):
        MinimalBackend(mode="tool")
    with pytest.raises(ValueError, match="requires a backend that implements search"):
        MinimalBackend.from_config({}, mode="tool")


def test_supports_search_flag_must_match_override() -> None:
    class FlagWithoutSearch(MinimalBackend):
        supports_search = True

    class SearchWithoutFlag(SearchBackend):
        supports_search = False

    for cls in (FlagWithoutSearch, SearchWithoutFlag):
        with pytest.raises(ValueError, match="inconsistent"):
            cls()


def test_consistent_search_backend_runs_in_tool_mode() -> None:
    backend = SearchBackend.from_config({}, mode="tool")
    assert backend.mode == "tool"
    assert backend.search("hello", 1) == [{"id": "1", "content": "hello"}]


def test_mode_is_validated() -> None:
    with pytest.raises(ValueError):
        MinimalBackend(mode="other")


def test_backend_config_none_becomes_empty_dict() -> None:
    assert MinimalBackend(backend_config=None).backend_config == {}
    assert MinimalBackend().backend_config == {}


def test_async_defaults_delegate_to_sync() -> None:
    backend = MinimalBackend()

    async def scenario() -> None:
        await backend.aadd("t", ["m"], agent_name="a", user_id="u", trace_id="tr")
        assert await backend.aget_context("u", agent_name="a", thread_id="t") == "ctx:u:a:t"
        with pytest.raises(NotImplementedError):
            await backend.asearch("q")
        assert await SearchBackend().asearch("q", 1) == [{"id": "1", "content": "q"}]

    asyncio.run(scenario())
    assert backend.__dict__["calls"] == [("add", "t", ["m"], "a", "u")]


def test_callbacks_field_optional_and_noop_default() -> None:
    backend = MinimalBackend()
    assert backend.callbacks is None
    callbacks = MemoryCallbacks()
    config: dict[str, Any] = {}
    assert (
        callbacks.on_memory_llm_call(
            config, thread_id=None, user_id=None, trace_id=None, model_name=None
        )
        is None
    )
    assert (
        callbacks.on_memory_llm_result(
            config, prompt="p", response="r", error=None, duration_ms=1.0, model_name=None
        )
        is None
    )
    assert config == {}
    assert MinimalBackend(callbacks=callbacks).callbacks is callbacks


def test_from_config_ignores_host_hooks_it_does_not_need() -> None:
    backend = MinimalBackend.from_config(
        {"k": 1}, mode="middleware", callbacks=MemoryCallbacks(), should_keep_hidden_message=bool
    )
    assert backend.backend_config == {"k": 1}
    assert backend.callbacks is None


def test_error_hierarchy() -> None:
    assert issubclass(MemoryManagerError, RuntimeError)
    assert issubclass(MemoryConflictError, MemoryManagerError)
    assert issubclass(MemoryCorruptionError, MemoryManagerError)


def test_class_vars_are_not_fields() -> None:
    assert set(MemoryManager.model_fields) == {"backend_config", "mode", "callbacks"}
    assert MemoryManager.supports_search is False
    assert MemoryManager.requires_passive_writes_in_tool_mode is False


KW = inspect.Parameter.KEYWORD_ONLY
POS = inspect.Parameter.POSITIONAL_OR_KEYWORD

# (name, kind, default) per parameter, in DeerFlow's order (f1f4af99 manager.py).
EXPECTED_SIGNATURES: dict[str, list[tuple[str, Any, Any]]] = {
    "add": [
        ("thread_id", POS, inspect._empty),
        ("messages", POS, inspect._empty),
        ("agent_name", KW, None),
        ("user_id", KW, None),
        ("trace_id", KW, None),
    ],
    "get_context": [
        ("user_id", POS, inspect._empty),
        ("agent_name", KW, None),
        ("thread_id", KW, None),
    ],
    "add_nowait": [
        ("thread_id", POS, inspect._empty),
        ("messages", POS, inspect._empty),
        ("agent_name", KW, None),
        ("user_id", KW, None),
    ],
    "search": [
        ("query", POS, inspect._empty),
        ("top_k", POS, 5),
        ("user_id", KW, None),
        ("agent_name", KW, None),
        ("category", KW, None),
    ],
    "get_memory": [("user_id", KW, None), ("agent_name", KW, None)],
    "delete_memory": [("user_id", KW, None), ("agent_name", KW, None)],
    "clear_memory": [("user_id", KW, None), ("agent_name", KW, None)],
    "import_memory": [
        ("memory_data", POS, inspect._empty),
        ("user_id", KW, None),
        ("agent_name", KW, None),
    ],
    "export_memory": [("user_id", KW, None), ("agent_name", KW, None)],
    "shutdown_flush": [("timeout", POS, inspect._empty)],
    "warm": [],
    "reload_memory": [("user_id", KW, None), ("agent_name", KW, None)],
    "create_fact": [
        ("content", POS, inspect._empty),
        ("category", POS, "context"),
        ("confidence", POS, 0.5),
        ("agent_name", KW, None),
        ("user_id", KW, None),
    ],
    "delete_fact": [
        ("fact_id", POS, inspect._empty),
        ("agent_name", KW, None),
        ("user_id", KW, None),
    ],
    "update_fact": [
        ("fact_id", POS, inspect._empty),
        ("content", POS, None),
        ("category", POS, None),
        ("confidence", POS, None),
        ("agent_name", KW, None),
        ("user_id", KW, None),
    ],
    "on_pre_compress": [("messages", POS, inspect._empty)],
    "on_turn_start": [
        ("turn_number", POS, inspect._empty),
        ("message", POS, inspect._empty),
        ("kwargs", inspect.Parameter.VAR_KEYWORD, inspect._empty),
    ],
    "aadd": [
        ("thread_id", POS, inspect._empty),
        ("messages", POS, inspect._empty),
        ("agent_name", KW, None),
        ("user_id", KW, None),
        ("trace_id", KW, None),
    ],
    "aget_context": [
        ("user_id", POS, inspect._empty),
        ("agent_name", KW, None),
        ("thread_id", KW, None),
    ],
    "asearch": [
        ("query", POS, inspect._empty),
        ("top_k", POS, 5),
        ("user_id", KW, None),
        ("agent_name", KW, None),
        ("category", KW, None),
    ],
    "close": [],
    "from_config": [
        ("backend_config", POS, inspect._empty),
        ("mode", KW, "middleware"),
        ("host_hooks", inspect.Parameter.VAR_KEYWORD, inspect._empty),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_SIGNATURES))
def test_signatures_match_deerflow(name: str) -> None:
    params = list(inspect.signature(getattr(MemoryManager, name)).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    assert [(p.name, p.kind, p.default) for p in params] == EXPECTED_SIGNATURES[name]


def test_async_methods_are_coroutines() -> None:
    for name in ("aadd", "aget_context", "asearch"):
        assert inspect.iscoroutinefunction(getattr(MemoryManager, name))


def test_resolve_manager_class_by_dotted_path() -> None:
    assert resolve_manager_class(f"{__name__}:MinimalBackend") is MinimalBackend
    assert resolve_manager_class(f"{__name__}.SearchBackend") is SearchBackend
    with pytest.raises(ValueError, match="no_such_module"):
        resolve_manager_class("no_such_module:Cls")
    with pytest.raises(ValueError, match="resolved to non-MemoryManager"):
        resolve_manager_class(f"{__name__}:test_error_hierarchy")
