"""FastAPI's checks of a request, all before the handler, in its order (as generated
requests found on real 3.0.12 and 3.1, tests/fidelity/fuzz):

- the body is decoded first: bytes that are not UTF-8 are a 400, text that is not JSON a
  422 with the one ``json_invalid`` item, whatever else is wrong;
- then every query parameter (the pagination dependency's ``page`` and ``size`` before
  the route's own) and the body are validated, and every refusal is in one 422.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho

JSON = {"content-type": "application/json"}


@pytest.fixture(params=["3.0.12", "3.1"])
def client(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    with (
        FakeHoncho(version=request.param) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        yield client


def _items(answer: httpx.Response) -> list[tuple[str, str]]:
    assert answer.status_code == 422, answer.text
    return [(item["type"], ".".join(map(str, item["loc"]))) for item in answer.json()["detail"]]


def test_every_query_parameter_and_the_body_are_refused_together(client: httpx.Client) -> None:
    params = {"page": "0", "size": "0", "reverse": "maybe"}
    answer = client.post("/v3/workspaces/list", params=params, json={"filters": 5})
    assert _items(answer) == [
        ("greater_than_equal", "query.page"),
        ("greater_than_equal", "query.size"),
        ("bool_parsing", "query.reverse"),
        ("dict_type", "body.filters"),
    ]


def test_the_route_own_parameters_come_after_the_pagination_ones(client: httpx.Client) -> None:
    """``reverse`` is declared first in the document but validated after the dependency."""
    answer = client.post(
        "/v3/workspaces/w/sessions/list", params={"reverse": "x", "size": "big"}, json={}
    )
    assert _items(answer) == [("int_parsing", "query.size"), ("bool_parsing", "query.reverse")]


def test_each_refused_query_parameter_is_listed(client: httpx.Client) -> None:
    answer = client.get(
        "/v3/workspaces/w/sessions/s/context", params={"tokens": "x", "max_conclusions": "0"}
    )
    assert _items(answer) == [
        ("int_parsing", "query.tokens"),
        ("greater_than_equal", "query.max_conclusions"),
    ]


def test_an_undecodable_body_is_a_400_before_any_query_refusal(client: httpx.Client) -> None:
    answer = client.post(
        "/v3/workspaces/list", params={"page": "-1"}, content=b"\x9d\xb5", headers=JSON
    )
    assert answer.status_code == 400
    assert answer.json() == {"detail": "There was an error parsing the body"}


def test_a_body_that_is_not_json_is_its_only_refusal(client: httpx.Client) -> None:
    answer = client.post(
        "/v3/workspaces/w/peers/list", params={"size": "0"}, content=b"_AP!", headers=JSON
    )
    assert _items(answer) == [("json_invalid", "body.0")]


def test_valid_parameters_reach_the_handler(client: httpx.Client) -> None:
    answer = client.post("/v3/workspaces/list", params={"page": "2", "size": "5"}, json={})
    assert answer.status_code == 200 and answer.json()["page"] == 2


def test_an_empty_form_field_is_a_missing_one(client: httpx.Client) -> None:
    """FastAPI reads an empty form value as absent: 422 missing, before the file's type."""
    files = {"file": ("a.bin", b"", "application/octet-stream")}
    answer = client.post(
        "/v3/workspaces/w/sessions/s/messages/upload", files=files, data={"peer_id": ""}
    )
    assert _items(answer) == [("missing", "body.peer_id")]
