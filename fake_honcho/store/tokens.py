"""Exact token counts, as Honcho computes them: tiktoken's ``o200k_base``.

Honcho stores ``len(tiktoken.get_encoding("o200k_base").encode(content))`` as a
message's ``token_count`` and spends session context budgets (``tokens=``) in those
units. The fake counts with tiktoken too, but tiktoken fetches its vocabularies over
the network on first use, so the kit ships o200k_base's in ``vocabulary/``: tiktoken's
own rank file (checked against the sha256 tiktoken expects of it) and its split
pattern and special tokens, rebuilt by ``python -m tests.fidelity.tokens_vocabulary``.
``tests/fidelity/test_tokens.py`` holds the counts against ones recorded from a real
Honcho.

tiktoken's ``encode`` refuses text that spells a special token (``<|endoftext|>``),
and Honcho lets that ``ValueError`` become a 422; :func:`special_token_error` gives
its exact text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from fake_honcho.store.word_counts import WordCounts

ENCODING = "o200k_base"
VOCABULARY = Path(__file__).with_name("vocabulary")
SPECIAL_TOKENS = ("<|endoftext|>", "<|endofprompt|>")
_SPECIAL = re.compile("|".join(re.escape(token) for token in SPECIAL_TOKENS))


@cache
def load(encoding: str = ENCODING) -> Any:
    """The tokenizer (a ``tiktoken.Encoding``), loaded once per process (about half a second);
    ``encoding``: one shipped in ``vocabulary/`` (``cl100k_base``: the embedding model's).

    ``FakeHoncho()`` calls it, so the first message a served fake stores does not pay
    for it (a client's read timeout could expire on a loaded machine).
    """
    import tiktoken

    definition = json.loads((VOCABULARY / f"{encoding}.json").read_text(encoding="utf-8"))
    data = (VOCABULARY / f"{encoding}.tiktoken").read_bytes()
    if hashlib.sha256(data).hexdigest() != definition["sha256"]:
        raise RuntimeError(f"{VOCABULARY / encoding}.tiktoken is damaged: reinstall the kit")
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        encoding,
        pat_str=definition["pat_str"],
        mergeable_ranks=ranks,
        special_tokens=definition["special_tokens"],
    )


def _count_whole(text: str) -> int:
    """tiktoken's count of the whole of ``text``."""
    if not text.isascii():
        # tiktoken reads a str through its UTF-8 form, which CPython then keeps on the str
        # for as long as it lives (a stored message's content): count a copy instead.
        try:
            text = text.encode().decode()
        except UnicodeEncodeError:
            # Lone surrogates (JSON allows "\ud800"): tiktoken re-decodes them as U+FFFD.
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return len(load().encode_ordinary(text))


token_count = WordCounts(_count_whole).count
"""``len(tiktoken.get_encoding("o200k_base").encode_ordinary(text))``, by word where
that is exact (:mod:`fake_honcho.store.word_counts`)."""


def estimate_tokens(text: str) -> int:
    """Honcho's ``estimate_tokens``: tiktoken's ``encode``, or ``len // 4`` when it refuses.

    ``encode`` raises on text spelling a special token, and Honcho falls back to the
    character estimate (its token budgets, e.g. for ``custom_instructions``, use this).
    """
    if special_token_error(text) is not None:
        return len(text) // 4
    return token_count(text)


def special_token_error(text: str) -> str | None:
    """tiktoken's message for ``encode(text)`` when text holds a special token, else None."""
    found = _SPECIAL.search(text) if "<|" in text else None
    if found is None:
        return None
    token = found.group()
    return (
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, pass it to "
        f"`allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        "If you want this text to be encoded as normal text, disable the check for this "
        f"token by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )
