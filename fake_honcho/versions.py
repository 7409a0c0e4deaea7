"""The Honcho server versions the fake speaks, each written as a change to the one before.

As ``fakeredis`` pins a Redis version, ``FakeHoncho(version="3.1")`` pins a Honcho one.
A version is the set of :class:`Feature` s it serves plus the schema layers it reads its
request and response bodies from (``schemas/*.json`` is 3.0.12; ``schemas/<name>/*.json``
replaces or adds components from version ``<name>`` on). What a feature *does* is
declared where it lives:

- a route that exists only from some version on is ``versioned(Feature.X, Route(...))``
  in its route module, and :func:`fake_honcho.http.app.collect_routes` keeps it only for
  versions that speak ``X`` (so an older version answers 404, or 405 beside a route of
  another method, as the real older server does);
- a behaviour inside a handler asks ``fake.version.speaks(Feature.X)``, never for a
  version number.

This module is the one place that says which version serves what: read
:data:`VERSIONS` top to bottom for the history.
"""

from __future__ import annotations

import argparse
import enum
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import BaseRoute

__all__ = [
    "DEFAULT_VERSION",
    "VERSIONS",
    "Feature",
    "HonchoVersion",
    "UnknownVersionError",
    "feature_of",
    "resolve_version",
    "version_argument",
    "versioned",
]


class Feature(enum.StrEnum):
    """A named behaviour some Honcho versions serve and others do not."""

    # 3.1 (main ddbb90e + pull request 931)
    SCOPES = "scopes"
    """The 7 ``/scopes`` routes; ``scope`` on chat, representation and workspace search;
    ``scopes`` on session create; ``kind`` on peer lists; the reserved ``scope.`` names."""
    CONTEXT_SESSIONS = "context-sessions"
    """``scope`` and ``sessions`` on the session context query, with their 422 rules (3.0.12
    ignores ``sessions``); session allowlists (also ``filters.session_id`` on the recall
    routes) take valid session ids only. With auth on, a peer key reading a session's context
    as a member reads from its own perspective only (``peer_perspective``, else
    ``peer_target``, must be its peer) and names only its peer's sessions."""
    NARROWED_RECALL_HIDES_CARD = "narrowed-recall-hides-card"
    """Session context answers ``peer_card: null`` whenever recall is narrowed."""
    STRICT_FILTERS = "strict-filters"
    """The filter DSL answers 422 for bad shapes, operand types and operators (3.0.12:
    500); ``{"ne": null}`` means IS NOT NULL; negation over unset fields changed (#947)."""
    PEER_NAME_422 = "peer-name-422"
    """Invalid new peer names (message authors, session peer keys, a peer path id) are a 422
    naming them, sorted (3.0.12: 500, or pydantic's text, or a 404)."""
    WORKSPACE_CHAT = "workspace-chat"
    """``POST /v3/workspaces/{w}/chat``: the dialectic over the whole workspace."""
    # 3.2 (main + pull requests 931 and 952, plus what today's SDKs parse)
    CONCLUSION_GET = "conclusion-get"
    """``GET /v3/workspaces/{w}/conclusions/{id}`` (3.0.12 answers 405: only DELETE)."""
    CONCLUSION_ATTRIBUTION = "conclusion-attribution"
    """``source_ids`` and ``times_derived`` on conclusions, and filtering on them."""
    CHAT_EVIDENCE = "chat-evidence"
    """Chat answers carry ``evidence`` when ``include_evidence`` asks for it."""


class UnknownVersionError(ValueError):
    """A version name the fake does not speak (the message lists those it does)."""


@dataclass(frozen=True)
class HonchoVersion:
    """What one Honcho server version serves.

    ``source`` names the real server revision the version is defined as; ``verified``
    says whether the fake was proven against a server built from it (recorded
    exchanges, ``fake-honcho compare``, the differential test), as opposed to modelled
    in part from the clients that call it (see the divergence register).
    """

    name: str
    source: str
    verified: bool
    features: frozenset[Feature] = frozenset()
    schema_layers: tuple[str, ...] = ()
    parent: HonchoVersion | None = field(default=None, repr=False, compare=False)

    def then(
        self,
        name: str,
        *,
        source: str,
        verified: bool,
        adds: frozenset[Feature] = frozenset(),
        schemas: bool = True,
    ) -> HonchoVersion:
        """The next version: this one plus ``adds`` (and ``schemas/<name>/`` when ``schemas``)."""
        overlap = adds & self.features
        if overlap:
            raise ValueError(f"{name} re-adds {sorted(overlap)}, already in {self.name}")
        return HonchoVersion(
            name=name,
            source=source,
            verified=verified,
            features=self.features | adds,
            schema_layers=(*self.schema_layers, name) if schemas else self.schema_layers,
            parent=self,
        )

    def speaks(self, feature: Feature) -> bool:
        """Whether this version serves ``feature``."""
        return feature in self.features

    @property
    def added(self) -> frozenset[Feature]:
        """What this version adds to the one before."""
        return self.features - (self.parent.features if self.parent else frozenset())

    def __str__(self) -> str:
        return self.name


V3_0_12 = HonchoVersion(
    "3.0.12",
    source="tag v3.0.12 (93dcf59c)",
    verified=True,
)
V3_1 = V3_0_12.then(
    "3.1",
    source="main ddbb90e + pull request 931 (released as 3.1.0)",
    verified=True,
    adds=frozenset(
        {
            Feature.SCOPES,
            Feature.CONTEXT_SESSIONS,
            Feature.NARROWED_RECALL_HIDES_CARD,
            Feature.STRICT_FILTERS,
            Feature.PEER_NAME_422,
            Feature.WORKSPACE_CHAT,
        }
    ),
)
V3_2 = V3_1.then(
    "3.2",
    source="main ddbb90e + pull requests 931 and 952; evidence modelled from honcho-ai 2.7.0",
    verified=False,
    adds=frozenset({Feature.CONCLUSION_GET, Feature.CONCLUSION_ATTRIBUTION, Feature.CHAT_EVIDENCE}),
)

VERSIONS: dict[str, HonchoVersion] = {v.name: v for v in (V3_0_12, V3_1, V3_2)}
"""Every version the fake speaks, oldest first."""

DEFAULT_VERSION = "3.1"
"""What ``FakeHoncho()`` speaks when no version is given: the newest verified one."""


def resolve_version(version: str | HonchoVersion | None) -> HonchoVersion:
    """The :class:`HonchoVersion` named ``version`` (``None``: the default).

    ``"3.1.0"`` or ``"3.1.2"`` pick ``"3.1"``: the fake models a release line by the
    source it was verified against.
    """
    if isinstance(version, HonchoVersion):
        return version
    name = DEFAULT_VERSION if version is None else version.strip()
    found = VERSIONS.get(name)
    if found is None:
        line = ".".join(name.split(".")[:2])
        found = VERSIONS.get(line) if line != "3.0" else None
    if found is None:
        known = ", ".join(VERSIONS)
        raise UnknownVersionError(f"unknown Honcho version {version!r}; the fake speaks {known}")
    return found


def version_argument(text: str) -> HonchoVersion:
    """:func:`resolve_version` as an argparse ``type=``: a mistake is a one-line usage error."""
    try:
        return resolve_version(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_FEATURE_ATTRIBUTE = "honcho_feature"


def versioned(feature: Feature, route: BaseRoute) -> BaseRoute:
    """Mark ``route`` as served only by versions that speak ``feature``."""
    setattr(route, _FEATURE_ATTRIBUTE, feature)
    return route


def feature_of(route: Any) -> Feature | None:
    """The feature :func:`versioned` marked ``route`` with, if any."""
    found = getattr(route, _FEATURE_ATTRIBUTE, None)
    return found if isinstance(found, Feature) else None
