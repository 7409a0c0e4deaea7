"""Which register entry declares a difference the generated differential finds.

A generated case names no entry (a scripted exchange does), so each entry that can show
up among generated cases has a rule here: what it explains of the request, the two
answers and what the run did before (:class:`History`). A rule counts only where its
entry applies to the version compared and the fake does not reproduce it by default (an
entry the fake reproduces is no excuse for differing, unless what differs is when the
server's background work ran: a deletion its deriver carries out, a cache entry's expiry).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase
from fake_honcho.harness.divergences import divergence
from fake_honcho.versions import HonchoVersion

__all__ = ["RULES", "History", "Rule", "declared_by"]


@dataclass
class History:
    """What the run's earlier cases did on the server."""

    deleted: set[str] = field(default_factory=set)
    """Paths of the workspaces and sessions the server accepted a DELETE of."""

    def record(self, case: FuzzCase, real: Answer) -> None:
        path = urlsplit(case.target).path
        if case.method == "DELETE" and 200 <= real.status < 300 and _deletes_a_resource(path):
            self.deleted.add(path)

    def under_deleted(self, case: FuzzCase) -> bool:
        path = urlsplit(case.target).path
        return any(path == gone or path.startswith(gone + "/") for gone in self.deleted)


def _deletes_a_resource(path: str) -> bool:
    parts = path.split("/")  # "", "v3", "workspaces", ws[, "sessions", sid]
    return len(parts) == 4 or (len(parts) == 6 and parts[4] == "sessions")


@dataclass(frozen=True)
class Rule:
    """``entry`` explains a difference when ``matches(case, real, fake, history)``."""

    entry: str
    matches: Callable[[FuzzCase, Answer, Answer, History], bool]
    timing: bool = False
    """The difference depends on when the server's background work ran (its deriver, its
    cache's expiry): it counts even for an entry the fake reproduces, which cannot know."""


def _after_deletion(case: FuzzCase, real: Answer, fake: Answer, history: History) -> bool:
    """The server deletes in the background: what a DELETE removed is still there for a
    while, and what was written there meanwhile may go with it (one side finds it gone
    where the other answers for it)."""
    if not history.under_deleted(case):
        return False
    return any(
        (one.status == 404 and "not found" in (one.detail or ""))
        or (200 <= one.status < 300 and not 200 <= other.status < 300)
        for one, other in ((real, fake), (fake, real))
    )


def _clone_across_workspaces(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    return case.operation.endswith("/clone") and real.status == 500


def _filters_500(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    """A list's filters the server fails on."""
    if real.status != 500 or not case.operation.endswith("/list") or case.body is None:
        return False
    try:
        body = json.loads(case.body)
    except ValueError:
        return False
    return isinstance(body, dict) and bool(body.get("filters"))


def _phantom_workspace(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    return real.status == 409 and (real.detail or "").startswith("Unable to create or get")


def _conclusion_order(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    """Which missing (or, at 3.0.12, unnamable) session or peer of a batch is named."""
    if case.operation != "POST /v3/workspaces/{workspace_id}/conclusions":
        return False
    return {real.status, fake.status} <= {404, 500}


def _date_parsing(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    """Text pydantic-core's releases parse differently as a datetime."""
    refused = fake.errors or real.errors or ()
    return bool(refused) and all(kind.startswith("datetime_") for kind, _ in refused)


RULES: tuple[Rule, ...] = (
    Rule("pydantic-release-parsing", _date_parsing),
    Rule("conclusion-check-order", _conclusion_order),
    Rule("deletion-at-once", _after_deletion, timing=True),
    Rule("real-clone-cross-workspace", _clone_across_workspaces),
    Rule("real-filter-errors-500", _filters_500),
    Rule("real-numeric-filter-500", _filters_500),
    Rule("real-rejected-write-phantom-workspace", _phantom_workspace, timing=True),
)


def declared_by(
    case: FuzzCase, real: Answer, fake: Answer, version: HonchoVersion, history: History
) -> str | None:
    """The id of the entry declaring this difference at ``version``, or None."""
    for rule in RULES:
        entry = divergence(rule.entry)
        if (
            entry.applies_to(version)
            and (rule.timing or not entry.reproduced)
            and rule.matches(case, real, fake, history)
        ):
            return rule.entry
    return None
