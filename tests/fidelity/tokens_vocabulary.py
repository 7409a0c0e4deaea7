"""Rebuild the o200k_base vocabulary the fake ships: ``fake_honcho/store/vocabulary/``.

    python -m tests.fidelity.tokens_vocabulary            # from the npm registry
    python -m tests.fidelity.tokens_vocabulary PACKAGE.tgz  # from a tarball at hand

tiktoken downloads its vocabularies on first use, which a test machine without the
internet cannot do, so the fake ships o200k_base in its wheel. The ranks come from the
npm package js-tiktoken (MIT), which carries them in a compact form: lines of ``<tag>
<first rank> <base64 token> <base64 token> ...``, consecutive ranks from the first.
This rewrites them as tiktoken's own ``<base64 token> <rank>`` lines and refuses to
write unless the result has the sha256 tiktoken itself expects of o200k_base. The
split pattern and the special tokens are read from the installed tiktoken
(``tiktoken_ext.openai_public``), so the shipped encoding is tiktoken's, whole.
``tests/fidelity/test_tokens.py`` checks both files against tiktoken again.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import httpx

from fake_honcho.store.tokens import ENCODING, VOCABULARY

JS_TIKTOKEN = "js-tiktoken"
JS_TIKTOKEN_VERSION = "1.0.21"
REGISTRY = "https://registry.npmjs.org"


def tiktoken_definition(name: str = ENCODING) -> dict[str, Any]:
    """What the installed tiktoken says ``name`` is, without fetching its ranks: the split
    pattern, the special tokens, and the sha256 it expects of the rank file."""
    import tiktoken_ext.openai_public as public

    asked: dict[str, Any] = {}

    def remember(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        asked.update(url=url, sha256=expected_hash)
        return {}

    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = remember  # type: ignore[assignment]
    try:
        definition = public.ENCODING_CONSTRUCTORS[name]()
    finally:
        public.load_tiktoken_bpe = original  # type: ignore[assignment]
    return {
        "name": name,
        "pat_str": definition["pat_str"],
        "special_tokens": definition["special_tokens"],
        "sha256": asked["sha256"],
    }


def ranks_from_js_tiktoken(module_source: str) -> bytes:
    """tiktoken's rank file from js-tiktoken's ``dist/ranks/NAME.cjs`` module text."""
    exported = json.loads(module_source.strip().removeprefix("module.exports = ").rstrip(";"))
    lines: list[bytes] = []
    for row in exported["bpe_ranks"].split("\n"):
        _tag, first, *tokens = row.split(" ")
        for rank, token in enumerate(tokens, start=int(first)):
            base64.b64decode(token, validate=True)  # a damaged row fails here, not at load
            lines.append(f"{token} {rank}".encode())
    return b"\n".join(lines) + b"\n"


def npm_tarball(package: str, version: str) -> bytes:
    """The package's tarball from the npm registry, checked against the registry's sha512."""
    with httpx.Client(timeout=120, follow_redirects=True) as client:
        meta = client.get(f"{REGISTRY}/{package}/{version}").raise_for_status().json()
        data = client.get(meta["dist"]["tarball"]).raise_for_status().content
    algorithm, _, digest = meta["dist"]["integrity"].partition("-")
    if algorithm != "sha512" or base64.b64decode(digest) != hashlib.sha512(data).digest():
        raise SystemExit(f"{package}@{version}: the tarball does not match the registry's hash")
    return data


def module_from_tarball(data: bytes, name: str = ENCODING) -> str:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        member = archive.extractfile(f"package/dist/ranks/{name}.cjs")
        if member is None:
            raise SystemExit(f"no dist/ranks/{name}.cjs in the tarball")
        return member.read().decode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fidelity.tokens_vocabulary")
    parser.add_argument("tarball", nargs="?", type=Path, help="a js-tiktoken .tgz at hand")
    args = parser.parse_args(argv)
    source = f"{JS_TIKTOKEN}@{JS_TIKTOKEN_VERSION}"
    data = (
        args.tarball.read_bytes() if args.tarball else npm_tarball(JS_TIKTOKEN, JS_TIKTOKEN_VERSION)
    )
    ranks = ranks_from_js_tiktoken(module_from_tarball(data))
    definition = tiktoken_definition()
    found = hashlib.sha256(ranks).hexdigest()
    if found != definition["sha256"]:
        raise SystemExit(f"{source}: sha256 {found}, but tiktoken expects {definition['sha256']}")
    VOCABULARY.mkdir(exist_ok=True)
    (VOCABULARY / f"{ENCODING}.tiktoken").write_bytes(ranks)
    definition["ranks_from"] = f"{source} (MIT), rewritten in tiktoken's format"
    text = json.dumps(definition, indent=2, ensure_ascii=False) + "\n"
    (VOCABULARY / f"{ENCODING}.json").write_text(text, encoding="utf-8")
    print(f"wrote {VOCABULARY}/{ENCODING}.tiktoken ({len(ranks):,} bytes, sha256 {found})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
