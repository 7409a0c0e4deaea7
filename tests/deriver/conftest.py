"""Fixtures for the deriver tests: a strict manual-mode fake, a client and a seeder."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho

from .support import World, make_fake


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with make_fake("manual") as instance:
        yield instance


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
        yield http


@pytest.fixture
def world(fake: FakeHoncho, client: httpx.Client) -> World:
    return World(fake, client)
