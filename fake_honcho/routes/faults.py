"""``/_fake/faults``: the fault-injection control routes (curl-able JSON), over the rules
of ``fake_honcho.harness.faults``: GET/POST/DELETE /_fake/faults, GET/DELETE /_fake/faults/{id}."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fake_honcho.harness.faults import FaultRule, Faults
from fake_honcho.http.permissions import ADMIN_ONLY, guarded


def _faults_of(request: Request) -> Faults:
    faults: Faults = request.app.state.fake.faults
    return faults


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


async def list_faults(request: Request) -> JSONResponse:
    return JSONResponse({"rules": [fault.to_json() for fault in _faults_of(request)]})


async def add_fault(request: Request) -> Response:
    try:
        data = json.loads(await request.body())
    except ValueError:
        return _error(422, "the body must be a JSON fault rule")
    try:
        rule = FaultRule.from_json(data)
    except (TypeError, ValueError) as exc:
        return _error(422, str(exc))
    return JSONResponse(_faults_of(request).add(rule).to_json(), status_code=201)


async def clear_faults(request: Request) -> JSONResponse:
    return JSONResponse({"removed": _faults_of(request).clear()})


async def get_fault(request: Request) -> JSONResponse:
    fault_id = request.path_params["fault_id"]
    try:
        return JSONResponse(_faults_of(request).get(fault_id).to_json())
    except KeyError:
        return _error(404, f"Fault rule {fault_id} not found")


async def remove_fault(request: Request) -> Response:
    fault_id = request.path_params["fault_id"]
    try:
        _faults_of(request).remove(fault_id)
    except KeyError:
        return _error(404, f"Fault rule {fault_id} not found")
    return Response(status_code=204)


routes = [
    guarded(ADMIN_ONLY, Route("/_fake/faults", list_faults, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/faults", add_fault, methods=["POST"])),
    guarded(ADMIN_ONLY, Route("/_fake/faults", clear_faults, methods=["DELETE"])),
    guarded(ADMIN_ONLY, Route("/_fake/faults/{fault_id}", get_fault, methods=["GET"])),
    guarded(ADMIN_ONLY, Route("/_fake/faults/{fault_id}", remove_fault, methods=["DELETE"])),
]
