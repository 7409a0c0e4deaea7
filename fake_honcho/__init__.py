"""An in-process fake of the Honcho v3 REST API.

``FakeHoncho`` is imported on first use, so the package's small entry modules
(``fake_honcho._launch``, ``fake_honcho._extras``) load without the ``fake`` extra,
and a core-only install asking for it gets one ``ImportError`` naming the extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

__all__ = ["FakeHoncho"]


def __getattr__(name: str) -> Any:
    if name == "FakeHoncho":
        from fake_honcho._extras import FAKE, require

        require("fake_honcho", "fake", FAKE)
        from fake_honcho.fake import FakeHoncho

        return FakeHoncho
    raise AttributeError(f"module 'fake_honcho' has no attribute {name!r}")
