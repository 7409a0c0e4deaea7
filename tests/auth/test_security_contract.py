"""The security contract test catches a server that lets a scoped key through.

``HonchoAPIContract.test_scoped_keys_never_reach_another_peer_or_session`` passes on the
fake with auth on, and fails on mutants: fakes configured to break one route's rule
(``FakeHoncho(rule_overrides=...)``), as a server with that bug would.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from contract_tests import HonchoAPIContract
from contract_tests.api_contract import Api
from contract_tests.target import HonchoTarget
from fake_honcho import FakeHoncho
from fake_honcho.http.permissions import BY_BODY, Rule

S = "/v3/workspaces/{workspace_id}/sessions/{session_id}"
MUTANTS = {
    # any valid key lists any session's messages
    "messages list open": {f"POST {S}/messages/list": BY_BODY},
    # a peer key reads any session's context, member or not
    "context member read without membership": {f"GET {S}/context": BY_BODY},
    # any valid key writes any peer's card
    "card writes open": {"PUT /v3/workspaces/{workspace_id}/peers/{peer_id}/card": BY_BODY},
}


@contextmanager
def suite_api(overrides: dict[str, Rule]) -> Iterator[Api]:
    with FakeHoncho(jwt_secret=secrets.token_hex(32), rule_overrides=overrides) as fake:
        target = HonchoTarget("http://honcho.fake", api_key=fake.admin_key, fake=fake)
        with target.client() as client:
            yield Api(client, "security-contract")


def test_the_fake_with_auth_on_passes() -> None:
    with suite_api({}) as api:
        HonchoAPIContract().test_scoped_keys_never_reach_another_peer_or_session(api)


@pytest.mark.parametrize("overrides", MUTANTS.values(), ids=MUTANTS.keys())
def test_a_mutant_fails_the_suite(overrides: dict[str, Rule]) -> None:
    with suite_api(overrides) as api, pytest.raises(AssertionError, match="outside their scope"):
        HonchoAPIContract().test_scoped_keys_never_reach_another_peer_or_session(api)
