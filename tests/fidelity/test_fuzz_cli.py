"""``fake-honcho fuzz --against URL``: the generated differential, run against served fakes."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.cli import main as fake_honcho_main
from fake_honcho.drift.fuzz import Answer, FuzzCase, FuzzRecording, replay
from fake_honcho.drift.fuzz_cli import main as fuzz
from tests.conftest import ServedFake

LISTS = ("--operation", "POST /v3/workspaces/list", "--operation", "/peers/list")


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return fuzz(list(argv), out=out), out.getvalue()


@pytest.fixture
def open_fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.0.12", embed_messages=False, ignored_fields="allow") as fake:
        yield fake


def test_a_faithful_server_differs_nowhere(open_fake: FakeHoncho, tmp_path: Path) -> None:
    with open_fake.serve() as url:
        status, report = _run("--against", url, "--seed", "7", "--per-op", "4", *LISTS)
    assert status == 0, report
    lines = report.splitlines()
    assert lines[0] == (
        f"probed {url}: serves Honcho 3.0.12 (no feature after 3.0.12), embeddings off"
    )
    assert lines[1] == (
        "seed 7, up to 4 cases for each of 2 operations (fake speaking 3.0.12, embeddings off)"
    )
    assert lines[-1] == "fuzz: 0 of 8 cases differ (0 undeclared)"
    left = [row["id"] for row in open_fake.store.rows("workspaces")]
    assert left == [], "the run's workspaces are deleted"


def test_the_same_seed_sends_the_same_requests(open_fake: FakeHoncho, tmp_path: Path) -> None:
    with open_fake.serve() as url:
        for name in "ab":
            _run(
                "--against",
                url,
                "--seed",
                "3",
                "--per-op",
                "3",
                *LISTS,
                "--record",
                str(tmp_path / name),
            )
    first, second = (FuzzRecording.read(tmp_path / n / "3.0.12" / "seed-3.json") for n in "ab")

    def sent(recording: FuzzRecording) -> list[str]:  # but for the run's own workspace prefix
        return [re.sub(r"fz[0-9a-f]{8}-", "", case.describe()) for case in recording.cases]

    assert len(first.cases) == 6 and sent(first) == sent(second)
    assert first.answers == second.answers


def test_differences_are_grouped_with_one_example_each(served_fake: ServedFake) -> None:
    served_fake.fake.faults.add("POST /v3/workspaces/*/peers/list status=503")
    status, report = _run(
        "--against", served_fake.url, "--api-key", served_fake.api_key,
        "--honcho-version", "3.1", "--seed", "1", "--per-op", "3", *LISTS,
    )  # fmt: skip
    assert status == 1, report
    assert "1 x POST /v3/workspaces/{workspace_id}/peers/list: server 503, fake " not in report
    assert "3 x POST /v3/workspaces/{workspace_id}/peers/list: server 503, fake " in report
    assert report.count("    e.g. [") == report.count(" x POST ")
    assert report.splitlines()[-1] == "fuzz: 3 of 6 cases differ (3 undeclared)"
    assert served_fake.api_key not in report


def test_a_recording_replays_against_the_fake(open_fake: FakeHoncho, tmp_path: Path) -> None:
    with open_fake.serve() as url:
        status, report = _run(
            "--against", url, "--seed", "5", "--per-op", "5", *LISTS, "--record", str(tmp_path)
        )
    assert status == 0, report
    path = tmp_path / "3.0.12" / "seed-5.json"
    assert f"recorded {path}" in report
    recording = FuzzRecording.read(path)
    assert (recording.version, recording.embed_messages, recording.seed) == ("3.0.12", False, 5)
    assert replay(recording) == []
    # a changed answer is a difference the replay reports
    changed = FuzzRecording(
        recording.server, recording.version, recording.embed_messages, recording.seed,
        recording.per_operation, recording.cases, (Answer(500), *recording.answers[1:]),
    )  # fmt: skip
    [difference] = replay(changed)
    assert difference.index == 0 and difference.real == Answer(500)


def test_answers_keep_what_is_compared() -> None:
    request = httpx.Request("POST", "http://h/")
    items = [
        {"type": "greater_than_equal", "loc": ["query", "page"], "msg": "x", "input": "0"},
        {"type": "dict_type", "loc": ["body", "filters"], "msg": "y", "input": 5},
    ]
    answer = Answer.of(httpx.Response(422, json={"detail": items}, request=request))
    assert answer == Answer(
        422, errors=(("greater_than_equal", "query.page"), ("dict_type", "body.filters"))
    )
    assert Answer.from_json(answer.as_json()) == answer
    assert Answer.of(httpx.Response(404, json={"detail": "gone"}, request=request)).detail == "gone"
    assert Answer.of(httpx.Response(201, json={"id": "w"}, request=request)) == Answer(201)
    case = FuzzCase("POST /x", "POST", "/x?a=1", (("content-type", "text/plain"),), b"\xff")
    assert FuzzCase.from_json(case.as_json()) == case


def test_an_unreachable_server_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert fake_honcho_main(["fuzz", "--against", "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "http://127.0.0.1:9 is not a reachable Honcho" in err


def test_without_the_fuzz_extra_one_line_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import fake_honcho.cli

    monkeypatch.setattr(fake_honcho.cli, "missing", lambda needs: ["schemathesis"])
    assert fake_honcho_main(["fuzz", "--against", "http://127.0.0.1:9"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(
        "fake-honcho fuzz: error: the 'fuzz' extra is not installed (missing schemathesis); "
        "install it with: pip install "
    )
    assert line.endswith("[fuzz]'")
