"""Identity derivation properties: distinct host ids never share a Honcho id, and every
derived id is one Honcho accepts (``^[a-zA-Z0-9_-]+$``, at most 512 characters)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from honcho_backend.config import (
    HONCHO_ID_MAX_LENGTH,
    HonchoConfig,
    sanitize_id,
    session_id_for,
    stable_id,
)

from .support import bounded

HONCHO_ID = re.compile(r"^[a-zA-Z0-9_-]+$")

# Raw host ids: any text (unicode, punctuation, whitespace, very long) or an integer.
raw_ids = st.one_of(st.text(max_size=600), st.integers())
# Two raw ids that differ only in their separators ("a.b" / "a b" / "a-b") sanitize alike.
_segments = st.lists(st.text(alphabet="abc019_", min_size=1, max_size=6), min_size=2, max_size=5)
_separators = st.sampled_from([".", " ", "@", "-", "/", "..", " . "])
lookalikes = (
    st.tuples(_segments, _separators, _separators)
    .filter(lambda t: t[1] != t[2])
    .map(lambda t: (t[1].join(t[0]), t[2].join(t[0])))
)

BOUNDED = bounded(60)

DEFAULT = HonchoConfig()
# The longest prefix the config accepts: the derived workspace id must still fit.
LONGEST_PREFIX = HonchoConfig(workspace_prefix="p" * (HONCHO_ID_MAX_LENGTH - 57))


def assert_honcho_id(value: str) -> None:
    assert HONCHO_ID.match(value), value
    assert len(value) <= HONCHO_ID_MAX_LENGTH


@BOUNDED
@given(raw_ids)
def test_every_derived_id_is_a_valid_honcho_id(raw: str | int) -> None:
    for config in (DEFAULT, LONGEST_PREFIX):
        assert_honcho_id(config.workspace_for(str(raw)))
        assert_honcho_id(config.user_peer_for(str(raw)))
    assert_honcho_id(session_id_for(raw))
    assert_honcho_id(stable_id(raw))


@BOUNDED
@given(st.lists(raw_ids.map(str), min_size=2, max_size=8, unique=True))
def test_distinct_users_get_distinct_workspaces_and_peers(users: list[str]) -> None:
    assert len({DEFAULT.workspace_for(user) for user in users}) == len(users)
    assert len({DEFAULT.user_peer_for(user) for user in users}) == len(users)


@BOUNDED
@given(st.lists(raw_ids, min_size=2, max_size=8, unique_by=str))
def test_distinct_threads_get_distinct_sessions(threads: list[str | int]) -> None:
    assert len({session_id_for(thread) for thread in threads}) == len(threads)


@BOUNDED
@given(lookalikes)
def test_ids_that_sanitize_alike_stay_apart(pair: tuple[str, str]) -> None:
    first, second = pair
    assert first != second
    assert sanitize_id(first) == sanitize_id(second)  # the collision sanitising alone makes
    assert stable_id(first) != stable_id(second)
    assert DEFAULT.workspace_for(first) != DEFAULT.workspace_for(second)
    assert DEFAULT.user_peer_for(first) != DEFAULT.user_peer_for(second)
    assert session_id_for(first) != session_id_for(second)


@BOUNDED
@given(raw_ids)
def test_derivation_is_deterministic(raw: str | int) -> None:
    assert stable_id(raw) == stable_id(raw)
    assert session_id_for(raw) == session_id_for(str(raw))
    assert HonchoConfig().workspace_for(str(raw)) == DEFAULT.workspace_for(str(raw))
