"""Stand-in for DeerFlow's ``HonchoMemoryManager``, as its interface is at f1f4af99: the
client is built in ``model_post_init`` without a transport and kept in ``_client``, the
parsed config in ``_config``; ``from_config(backend_config=None, ...)`` drops every host
hook, ``transport=`` included."""

from typing import Any, Literal

from honcho_backend.honcho_manager import HonchoMemoryManager as _KitManager

from .client import HonchoClient


class HonchoMemoryManager(_KitManager):
    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._client = HonchoClient(self._config)

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any] | None = None,
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> "HonchoMemoryManager":
        return cls(backend_config=backend_config or {}, mode=mode)
