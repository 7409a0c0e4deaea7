"""The documented path of the fake's auth (``from fake_honcho.auth import mint_jwt``).

It lives in ``fake_honcho.http.auth``, in the HTTP layer it guards; these are its names.
"""

from fake_honcho.http import auth as _moved
from fake_honcho.http.auth import *  # noqa: F403

__all__ = _moved.__all__
