"""One scripted exchange: a request template, how to send it, and what came back.

A :class:`Step` names its request with placeholders (``{ws}`` for the script's
workspace, ``{ws2}`` for a second one, ``{name}`` for a value an earlier step
saved, ``{3*ab}`` for a long repeated text), so the same script runs against
any server and a recording shows the request as written, never a run-specific
id or a key. :func:`run_script` sends the steps in order through one client
and normalises every answer with one :class:`TextNormaliser` pass (the
snapshot normaliser), so ids are numbered by first appearance across the whole
script and two servers that behave alike produce equal results.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from fake_honcho.drift.normalise import Normaliser
from fake_honcho.versions import Feature, HonchoVersion

__all__ = ["Result", "Script", "Session", "Step", "run_script", "workspace_names"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_REPEAT = re.compile(r"\{(\d+)\*([^{}]*)\}")  # {3*ab} is ababab; innermost first
WORKSPACE_SLOTS = ("ws", "ws2")
LONG_TEXT = 1_000


class TextNormaliser(Normaliser):
    """The snapshot normaliser, and ids it has numbered are also replaced inside free text
    (``"Message with ID <id:3> not found"``), where the snapshot rules cannot spot them."""

    def __init__(self, literals: Iterable[str] = ()) -> None:
        super().__init__(literals)
        self._seen: dict[str, str] = {}

    def placeholder(self, kind: str, value: str) -> str:
        found = super().placeholder(kind, value)
        if kind == "id":
            self._seen[value] = found
        return found

    def _string(self, value: str, *, id_context: bool) -> str:
        value = super()._string(value, id_context=id_context)
        if len(value) > 21:  # longer than an id: free text that may quote one
            for raw, found in self._seen.items():
                if raw in value:
                    value = value.replace(raw, found)
        return value


@dataclass(frozen=True)
class Step:
    """One request of a script.

    ``save`` maps a name to a dotted path into the JSON answer (``"0.id"``,
    ``"items.1.id"``) for later steps to use as ``{name}``; ``unordered`` compares
    a list answer (or a page's ``items``) as a multiset, for lists the server does
    not order; ``divergence`` names the register entry (``fake_honcho.harness.divergences``)
    that declares why the fake answers differently here.
    """

    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    files: Mapping[str, tuple[str, str, str]] | None = None
    data: Mapping[str, str] | None = None
    note: str = ""
    save: Mapping[str, str] = field(default_factory=dict)
    unordered: bool = False
    divergence: str | None = None

    def describe(self) -> dict[str, Any]:
        """The request as recorded: templates unresolved, empty parts left out."""
        request: dict[str, Any] = {"method": self.method, "path": self.path}
        for name in ("params", "json", "data"):
            value = getattr(self, name)
            if value is not None:
                request[name] = value
        if self.files is not None:
            request["files"] = {k: list(v) for k, v in self.files.items()}
        return request

    def as_json(self) -> dict[str, Any]:
        """Everything needed to send and judge this step again (see :meth:`from_json`)."""
        data: dict[str, Any] = {"request": self.describe()}
        if self.note:
            data["note"] = self.note
        if self.save:
            data["save"] = dict(self.save)
        if self.unordered:
            data["unordered"] = True
        if self.divergence:
            data["divergence"] = self.divergence
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Step:
        request = dict(data["request"])
        files = request.pop("files", None)
        return cls(
            request.pop("method"),
            request.pop("path"),
            files={k: (v[0], v[1], v[2]) for k, v in files.items()} if files else None,
            note=data.get("note", ""),
            save=data.get("save", {}),
            unordered=data.get("unordered", False),
            divergence=data.get("divergence"),
            **request,
        )


@dataclass(frozen=True)
class Script:
    """A named sequence of steps sharing one fresh workspace (and ``{ws2}`` if used).

    ``needs`` names the feature a server must speak for the script to run at all (the
    scope routes, say); versions without it are not sent it. ``deriver`` is the mode of
    the fake it is replayed on: ``"manual"`` for a script that reads what the real
    deriver has not reached yet (a deletion it runs seconds after the 202).
    """

    name: str
    steps: Sequence[Step]
    doc: str = ""
    needs: Feature | None = None
    deriver: Literal["immediate", "manual"] = "immediate"

    def runs_on(self, version: HonchoVersion) -> bool:
        return self.needs is None or version.speaks(self.needs)


@dataclass(frozen=True)
class Result:
    """What one step got back, normalised: status, content type and body."""

    status: int
    content_type: str
    body: Any

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status, "content_type": self.content_type, "body": self.body}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        return cls(data["status"], data["content_type"], data["body"])


def workspace_names(prefix: str) -> dict[str, str]:
    """Fresh workspace ids for one run of a script (Honcho's id grammar)."""
    token = uuid.uuid4().hex[:10]
    return {slot: f"{prefix}{token}{slot}" for slot in WORKSPACE_SLOTS}


def run_script(client: httpx.Client, script: Script, workspaces: Mapping[str, str]) -> list[Result]:
    """Send every step of ``script`` in order; one result per step."""
    session = Session(client, workspaces)
    return [session.send(step) for step in script.steps]


class Session:
    """Steps sent in order to one server: the values saved so far and one normaliser pass.

    :func:`run_script` uses one per script; the differential test one per server and
    generated example, so both sides number ids alike.
    """

    def __init__(self, client: httpx.Client, workspaces: Mapping[str, str]) -> None:
        self.client = client
        self.values: dict[str, str] = dict(workspaces)
        self.normaliser = TextNormaliser(workspaces.values())

    def send(self, step: Step) -> Result:
        try:
            response = _send(self.client, step, self.values)
        except httpx.TransportError as error:  # e.g. a server that drops the connection
            return Result(0, "", f"no response: {type(error).__name__}")
        data = _body(response)
        for name, where in step.save.items():
            found = _dig(data, where)
            if found is not None:
                self.values[name] = str(found)
        body = _canonical(step, _digested(self.normaliser(data)))
        return Result(response.status_code, _content_type(response), body)


def _send(client: httpx.Client, step: Step, values: Mapping[str, str]) -> httpx.Response:
    kwargs: dict[str, Any] = {}
    if step.json is not None:
        kwargs["json"] = _resolve(step.json, values)
    if step.params is not None:
        kwargs["params"] = _resolve(dict(step.params), values)
    if step.files is not None:
        kwargs["files"] = {
            k: (n, _resolve(c, values).encode(), t) for k, (n, c, t) in step.files.items()
        }
    if step.data is not None:
        kwargs["data"] = _resolve(dict(step.data), values)
    return client.request(step.method, _resolve(step.path, values), **kwargs)


def _resolve(template: Any, values: Mapping[str, str]) -> Any:
    """Fill ``{name}`` placeholders in every string of ``template``; unknown names stay."""
    if isinstance(template, str):
        text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
        while (expanded := _REPEAT.sub(lambda m: m.group(2) * int(m.group(1)), text)) != text:
            text = expanded
        return text
    if isinstance(template, list):
        return [_resolve(item, values) for item in template]
    if isinstance(template, dict):
        return {_resolve(k, values): _resolve(v, values) for k, v in template.items()}
    return template


def _content_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip()


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    if _content_type(response) == "application/json":
        try:
            return response.json()
        except json.JSONDecodeError:
            pass
    return response.text


def _dig(data: Any, where: str) -> Any:
    for part in where.split("."):
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return None
    return data


def _canonical(step: Step, body: Any) -> Any:
    """An ``unordered`` list answer sorted by its JSON, so order does not count."""
    if not step.unordered:
        return body
    if isinstance(body, dict) and isinstance(body.get("items"), list):
        return {**body, "items": _sorted(body["items"])}
    return _sorted(body) if isinstance(body, list) else body


def _digested(data: Any) -> Any:
    """Long strings as their length and digest: still compared exactly, kept short on disk."""
    if isinstance(data, str) and len(data) > LONG_TEXT:
        digest = hashlib.sha256(data.encode()).hexdigest()[:16]
        return f"<{len(data)} characters, sha256 {digest}>"
    if isinstance(data, list):
        return [_digested(item) for item in data]
    if isinstance(data, dict):
        return {key: _digested(value) for key, value in data.items()}
    return data


def _sorted(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
