"""Which optional dependencies each part of the kit needs, checked without importing them.

The core install is ``honcho_backend`` alone; the fake server and the pytest plugin
come with extras. Their entry points (``fake-honcho``, the ``pytest11`` plugin) and
their packages' public names (``from fake_honcho import FakeHoncho``, ``import
contract_tests``) look here first, so a missing extra is one clear line naming it
instead of a ``ModuleNotFoundError`` for a dependency the user never chose.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from collections.abc import Mapping
from urllib.parse import unquote, urlparse

DISTRIBUTION = "honcho-contract-kit"

# distribution name -> the module it provides, for each extra (without its sub-extras);
# a requirement with an environment marker (uvloop, not on Windows) is a speed-up and
# is not checked
FAKE: Mapping[str, str] = {
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "httptools": "httptools",
    "jsonschema": "jsonschema",
    "python-multipart": "python_multipart",
    "PyStemmer": "Stemmer",
    "tiktoken": "tiktoken",
    "PyJWT": "jwt",
}
CONTRACT: Mapping[str, str] = {
    **FAKE,
    "pytest-xdist": "xdist",
    "syrupy": "syrupy",
}
# ``fake-honcho fuzz`` generates its requests with schemathesis.
FUZZ: Mapping[str, str] = {**FAKE, "schemathesis": "schemathesis"}
# pytest is running whenever the plugin is asked, so only an import outside pytest
# (``import contract_tests`` in a script) can find it missing.
PYTEST: Mapping[str, str] = {"pytest": "pytest"}


def missing(needs: Mapping[str, str]) -> list[str]:
    """The distributions in ``needs`` whose module cannot be found (none imported)."""
    return [dist for dist, module in needs.items() if importlib.util.find_spec(module) is None]


def install_line(extra: str) -> str:
    """The pip command that adds ``extra`` to this install of the kit.

    From where the kit was installed, as pip recorded it (PEP 610's ``direct_url.json``):
    a clone (``pip install '/path/to/clone[fake]'``, ``-e`` if it was editable), a wheel
    file or a git URL; by name, from the package index, when pip recorded no source.
    """
    by_name = f"pip install '{DISTRIBUTION}[{extra}]'"
    try:
        recorded = importlib.metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return by_name
    source = json.loads(recorded) if recorded else {}
    url = source.get("url", "")
    if "vcs_info" in source:
        vcs = source["vcs_info"]
        return f"pip install '{DISTRIBUTION}[{extra}] @ {vcs['vcs']}+{url}@{vcs['commit_id']}'"
    if not url.startswith("file://"):
        return by_name
    editable = "-e " if source.get("dir_info", {}).get("editable") else ""
    return f"pip install {editable}'{unquote(urlparse(url).path)}[{extra}]'"


def missing_line(prog: str, extra: str, absent: list[str]) -> str:
    """The one line an entry point prints when its extra is not installed."""
    return (
        f"{prog}: the '{extra}' extra is not installed (missing {', '.join(absent)}); "
        f"install it with: {install_line(extra)}"
    )


def require(part: str, extra: str, needs: Mapping[str, str]) -> None:
    """Raise one ``ImportError`` naming ``extra`` when any of ``needs`` is absent."""
    absent = missing(needs)
    if absent:
        raise ImportError(
            f"{part} needs the '{extra}' extra (missing {', '.join(absent)}): {install_line(extra)}"
        )
