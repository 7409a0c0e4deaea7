"""`FakeHoncho`: one in-process Honcho v3 server and the ways to reach it.

``fake.app`` is the core Starlette app wrapped, outermost first, in (``RequestStack``: a
request none of 2-4 applies to goes from the journal straight to its route):

1. the request journal (``fake.requests``), so it sees every request and its final status;
2. fault injection (``fake.faults``), so faulted requests are journaled with their fault;
3. CORS (``cors_origins``), answering preflights before auth, as Honcho's middleware does;
4. auth (only when ``jwt_secret`` or ``api_key`` is set), so a 401 is journaled and faults
   still apply;
5. the core app (routes, validation, errors), which reaches this object through
   ``request.app.state.fake``.

The same app can be driven at once by ``transport()``, ``async_transport()`` and
``serve()``: all state sits in ``fake.store`` behind one ``threading.RLock``.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from types import TracebackType

from starlette.applications import Starlette
from starlette.types import ASGIApp

from fake_honcho.deriver import BatchGate, Deriver, DeriverMode
from fake_honcho.errors import REAL_BUGS, RealBugs
from fake_honcho.harness.faults import Faults, with_connection_drop
from fake_honcho.harness.journal import Journal
from fake_honcho.harness.persistence import StateFile
from fake_honcho.harness.stack import RequestStack
from fake_honcho.http.app import HonchoApp, build_app
from fake_honcho.http.auth import AuthMiddleware
from fake_honcho.http.http_rules import DEFAULT_CORS_ORIGINS
from fake_honcho.http.ignored import MODES, IgnoredFieldsMode
from fake_honcho.http.keyring import JwtKeyring, Keyring, OpaqueKeyring, iso_utc
from fake_honcho.http.permissions import Rule
from fake_honcho.http.schemas import schemas_for
from fake_honcho.http.server import serve_in_thread
from fake_honcho.http.transport import AsyncASGITransport, SyncASGITransport
from fake_honcho.routes import collect_routes
from fake_honcho.search.embedding import ENCODING as EMBEDDING_ENCODING
from fake_honcho.search.embedding import Embedder, VectorFunction
from fake_honcho.search.embedding import resolve as resolve_embedder
from fake_honcho.search.semantic import EmbeddingMode, MessageEmbeddings, Nearness
from fake_honcho.store import tokens
from fake_honcho.store.ids import IdFactory, utc_now
from fake_honcho.store.state import Row, Store
from fake_honcho.versions import HonchoVersion, resolve_version

__all__ = ["REAL_BUGS", "FakeHoncho", "RealBugs"]


class FakeHoncho:
    """A faithful in-process Honcho v3 server.

    ``version`` picks the Honcho server version it speaks (``"3.0.12"``, ``"3.1"``,
    ``"3.2"``; default :data:`fake_honcho.versions.DEFAULT_VERSION`): its routes, its
    request and response fields and its behaviours (see ``fake_honcho.versions``).
    ``jwt_secret`` (Honcho's ``AUTH_JWT_SECRET``) turns auth on as Honcho runs it: HS256
    JWTs with Honcho's claims, each route's permission rule, ``POST /v3/keys`` minting
    JWTs a real server with the same secret accepts (``fake.admin_key`` is the admin
    JWT). ``api_key`` turns on the simple mode instead: that one opaque string is the
    admin key, and minted keys are opaque (their scopes are enforced the same way).
    ``rule_overrides`` replaces routes' permission rules (``{"GET /v3/...": Rule}``,
    ``fake_honcho.http.permissions``): a mutant for testing a security test suite.
    ``deriver`` is ``"immediate"``, ``"manual"``, ``"background"`` or
    ``"gated"`` (as a real server: see ``fake_honcho.deriver``); ``deriver_gate`` holds
    representation work as the real server's batching settings do (``gated`` reads them
    from the environment when it is not given);
    ``strict`` validates every response against ``schemas/``; ``validate=False``
    skips request validation (benchmarks only); ``seed`` makes generated ids
    reproducible; ``clock`` supplies timestamps. ``state_file`` keeps the state in
    an append-only file across restarts (see ``fake_honcho.harness.persistence``);
    ``journal_limit`` keeps only that many recent requests in ``fake.requests``.
    ``ignored_fields`` says what a request field this version silently drops (one a
    later version reads, such as ``scope`` before 3.1) gets: ``"warn"`` (once per route
    and field), ``"error"`` (a 422) or ``"allow"``; each is journaled either way
    (``fake_honcho.http.ignored``).
    ``cors_origins`` are the browser origins allowed (Honcho's ``CORS_ORIGINS``; default
    its default, :data:`fake_honcho.http.http_rules.DEFAULT_CORS_ORIGINS`; ``["*"]`` for any).
    ``real_bugs`` says what a request the real server of this version gets wrong gets (the
    register's reproduced ``real-bug`` entries: unhandled 500s, deletions left to the
    deriver, ...): ``"reproduce"`` the real answer, or ``"correct"`` what a fixed server
    sends (a 4xx with the state unchanged, a deletion at once).
    ``embed_messages`` is Honcho's ``EMBED_MESSAGES`` (on by default, as there): message
    search is then hybrid, full text fused with the messages nearest by ``embedder``
    (default: :class:`fake_honcho.search.embedding.HashedEmbedder`, the stand-in LLM's too; or
    a function from a text to its vector); ``embedding_mode`` ``"held"`` keeps new
    messages out of the semantic leg until ``fake.embeddings.release()``
    (``fake_honcho.search.semantic``).
    """

    def __init__(
        self,
        *,
        version: str | HonchoVersion | None = None,
        api_key: str | None = None,
        jwt_secret: str | None = None,
        rule_overrides: Mapping[str, Rule] | None = None,
        deriver: DeriverMode = "immediate",
        deriver_gate: BatchGate | None = None,
        strict: bool = False,
        validate: bool = True,
        seed: int | None = None,
        clock: Callable[[], datetime] = utc_now,
        state_file: str | os.PathLike[str] | None = None,
        journal_limit: int | None = None,
        ignored_fields: IgnoredFieldsMode = "warn",
        cors_origins: Sequence[str] = DEFAULT_CORS_ORIGINS,
        real_bugs: RealBugs = "reproduce",
        embed_messages: bool = True,
        embedder: Embedder | VectorFunction | str | None = None,
        embedding_mode: EmbeddingMode = "immediate",
    ) -> None:
        self.version = resolve_version(version)
        if ignored_fields not in MODES:
            raise ValueError(f"ignored_fields must be one of {', '.join(MODES)}")
        self.ignored_fields: IgnoredFieldsMode = ignored_fields
        if real_bugs not in REAL_BUGS:
            raise ValueError(f"real_bugs must be one of {', '.join(REAL_BUGS)}")
        self.real_bugs: RealBugs = real_bugs
        if isinstance(cors_origins, str):
            raise TypeError("cors_origins is a list of origins, not one string")
        self.cors_origins = tuple(cors_origins)
        self._warned: set[tuple[str, ...]] = set()
        self._warned_lock = threading.Lock()
        self.schemas = schemas_for(self.version.schema_layers)
        self.api_key = api_key
        self.strict = strict
        self.validate = validate
        self.seed = seed
        self.clock = clock
        self.new_id = IdFactory(seed)
        self.store = Store()
        #: 3.1's cached rows of workspaces never stored (``resources.cached_only``)
        self.workspace_cache: dict[str, tuple[datetime, Row]] = {}
        self.requests = Journal(journal_limit)
        self.faults = Faults()
        if api_key is not None and jwt_secret is not None:
            raise ValueError("give api_key (the simple mode) or jwt_secret, not both")
        self.keyring: Keyring | None = (
            JwtKeyring(jwt_secret, reproduce_bugs=real_bugs == "reproduce")
            if jwt_secret is not None
            else OpaqueKeyring(api_key, self.store)
            if api_key is not None
            else None
        )
        self.rule_overrides = dict(rule_overrides or {})
        self.embedder: Embedder = resolve_embedder(embedder)
        self.nearness = Nearness(self.embedder)  # conclusions are embedded whatever the setting
        self.deriver = Deriver(
            self.store, deriver, clock=clock, gate=deriver_gate, nearness=self.nearness
        )
        self.embeddings: MessageEmbeddings | None = (
            MessageEmbeddings(self.store, self.embedder, embedding_mode) if embed_messages else None
        )
        core = build_app(self, collect_routes(self.version))
        self.core_app: Starlette = core
        tokens.load()
        if embed_messages:
            tokens.load(EMBEDDING_ENCODING)  # so the first search does not pay for it
        self.app: ASGIApp = self._stack(core)
        # Over a real socket, a "drop" fault can close the connection itself.
        self.server_app: ASGIApp = with_connection_drop(self.app)
        self._transports: weakref.WeakSet[SyncASGITransport] = weakref.WeakSet()
        self._close_lock = threading.Lock()
        self._closed = False
        # Replayed last, so the core's indexes (store listeners) see every restored row.
        self.state_file: StateFile | None = None
        if state_file is not None:
            try:
                self.state_file = StateFile(state_file, self.store)
            except BaseException:
                self.deriver.close()
                raise
            self.deriver.wake()  # replayed work still queued

    def _stack(self, core: HonchoApp) -> ASGIApp:
        auth = None
        if self.keyring is not None:
            auth = AuthMiddleware(
                core, self.keyring, core.router, self.store, overrides=self.rule_overrides
            )
        return RequestStack(core, self.requests, self.faults, self.cors_origins, auth)

    def warned_once(self, key: tuple[str, ...]) -> bool:
        """True the first time ``key`` (route and field) is seen since the last reset."""
        with self._warned_lock:
            if key in self._warned:
                return False
            self._warned.add(key)
            return True

    @property
    def auth_enabled(self) -> bool:
        return self.keyring is not None

    @property
    def admin_key(self) -> str:
        """The admin key: the JWT ``{"t": "", "ad": true}`` signed with ``jwt_secret``, or
        ``api_key``; needs auth on."""
        return self._keyring().admin_key

    def issue_key(
        self,
        *,
        workspace_id: str | None = None,
        peer_id: str | None = None,
        session_id: str | None = None,
        expires_at: datetime | None = None,
    ) -> str:
        """A key as ``POST /v3/keys`` mints it (without its 422 checks); needs auth on.

        As on a real Honcho, a key with ``expires_at`` is refused as ``Invalid JWT``.
        """
        scope = {"workspace_id": workspace_id, "peer_id": peer_id, "session_id": session_id}
        return self._keyring().issue(
            {name: value for name, value in scope.items() if value is not None},
            expires_at=iso_utc(expires_at) if expires_at is not None else None,
            now=self.clock(),
        )

    def _keyring(self) -> Keyring:
        if self.keyring is None:
            raise RuntimeError("auth is off: give FakeHoncho a jwt_secret or an api_key")
        return self.keyring

    def transport(self, *, raise_app_exceptions: bool = True) -> SyncASGITransport:
        """An ``httpx.BaseTransport`` for ``httpx.Client(transport=...)``; buffers responses."""
        transport = SyncASGITransport(self.app, raise_app_exceptions=raise_app_exceptions)
        self._transports.add(transport)
        return transport

    def async_transport(self, *, raise_app_exceptions: bool = True) -> AsyncASGITransport:
        """An ``httpx.AsyncBaseTransport`` running the app on the caller's loop; buffered."""
        return AsyncASGITransport(self.app, raise_app_exceptions=raise_app_exceptions)

    @contextmanager
    def serve(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serve over HTTP with uvicorn in a thread; yields the base URL. Responses stream."""
        with serve_in_thread(self.server_app, host, port) as base_url:
            yield base_url

    def reset(self) -> None:
        """Forget everything: state, issued keys, journal, fault rules and deriver queue."""
        with self.store.lock:
            self.deriver.reset()
            self.store.clear()
            self.workspace_cache.clear()
            self.new_id = IdFactory(self.seed)
        self.requests.clear()
        self.faults.clear()
        self._warned.clear()

    def close(self) -> None:
        """Stop the deriver and transports' loop threads, and compact the state file."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self.deriver.close()
        for transport in list(self._transports):
            transport.close()
        if self.state_file is not None:
            self.state_file.close()

    def __enter__(self) -> FakeHoncho:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        auth = "on" if self.keyring is not None else "off"
        embed = "on" if self.embeddings is not None else "off"
        return (
            f"<FakeHoncho version={self.version.name} auth={auth} embed_messages={embed} "
            f"deriver={self.deriver.mode!r} requests={len(self.requests)}>"
        )
