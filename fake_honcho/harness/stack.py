"""The fake's request stack: the journal, then fault rules, CORS and auth, then the routes.

Each rule is its own middleware (``JournalMiddleware``, ``FaultMiddleware``,
``CORSMiddleware``, ``AuthMiddleware``), and a request one of them applies to goes
through all of them in that order. Most requests meet none: no fault rule is armed,
they carry no ``Origin``, and auth is off. :class:`RequestStack` journals such a request
and hands it straight to its route (``HonchoApp.serve_matched``), so a rule that does not
apply costs a request one check, not a layer of coroutines. The answer is the same
either way, byte for byte, the 500 of an unhandled error included.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.harness.faults import FaultMiddleware, Faults
from fake_honcho.harness.journal import Journal, JournalMiddleware, journaled, recording
from fake_honcho.http.app import HonchoApp
from fake_honcho.http.http_rules import CORSMiddleware, header

__all__ = ["RequestStack"]


class RequestStack:
    """The outermost app of a fake: journal → faults → CORS → ``auth`` (if given) → ``core``,
    with a direct path for the requests none of the middle layers apply to."""

    def __init__(
        self,
        core: HonchoApp,
        journal: Journal,
        faults: Faults,
        cors_origins: Sequence[str],
        auth: ASGIApp | None = None,
    ) -> None:
        inner: ASGIApp = core if auth is None else auth
        self.layered: ASGIApp = JournalMiddleware(
            FaultMiddleware(CORSMiddleware(inner, cors_origins), faults), journal
        )
        self.core = core
        self.journal = journal
        self.faults = faults
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.faults.armed or header(scope, b"origin") is not None:
            await self.layered(scope, receive, send)
            return
        if self.auth is not None:
            await journaled(self.journal, self.auth, scope, receive, send)
            return
        core = self.core
        found = core.match(scope)
        if found is None:  # a 404, 405 or redirect: Starlette's own answer
            await journaled(self.journal, core, scope, receive, send)
            return
        request = await recording(self.journal, scope, receive, send)
        try:
            await core.serve_matched(found, scope, request.receive, request.send)
        except Exception as error:
            if request.status is not None:  # answered already: only re-raised
                raise
            await core.answer_unhandled(error, scope, request.receive, request.send)
        finally:
            request.record()
