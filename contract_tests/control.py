"""Drive a fake Honcho from a test the same way in-process and over HTTP.

:class:`FakeControl` is the interface: step or drain the deriver, reset, export and
load a seed state, read and clear the request journal, add and clear fault rules.
:class:`InProcessControl` drives a :class:`~fake_honcho.FakeHoncho` directly;
:class:`HttpControl` drives a served ``fake-honcho`` through its ``/_fake/...``
routes. Both answer from the same functions (``fake_honcho.harness.control``), so a test
written against one runs unchanged against the other::

    def check(honcho: httpx.Client, control: FakeControl) -> None:
        control.reset()
        honcho.post("/v3/workspaces", json={"id": "ws"})
        control.drain(timeout=5)
        assert [r.path for r in control.journal()] == ["/v3/workspaces"]

:func:`control_for` picks the implementation for a ``HonchoTarget``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from contract_tests.target import HonchoTarget
    from fake_honcho import FakeHoncho

__all__ = [
    "DeriverStatus",
    "DeriverTimeout",
    "FakeControl",
    "HttpControl",
    "InProcessControl",
    "JournalRecord",
    "control_for",
]

DEFAULT_TIMEOUT = 30.0
DRAIN_ANSWER_GRACE = 10.0  # seconds a drain answer may take beyond its own timeout


class DeriverTimeout(TimeoutError):
    """``drain`` ran out of time with work still queued; ``queued`` says how much."""

    def __init__(self, detail: str, queued: int) -> None:
        super().__init__(detail)
        self.queued = queued


@dataclass(frozen=True)
class DeriverStatus:
    mode: str
    queued: int
    failed: int


@dataclass(frozen=True)
class JournalRecord:
    """One request the fake received (control requests are left out)."""

    method: str
    path: str
    query: dict[str, str | list[str]]
    json: Any
    status: int | None
    fault: str | None
    #: Fields the fake's Honcho version dropped (``body.scope``): see ``fake_honcho.http.ignored``.
    ignored: tuple[str, ...] = ()
    #: The client's ``X-Honcho-Host`` header.
    honcho_host: str | None = None


class FakeControl(ABC):
    """The controls of one fake Honcho, however it is reached."""

    @abstractmethod
    def deriver_status(self) -> DeriverStatus:
        """The deriver's mode, and its queued and failed unit counts."""

    @abstractmethod
    def step(self, count: int = 1) -> int:
        """Run up to ``count`` queued deriver units, oldest first; how many ran."""

    @abstractmethod
    def drain(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Run the deriver until idle; how many units ran. :class:`DeriverTimeout` if not."""

    @abstractmethod
    def reset(self) -> None:
        """Forget all state, issued keys, the journal and fault rules."""

    @abstractmethod
    def export_state(self) -> bytes:
        """The fake's state as a state file (``--state-file`` format): a seed to load later."""

    @abstractmethod
    def load_state(self, state: bytes) -> int:
        """Reset, then load ``state`` (from :meth:`export_state` or a state file); row count."""

    @abstractmethod
    def journal(self) -> list[JournalRecord]:
        """The requests received since the last reset or clear, oldest first."""

    @abstractmethod
    def clear_journal(self) -> int:
        """Forget the journal; how many entries it held."""

    @abstractmethod
    def add_fault(self, spec: str) -> str:
        """Install a fault rule (``fake_honcho.harness.faults.parse_rule`` syntax); its id."""

    @abstractmethod
    def clear_faults(self) -> int:
        """Remove every fault rule; how many there were."""


def _drained(result: dict[str, Any]) -> int:
    if not result["idle"]:
        raise DeriverTimeout(result["detail"], result["queued"])
    return int(result["ran"])


def _records(entries: list[dict[str, Any]]) -> list[JournalRecord]:
    return [
        JournalRecord(**{**entry, "ignored": tuple(entry.get("ignored", ()))}) for entry in entries
    ]


class InProcessControl(FakeControl):
    """Controls an in-process :class:`~fake_honcho.FakeHoncho` by calling it."""

    def __init__(self, fake: FakeHoncho) -> None:
        from fake_honcho.harness import control

        self.fake = fake
        self._control = control

    def deriver_status(self) -> DeriverStatus:
        return DeriverStatus(**self._control.deriver_status(self.fake))

    def step(self, count: int = 1) -> int:
        return int(self._control.step(self.fake, count)["ran"])

    def drain(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        return _drained(self._control.drain(self.fake, timeout))

    def reset(self) -> None:
        self.fake.reset()

    def export_state(self) -> bytes:
        return self._control.export_state(self.fake)

    def load_state(self, state: bytes) -> int:
        from fake_honcho.harness.persistence import StateFileError

        try:
            return int(self._control.load_state(self.fake, state)["rows"])
        except StateFileError as error:
            raise ValueError(str(error)) from None

    def journal(self) -> list[JournalRecord]:
        return _records(self._control.journal(self.fake))

    def clear_journal(self) -> int:
        return int(self._control.clear_journal(self.fake)["removed"])

    def add_fault(self, spec: str) -> str:
        return self.fake.faults.add(spec).id

    def clear_faults(self) -> int:
        return self.fake.faults.clear()

    def __repr__(self) -> str:
        return f"InProcessControl({self.fake!r})"


class HttpControl(FakeControl):
    """Controls a served ``fake-honcho`` through its ``/_fake/...`` routes.

    ``client`` is an ``httpx.Client`` bound to the fake's base URL, with the
    ``Authorization`` header when the fake has an api key (``HonchoTarget.client()``
    builds one); :meth:`connect` builds one from a URL. Errors the fake answers
    (a bad seed, a bad rule) raise ``ValueError`` with its ``detail``.
    """

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    @classmethod
    def connect(
        cls, base_url: str, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> HttpControl:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        return cls(httpx.Client(base_url=base_url, headers=headers, timeout=timeout))

    def _send(self, method: str, path: str, *, ok: int = 200, **kwargs: Any) -> httpx.Response:
        response = self.client.request(method, path, **kwargs)
        if response.status_code != ok:
            if response.status_code == 422:
                raise ValueError(response.json()["detail"])
            response.raise_for_status()
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._send(method, path, **kwargs).json()

    def deriver_status(self) -> DeriverStatus:
        return DeriverStatus(**self._json("GET", "/_fake/deriver"))

    def step(self, count: int = 1) -> int:
        return int(self._json("POST", "/_fake/deriver/step", json={"count": count})["ran"])

    def drain(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        response = self.client.post(
            "/_fake/deriver/drain",
            json={"timeout": timeout},
            timeout=timeout + DRAIN_ANSWER_GRACE,  # the fake answers when its timeout ends
        )
        if response.status_code == 422:
            raise ValueError(response.json()["detail"])
        if response.status_code != 408:
            response.raise_for_status()
        return _drained(response.json())

    def reset(self) -> None:
        self._send("POST", "/_fake/reset", ok=204)

    def export_state(self) -> bytes:
        return self._send("GET", "/_fake/state").content

    def load_state(self, state: bytes) -> int:
        return int(self._json("PUT", "/_fake/state", content=state)["rows"])

    def journal(self) -> list[JournalRecord]:
        return _records(self._json("GET", "/_fake/journal")["requests"])

    def clear_journal(self) -> int:
        return int(self._json("DELETE", "/_fake/journal")["removed"])

    def add_fault(self, spec: str) -> str:
        return str(self._json("POST", "/_fake/faults", json={"spec": spec}, ok=201)["id"])

    def clear_faults(self) -> int:
        return int(self._json("DELETE", "/_fake/faults")["removed"])

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> HttpControl:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"HttpControl({str(self.client.base_url)!r})"


def control_for(target: HonchoTarget) -> FakeControl:
    """The controls of the fake ``target`` reaches: in-process, or over HTTP for a served one.

    A real Honcho has no ``/_fake/`` routes: calls then fail with a 404.
    """
    if target.fake is not None:
        return InProcessControl(target.fake)
    return HttpControl(target.client())
