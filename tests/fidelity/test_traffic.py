"""Real servers' traffic, recorded through ``fake-honcho proxy`` (and one pytest-recording
cassette), replayed offline against fresh fakes: nothing may differ undeclared.

The recordings (tests/fidelity/traffic, re-recorded as docs/development.md says) are
Honcho 3.0.12 and 3.1 with embeddings on through ``fake-honcho-llm``: Honcho's own Python
SDK tests, the TypeScript SDK's every-method run (tests/sdk_ts), the kit's DeerFlow backend
under its memory contract (3.0.12 redacted) and the kit's SDK example as a cassette.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest

from fake_honcho.drift.recording import parse_configuration
from fake_honcho.drift.replay import main as replay
from fake_honcho.drift.traffic import read_exchanges, read_server

TRAFFIC = Path(__file__).parent / "traffic"
RECORDINGS = sorted(path.parent for path in TRAFFIC.glob("*/*/server.json"))
CASSETTES = sorted((TRAFFIC / "cassettes").glob("*.yaml"))
# the least each workload sent: a recording cut short fails here, not silently
AT_LEAST = {"honcho-sdk-tests": 1000, "typescript-sdk": 600, "deerflow": 150}


def _name(path: Path) -> str:
    return str(path.relative_to(TRAFFIC))


def _replayed(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return replay(list(argv), out=out), out.getvalue()


@pytest.mark.parametrize("recording", RECORDINGS, ids=_name)
def test_a_recorded_workload_replays_with_nothing_undeclared(recording: Path) -> None:
    info = read_server(recording)
    assert info is not None
    version, embeds = parse_configuration(recording.name)
    assert (info.served.version, info.served.embeds) == (version, embeds)
    status, report = _replayed(str(recording))
    assert status == 0, report
    total, *_ = re.findall(r"^(\d+) exchanges: ", report, re.MULTILINE)
    assert int(total) >= AT_LEAST[recording.parent.name], report
    assert ", 0 undeclared" in report.splitlines()[-1]


@pytest.mark.parametrize("cassette", CASSETTES, ids=_name)
def test_a_recorded_cassette_replays_with_nothing_undeclared(cassette: Path) -> None:
    version, embeds = parse_configuration(cassette.stem.removeprefix("sdk-example-"))
    status, report = _replayed(
        str(cassette), "--honcho-version", version.name, "--embeddings", "on" if embeds else "off"
    )
    assert status == 0, report
    assert re.search(r"^1\d exchanges: .*, 0 undeclared$", report, re.MULTILINE), report


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def test_no_recorded_file_holds_a_key() -> None:
    files = [p for p in TRAFFIC.rglob("*") if p.is_file() and p.suffix in (".gz", ".json", ".yaml")]
    assert len(files) == 2 * len(RECORDINGS) + len(CASSETTES)
    for path in files:
        text = _text(path).lower()
        assert "bearer" not in text and "authorization" not in text, path


def _contents(recording: Path) -> set[str]:
    """Every message text the recording's requests sent."""
    found = set()
    for exchange in read_exchanges(recording):
        body = exchange.request.value if exchange.request.kind == "json" else None
        for message in body.get("messages", []) if isinstance(body, dict) else []:
            found.add(message["content"])
    return found


def test_a_redacted_recording_holds_none_of_the_workloads_text() -> None:
    """The DeerFlow drive sends the same texts to both servers: none of those the 3.1
    recording holds as sent may be in the 3.0.12 one, recorded with --redact."""
    redacted = TRAFFIC / "deerflow" / "3.0.12+embed"
    info = read_server(redacted)
    assert info is not None and info.redacted
    texts = {text for text in _contents(TRAFFIC / "deerflow" / "3.1+embed") if len(text) > 3}
    assert len(texts) > 10
    recorded = _text(redacted / "exchanges.jsonl.gz")
    assert not [text for text in texts if json.dumps(text)[1:-1] in recorded]
    assert len(_contents(redacted)) > 10  # placeholders in their place
