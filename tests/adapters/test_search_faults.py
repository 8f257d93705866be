"""Search serve's connection faults reach tavily-python as a real timeout and a real reset do: the
client's own TimeoutError and requests' ConnectionError (ECONNRESET), never an HTTP 500; an HTTP
fault stays the HTTP error Tavily answers with."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from agentworld_plugins.adapters.search.api import create_search_app

from agentworld_plugins import World
from agentworld_plugins.http_guard import serving
from agentworld_plugins.perturbations.config import perturbations_from_options
from agentworld_plugins.plugins import get_plugin_manager

tavily = pytest.importorskip("tavily", reason="tavily-python is in the dev extra")


def _app(kind: str) -> Any:
    """Search serve's app over the offline world, every call faulted with ``kind``."""
    spec = (f"faults:kinds={kind}",)
    registry = get_plugin_manager().registry
    return create_search_app(
        World(backend="offline"), perturbations=perturbations_from_options(spec, None, registry)
    )


def test_a_timeout_fault_is_the_clients_own_timeout() -> None:
    """The server never answers: the client gives up after its own timeout (1 s here) and raises
    what it raises for a real one; nothing is asserted about how long that took."""
    with serving(_app("timeout"), lifespan="on") as base:
        client = tavily.TavilyClient(api_key="tvly-any", api_base_url=base)
        with pytest.raises(tavily.errors.TimeoutError):
            client.search("Thera", timeout=1)


def test_a_connection_reset_fault_resets_the_connection() -> None:
    with serving(_app("connection_reset"), lifespan="on") as base:
        client = tavily.TavilyClient(api_key="tvly-any", api_base_url=base)
        with pytest.raises(requests.exceptions.ConnectionError) as info:
            client.search("Thera")
    assert "Connection reset by peer" in str(info.value)


def test_an_http_fault_stays_an_http_error() -> None:
    with serving(_app("rate_limit"), lifespan="on") as base:
        client = tavily.TavilyClient(api_key="tvly-any", api_base_url=base)
        with pytest.raises(tavily.errors.UsageLimitExceededError):
            client.search("Thera")
