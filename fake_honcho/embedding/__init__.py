"""The documented path of the one embedder shared by the fake and the stand-in LLM.

It lives in ``fake_honcho.search.embedding``, beside the search that ranks by it; these
are its names.
"""

from fake_honcho.search import embedding as _moved
from fake_honcho.search.embedding import *  # noqa: F403

__all__ = _moved.__all__
