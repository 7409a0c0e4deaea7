"""One generated exchange: the request as sent (:class:`FuzzCase`), what is compared of
the answer (:class:`Answer`), and :func:`send`."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["DROPPED", "Answer", "FuzzCase", "send"]

DROPPED = 0
"""The status of an answer that never came: the server closed the connection."""


@dataclass(frozen=True)
class FuzzCase:
    """One generated request as sent: ``target`` is the percent-encoded path and query."""

    operation: str
    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None

    def as_json(self) -> list[Any]:
        body: Any = None
        if self.body is not None:
            try:
                body = self.body.decode("utf-8")
            except UnicodeDecodeError:
                body = {"base64": base64.b64encode(self.body).decode("ascii")}
        return [self.operation, self.method, self.target, [list(h) for h in self.headers], body]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> FuzzCase:
        operation, method, target, headers, body = data
        raw = None
        if isinstance(body, str):
            raw = body.encode("utf-8")
        elif isinstance(body, dict):
            raw = base64.b64decode(body["base64"])
        return cls(operation, method, target, tuple((k, v) for k, v in headers), raw)

    def describe(self, limit: int = 300) -> str:
        """``METHOD target [headers] body``, cut at ``limit`` characters."""
        text = f"{self.method} {self.target}"
        if self.headers:
            text += " " + " ".join(f"{k}: {v}" for k, v in self.headers)
        if self.body is not None:
            text += " " + self.body.decode("utf-8", "backslashreplace")
        return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Answer:
    """What is compared of one response."""

    status: int
    errors: tuple[tuple[str, str], ...] | None = None
    """A 422's pydantic items: (type, location joined with dots), in the order given."""
    detail: str | None = None
    """Any other 4xx's detail, as text."""

    @classmethod
    def of(cls, response: httpx.Response) -> Answer:
        status = response.status_code
        if not 400 <= status < 500:
            return cls(status)
        try:
            detail = response.json().get("detail")
        except (ValueError, AttributeError):
            return cls(status, detail=response.text[:500])
        if status == 422 and isinstance(detail, list):
            items = tuple(
                (str(item.get("type")), ".".join(map(str, item.get("loc", ()))))
                for item in detail
                if isinstance(item, dict)
            )
            return cls(status, errors=items)
        return cls(status, detail=detail if isinstance(detail, str) else json.dumps(detail))

    @property
    def kind(self) -> str:
        """The answer in a few words, for grouping: ``422 [int_parsing, dict_type]``."""
        if self.status == DROPPED:
            return "connection closed"
        if self.errors is not None:
            types = list(dict.fromkeys(t for t, _ in self.errors))
            return f"{self.status} [{', '.join(types)}] x{len(self.errors)}"
        return str(self.status) + (" text" if self.detail is not None else "")

    def render(self) -> str:
        if self.status == DROPPED:
            return "connection closed without an answer"
        if self.errors is not None:
            return f"{self.status} " + ", ".join(f"{t} at {loc}" for t, loc in self.errors)
        return str(self.status) + (f" {self.detail!r}" if self.detail is not None else "")

    def as_json(self) -> list[Any]:
        if self.errors is not None:
            return [self.status, [list(e) for e in self.errors]]
        return [self.status] if self.detail is None else [self.status, self.detail]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Answer:
        if len(data) == 1:
            return cls(data[0])
        if isinstance(data[1], list):
            return cls(data[0], errors=tuple((t, loc) for t, loc in data[1]))
        return cls(data[0], detail=data[1])


def send(client: httpx.Client, case: FuzzCase) -> Answer:
    """``case`` through ``client``; a connection closed without an answer is status 0."""
    try:
        response = client.request(
            case.method, case.target, headers=list(case.headers), content=case.body
        )
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
        return Answer(DROPPED)
    return Answer.of(response)
