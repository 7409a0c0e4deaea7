"""The kit's release version: the one place it is written (``pyproject.toml`` reads it).

``CHANGELOG.md`` names the same version at its newest entry, and both console scripts
print it for ``--version`` (a test holds the three together).
"""

__version__ = "0.1.0"


def version_line(prog: str) -> str:
    """What ``PROG --version`` prints: the program, the distribution and its version."""
    return f"{prog} (honcho-contract-kit) {__version__}"
