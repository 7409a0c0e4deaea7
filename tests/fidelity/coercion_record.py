"""Record the coercion matrix from a Honcho server into ``tests/fidelity/coercion/``.

    python -m tests.fidelity.coercion_record --honcho-url http://127.0.0.1:18000

Each script of ``coercion_scripts`` runs in fresh workspaces (deleted afterwards);
one JSON file per script keeps every request as written and the normalised answer,
in the drift report's recording format, for ``test_coercion.py`` to replay.
"""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path

import httpx

from contract_tests.drift.exchange import run_script, workspace_names
from contract_tests.drift.recording import Recording, write_recording
from contract_tests.namespace import delete_workspaces
from tests.fidelity.coercion_scripts import SCRIPTS

OUT = Path(__file__).with_name("coercion")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honcho-url", required=True, help="the Honcho server to record")
    parser.add_argument("--out", type=Path, default=OUT, help="output directory")
    parser.add_argument(
        "--script",
        action="append",
        choices=[script.name for script in SCRIPTS],
        help="record only this script (repeatable; default: all)",
    )
    args = parser.parse_args(argv)
    url = args.honcho_url.rstrip("/")
    prefix = f"coercion-{uuid.uuid4().hex[:8]}-"
    # A fresh connection per request: after a 500 the server closes the connection.
    limits = httpx.Limits(max_keepalive_connections=0)
    with httpx.Client(base_url=url, timeout=60, limits=limits) as client:
        try:
            for script in SCRIPTS:
                if args.script and script.name not in args.script:
                    continue
                results = run_script(client, script, workspace_names(prefix))
                path = write_recording(args.out, Recording(script, results, server=url))
                print(f"{script.name}: {len(results)} exchanges into {path}")
        finally:
            delete_workspaces(client, prefix)


if __name__ == "__main__":
    main()
