"""The base of every contract suite: capability checks and the override guard.

The guard (after langchain-tests) makes "we skipped the hard test" reviewable:
a subclass may override a contract test only to mark it
``@pytest.mark.xfail(reason=...)``; deleting it, or overriding it without such
a mark, fails ``test_no_overrides_DO_NOT_OVERRIDE``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

__all__ = ["ContractSuite", "find_unmarked_overrides"]


def _marks(obj: Any) -> list[pytest.Mark]:
    marks = getattr(obj, "pytestmark", [])
    return list(marks) if isinstance(marks, list) else [marks]


def _reasoned_xfail(mark: pytest.Mark) -> bool:
    return mark.name == "xfail" and bool(str(mark.kwargs.get("reason", "")).strip())


def _has_reasoned_xfail(func: Any) -> bool:
    """An xfail with a non-empty reason on the function, or on every ``pytest.param``
    of its parametrization."""
    marks = _marks(func)
    if any(_reasoned_xfail(mark) for mark in marks):
        return True
    for mark in marks:
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        params = list(mark.args[1])
        if params and all(
            any(_reasoned_xfail(getattr(m, "mark", m)) for m in getattr(p, "marks", ()))
            for p in params
        ):
            return True
    return False


def _contract_tests(cls: type) -> Iterator[tuple[type, str, Any]]:
    """``(suite, name, function)`` for each ``test_*`` a contract suite in ``cls``'s MRO defines."""
    for base in cls.__mro__:
        if base is cls or not getattr(base, "__contract_suite__", False):
            continue
        if base.__dict__.get("__contract_suite__") is not True:
            continue
        for name, value in vars(base).items():
            if name.startswith("test_") and inspect.isfunction(value):
                yield base, name, value


def find_unmarked_overrides(cls: type) -> list[str]:
    """Problems with ``cls``'s contract tests: deleted, or overridden without a reasoned xfail."""
    problems: list[str] = []
    for suite, name, original in _contract_tests(cls):
        current = inspect.getattr_static(cls, name, None)
        if current is original:
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is not None and owner.__dict__.get("__contract_suite__") is True:
            continue  # a more derived contract suite redefined it
        if not callable(current):
            problems.append(f"{suite.__name__}.{name} was deleted")
        elif not _has_reasoned_xfail(current):
            problems.append(
                f"{suite.__name__}.{name} is overridden without @pytest.mark.xfail(reason=...)"
            )
    return problems


class ContractSuite:
    """Mixin root for contract suites; a class setting ``__contract_suite__ = True`` in its
    own body is a suite whose tests the guard protects."""

    __contract_suite__: ClassVar[bool] = True

    def test_no_overrides_DO_NOT_OVERRIDE(self) -> None:
        """Contract tests may only be overridden to xfail them with a reason.

        Troubleshooting: instead of deleting or rewriting a contract test, write
        ``@pytest.mark.xfail(reason="why this backend differs")`` on an override that
        calls ``super()``; the reason is what reviewers read.
        """
        problems = find_unmarked_overrides(type(self))
        assert not problems, "contract tests overridden without a reasoned xfail:\n" + "\n".join(
            problems
        )
