"""What a Honcho server serves, found by asking it: its features, its nearest version, and
the request fields it drops without a word.

``/openapi.json``'s ``info.version`` cannot say: Honcho's main branch still reports
3.0.12 while it serves scopes. So each :class:`~fake_honcho.versions.Feature` has a
probe, a request whose answer tells a server that serves the feature from one that
does not (a route's 404 against a 422 for an empty body, a 405 against a 404, a refusal
text only the newer rules give). Probes are read-only where the feature allows it: they
address a workspace that does not exist, or send a body the server must refuse; only the
narrowed-recall probe writes, in a throwaway workspace it deletes. The filter probe makes
a server without strict filters answer one 500 (that is the behaviour being probed).

An ignored field is found the same way: the field is sent with a value of the wrong type
beside a deliberately invalid field every version checks. A server that reads the field
names it in its 422; one that drops it names only the other field (or, for a query
parameter, answers as if it were absent).

Whether the server embeds messages (Honcho's ``EMBED_MESSAGES``) is probed too
(:func:`probe_embeds`): its search is hybrid then.

``fake-honcho compare`` picks the fake's version with :func:`probe_server`; the contract
plugin probes its ``--honcho-url`` target with it once per run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fake_honcho.versions import VERSIONS, Feature, HonchoVersion

if TYPE_CHECKING:  # the plugin's header imports this module in every host run: no httpx
    import httpx

__all__ = [
    "FIELD_PROBES",
    "FieldProbe",
    "IgnoredField",
    "Served",
    "field_ignored",
    "nearest_version",
    "probe_embeds",
    "probe_features",
    "probe_ignored_fields",
    "probe_server",
    "served_by_version",
]

W = "/v3/workspaces/{ws}"


@dataclass(frozen=True)
class IgnoredField:
    """A request field a server accepts and drops: the client gets broader data, no error."""

    route: str
    field: str
    consequence: str

    def describe(self) -> str:
        return f"`{self.field}` on {self.route}: {self.consequence}"


@dataclass(frozen=True)
class Served:
    """What one server serves: the features found, the nearest version, the ignored fields."""

    features: frozenset[Feature]
    version: HonchoVersion
    ignored: tuple[IgnoredField, ...] = ()
    probed: bool = True
    embeds: bool = True
    """Whether the server embeds messages (``EMBED_MESSAGES``): its search is hybrid."""

    @property
    def extra(self) -> frozenset[Feature]:
        """Features served beyond :attr:`version` (a server between two releases)."""
        return self.features - self.version.features

    def describe(self) -> str:
        """``Honcho 3.1 (scopes, workspace-chat, ...)``, plus what it serves beyond that."""
        found = ", ".join(sorted(self.features)) or "no feature after 3.0.12"
        extra = f"; beyond {self.version}: {', '.join(sorted(self.extra))}" if self.extra else ""
        embeds = "embeddings on" if self.embeds else "embeddings off"
        return f"Honcho {self.version} ({found}{extra}), {embeds}"

    def to_json(self) -> dict[str, Any]:
        """A plain dict (xdist ships it to every worker)."""
        return {
            "features": sorted(str(feature) for feature in self.features),
            "version": self.version.name,
            "ignored": [[f.route, f.field, f.consequence] for f in self.ignored],
            "probed": self.probed,
            "embeds": self.embeds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Served:
        return cls(
            features=frozenset(Feature(name) for name in data["features"]),
            version=VERSIONS[data["version"]],
            ignored=tuple(IgnoredField(*entry) for entry in data["ignored"]),
            probed=bool(data["probed"]),
            embeds=bool(data.get("embeds", True)),
        )


def served_by_version(version: HonchoVersion, embeds: bool = True) -> Served:
    """What a fake speaking ``version`` serves (known, not probed)."""
    return Served(features=version.features, version=version, probed=False, embeds=embeds)


def nearest_version(features: frozenset[Feature]) -> HonchoVersion:
    """The newest version whose features the server all serves (3.0.12 at least)."""
    fitting = [v for v in VERSIONS.values() if v.features <= features]
    return max(fitting, key=lambda version: len(version.features))


# -- feature probes -----------------------------------------------------------------------

FeatureProbe = Callable[["httpx.Client", str], bool]


def _scopes(client: httpx.Client, ws: str) -> bool:
    return client.post(f"/v3/workspaces/{ws}/scopes/list", json={}).status_code != 404


def _workspace_chat(client: httpx.Client, ws: str) -> bool:
    return client.post(f"/v3/workspaces/{ws}/chat", json={}).status_code == 422


def _conclusion_get(client: httpx.Client, ws: str) -> bool:
    return client.get(f"/v3/workspaces/{ws}/conclusions/x").status_code != 405


def _context_sessions(client: httpx.Client, ws: str) -> bool:
    answer = client.get(f"/v3/workspaces/{ws}/sessions/s/context", params={"sessions": "s"})
    return answer.status_code == 422


def _peer_name_422(client: httpx.Client, ws: str) -> bool:
    body = {"id": "s", "peers": {"bad.name": {}}}
    answer = client.post(f"/v3/workspaces/{ws}/sessions", json=body)
    return answer.status_code == 422 and str(answer.json().get("detail")).startswith("Peer name")


def _strict_filters(client: httpx.Client, ws: str) -> bool:
    """A closed column's unknown value: 422 from the strict builder, no match before it
    (a malformed filter will not do: 3.0.12 answers it 500, a corrected fake 422)."""
    body = {"filters": {"level": "bogus"}}
    return client.post(f"/v3/workspaces/{ws}/conclusions/list", json=body).status_code == 422


def _conclusion_attribution(client: httpx.Client, ws: str) -> bool:
    body = {"filters": {"source_ids": 5}}
    answer = client.post(f"/v3/workspaces/{ws}/conclusions/list", json=body)
    return answer.status_code == 422 and "source_ids filter" in str(answer.json().get("detail"))


def _chat_evidence(client: httpx.Client, ws: str) -> bool:
    return not field_ignored(client, _CHAT_EVIDENCE, ws)


def _narrowed_recall_hides_card(client: httpx.Client, ws: str) -> bool:
    """The one probe that writes: a card, then a session-limited context read."""
    try:
        card = client.put(f"/v3/workspaces/{ws}/peers/p/card", json={"peer_card": ["probe"]})
        joined = client.post(f"/v3/workspaces/{ws}/sessions", json={"id": "s", "peers": {"p": {}}})
        if card.status_code != 200 or joined.status_code not in (200, 201):
            return False
        params = {"peer_target": "p", "limit_to_session": "true"}
        context = client.get(f"/v3/workspaces/{ws}/sessions/s/context", params=params)
        return context.status_code == 200 and context.json().get("peer_card") is None
    finally:
        client.delete(f"/v3/workspaces/{ws}/sessions/s")
        client.delete(f"/v3/workspaces/{ws}")


# Feature -> (probe, features that must be served first: the probe would be a 500 without)
_FEATURE_PROBES: dict[Feature, tuple[FeatureProbe, frozenset[Feature]]] = {
    Feature.SCOPES: (_scopes, frozenset()),
    Feature.WORKSPACE_CHAT: (_workspace_chat, frozenset()),
    Feature.CONCLUSION_GET: (_conclusion_get, frozenset()),
    Feature.CONTEXT_SESSIONS: (_context_sessions, frozenset()),
    Feature.PEER_NAME_422: (_peer_name_422, frozenset()),
    Feature.STRICT_FILTERS: (_strict_filters, frozenset()),
    Feature.CONCLUSION_ATTRIBUTION: (_conclusion_attribution, frozenset({Feature.STRICT_FILTERS})),
    Feature.CHAT_EVIDENCE: (_chat_evidence, frozenset()),
    Feature.NARROWED_RECALL_HIDES_CARD: (_narrowed_recall_hides_card, frozenset()),
}


def probe_features(client: httpx.Client) -> frozenset[Feature]:
    """The features the server behind ``client`` serves (every probe in its own workspace)."""
    found: set[Feature] = set()
    for feature, (probe, needs) in _FEATURE_PROBES.items():
        if needs <= found and probe(client, _fresh_workspace()):
            found.add(feature)
    return frozenset(found)


# -- ignored fields -----------------------------------------------------------------------


@dataclass(frozen=True)
class FieldProbe:
    """How to tell whether a server reads ``field`` on ``route`` (see the module docstring)."""

    route: str
    field: str
    consequence: str
    method: str
    path: str
    body: dict[str, Any] | None = None
    params: dict[str, str] | None = None

    def send(self, client: httpx.Client, ws: str) -> httpx.Response:
        return client.request(
            self.method, self.path.format(ws=ws), json=self.body, params=self.params
        )


def field_ignored(client: httpx.Client, probe: FieldProbe, ws: str) -> bool | None:
    """True when the server dropped the field, False when it read it, None when unclear."""
    answer = probe.send(client, ws)
    if answer.status_code == 422:
        detail = answer.json().get("detail")
        if isinstance(detail, list):
            return not any(probe.field in map(str, item.get("loc", ())) for item in detail)
        return probe.field not in str(detail)
    return True if 200 <= answer.status_code < 300 else None


_CHAT_EVIDENCE = FieldProbe(
    "peer chat",
    "include_evidence",
    "the answer carries no evidence",
    "POST",
    W + "/peers/p/chat",
    {"query": "", "include_evidence": "not-a-bool"},
)

FIELD_PROBES: tuple[FieldProbe, ...] = (
    FieldProbe(
        "workspace search",
        "scope",
        "hits from every session of the workspace, not only the scope's",
        "POST",
        W + "/search",
        {"query": 5, "scope": 5},
    ),
    FieldProbe(
        "peer chat",
        "scope",
        "an answer from everything the peer knows, not only the scope's sessions",
        "POST",
        W + "/peers/p/chat",
        {"query": "", "scope": 5},
    ),
    FieldProbe(
        "peer representation",
        "scope",
        "the whole representation, not the scope's",
        "POST",
        W + "/peers/p/representation",
        {"search_top_k": 0, "scope": 5},
    ),
    FieldProbe(
        "session create",
        "scopes",
        "the session joins no scope",
        "POST",
        W + "/sessions",
        {"id": "bad.name", "scopes": 5},
    ),
    FieldProbe(
        "session context",
        "scope",
        "representation and card from all the peer's sessions",
        "GET",
        W + "/sessions/s/context",
        params={"scope": "x"},
    ),
    FieldProbe(
        "session context",
        "sessions",
        "recall from every session, not only those listed",
        "GET",
        W + "/sessions/s/context",
        params={"sessions": "s"},
    ),
    _CHAT_EVIDENCE,
)
"""The fields today's SDKs send that some server versions drop (issue 23)."""


def probe_ignored_fields(client: httpx.Client) -> tuple[IgnoredField, ...]:
    """The fields of :data:`FIELD_PROBES` the server behind ``client`` drops."""
    return tuple(
        IgnoredField(probe.route, probe.field, probe.consequence)
        for probe in FIELD_PROBES
        if field_ignored(client, probe, _fresh_workspace())
    )


def probe_embeds(client: httpx.Client) -> bool:
    """Whether the server embeds messages: a search query spelling a special token is
    refused by the embedding client's tokenizer (a 422), while full text alone answers
    it (read-only: a workspace that does not exist)."""
    body = {"query": "<|endoftext|>", "limit": 1}
    answer = client.post(f"/v3/workspaces/{_fresh_workspace()}/search", json=body)
    return answer.status_code == 422 and "token limit" in answer.text


def probe_server(client: httpx.Client) -> Served:
    """Everything the probes find out about the server behind ``client``."""
    features = probe_features(client)
    return Served(
        features,
        nearest_version(features),
        probe_ignored_fields(client),
        embeds=probe_embeds(client),
    )


def _fresh_workspace() -> str:
    return f"hc-probe-{uuid.uuid4().hex[:12]}"
