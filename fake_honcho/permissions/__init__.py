"""The permission table page, ``docs/permissions.md`` (``python -m fake_honcho.permissions``).

The rules themselves live in ``fake_honcho.http.permissions`` and are declared where each
route lives; this module renders them for every version, and hands the rules' names on
for the documented ``from fake_honcho.permissions import Rule``.
"""

from __future__ import annotations

from fake_honcho.http import permissions as _rules
from fake_honcho.http.permissions import *  # noqa: F403
from fake_honcho.http.permissions import Check, rule_of
from fake_honcho.routes import collect_routes
from fake_honcho.versions import VERSIONS

__all__ = [*_rules.__all__, "render_markdown"]


_LEGEND = """\
Generated from the route declarations (`fake_honcho/permissions.py`,
`python -m fake_honcho.permissions`); a test keeps it in step. Each cell says what a kind
of key may do on the route, as Honcho's `require_auth` declares it, on a fake or a real
server with auth on:

- **yes**: any key of that kind; **no**: refused with 401
  `JWT not permissioned for this resource` (`Resource requires admin privileges` on an
  admin route);
- **own**: a key of the route's workspace / peer / session (a workspace key of another
  workspace, a key of another peer or session is refused);
- **member**: a peer key whose peer is an active member of the route's session (read routes);
- **body**: any valid key gets in, and the handler checks the key against the body
  (see *checks*);
- **\\***: the handler checks more (see *checks*);
- the `/_fake/*` routes are the fake's own (admin only).

Keys are the claims of an HS256 JWT: a workspace key carries `w`, a peer key `w` and
`p`, a session key `w` and `s`, the admin key `ad`. Before any rule: no `Bearer` key is
`No access token provided`; a key that does not verify, or carries `exp` (Honcho writes
it as an ISO string, which PyJWT refuses; a number in the past is expired), is
`Invalid JWT`; a peer or session key without `w` is
`Invalid JWT scope: peer/session token missing workspace` (all 401). A numeric `exp` in
the future (or a `null` one) is Honcho's 500 `An unexpected error occurred`, a real bug
the fake reproduces; `FakeHoncho(real_bugs="correct")` refuses it as `Invalid JWT`.
"""


def render_markdown() -> str:
    """The permission table page (``docs/permissions.md``)."""
    first: dict[tuple[str, str], str] = {}
    for name in VERSIONS:
        for route in collect_routes(name):
            for method in getattr(route, "methods", set()) - {"HEAD"}:
                first.setdefault((method, getattr(route, "path", "")), name)
    rows = []
    for route in collect_routes(list(VERSIONS.values())[-1]):
        rule = rule_of(route)
        if rule is None or not getattr(route, "include_in_schema", True):
            continue
        path = getattr(route, "path", "")
        for method in sorted(getattr(route, "methods", set()) - {"HEAD"}):
            checks = "; ".join(
                check.text + (f" (from {_first_with(check)})" if check.since else "")
                for check in rule.checks
            )
            cells = " | ".join(rule.cells())
            row = f"| `{method} {path}` | {first[method, path]} | {cells} | {checks} |"
            rows.append((path.startswith("/_fake"), path, method, row))
    lines = ["# Who may call each route", "", _LEGEND]
    lines += [
        "| route | since | admin | workspace key | peer key | session key | checks |",
        "|---|---|---|---|---|---|---|",
        *(row for *_, row in sorted(rows)),
    ]
    return "\n".join(lines) + "\n"


def _first_with(check: Check) -> str:
    return next(name for name, version in VERSIONS.items() if check.applies_to(version))
