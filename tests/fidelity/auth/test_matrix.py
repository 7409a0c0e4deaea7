"""The permission matrix recorded from real Honcho servers with auth on, replayed on the fake.

Every operation against every kind of key (``matrix.py``), per version: the fake's
status and ``detail`` equal the real server's in every cell but those listed in
:data:`DIFFERENT`, each for a declared reason that is not auth (the register, or the
recording server's configuration); there the fake still lets the key through as the
real server did.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.harness.divergences import divergence
from fake_honcho.versions import resolve_version

from .matrix import KINDS, Matrix, load, operations

SECRET = "replay-secret-0123456789abcdef0123456789"
VERSIONS = ("3.0.12", "3.1")

#: operation -> why its allowed cells differ (never its refusals): the recording server's
#: database holds sessions named s1 in many other workspaces, so its clone is a 500
DIFFERENT = {
    "clone session": divergence("real-clone-cross-workspace").summary,
}


@pytest.fixture(scope="module", params=VERSIONS)
def replay(request: pytest.FixtureRequest) -> Iterator[tuple[dict, dict]]:
    version = request.param
    recorded = load(version)
    with (
        # as the recording servers ran: EMBED_MESSAGES=false
        FakeHoncho(version=version, jwt_secret=SECRET, embed_messages=False) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        yield recorded, Matrix(client, SECRET, resolve_version(version)).run()


def test_the_recording_covers_every_operation_and_kind(replay: tuple[dict, dict]) -> None:
    recorded, _ = replay
    version = resolve_version(recorded["server"].split()[2])
    assert list(recorded["cells"]) == [op.name for op in operations(version)]
    assert recorded["kinds"] == list(KINDS)
    assert all(list(row) == list(KINDS) for row in recorded["cells"].values())


def test_the_fake_answers_every_cell_as_the_real_server(replay: tuple[dict, dict]) -> None:
    recorded, replayed = replay
    differ = [
        f"{op} / {kind}: real {real}, fake {replayed[op][kind]}"
        for op, row in recorded["cells"].items()
        for kind, real in row.items()
        if replayed[op][kind] != real and op not in DIFFERENT
    ]
    assert differ == []


@pytest.mark.parametrize("op", sorted(DIFFERENT))
def test_declared_differences_are_never_about_auth(replay: tuple[dict, dict], op: str) -> None:
    recorded, replayed = replay
    for kind, real in recorded["cells"][op].items():
        fake = replayed[op][kind]
        if real["status"] == 401:
            assert fake == real, (op, kind)
        else:
            assert fake["status"] != 401, (op, kind)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_matrix_covers_every_route_of_the_version(version: str) -> None:
    with FakeHoncho(version=version) as fake:
        router = fake.core_app.router
        routes = {
            (method, getattr(route, "path", ""))
            for route in router.routes
            for method in getattr(route, "methods", None) or ()
            if method != "HEAD" and getattr(route, "path", "").startswith("/v3/")
        }
        covered = set()
        for op in operations(resolve_version(version)):
            path = op.path.replace("{w}", "w").replace("{m}", "m").replace("{s}", "s")
            found = router.lookup(op.method, path)
            assert found is not None, op.name
            covered.add((op.method, found[0].path))
    assert sorted(routes - covered) == []
