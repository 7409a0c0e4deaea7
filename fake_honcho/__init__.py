"""An in-process fake of the Honcho v3 REST API."""

from fake_honcho.fake import FakeHoncho

__all__ = ["FakeHoncho"]
