"""vcrpy / pytest-recording cassettes as exchanges to replay.

A cassette is read by vcrpy's own loader (its filesystem persister and YAML serializer,
the code that plays it back in a test), never parsed here; vcrpy comes with the
``replay`` extra. Only the exchanges with the Honcho host are taken: the one named, or
else the one host the cassettes' ``/v3/`` requests went to.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fake_honcho.drift.traffic import Exchange, decode_body

__all__ = ["CassetteError", "read_cassettes"]


class CassetteError(ValueError):
    """A cassette that cannot be read, or hosts that leave the Honcho one unclear."""


def read_cassettes(paths: Sequence[Path], host: str | None = None) -> list[list[Exchange]]:
    """The Honcho exchanges of each cassette, in its order."""
    loaded = [_load(path) for path in paths]
    if host is None:
        hosts = {
            urlsplit(request.uri).netloc
            for requests, _ in loaded
            for request in requests
            if urlsplit(request.uri).path.startswith("/v3/")
        }
        if len(hosts) != 1:
            found = ", ".join(sorted(hosts)) or "none"
            raise CassetteError(
                f"name the Honcho host with --host (hosts with /v3/ requests: {found})"
            )
        host = hosts.pop()
    return [
        [
            _exchange(seq, request, response)
            for seq, (request, response) in enumerate(zip(requests, responses, strict=True), 1)
            if urlsplit(request.uri).netloc == host
        ]
        for requests, responses in loaded
    ]


def _load(path: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    try:
        from vcr.filters import decode_response
        from vcr.persisters.filesystem import FilesystemPersister
        from vcr.serializers import yamlserializer
    except ImportError:
        from fake_honcho._extras import install_line

        raise CassetteError(
            f"reading cassettes needs vcrpy (the 'replay' extra): {install_line('replay')}"
        ) from None
    try:
        requests, responses, *_ = FilesystemPersister.load_cassette(path, yamlserializer)
    except Exception as problem:  # vcrpy raises yaml's, its own and KeyError alike
        raise CassetteError(f"{path} is not a vcrpy cassette ({type(problem).__name__})") from None
    return list(requests), [decode_response(_current(r)) for r in responses]


def _current(response: dict[str, Any]) -> dict[str, Any]:
    """The response in today's layout (vcrpy's httpx stub once wrote another)."""
    if "status_code" in response:
        return {
            "status": {"code": response["status_code"]},
            "headers": response["headers"],
            "body": {"string": response["content"]},
        }
    return response


def _exchange(seq: int, request: Any, response: dict[str, Any]) -> Exchange:
    url = urlsplit(request.uri)
    request_type = _header(request.headers, "content-type")
    response_type = _header(response.get("headers", {}), "content-type")
    body = request.body or b""
    content = response["body"]["string"] or b""
    return Exchange(
        seq,
        request.method,
        url.path + (f"?{url.query}" if url.query else ""),
        decode_body(body if isinstance(body, bytes) else body.encode(), request_type),
        int(response["status"]["code"]),
        decode_body(content if isinstance(content, bytes) else content.encode(), response_type),
        request_type=request_type,
        response_type=response_type,
    )


def _header(headers: Any, name: str) -> str:
    for key, value in dict(headers).items():
        if key.lower() == name:
            return str(value[0] if isinstance(value, list) else value)
    return ""
