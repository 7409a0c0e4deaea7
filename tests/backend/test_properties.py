"""Property tests: derived ids stay inside Honcho's grammar; writes never lose or repeat."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from honcho_backend import HonchoConfig, HonchoMemoryManager, session_id_for, stable_id

from .conftest import MockHoncho, msg

HONCHO_ID = re.compile(r"^[a-zA-Z0-9_-]{1,512}$")


@given(st.text(max_size=300))
def test_derived_ids_are_valid_honcho_ids(raw: str) -> None:
    cfg = HonchoConfig()
    for derived in (cfg.workspace_for(raw), cfg.user_peer_for(raw), session_id_for(raw)):
        assert HONCHO_ID.match(derived)
    assert stable_id(raw) == stable_id(raw)


@given(st.text(max_size=40), st.text(max_size=40))
def test_distinct_raw_ids_get_distinct_stable_ids(a: str, b: str) -> None:
    if a != b:
        assert stable_id(a) != stable_id(b)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["human", "ai", "tool"]), st.sampled_from("abc")), max_size=40
    ),
    st.lists(st.integers(min_value=0, max_value=40), max_size=8),
    st.booleans(),
    st.booleans(),
)
@example(script=[("human", "a")] * 6, cuts=[3], restart=True, with_ids=True)
@example(script=[("human", "a")] * 6, cuts=[3], restart=True, with_ids=False)
def test_growing_history_is_stored_exactly_once(
    script: list[tuple[str, str]], cuts: list[int], restart: bool, with_ids: bool
) -> None:
    """Whatever the turns (and a restart midway), each message is stored once, in order."""
    honcho = MockHoncho()
    history: list[Any] = [
        msg(kind, text, id=f"m{i}" if with_ids else None) for i, (kind, text) in enumerate(script)
    ]
    ends = sorted({min(cut, len(history)) for cut in cuts} | {len(history)})

    def fresh() -> HonchoMemoryManager:
        return HonchoMemoryManager.from_config(
            {"base_url": "http://honcho.test"}, transport=honcho.transport()
        )

    manager = fresh()
    for index, end in enumerate(ends):
        if restart and index == len(ends) // 2:
            manager.close()
            manager = fresh()
        manager.add("t", history[:end], user_id="alice")
    manager.close()
    expected = [text for kind, text in script if kind != "tool"]
    assert [m["content"] for m in honcho.posted()] == expected
