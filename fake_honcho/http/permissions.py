"""Who may call each route: Honcho's ``require_auth(...)`` declarations, per route.

Each route module declares its route's rule where the route lives, as
``guarded(SESSION_READ, Route(...))``, after the ``require_auth`` arguments the real
router gives it (``src/routers/*.py``):

- :data:`ADMIN_ONLY`: ``require_auth(admin=True)``, an admin key only;
- :data:`IN_WORKSPACE`: ``require_auth(workspace_name=...)``: a key of that workspace (or
  an admin's); a peer or session key is refused;
- :data:`OWN_PEER`: plus ``peer_name``: a workspace key, or that peer's key;
- :data:`OWN_SESSION`: plus ``session_name``: a workspace key, or that session's key;
- :data:`SESSION_READ`: plus ``allow_member_read``: also the key of a peer that is an
  active member of the session;
- :data:`BY_BODY`: ``require_auth()``: any valid key gets in and the handler authorises
  against its body (get-or-create of workspaces, peers and sessions).

Whatever a handler checks beyond the rule (a body's ids, a peer key's own perspective)
is listed in ``checks``, each with the feature of the version that added it; the
auth middleware applies the rule, the handler its checks (both in
:mod:`fake_honcho.http.access`). The
table in ``docs/permissions.md`` is generated from these declarations
(``python -m fake_honcho.permissions``), and a test holds it equal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from starlette.routing import BaseRoute

from fake_honcho.versions import Feature, HonchoVersion

__all__ = [
    "ADMIN_ONLY",
    "BY_BODY",
    "IN_WORKSPACE",
    "OWN_PEER",
    "OWN_SESSION",
    "SESSION_READ",
    "Check",
    "Rule",
    "guarded",
    "rule_of",
]


@dataclass(frozen=True)
class Check:
    """What a handler checks against the key beyond its route's rule."""

    text: str
    since: Feature | None = None

    def applies_to(self, version: HonchoVersion) -> bool:
        return self.since is None or version.speaks(self.since)


@dataclass(frozen=True)
class Rule:
    """One route's ``require_auth`` arguments (path parameters named ``workspace_id``,
    ``peer_id``, ``session_id``) and the checks its handler adds."""

    admin: bool = False
    workspace: bool = False
    peer: bool = False
    session: bool = False
    member_read: bool = False
    checks: tuple[Check, ...] = ()

    def checking(self, *checks: Check) -> Rule:
        """This rule with the handler's ``checks`` added."""
        return replace(self, checks=self.checks + checks)

    def cells(self) -> tuple[str, str, str, str]:
        """What the admin, a workspace key, a peer key and a session key may do here."""
        if self.admin:
            return ("yes", "no", "no", "no")
        if not (self.workspace or self.peer or self.session):
            return ("yes", "body", "body", "body")
        peer = "own" if self.peer else "member" if self.member_read else "no"
        if self.checks and peer != "no":
            peer += "*"
        return ("yes", "own", peer, "own" if self.session else "no")


ADMIN_ONLY = Rule(admin=True)
IN_WORKSPACE = Rule(workspace=True)
OWN_PEER = Rule(workspace=True, peer=True)
OWN_SESSION = Rule(workspace=True, session=True)
SESSION_READ = Rule(workspace=True, session=True, member_read=True)
BY_BODY = Rule()


def guarded(rule: Rule, route: BaseRoute) -> BaseRoute:
    """Declare ``rule`` for ``route`` (returns the route)."""
    route.honcho_rule = rule  # type: ignore[attr-defined]
    return route


def rule_of(route: BaseRoute) -> Rule | None:
    """The rule :func:`guarded` declared for ``route``; None for an unguarded route."""
    rule: Rule | None = getattr(route, "honcho_rule", None)
    return rule
