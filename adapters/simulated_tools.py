"""Substituted LangChain tools: the original's name, description and schemas, answered by a world
session (see :mod:`agentworld_plugins.adapters.langchain`, the public front, for the tour).

The middleware (``_middleware.py``) builds on these; keeping them here, below both, is what lets
``langchain.py`` re-export the two ways in without an import cycle.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.tools import BaseTool, ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field
from pydantic_core import to_jsonable_python

from agentworld_plugins.errors import ActionValidationError, ConfigError

from ._world import SessionGroup
from .search.extract_tools import FETCH_TOOL_NAMES, FetchPage, is_fetch_like
from .search.flows import arun_flow, run_flow
from .search.tools import SEARCH_TOOL_NAMES, search_tool_class

if TYPE_CHECKING:
    from agentworld_plugins.session import Observation, Session, World


__all__ = [
    "SessionGroup",
    "SimulatedTool",
    "is_search_tool",
    "simulate_tool",
    "simulate_tools",
    "tool_definition",
]


def tool_definition(tool: BaseTool) -> dict[str, Any]:
    """An MCP-style definition (``name``, ``description``, ``inputSchema``) of a LangChain tool,
    built from what the model sees (``convert_to_openai_tool``), injected arguments left out."""
    function = convert_to_openai_tool(tool)["function"]
    schema = function.get("parameters") or {"type": "object", "properties": {}}
    return {"name": function["name"], "description": function.get("description", ""), "inputSchema": schema}


def _action_key(group: SessionGroup, domain: str) -> str:
    """The key a domain's Action uses for the tool name (``tool_name`` or ``name``)."""
    action = group.world.pm.registry.domain(domain).Action
    fields = action.model_fields
    if "tool_name" in fields:
        return "tool_name"
    if "name" in fields and "arguments" in fields:
        return "name"
    raise ConfigError(
        f"Domain {domain!r} does not take tool calls, so LangChain tools cannot be simulated in it",
        hint="use domain='mcp' (or 'swe' for coding tools, 'search' for search tools)",
    )


def _fill_defaults(schema: dict[str, Any], value: Any) -> Any:
    """``value`` with the ``default`` of every missing property of ``schema`` filled in (nested)."""
    if not isinstance(value, dict) or not isinstance(schema, dict):
        return value
    out = dict(value)
    for key, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        if key not in out and "default" in prop:
            out[key] = json.loads(json.dumps(prop["default"]))
        elif key in out and prop.get("type") == "object":
            out[key] = _fill_defaults(prop, out[key])
    return out


def _error_handling(tool: BaseTool) -> Any:
    """The replacement's ``handle_tool_error``: the original's when set, else True (errors are
    returned as text); an original explicitly set to False keeps raising."""
    value = tool.handle_tool_error
    if value or "handle_tool_error" in tool.model_fields_set:
        return value
    return True


def _artifact(observation: Observation) -> Any:
    structured = observation.metadata.get("structured_content")
    if structured is not None:
        return structured
    try:
        return json.loads(observation.text)
    except (json.JSONDecodeError, ValueError):
        return None


class SimulatedTool(BaseTool):
    """A stand-in for a LangChain tool whose calls are answered by a world session.

    Build it with :func:`simulate_tool` or :func:`simulate_tools`; the original is kept in
    ``original`` (never called).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    group: Any = Field(default=None, exclude=True, description="The SessionGroup answering calls.")
    domain: str = Field(default="mcp", description="The world domain of non-search calls.")
    original: Any = Field(default=None, exclude=True, description="The tool this one stands in for.")
    search_twin: Any = Field(default=None, exclude=True, description="Does the work of search tools.")
    action_key: str = Field(default="tool_name", exclude=True)

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments as the model sent them: JSON values, injected arguments left out,
        defaults filled."""
        schema = self.tool_call_schema
        if isinstance(schema, dict):
            given = dict(kwargs)
            if args and isinstance(args[0], str):
                first = next(iter(schema.get("properties") or {}), "input")
                given.setdefault(first, args[0])
            given = to_jsonable_python(given, fallback=str)
            self._check(given)
            return _fill_defaults(schema, given)
        model: Any = schema  # a pydantic model class (v2; v1 models only get their values dumped)
        fields = getattr(model, "model_fields", None)
        if fields is None:
            fields = getattr(model, "__fields__", {})
        if args and isinstance(args[0], str) and fields:
            kwargs = {next(iter(fields)): args[0], **kwargs}
        data = {k: v for k, v in kwargs.items() if k in fields}
        try:
            dumped = model.model_validate(data).model_dump(mode="json", by_alias=True)
        except Exception:  # pydantic v1, or a type that cannot round-trip: send what was given
            dumped = to_jsonable_python(data, fallback=str)
        config = getattr(self.args_schema, "model_config", None)  # the call schema drops it
        if isinstance(config, dict) and config.get("extra") == "allow":
            # arguments beyond the fields reach the real tool's **kwargs (langchain-tavily reads them)
            extra = {k: v for k, v in kwargs.items() if k not in fields and k not in dumped}
            dumped.update(to_jsonable_python(extra, fallback=str))
        return {k: v for k, v in dumped.items() if v is not None}

    def _check(self, arguments: dict[str, Any]) -> None:
        """A JSON-schema tool's arguments checked strictly with jsonschema (LangChain hands them to
        the function unconverted: "yes" is not a boolean), reported in FastMCP's text."""
        schema = self.args_schema
        if isinstance(schema, dict) and self.search_twin is None:
            from agentworld_plugins.tool_arguments import check_arguments

            problem = check_arguments(self.name, arguments, schema, strict=True)
            if problem:
                raise ToolException(problem)

    def _action(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {self.action_key: self.name, "arguments": arguments}

    def _result(self, observation: Observation) -> Any:
        if observation.is_error:
            raise ToolException(observation.text)
        if self.response_format == "content_and_artifact":
            return observation.text, _artifact(observation)
        return observation.text

    def _run(self, *args: Any, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any) -> Any:
        arguments = self._arguments(args, kwargs)
        if self.search_twin is not None:
            return run_flow(self.search_twin.flow(arguments), self.group)
        try:
            observation = self.group.step(self.domain, self._action(arguments))
        except ActionValidationError as exc:
            raise ToolException(exc.message) from None
        return self._result(observation)

    async def _arun(
        self, *args: Any, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any
    ) -> Any:
        arguments = self._arguments(args, kwargs)
        if self.search_twin is not None:
            return await arun_flow(self.search_twin.flow(arguments), self.group)
        try:
            observation = await self.group.astep(self.domain, self._action(arguments))
        except ActionValidationError as exc:
            raise ToolException(exc.message) from None
        return self._result(observation)

    @property
    def session(self) -> Session:
        """The world session this tool's calls go to."""
        from .search.flows import SEARCH_DOMAIN

        return self.group.session(SEARCH_DOMAIN if self.search_twin is not None else self.domain)


def _copied(tool: BaseTool) -> dict[str, Any]:
    """The attributes a replacement keeps from the original."""
    schema = tool.args_schema
    if schema is None:  # schema derived from the tool's own _run signature: keep that one
        schema = tool.get_input_schema()
    fields: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "args_schema": schema,
        "return_direct": tool.return_direct,
        "response_format": tool.response_format,
        "handle_tool_error": _error_handling(tool),
        "handle_validation_error": tool.handle_validation_error,
        "tags": tool.tags,
        "metadata": tool.metadata,
        "verbose": tool.verbose,
    }
    if "extras" in type(tool).model_fields:
        fields["extras"] = getattr(tool, "extras", None)
    return fields


def _fetch_like(tool: BaseTool) -> bool:
    if tool.name not in FETCH_TOOL_NAMES:
        return False
    return is_fetch_like(tool.name, tool_definition(tool)["inputSchema"].get("properties"))


def is_search_tool(tool: BaseTool, search: bool) -> bool:
    """Whether ``tool`` goes to the search world: a search tool's name (``tavily_search``,
    ``tavily_extract``, ...) or a ``fetch``-like tool taking a URL."""
    return search and (tool.name in SEARCH_TOOL_NAMES or _fetch_like(tool))


def simulate_tool(
    tool: BaseTool, group: SessionGroup, domain: str = "mcp", *, search: bool = True
) -> SimulatedTool:
    """One replacement answered by ``group``. Prefer :func:`simulate_tools`, which also tells the
    session about the tools."""
    if not isinstance(tool, BaseTool):
        raise ConfigError(
            f"simulate_tools needs LangChain BaseTool objects, got {type(tool).__name__}",
            hint="wrap plain functions with langchain_core.tools.tool or StructuredTool.from_function",
        )
    twin: Any = None
    key = "tool_name"
    if is_search_tool(tool, search):
        cls = search_tool_class(tool.name)
        if cls is None:  # a fetch-like tool: reads pages of the search world by URL
            twin = FetchPage(group=group, name=tool.name)
        else:
            twin = cls(group=group, **cls.options_from(tool))
    else:
        key = _action_key(group, domain)
    return SimulatedTool(
        **_copied(tool), group=group, domain=domain, original=tool, search_twin=twin, action_key=key
    )


def simulate_tools(
    tools: Iterable[BaseTool],
    world: World | None = None,
    session: Session | None = None,
    domain: str = "mcp",
    *,
    seed: int | None = None,
    perturbations: Iterable[Any] = (),
    search: bool = True,
    **context: Any,
) -> list[BaseTool]:
    """Replacements for ``tools`` that share one world session per domain.

    ``world`` defaults to ``World()`` (``AGENTWORLD_*`` settings, else the offline world);
    ``session`` is an existing session to use (its domain wins over ``domain``). Tools named like
    the search tools (``tavily_search``, ``google_serper``, ...) go to the search world and keep
    their result shape; ``search=False`` sends them to ``domain`` like any other. ``context``
    (``world_bible``, ``corpus``, ``task``, ...) reaches every session.
    """
    tools = list(tools)
    if session is not None:
        domain = session.domain.name
    group = SessionGroup(world, session=session, seed=seed, perturbations=perturbations, **context)
    plain = [t for t in tools if isinstance(t, BaseTool) and not is_search_tool(t, search)]
    if plain and domain == "search":
        raise ConfigError(
            f"The search world only answers search tools; {plain[0].name!r} is not one",
            hint="simulate it in another domain (domain='mcp'), or pass a session of that domain",
        )
    group.add_tools(domain, [tool_definition(t) for t in plain])
    return [simulate_tool(t, group, domain, search=search) for t in tools]
