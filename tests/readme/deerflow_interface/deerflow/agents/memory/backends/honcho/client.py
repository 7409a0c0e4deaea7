"""Stand-in: DeerFlow's ``HonchoClient(config, *, transport=None)``."""

from honcho_backend.client import HonchoClient

__all__ = ["HonchoClient"]
