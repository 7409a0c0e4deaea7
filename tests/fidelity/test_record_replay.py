"""``fake-honcho proxy`` and ``replay``: forwarding, recording, streaming, secrets,
redaction and the replay's verdicts, in front of served fakes (the upstream a test can
run; the real servers' recordings are replayed by test_traffic.py)."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from honcho import Honcho
from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route

from fake_honcho import FakeHoncho
from fake_honcho.drift.proxy import Recorder, build_app
from fake_honcho.drift.redact import Redactor, placeholder
from fake_honcho.drift.replay import main as replay_main
from fake_honcho.drift.replay import replay_exchanges
from fake_honcho.drift.traffic import read_exchanges, read_server
from fake_honcho.http.server import serve_in_thread
from fake_honcho.store.tokens import token_count
from tests.fake.served import running, stop

KEY = "kit-secret-key-0123456789"
PRIVATE = ("I keep bees on the roof", "my bank PIN is 4821", "Oslo, since 2019")


@contextmanager
def proxied(
    upstream: str, directory: Path, *, redact: bool = False, probe: bool = True
) -> Iterator[str]:
    """The proxy in front of ``upstream``, served on a free port; yields its URL."""
    recorder = Recorder(directory, upstream, Redactor() if redact else None)
    if probe:
        recorder.probe(None)
    client = httpx.AsyncClient(base_url=upstream, timeout=None)
    client.headers.clear()
    with serve_in_thread(build_app(recorder, client)) as url:
        yield url


def _workload(url: str, workspace: str = "demo") -> list[str]:
    """An SDK session whose later requests carry ids the server made."""
    honcho = Honcho(base_url=url, workspace_id=workspace, api_key=KEY)
    alice = honcho.peer("alice", metadata={"secret": PRIVATE[2]})
    session = honcho.session("s1")
    made = session.add_messages([alice.message(PRIVATE[0]), alice.message(PRIVATE[1])])
    session.update_message(made[1], {"mood": "calm"})  # the server's id in the path
    found = honcho.search("bees", limit=5)
    return [m.content for m in found]


def test_the_client_gets_the_upstreams_answers_and_each_exchange_is_recorded(
    tmp_path: Path,
) -> None:
    with FakeHoncho(api_key=KEY) as fake, fake.serve() as upstream:
        with proxied(upstream, tmp_path) as url:
            through = _workload(url)
        direct = _workload(upstream, workspace="direct")
    assert through == direct and PRIVATE[0] in through
    exchanges = read_exchanges(tmp_path)
    sent = [  # the workload's requests, not the probe's nor the direct run's
        e
        for e in fake.requests
        if e.path.startswith("/v3/workspaces/demo")
        or (e.path == "/v3/workspaces" and e.json == {"id": "demo"})
    ]
    assert [(x.method, x.path, x.status) for x in exchanges] == [
        (e.method, e.path, e.status) for e in sent
    ]
    assert [x.seq for x in exchanges] == list(range(1, len(exchanges) + 1))
    assert exchanges[0].upstream_ms and exchanges[0].proxy_ms is not None
    info = read_server(tmp_path)  # probed with the first key a client sent
    assert info is not None and info.auth and info.served.version == fake.version


def test_no_key_reaches_the_disk(tmp_path: Path) -> None:
    with (
        FakeHoncho(api_key=KEY) as fake,
        fake.serve() as upstream,
        proxied(upstream, tmp_path) as url,
    ):
        _workload(url)
    for path in tmp_path.iterdir():
        text = path.read_text().lower()
        assert KEY.lower() not in text and "bearer" not in text and "authorization" not in text


def test_redact_keeps_no_private_text_but_its_length_and_token_count(tmp_path: Path) -> None:
    with (
        FakeHoncho() as fake,
        fake.serve() as upstream,
        proxied(upstream, tmp_path, redact=True) as url,
    ):
        _workload(url)
    text = "".join(path.read_text() for path in tmp_path.iterdir())
    for secret in (*PRIVATE, "bees"):
        assert secret not in text
    stored = [
        m
        for x in read_exchanges(tmp_path)
        if x.method == "POST" and x.path.endswith("/messages")
        for m in x.response.value
    ]
    assert [(len(m["content"]), m["token_count"]) for m in stored] == [
        (len(t), token_count(t)) for t in PRIVATE[:2]
    ]
    assert [token_count(m["content"]) for m in stored] == [m["token_count"] for m in stored]
    assert read_server(tmp_path).redacted  # type: ignore[union-attr]


def test_placeholders_are_stable_and_keep_length_and_tokens() -> None:
    texts = ["", "a", "I prefer green tea", "x" * 300, "Ünïcödé and 日本語", "1, 2, 3... go!"]
    for text in texts:
        stand_in = placeholder(text)
        assert (len(stand_in), token_count(stand_in)) == (len(text), token_count(text))
        assert stand_in == placeholder(text) and (stand_in != text or not text)
    redactor = Redactor()
    body = {"content": "hi there", "metadata": {"a": ["hi there", 3]}, "peer_id": "alice"}
    redacted = redactor.json(body)
    assert redacted["peer_id"] == "alice" and redacted["metadata"]["a"][1] == 3
    assert redacted["content"] == redacted["metadata"]["a"][0] != "hi there"


async def _events(gate: threading.Event) -> AsyncIterator[bytes]:
    yield b'data: {"delta": {"content": "first"}, "done": false}\n\n'
    while not gate.is_set():  # the second event waits until the client saw the first
        await asyncio.sleep(0.01)
    yield b'data: {"done": true}\n\n'


def test_a_stream_passes_through_as_it_arrives(tmp_path: Path) -> None:
    gate = threading.Event()

    async def chat(request: object) -> StreamingResponse:
        return StreamingResponse(_events(gate), media_type="text/event-stream")

    upstream_app = Starlette(routes=[Route("/v3/{path:path}", chat, methods=["GET", "POST"])])
    chat_url = "/v3/workspaces/w/peers/p/chat"
    with (
        serve_in_thread(upstream_app) as upstream,
        proxied(upstream, tmp_path, probe=False) as url,  # no Honcho there to probe
        httpx.stream("POST", url + chat_url, json={}) as answer,
    ):
        chunks = answer.iter_raw()
        assert b"first" in next(chunks)  # before the upstream has sent the rest
        gate.set()
        assert b'"done": true' in b"".join(chunks)
    streamed = [x for x in read_exchanges(tmp_path) if x.path.endswith("/chat")]
    assert streamed[-1].streamed and '"done": true' in streamed[-1].response.value


def test_the_command_records_then_prints_its_overhead(tmp_path: Path) -> None:
    with FakeHoncho() as fake, fake.serve() as upstream:
        args = ("proxy", "--upstream", upstream, "--port", "0", "--record", str(tmp_path / "r"))
        with running(*args) as (url, process):
            assert httpx.post(f"{url}/v3/workspaces", json={"id": "w"}).status_code == 201
            code, output = stop(process)
    assert code == 0, output
    assert "1 exchanges recorded" in output and "proxy overhead per request: median" in output
    assert json.loads((tmp_path / "r" / "server.json").read_text())["upstream"] == upstream


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--upstream", "ftp://x", "--record", "d"), "--upstream must be an http(s) URL"),
        (("--upstream", "http://127.0.0.1:9", "--record", "d"), "is not a reachable Honcho"),
    ],
)
def test_proxy_mistakes_are_one_line_errors(
    args: tuple[str, ...], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fake_honcho.drift.proxy import main

    assert main([*args[:-1], str(tmp_path / args[-1])]) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_recording_of_a_faithful_server_replays_without_difference(tmp_path: Path) -> None:
    """Ids the upstream made (a message id in a path) are sent as the replaying fake's."""
    with FakeHoncho() as fake, fake.serve() as upstream, proxied(upstream, tmp_path) as url:
        _workload(url)
    info = read_server(tmp_path)
    assert info is not None
    verdicts = replay_exchanges(read_exchanges(tmp_path), info.served)
    assert {v.outcome for v in verdicts} == {"equal"}, [v for v in verdicts if v.fake]
    assert any(v.exchange.method == "PUT" for v in verdicts)  # the id-carrying request


def _report(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return replay_main(list(argv), out=out), out.getvalue()


def test_replay_lists_what_the_fake_answers_otherwise_and_fails(tmp_path: Path) -> None:
    with FakeHoncho() as fake, fake.serve() as upstream, proxied(upstream, tmp_path) as url:
        _workload(url)
    path = tmp_path / "exchanges.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    search = next(x for x in lines if x["target"].endswith("/search"))
    search["response"]["json"] = []  # as if the server had found nothing
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    status, report = _report(str(tmp_path))
    assert status == 1, report
    assert f"  POST /v3/workspaces/{{workspace}}/search: 1 (#{search['seq']})" in report
    assert "    server: 200 []" in report
    assert report.splitlines()[-1].endswith(", 0 declared, 1 undeclared")


def test_replay_reads_vcrpy_cassettes_taking_the_honcho_host_only(tmp_path: Path) -> None:
    import vcr

    cassette = tmp_path / "run.yaml"
    with (
        FakeHoncho(version="3.1") as fake,
        fake.serve() as url,
        FakeHoncho() as other,
        other.serve() as elsewhere,
        vcr.VCR(filter_headers=["authorization"]).use_cassette(str(cassette)),
    ):
        _workload(url)
        httpx.get(f"{elsewhere}/v3/workspaces/x/peers/list")  # another service's call
    status, report = _report(str(cassette), "--honcho-version", "3.1")
    assert status == 2 and report == ""  # two hosts answered /v3/: which is Honcho?
    host = url.removeprefix("http://")
    status, report = _report(str(cassette), "--honcho-version", "3.1", "--host", host)
    assert status == 0, report
    assert "(Honcho 3.1, embeddings on)" in report
    assert ", 0 undeclared" in report.splitlines()[-1]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing", "no such file or directory"),
        (lambda d: d, "holds no server.json"),
        (lambda d: (d / "x.yaml").write_text("- not: [a cassette") and d / "x.yaml", "not a vcrpy"),
    ],
)
def test_replay_mistakes_are_one_line_errors(
    make: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    assert replay_main([str(target)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
