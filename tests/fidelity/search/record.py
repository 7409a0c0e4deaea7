"""Record real Honcho's search answers on generated corpora (and compare the fake's).

    python -m tests.fidelity.search.record --honcho-url http://127.0.0.1:18000 \\
        --postgres-url postgresql://postgres@127.0.0.1:15432/honcho

With ``--embed VERSION`` the server embeds messages (``EMBED_MESSAGES=true``, its
embeddings from ``fake-honcho-llm``): the run waits ``--settle`` seconds for the
server's background embedding after each corpus, compares with a fake speaking
VERSION with embeddings on, and writes to ``data/<VERSION>+embed/``.

Each corpus goes to a fresh workspace; every query's answer is stored, as positions
in the corpus's message order, in ``tests/fidelity/search/data/corpus-NNN.json``, which
``test_replay.py`` replays against the fake. With ``--postgres-url`` (read only: one
``SELECT ... ORDER BY ctid``) the messages' physical order is stored too, so the replay
can check the answers the server's plan read in that order. The run reports, per
query, whether the fake answers alike and which scan order explains real's answer.
"""

from __future__ import annotations

import argparse
import secrets
import time

import httpx

from tests.fidelity.search.corpora import DATA, ask, fake_answers, load, plan, save
from tests.fidelity.search.psql import query_rows
from tests.fidelity.search.reference import answer, session_order


def table_order(url: str, workspace: str, ids: list[str]) -> list[int]:
    position = {mid: at for at, mid in enumerate(ids)}
    select = (
        "SELECT public_id FROM messages WHERE workspace_name = "
        "(SELECT w FROM input LIMIT 1) ORDER BY ctid"
    )
    return [position[row[0]] for row in query_rows(url, ["w"], [[workspace]], select)]


def embedding_order(url: str, workspace: str, ids: list[str]) -> list[int]:
    """Message positions in the physical order of the server's embedding rows (the
    semantic leg's scan reads them so: equal distances keep that order into its sort)."""
    position = {mid: at for at, mid in enumerate(ids)}
    select = (
        "SELECT message_id FROM message_embeddings WHERE workspace_name = "
        "(SELECT w FROM input LIMIT 1) ORDER BY ctid"
    )
    return [position[row[0]] for row in query_rows(url, ["w"], [[workspace]], select)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honcho-url", required=True)
    parser.add_argument("--postgres-url", help="the server's database, read for ctid order")
    parser.add_argument("--corpora", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=300, help="messages per corpus")
    parser.add_argument("--queries", type=int, default=120, help="queries per corpus")
    parser.add_argument("--embed", metavar="VERSION", help="the server embeds; its version")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to let it embed")
    args = parser.parse_args()
    directory = DATA / f"{args.embed}+embed" if args.embed else DATA
    run = secrets.token_hex(3)
    totals = {"alike": 0, "session": 0, "table": 0, "neither": 0, "all": 0}
    with httpx.Client(base_url=args.honcho_url, timeout=60) as client:
        for seed in range(args.first_seed, args.first_seed + args.corpora):
            made, planned = plan(seed, args.size, args.queries)
            workspace = f"h4-search-fidelity-{run}-{seed}"
            ids = load(client, workspace, made)
            if args.embed:
                time.sleep(args.settle)
            for query in planned:
                query.expected = ask(client, workspace, ids, query)
            physical = table_order(args.postgres_url, workspace, ids) if args.postgres_url else None
            embedded = (
                embedding_order(args.postgres_url, workspace, ids)
                if args.postgres_url and args.embed
                else None
            )
            mine = fake_answers(made, planned, embed_messages=bool(args.embed), version=args.embed)
            counts = dict.fromkeys(totals, 0)
            by_session = session_order(made)
            for query, got in zip(planned, mine, strict=True):
                counts["all"] += 1
                counts["alike"] += query.expected == got
                if answer(made, query, by_session) == query.expected:
                    counts["session"] += 1
                elif physical is not None and answer(made, query, physical) == query.expected:
                    counts["table"] += 1
                else:
                    counts["neither"] += 1
                    asked = f"{query.scope} {query.query!r} {query.limit} {query.filters}"
                    print(f"  unexplained: {asked}")
                    print(f"    real {query.expected}\n    fake {got}")
            for name, value in counts.items():
                totals[name] += value
            saved = save(made, planned, physical, directory, embedded)
            print(f"corpus {seed}: {counts} -> {saved}")
    print(f"in all: {totals}")


if __name__ == "__main__":
    main()
