"""Stand-in for DeerFlow's ``HonchoMemoryManager``, as its interface is at f1f4af99: the
client is built in ``model_post_init`` without a transport and kept in ``_client``, the
parsed config in ``_config``; ``from_config(backend_config=None, ...)`` drops every host
hook, ``transport=`` included.

Its writes behave as DeerFlow's do at that commit (``tests/plugin/test_deerflow_backends.py``
proves it on DeerFlow's own code): each ``add`` posts every message of the thread, earlier
turns included, in one request, however many there are. So the guide's example gives here
the verdicts it gives on DeerFlow itself."""

from collections.abc import Sequence
from typing import Any, Literal

from honcho_backend.config import session_id_for
from honcho_backend.honcho_manager import HonchoMemoryManager as _KitManager
from honcho_backend.messages import select_messages

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

    def _write(self, thread_id: str, messages: Sequence[Any] | None, user_id: str | None) -> None:
        if not user_id or not thread_id:
            return
        config = self._config
        outgoing = select_messages(
            messages or [], keep_hidden=None, char_limit=config.effective_message_char_limit
        )
        if not outgoing:
            return
        workspace, session = config.workspace_for(user_id), session_id_for(thread_id)
        peers = {"user": config.user_peer_for(user_id), "assistant": config.assistant_peer}
        self._establish(workspace, session, peers)
        every = [{"peer_id": peers[m.role], "content": m.text} for m in outgoing]
        self._http().add_messages(workspace, session, every)
