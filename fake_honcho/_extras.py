"""Which optional dependencies each part of the kit needs, checked without importing them.

The core install is ``honcho_backend`` alone; the fake server and the pytest plugin
come with extras. Their entry points (``fake-honcho``, the ``pytest11`` plugin) and
their packages' public names (``from fake_honcho import FakeHoncho``, ``import
contract_tests``) look here first, so a missing extra is one clear line naming it
instead of a ``ModuleNotFoundError`` for a dependency the user never chose.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping

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
    "quicktok-v1": "quicktok",
    "PyJWT": "jwt",
}
CONTRACT: Mapping[str, str] = {
    **FAKE,
    "pytest-xdist": "xdist",
    "syrupy": "syrupy",
}
# pytest is running whenever the plugin is asked, so only an import outside pytest
# (``import contract_tests`` in a script) can find it missing.
PYTEST: Mapping[str, str] = {"pytest": "pytest"}


def missing(needs: Mapping[str, str]) -> list[str]:
    """The distributions in ``needs`` whose module cannot be found (none imported)."""
    return [dist for dist, module in needs.items() if importlib.util.find_spec(module) is None]


def missing_line(prog: str, extra: str, absent: list[str]) -> str:
    """The one line an entry point prints when its extra is not installed."""
    return (
        f"{prog}: the '{extra}' extra is not installed (missing {', '.join(absent)}); "
        f"install it with: pip install '{DISTRIBUTION}[{extra}]'"
    )


def require(part: str, extra: str, needs: Mapping[str, str]) -> None:
    """Raise one ``ImportError`` naming ``extra`` when any of ``needs`` is absent."""
    absent = missing(needs)
    if absent:
        raise ImportError(
            f"{part} needs the '{extra}' extra (missing {', '.join(absent)}): "
            f"pip install '{DISTRIBUTION}[{extra}]'"
        )
