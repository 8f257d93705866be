"""Engines for known MCP servers: a tool set shaped like a reference server's is answered the way
that server answers (its texts, its ``structuredContent``, its errors), on state kept in the
session's world (so a named world keeps it across processes).

A server is recognised by the shape of the tool set, which a mirror (``mcp serve --mirror``)
copies exactly: most of the server's tool names, none of them missing the argument the engine
reads. The engines are deterministic and bounded by the size of their state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ....observation import OfflineResult

__all__ = [
    "CONTENT_KEY",
    "LIGHT_STATE",
    "KnownServer",
    "answer",
    "content_blocks",
    "is_light",
    "known_server",
    "read_resource",
]

#: ``OfflineResult.metadata`` key of a result's MCP content blocks, where it has more than one
#: text: ``{"text": the observation text they stand for, "blocks": [...]}``
CONTENT_KEY = "mcp_content"


def content_blocks(blocks: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The observation text of MCP content ``blocks`` (their texts, one a line; an image or a
    resource by its kind and URI) and the metadata entry that carries the blocks themselves."""
    lines = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            lines.append(str(block.get("text", "")))
        elif kind == "resource":
            lines.append(f"[resource {block.get('resource', {}).get('uri', '')}]")
        elif kind == "resource_link":
            lines.append(f"[resource link {block.get('uri', '')}]")
        else:
            lines.append(f"[{kind} {block.get('mimeType', '')}]")
    text = "\n".join(lines)
    return text, {"text": text, "blocks": blocks}


@dataclass(frozen=True)
class KnownServer:
    """A reference server the offline world imitates: its tool names and its engine."""

    name: str
    tools: frozenset[str]
    #: how many of ``tools`` a tool set must have to be this server
    quorum: int
    #: the engine, made from the session's MCP world state and context
    make: Callable[[dict[str, Any], dict[str, Any]], Any]
    #: whether the server's tools declare an outputSchema (a look-alike whose tools do and the
    #: server's do not is another server: the world's families answer it)
    structured: bool = True
    #: the tools whose work is bounded by their arguments and the engine's ``size`` (see
    #: :func:`is_light`): answered on the caller's thread, without a worker thread's hand-off
    light: frozenset[str] = frozenset()


def _memory(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .memory import KnowledgeGraph

    return KnowledgeGraph()


def _time(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .time import TimeTools

    return TimeTools()


def _thinking(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .thinking import ThoughtLog

    return ThoughtLog()


def _sqlite(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .sqlite import SqliteServer

    return SqliteServer()


def _machine_fs(world: dict[str, Any], context: dict[str, Any]) -> Any:
    """The file tools' (a named world's) machine: the filesystem the shell fronts share."""
    from ..families.files import FileStore

    files = world.get("files")
    if files is None:  # the file tools' engine, made as the files family makes it
        files = world["files"] = FileStore.from_context(context)
    return files.fs


def _git(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .git import GitServer

    return GitServer(_machine_fs(world, context))


class _CodingTools:
    """Gemini CLI / Qwen Code / OpenHands tools on the world's machine, as the shell answers."""

    def __init__(self, world: dict[str, Any], context: dict[str, Any]) -> None:
        from ...shell import VirtualMachine
        from ...swe_tools import SweTools

        cwd = str(context.get("cwd") or "/app")
        self.tools = SweTools(VirtualMachine(_machine_fs(world, context), cwd, interactive=False), root=cwd)

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, Any, bool]:
        result = self.tools.call(name, arguments)
        return result.text, None, result.is_error


def _everything(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .everything import EverythingServer

    return EverythingServer()


def _fetch(world: dict[str, Any], context: dict[str, Any]) -> Any:
    from .fetch import FetchServer

    return FetchServer(context)


#: the coding-agent tool set (``--pack coding-agent``, ``openhands``): answered on the machine
CODING_TOOLS = frozenset(
    {
        "run_shell_command",
        "execute_bash",
        "read_file",
        "write_file",
        "edit",
        "replace",
        "list_directory",
        "glob",
        "grep_search",
        "search_file_content",
        "str_replace_editor",
        "save_memory",
        "todo_write",
        "write_todos",
    }
)

SERVERS: tuple[KnownServer, ...] = (
    KnownServer("fetch", frozenset({"fetch"}), 1, _fetch, structured=False),
    KnownServer("coding-agent", CODING_TOOLS, 4, _CodingTools, structured=False),
    KnownServer(
        "everything",
        frozenset(
            {
                "echo",
                "get-annotated-message",
                "get-env",
                "get-resource-links",
                "get-resource-reference",
                "get-structured-content",
                "get-sum",
                "get-tiny-image",
                "gzip-file-as-resource",
                "toggle-simulated-logging",
                "toggle-subscriber-updates",
                "trigger-long-running-operation",
                "simulate-research-query",
            }
        ),
        6,
        _everything,
        light=frozenset({"echo", "get-sum", "get-tiny-image", "get-annotated-message"}),
    ),
    KnownServer(
        "git",
        frozenset(
            {
                "git_status",
                "git_diff_unstaged",
                "git_diff_staged",
                "git_diff",
                "git_commit",
                "git_add",
                "git_reset",
                "git_log",
                "git_create_branch",
                "git_checkout",
                "git_show",
                "git_branch",
            }
        ),
        6,
        _git,
        structured=False,
    ),
    KnownServer(
        "sqlite",
        frozenset(
            {"read_query", "write_query", "create_table", "list_tables", "describe_table", "append_insight"}
        ),
        5,
        _sqlite,
        structured=False,
    ),
    KnownServer(
        "sequential-thinking",
        frozenset({"sequentialthinking"}),
        1,
        _thinking,
        light=frozenset({"sequentialthinking"}),
    ),
    KnownServer("time", frozenset({"get_current_time", "convert_time"}), 2, _time),
    KnownServer(
        "memory",
        frozenset(
            {
                "create_entities",
                "create_relations",
                "add_observations",
                "delete_entities",
                "delete_observations",
                "delete_relations",
                "read_graph",
                "search_nodes",
                "open_nodes",
            }
        ),
        5,
        _memory,
        light=frozenset({"create_entities", "create_relations", "add_observations"}),
    ),
)


@lru_cache(maxsize=256)
def _by_shape(names: frozenset[str], structured: frozenset[str]) -> KnownServer | None:
    for server in SERVERS:
        if len(names & server.tools) >= server.quorum and (
            server.structured or not structured & server.tools
        ):
            return server
    return None


def known_server(tools: Mapping[str, Any] | None) -> KnownServer | None:
    """The known server a session's tool set (``{name: definition}``) is shaped like, or None."""
    if not tools:
        return None
    structured = frozenset(n for n, t in tools.items() if isinstance(t, dict) and t.get("outputSchema"))
    return _by_shape(frozenset(tools), structured)


#: the most items (an engine's ``size``) a state may hold for its light calls to count as light
LIGHT_STATE = 4096


def is_light(world: dict[str, Any], server: KnownServer, name: str) -> bool:
    """Whether a call of ``name`` to ``server``'s engine is light: one of the server's light tools,
    on an engine already made (making one can build a machine) whose state is small. The answer
    is the same either way; only the thread it is computed on differs."""
    if name not in server.light:
        return False
    engine = world.get(f"server:{server.name}")
    return engine is not None and getattr(engine, "size", 0) <= LIGHT_STATE


def answer(
    world: dict[str, Any], server: KnownServer, name: str, arguments: dict[str, Any], context: dict[str, Any]
) -> OfflineResult:
    """One call to ``server``'s engine, kept in ``world`` (the session's MCP world state)."""
    key = f"server:{server.name}"
    engine = world.get(key)
    if engine is None:
        engine = world[key] = server.make(world, context)
    text, structured, is_error = engine.call(name, arguments)
    metadata: dict[str, Any] = {"offline_family": f"server:{server.name}", "offline_operation": name}
    if isinstance(text, list):  # content blocks beyond one text (images, resources, annotations)
        text, metadata[CONTENT_KEY] = content_blocks(text)
    if structured is not None:
        metadata["structured_content"] = structured
    return OfflineResult(text=text, is_error=is_error, metadata=metadata)


#: the resources a known server serves from its state: (server, uri) -> reader of its engine
RESOURCES: dict[tuple[str, str], Callable[[Any], tuple[str, str]]] = {
    ("memory", "memory://knowledge-graph"): lambda graph: (graph.graph_text(), "application/json"),
    ("sqlite", "memo://insights"): lambda server: (server.memo(), "text/plain"),
}


def read_resource(state: dict[str, Any], uri: str, context: dict[str, Any]) -> tuple[str, str] | None:
    """``(text, mime type)`` of a known server's resource ``uri`` from the session's state."""
    from ..ledger import tool_index

    server = known_server(tool_index(context.get("tools")))
    reader = RESOURCES.get((server.name, uri)) if server is not None else None
    if server is None or reader is None:
        return None
    world = state.setdefault("mcp_world", {"calls": 0, "resources": {}})
    key = f"server:{server.name}"
    engine = world.get(key)
    if engine is None:
        engine = world[key] = server.make(world, context)
    return reader(engine)
