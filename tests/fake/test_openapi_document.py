"""The fake's own ``/openapi.json`` of each version, byte for byte as committed.

The document is built from the operations declared beside the routes, the schemas and
the document builder; a change to any of them shows here as a change of
``tests/fake/openapi_documents/<version>.json`` to review. When the change is meant,
write the copies anew and commit them:

    python -m tests.fake.test_openapi_document
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.versions import VERSIONS

COPIES = Path(__file__).parent / "openapi_documents"


def served(version: str) -> bytes:
    """``/openapi.json`` as a fake speaking ``version`` sends it."""
    with (
        FakeHoncho(version=version) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        response = client.get("/openapi.json")
    response.raise_for_status()
    return response.content


def _as_sent(copy: str) -> bytes:
    """A committed copy (indented, for readable diffs) in the bytes the fake sends."""
    document = json.loads(copy)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_the_document_is_the_committed_one(version: str) -> None:
    copy = COPIES / f"{version}.json"
    assert served(version) == _as_sent(copy.read_text(encoding="utf-8")), (
        f"/openapi.json of {version} changed; if meant, run "
        "`python -m tests.fake.test_openapi_document` and commit the copies"
    )


def write_copies() -> None:
    COPIES.mkdir(exist_ok=True)
    for version in sorted(VERSIONS):
        document = json.loads(served(version))
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        (COPIES / f"{version}.json").write_text(text, encoding="utf-8")
        print(f"{COPIES / version}.json")


if __name__ == "__main__":
    write_copies()
