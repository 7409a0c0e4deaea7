"""Record the ``token_count`` a Honcho server gives a varied corpus: ``tokens_real.json``.

    python -m tests.fidelity.tokens_record --honcho-url http://127.0.0.1:18000

The corpus mixes the text where an approximation goes wrong (CJK, accents, emoji, code,
long runs, whitespace runs, empty, NUL, special-token spellings) with seeded random
strings drawn from the same pools. Each text is sent as one message; the file keeps
what the server answered: the stored ``token_count``, or the status and detail of a
refusal. ``tests/fidelity/test_tokens.py`` replays it against the fake.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from pathlib import Path
from typing import Any

import httpx

OUT = Path(__file__).with_name("tokens_real.json")
BATCH = 100

FIXED = [
    "",
    " ",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "I prefer green tea in the morning, and coffee after lunch.",
    "naïve café résumé Zürich São Paulo déjà vu",
    "e\u0301le\u0300ve (combining accents)",
    "東京は日本の首都です。今日はいい天気ですね。",
    "我喜欢喝绿茶，不喜欢咖啡。",  # noqa: RUF001 (a CJK comma on purpose)
    "안녕하세요, 만나서 반갑습니다.",
    "Привет, как дела? Всё хорошо.",
    "مرحبا بالعالم، كيف حالك؟",
    "नमस्ते दुनिया, आप कैसे हैं?",
    "สวัสดีครับ ยินดีที่ได้รู้จัก",
    "😀😃😄 👩‍👩‍👧‍👦 👍🏽 🇫🇷🇯🇵 ❤️‍🔥",
    "def add(a: int, b: int) -> int:\n    return a + b\n",
    "for (let i = 0; i < 10; i++) { console.log(`i=${i}`); }",
    '{"key": [1, 2.5, null, true], "nested": {"x": "y"}}',
    "SELECT * FROM messages WHERE token_count > 10 ORDER BY created_at DESC;",
    "https://example.com/path?query=1&other=two#frag",
    "I'm sure you're right; they'll say we'd've known. It's John's.",
    "CAPS LOCK IS ON AND SHOUTING WORKS",
    "1234567890 3.14159 -42 1e10 0xFF 1,000,000",
    "a" * 100,
    "a" * 25000,
    "ab" * 3000,
    "1" * 5000,
    " " * 3000,
    "\n" * 500,
    "\t\t  \n\r\n  \u00a0\u3000 x",
    "line one\r\nline two\r\n\r\nline four",
    "!!!???...;;;---___===+++",
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "hello\x00world",
    "<|endoftext|>",
    "before <|endofprompt|> after",
    "<|endoftext",
    "endoftext|>",
    "<|im_start|>user",
]

POOLS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    " \t\n\r\u00a0\u2009\u3000",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿœšžßÀÉÎÕÜ",
    "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出要",
    "あいうえおかきくけこアイウエオカキクケコ",
    "가나다라마바사아자차카타파하",
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "\u0301\u0300\u0308\u200d\ufe0f",
    "😀😂🥲🤖🎉🔥✨🍵☕👍🏽🇯",
]


def fuzzed(count: int, seed: int = 12) -> list[str]:
    """Seeded random texts: words from one or more pools, with occasional long runs."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pools = rng.sample(POOLS, rng.randint(1, 4))
        parts = []
        for _ in range(rng.randint(1, 40)):
            pool = rng.choice(pools)
            if rng.random() < 0.05:
                parts.append(rng.choice(pool) * rng.randint(10, 300))
            else:
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 12))))
            parts.append(rng.choice(["", " ", " ", "\n", ", "]))
        texts.append("".join(parts))
    return texts


def corpus() -> list[str]:
    return FIXED + fuzzed(400)


def record(base_url: str) -> list[dict[str, Any]]:
    """Send every text of the corpus to ``base_url``; one entry per text, in order."""
    workspace = f"tokens-record-{uuid.uuid4().hex[:8]}"
    path = f"/v3/workspaces/{workspace}/sessions/s1/messages"
    entries: list[dict[str, Any]] = []
    with httpx.Client(base_url=base_url.rstrip("/"), timeout=60) as client:
        client.post("/v3/workspaces", json={"id": workspace}).raise_for_status()
        texts = corpus()
        for start in range(0, len(texts), BATCH):
            chunk = texts[start : start + BATCH]
            items = [{"peer_id": "p1", "content": text} for text in chunk]
            answer = client.post(path, json={"messages": items})
            if answer.status_code == 201:
                counts = [row["token_count"] for row in answer.json()]
                entries += [
                    {"content": t, "token_count": n} for t, n in zip(chunk, counts, strict=True)
                ]
                continue
            for item in items:  # a refused batch: find which texts the server refuses
                one = client.post(path, json={"messages": [item]})
                entry: dict[str, Any] = {"content": item["content"]}
                if one.status_code == 201:
                    entry["token_count"] = one.json()[0]["token_count"]
                else:
                    entry.update(status=one.status_code, detail=one.json()["detail"])
                entries.append(entry)
        client.delete(f"/v3/workspaces/{workspace}")
    return entries


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honcho-url", required=True, help="the Honcho server to record")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output file (default {OUT.name})")
    args = parser.parse_args(argv)
    entries = record(args.honcho_url)
    args.out.write_text(json.dumps(entries, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(entries)} texts recorded into {args.out}")


if __name__ == "__main__":
    main()
