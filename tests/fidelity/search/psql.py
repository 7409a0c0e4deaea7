"""Run one query over many inputs in a real PostgreSQL through ``psql`` (recorders only).

The recorders use the client that comes with PostgreSQL rather than a Python driver: the
project needs no database package, and ``psql`` streams the inputs in with ``COPY``, so
any text (quotes, backslashes, newlines) arrives unchanged.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from collections.abc import Iterable, Sequence

PSQL_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/bin")


def psql_binary() -> str:
    found = shutil.which("psql")
    if found:
        return found
    for folder in PSQL_DIRS:
        candidate = shutil.which("psql", path=folder)
        if candidate:
            return candidate
    raise SystemExit("psql not found: install the PostgreSQL client")


def query_rows(
    url: str, columns: Sequence[str], rows: Iterable[Sequence[object]], select: str
) -> list[list[str]]:
    """``select`` (over temp table ``input(columns...)``, all text) for ``rows``, as CSV rows."""
    data = io.StringIO()
    writer = csv.writer(data, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if value is None else str(value) for value in row])
    table = ", ".join(f"{name} text" for name in columns)
    script = (
        "\\set ON_ERROR_STOP on\n"
        "SET client_min_messages = warning;\n"
        f"CREATE TEMP TABLE input ({table});\n"
        "COPY input FROM STDIN WITH (FORMAT csv);\n"
        f"{data.getvalue()}\\.\n"
        f"COPY ({select}) TO STDOUT WITH (FORMAT csv);\n"
    )
    done = subprocess.run(
        [psql_binary(), url, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
        input=script.encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"psql failed: {done.stderr.decode(errors='replace').strip()}")
    # Bytes, not text mode: universal newlines would turn a recorded "\r" into "\n".
    return list(csv.reader(io.StringIO(done.stdout.decode(), newline="")))
