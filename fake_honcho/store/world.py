"""What the store's rules need of the fake: :class:`World`, a small protocol.

``FakeHoncho`` satisfies it; the store never imports the fake, so its rules can be read
(and tested) without the HTTP and harness layers above them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from fake_honcho.errors import RealBugs
from fake_honcho.store.ids import IdFactory
from fake_honcho.store.state import Row, Store
from fake_honcho.versions import HonchoVersion

__all__ = ["World"]


class World(Protocol):
    """The state, the version it follows, and how it stamps and names new rows."""

    store: Store
    version: HonchoVersion
    clock: Callable[[], datetime]
    new_id: IdFactory
    real_bugs: RealBugs
    #: 3.1's cached rows of workspaces never stored, with when each expires
    #: (``resources.cached_only``)
    workspace_cache: dict[str, tuple[datetime, Row]]
