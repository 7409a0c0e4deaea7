"""Request bodies are read once (the journal's buffer) and decoded as json.loads would."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from fake_honcho import FakeHoncho

PEERS = "/v3/workspaces/w1/peers"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_a_body_in_any_encoding_json_detects_is_read(client: httpx.Client, encoding: str) -> None:
    body = json.dumps({"id": "p1", "metadata": {"name": "Zoë"}}).encode(encoding)
    response = client.post(PEERS, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 201, response.text
    assert response.json()["metadata"] == {"name": "Zoë"}


def test_invalid_utf8_is_fastapis_json_invalid(client: httpx.Client) -> None:
    response = client.post(PEERS, content=b'{"id": "\xff"}')
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"


def test_the_handler_reads_the_body_the_journal_recorded(
    fake: FakeHoncho, client: httpx.Client
) -> None:
    client.post(PEERS, json={"id": "p2", "metadata": {"k": 1}})
    entry = fake.requests[-1]
    assert entry.json == {"id": "p2", "metadata": {"k": 1}}
    assert fake.store.get("peers", ("w1", "p2"))["metadata"] == {"k": 1}


def test_the_core_app_without_the_journal_still_reads_bodies(fake: FakeHoncho) -> None:
    transport = httpx.ASGITransport(app=fake.core_app)

    async def post() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://fake") as client:
            return await client.post(PEERS, json={"id": "p3"})

    response = asyncio.run(post())
    assert response.status_code == 201
    assert len(fake.requests) == 0
