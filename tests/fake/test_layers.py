"""fake_honcho is built in layers, and an import only ever runs down them.

    base (versions, errors)  <  store/  <  search/  <  deriver/  <  http/  <  harness/
        <  openapi/  <  routes/  <  the top: fake.py, cli.py, drift/, standin/, and the
                                     documented paths (auth.py, embedding.py, ...)

A module may import its own layer and any layer below it, never one above: the store
knows nothing of HTTP, HTTP nothing of the harness, and only the top knows ``FakeHoncho``
(below it, the fake is reached through small protocols: ``store.world.World``,
``http.protocol.Server``, ``harness.control.Harness``). Imports under ``TYPE_CHECKING``
and inside functions count too: they are arrows all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "fake_honcho"

LAYERS = [
    {"versions", "errors", "_version", "_extras"},
    {"store"},
    {"search"},
    {"deriver"},
    {"http"},
    {"harness"},
    {"openapi"},
    {"routes"},
]
TOP = len(LAYERS)


def layer_of(module: str) -> int:
    """The layer of ``fake_honcho.<part>...``; anything not listed is the top."""
    parts = module.split(".")
    if len(parts) < 2:
        return TOP  # the package itself (it hands FakeHoncho on)
    return next((i for i, names in enumerate(LAYERS) if parts[1] in names), TOP)


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every fake_honcho module ``path`` imports, wherever the import stands."""
    package = module_of(path) if path.name == "__init__.py" else module_of(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from fake_honcho.store import scopes`` imports the module store.scopes
            found.update(f"{base}.{alias.name}" for alias in node.names)
            found.add(base)
    return {name for name in found if name.split(".")[0] == "fake_honcho"}


def known(name: str) -> str:
    """``name`` cut back to a module or package that exists."""
    while name.count("."):
        relative = Path(*name.split(".")[1:])
        if (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative).is_dir():
            return name
        name = name.rpartition(".")[0]
    return name


GRAPH = {
    module_of(path): {known(name) for name in imports_of(path)} - {module_of(path)}
    for path in sorted(PACKAGE.rglob("*.py"))
}


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if layer_of(m) < TOP))
def test_imports_only_run_down(module: str) -> None:
    upward = sorted(name for name in GRAPH[module] if layer_of(name) > layer_of(module))
    assert not upward, f"{module} (layer {layer_of(module)}) imports a higher layer: {upward}"


def test_the_layer_rule_sees_real_imports() -> None:
    """The walk above finds what it must: a known downward import, and the fake at the top."""
    assert "fake_honcho.store.state" in GRAPH["fake_honcho.http.auth"]
    assert "fake_honcho.fake" in GRAPH["fake_honcho.cli"]
    assert layer_of("fake_honcho.fake") == TOP
    assert layer_of("fake_honcho.routes.messages") > layer_of("fake_honcho.http.endpoint")


def test_no_import_cycles() -> None:
    """No module reaches itself through its imports (a package's own ``__init__`` aside:
    importing ``a.b`` runs ``a/__init__.py`` first, which is no cycle of ours)."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for name in sorted(GRAPH.get(module, ())):
            if name not in GRAPH or module.startswith(name + "."):
                continue
            if state.get(name) == 1:
                cycles.append([*path[path.index(name) :], name])
            elif name not in state:
                visit(name, [*path, name])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
