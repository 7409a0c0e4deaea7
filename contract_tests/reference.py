"""Reference snapshots of a real Honcho that ship inside ``contract_tests``.

``HonchoAPIContract`` pins the server's wire format, so its snapshots must come from a
real Honcho, not from the server under test: recorded with ``--snapshot-update`` in a
consumer's project they would check a server against itself. They live in
``contract_tests/snapshots/<Suite>/<test>.json`` (package data, in the wheel), each with
the Honcho version it was recorded from, and a consumer's first run compares against
them without writing anything.

Re-recording is a separate, deliberate act of the kit's maintainers, from a checkout::

    pytest tests/contract -k snapshot --honcho-url http://real-honcho --honcho-update-reference

It is refused against the fake (the fake would then be its own reference).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from contract_tests.snapshot import normalise

__all__ = ["REFERENCE_DIR", "ReferenceSnapshot"]

REFERENCE_DIR = Path(__file__).parent / "snapshots"


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class ReferenceSnapshot:
    """``assert honcho_reference == data``: ``data``, normalised, equals the shipped file.

    With ``record_version`` set (``--honcho-update-reference`` against a real server) the
    comparison writes the file instead and holds.
    """

    def __init__(
        self,
        path: Path,
        *,
        literals: Iterable[str] = (),
        record_version: str | None = None,
    ) -> None:
        self.path = path
        self.literals = tuple(literals)
        self.record_version = record_version
        self._diff: list[str] = []

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"

    def expected(self) -> Any:
        """The recorded (normalised) data; ``FileNotFoundError`` if the kit lacks it."""
        return json.loads(self.path.read_text(encoding="utf-8"))["snapshot"]

    def __eq__(self, other: object) -> bool:
        received = normalise(other, literals=self.literals)
        if self.record_version is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            document = {"honcho_version": self.record_version, "snapshot": received}
            self.path.write_text(_dumps(document), encoding="utf-8")
            return True
        try:
            expected = self.expected()
        except FileNotFoundError:
            self._diff = [f"the kit ships no reference snapshot {self.name} (a packaging bug)"]
            return False
        if expected == received:
            return True
        self._diff = list(
            difflib.unified_diff(
                _dumps(expected).splitlines(),
                _dumps(received).splitlines(),
                fromfile=f"reference {self.name}",
                tofile="received",
                lineterm="",
            )
        )
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ReferenceSnapshot({self.name})"

    def diff_lines(self) -> list[str]:
        """Why the last comparison failed (the plugin's assertrepr shows these lines)."""
        return self._diff
