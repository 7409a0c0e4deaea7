"""OpenAI wire shapes: chat completions (whole or streamed) and embedding lists.

Token usage is counted as Honcho counts it (``o200k_base``): the prompt is every
message's text, the completion the reply's text or its tool calls' arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from fake_honcho.search.embedding import DIMENSIONS, Embedder, encode_base64
from fake_honcho.standin.replies import Reply
from fake_honcho.store.tokens import token_count

_CHUNK = re.compile(r"\S+\s*|\s+")


def prompt_tokens(body: dict[str, Any]) -> int:
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        total += token_count(content or "")
        for call in message.get("tool_calls") or []:
            total += token_count((call.get("function") or {}).get("arguments") or "")
    return total


def completion(body: dict[str, Any], reply: Reply, number: int) -> dict[str, Any]:
    """The ``chat.completion`` object answering ``body``."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = _tool_calls(reply, number)
    return {
        "id": f"chatcmpl-standin-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model") or "standin",
        "choices": [
            {"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}
        ],
        "usage": _usage(body, reply),
    }


def chunks(body: dict[str, Any], reply: Reply, number: int) -> Iterator[bytes]:
    """The same answer as server-sent ``chat.completion.chunk`` events, then ``[DONE]``."""
    base = {
        "id": f"chatcmpl-standin-{number}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model") or "standin",
    }

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return _sse({**base, "choices": [choice]})

    yield event({"role": "assistant", "content": ""})
    for piece in _CHUNK.findall(reply.content or ""):
        yield event({"content": piece})
    if reply.tool_calls:
        calls = [{"index": n, **call} for n, call in enumerate(_tool_calls(reply, number))]
        yield event({"tool_calls": calls})
    yield event({}, _finish(reply))
    if (body.get("stream_options") or {}).get("include_usage"):
        yield _sse({**base, "choices": [], "usage": _usage(body, reply)})
    yield b"data: [DONE]\n\n"


def embedding_list(body: dict[str, Any], embedder: Embedder) -> dict[str, Any]:
    """The ``/embeddings`` answer: one vector per input, floats or base64."""
    raw = body.get("input")
    inputs = raw if isinstance(raw, list) and not _is_tokens(raw) else [raw]
    texts = [_as_text(item) for item in inputs]
    size = int(body.get("dimensions") or DIMENSIONS)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        vector = embedder.vector(text, size)
        encoded: Any = encode_base64(vector) if as_base64 else vector
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    used = sum(token_count(text) for text in texts)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model") or "standin",
        "usage": {"prompt_tokens": used, "total_tokens": used},
    }


def _tool_calls(reply: Reply, number: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"call_{number}_{n}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for n, call in enumerate(reply.tool_calls)
    ]


def _finish(reply: Reply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    prompt = prompt_tokens(body)
    if reply.tool_calls:
        output = sum(token_count(json.dumps(call.arguments)) for call in reply.tool_calls)
    else:
        output = token_count(reply.content or "")
    return {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output}


def _is_tokens(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(item, int) for item in items)


def _as_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, list):  # token ids: any stable text will do
        return " ".join(str(token) for token in item)
    return str(item)


def _sse(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()
