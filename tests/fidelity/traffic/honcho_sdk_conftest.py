"""Honcho's own SDK tests (``tests/sdk`` at v3.0.12) over HTTP, for a recording workload.

Honcho runs them in process against a fresh database; this conftest, put in place of
theirs, sends them to the server at ``HONCHO_URL`` (a ``fake-honcho proxy``), each test in
workspaces of its own so a shared server's other data never meets them (the two tests that
assert the fixed workspace names then fail; their traffic is recorded all the same)::

    git --git-dir=HONCHO_GIT archive v3.0.12 tests/sdk sdks/python | tar x
    cp honcho_sdk_conftest.py tests/sdk/conftest.py && touch tests/__init__.py
    HONCHO_URL=http://127.0.0.1:8010 python -m pytest tests/sdk   # pytest-asyncio, fastapi
"""

import os
import sys
import uuid
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent.parent))
from sdks.python.src.honcho.client import Honcho

URL = os.environ["HONCHO_URL"]
RUN = uuid.uuid4().hex[:6]


@pytest.fixture
def client():
    with httpx.Client(base_url=URL, timeout=120) as http:
        yield http


def _honcho(kind):
    return Honcho(
        workspace_id=f"sdk-{kind}-{RUN}-{uuid.uuid4().hex[:6]}", base_url=URL, timeout=120
    )


@pytest.fixture
def honcho_sync_test_client():
    return _honcho("sync")


@pytest.fixture
def honcho_async_test_client():
    return _honcho("async")


@pytest.fixture
def honcho_test_client():
    return _honcho("it")


@pytest.fixture(params=["sync", "async"])
def client_fixture(request, honcho_sync_test_client, honcho_async_test_client):
    if request.param == "sync":
        return honcho_sync_test_client, "sync"
    return honcho_async_test_client, "async"
