"""DeerFlow's ``MemoryManager`` contract as data: recorded from its source, described from a class.

``record(git_dir)`` reads DeerFlow's own source (a bare clone of
``bytedance/deer-flow``) without importing it and returns the contract: the
classes' methods in order with each parameter's name, kind, annotation and
default, the fields and class variables, the error classes, the host hooks the
factory passes to ``from_config`` with their default providers' signatures, how
the bundled backends call ``should_keep_hidden_message``, and the
``manager_class`` forms the factory accepts. ``describe(cls)`` gives the same
shape for a live class (the mirror, a backend, or DeerFlow's class when it is
importable), so tests compare like with like.

Regenerate the committed record (no DeerFlow code is copied, only signatures)::

    python -m tests.backend.deerflow_contract GIT_DIR > tests/backend/data/deerflow_contract.json
"""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "deerflow_contract.json"
HARNESS = "backend/packages/harness/deerflow"
MANAGER = f"{HARNESS}/agents/memory/manager.py"
BACKENDS = f"{HARNESS}/agents/memory/backends"
CLASSES = ("MemoryManager", "MemoryCallbacks")
ERRORS = ("MemoryManagerError", "MemoryConflictError", "MemoryCorruptionError")
HOOK_PROVIDER_FILES = {"request_trace_context": f"{HARNESS}/trace_context.py"}

Params = list[list[str | None]]


def normalise(annotation: str | None) -> str | None:
    """One spelling per annotation (quotes, spacing), whatever wrote it."""
    return None if annotation is None else ast.unparse(ast.parse(annotation, mode="eval"))


# -- from source --------------------------------------------------------------


def _source_default(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    try:
        return repr(ast.literal_eval(node))
    except ValueError:
        return ast.unparse(node)


def _ast_params(args: ast.arguments) -> Params:
    params: Params = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = "POSITIONAL_ONLY" if index < len(args.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        params.append([arg.arg, kind, _annotation(arg.annotation), _source_default(default)])
    if args.vararg:
        params.append(
            [args.vararg.arg, "VAR_POSITIONAL", _annotation(args.vararg.annotation), None]
        )
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(
            [arg.arg, "KEYWORD_ONLY", _annotation(arg.annotation), _source_default(kw_default)]
        )
    if args.kwarg:
        params.append([args.kwarg.arg, "VAR_KEYWORD", _annotation(args.kwarg.annotation), None])
    return params


def _annotation(node: ast.expr | None) -> str | None:
    return None if node is None else ast.unparse(node)


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {ast.unparse(d) for d in node.decorator_list}


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    decorators = _decorators(node)
    kind = "classmethod" if "classmethod" in decorators else "method"
    return {
        "kind": "async" if isinstance(node, ast.AsyncFunctionDef) else kind,
        "abstract": "abstractmethod" in decorators,
        "params": _ast_params(node.args),
        "returns": _annotation(node.returns),
    }


def _class_from_source(node: ast.ClassDef) -> dict[str, Any]:
    fields: list[list[str | None]] = []
    class_vars: list[list[str | None]] = []
    methods: dict[str, Any] = {}
    validators: dict[str, dict[str, str | None]] = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            annotation = ast.unparse(item.annotation)
            default = None if item.value is None else ast.unparse(item.value)
            row = [item.target.id, annotation, default]
            (class_vars if annotation.startswith("ClassVar") else fields).append(row)
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            if item.name.startswith("_"):
                returns = [n.value for n in ast.walk(item) if isinstance(n, ast.Return)]
                validators[item.name] = {
                    "decorators": " ".join(sorted(_decorators(item))),
                    "returns": ast.unparse(returns[0])
                    if len(returns) == 1 and returns[0]
                    else None,
                }
                continue
            methods[item.name] = _function(item)
    return {
        "bases": [ast.unparse(b) for b in node.bases],
        "fields": fields,
        "class_vars": class_vars,
        "validators": validators,
        "methods": methods,
    }


def _host_hooks(tree: ast.Module) -> list[list[str]]:
    """``[hook name, provider expression]`` in the order ``_collect_host_hooks`` passes them."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "_collect_host_hooks":
            returned = next(n for n in ast.walk(node) if isinstance(n, ast.Return)).value
            assert isinstance(returned, ast.Dict)
            return [
                [ast.literal_eval(key), ast.unparse(value)]
                for key, value in zip(returned.keys, returned.values, strict=True)
                if key is not None
            ]
    raise LookupError("_collect_host_hooks not found")


def _provider_signature(tree: ast.Module, name: str) -> dict[str, Any] | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return {"params": _ast_params(node.args), "returns": _annotation(node.returns)}
    return None


def _bare_name(expression: str) -> str:
    return expression.split("(", 1)[0]


def _hook_call_sites(show: Any, paths: list[str], hook: str) -> list[dict[str, Any]]:
    """Where the bundled backends call ``hook`` and with what (argument source text)."""
    sites = []
    for path in paths:
        tree = ast.parse(show(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = ast.unparse(node.func)
            if called.split(".")[-1].lstrip("_") == hook:
                args = [ast.unparse(arg) for arg in node.args]
                sites.append({"path": path, "line": node.lineno, "args": args})
    return sites


def record(git_dir: str) -> dict[str, Any]:
    """The contract as DeerFlow's HEAD defines it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
        ).stdout

    def show(path: str) -> str:
        return git("show", f"HEAD:{path}")

    commit = git("rev-parse", "HEAD").strip()
    tree = ast.parse(show(MANAGER))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    hooks = _host_hooks(tree)
    providers: dict[str, Any] = {}
    for hook, provider in hooks:
        name = _bare_name(provider)
        source = tree
        if name in HOOK_PROVIDER_FILES:
            source = ast.parse(show(HOOK_PROVIDER_FILES[name]))
        providers[hook] = {"provider": provider, "signature": _provider_signature(source, name)}
    backend_files = [
        p
        for p in git("ls-tree", "-r", "--name-only", "HEAD", BACKENDS).split()
        if p.endswith(".py")
    ]
    backends = sorted(
        {
            p.split("/")[len(BACKENDS.split("/"))]
            for p in backend_files
            if p.count("/") > BACKENDS.count("/") + 1
        }
    )
    return {
        "source": {"repository": "bytedance/deer-flow", "commit": commit, "path": MANAGER},
        "errors": {name: [ast.unparse(b) for b in classes[name].bases] for name in ERRORS},
        "classes": {name: _class_from_source(classes[name]) for name in CLASSES},
        "host_hooks": providers,
        "hidden_message_hook_calls": _hook_call_sites(
            show, backend_files, "should_keep_hidden_message"
        ),
        "manager_class": {
            "registered_backends": backends,
            "forms": ["<registered backend folder name>", "pkg.mod:Cls", "pkg.mod.Cls"],
        },
    }


# -- from a live class ----------------------------------------------------------


def _live_params(function: Any) -> Params:
    params: Params = []
    for param in inspect.signature(function).parameters.values():
        if param.name in ("self", "cls"):
            continue
        annotation = None if param.annotation is param.empty else param.annotation
        default = None if param.default is param.empty else repr(param.default)
        if annotation is not None and not isinstance(annotation, str):
            annotation = inspect.formatannotation(annotation)
        params.append([param.name, param.kind.name, normalise(annotation), default])
    return params


def describe_method(cls: type, name: str) -> dict[str, Any]:
    raw = inspect.getattr_static(cls, name)
    function = raw.__func__ if isinstance(raw, classmethod) else raw
    kind = "classmethod" if isinstance(raw, classmethod) else "method"
    returns = inspect.signature(function).return_annotation
    return {
        "kind": "async" if inspect.iscoroutinefunction(function) else kind,
        "abstract": bool(getattr(function, "__isabstractmethod__", False)),
        "params": _live_params(function),
        "returns": None if returns is inspect.Signature.empty else normalise(str(returns)),
    }


def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def recorded_params(method: dict[str, Any]) -> Params:
    """A recorded method's parameters without ``self``/``cls``, annotations normalised."""
    return [
        [name, kind, normalise(annotation), default]
        for name, kind, annotation, default in method["params"]
        if name not in ("self", "cls")
    ]


if __name__ == "__main__":
    json.dump(record(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")
