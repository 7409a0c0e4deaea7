"""JSON snapshots that hold on the fake and on a real server.

Before syrupy serialises anything, :func:`~fake_honcho.drift.normalise.normalise`
(shared with the drift report) rewrites what differs between runs and targets:
generated ids, timestamps and token counts become numbered placeholders.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from contract_tests.conformance import UNRECORDED
from fake_honcho.drift.normalise import Normaliser, normalise

__all__ = ["HonchoJSONExtension", "HonchoSnapshot", "Normaliser", "normalise"]


class HonchoJSONExtension(JSONSnapshotExtension):
    """syrupy's single-file JSON extension with :func:`normalise` applied first.

    One file per snapshot avoids the multi-entry ``.ambr`` read-modify-write race
    under ``pytest -n auto --snapshot-update``. It must stay importable by name:
    xdist workers report their extensions to the controller by qualified name.
    """

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        return super().serialize(normalise(data), **kwargs)


class HonchoSnapshot:
    """What the ``honcho_snapshot`` fixture returns: ``assert honcho_snapshot == data``.

    Normalises ``data`` with the test's run-specific ids as literals, then
    compares with a syrupy assertion using :class:`HonchoJSONExtension`.
    """

    def __init__(self, assertion: SnapshotAssertion, literals: Iterable[str]) -> None:
        self.assertion = assertion
        self.literals = tuple(literals)

    def __eq__(self, other: object) -> bool:
        return bool(self.assertion == normalise(other, literals=self.literals))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"HonchoSnapshot({self.assertion.name})"

    def diff_lines(self) -> list[str]:
        """syrupy's diff for the last failed comparison (used by the plugin's assertrepr)."""
        return list(self.assertion.get_assert_diff())

    def location(self) -> Path:
        """The file this snapshot is stored in (next to the consumer's test module)."""
        assertion = self.assertion
        return Path(
            assertion.extension.get_location(
                test_location=assertion.test_location, index=assertion.index
            )
        )

    def skip_if_unrecorded(self) -> None:
        """Skip, saying how to record it, when this backend's snapshot does not exist yet.

        A backend's request snapshot is the consumer's to record (it pins *their*
        backend), so a first run cannot compare it; failing there would make adoption
        fail on its first run, and silently writing it would pin whatever the backend
        does today without anyone looking. ``--snapshot-update`` records it.
        """
        assertion = self.assertion
        if assertion.update_snapshots or self.location().exists():
            return
        path = self.location()
        try:
            shown = path.relative_to(Path.cwd())
        except ValueError:
            shown = path
        test = assertion.test_location.testname
        pytest.skip(
            f"{UNRECORDED} {shown}: run `pytest --snapshot-update -k {test}` once, "
            "review the file and commit it"
        )
