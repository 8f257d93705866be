"""LangChain tools answered by a simulated world: substituted tools and an agent middleware.

Two ways in, both keeping the agent's code as it is::

    from agentworld_plugins.adapters.langchain import simulate_tools, WorldModelToolMiddleware

    agent = create_agent(model, tools=simulate_tools(my_real_tools))       # same names and schemas
    agent = create_agent(model, tools=my_real_tools,
                         middleware=[WorldModelToolMiddleware(tools=["send_email", "tavily_search"])])

A substituted tool has the original's ``name``, ``description``, ``args_schema``,
``return_direct`` and ``response_format``, so ``convert_to_openai_tool`` gives the model the very
same definition. Its calls go to a world session instead of the real function: an MCP-style
session (``domain="mcp"``, the default) for ordinary tools, the search session for the search
tools of :mod:`agentworld_plugins.adapters.search` (``tavily_search``, ``google_serper``,
...). All tools substituted together share one session per domain, so what one tool creates,
another one lists. Arguments are validated the way the real tool validates them (its pydantic
schema; a JSON-schema dict with jsonschema, defaults filled), and a failure comes back as the
error text, unless the original tool's ``handle_tool_error`` was explicitly set to raise.

``WorldModelToolMiddleware`` needs the ``langchain`` package (the ``langchain`` extra: ``pip
install -e ".[langchain]"`` in the checkout); ``simulate_tools`` needs only langchain-core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._world import SessionGroup
from .simulated_tools import SimulatedTool, simulate_tool, simulate_tools, tool_definition

if TYPE_CHECKING:
    from ._middleware import WorldModelToolMiddleware

__all__ = [
    "SessionGroup",
    "SimulatedTool",
    "WorldModelToolMiddleware",
    "simulate_tool",
    "simulate_tools",
    "tool_definition",
]


def __getattr__(name: str) -> Any:
    # PEP 562: the middleware needs the optional ``langchain`` package, so it loads on first use.
    if name == "WorldModelToolMiddleware":
        try:
            from ._middleware import WorldModelToolMiddleware
        except ImportError as exc:
            if "langchain" not in str(exc) and "langgraph" not in str(exc):
                raise
            raise ImportError(
                "WorldModelToolMiddleware needs the langchain package: pip install -e '.[langchain]' in the checkout"
            ) from exc
        return WorldModelToolMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
