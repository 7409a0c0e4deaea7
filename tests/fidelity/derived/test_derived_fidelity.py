"""The toy deriver against what a real Honcho 3.0.12 derived through the stand-in LLM.

``real-3.0.12.json`` was recorded by ``scenario.py`` from a real Honcho whose LLM and
embeddings were ``fake-honcho-llm``; here the same script runs on the fake, and every
derived result must match: conclusions (grouped by shared ``created_at``, tied rows as
sets), the representation, the card after a ``card_refresh`` dream, chat answers,
summaries (type, content, token count, timestamp format).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho

from .scenario import RECORDING, run


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    results: dict[str, Any] = json.loads(RECORDING.read_text())["results"]
    return results


@pytest.fixture(scope="module")
def derived() -> Iterator[dict[str, Any]]:
    with FakeHoncho(deriver="manual", strict=True) as fake:
        http = httpx.Client(transport=fake.transport(), base_url="http://fake")
        with http:
            yield run(http, "fidelity", fake.deriver.run_until_idle)


@pytest.mark.parametrize("part", ["conclusions", "representation", "card", "chat", "summaries"])
def test_the_fake_derives_what_real_honcho_derived(
    part: str, recorded: dict[str, Any], derived: dict[str, Any]
) -> None:
    assert derived[part] == recorded[part]
