"""`FakeHoncho`: one in-process Honcho v3 server (temporary skeleton)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from starlette.types import ASGIApp

from fake_honcho.deriver import Deriver, DeriverMode
from fake_honcho.ids import IdFactory, utc_now
from fake_honcho.state import Store


class FakeHoncho:
    def __init__(
        self,
        *,
        api_key: str | None = None,
        deriver: DeriverMode = "immediate",
        strict: bool = False,
        validate: bool = True,
        seed: int | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        from fake_honcho.app import build_app

        self.api_key = api_key
        self.strict = strict
        self.validate = validate
        self.clock = clock
        self.new_id = IdFactory(seed)
        self.store = Store()
        self.deriver = Deriver(self.store, deriver)
        self.app: ASGIApp = build_app(self)
