"""A stand-in LLM for a real Honcho: deterministic, offline, OpenAI-compatible.

Point Honcho 3.0.12 at it (``LLM_OPENAI_BASE_URL``, ``LLM_OPENAI_API_KEY``,
``EMBEDDING_MODEL_CONFIG__OVERRIDES__BASE_URL``) and its deriver, summaries, dreams
and dialectic chat run without keys, producing what the fake Honcho's toy deriver
produces (``fake_honcho.standin.replies`` says how). ``fake-honcho-llm`` serves it;
``StandIn().serve()`` runs it in a thread for tests.
"""

from fake_honcho._extras import FAKE, require

require("fake_honcho.standin", "fake", FAKE)

from fake_honcho.standin.server import StandIn  # noqa: E402 (after the extra's check)

__all__ = ["StandIn", "honcho_environment"]


def honcho_environment(base_url: str) -> dict[str, str]:
    """The environment a real Honcho needs to use the stand-in at ``base_url`` (``.../v1``).

    ``DERIVER_FLUSH_ENABLED`` skips the 512-token batch gate (else small sessions wait
    30 minutes) and ``CACHE_DEFAULT_TTL_SECONDS=1`` keeps the API's peer and session
    cache from hiding a fresh card or summary for 5 minutes.
    """
    return {
        "LLM_OPENAI_BASE_URL": base_url,
        "LLM_OPENAI_API_KEY": "standin",
        "EMBEDDING_MODEL_CONFIG__OVERRIDES__BASE_URL": base_url,
        "DERIVER_FLUSH_ENABLED": "true",
        "CACHE_DEFAULT_TTL_SECONDS": "1",
    }
