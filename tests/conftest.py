"""Shared fixtures for the project's own tests.

The contract-kit fixtures (``honcho_target``, ``honcho_workspace``, ``honcho_settle``,
``honcho_snapshot``) come from the ``honcho_contract`` plugin, loaded through its
``pytest11`` entry point like in any consumer project.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from fake_honcho import FakeHoncho


def pytest_configure(config: pytest.Config) -> None:
    """No per-example deadline for hypothesis: a test asserts behaviour, never speed (that is
    bench/'s job), and a loaded CI core makes a 200 ms deadline fail examples that pass.

    pytest loads this file in any run from the repository root (``testpaths``), so also
    when a user runs the packaged suites from a clone with the ``contract`` extra alone
    (``pytest --pyargs contract_tests.suites.api``): the kit's own tooling stays optional
    here, and is imported only where it is installed.
    """
    if importlib.util.find_spec("hypothesis") is None:
        return
    from hypothesis import settings

    settings.register_profile("honcho-contract-kit", deadline=None)
    settings.load_profile("honcho-contract-kit")


SERVED_API_KEY = "sk-served-fake-0123456789"


@dataclass(frozen=True)
class ServedFake:
    """A FakeHoncho served over HTTP on 127.0.0.1 (a stand-in for a real server)."""

    fake: FakeHoncho
    url: str
    api_key: str


@pytest.fixture
def served_fake() -> Iterator[ServedFake]:
    """A fake with auth on, behind uvicorn on a free port, for ``--honcho-url`` runs."""
    with FakeHoncho(api_key=SERVED_API_KEY) as fake, fake.serve() as url:
        yield ServedFake(fake, url, SERVED_API_KEY)
