"""Search: the world model's web_search, web_extractor and dict_memory tools."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

MEMORY_OPERATIONS = ("add", "update", "retrieve", "retrieve_all", "remove", "remove_all")

SEARCH_TOOLS: list[dict[str, Any]] = [
    {
        "name": "web_search",
        "description": "Search the web. Returns, per query, numbered hits with URL, title, snippet and date.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "queries": {"type": "array", "items": {"type": "string"}, "description": "Queries to run."},
                "query": {"type": "string", "description": "A single query (alternative to queries)."},
            },
        },
    },
    {
        "name": "web_extractor",
        "description": "Fetch a web page and return its main content as text.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "goal": {"type": "string", "description": "What to look for in the page."},
            },
            "required": ["url"],
        },
    },
    {
        "name": "dict_memory",
        "description": "A key/value notebook kept across the session.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "operation": {"type": "string", "enum": list(MEMORY_OPERATIONS)},
                "key": {"type": "string"},
                "value": {},
            },
            "required": ["operation"],
        },
    },
]


def memory_entries(args: dict[str, Any]) -> dict[str, Any] | None:
    """The entries of a dict_memory add/update written in the official ``{"dict": {...}}`` form
    (a mapping, or JSON text of one); ``None`` when the call is not written so."""
    given = args.get("dict")
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except ValueError:
            return None
    if isinstance(given, dict) and given and all(isinstance(k, str) for k in given):
        return given
    return None


class SearchCall(BaseModel):
    """A search tool call. Note the key is ``name``, not ``tool_name``."""

    model_config = ConfigDict(extra="forbid")

    name: Literal["web_search", "web_extractor", "dict_memory"]
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_arguments(self) -> SearchCall:
        args = self.arguments
        if self.name == "web_search":
            queries = args.get("queries", args.get("query"))
            if isinstance(queries, str):
                queries = [queries]
            if (
                not isinstance(queries, list)
                or not queries
                or not all(isinstance(q, str) and q.strip() for q in queries)
            ):
                raise ValueError("web_search needs arguments.queries (a list of strings) or arguments.query")
        elif self.name == "web_extractor":
            url = args.get("url")
            if not isinstance(url, str) or not url.strip():
                raise ValueError("web_extractor needs arguments.url (a string)")
        else:
            op = args.get("operation", args.get("action"))
            if op not in MEMORY_OPERATIONS:
                raise ValueError(
                    f"dict_memory needs arguments.operation, one of {', '.join(MEMORY_OPERATIONS)}"
                )
            entries = memory_entries(args)
            if op in ("add", "update") and entries is not None:
                pass  # the official form: {"operation": "add", "dict": {key: value, ...}}
            elif op in ("add", "update", "retrieve", "remove") and not isinstance(args.get("key"), str):
                extra = ' or arguments.dict ({"key": value, ...})' if op in ("add", "update") else ""
                raise ValueError(f"dict_memory {op} needs arguments.key (a string){extra}")
            elif op in ("add", "update") and "value" not in args:
                raise ValueError(f"dict_memory {op} needs arguments.value")
        return self

    def queries(self) -> list[str]:
        """web_search's queries as a list."""
        q = self.arguments.get("queries", self.arguments.get("query"))
        return [q] if isinstance(q, str) else list(q or [])


class SearchDomain(Domain):
    name = "search"
    description = "Web search, page extraction and a memory notebook."
    Action = SearchCall
    example_action: ClassVar[Any] = {"name": "web_search", "arguments": {"queries": ["qwen agentworld"]}}
    sampling = Sampling(temperature=0.6, max_tokens=4096)

    def render_tool_definitions(self, context: dict[str, Any]) -> str:
        return super().render_tool_definitions({"tools": context.get("tools") or SEARCH_TOOLS})

    def is_error(self, text: str, action: BaseModel) -> bool:
        return text.lstrip().lower().startswith(("error", "[error]", "failed to"))


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(SearchDomain())
