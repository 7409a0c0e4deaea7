"""What each queue unit does when a worker runs it (always under ``store.lock``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from fake_honcho.deriver import cards, summaries
from fake_honcho.deriver.conclusions import Conclusions, NewConclusion, recency_key
from fake_honcho.deriver.config import resolve
from fake_honcho.deriver.extract import extract_facts
from fake_honcho.search.semantic import Nearness, token_ids
from fake_honcho.store.ids import NANOID_ALPHABET, NANOID_SIZE, isoformat
from fake_honcho.store.message_index import message_index
from fake_honcho.store.state import Row, Store

#: The most conclusions a dream reads (Honcho's ``get_recent_observations`` cap).
RECENT_CONCLUSIONS = 100
#: The cosine distance within which Honcho merges two conclusions (``is_rejected_duplicate``).
MERGE_DISTANCE = 0.05


class Worker:
    """Runs units against the store; ``clock`` stamps what it writes."""

    def __init__(
        self,
        store: Store,
        conclusions: Conclusions,
        clock: Callable[[], datetime],
        nearness: Nearness | None = None,
    ) -> None:
        self.store = store
        self.conclusions = conclusions
        self.clock = clock
        self.nearness = nearness
        self._batch: tuple[str, ...] = ()
        self._stamps: dict[tuple[str, str], str] = {}

    def run(self, unit: Row) -> None:
        handler = {
            "representation": self.representation,
            "summary": self.summary,
            "dream": self.dream,
        }[unit["task_type"]]
        handler(unit)

    def representation(self, unit: Row) -> None:
        """Explicit conclusions about the sender from one message, for one observer.

        Conclusions are written as Honcho writes them: no peer card (only a dream or
        ``PUT`` writes one), a repeat within the session reinforces the earlier row, and
        every conclusion of one deriver batch shares one ``created_at``.
        """
        message = self.store.get("messages", unit["message_id"])
        if message is None:
            return
        workspace_id, observer, observed = unit["workspace_id"], unit["observer"], unit["observed"]
        session_id = message["session_id"]
        for fact in extract_facts(message["content"], observed):
            same = self.conclusions.find_same(
                workspace_id, observer, observed, session_id, fact.content
            )
            if same is not None:
                self.conclusions.bump(same)
                continue
            derived = self._merge(workspace_id, observer, observed, session_id, fact.content)
            if derived is None:  # a near-duplicate that says more was kept instead
                continue
            self.conclusions.add(
                NewConclusion(
                    times_derived=derived,
                    workspace_id=workspace_id,
                    id=derived_id(workspace_id, observer, observed, message["id"], fact.content),
                    content=fact.content,
                    observer_id=observer,
                    observed_id=observed,
                    session_id=session_id,
                    created_at=self._batch_stamp(unit),
                    message_created_at=message["created_at"],
                )
            )

    def _merge(
        self, workspace_id: str, observer: str, observed: str, session_id: str, content: str
    ) -> int | None:
        """Honcho's semantic de-duplication (``is_rejected_duplicate``): the nearest
        explicit conclusion of the pair in the session within cosine distance 0.05 is a
        duplicate; the one saying more (its ``cl100k_base`` tokens, plus ten for each the
        other lacks) stays. Returns the new conclusion's ``times_derived``, or None when
        the existing one stays (reinforced)."""
        if self.nearness is None:
            return 1
        rows = [
            row
            for row in self.conclusions.of_pair(workspace_id, observer, observed)
            if row["level"] == "explicit" and row.get("session_id") == session_id
        ]
        near = self.nearness.ranked(content, rows, top_k=1, max_distance=MERGE_DISTANCE)
        if not near:
            return 1
        existing = near[0]
        new_tokens, old_tokens = set(token_ids(content)), set(token_ids(existing["content"]))
        new_score = len(new_tokens) + 10 * len(new_tokens - old_tokens)
        old_score = len(old_tokens) + 10 * len(old_tokens - new_tokens)
        if new_score >= old_score:
            self.conclusions.delete(workspace_id, existing["id"])
            return int(existing.get("times_derived", 1)) + 1
        self.conclusions.bump(existing)
        return None

    def _batch_stamp(self, unit: Row) -> str:
        """One time per deriver batch: the units a creating request queued for one pair.

        Honcho derives a work unit's pending messages in one call and stores its
        conclusions in one transaction, so they share ``created_at``.
        """
        batch = (unit["workspace_id"], unit["session_id"], unit["created_at"])
        if batch != self._batch:
            self._batch, self._stamps = batch, {}
        pair = (unit["observer"], unit["observed"])
        if pair not in self._stamps:
            self._stamps[pair] = isoformat(self.clock())
        return self._stamps[pair]

    def summary(self, unit: Row) -> None:
        """Short and/or long summary of the session up to the triggering message."""
        workspace_id, session_id, seq = unit["workspace_id"], unit["session_id"], unit["seq"]
        index = message_index(self.store)
        # A message's position in its session is its `_seq_in_session`.
        in_order = list(index.session_ids(workspace_id, session_id))[:seq]
        conf = resolve(self.store, workspace_id, session_id)
        created_at = isoformat(self.clock().replace(microsecond=0))
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
        """Refresh the pair's peer card from its conclusions, as the stand-in LLM's dreams do.

        Honcho's card refresh reads the newest conclusions (at most 100) and calls
        ``update_peer_card`` with the card shown to it (none when rebuilding) plus the
        stable facts it found, oldest first; with nothing new it leaves the card be. Dreams
        never change conclusions here: the stand-in's specialists create or delete none.
        """
        workspace_id, observer, observed = unit["workspace_id"], unit["observer"], unit["observed"]
        conf = resolve(self.store, workspace_id, None)
        if not conf.card_create:
            return
        newest = sorted(
            self.conclusions.of_pair(workspace_id, observer, observed), key=recency_key
        )[-RECENT_CONCLUSIONS:]
        learned = cards.entries_for((row["content"] for row in newest), observed)
        current = (
            None
            if unit.get("rebuild")
            else cards.read(self.store, workspace_id, observer, observed)
        )
        card = cards.refreshed(current, learned)
        if card is not None:
            cards.update(self.store, workspace_id, observer, observed, card)


def derived_id(
    workspace_id: str, observer: str, observed: str, message_id: str, content: str
) -> str:
    """A nanoid-shaped id fixed by what the conclusion is, so background timing cannot change it."""
    digest = hashlib.sha256(
        "\x00".join((workspace_id, observer, observed, message_id, content)).encode()
    ).digest()
    return "".join(NANOID_ALPHABET[byte % len(NANOID_ALPHABET)] for byte in digest[:NANOID_SIZE])
