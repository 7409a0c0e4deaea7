"""``GET .../sessions/{id}/context``: Honcho's token-budget arithmetic.

* At most 40 % of the budget (``int(tokens * 0.4)``) may go to a summary. The long
  summary is used when it fits and is longer than the short one; otherwise the short
  one when it fits.
* The rest goes to the most recent messages from the summary's last covered message
  on (inclusive): taken newest first while their running token sum stays within the
  budget, returned oldest first.
* With ``peer_target``, the representation (charged at the size of its plain
  ``EXPLICIT:`` form, as Honcho estimates it) and the card are subtracted first; they
  are returned whole. A budget of zero or less yields no summary and no messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fake_honcho.deriver import summaries
from fake_honcho.store.state import Row, Store
from fake_honcho.store.tokens import token_count

MAX_TOKENS = 100_000
SUMMARY_SHARE = 0.4


@dataclass(frozen=True)
class Budgeted:
    summary: Row | None
    messages: list[Row]


def charge(representation_plain: str, card: Sequence[str] | None) -> int:
    """Tokens the representation and card take from the budget."""
    card_text = "\n".join(card) if card else ""
    return token_count(representation_plain) + token_count(card_text)


def fit(
    store: Store,
    workspace_id: str,
    session_id: str,
    messages: Sequence[Row],
    token_limit: int,
    *,
    include_summary: bool,
) -> Budgeted:
    """Summary and messages of a session within ``token_limit`` (``messages`` oldest first)."""
    if token_limit <= 0:
        return Budgeted(None, [])
    summary: Row | None = None
    budget = token_limit
    start_seq = 0
    if include_summary:
        summary = _pick_summary(store, workspace_id, session_id, int(token_limit * SUMMARY_SHARE))
        if summary is not None:
            budget = token_limit - summary["token_count"]
            start_seq = summary["_seq_in_session"]
    chosen: list[Row] = []
    spent = 0
    for message in reversed(messages):
        if message["_seq_in_session"] < start_seq:
            break
        spent += message["token_count"]
        if spent > budget:
            break
        chosen.append(message)
    chosen.reverse()
    return Budgeted(summary, chosen)


def _pick_summary(store: Store, workspace_id: str, session_id: str, limit: int) -> Row | None:
    short = summaries.read(store, workspace_id, session_id, "short")
    long = summaries.read(store, workspace_id, session_id, "long")
    short_len = short["token_count"] if short else 0
    long_len = long["token_count"] if long else 0
    if long is not None and long_len <= limit and long_len > short_len:
        return long
    if short is not None and 0 < short_len <= limit:
        return short
    return None
