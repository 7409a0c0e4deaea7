"""What each queue unit does when a worker runs it (always under ``store.lock``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from fake_honcho.deriver import cards, summaries
from fake_honcho.deriver.conclusions import Conclusions, NewConclusion, recency_key
from fake_honcho.deriver.config import resolve
from fake_honcho.deriver.extract import extract_facts, normalize
from fake_honcho.ids import NANOID_ALPHABET, NANOID_SIZE, isoformat
from fake_honcho.message_index import message_index
from fake_honcho.state import Row, Store


class Worker:
    """Runs units against the store; ``clock`` stamps what it writes."""

    def __init__(
        self, store: Store, conclusions: Conclusions, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.conclusions = conclusions
        self.clock = clock

    def run(self, unit: Row) -> None:
        handler = {
            "representation": self.representation,
            "summary": self.summary,
            "dream": self.dream,
        }[unit["task_type"]]
        handler(unit)

    def representation(self, unit: Row) -> None:
        """Explicit conclusions about the sender from one message, for one observer."""
        message = self.store.get("messages", unit["message_id"])
        if message is None:
            return
        workspace_id, observer, observed = unit["workspace_id"], unit["observer"], unit["observed"]
        learned: list[str] = []
        for fact in extract_facts(message["content"], observed):
            card_entry = cards.entry(fact.kind, fact.predicate)
            same = self.conclusions.find_same(workspace_id, observer, observed, fact.content)
            if same is not None:
                self.conclusions.bump(same)
            else:
                self.conclusions.add(
                    NewConclusion(
                        workspace_id=workspace_id,
                        id=derived_id(
                            workspace_id, observer, observed, message["id"], fact.content
                        ),
                        content=fact.content,
                        observer_id=observer,
                        observed_id=observed,
                        session_id=message["session_id"],
                        created_at=isoformat(self.clock()),
                        message_created_at=message["created_at"],
                        card_entry=card_entry,
                    )
                )
            if card_entry is not None:
                learned.append(card_entry)
        conf = resolve(
            self.store, workspace_id, message["session_id"], message.get("_configuration")
        )
        if learned and conf.card_create:
            cards.extend(self.store, workspace_id, observer, observed, learned)

    def summary(self, unit: Row) -> None:
        """Short and/or long summary of the session up to the triggering message."""
        workspace_id, session_id, seq = unit["workspace_id"], unit["session_id"], unit["seq"]
        index = message_index(self.store)
        # A message's position in its session is its `_seq_in_session`.
        in_order = list(index.session_ids(workspace_id, session_id))[:seq]
        conf = resolve(self.store, workspace_id, session_id)
        created_at = isoformat(self.clock())
        cadences: tuple[tuple[summaries.SummaryType, int], ...] = (
            ("short", conf.short_every),
            ("long", conf.long_every),
        )
        for summary_type, every in cadences:
            if seq % every != 0:
                continue
            covered = list(index.rows(dict.fromkeys(in_order[-every:])))
            if covered:
                row = summaries.write(covered, summary_type, created_at)
                key = summaries.summary_key(workspace_id, session_id, summary_type)
                self.store.put(summaries.COLLECTION, key, row)

    def dream(self, unit: Row) -> None:
        """Merge conclusions that say the same thing, then refresh the card from the rest."""
        workspace_id, observer, observed = unit["workspace_id"], unit["observer"], unit["observed"]
        kept: dict[str, Row] = {}
        for row in sorted(
            self.conclusions.of_pair(workspace_id, observer, observed), key=recency_key
        ):
            key = f"{row['level']}\x00{normalize(row['content'])}"
            if key in kept:
                first = kept[key]
                kept[key] = {
                    **first,
                    "times_derived": first.get("times_derived", 1) + row.get("times_derived", 1),
                }
                self.conclusions.delete(workspace_id, row["id"])
            else:
                kept[key] = row
        for row in kept.values():
            current = self.conclusions.get(workspace_id, row["id"])
            if current is not None and current != row:
                self.store.put("conclusions", (workspace_id, row["id"]), row)
        conf = resolve(self.store, workspace_id, None)
        if not conf.card_create:
            return
        entries = [row["_card_entry"] for row in kept.values() if row.get("_card_entry")]
        if unit.get("rebuild"):
            cards.write(self.store, workspace_id, observer, observed, entries[-cards.MAX_ENTRIES :])
        else:
            cards.extend(self.store, workspace_id, observer, observed, entries)


def derived_id(
    workspace_id: str, observer: str, observed: str, message_id: str, content: str
) -> str:
    """A nanoid-shaped id fixed by what the conclusion is, so background timing cannot change it."""
    digest = hashlib.sha256(
        "\x00".join((workspace_id, observer, observed, message_id, content)).encode()
    ).digest()
    return "".join(NANOID_ALPHABET[byte % len(NANOID_ALPHABET)] for byte in digest[:NANOID_SIZE])
