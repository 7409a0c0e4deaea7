"""The stand-in over HTTP: OpenAI's chat-completion and embedding shapes, streams, errors, log."""

from __future__ import annotations

import base64
import json
import math
import struct
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fake_honcho.search.embedding import DIMENSIONS, HashedEmbedder
from fake_honcho.standin import StandIn, honcho_environment
from fake_honcho.store.tokens import token_count

DERIVER_PROMPT = (
    "Target peer:\nalice\n\nMessages to analyze:\n<messages>\n"
    "2026-01-01 10:00:00 alice: I like tea. I live in Rome.\n</messages>"
)


@pytest.fixture
def standin() -> Iterator[tuple[StandIn, httpx.Client]]:
    """A served stand-in and a client whose base URL is the server's root."""
    llm = StandIn()
    with llm.serve() as base_url, httpx.Client(base_url=base_url.removesuffix("/v1")) as client:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        yield llm, client


def deriver_body(**extra: object) -> dict[str, object]:
    schema = {
        "type": "json_schema",
        "json_schema": {"name": "PromptRepresentation", "strict": True},
    }
    return {
        "model": "gpt-5.4-mini",
        "messages": [{"role": "user", "content": DERIVER_PROMPT}],
        "response_format": schema,
        **extra,
    }


def test_chat_completion_shape_and_usage(standin: tuple[StandIn, httpx.Client]) -> None:
    llm, client = standin
    body = client.post("/v1/chat/completions", json=deriver_body()).json()
    message = body["choices"][0]["message"]
    content = {"explicit": [{"content": "alice likes tea"}, {"content": "alice lives in Rome"}]}
    assert json.loads(message["content"]) == content
    assert (body["object"], body["choices"][0]["finish_reason"]) == ("chat.completion", "stop")
    assert body["usage"] == {
        "prompt_tokens": token_count(DERIVER_PROMPT),
        "completion_tokens": token_count(message["content"]),
        "total_tokens": token_count(DERIVER_PROMPT) + token_count(message["content"]),
    }
    (logged,) = llm.requests
    assert (logged["task"], logged["path"], logged["reply"]) == (
        "deriver",
        "/v1/chat/completions",
        message["content"],
    )


def test_stream_sends_chunks_usage_and_done(standin: tuple[StandIn, httpx.Client]) -> None:
    _, client = standin
    whole = client.post("/v1/chat/completions", json=deriver_body()).json()
    streamed = client.post(
        "/v1/chat/completions",
        json=deriver_body(stream=True, stream_options={"include_usage": True}),
    )
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = [line[len("data: ") :] for line in streamed.text.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == whole["choices"][0]["message"]["content"]
    assert chunks[-1]["usage"] == whole["usage"] and chunks[-1]["choices"] == []


def test_embeddings_base64_and_floats_agree(standin: tuple[StandIn, httpx.Client]) -> None:
    _, client = standin
    texts = ["alice likes green tea", "alice likes tea"]
    packed = client.post(
        "/v1/embeddings", json={"input": texts, "encoding_format": "base64"}
    ).json()
    plain = client.post("/v1/embeddings", json={"input": texts[0]}).json()
    raw = base64.b64decode(packed["data"][0]["embedding"])
    decoded = struct.unpack(f"<{DIMENSIONS}f", raw)
    assert len(decoded) == 1536 and [row["index"] for row in packed["data"]] == [0, 1]
    assert all(
        math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)
        for a, b in zip(decoded, plain["data"][0]["embedding"], strict=True)
    )
    assert packed["usage"]["prompt_tokens"] == sum(map(token_count, texts))


def cosine(a: str, b: str) -> float:
    embedder = HashedEmbedder()
    return 1.0 - embedder.distance(embedder.encode(a), embedder.encode(b))


def test_similarity_follows_shared_terms_and_stays_below_honchos_merge_line() -> None:
    assert math.isclose(cosine("Alice likes tea", " alice likes tea "), 1.0)
    assert cosine("alice likes tea", "alice likes tea!") < 0.95  # different text, same terms
    assert cosine("alice likes tea", "alice likes green tea") > cosine(
        "alice likes tea", "bob hates rain"
    )


def test_vectors_are_small_integers_so_pgvector_sums_them_exactly() -> None:
    vector = HashedEmbedder().vector("alice likes green tea")
    assert len(vector) == DIMENSIONS and all(value == int(value) for value in vector)
    assert sum(value * value for value in vector) < 2**24
    assert any(vector) and HashedEmbedder().vector("")[-32:] != [0.0] * 32


def test_a_user_embedder_is_padded_to_the_dimensions_honcho_checks() -> None:
    llm = StandIn(embedder=lambda text: [1.0, float(len(text))])
    with llm.serve() as base_url, httpx.Client(base_url=base_url) as client:
        data = client.post("/embeddings", json={"input": "abc"}).json()["data"]
    assert data[0]["embedding"][:3] == [1.0, 3.0, 0.0] and len(data[0]["embedding"]) == 1536


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("/v1/chat/completions", b"{nope"),
        ("/v1/chat/completions", b"[1]"),
        ("/v1/embeddings", b"{}"),
    ],
)
def test_bad_bodies_are_openai_shaped_400s(
    standin: tuple[StandIn, httpx.Client], path: str, content: bytes
) -> None:
    _, client = standin
    response = client.post(path, content=content)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_log_route_lists_and_clears(standin: tuple[StandIn, httpx.Client]) -> None:
    llm, client = standin
    client.post("/v1/embeddings", json={"input": "x"})
    assert [entry["task"] for entry in client.get("/_standin/requests").json()] == ["embedding"]
    assert client.delete("/_standin/requests").status_code == 204
    assert llm.requests == []


def test_log_file_gets_one_json_line_per_request(tmp_path: Path) -> None:
    path = tmp_path / "llm.jsonl"
    llm = StandIn(log_file=path)
    with llm.serve() as base_url:
        httpx.post(f"{base_url}/chat/completions", json=deriver_body())
    llm.close()
    (line,) = path.read_text().splitlines()
    assert json.loads(line)["task"] == "deriver"


def test_honcho_environment_names_every_setting() -> None:
    env = honcho_environment("http://127.0.0.1:9/v1")
    assert env["LLM_OPENAI_BASE_URL"] == env["EMBEDDING_MODEL_CONFIG__OVERRIDES__BASE_URL"]
    assert (env["DERIVER_FLUSH_ENABLED"], env["CACHE_DEFAULT_TTL_SECONDS"]) == ("true", "1")
