"""Every mistake a user can make on a command line is one line saying what to do.

Run as a user runs them (console scripts, ``python -m``, ``pytest`` with the plugin's
options), each bad input prints exactly one line on stderr and nothing on stdout, and
``--help`` still lists every option.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from fake_honcho.cli import build_parser as serve_parser
from fake_honcho.drift.cli import build_parser as compare_parser
from fake_honcho.standin.cli import build_parser as llm_parser

BIN = Path(sys.executable).parent
HELP = "lists the options)"

CASES = [
    (
        ["fake-honcho", "--port", "notaport"],
        "fake-honcho: error: argument --port: must be an integer 0..65535, got 'notaport'",
    ),
    (
        ["fake-honcho", "--honcho-version", "9.9"],
        "fake-honcho: error: argument --honcho-version: unknown Honcho version '9.9'; "
        "the fake speaks 3.0.12, 3.1, 3.2",
    ),
    (
        ["fake-honcho", "--fault", "POST /v3/** explode"],
        "fake-honcho: error: argument --fault:",
    ),
    (["fake-honcho", "--no-such-option"], "fake-honcho: error: unrecognized arguments"),
    (
        ["fake-honcho", "--embedder", "no_such_module:embed"],
        "fake-honcho: error: argument --embedder: No module named 'no_such_module' "
        "(give MODULE:CALLABLE",
    ),
    (
        ["fake-honcho-llm", "--embedder", "json:no_such_function"],
        "fake-honcho-llm: error: argument --embedder: module 'json' has no attribute",
    ),
    (
        ["fake-honcho-llm", "--port", "x"],
        "fake-honcho-llm: error: argument --port: must be an integer 0..65535, got 'x'",
    ),
    (
        ["fake-honcho", "compare"],
        "fake-honcho compare: error: the following arguments are required: --against",
    ),
    (
        [sys.executable, "-m", "fake_honcho.drift", "--against", "http://x", "--timeout", "0"],
        "fake-honcho compare: error: argument --timeout: must be a number of seconds > 0",
    ),
]


def _command(argv: list[str]) -> list[str]:
    return [str(BIN / argv[0]), *argv[1:]] if not Path(argv[0]).is_absolute() else argv


@pytest.mark.parametrize(("argv", "starts"), CASES, ids=lambda value: str(value)[:40])
def test_a_bad_option_is_one_line(argv: list[str], starts: str) -> None:
    done = subprocess.run(_command(argv), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(starts), done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.endswith(f"{HELP}\n"), done.stderr


@pytest.mark.parametrize(
    ("options", "line"),
    [
        (["--honcho-embed-messages", "maybe"], "--honcho-embed-messages takes on or off"),
        (["--honcho-settle-timeout", "soon"], "--honcho-settle-timeout takes a number of"),
        (["--honcho-version", "9.9"], "--honcho-version: unknown Honcho version '9.9'"),
        (["--honcho-url", "localhost:8000"], "--honcho-url localhost:8000 is not an http(s) URL"),
    ],
)
def test_a_bad_plugin_option_is_one_line(
    options: list[str], line: str, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    printed = [text for text in result.errlines if text.strip()]
    assert len(printed) == 1 and printed[0].startswith(f"ERROR: {line}"), result.errlines


def test_a_good_settle_timeout_reaches_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "def test_it(pytestconfig):\n"
        "    assert pytestconfig.getoption('honcho_settle_timeout') == 2.5\n"
    )
    pytester.runpytest_subprocess("--honcho-settle-timeout", "2.5").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("prog", "parser"),
    [("fake-honcho", serve_parser()), ("fake-honcho-llm", llm_parser())],
)
def test_help_still_lists_every_option_with_its_help(
    prog: str, parser: argparse.ArgumentParser
) -> None:
    done = subprocess.run([str(BIN / prog), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith(f"usage: {prog} ")
    for action in parser._actions:
        for flag in action.option_strings:
            assert flag in done.stdout, flag
        assert action.help, f"{action.option_strings} has no help"


def test_compare_help_lists_every_option() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fake_honcho.drift", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    for action in compare_parser()._actions:
        for flag in action.option_strings:
            assert flag in done.stdout, flag
