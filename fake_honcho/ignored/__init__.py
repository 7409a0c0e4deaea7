"""The documented path of the ignored-field guard (``IgnoredFieldWarning``).

It lives in ``fake_honcho.http.ignored``, where request bodies are read.
"""

from fake_honcho.http.ignored import (
    MODES,
    IgnoredField,
    IgnoredFieldsMode,
    IgnoredFieldWarning,
    later_fields,
)

__all__ = ["MODES", "IgnoredField", "IgnoredFieldWarning", "IgnoredFieldsMode", "later_fields"]
