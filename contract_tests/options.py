"""The plugin's command-line options, registered whether or not its extra is installed.

``contract_tests._entry`` loads this module in every pytest run of a project the kit is
installed in, so ``pytest --help`` lists the options and ``pytest --honcho-url URL``
without the ``contract`` extra is one line naming the extra (from ``_entry``), not
argparse's "unrecognized arguments". It imports nothing but pytest.

An option's value is checked here, in ``pytest_configure``, not by argparse (``choices``,
``type``): pytest prints a bad argparse value after its whole usage, a check here is one
``ERROR:`` line naming the option and the values it takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

_DEFAULTS: dict[str, object] = {}
"""Each option's flag -> its default, as registered (what :func:`given` compares with)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("honcho", "Honcho contract suites")
    add = _recording(group)
    add(
        "--honcho-url",
        default=None,
        metavar="URL",
        help="Run the Honcho contract suites against the server at URL "
        "(default: an in-process fake per test).",
    )
    add(
        "--honcho-version",
        default=None,
        metavar="VERSION",
        help="The Honcho server version the in-process fake speaks (3.0.12, 3.1, 3.2; "
        "default: the newest verified one). Ignored with --honcho-url, whose version is "
        "probed.",
    )
    add(
        "--honcho-embed-messages",
        default="on",
        metavar="on|off",
        help="Whether the in-process fake embeds messages, as Honcho's EMBED_MESSAGES "
        "(default: on, Honcho's default). Ignored with --honcho-url, whose setting is probed.",
    )
    add(
        "--honcho-api-key",
        default=None,
        metavar="KEY",
        help="Bearer key for --honcho-url (default: the HONCHO_API_KEY environment variable).",
    )
    add(
        "--honcho-jwt-secret",
        default=None,
        metavar="SECRET",
        help="Run the in-process fake with auth on, verifying HS256 JWTs signed with SECRET "
        "as Honcho with AUTH_JWT_SECRET does; its admin JWT is the target's key (default: "
        "the HONCHO_JWT_SECRET environment variable, which keeps it out of the process list).",
    )
    add(
        "--honcho-llm",
        action="store_true",
        default=False,
        help="Also run tests marked honcho_llm against a real server (needs an LLM deriver).",
    )
    add(
        "--honcho-update-reference",
        action="store_true",
        default=False,
        help="Re-record the reference snapshots shipped in contract_tests/snapshots from the "
        "real server at --honcho-url (kit maintainers only; --snapshot-update never does).",
    )
    add(
        "--honcho-conformance-json",
        default=None,
        metavar="PATH",
        help="Write the conformance report of every MemoryManagerContract backend of the run "
        "(each clause: pass, fail, not declared, not judged; and a level) as JSON to PATH.",
    )
    add(
        "--honcho-settle-timeout",
        default=60.0,
        metavar="SECONDS",
        help="How long honcho_settle polls a real server's queue status (default: 60).",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Each option's value, checked: one line naming what to give instead."""
    embed = config.getoption("honcho_embed_messages")
    if embed not in ("on", "off"):
        raise pytest.UsageError(f"--honcho-embed-messages takes on or off, not {embed!r}")
    timeout = config.getoption("honcho_settle_timeout")
    try:
        seconds = float(timeout)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise pytest.UsageError(
            f"--honcho-settle-timeout takes a number of seconds above 0, not {timeout!r}"
        )
    config.option.honcho_settle_timeout = seconds


def _recording(group: pytest.OptionGroup) -> Callable[..., None]:
    def add(flag: str, **options: Any) -> None:
        group.addoption(flag, **options)
        _DEFAULTS[flag] = options.get("default")

    return add


def given(config: pytest.Config) -> list[str]:
    """The flags of the options the run set (on the command line or in addopts)."""
    return [
        flag
        for flag, default in _DEFAULTS.items()
        if config.getoption(flag.lstrip("-").replace("-", "_")) != default
    ]
