"""The ``openai`` backend: one OpenAI-compatible chat-completions client with two transports.

- :mod:`.client`: :class:`OpenAIBackend` (base URLs, least-outstanding balancing, retries with
  backoff, a concurrency bound, model discovery);
- :mod:`.sdk`: the ``openai`` SDK transport (the default; honours proxies);
- :mod:`.transport`: the lean HTTP/1.1 transport, a fraction of the SDK's CPU per request
  (``agentworld bench`` uses it unless ``--http-client openai``).
"""

from __future__ import annotations

from .client import TRANSPORTS, OpenAIBackend, Transport, from_settings

#: the backend's earlier name (``backends.openai_compat``)
OpenAICompatBackend = OpenAIBackend

__all__ = ["TRANSPORTS", "OpenAIBackend", "OpenAICompatBackend", "Transport", "from_settings"]
