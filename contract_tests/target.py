"""The Honcho server a test run talks to: the in-process fake or a real server."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import SecretStr

if TYPE_CHECKING:
    from fake_honcho import FakeHoncho

__all__ = ["HonchoTarget", "ServedFake"]

TransportWrapper = Callable[[httpx.BaseTransport], httpx.BaseTransport]


@dataclass(frozen=True)
class ServedFake:
    """What a served ``fake-honcho`` says it is (``GET /_fake/about``)."""

    version: str
    honcho_version: str

    def __str__(self) -> str:
        return f"fake-honcho {self.version} speaking Honcho {self.honcho_version}"


class HonchoTarget:
    """Where the suites send requests, and how.

    ``base_url`` is the server root (no ``/v3``); ``client()`` builds an
    ``httpx.Client`` bound to it (Bearer auth when a key is configured);
    ``is_fake`` says whether ``fake`` holds the in-process :class:`FakeHoncho`,
    whose controls (deriver, faults, journal) only exist there; ``served_fake`` says
    what a server at ``base_url`` is when it is a served fake-honcho, and ``is_real``
    whether the target is neither.

    The api key is kept out of ``repr`` and every message this class produces.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        fake: FakeHoncho | None = None,
        served_fake: ServedFake | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.fake = fake
        self.served_fake = served_fake
        self.timeout = timeout
        self.__api_key = api_key or None

    @property
    def is_fake(self) -> bool:
        return self.fake is not None

    @property
    def is_real(self) -> bool:
        """A Honcho server: neither the in-process fake nor a served one."""
        return self.fake is None and self.served_fake is None

    @property
    def api_key(self) -> SecretStr | None:
        """The key for a backend under test; ``.get_secret_value()`` reveals it, nothing else
        does (not even an assertion that fails on it)."""
        return SecretStr(self.__api_key) if self.__api_key else None

    def __repr__(self) -> str:
        kind = "fake" if self.is_fake else "served fake" if self.served_fake else "real"
        auth = ", api_key=***" if self.__api_key else ""
        return f"HonchoTarget({kind}, base_url={self.base_url!r}{auth})"

    def transport(self) -> httpx.BaseTransport:
        """A fresh sync transport that reaches the target (in-process for the fake)."""
        if self.fake is not None:
            return self.fake.transport()
        return httpx.HTTPTransport()

    def async_transport(self) -> httpx.AsyncBaseTransport:
        """A fresh async transport that reaches the target."""
        if self.fake is not None:
            return self.fake.async_transport()
        return httpx.AsyncHTTPTransport()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.__api_key}"} if self.__api_key else {}

    def client(self, *, wrap: TransportWrapper | None = None, **kwargs: Any) -> httpx.Client:
        """An ``httpx.Client`` bound to the target; ``wrap`` decorates its transport."""
        transport = self.transport()
        if wrap is not None:
            transport = wrap(transport)
        kwargs.setdefault("timeout", self.timeout)
        headers = {**self.headers(), **kwargs.pop("headers", {})}
        return httpx.Client(base_url=self.base_url, transport=transport, headers=headers, **kwargs)

    def async_client(self, **kwargs: Any) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` bound to the target."""
        kwargs.setdefault("timeout", self.timeout)
        headers = {**self.headers(), **kwargs.pop("headers", {})}
        return httpx.AsyncClient(
            base_url=self.base_url, transport=self.async_transport(), headers=headers, **kwargs
        )
