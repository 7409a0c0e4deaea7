"""Each hybrid search query of the recordings, judged: identical, explained, or unexplained.

The fake's hybrid answer is compared with what a real server with embeddings on answered
(``data/<version>+embed/``). Where they differ, a rule may explain it:

- ``semantic-tie-order``: the answers name the same texts in the same order, only
  different messages of identical text (one vector, an exact tie in both legs; which the
  semantic leg keeps follows the physical order of the embedding rows);
- ``search-tie-order``: the server's rules applied to the physical orders recorded from
  its database give its answer, and applied to the fake's scan order give the fake's
  (full-text hits of equal rank and ``created_at``, carried through the fusion).

Each explained query names its rule and the tied rows (place, the server's message,
the fake's). Anything else is unexplained. ``python -m tests.fidelity.search.explain``
prints the verdict of every query and the counts per corpus.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tests.fidelity.search.corpora import DATA, embedding_order, fake_answers, read
from tests.fidelity.search.reference import hybrid, session_order

EMBED_CORPORA = sorted(DATA.glob("*+embed/corpus-*.json"))


@dataclass(frozen=True)
class Verdict:
    """One query's verdict; ``rule`` is None when identical or unexplained."""

    query: str
    identical: bool
    rule: str | None = None
    tied: tuple[tuple[int, int, int], ...] = ()
    """(place, the server's message, the fake's) where the two answers differ."""

    @property
    def explained(self) -> bool:
        return self.identical or self.rule is not None

    def render(self) -> str:
        if self.identical:
            return f"identical: {self.query!r}"
        rows = ", ".join(f"#{place} {want} / {got}" for place, want, got in self.tied)
        if self.rule is None:
            return f"UNEXPLAINED: {self.query!r} (server / fake: {rows})"
        return f"explained by {self.rule}: {self.query!r} (tied, server / fake: {rows})"


def verdicts(path: Path) -> list[Verdict]:
    """The verdict of every query of one recorded corpus."""
    made, queries, physical = read(path)
    embedded = embedding_order(path)
    assert physical is not None and embedded is not None, "record with --postgres-url"
    texts = [text for _, _, text in made.messages()]
    version = path.parent.name.removesuffix("+embed")
    answers = fake_answers(made, queries, embed_messages=True, version=version)
    by_session = session_order(made)

    def said(positions: list[int]) -> list[str]:
        return [texts[at] for at in positions]  # identical texts are one vector

    found = []
    for query, got in zip(queries, answers, strict=True):
        want = query.expected
        assert want is not None
        tied = tuple(
            (place, a, b) for place, (a, b) in enumerate(zip(want, got, strict=False), 1) if a != b
        )
        rule = None
        if got != want and said(got) == said(want):
            rule = "semantic-tie-order"
        elif got != want and (
            said(hybrid(made, query, physical, embedded)) == said(want)
            and said(hybrid(made, query, by_session)) == said(got)
        ):
            rule = "search-tie-order"
        found.append(Verdict(query.query, got == want, rule, tied))
    return found


def main() -> int:
    unexplained = 0
    for path in EMBED_CORPORA:
        found = verdicts(path)
        for verdict in found:
            if not verdict.identical:
                print(f"{path.parent.name}/{path.stem}: {verdict.render()}")
        rules: dict[str, int] = {}
        for verdict in found:
            if verdict.rule:
                rules[verdict.rule] = rules.get(verdict.rule, 0) + 1
        missing = sum(1 for verdict in found if not verdict.explained)
        unexplained += missing
        explained = ", ".join(f"{count} {rule}" for rule, count in sorted(rules.items()))
        print(
            f"{path.parent.name}/{path.stem}: {len(found)} queries, "
            f"{sum(v.identical for v in found)} identical, explained: {explained or 'none'}, "
            f"{missing} unexplained"
        )
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
