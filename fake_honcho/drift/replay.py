"""``fake-honcho replay DIR | CASSETTES...``: recorded traffic against a fresh fake.

The recorded requests (a ``fake-honcho proxy`` recording, or vcrpy / pytest-recording
cassettes: :mod:`fake_honcho.drift.cassettes`) are sent in order to a fresh in-process
fake of the recorded version and configuration, and each answer is judged against the
real one (:mod:`fake_honcho.drift.judge`). Ids the real server generated and the client
sent back (a message id in a path, say) are sent as the ids the fake generated in the
same place: both sides' answers go through one normaliser each, which numbers ids by
first appearance, so the real id and the fake's share a number.

The report groups differences by route: those a register entry declares (named), and
the undeclared ones, each with its first request and both answers. Exit status: 0 when
nothing undeclared differs, 1 when something does, 2 for a recording that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO
from urllib.parse import unquote

import httpx

from fake_honcho.arguments import OneLineParser
from fake_honcho.drift.exchange import TextNormaliser
from fake_honcho.drift.judge import (
    WORKSPACES_LIST,
    Moment,
    Rule,
    declared,
    route_template,
    rule_for,
    shape_equal,
    stream_events,
)
from fake_honcho.drift.normalise import NANOID
from fake_honcho.drift.probe import Served, served_by_version
from fake_honcho.drift.recording import fake_client
from fake_honcho.drift.traffic import Body, Exchange, decode_body, read_exchanges, read_server
from fake_honcho.versions import DEFAULT_VERSION, VERSIONS, version_argument

__all__ = ["Outcome", "Replay", "Verdict", "build_parser", "main", "replay_exchanges"]

PROG = "fake-honcho replay"
CONTROL_PREFIX = "/_fake/"
"""The fake's own routes: a real server answers 404 there, by design (how a client tells)."""


Outcome = Literal["equal", "shape", "declared", "undeclared", "skipped"]
"""How an exchange was judged: equal once normalised, alike in shape (an LLM's answer),
different as a register entry declares, different undeclared, or not replayed."""


@dataclass(frozen=True)
class Verdict:
    """One exchange as judged, with both normalised answers when they differ."""

    exchange: Exchange
    outcome: Outcome
    template: str
    real: Any = None
    fake: Any = None
    fake_status: int = 0
    entry: str | None = None
    rule: Rule | None = None


@dataclass
class Replay:
    """Everything a replay found, for the report."""

    source: str
    served: Served
    verdicts: list[Verdict] = field(default_factory=list)

    def of(self, outcome: Outcome) -> list[Verdict]:
        return [v for v in self.verdicts if v.outcome == outcome]

    @property
    def undeclared(self) -> int:
        return len(self.of("undeclared"))


class IdPairs:
    """The real server's ids and the fake's for the same thing, paired where both answers
    first showed them in the same place; an id only one side made pairs with nothing, so
    one extra row on either side shifts no other comparison."""

    def __init__(self) -> None:
        self.real_to_fake: dict[str, str] = {}
        self._taken: set[str] = set()

    def learn(self, real: Any, fake: Any, key: str | None = None) -> None:
        if isinstance(real, dict) and isinstance(fake, dict):
            for k in real.keys() & fake.keys():
                self.learn(real[k], fake[k], k)
            real_ids = [k for k in real if NANOID.match(k)]
            fake_ids = [k for k in fake if NANOID.match(k)]
            if len(real_ids) == len(fake_ids) == 1:  # a map keyed by one id
                self._pair(real_ids[0], fake_ids[0])
                self.learn(real[real_ids[0]], fake[fake_ids[0]])
        elif isinstance(real, list) and isinstance(fake, list):
            for a, b in zip(real, fake, strict=False):
                self.learn(a, b, key)
        elif _ids_at(key, real, fake):
            self._pair(real, fake)

    def _pair(self, real: str, fake: str) -> None:
        if real not in self.real_to_fake and fake not in self._taken:
            self.real_to_fake[real] = fake
            self._taken.add(fake)

    def text(self, value: str) -> str:
        if len(value) < 21 or not self.real_to_fake:
            return value
        return _ID_IN_TEXT.sub(lambda m: self.real_to_fake.get(m.group(0), m.group(0)), value)

    def translate(self, data: Any) -> Any:
        """``data`` with every paired real id written as the fake's."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, list):
            return [self.translate(item) for item in data]
        if isinstance(data, dict):
            return {self.text(k): self.translate(v) for k, v in data.items()}
        return data


def _ids_at(key: str | None, real: Any, fake: Any) -> bool:
    """Whether ``real`` and ``fake`` are both generated ids, under an id's key."""
    if key is None or not (key == "id" or key.endswith("_id")):
        return False
    return all(isinstance(v, str) and NANOID.match(v) for v in (real, fake))


def replay_exchanges(
    exchanges: Sequence[Exchange], served: Served, *, auth: bool = False, redacted: bool = False
) -> list[Verdict]:
    """Send ``exchanges`` in order to a fresh fake as ``served`` says; judge each answer."""
    pairs = IdPairs()
    context = _Context(served, _workspaces_named(exchanges), redacted)
    verdicts = []
    with fake_client(served.version, served.embeds, auth=auth) as client:
        context.client = client
        for exchange in exchanges:
            if exchange.path.startswith(CONTROL_PREFIX):
                verdicts.append(Verdict(exchange, "skipped", CONTROL_PREFIX + "*"))
                continue
            request = exchange.request
            if request.kind in ("json", "text"):
                request = Body(request.kind, pairs.translate(request.value))
            headers = {"content-type": exchange.request_type} if exchange.request_type else {}
            answer = client.request(
                exchange.method, pairs.text(exchange.target), content=request.raw(), headers=headers
            )
            got = decode_body(answer.content, answer.headers.get("content-type", ""))
            answered = _Answer(answer.status_code, answer.headers.get("content-type", ""), got)
            verdicts.append(_judge(exchange, answered, pairs, context))
            context.saw(exchange)
    return verdicts


@dataclass
class _Context:
    served: Served
    workspaces: set[str]
    redacted: bool
    client: httpx.Client | None = None
    deleted: set[str] = field(default_factory=set)
    written: dict[str, int] = field(default_factory=dict)
    """Workspace -> the index of the last exchange that wrote messages to it."""
    index: int = 0

    def saw(self, exchange: Exchange) -> None:
        self.index += 1
        if exchange.method == "DELETE" and exchange.status < 300:
            self.deleted.add(exchange.path.rstrip("/"))
        if exchange.method == "POST" and _WRITES.search(exchange.path):
            self.written[_workspace_of(exchange.path)] = self.index

    def just_written(self, path: str) -> bool:
        last = self.written.get(_workspace_of(path))
        return last is not None and self.index - last <= RECENT_WRITES

    def every_workspace(self) -> list[Any]:
        """Every workspace the fake holds (all pages)."""
        assert self.client is not None
        found: list[Any] = []
        page = 1
        while True:
            answer = self.client.post("/v3/workspaces/list", params={"page": page, "size": 100})
            items = answer.json().get("items", []) if answer.status_code == 200 else []
            found.extend(items)
            if len(items) < 100:
                return found
            page += 1


@dataclass(frozen=True)
class _Answer:
    status: int
    content_type: str
    body: Body


FOREIGN_WORKSPACES = Rule(
    "",
    "the server also listed workspaces the recording did not make (a shared server): "
    "its own ones compared",
)


def _judge(exchange: Exchange, answer: _Answer, pairs: IdPairs, context: _Context) -> Verdict:
    template = route_template(exchange.method, exchange.path)
    rule = rule_for(template, context.redacted)
    real_value, fake_value = _value(exchange.response), _value(answer.body)
    same_kind = answer.status == exchange.status and _media(answer.content_type) == _media(
        exchange.response_type
    )
    if template == WORKSPACES_LIST and _foreign(real_value, context.workspaces):
        listed = context.every_workspace()
        if same_kind and _own_listed(real_value, listed, context.workspaces, pairs):
            return Verdict(exchange, "shape", template, rule=FOREIGN_WORKSPACES)
        rule = FOREIGN_WORKSPACES
    if rule is not None and same_kind and _shape_matches(rule, real_value, fake_value, pairs):
        return Verdict(exchange, "shape", template, rule=rule, fake_status=answer.status)
    if rule is None:  # answers an LLM wrote pair no ids: they need not be the same rows
        pairs.learn(real_value, fake_value)
    # one pass over both: an id (the real one written as the fake's) numbers alike in both
    normaliser = TextNormaliser()
    real, fake = normaliser(pairs.translate(real_value)), normaliser(fake_value)
    if same_kind and real == fake:
        return Verdict(exchange, "equal", template)
    moment = Moment(
        deleted=_touches(exchange.path, context.deleted)
        or _lists_deleted(exchange.path, real_value, context.deleted),
        just_written=context.just_written(exchange.path),
        query=_query_of(exchange),
    )
    entry = declared(
        template,
        (exchange.status, real),
        (answer.status, fake),
        served=context.served,
        moment=moment,
    )
    outcome: Outcome = "declared" if entry else "undeclared"
    return Verdict(exchange, outcome, template, real, fake, answer.status, entry, rule)


def _shape_matches(rule: Rule, real: Any, fake: Any, pairs: IdPairs) -> bool:
    # a pass each: ids an LLM's answer or the deriver's progress holds are not paired,
    # and a map keyed by one numbers its key alike on both sides
    real, fake = TextNormaliser()(pairs.translate(real)), TextNormaliser()(fake)
    if not rule.fields or not (isinstance(real, dict) and isinstance(fake, dict)):
        return shape_equal(real, fake, loose=rule.loose)
    rest_real = {k: v for k, v in real.items() if k not in rule.fields}
    rest_fake = {k: v for k, v in fake.items() if k not in rule.fields}
    return rest_real == rest_fake and all(
        shape_equal(real.get(k), fake.get(k)) for k in rule.fields
    )


def _value(body: Body) -> Any:
    if body.kind == "text" and "\ndata:" in "\n" + str(body.value):
        return stream_events(str(body.value))
    return body.value


def _media(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower()


def _foreign(page: Any, workspaces: set[str]) -> bool:
    """Whether the server held workspaces the recording never named (on this page or
    counted in its total)."""
    items = page.get("items") if isinstance(page, dict) else None
    return isinstance(items, list) and (
        any(isinstance(item, dict) and item.get("id") not in workspaces for item in items)
        or page.get("total", 0) > len(workspaces)
    )


def _own_listed(real: Any, fake: list[Any], workspaces: set[str], pairs: IdPairs) -> bool:
    """Whether every workspace of the recording on the server's page is one the fake
    holds, alike (the fake, holding the recording's workspaces alone, pages them otherwise)."""
    listed = [TextNormaliser()(item) for item in fake]
    own = [item for item in real["items"] if item.get("id") in workspaces]
    return all(TextNormaliser()(pairs.translate(item)) in listed for item in own)


def _workspaces_named(exchanges: Sequence[Exchange]) -> set[str]:
    named = set()
    for exchange in exchanges:
        parts = exchange.path.split("/")
        if len(parts) > 3 and parts[1:3] == ["v3", "workspaces"] and parts[3] != "list":
            named.add(unquote(parts[3]))
        if exchange.path == "/v3/workspaces" and exchange.request.kind == "json":
            value = exchange.request.value
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                named.add(value["id"])
    return named


_WRITES = re.compile(r"/sessions/[^/]+/messages(/upload)?$")
RECENT_WRITES = 3
"""A search this many exchanges after a write to its workspace may race the embedding."""


def _query_of(exchange: Exchange) -> str:
    body = exchange.request.value if exchange.request.kind == "json" else None
    query = body.get("query") if isinstance(body, dict) else None
    return query if isinstance(query, str) else ""


def _workspace_of(path: str) -> str:
    parts = path.split("/")
    return parts[3] if len(parts) > 3 else ""


def _touches(path: str, deleted: set[str]) -> bool:
    return any(path == gone or path.startswith(gone + "/") for gone in deleted)


def _lists_deleted(path: str, page: Any, deleted: set[str]) -> bool:
    """Whether a workspace or session list still shows one the recording deleted."""
    items = page.get("items") if isinstance(page, dict) else None
    if not isinstance(items, list) or not path.endswith("/list"):
        return False
    parent = path.removesuffix("/list")
    return any(isinstance(item, dict) and f"{parent}/{item.get('id')}" in deleted for item in items)


_ID_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])")


# -- the report ----------------------------------------------------------------------------


def render(found: Replay, out: TextIO) -> None:
    served = found.served
    total = len(found.verdicts)
    print(
        f"{found.source}: {total} exchanges replayed against a fresh fake "
        f"(Honcho {served.version}, embeddings {'on' if served.embeds else 'off'})",
        file=out,
    )
    skipped = found.of("skipped")
    if skipped:
        print(
            f"left out: {len(skipped)} requests to {CONTROL_PREFIX}* (the fake's own routes, "
            "which a real server answers 404: how a client tells them apart)",
            file=out,
        )
    shaped = found.of("shape")
    if shaped:
        print(
            f"compared by shape (the real answer came from its LLM or its deriver's timing): "
            f"{len(shaped)}",
            file=out,
        )
        for (template, reason), group in _grouped(
            shaped, lambda v: (v.template, v.rule.reason if v.rule else "")
        ):
            print(f"  {template}: {len(group)} ({reason})", file=out)
    declared_ = found.of("declared")
    if declared_:
        print(f"declared differences (fake_honcho.divergences): {len(declared_)}", file=out)
        for (entry, template), group in _grouped(declared_, lambda v: (v.entry, v.template)):
            print(f"  {entry}: {template}: {len(group)} (first #{group[0].exchange.seq})", file=out)
    undeclared = found.of("undeclared")
    if undeclared:
        print(f"undeclared differences: {len(undeclared)}", file=out)
        for (template,), group in _grouped(undeclared, lambda v: (v.template,)):
            first = group[0]
            seqs = ", ".join(f"#{v.exchange.seq}" for v in group[:10])
            more = f" and {len(group) - 10} more" if len(group) > 10 else ""
            print(f"  {template}: {len(group)} ({seqs}{more})", file=out)
            print(f"    request: {_short(_request_of(first.exchange))}", file=out)
            print(f"    server: {first.exchange.status} {_short(first.real)}", file=out)
            print(f"    fake:   {first.fake_status} {_short(first.fake)}", file=out)
    print(
        f"{total} exchanges: {len(found.of('equal'))} equal, {len(shaped)} by shape, "
        f"{len(declared_)} declared, {len(undeclared)} undeclared"
        + (f", {len(skipped)} left out" if skipped else ""),
        file=out,
    )


def _grouped(verdicts: list[Verdict], key: Any) -> list[tuple[Any, list[Verdict]]]:
    groups: dict[Any, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        groups[key(verdict)].append(verdict)
    return list(groups.items())


def _request_of(exchange: Exchange) -> str:
    body = exchange.request.as_json()
    return f"{exchange.method} {exchange.target}" + (
        f" {json.dumps(next(iter(body.values())), ensure_ascii=False)}" if body else ""
    )


def _short(value: Any, limit: int = 600) -> str:
    text = (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    )
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


# -- the command -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Replay recorded traffic (a `fake-honcho proxy` directory, or vcrpy / "
        "pytest-recording cassettes) against a fresh fake; print what it answers otherwise.",
    )
    parser.add_argument("sources", nargs="+", metavar="DIR | CASSETTE", type=Path)
    parser.add_argument(
        "--honcho-version",
        type=version_argument,
        default=None,
        metavar="VERSION",
        help=f"for cassettes, the version the server spoke: {', '.join(VERSIONS)} "
        f"(default {DEFAULT_VERSION}; a proxy recording says its own)",
    )
    parser.add_argument(
        "--embeddings",
        choices=("on", "off"),
        default="on",
        help="for cassettes, whether the server embedded messages (EMBED_MESSAGES; on)",
    )
    parser.add_argument(
        "--host",
        help="for cassettes, the Honcho host (host:port) whose exchanges to take "
        "(default: the one host the /v3/ requests went to)",
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    from fake_honcho.drift.cassettes import CassetteError, read_cassettes

    parser = build_parser()
    args = parser.parse_args(argv)
    sources: list[Path] = args.sources
    directories = [s for s in sources if s.is_dir()]
    missing = [s for s in sources if not s.exists()]
    if missing:
        return _error(f"no such file or directory: {missing[0]}")
    if directories and len(sources) > 1:
        return _error("give one recording directory, or cassette files, not both")
    undeclared = 0
    try:
        if directories:
            runs = [_recorded(directories[0])]
        else:
            version = args.honcho_version or VERSIONS[DEFAULT_VERSION]
            served = served_by_version(version, embeds=args.embeddings == "on")
            runs = [Replay(str(path), served) for path in sources]
            for run, exchanges in zip(runs, read_cassettes(sources, args.host), strict=True):
                run.verdicts = replay_exchanges(exchanges, served)
    except (CassetteError, ValueError, KeyError, OSError) as problem:
        return _error(str(problem))
    for run in runs:
        render(run, out)
        undeclared += run.undeclared
    return 1 if undeclared else 0


def _recorded(directory: Path) -> Replay:
    info = read_server(directory)
    if info is None:
        raise ValueError(f"{directory} holds no server.json: not a `fake-honcho proxy` recording")
    found = Replay(str(directory), info.served)
    found.verdicts = replay_exchanges(
        read_exchanges(directory), info.served, auth=info.auth, redacted=info.redacted
    )
    return found


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2
