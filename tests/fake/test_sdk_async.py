"""The official SDK's async API against the fake: in-process and over real HTTP."""

from __future__ import annotations

import asyncio

import httpx
from honcho import Honcho
from honcho.http.async_client import AsyncHonchoHTTPClient

from fake_honcho import FakeHoncho

BASE_URL = "http://fake-honcho.test"


async def _conversation(honcho: Honcho) -> dict[str, object]:
    aio = honcho.aio
    alice = await aio.peer("alice", metadata={"lang": "en"})
    bot = await aio.peer("bot")
    session = await aio.session("async-chat")
    await session.aio.add_peers([alice, bot])
    written = await session.aio.add_messages(
        [alice.message("I brew oolong tea every morning"), bot.message("Oolong sounds lovely")]
    )
    page = await session.aio.messages(size=1)
    listed = [message.content async for message in page]
    found = await aio.search("oolong")
    fetched = await session.aio.get_message(written[0].id)
    return {
        "metadata": await alice.aio.get_metadata(),
        "members": sorted(peer.id for peer in await session.aio.peers()),
        "listed": listed,
        "total": page.total,
        "found": sorted(message.content for message in found),
        "fetched": fetched.content,
    }


EXPECTED = {
    "metadata": {"lang": "en"},
    "members": ["alice", "bot"],
    "listed": ["I brew oolong tea every morning", "Oolong sounds lovely"],
    "total": 2,
    "found": ["I brew oolong tea every morning", "Oolong sounds lovely"],
    "fetched": "I brew oolong tea every morning",
}


def test_async_sdk_in_process(fake: FakeHoncho) -> None:
    async def run() -> dict[str, object]:
        async with httpx.AsyncClient(transport=fake.async_transport(), base_url=BASE_URL) as http:
            honcho = Honcho(base_url=BASE_URL, workspace_id="aio-ws", max_retries=0)
            # The async API has no public http_client parameter; its HTTP client does.
            honcho._async_http = AsyncHonchoHTTPClient(
                base_url=BASE_URL, max_retries=0, http_client=http
            )
            return await _conversation(honcho)

    assert asyncio.run(run()) == EXPECTED


def test_async_sdk_over_served_http(fake: FakeHoncho) -> None:
    with fake.serve() as base_url:
        honcho = Honcho(base_url=base_url, workspace_id="served-ws", max_retries=0)
        assert asyncio.run(_conversation(honcho)) == EXPECTED
    assert fake.store.get("workspaces", "served-ws") is not None
