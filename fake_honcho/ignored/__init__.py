"""The documented path of the ignored-field guard (``IgnoredFieldWarning``).

It lives in ``fake_honcho.http.ignored``, where request bodies are read; these are its names.
"""

from fake_honcho.http import ignored as _moved
from fake_honcho.http.ignored import *  # noqa: F403

__all__ = _moved.__all__
