"""The documented path of the fake's auth (``mint_jwt`` and the keyrings).

It lives in ``fake_honcho.http.auth``, in the HTTP layer it guards.
"""

from fake_honcho.http.auth import (
    ADMIN_CLAIMS,
    CLAIMS_KEY,
    ISSUED_KEYS,
    AuthMiddleware,
    Claims,
    JwtKeyring,
    Keyring,
    OpaqueKeyring,
    claims_of,
    mint_jwt,
)

__all__ = [
    "ADMIN_CLAIMS",
    "CLAIMS_KEY",
    "ISSUED_KEYS",
    "AuthMiddleware",
    "Claims",
    "JwtKeyring",
    "Keyring",
    "OpaqueKeyring",
    "claims_of",
    "mint_jwt",
]
