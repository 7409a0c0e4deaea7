"""Scripted exchanges for what 3.2 adds (main + pull requests 931 and 952).

A real server without an LLM key cannot create conclusions (each needs an embedding),
so these exchanges cover what it answers without one: the conclusion GET route and its
404s, and the conclusion filters on ``source_ids``, ``times_derived``, ``level`` and
``id``, their 422s included (``source_ids`` at 3.1 too, where it is a JSONB column).
Chat evidence has no server source here (see the divergence register): nothing to record.
"""

from __future__ import annotations

from typing import Any

from fake_honcho.drift.exchange import Script, Step
from fake_honcho.versions import Feature

__all__ = ["SCRIPTS_V32"]

W = "/v3/workspaces/{ws}"
MISSING = "AAAAAAAAAAAAAAAAAAAAA"  # shaped like a conclusion id, never one


def _listed(filters: Any, note: str) -> Step:
    return Step("POST", W + "/conclusions/list", json={"filters": filters}, note=note)


CONCLUSION_GET = Script(
    "conclusion_get",
    [
        Step("POST", "/v3/workspaces", json={"id": "{ws}"}),
        Step("GET", W + f"/conclusions/{MISSING}", note="a missing conclusion"),
        Step("GET", W + "/conclusions/x", note="an id of any shape is looked up"),
        Step("GET", W + "/conclusions/list", note="GET on the list route is a lookup of 'list'"),
        Step("GET", "/v3/workspaces/{ws}-none/conclusions/" + MISSING, note="a missing workspace"),
        Step("DELETE", W + f"/conclusions/{MISSING}", note="DELETE beside it is unchanged"),
    ],
    "GET /v3/workspaces/{w}/conclusions/{id} (3.0.12: 405, only DELETE).",
    needs=Feature.CONCLUSION_GET,
)

CONCLUSION_FILTERS = Script(
    "conclusion_filters",
    [
        Step("POST", "/v3/workspaces", json={"id": "{ws}"}),
        _listed({"source_ids": {"contains": MISSING}}, "membership"),
        _listed({"source_ids": MISSING}, "a bare id: membership"),
        _listed({"source_ids": [MISSING, "B" * 21]}, "a bare list: every id"),
        _listed({"source_ids": {"in": [MISSING]}}, "any of the ids"),
        _listed({"source_ids": {"in": []}}, "any of none: no condition"),
        _listed({"source_ids": []}, "every one of none: no condition"),
        _listed({"source_ids": "*"}, "wildcard"),
        _listed({"source_ids": ["*"]}, "wildcard in a list"),
        _listed({"source_ids": {"contains": "*"}}, "wildcard operand"),
        _listed({"NOT": [{"source_ids": MISSING}]}, "negated"),
        _listed({"source_ids": {"in": "a"}}, "'in' needs a list"),
        _listed({"source_ids": {"contains": 5}}, "entries must be strings"),
        _listed({"source_ids": [""]}, "entries must not be empty"),
        _listed({"source_ids": {"gt": "a"}}, "no other operator"),
        _listed({"source_ids": 5}, "no other value"),
        _listed({"source_ids": None}, "null is not a filter here"),
        _listed({"times_derived": {"gte": 2}}, "times derived, compared"),
        _listed({"times_derived": 1}, "times derived, equal"),
        _listed({"times_derived": "x"}, "times derived must be a number"),
        _listed({"level": "deductive"}, "level"),
        _listed({"id": {"in": [MISSING]}}, "ids, as the SDK's get_many sends them"),
    ],
    "Conclusion filters on the attribution columns (pull request 952).",
    needs=Feature.CONCLUSION_ATTRIBUTION,
)

SOURCE_IDS_ACROSS_VERSIONS = Script(
    "source_ids_filters",
    [
        Step("POST", "/v3/workspaces", json={"id": "{ws}"}),
        _listed({"source_ids": {"contains": [MISSING]}}, "a list under contains"),
        _listed({"source_ids": {"contains": MISSING}}, "an id under contains (SDK 2.7)"),
        _listed({"source_ids": [MISSING]}, "a bare list"),
        _listed({"source_ids": {"x": 1}}, "an object"),
        _listed({"source_ids": None}, "null"),
        _listed({"source_ids": {"ne": None}}, "not null"),
    ],
    "The same source_ids filters where 3.1 reads the JSONB column and 3.2 the links.",
    needs=Feature.STRICT_FILTERS,
)

SCRIPTS_V32: tuple[Script, ...] = (CONCLUSION_GET, CONCLUSION_FILTERS, SOURCE_IDS_ACROSS_VERSIONS)
