"""The kit's SDK examples (docs/testing-a-client.md, docs/hermes.md) against a real Honcho,
recorded as a pytest-recording cassette (not collected by the suite: it needs a server)::

    HONCHO_URL=http://127.0.0.1:18010 pytest -p no:xdist --record-mode=once \
        tests/fidelity/traffic/sdk_example.py
    # then: cassettes/sdk_example/test_sdk_example.yaml -> cassettes/sdk-example-VERSION+embed.yaml
"""

import os
import uuid

import pytest
from honcho import Honcho


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, list[str]]:
    return {"filter_headers": ["authorization"]}


@pytest.mark.vcr
def test_sdk_example() -> None:
    workspace = f"demo-{uuid.uuid4().hex[:8]}"
    honcho = Honcho(base_url=os.environ["HONCHO_URL"], workspace_id=workspace)
    alice = honcho.peer("alice", metadata={"role": "user"})
    assert alice.get_metadata() == {"role": "user"}
    user, agent, session = honcho.peer("alice"), honcho.peer("hermes"), honcho.session("chat")
    session.add_messages([user.message("I keep bees on the roof")])
    session.add_messages([agent.message("Bees on a roof sound lovely")])
    session.add_messages([user.message("and I grow tomatoes")])
    honcho.search("bees", filters={"peer_perspective": "alice"}, limit=10)
    honcho.search("bees", limit=10)
    assert len(session.search("bees", limit=10)) >= 1
    assert [m.content for m in session.messages()][-1] == "and I grow tomatoes"
    session.set_metadata({"topic": "garden"})
    assert session.get_metadata() == {"topic": "garden"}
