"""What a server serves, found by probing (fake_honcho.drift.probe): the mapping to the
nearest version, how a field counts as read or ignored, and the fakes probed end to end.

The probes' answers on real servers were measured with ``--honcho-url`` runs of the plugin
(real 3.0.12: no feature, 7 ignored fields; main + #931: the 6 features of 3.1, only
``include_evidence`` ignored; main + #931 + #952: 3.1 plus conclusion-get and
conclusion-attribution).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.drift.probe import (
    FIELD_PROBES,
    Served,
    field_ignored,
    nearest_version,
    probe_server,
    served_by_version,
)
from fake_honcho.versions import VERSIONS, Feature


def test_the_nearest_version_is_the_newest_whose_features_are_all_served() -> None:
    assert nearest_version(frozenset()).name == "3.0.12"
    assert nearest_version(VERSIONS["3.1"].features).name == "3.1"
    between = VERSIONS["3.1"].features | {Feature.CONCLUSION_GET}
    served = Served(between, nearest_version(between))
    assert served.version.name == "3.1" and served.extra == {Feature.CONCLUSION_GET}
    assert served.describe().endswith("; beyond 3.1: conclusion-get), embeddings on")
    assert nearest_version(frozenset(Feature)).name == "3.2"
    assert nearest_version(frozenset({Feature.SCOPES})).name == "3.0.12"


def test_served_survives_the_trip_to_an_xdist_worker() -> None:
    served = probe_with(FakeHoncho(version="3.0.12", ignored_fields="allow"))
    shipped = served.to_json()
    assert all(type(name) is str for name in shipped["features"])  # execnet sends only builtins
    assert Served.from_json(shipped) == served
    assert served_by_version(VERSIONS["3.2"]).probed is False


def probe_with(fake: FakeHoncho) -> Served:
    with fake, httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        return probe_server(client)


def test_a_fake_at_3_0_12_is_probed_as_3_0_12_ignoring_every_newer_field() -> None:
    served = probe_with(FakeHoncho(version="3.0.12", ignored_fields="allow"))
    assert served.version.name == "3.0.12"
    assert served.features == frozenset()
    assert [(f.route, f.field) for f in served.ignored] == [
        (probe.route, probe.field) for probe in FIELD_PROBES
    ]


@pytest.mark.parametrize("real_bugs", ["reproduce", "correct"])
@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_a_fake_is_probed_to_serve_exactly_its_versions_features(
    version: str, real_bugs: str
) -> None:
    served = probe_with(FakeHoncho(version=version, ignored_fields="allow", real_bugs=real_bugs))
    assert served.features == VERSIONS[version].features


def _answering(status: int, detail: Any) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"detail": detail})

    return httpx.Client(transport=httpx.MockTransport(answer), base_url="http://server")


SEARCH_SCOPE = next(p for p in FIELD_PROBES if p.route == "workspace search")
QUERY_ITEM = {"type": "string_type", "loc": ["body", "query"], "msg": "m"}
SCOPE_ITEM = {"type": "string_type", "loc": ["body", "scope"], "msg": "m"}


@pytest.mark.parametrize(
    ("status", "detail", "ignored"),
    [
        (422, [QUERY_ITEM, SCOPE_ITEM], False),  # named in the 422: read
        (422, [QUERY_ITEM], True),  # only the other field: dropped
        (422, "peer_target must be provided if scope is provided", False),
        (422, "Invalid filter configuration", True),
        (200, [], True),  # a query parameter answered as if absent
        (404, "Not Found", None),  # unclear: not reported either way
        (500, "An unexpected error occurred", None),
    ],
)
def test_a_field_is_ignored_when_the_answer_does_not_name_it(
    status: int, detail: Any, ignored: bool | None
) -> None:
    with _answering(status, detail) as client:
        assert field_ignored(client, SEARCH_SCOPE, "w") is ignored


@pytest.mark.parametrize("embed", [True, False])
def test_whether_a_server_embeds_messages_is_probed(embed: bool) -> None:
    """Measured on real servers too: 3.0.12 and 3.1 with ``EMBED_MESSAGES=true`` refuse a
    query spelling ``<|endoftext|>`` (422), with it off they answer ``[]``."""
    served = probe_with(FakeHoncho(embed_messages=embed, ignored_fields="allow"))
    assert served.embeds is embed
    assert served.describe().endswith("embeddings on" if embed else "embeddings off")
