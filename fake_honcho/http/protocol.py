"""What the HTTP layer and the handlers need of the fake: :class:`Server`, a small protocol.

``fake_of(request)`` (``fake_honcho.http.endpoint``) returns it; ``FakeHoncho`` satisfies
it, and nothing below ``fake_honcho/fake.py`` imports the fake itself.
"""

from __future__ import annotations

from typing import Protocol

from fake_honcho.deriver import Deriver
from fake_honcho.http.ignored import IgnoredFieldsMode
from fake_honcho.http.keyring import Keyring
from fake_honcho.http.schemas import SchemaSet
from fake_honcho.search.semantic import MessageEmbeddings, Nearness
from fake_honcho.store.world import World

__all__ = ["Server"]


class Server(World, Protocol):
    """A :class:`~fake_honcho.store.world.World` served over HTTP: its schemas and checks,
    its keys, and the deriver and embeddings its handlers call."""

    schemas: SchemaSet
    strict: bool
    validate: bool
    ignored_fields: IgnoredFieldsMode
    keyring: Keyring | None
    deriver: Deriver
    embeddings: MessageEmbeddings | None
    nearness: Nearness

    def warned_once(self, key: tuple[str, ...]) -> bool: ...
