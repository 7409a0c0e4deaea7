"""The shortcut past PostgreSQL's sort replay gives the rows the replay gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho.search.pgsort import _smallest, first, top


@settings(max_examples=400, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=12), max_size=90),
    limit=st.integers(min_value=1, max_value=30),
    data=st.data(),
)
def test_first_rows_are_the_replayed_sorts_first_rows(
    keys: list[int], limit: int, data: st.DataObject
) -> None:
    """Ties are common (few distinct keys), so both the shortcut and the replay run."""
    taken = data.draw(st.integers(min_value=0, max_value=limit))
    assert first(keys, limit, taken) == top(keys, limit)[:taken]


def test_distinct_keys_take_the_shortcut_and_ties_the_replay() -> None:
    """With a tie among the rows taken, the order is the sort's own, not key order."""
    keys = [5, 3, 3, 3, 3, 3, 3, 3, 1]
    assert first(keys, 4, 2) == top(keys, 4)[:2]
    assert first([4, 2, 9, 1], 2, 2) == [3, 1]


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=40), min_size=257, max_size=600),
    limit=st.integers(min_value=1, max_value=30),
)
def test_many_rows_pick_the_smallest_without_sorting_them_all(keys: list[int], limit: int) -> None:
    assert first(keys, limit, limit) == top(keys, limit)[:limit]
    assert first(sorted(set(keys)), limit, limit) == list(range(min(limit, len(set(keys)))))


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=3), max_size=40),
    limit=st.integers(min_value=1, max_value=25),
    presorted=st.booleans(),
    data=st.data(),
)
def test_small_or_presorted_rows_keep_the_stable_order_the_replay_gives(
    keys: list[int], limit: int, presorted: bool, data: st.DataObject
) -> None:
    """Below 7 rows, or already in order, the replay's order is ``sorted``'s."""
    keys = sorted(keys) if presorted else keys
    taken = data.draw(st.integers(min_value=0, max_value=limit))
    assert first(keys, limit, taken) == top(keys, limit)[:taken]


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=20), min_size=1, max_size=200),
    data=st.data(),
)
def test_the_smallest_keys_are_the_sorted_keys_head(keys: list[int], data: st.DataObject) -> None:
    """Whatever the cut the newest rows give, ties at it included."""
    count = data.draw(st.integers(min_value=1, max_value=len(keys)))
    assert _smallest(keys, count) == sorted(keys)[:count]
