"""The memory document DeerFlow's gateway accepts from ``get_memory`` (and the other management
calls), as DeerFlow f1f4af99 defines it.

Where the rule comes from (paths in ``bytedance/deer-flow`` at f1f4af99):

- ``backend/app/gateway/routers/memory.py``: every management return goes through
  ``MemoryResponse(**memory_data)``. Unknown keys are ignored and missing ones take
  defaults (``version "1.0"``, ``lastUpdated ""``, empty ``user``/``history`` sections, no
  facts); what fails the cast (a 500 for the user) is a field of the wrong type, or a fact
  without a string ``id`` or ``content``.
- ``frontend/src/core/utils/datetime.ts`` (``formatTimeAgo``): a ``lastUpdated`` that is not
  a date, ``""`` included, is shown as ``-``; so an empty or absent ``lastUpdated`` is
  allowed (noop's ``{"facts": []}`` is a valid document), whatever older README text says.
- ``frontend/src/components/workspace/settings/memory-settings-page.tsx``: renders what the
  gateway returned.

The model below states those field types in this kit's words (pydantic's lax mode, as the
gateway's own model validates), so a document passes here exactly when the cast succeeds.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["memory_document_problems"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str = ""
    updatedAt: str = ""


class _User(BaseModel):
    model_config = ConfigDict(extra="ignore")
    workContext: _Section = Field(default_factory=_Section)
    personalContext: _Section = Field(default_factory=_Section)
    topOfMind: _Section = Field(default_factory=_Section)


class _History(BaseModel):
    model_config = ConfigDict(extra="ignore")
    recentMonths: _Section = Field(default_factory=_Section)
    earlierContext: _Section = Field(default_factory=_Section)
    longTermBackground: _Section = Field(default_factory=_Section)


class _Fact(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    content: str
    category: str = "context"
    categoryExtension: str | None = None
    topics: list[str] | None = None
    confidence: float = 0.5
    createdAt: str = ""
    source: str | dict[str, Any] = "unknown"  # the gateway folds a dict into a string
    sourceError: str | None = None
    schemaVersion: int | None = None
    status: str | None = None
    scope: dict[str, str | None] | None = None
    revision: int | None = None
    updatedAt: str | None = None
    consolidatedAt: str | None = None
    consolidatedFrom: list[str] | None = None


class _Document(BaseModel):
    model_config = ConfigDict(extra="ignore")
    version: str = "1.0"
    revision: int | None = None
    lastUpdated: str = ""
    user: _User = Field(default_factory=_User)
    history: _History = Field(default_factory=_History)
    facts: list[_Fact] = Field(default_factory=list)


def memory_document_problems(doc: Any) -> list[str]:
    """What would make DeerFlow's gateway fail to cast ``doc`` (a 500 for the user); ``[]``
    when it casts."""
    if not isinstance(doc, dict):
        return [f"get_memory returned {type(doc).__name__}, not a dict"]
    try:
        _Document.model_validate(doc)
    except ValidationError as invalid:
        return [
            f"{_where(error['loc'])}: {_INSTANCE_OF.sub('', error['msg'])} "
            f"(got {error.get('input')!r:.60})"
            for error in invalid.errors()
        ]
    return []


_INSTANCE_OF = re.compile(r" or instance of \w+")


def _where(loc: tuple[int | str, ...]) -> str:
    """``("facts", 0, "id")`` as ``facts[0].id``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")
