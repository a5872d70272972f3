"""LLM layer: three logical clients (extraction, scoring, generation) over anthropic / OpenAI-compatible
SDKs or the offline `local` provider. Build them once per process with `build_llm_clients(LLMSettings())`.
"""

from shared.llm.base import LLMClient, LLMClientName, LLMResult, LLMUsage, TextDelta, TextResult
from shared.llm.factory import LLMClients, build_llm_clients
from shared.llm.local import LLMOfflineError
from shared.llm.observe import add_usage
from shared.llm.settings import LLMClientSettings, LLMSettings, ModelPrice

__all__ = [
    "LLMClient",
    "LLMClientName",
    "LLMClientSettings",
    "LLMClients",
    "LLMOfflineError",
    "LLMResult",
    "LLMSettings",
    "LLMUsage",
    "ModelPrice",
    "TextDelta",
    "TextResult",
    "add_usage",
    "build_llm_clients",
]
