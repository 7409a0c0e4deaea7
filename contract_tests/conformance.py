"""The conformance report: per backend, each clause of the contract passed, failed, not
declared or not judged, and the level the backend reaches.

After langgraph's checkpoint conformance: a backend is not a list of test ids but a set of
clauses, grouped by the :class:`~contract_tests.capabilities.Capabilities` it declares.
Each contract test carries its clause (:func:`clause`); the plugin collects one
:class:`ClauseResult` per test report (on xdist workers too: it travels in the report's
``user_properties``), and :func:`build_report` folds them per backend.

Levels: ``none`` (a base clause failed: a host call breaks, or the requests never reached
the target), ``base`` (every base clause holds), ``full`` (and no clause of a declared
capability failed, was xfailed or went unjudged; a skip that names its reason, such as a
snapshot not recorded yet or a real server without an LLM, is listed and does not lower
it). A clause of an undeclared capability is ``not declared``, never a failure.

This module imports nothing heavy: the plugin loads it in every run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

UNRECORDED = "no snapshot recorded yet for this backend:"
"""How a skip for a consumer's missing snapshot starts; the summary counts them (here, not in
``contract_tests.snapshot``, so an xdist controller need not import syrupy to count)."""

__all__ = [
    "NOT_JUDGED",
    "Clause",
    "ClauseResult",
    "ConformanceReport",
    "build_report",
    "clause",
    "clause_of",
]

NOT_JUDGED = "not judged:"
"""How the skip reason of a test the canary withheld starts."""

NOT_DECLARED = "does not declare capability"
"""What the skip reason of a capability-gated test says (``MemoryManagerContract``)."""

PROPERTY = "honcho_clause"
"""The ``user_properties`` key a contract test's report carries its result under."""

F = TypeVar("F", bound=Callable[..., Any])

# Order of precedence when one clause has several reports (parametrized tests).
_RANK = {"fail": 0, "not judged": 1, "pass": 2, "xfail": 3, "skipped": 4, "not declared": 5}


@dataclass(frozen=True)
class Clause:
    """One rule of the contract, as the report names it."""

    name: str
    summary: str
    capability: str | None = None
    """The capability it belongs to; ``None``: a base clause, for every backend."""
    local: bool = False
    """Judged without the remote (signatures, flags): the canary never withholds it."""


def clause(
    name: str, summary: str, capability: str | None = None, *, local: bool = False
) -> Callable[[F], F]:
    """Mark a contract test as the clause ``name``."""

    def mark(test: F) -> F:
        test.__honcho_clause__ = Clause(name, summary, capability, local)  # type: ignore[attr-defined]
        return test

    return mark


def clause_of(cls: type | None, test_name: str) -> Clause | None:
    """The clause of ``cls.test_name``, looked up through the MRO (an xfail override in a
    consumer's class keeps its contract test's clause)."""
    for klass in cls.__mro__ if cls is not None else ():
        found = getattr(vars(klass).get(test_name), "__honcho_clause__", None)
        if isinstance(found, Clause):
            return found
    return None


@dataclass(frozen=True)
class ClauseResult:
    """What one test report says about one clause of one backend."""

    backend: str
    """The consumer's suite class, ``path::Class``."""
    clause: str
    summary: str
    capability: str | None
    outcome: str
    """``pass``, ``fail``, ``xfail``, ``not judged``, ``not declared`` or ``skipped``."""
    detail: str = ""
    """The verdict of a failure, the reason of a skip (one line)."""
    capabilities: dict[str, bool] = field(default_factory=dict)

    def to_property(self) -> tuple[str, str]:
        return PROPERTY, json.dumps(asdict(self))

    @classmethod
    def from_properties(cls, properties: Iterable[tuple[str, Any]]) -> ClauseResult | None:
        for key, value in properties:
            if key == PROPERTY:
                return cls(**json.loads(value))
        return None


def outcome_of(passed: bool, failed: bool, skip_reason: str | None, xfailed: bool) -> str:
    """Map a pytest outcome (and a skip's reason) to a clause outcome."""
    if xfailed:
        return "xfail"
    if failed:
        return "fail"
    if skip_reason is not None:
        if skip_reason.startswith(NOT_JUDGED):
            return "not judged"
        if NOT_DECLARED in skip_reason:
            return "not declared"
        return "skipped"
    return "pass" if passed else "skipped"


@dataclass
class BackendReport:
    backend: str
    capabilities: dict[str, bool]
    clauses: dict[str, ClauseResult] = field(default_factory=dict)

    def add(self, result: ClauseResult) -> None:
        known = self.clauses.get(result.clause)
        if known is None or _RANK[result.outcome] < _RANK[known.outcome]:
            self.clauses[result.clause] = result

    @property
    def level(self) -> str:
        base = [r for r in self.clauses.values() if r.capability is None]
        declared = [
            r
            for r in self.clauses.values()
            if r.capability is not None and self.capabilities.get(r.capability, False)
        ]
        if any(r.outcome in ("fail", "not judged") for r in base):
            return "none"
        if any(r.outcome in ("fail", "not judged", "xfail") for r in declared):
            return "base"
        return "full"

    def failures(self) -> list[ClauseResult]:
        return [r for r in self.clauses.values() if r.outcome == "fail"]

    def as_dict(self) -> dict[str, Any]:
        groups: dict[str, dict[str, Any]] = {"base": {"declared": True, "clauses": {}}}
        for name, declared in self.capabilities.items():
            groups[name] = {"declared": declared, "clauses": {}}
        for result in self.clauses.values():
            group = groups.setdefault(
                result.capability or "base", {"declared": False, "clauses": {}}
            )
            group["clauses"][result.clause] = {
                "outcome": result.outcome,
                "summary": result.summary,
                **({"detail": result.detail} if result.detail else {}),
            }
        return {
            "backend": self.backend,
            "level": self.level,
            "failed": sorted(r.clause for r in self.failures()),
            "capabilities": groups,
        }

    def lines(self) -> list[str]:
        failed = len(self.failures())
        out = [f"{self.backend}: level {self.level}" + (f", {failed} failed" if failed else "")]
        withheld = [r for r in self.clauses.values() if r.outcome == "not judged"]
        if withheld:
            reason = withheld[0].detail.removeprefix(NOT_JUDGED).strip()
            out.append(f"  {len(withheld)} clause(s) not judged: {reason}")
        for name, group in self.as_dict()["capabilities"].items():
            clauses = group["clauses"]
            if name != "base" and not group["declared"]:
                listed = f": {', '.join(clauses)}" if clauses else ""
                out.append(f"  {name}: not declared{listed}")
                continue
            if not clauses:  # judged by a base clause (fact_crud), or by no test of this run
                continue
            out.append(f"  {'base (every backend)' if name == 'base' else name + ' (declared)'}")
            for clause_name, entry in clauses.items():
                shown = entry["outcome"] in ("fail", "skipped", "xfail") and entry.get("detail")
                detail = f": {entry['detail']}" if shown else ""
                out.append(f"    {entry['outcome'].upper():<11} {clause_name}{detail}")
        return out


@dataclass
class ConformanceReport:
    backends: dict[str, BackendReport] = field(default_factory=dict)

    def add(self, result: ClauseResult) -> None:
        backend = self.backends.setdefault(
            result.backend, BackendReport(result.backend, result.capabilities)
        )
        backend.add(result)

    def as_dict(self) -> dict[str, Any]:
        return {"backends": [b.as_dict() for b in self.backends.values()]}

    def lines(self) -> list[str]:
        return [line for backend in self.backends.values() for line in backend.lines()]


def build_report(results: list[ClauseResult]) -> ConformanceReport:
    report = ConformanceReport()
    for result in results:
        report.add(result)
    return report
