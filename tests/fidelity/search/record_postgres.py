"""Record PostgreSQL's own text-search answers as ground truth for the unit tests.

    python -m tests.fidelity.search.record_postgres \\
        --postgres-url postgresql://postgres@127.0.0.1:15432/honcho

Writes ``tests/fidelity/search/postgres.json``: the default parser's tokens
(``ts_debug``), ``to_tsvector``/``plainto_tsquery``/``@@``/``ts_rank`` of document and
query pairs, ``english_stem`` of words the stemmer versions disagree on, and
``ORDER BY ... LIMIT`` over rows with many equal keys (the tie order). Only ``SELECT``s
over a temporary table: nothing of the server's is written.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from tests.fidelity.search.generate import STEMS, SUFFIXES, message, special_token
from tests.fidelity.search.psql import query_rows

OUT = Path(__file__).with_name("postgres.json")
SOUP = [*"abcXYZ019 .-_@/:~&#;<>!?'\"+=%\t\nxeE", "é", "ü", "\u0301", "\u200b", "東", "😀", "İ"]
# Words on which Snowball 3 and the Snowball 2.2.0 that PostgreSQL 15 embeds disagree.
STEM_EDGES = ("added", "adding", "anned", "apped", "biologist", "apologists", "ologist")


def texts(rng: random.Random, count: int) -> list[str]:
    found = [message(rng) for _ in range(count)]
    found += ["".join(rng.choice(SOUP) for _ in range(rng.randint(1, 25))) for _ in range(count)]
    found += [" ".join(special_token(rng) for _ in range(rng.randint(1, 4))) for _ in range(count)]
    return found


def parses(url: str, samples: list[str]) -> list[list[object]]:
    rows = query_rows(
        url,
        ["i", "t"],
        list(enumerate(samples)),
        "SELECT i, (SELECT json_agg(json_build_array(alias, token)) FROM ts_debug('english', t)"
        " WHERE alias <> 'blank') FROM input ORDER BY i::int",
    )
    return [
        [text, json.loads(found) if found else []]
        for text, (_, found) in zip(samples, rows, strict=True)
    ]


def ranks(url: str, rng: random.Random, docs: list[str]) -> list[list[object]]:
    pairs: list[tuple[str, str]] = []
    for doc in docs:
        words = doc.split()
        picked = rng.sample(words, min(len(words), rng.randint(1, 4))) if words else ["x"]
        query = " ".join(picked) if rng.random() < 0.7 else message(rng)[:30]
        pairs.append((doc, query))
    pairs += [(" ".join(["apple"] * n), "apple") for n in (1, 2, 3, 254, 255, 256)]
    pairs += [("apple " + "x " * n + "pie", "apple pie") for n in range(0, 110, 9)]
    rows = query_rows(
        url,
        ["i", "d", "q"],
        [(i, d, q) for i, (d, q) in enumerate(pairs)],
        "SELECT i, (SELECT json_object_agg(lexeme, positions)"
        " FROM unnest(to_tsvector('english', d))),"
        " ts_rank(to_tsvector('english', d), plainto_tsquery('english', q))::float8,"
        " (to_tsvector('english', d) @@ plainto_tsquery('english', q))::text,"
        " array_to_json(tsvector_to_array(to_tsvector('english', q)))"
        " FROM input ORDER BY i::int",
    )
    return [
        [doc, query, json.loads(vector) if vector else {}, float(score), match == "true"]
        for (doc, query), (_, vector, score, match, _) in zip(pairs, rows, strict=True)
    ]


def stems(url: str, rng: random.Random) -> list[list[str]]:
    words = sorted({*STEM_EDGES, *(rng.choice(STEMS) + rng.choice(SUFFIXES) for _ in range(600))})
    rows = query_rows(
        url,
        ["i", "w"],
        list(enumerate(words)),
        "SELECT i, coalesce(array_to_string(ts_lexize('english_stem', w), ','), '')"
        " FROM input ORDER BY i::int",
    )
    return [[word, stem] for word, (_, stem) in zip(words, rows, strict=True)]


def sorts(url: str, rng: random.Random) -> list[list[object]]:
    cases: list[tuple[list[tuple[int, int]], int]] = []
    for _ in range(200):
        count = rng.choice((1, 3, 6, 7, 8, 12, 30, 41, 50, 90, 200))
        spread = rng.choice((1, 2, 3, 10, 1000))
        rows = [(rng.randrange(spread), rng.randrange(rng.choice((1, 2, 5)))) for _ in range(count)]
        cases.append((rows, rng.choice((1, 2, 3, 5, 10, 20, 50, 100))))
    flat = [(c, i, a, b) for c, (rows, _) in enumerate(cases) for i, (a, b) in enumerate(rows)]
    limits = ",".join(f"({c},{limit})" for c, (_, limit) in enumerate(cases))
    answers = query_rows(
        url,
        ["c", "i", "a", "b"],
        flat,
        "SELECT l.c, (SELECT string_agg(x.i::text, ' ') FROM (SELECT i FROM (SELECT c::int c,"
        " i::int i, a::real a, b::int b FROM input OFFSET 0) s WHERE s.c = l.c"
        " ORDER BY a DESC, b DESC LIMIT l.lim) x)"
        f" FROM (VALUES {limits}) AS l(c, lim) ORDER BY l.c",
    )
    return [
        [rows, limit, [int(i) for i in found.split()]]
        for (rows, limit), (_, found) in zip(cases, answers, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", required=True)
    args = parser.parse_args()
    rng = random.Random(15)
    samples = texts(rng, 300)
    record = {
        "parse": parses(args.postgres_url, samples),
        "rank": ranks(args.postgres_url, rng, [message(rng) for _ in range(500)]),
        "stem": stems(args.postgres_url, rng),
        "sort": sorts(args.postgres_url, rng),
    }
    lines = []
    for name, entries in record.items():  # one entry a line: reviewable diffs
        body = ",\n".join(json.dumps(entry, ensure_ascii=False) for entry in entries)
        lines.append(f"{json.dumps(name)}: [\n{body}\n]")
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
