"""Record a Honcho server's ``/openapi.json`` as the test compares it: ``<version>.json``.

    python -m tests.fidelity.openapi.record --honcho-url http://127.0.0.1:18000 --version 3.0.12

Only the structure is kept (paths, methods, parameters, bodies, responses, components):
descriptions, summaries and titles are Honcho's prose and are left out, as are
``info`` (but its version) and ``servers``. ``x-recorded-from`` says which server it
came from. ``tests/fidelity/test_openapi.py`` holds the fake's document against it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).parent
PROSE = ("description", "summary", "title")


def structure(document: Any) -> Any:
    """``document`` without prose: a string-valued ``description``/``summary``/``title``
    is text, a dict-valued one is a property of that name and stays."""
    if isinstance(document, list):
        return [structure(item) for item in document]
    if not isinstance(document, dict):
        return document
    return {
        key: structure(value)
        for key, value in document.items()
        if not (key in PROSE and isinstance(value, str))
    }


def trimmed(document: dict[str, Any]) -> dict[str, Any]:
    """What is compared: the OpenAPI version, the API version, paths and components."""
    return {
        "openapi": document["openapi"],
        "info": {"version": document["info"]["version"]},
        "paths": structure(document["paths"]),
        "components": structure(document["components"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honcho-url", required=True)
    parser.add_argument("--version", required=True, help="the fake's name for this server")
    args = parser.parse_args()
    source = f"{args.honcho_url.rstrip('/')}/openapi.json"
    response = httpx.get(source, timeout=30)
    response.raise_for_status()
    recorded = {"x-recorded-from": source, **trimmed(response.json())}
    out = HERE / f"{args.version}.json"
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
