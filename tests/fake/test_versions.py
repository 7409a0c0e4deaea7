"""The version layer: what each version declares, how a fake picks one, routes per version."""

from __future__ import annotations

import itertools

import pytest
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho import FakeHoncho
from fake_honcho.cli import build_parser
from fake_honcho.http.schemas import SchemaSet, schema_directory, schemas_for
from fake_honcho.routes import collect_routes
from fake_honcho.versions import (
    DEFAULT_VERSION,
    VERSIONS,
    Feature,
    UnknownVersionError,
    feature_of,
    resolve_version,
    versioned,
)


def test_each_version_extends_the_one_before() -> None:
    versions = list(VERSIONS.values())
    assert versions[0].name == "3.0.12" and versions[0].parent is None
    for older, newer in itertools.pairwise(versions):
        assert newer.parent is older
        assert older.features < newer.features
        assert newer.added == newer.features - older.features
        assert newer.schema_layers[: len(older.schema_layers)] == older.schema_layers


def test_every_feature_is_served_by_some_version() -> None:
    newest = list(VERSIONS.values())[-1]
    assert set(Feature) == set(newest.features)


def test_a_version_cannot_add_what_it_has() -> None:
    v31 = VERSIONS["3.1"]
    with pytest.raises(ValueError, match="re-adds"):
        v31.then("3.9", source="x", verified=False, adds=frozenset({Feature.SCOPES}))


@pytest.mark.parametrize(
    ("given", "name"),
    [
        (None, DEFAULT_VERSION),
        ("3.0.12", "3.0.12"),
        ("3.1", "3.1"),
        ("3.1.2", "3.1"),
        ("3.2.1", "3.2"),
    ],
)
def test_resolve_version(given: str | None, name: str) -> None:
    assert resolve_version(given).name == name


@pytest.mark.parametrize("given", ["3.0.11", "2", "", "latest"])
def test_an_unknown_version_names_those_the_fake_speaks(given: str) -> None:
    with pytest.raises(UnknownVersionError) as caught:
        resolve_version(given)
    assert str(caught.value).endswith("the fake speaks " + ", ".join(VERSIONS))


def test_the_default_is_the_newest_verified_version() -> None:
    verified = [version for version in VERSIONS.values() if version.verified]
    assert resolve_version(None) is verified[-1]


def test_a_versioned_route_is_kept_only_where_its_feature_is_spoken() -> None:
    async def endpoint(request: object) -> Response:
        return Response()

    route = versioned(Feature.WORKSPACE_CHAT, Route("/x", endpoint))
    assert feature_of(route) is Feature.WORKSPACE_CHAT
    assert feature_of(Route("/y", endpoint)) is None
    for version in VERSIONS.values():
        for kept in collect_routes(version):
            needs = feature_of(kept)
            assert needs is None or version.speaks(needs)


def test_older_versions_serve_a_subset_of_newer_routes() -> None:
    def table(version: str) -> set[tuple[str, str]]:
        return {
            (route.path, method)
            for route in collect_routes(version)
            if isinstance(route, Route)
            for method in route.methods or ()
        }

    names = list(VERSIONS)
    for older, newer in itertools.pairwise(names):
        assert table(older) <= table(newer)


def test_a_fake_speaks_the_version_it_was_given() -> None:
    with FakeHoncho(version="3.1") as fake:
        assert fake.version is VERSIONS["3.1"]
        assert fake.schemas is schemas_for(VERSIONS["3.1"].schema_layers)
        assert "version=3.1" in repr(fake)
    with FakeHoncho() as fake:
        assert fake.version.name == DEFAULT_VERSION


def test_a_fake_refuses_an_unknown_version() -> None:
    with pytest.raises(UnknownVersionError, match=r"unknown Honcho version '9\.9'"):
        FakeHoncho(version="9.9")


def test_schema_layers_replace_components_in_order() -> None:
    base = SchemaSet()
    for version in VERSIONS.values():
        layered = schemas_for(version.schema_layers)
        assert set(base.documents) <= set(layered.documents)
        for layer in version.schema_layers:
            for path in (schema_directory() / layer).glob("*.json"):
                # the last layer holding a component is the one the version reads
                last = [
                    n
                    for n in version.schema_layers
                    if (path.parent.parent / n / path.name).is_file()
                ][-1]
                assert layered.documents[path.stem] == schemas_for((last,)).documents[path.stem]


def test_an_unknown_schema_layer_is_refused() -> None:
    with pytest.raises(ValueError, match="no schema layer"):
        SchemaSet(layers=("9.9",))


def test_cli_picks_a_version() -> None:
    assert build_parser().parse_args(["--honcho-version", "3.1"]).honcho_version.name == "3.1"
    assert build_parser().parse_args([]).honcho_version.name == DEFAULT_VERSION


def test_cli_refuses_an_unknown_version_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["--honcho-version", "4"])
    assert caught.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("fake-honcho: error: argument --honcho-version: unknown Honcho version")


def test_plugin_runs_the_fake_at_the_version_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_version(honcho_target):
            assert honcho_target.fake.version.name == "3.1"
        """
    )
    result = pytester.runpytest("-p", "no:xdist", "--honcho-version", "3.1")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["honcho contract target: in-process fake, speaking Honcho 3.1 (*"])


def test_plugin_refuses_an_unknown_version(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("-p", "no:xdist", "--honcho-version", "2.0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--honcho-version: unknown Honcho version '2.0'*"])
