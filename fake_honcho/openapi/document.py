"""The fake's OpenAPI 3.1 document, built from its route table and its schemas.

Paths and methods are the routes the fake serves (those it marks
``include_in_schema=False`` and its own ``/_fake/`` control routes left out, as a real
server leaves out ``/metrics`` and its docs pages); each operation's parameters and
bodies come from the operation declared beside each route
(:func:`fake_honcho.http.operations.api_route`), and every schema from the
fake's ``schemas/`` files, rewritten as components. Nothing is copied from a real
server's document: the tests compare the two.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from starlette.routing import BaseRoute, Route

from fake_honcho.http.operations import FORM, JSON, Answer, Body, Operation, operation_for
from fake_honcho.http.schemas import BASE_URI, SchemaSet
from fake_honcho.versions import HonchoVersion

__all__ = ["build_document", "documented_routes"]

OPENAPI_VERSION = "3.1.0"
COMPONENTS = "#/components/schemas/"
CONTROL_PREFIX = "/_fake/"
VALIDATION_ERROR = "HTTPValidationError"
_PARAM = re.compile(r"\{(\w+)\}")


def documented_routes(routes: Iterable[BaseRoute]) -> Iterator[Route]:
    """Every route the document describes, in route order."""
    for route in routes:
        if not isinstance(route, Route) or not route.include_in_schema:
            continue
        if not route.path.startswith(CONTROL_PREFIX):
            yield route


def build_document(
    routes: Iterable[BaseRoute], schemas: SchemaSet, version: HonchoVersion
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes`` over ``schemas``, as Honcho ``version``."""
    builder = _Builder(schemas, version)
    paths: dict[str, dict[str, Any]] = {}
    for route in documented_routes(routes):
        operation = operation_for(route, version)
        if operation is None:
            methods = "/".join(sorted(set(route.methods or ()) - {"HEAD"}))
            raise KeyError(
                f"no OpenAPI operation declared for {methods} {route.path} at Honcho "
                f"{version}: declare the route with api_route (fake_honcho.http.operations)"
            )
        paths.setdefault(route.path, {})[operation.method.lower()] = builder.operation(operation)
    honcho_version = version.name
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Honcho API",
            "version": honcho_version,
            "description": (
                f"The Honcho {honcho_version} API as fake-honcho serves it: an in-process "
                "test double of the Honcho memory server. Every route answers as a real "
                f"Honcho {honcho_version} does; see docs/divergences.md of "
                "honcho-contract-kit for the few known differences."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": builder.components(),
            "securitySchemes": {"HTTPBearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def operation_id(operation: Operation) -> str:
    """FastAPI's id: handler name, path and method, non-word characters as ``_``."""
    return re.sub(r"\W", "_", operation.name + operation.path) + "_" + operation.method.lower()


def _title(name: str) -> str:
    return name.replace("_", " ").title()


class _Builder:
    """Turns operations into OpenAPI objects, collecting the components they reference."""

    def __init__(self, schemas: SchemaSet, version: HonchoVersion) -> None:
        self.schemas = schemas
        self.version = version
        self.named: dict[str, dict[str, Any]] = {}  # component name -> schema
        self._pending: list[str] = []

    def operation(self, operation: Operation) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if operation.tag:
            found["tags"] = [operation.tag]
        found["summary"] = _title(operation.name)
        found["description"] = operation.description
        found["operationId"] = operation_id(operation)
        if operation.secured:
            found["security"] = [{"HTTPBearer": []}]
        parameters = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": {"type": "string", "title": _title(name)},
            }
            for name in _PARAM.findall(operation.path)
        ]
        parameters += [
            {
                "name": param.name,
                "in": "query",
                "required": param.required,
                "schema": {
                    **param.schema,
                    "title": _title(param.name),
                    "description": param.description,
                },
                "description": param.description,
            }
            for param in operation.parameters(self.version)
        ]
        if parameters:
            found["parameters"] = parameters
        if operation.body is not None:
            found["requestBody"] = self._body(operation.body, operation_id(operation))
        found["responses"] = self._responses(
            operation.answer, validated=bool(parameters) or operation.body is not None
        )
        return found

    def _body(self, body: Body, op_id: str) -> dict[str, Any]:
        if body.media == FORM:
            name = f"Body_{op_id}"
            self.named[name] = {**self._converted(body.schema), "title": name}
            schema: dict[str, Any] = {"$ref": COMPONENTS + name}
        else:
            schema = self._schema(body.schema, inline=body.inline)
        if body.optional:
            return {"content": {body.media: {"schema": {"anyOf": [schema, {"type": "null"}]}}}}
        return {"required": True, "content": {body.media: {"schema": schema}}}

    def _responses(self, answer: Answer, *, validated: bool) -> dict[str, Any]:
        success: dict[str, Any] = {"description": "Successful Response"}
        if not answer.empty:
            schema: dict[str, Any] = {}
            if answer.schema is not None:
                schema = self._schema(answer.schema, inline=answer.inline)
                if answer.many:
                    schema = {"type": "array", "items": schema}
            content: dict[str, Any] = {JSON: {"schema": schema}}
            if answer.stream:
                content["text/event-stream"] = {}
            success["content"] = content
        responses = {str(answer.status): success}
        if validated:
            responses["422"] = {
                "description": "Validation Error",
                "content": {JSON: {"schema": self._schema(VALIDATION_ERROR)}},
            }
        return responses

    def _schema(self, name: str, *, inline: bool = False) -> dict[str, Any]:
        """A reference to component ``name`` (collected), or its schema written out."""
        if inline:
            return self._converted(name)
        if name not in self.named:
            self.named[name] = {}  # placeholder: filled by components()
            self._pending.append(name)
        return {"$ref": COMPONENTS + name}

    def _converted(self, name: str) -> dict[str, Any]:
        document = {
            key: value
            for key, value in self.schemas.documents[name].items()
            if key not in ("$schema", "$id")
        }
        converted: dict[str, Any] = self._rewrite(document)
        return converted

    def _rewrite(self, schema: Any) -> Any:
        """References as component references; ``additionalProperties: false`` dropped.

        The fake's response schemas refuse unknown keys so strict mode catches a fake
        that answers too much; a client must not assume a server never adds a field.
        A reference to a plain value (a file of ours that is neither an object nor an
        enum, such as a constrained string) is written in place, as pydantic writes
        such types: only models and enums are components.
        """
        if isinstance(schema, list):
            return [self._rewrite(item) for item in schema]
        if not isinstance(schema, dict):
            return schema
        target = self._plain_target(schema.get("$ref"))
        if target is not None:
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            return {**self._rewrite(target), **self._rewrite(siblings)}
        rewritten: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "additionalProperties" and value is False:
                continue
            if key == "$ref" and isinstance(value, str):
                name = value.removeprefix(BASE_URI).removesuffix(".json")
                rewritten[key] = self._schema(name)["$ref"]
            else:
                rewritten[key] = self._rewrite(value)
        return rewritten

    def _plain_target(self, ref: Any) -> dict[str, Any] | None:
        """The schema ``ref`` names when it is a plain value (without title), else None."""
        if not isinstance(ref, str):
            return None
        document = self.schemas.documents.get(ref.removeprefix(BASE_URI).removesuffix(".json"))
        if document is None or document.get("type") == "object" or "enum" in document:
            return None
        return {k: v for k, v in document.items() if k not in ("$schema", "$id", "title")}

    def components(self) -> dict[str, Any]:
        while self._pending:
            name = self._pending.pop()
            self.named[name] = self._converted(name)
        return dict(sorted(self.named.items()))
