"""``fake-honcho compare --against URL``: the drift report, run against served fakes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from fake_honcho import FakeHoncho
from fake_honcho.cli import main as fake_honcho_main
from fake_honcho.drift.cli import main as compare
from fake_honcho.drift.traffic import without_credentials
from fake_honcho.versions import DEFAULT_VERSION
from tests.conftest import ServedFake


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return compare(list(argv), out=out), out.getvalue()


@pytest.fixture
def open_fake() -> Iterator[str]:
    """A served fake with auth off, configured as the report's in-process fake is."""
    with FakeHoncho() as fake, fake.serve() as url:
        yield url


def test_a_faithful_server_shows_no_drift(open_fake: str) -> None:
    status, report = _run(
        "--against", open_fake, "--script", "service", "--script", "clone",
        "--honcho-version", DEFAULT_VERSION,
    )  # fmt: skip
    assert status == 0, report
    assert report.splitlines()[-1] == (
        f"15 exchanges against {open_fake} (fake speaking {DEFAULT_VERSION}, embeddings on): "
        "0 differ, 0 declared"
    )
    assert "probed" not in report


def test_without_a_version_the_fake_speaks_what_the_server_is_probed_to_serve() -> None:
    with FakeHoncho(version="3.0.12") as fake, fake.serve() as url:
        status, report = _run("--against", url, "--script", "service")
    assert status == 0, report
    first, *_, last = report.splitlines()
    assert first.startswith(f"probed {url}: serves Honcho 3.0.12 (")
    assert "(fake speaking 3.0.12, embeddings on)" in last


def test_each_differing_exchange_is_printed_and_fails_the_run(served_fake: ServedFake) -> None:
    served_fake.fake.faults.add("POST /v3/workspaces/*/peers/list status=503 times=1")
    status, report = _run(
        "--against", served_fake.url, "--api-key", served_fake.api_key, "--script", "peers",
        "--honcho-version", DEFAULT_VERSION,  # no probe to take the fault
    )  # fmt: skip
    assert status == 1
    assert "peers: 25 exchanges, 1 differ" in report
    assert '[9] {"method": "POST", "path": "/v3/workspaces/{ws}/peers/list"}' in report
    assert '"status": 503' in report and '"status": 200' in report
    assert served_fake.api_key not in report


def test_scripts_leave_no_workspace_behind(served_fake: ServedFake) -> None:
    status, _ = _run(
        "--against", served_fake.url, "--api-key", served_fake.api_key, "--script", "clone"
    )
    assert status == 0
    left = [row["id"] for row in served_fake.fake.store.rows("workspaces")]
    assert left == [], left


def test_recordings_are_written_when_asked(served_fake: ServedFake, tmp_path: Path) -> None:
    status, _ = _run(
        "--against",
        served_fake.url,
        "--api-key",
        served_fake.api_key,
        "--script",
        "members",
        "--record",
        str(tmp_path),
    )
    assert status == 0
    assert [p.name for p in tmp_path.iterdir()] == ["members.json"]
    assert served_fake.api_key not in (tmp_path / "members.json").read_text()


def test_an_unreachable_server_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    status = fake_honcho_main(["compare", "--against", "http://127.0.0.1:9"])
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "http://127.0.0.1:9 is not a reachable Honcho" in err


def test_credentials_in_the_url_are_not_printed() -> None:
    assert without_credentials("http://u:secret@host:8000/x") == "http://host:8000/x"
    assert without_credentials("https://host") == "https://host"
