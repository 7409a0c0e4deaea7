"""pytest plugin entry point (registered as ``honcho_contract`` via ``pytest11``).

Installing the distribution is enough: the options, markers and fixtures below
are available in every pytest run, and nothing happens unless a test uses them
(no autouse fixtures, no network unless ``--honcho-url`` is given and a
``honcho_*`` fixture is requested).

Options (registered by :mod:`contract_tests.options`, with or without the extra)
    ``--honcho-url URL``        run against the Honcho server at URL (default: the in-process fake)
    ``--honcho-version V``      the version the in-process fake speaks (a URL's is probed)
    ``--honcho-embed-messages on/off`` whether the in-process fake embeds messages (a URL's: probed)
    ``--honcho-api-key KEY``    Bearer key (default: ``$HONCHO_API_KEY``; never printed)
    ``--honcho-jwt-secret S``   the in-process fake runs with auth on, as Honcho with this
                                ``AUTH_JWT_SECRET`` (default: ``$HONCHO_JWT_SECRET``; never printed)
    ``--honcho-llm``            also run ``honcho_llm`` tests against a real server
    ``--honcho-settle-timeout`` seconds ``honcho_settle`` waits for the deriver on a real server
    ``--honcho-update-reference`` re-record the shipped reference snapshots (needs --honcho-url)
    ``--honcho-conformance-json PATH`` write the memory backends' conformance report as JSON

Fixtures
    ``honcho_target``     :class:`~contract_tests.target.HonchoTarget` for this test
    ``honcho_workspace``  a fresh workspace id, unique across runs and xdist workers
    ``honcho_settle``     ``settle(workspace=None)``: wait until derived data is ready
    ``honcho_snapshot``   ``assert honcho_snapshot == data``: normalised JSON snapshot
    ``honcho_reference``  ``assert honcho_reference == data``: the shipped real-Honcho snapshot
    ``honcho_served``     :class:`~fake_honcho.drift.probe.Served`: what the target serves
                          (probed once per run for ``--honcho-url``; the fake's version else)

Markers
    ``honcho_needs(*features)`` skip, naming the reason, when the target lacks a
    :class:`~fake_honcho.versions.Feature` (``"scopes"``, ``Feature.WORKSPACE_CHAT``, ...)
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import uuid
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from contract_tests.capabilities import capability_names

# Heavy modules (httpx, syrupy, the fake) are imported inside the fixtures and
# hooks that use them: pytest loads this plugin in every run of a host project.
if TYPE_CHECKING:
    from contract_tests.conformance import ClauseResult
    from contract_tests.probe import ServedFake
    from contract_tests.reference import ReferenceSnapshot
    from contract_tests.settle import Settler
    from contract_tests.snapshot import HonchoSnapshot
    from contract_tests.target import HonchoTarget
    from fake_honcho.drift.probe import Served

pytest_plugins = (
    ["contract_tests.faults"] if importlib.util.find_spec("contract_tests.faults") else []
)

_RUN_UID = pytest.StashKey[str]()
_REAPED = pytest.StashKey[list[str]]()
# Workspaces a test's teardown already deleted: a real server deletes in the background,
# so they may still be listed when the reaper runs, and are not leftovers.
_TORN_DOWN = pytest.StashKey[set[str]]()
_REAPER_ERROR = pytest.StashKey[str]()
# What --honcho-url is when it is a served fake-honcho (None: a real server), found once.
_SERVED = pytest.StashKey["ServedFake | None"]()
# What the target serves: probed for --honcho-url, the fake's version otherwise.
_SERVES = pytest.StashKey["Served"]()
# One result per decisive report of a MemoryManagerContract test (on the controller).
_CLAUSES = pytest.StashKey[list["ClauseResult"]]()

BROADENED = "scoped read silently broadened:"
"""How the xfail reason of a scoped read the target answered unscoped starts; the summary
collects them."""


MARKERS = (
    "honcho_fake_only(reason): the test needs the in-process fake's controls "
    "(deriver steps, fault injection, journal); skipped against a real server.",
    "honcho_llm: the test needs an LLM-backed deriver; skipped against a real server "
    "unless --honcho-llm is given.",
    "honcho_requires(*capabilities): the test needs these Capabilities of the backend "
    "under test; skipped, naming them, when the suite subclass does not declare them.",
    "honcho_needs(*features): the test needs these Honcho server features "
    "(fake_honcho.versions.Feature: scopes, workspace-chat, ...); skipped, naming them, when "
    "the target lacks them (a --honcho-url target is probed, the fake speaks --honcho-version).",
)


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    url = config.getoption("honcho_url")
    if url is not None and not url.strip():
        raise pytest.UsageError(
            "--honcho-url is empty; give the server URL (tox -e real reads it from "
            "$HONCHO_URL), or omit the option to use the in-process fake"
        )
    version = config.getoption("honcho_version")
    if version is not None:
        from fake_honcho.versions import resolve_version

        try:
            resolve_version(version)
        except ValueError as error:
            raise pytest.UsageError(f"--honcho-version: {error}") from None
    if config.getoption("honcho_update_reference") and url is None:
        raise pytest.UsageError(
            "--honcho-update-reference records the kit's reference snapshots from a real "
            "Honcho: pass --honcho-url too (the fake must not become its own reference)"
        )
    workerinput = getattr(config, "workerinput", None)
    config.stash[_RUN_UID] = workerinput["honcho_run_uid"] if workerinput else uuid.uuid4().hex
    config.stash[_REAPED] = []
    config.stash[_TORN_DOWN] = set()
    config.stash[_CLAUSES] = []
    config.pluginmanager.register(_ClauseCollector(config), "honcho_conformance")
    if workerinput and "honcho_serves" in workerinput:
        from fake_honcho.drift.probe import Served

        config.stash[_SERVES] = Served.from_json(workerinput["honcho_serves"])
    served = workerinput.get("honcho_served_fake") if workerinput else None
    if served is not None:
        from contract_tests.probe import ServedFake

        config.stash[_SERVED] = ServedFake(*served)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: share this run's id, and what the server is, with every worker."""
    node.workerinput["honcho_run_uid"] = node.config.stash[_RUN_UID]
    served = node.config.stash.get(_SERVED, None)
    if served is not None:
        node.workerinput["honcho_served_fake"] = (served.version, served.honcho_version)
    if _SERVES in node.config.stash:
        node.workerinput["honcho_serves"] = node.config.stash[_SERVES].to_json()


def _served(config: pytest.Config) -> ServedFake | None:
    return config.stash.get(_SERVED, None)


def _real_url(config: pytest.Config) -> str | None:
    url = config.getoption("honcho_url")
    return url.strip().rstrip("/") if url else None


def _api_key(config: pytest.Config) -> str | None:
    return config.getoption("honcho_api_key") or os.environ.get("HONCHO_API_KEY") or None


def _jwt_secret(config: pytest.Config) -> str | None:
    return config.getoption("honcho_jwt_secret") or os.environ.get("HONCHO_JWT_SECRET") or None


def served(config: pytest.Config) -> Served:
    """What the run's target serves: probed at session start for ``--honcho-url``, the
    version ``--honcho-version`` names for the in-process fake."""
    if _SERVES not in config.stash:
        from fake_honcho.drift.probe import served_by_version
        from fake_honcho.versions import resolve_version

        version = resolve_version(config.getoption("honcho_version"))
        config.stash[_SERVES] = served_by_version(version, _embeds(config))
    return config.stash[_SERVES]


def _embeds(config: pytest.Config) -> bool:
    return config.getoption("honcho_embed_messages", "on") == "on"


def _target_name(config: pytest.Config) -> str:
    url = _real_url(config)
    if url is None:
        return "in-process fake"
    return f"served fake-honcho at {url}" if _served(config) else f"real server at {url}"


def pytest_report_header(config: pytest.Config) -> str:
    url = _real_url(config)
    fake = _served(config)
    target = f"fake-honcho (served) at {url}: {fake}" if url and fake else _target_name(config)
    auth = " (api key set)" if url and _api_key(config) else ""
    verb = "serves" if url else "speaking"
    return f"honcho contract target: {target}{auth}, {verb} {served(config).describe()}"


def _contract_names(item: pytest.Item) -> set[str]:
    """``Class.test_name`` for the test's class and every class it inherits from."""
    cls = getattr(item, "cls", None)
    name = getattr(item, "originalname", item.name)
    return {f"{klass.__name__}.{name}" for klass in cls.__mro__} if cls else set()


def pytest_runtest_setup(item: pytest.Item) -> None:
    remote = _real_url(item.config) is not None
    if remote:
        fake_only = item.get_closest_marker("honcho_fake_only")
        if fake_only is not None:
            reason = fake_only.kwargs.get("reason") or (fake_only.args[0] if fake_only.args else "")
            pytest.skip(f"needs the in-process fake's controls{': ' + reason if reason else ''}")
    if remote and _served(item.config) is None:  # a real server
        if item.get_closest_marker("honcho_llm") and not item.config.getoption("honcho_llm"):
            pytest.skip("needs an LLM-backed deriver; pass --honcho-llm to run it on a real server")
        from fake_honcho.harness.divergences import affecting  # only against a real server

        declared = affecting(_contract_names(item), served(item.config).features)
        if declared:
            pytest.skip(declared[0].skip_reason)
    if not remote:  # the in-process fake reproduces the real server's deterministic bugs
        from fake_honcho.harness.divergences import affecting

        features = served(item.config).features
        reproduced = [e for e in affecting(_contract_names(item), features) if e.reproduced]
        if reproduced:
            pytest.skip(f"the fake reproduces it by default: {reproduced[0].skip_reason}")
    _skip_unless_served(item)
    for mark in item.iter_markers("honcho_requires"):
        unknown = sorted(set(mark.args) - capability_names())
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: honcho_requires names unknown {unknown}")


def _needed(item: pytest.Item) -> set[str]:
    """The feature names the item's ``honcho_needs`` markers ask for (unknown: usage error)."""
    from fake_honcho.versions import Feature

    asked = [arg for mark in item.iter_markers("honcho_needs") for arg in mark.args]
    known = set(Feature)  # a StrEnum: "scopes" is Feature.SCOPES
    unknown = sorted(str(arg) for arg in asked if arg not in known)
    if unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: honcho_needs names unknown feature(s) {unknown}; "
            f"known: {', '.join(sorted(known))}"
        )
    return {str(arg) for arg in asked}


def _skip_unless_served(item: pytest.Item) -> None:
    needed = _needed(item)
    if not needed:
        return
    found = served(item.config)
    missing = sorted(needed - set(found.features))
    if missing:
        how = "probed" if found.probed else "--honcho-version"
        pytest.skip(
            f"needs Honcho feature(s) {', '.join(missing)}; the {_target_name(item.config)} "
            f"serves Honcho {found.version} without them ({how})"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Probe ``--honcho-url`` once, before xdist starts workers: one clear line, not an
    error per test, when the server is down or wants a key; then what it serves (its
    features and the fields it ignores), shared with the workers."""
    config = session.config
    url = _real_url(config)
    if url is None or hasattr(config, "workerinput"):
        return
    import httpx

    from contract_tests.probe import probe_problem, served_fake
    from contract_tests.target import HonchoTarget
    from fake_honcho.drift.probe import probe_server

    target = HonchoTarget(url, api_key=_api_key(config))
    problem = probe_problem(target)
    if problem is not None:
        raise pytest.UsageError(problem)
    config.stash[_SERVED] = served_fake(target)
    # A fresh connection per request: a server without strict filters answers one probe
    # with a 500, after which it closes the connection.
    with target.client(limits=httpx.Limits(max_keepalive_connections=0)) as client:
        config.stash[_SERVES] = probe_server(client)


@pytest.fixture(scope="session")
def _honcho_real_target(request: pytest.FixtureRequest) -> HonchoTarget | None:
    url = _real_url(request.config)
    if url is None:
        return None
    from contract_tests.target import HonchoTarget

    config = request.config
    return HonchoTarget(url, api_key=_api_key(config), served_fake=_served(config))


@pytest.fixture(scope="session")
def honcho_served(request: pytest.FixtureRequest) -> Served:
    """What the target serves: its :class:`~fake_honcho.versions.Feature` s, the nearest
    version, and (for ``--honcho-url``) the request fields it ignores."""
    return served(request.config)


@pytest.fixture
def honcho_target(
    request: pytest.FixtureRequest, _honcho_real_target: HonchoTarget | None
) -> Iterator[HonchoTarget]:
    """The server this test talks to.

    Without ``--honcho-url``: a fresh in-process ``FakeHoncho`` (strict response
    validation on) speaking ``--honcho-version`` (with auth on and its admin JWT as the
    key, given ``--honcho-jwt-secret``), reachable through
    ``honcho_target.client()``; ``.fake`` gives its controls. With ``--honcho-url``:
    that server; ``.fake`` is ``None``.
    """
    if _honcho_real_target is not None:
        yield _honcho_real_target
        return
    from contract_tests.target import HonchoTarget
    from fake_honcho import FakeHoncho

    version = request.config.getoption("honcho_version")
    secret = _jwt_secret(request.config)
    embeds = _embeds(request.config)
    with FakeHoncho(version=version, strict=True, jwt_secret=secret, embed_messages=embeds) as fake:
        key = fake.admin_key if secret is not None else None
        yield HonchoTarget("http://honcho.fake", api_key=key, fake=fake)


@pytest.fixture
def honcho_workspace(request: pytest.FixtureRequest, honcho_target: HonchoTarget) -> Iterator[str]:
    """A workspace id no other test, worker or run uses (``hc-<run>-<worker>-<test>``).

    Nothing is created up front. On a real server, teardown deletes this workspace
    and every workspace whose id starts with it (sessions first).
    """
    from contract_tests.namespace import delete_workspaces, workspace_id

    config = request.config
    workerinput = getattr(config, "workerinput", None)
    worker = workerinput["workerid"] if workerinput else "main"
    ws = workspace_id(config.stash[_RUN_UID], worker, request.node.nodeid)
    yield ws
    if not honcho_target.is_fake:
        with honcho_target.client() as client:
            config.stash[_TORN_DOWN].update(delete_workspaces(client, ws))


@pytest.fixture
def honcho_settle(
    request: pytest.FixtureRequest, honcho_target: HonchoTarget, honcho_workspace: str
) -> Settler:
    """``settle(workspace=None)``: wait until derived data is ready (see :class:`Settler`)."""
    from contract_tests.settle import Settler

    return Settler(
        honcho_target,
        honcho_workspace,
        timeout=request.config.getoption("honcho_settle_timeout"),
    )


@pytest.fixture
def honcho_snapshot(snapshot: Any, honcho_workspace: str) -> HonchoSnapshot:
    """A syrupy JSON snapshot (one file per assertion) behind the Honcho normaliser."""
    from contract_tests.snapshot import HonchoJSONExtension, HonchoSnapshot

    return HonchoSnapshot(
        snapshot.with_defaults(extension_class=HonchoJSONExtension), literals=[honcho_workspace]
    )


def _suite_of(request: pytest.FixtureRequest) -> str:
    """The contract suite class that defines the requesting test (not the consumer's subclass,
    whose name varies between projects)."""
    name = request.function.__name__
    for klass in type(request.instance).__mro__ if request.instance is not None else ():
        if name in vars(klass) and vars(klass).get("__contract_suite__") is True:
            return klass.__name__
    raise pytest.UsageError(f"{request.node.nodeid}: honcho_reference is for contract suites")


@pytest.fixture(scope="session")
def _honcho_reference_version(
    request: pytest.FixtureRequest, _honcho_real_target: HonchoTarget | None
) -> str | None:
    """With ``--honcho-update-reference``: the real server's version, written into each file."""
    if _honcho_real_target is None or not request.config.getoption("honcho_update_reference"):
        return None
    with _honcho_real_target.client() as client:
        response = client.get("/openapi.json")
        response.raise_for_status()
    return str(response.json()["info"]["version"])


@pytest.fixture
def honcho_reference(
    request: pytest.FixtureRequest, honcho_workspace: str, _honcho_reference_version: str | None
) -> ReferenceSnapshot:
    """``assert honcho_reference == data``: compare with the snapshot of a real Honcho that
    ships in ``contract_tests/snapshots`` (see :mod:`contract_tests.reference`)."""
    from contract_tests.reference import REFERENCE_DIR, ReferenceSnapshot

    callspec = getattr(request.node, "callspec", None)
    name = request.node.originalname + (f"[{callspec.id}]" if callspec else "")
    return ReferenceSnapshot(
        REFERENCE_DIR / _suite_of(request) / f"{name}.json",
        literals=[honcho_workspace],
        record_version=_honcho_reference_version,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    # Neither kind exists before its module is imported (reference imports snapshot).
    snapshot = sys.modules.get("contract_tests.snapshot")
    reference = sys.modules.get("contract_tests.reference")
    kinds: list[type[Any]] = []
    if snapshot is not None:
        kinds.append(snapshot.HonchoSnapshot)
    if reference is not None:
        kinds.append(reference.ReferenceSnapshot)
    for side in (left, right) if op == "==" else ():
        if isinstance(side, tuple(kinds)):
            diff: list[str] = side.diff_lines()  # type: ignore[attr-defined]
            return [f"{side!r} == received (normalised)", *diff]
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: collect what each worker's teardowns deleted."""
    output = getattr(node, "workeroutput", {})
    node.config.stash[_TORN_DOWN].update(output.get("honcho_torn_down", ()))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Controller only: write the conformance report when asked; delete workspaces this run
    left on a real server (crashed tests)."""
    config = session.config
    _write_conformance(config)
    url = _real_url(config)
    if url is not None and hasattr(config, "workeroutput"):
        torn_down: set[str] = config.stash[_TORN_DOWN]
        config.workeroutput["honcho_torn_down"] = sorted(torn_down)
    if url is None or hasattr(config, "workerinput"):
        return
    import httpx

    from contract_tests.namespace import delete_workspaces, run_prefix
    from contract_tests.target import HonchoTarget

    target = HonchoTarget(url, api_key=_api_key(config))
    try:
        with target.client(timeout=10.0) as client:
            deleted = delete_workspaces(client, run_prefix(config.stash[_RUN_UID]))
        config.stash[_REAPED] = [ws for ws in deleted if ws not in config.stash[_TORN_DOWN]]
    except httpx.HTTPError as exc:
        reason = type(exc).__name__
        config.stash[_REAPER_ERROR] = f"honcho: reaper could not list workspaces ({reason})"


def _first_line(text: str) -> str:
    line = next((part for part in text.strip().splitlines() if part.strip()), "")
    for prefix in ("Failed: ", "AssertionError: ", "Skipped: ", "E "):
        line = line.removeprefix(prefix)
    return line.strip()[:400]


def _verdict(report: pytest.TestReport) -> str:
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            return _first_line(crash.message)
        errors = [line for line in report.longreprtext.splitlines() if line.startswith("E ")]
        return _first_line(errors[0] if errors else report.longreprtext)
    if report.skipped and isinstance(report.longrepr, tuple):
        return _first_line(str(report.longrepr[2]))
    return _first_line(str(getattr(report, "wasxfail", "")))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """A failed clause that a capability turns off says which, in its message."""
    try:
        return (yield)
    except Exception as failure:
        cls = getattr(item, "cls", None)
        if cls is not None and getattr(cls, "__contract_suite__", False):
            from contract_tests.conformance import clause_of

            found = clause_of(cls, getattr(item, "originalname", item.name))
            if found is not None and found.capability is not None:
                failure.add_note(
                    f"clause {found.name} is judged because {cls.__name__} declares "
                    f"Capabilities({found.capability}=True); if the backend does not "
                    f"promise it, declare {found.capability}=False"
                )
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A ``MemoryManagerContract`` test's decisive report carries its clause's result (a
    user property, so it reaches the xdist controller)."""
    report: pytest.TestReport = yield
    cls = getattr(item, "cls", None)
    if not getattr(cls, "__contract_suite__", False):
        return report
    from contract_tests.conformance import ClauseResult, clause_of, outcome_of

    found = clause_of(cls, getattr(item, "originalname", item.name))
    decisive = report.when == "call" or not report.passed
    if found is None or cls is None or not decisive:
        return report
    xfailed = hasattr(report, "wasxfail") and report.skipped
    skip = _verdict(report) if report.skipped and not xfailed else None
    capabilities = getattr(cls, "capabilities", None)
    result = ClauseResult(
        backend=f"{item.nodeid.split('::', 1)[0]}::{cls.__name__}",
        clause=found.name,
        summary=found.summary,
        capability=found.capability,
        outcome=outcome_of(report.passed, report.failed, skip, xfailed),
        detail=_verdict(report) if not report.passed else "",
        capabilities=asdict(capabilities) if capabilities is not None else {},
    )
    report.user_properties.append(result.to_property())
    return report


class _ClauseCollector:
    """Keeps the clause results of the run's reports (the controller's, under xdist)."""

    def __init__(self, config: pytest.Config) -> None:
        self.results: list[ClauseResult] = config.stash[_CLAUSES]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.user_properties:
            return
        from contract_tests.conformance import ClauseResult

        result = ClauseResult.from_properties(report.user_properties)
        if result is not None:
            self.results.append(result)


def _write_conformance(config: pytest.Config) -> None:
    """``--honcho-conformance-json PATH``: the report as JSON (controller only)."""
    path = config.getoption("honcho_conformance_json")
    if path and not hasattr(config, "workerinput"):
        from contract_tests.conformance import build_report

        report = build_report(config.stash.get(_CLAUSES, []))
        Path(path).write_text(json.dumps(report.as_dict(), indent=2) + "\n", encoding="utf-8")


def _unrecorded(terminalreporter: Any) -> list[str]:
    """Node ids skipped because their snapshot is not recorded yet (xdist: on the controller)."""
    from contract_tests.conformance import UNRECORDED

    return [
        report.nodeid
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and UNRECORDED in str(report.longrepr[2])
    ]


def _broadened(terminalreporter: Any) -> list[str]:
    """The reasons of scoped reads the target answered unscoped (xfailed, not failed)."""
    return [
        f"{report.nodeid}: {report.wasxfail.split(BROADENED, 1)[1].strip()}"
        for report in terminalreporter.stats.get("xfailed", [])
        if BROADENED in str(getattr(report, "wasxfail", ""))
    ]


def _report_ignored(terminalreporter: Any, config: pytest.Config) -> None:
    """What the probe found the ``--honcho-url`` target drops without a word, and what the
    scoped-read test saw it do."""
    found = config.stash.get(_SERVES, None)
    ignored = found.ignored if found is not None and found.probed else ()
    broadened = _broadened(terminalreporter)
    if not ignored and not broadened:
        return
    terminalreporter.section(
        "honcho: request fields the target ignores (about the server, not your tests)", sep="-"
    )
    if found is not None and ignored:
        terminalreporter.write_line(
            f"found by probing {_target_name(config)} (Honcho {found.version}, as probed): "
            "for information; it accepts them without an error, and:"
        )
    for field in ignored:
        terminalreporter.write_line(f"  {field.describe()}")
    for line in broadened:
        terminalreporter.write_line(f"  seen: {line}")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    results = [] if hasattr(config, "workerinput") else config.stash.get(_CLAUSES, [])
    if results:
        from contract_tests.conformance import build_report

        terminalreporter.section("honcho conformance: memory backends", sep="-")
        for line in build_report(results).lines():
            terminalreporter.write_line(line)
    _report_ignored(terminalreporter, config)
    unrecorded = _unrecorded(terminalreporter)
    if unrecorded:
        terminalreporter.write_line(
            f"honcho: {len(unrecorded)} test(s) skipped: no snapshot recorded yet for this "
            "backend; run `pytest --snapshot-update` once, review __snapshots__/ and commit it"
        )
    if _REAPER_ERROR in config.stash:
        terminalreporter.write_line(config.stash[_REAPER_ERROR])
    reaped = config.stash.get(_REAPED, [])
    if reaped:
        terminalreporter.write_line(
            f"honcho: reaped {len(reaped)} leftover workspace(s) of this run: {', '.join(reaped)}"
        )
