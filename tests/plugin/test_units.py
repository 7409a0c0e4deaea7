"""Unit tests of the kit's building blocks (no inner pytest runs)."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from contract_tests import Capabilities, HonchoAPIContract, HonchoTarget, normalise
from contract_tests.canary import judge
from contract_tests.documents import memory_document_problems
from contract_tests.loop_lag import LoopLagProbe
from contract_tests.namespace import run_prefix, workspace_id
from contract_tests.reference import REFERENCE_DIR, ReferenceSnapshot
from contract_tests.transports import FailingTransport, RecordedRequest, RecordingTransport

NANO_A = "V1StGXR8_Z5jdHi6B-myT"
NANO_B = "abcdefghijklmnopqrstu"


class TestNormalise:
    def test_ids_are_numbered_by_first_appearance_and_equal_ids_stay_equal(self) -> None:
        data = {
            "items": [
                {"id": NANO_A, "session_id": "s1"},
                {"id": NANO_B, "reply_to_id": NANO_A},
            ]
        }
        assert normalise(data) == {
            "items": [
                {"id": "<id:1>", "session_id": "s1"},
                {"id": "<id:2>", "reply_to_id": "<id:1>"},
            ]
        }

    def test_swapping_a_reference_changes_the_result(self) -> None:
        first = [{"id": NANO_A}, {"id": NANO_B, "parent_id": NANO_A}]
        second = [{"id": NANO_A}, {"id": NANO_B, "parent_id": NANO_B}]
        assert normalise(first) != normalise(second)

    def test_timestamps_token_counts_paths_and_literals(self) -> None:
        ws = "hc-0123456789-gw1-abcdefabcdef"
        data = {
            "created_at": "2026-11-29T19:21:03.429686Z",
            "when": "2024-01-02T03:04:05Z",
            "token_count": 17,
            "workspace_id": ws,
            "path": f"/v3/workspaces/{ws}-alice/sessions/s1/messages/{NANO_A}",
            "content": f"a 21-char word outside ids stays: {NANO_B}",
            NANO_B: "keys that are nanoids are ids too",
        }
        assert normalise(data, literals=[ws]) == {
            "created_at": "<timestamp>",
            "when": "<timestamp>",
            "token_count": "<int>",
            "workspace_id": "<workspace:1>",
            "path": "/v3/workspaces/<workspace:1>-alice/sessions/s1/messages/<id:2>",
            "content": f"a 21-char word outside ids stays: {NANO_B}",
            "<id:1>": "keys that are nanoids are ids too",
        }

    def test_numbering_ignores_key_order_and_is_idempotent(self) -> None:
        one = {"b": {"id": NANO_B}, "a": {"id": NANO_A}}
        two = {"a": {"id": NANO_A}, "b": {"id": NANO_B}}
        assert normalise(one) == normalise(two)
        assert normalise(normalise(one)) == normalise(one)


class TestCapabilities:
    def test_unknown_name_is_a_type_error(self) -> None:
        with pytest.raises(TypeError, match="serach"):
            Capabilities(serach=True)  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="unknown capability"):
            Capabilities.coerce({"serach": True})

    def test_values_must_be_bools(self) -> None:
        with pytest.raises(TypeError, match="fact_crud must be a bool"):
            Capabilities(fact_crud="yes")  # type: ignore[arg-type]

    def test_has_rejects_unknown_names(self) -> None:
        caps = Capabilities.coerce({"fact_crud": True})
        assert caps.has("fact_crud") and caps.has("search")
        with pytest.raises(ValueError, match="unknown capability"):
            caps.has("teleport")


def test_workspace_ids_are_valid_and_distinct() -> None:
    ids = {
        workspace_id(run, worker, node)
        for run in ("a" * 32, "b" * 32)
        for worker in ("main", "gw0", "gw1")
        for node in ("t.py::a", "t.py::b", "t.py::b[x y]")
    }
    assert len(ids) == 18
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,512}", ws) for ws in ids)
    assert all(ws.startswith(run_prefix("a" * 32)) or ws.startswith("hc-bbbb") for ws in ids)


def test_target_repr_and_errors_never_show_the_api_key() -> None:
    target = HonchoTarget("http://example.invalid/", api_key="sk-top-secret")
    assert "sk-top-secret" not in repr(target)
    assert target.base_url == "http://example.invalid"
    assert target.headers() == {"Authorization": "Bearer sk-top-secret"}
    assert not target.is_fake


def test_recording_transport_records_requests_without_headers() -> None:
    inner = httpx.MockTransport(lambda request: httpx.Response(201, json={}))
    recorder = RecordingTransport(inner)
    with httpx.Client(transport=recorder, base_url="http://h", headers={"X-Key": "k"}) as client:
        client.post("/v3/x", params={"page": 1}, json={"a": 1})
        client.get("/v3/y")
    assert [r.as_dict() for r in recorder.requests] == [
        {"method": "POST", "path": "/v3/x", "query": {"page": ["1"]}, "body": {"a": 1},
         "status": 201},
        {"method": "GET", "path": "/v3/y", "status": 201},
    ]  # fmt: skip


@pytest.mark.parametrize("mode", FailingTransport.MODES)
def test_failing_transport_modes(mode: str) -> None:
    with httpx.Client(transport=FailingTransport(mode), base_url="http://h") as client:
        if mode == "connect_error":
            with pytest.raises(httpx.ConnectError):
                client.get("/")
            return
        response = client.get("/")
    assert (response.status_code, response.headers["content-type"].split(";")[0]) == {
        "http_503": (503, "application/json"),
        "non_json": (200, "text/plain"),
    }[mode]


def test_memory_document_problems() -> None:
    """The gateway's cast at DeerFlow f1f4af99: an empty or absent ``lastUpdated`` is fine
    (the frontend shows "-"), noop's ``{"facts": []}`` too; a fact without a string id, a
    fact that is not an object, or a section of the wrong type fails it."""
    assert memory_document_problems({"lastUpdated": "2026-01-01T00:00:00Z", "facts": []}) == []
    assert memory_document_problems({"facts": []}) == []
    assert (
        memory_document_problems({"lastUpdated": "", "facts": [{"id": "f", "content": "x"}]}) == []
    )
    problems = memory_document_problems(
        {"lastUpdated": "", "facts": [{"id": 1, "content": "x"}, "junk"], "user": []}
    )
    assert problems == [
        "user: Input should be a valid dictionary (got [])",
        "facts[0].id: Input should be a valid string (got 1)",
        "facts[1]: Input should be a valid dictionary (got 'junk')",
    ]


def test_loop_lag_probe_sees_a_blocking_call() -> None:
    async def blocked() -> float:
        async with LoopLagProbe() as probe:
            time.sleep(0.1)
        return probe.max_lag

    # The lag excludes the tick interval itself, so a 100 ms block shows as >= 95 ms.
    assert asyncio.run(blocked()) >= 0.1 - 0.005


class TestReferenceSnapshot:
    DATA: ClassVar[dict[str, Any]] = {"id": NANO_A, "workspace_id": "ws-run-1", "n": 1}

    def recorded(self, tmp_path: Path) -> Path:
        path = tmp_path / "Suite" / "test_x.json"
        assert ReferenceSnapshot(path, literals=["ws-run-1"], record_version="3.0.12") == self.DATA
        return path

    def test_recording_writes_normalised_data_with_the_server_version(self, tmp_path: Path) -> None:
        document = json.loads(self.recorded(tmp_path).read_text())
        assert document == {
            "honcho_version": "3.0.12",
            "snapshot": {"id": "<id:1>", "n": 1, "workspace_id": "<workspace:1>"},
        }

    def test_other_run_ids_compare_equal_and_a_changed_value_shows_a_diff(
        self, tmp_path: Path
    ) -> None:
        path = self.recorded(tmp_path)
        other_run = {**self.DATA, "id": NANO_B, "workspace_id": "ws-run-2"}
        assert ReferenceSnapshot(path, literals=["ws-run-2"]) == other_run
        reference = ReferenceSnapshot(path, literals=["ws-run-2"])
        assert reference != {**other_run, "n": 2}
        assert '-  "n": 1,' in reference.diff_lines()
        assert '+  "n": 2,' in reference.diff_lines()

    def test_a_missing_file_fails_naming_it(self, tmp_path: Path) -> None:
        reference = ReferenceSnapshot(tmp_path / "Suite" / "test_gone.json")
        assert reference != {}
        assert reference.diff_lines() == [
            "the kit ships no reference snapshot Suite/test_gone.json (a packaging bug)"
        ]


def test_every_reference_test_has_a_shipped_snapshot_from_honcho_3_0_12() -> None:
    """Each HonchoAPIContract test that takes ``honcho_reference`` has its file, recorded from
    the Honcho version the kit targets, and no file is orphaned."""
    users = {
        name
        for name, func in vars(HonchoAPIContract).items()
        if name.startswith("test_") and "honcho_reference" in inspect.signature(func).parameters
    }
    files = sorted((REFERENCE_DIR / "HonchoAPIContract").glob("*.json"))
    assert users and {path.stem for path in files} == users
    assert {json.loads(path.read_text())["honcho_version"] for path in files} == {"3.0.12"}


def _sent(path: str, status: int | None, origin: str = "http://honcho.fake") -> RecordedRequest:
    return RecordedRequest("POST", path, {}, {}, status, origin)


@pytest.mark.parametrize(
    ("requests", "says"),
    [
        ([], "sent no request through ctx.transport"),
        ([_sent("/v3/workspaces", 201, "http://localhost:8000")], "but to http://localhost:8000"),
        ([_sent("/v3/v3/workspaces/w/peers", 404)], "its base URL ends in /v3"),
        ([_sent("/v3/workspaces", 401)], "Fix: send ctx.target.api_key"),
        ([_sent("/api/memories", 404)], "miss Honcho's routes"),
    ],
    ids=["no-request", "other-host", "doubled-v3", "no-key", "wrong-paths"],
)
def test_canary_names_the_cause(requests: list[RecordedRequest], says: str) -> None:
    verdict = judge("Mine", "http://honcho.fake", requests, ["it broke"], None, calls="add()")
    assert verdict.problem is not None and says in verdict.problem
    assert "'it broke'" in verdict.problem  # what the backend logged is quoted


def test_canary_passes_when_a_request_was_answered() -> None:
    sent = [_sent("/v3/workspaces", 201), _sent("/v3/workspaces/w/sessions/s/messages", 422)]
    assert judge("Mine", "http://honcho.fake", sent, [], None, calls="add()").problem is None
