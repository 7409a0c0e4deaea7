"""Which register entry declares a difference the generated differential finds.

A generated case names no entry (a scripted exchange does), so each entry that can show
up among generated cases has a rule here: the request and the two answers it explains.
A rule counts only where its entry applies to the version compared and the fake does
not reproduce it by default (an entry the fake reproduces is no excuse for differing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fake_honcho.divergences import divergence
from fake_honcho.versions import HonchoVersion

if TYPE_CHECKING:
    from fake_honcho.drift.fuzz import Answer, FuzzCase

__all__ = ["RULES", "Rule", "declared_by"]


@dataclass(frozen=True)
class Rule:
    """``entry`` explains a difference when ``matches(case, real, fake)``."""

    entry: str
    matches: Callable[[FuzzCase, Answer, Answer], bool]


RULES: tuple[Rule, ...] = ()


def declared_by(case: FuzzCase, real: Answer, fake: Answer, version: HonchoVersion) -> str | None:
    """The id of the entry declaring this difference at ``version``, or None."""
    for rule in RULES:
        entry = divergence(rule.entry)
        if entry.applies_to(version) and not entry.reproduced and rule.matches(case, real, fake):
            return rule.entry
    return None
