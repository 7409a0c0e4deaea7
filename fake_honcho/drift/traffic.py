"""A recording of a client's own traffic: what ``fake-honcho proxy`` writes, ``replay`` reads.

A recording is a directory:

* ``exchanges.jsonl``: one exchange per line, appended as each one ends. ``seq`` numbers
  them in the order their requests arrived (the order :func:`read_exchanges` returns and a
  replay sends). A request keeps its method, its target (path and query string, as sent),
  its ``content-type`` and its body; an answer its status, ``content-type`` and body. A body
  is ``json`` (the decoded value) when its content type is JSON and it parses, else ``text``
  (an SSE stream is text), else ``base64``. No other header is written: the
  ``Authorization`` header (a bearer key) never reaches the disk. ``upstream_ms`` is the
  server's time (first byte sent to last byte received), ``proxy_ms`` the proxy's own
  on top of it.
  A recording kept in a repository may be compressed whole: ``exchanges.jsonl.gz``.
* ``server.json``: what the upstream serves, probed once (:mod:`fake_honcho.drift.probe`:
  features, nearest version, embeddings), whether it asks for a key, whether the
  recording is redacted, and the upstream's URL without credentials.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from fake_honcho.drift.probe import Served

__all__ = [
    "EXCHANGES",
    "SERVER",
    "Body",
    "Exchange",
    "ServerInfo",
    "append_exchange",
    "decode_body",
    "read_exchanges",
    "read_server",
    "without_credentials",
    "write_server",
]

EXCHANGES = "exchanges.jsonl"
SERVER = "server.json"


@dataclass(frozen=True)
class Body:
    """A request's or an answer's body: JSON, text or bytes (``kind``), as sent."""

    kind: str  # "json" | "text" | "base64" | "none"
    value: Any = None

    def raw(self) -> bytes:
        """The bytes to send again (JSON re-encoded compactly, as the SDKs send it)."""
        if self.kind == "none":
            return b""
        if self.kind == "json":
            return json.dumps(self.value, ensure_ascii=False, separators=(",", ":")).encode()
        if self.kind == "text":
            return str(self.value).encode()
        return base64.b64decode(self.value)

    def as_json(self) -> dict[str, Any]:
        return {} if self.kind == "none" else {self.kind: self.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Body:
        for kind in ("json", "text", "base64"):
            if kind in data:
                return cls(kind, data[kind])
        return cls("none")


def decode_body(content: bytes, content_type: str) -> Body:
    """How a body is written: JSON when it says so and parses, else UTF-8 text, else base64."""
    if not content:
        return Body("none")
    media = content_type.split(";")[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        try:
            return Body("json", json.loads(content))
        except ValueError:
            pass
    if media.startswith("multipart/"):
        return Body("base64", base64.b64encode(content).decode())
    try:
        return Body("text", content.decode())
    except UnicodeDecodeError:
        return Body("base64", base64.b64encode(content).decode())


@dataclass(frozen=True)
class Exchange:
    """One request and the real server's answer to it."""

    seq: int
    method: str
    target: str
    """Path and query string, as sent (``/v3/workspaces/list?page=2``)."""
    request: Body
    status: int
    response: Body
    request_type: str = ""
    response_type: str = ""
    upstream_ms: float | None = None
    proxy_ms: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.target).query, keep_blank_values=True)

    @property
    def streamed(self) -> bool:
        return self.response_type.split(";")[0].strip() == "text/event-stream"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seq": self.seq, "method": self.method, "target": self.target}
        if self.request_type:
            data["request_type"] = self.request_type
        if self.request.kind != "none":
            data["request"] = self.request.as_json()
        data["status"] = self.status
        if self.response_type:
            data["response_type"] = self.response_type
        if self.response.kind != "none":
            data["response"] = self.response.as_json()
        for name in ("upstream_ms", "proxy_ms"):
            value = getattr(self, name)
            if value is not None:
                data[name] = round(value, 3)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Exchange:
        return cls(
            seq=int(data["seq"]),
            method=data["method"],
            target=data["target"],
            request=Body.from_json(data.get("request", {})),
            status=int(data["status"]),
            response=Body.from_json(data.get("response", {})),
            request_type=data.get("request_type", ""),
            response_type=data.get("response_type", ""),
            upstream_ms=data.get("upstream_ms"),
            proxy_ms=data.get("proxy_ms"),
        )


def append_exchange(directory: Path, exchange: Exchange) -> None:
    """One line more in ``directory/exchanges.jsonl`` (written whole, then flushed)."""
    line = json.dumps(exchange.as_json(), ensure_ascii=False, separators=(",", ":"))
    with (directory / EXCHANGES).open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def read_exchanges(directory: Path) -> list[Exchange]:
    """The exchanges of a recording, in the order their requests arrived (from
    ``exchanges.jsonl``, or ``exchanges.jsonl.gz`` as a recording may be kept)."""
    path = directory / EXCHANGES
    if not path.is_file() and path.with_name(EXCHANGES + ".gz").is_file():
        path = path.with_name(EXCHANGES + ".gz")
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    exchanges = []
    # split at newlines only: a JSON string may hold U+2028, which splitlines() splits at
    for number, line in enumerate(text.split("\n"), 1):
        if line:
            try:
                exchanges.append(Exchange.from_json(json.loads(line)))
            except (ValueError, KeyError) as problem:
                raise ValueError(f"{path}:{number}: not an exchange ({problem})") from None
    return sorted(exchanges, key=_seq)


def _seq(exchange: Exchange) -> int:
    return exchange.seq


@dataclass(frozen=True)
class ServerInfo:
    """What ``server.json`` says about the upstream a recording was made against."""

    upstream: str
    served: Served
    auth: bool = False
    redacted: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "upstream": self.upstream,
            "served": self.served.to_json(),
            "auth": self.auth,
            "redacted": self.redacted,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ServerInfo:
        return cls(
            upstream=data["upstream"],
            served=Served.from_json(data["served"]),
            auth=bool(data.get("auth", False)),
            redacted=bool(data.get("redacted", False)),
        )


def write_server(directory: Path, info: ServerInfo) -> None:
    text = json.dumps(info.as_json(), indent=1, sort_keys=True)
    (directory / SERVER).write_text(text + "\n", encoding="utf-8")


def read_server(directory: Path) -> ServerInfo | None:
    path = directory / SERVER
    if not path.is_file():
        return None
    return ServerInfo.from_json(json.loads(path.read_text(encoding="utf-8")))


def without_credentials(url: str) -> str:
    """The URL as printed and written: any ``user:password@`` part dropped."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
