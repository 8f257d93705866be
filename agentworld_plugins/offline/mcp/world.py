"""The offline MCP world's step: a tool call checked, applied to the ledger and answered."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...domains.base import OfflineResult
from ...jsontext import dumps_indented
from ...kept import KeptByObject
from ...tool_arguments import ArgumentChecker, argument_checker
from .classify import family_of
from .families import Answer
from .families.records import apply_record, record_kind
from .ledger import Outcome, apply, tool_index
from .naming import classify_tool
from .schema import seed_of
from .servers import answer as answer_as_server
from .servers import is_light, known_server
from .shaping import remember, shape_result, value_at
from .typed import typed_answer

STATE_KEY = "mcp_world"


def _dump(value: Any) -> str:
    return dumps_indented(value, ensure_ascii=False, default=str)


def mcp_step(
    state: dict[str, Any], tool_name: str, arguments: dict[str, Any] | None, context: dict[str, Any]
) -> OfflineResult:
    """Answer one ``tools/call`` from the session's ledger; never raises."""
    try:
        return _step(state, tool_name, arguments if isinstance(arguments, dict) else {}, context or {})
    except Exception as exc:  # the world must answer something
        return OfflineResult(
            text=f"Error executing tool {tool_name}: {type(exc).__name__}: {exc}",
            is_error=True,
            metadata={"offline_internal_error": True},
        )


class _Indexed:
    """A session's tool definitions read once: their index (:func:`.ledger.tool_index`, read
    only), the known server they are shaped like and each tool's argument checker."""

    __slots__ = ("checkers", "index", "server")

    def __init__(self, tools: Any) -> None:
        self.index = tool_index(tools)
        self.server = known_server(self.index)
        self.checkers: dict[str, ArgumentChecker] = {}

    def checker(self, name: str, input_schema: dict[str, Any]) -> ArgumentChecker:
        found = self.checkers.get(name)
        if found is None:
            found = self.checkers[name] = argument_checker(input_schema)
        return found


#: a session's tool definitions (the object in its context, passed on every call), read once
_INDEXED: KeptByObject[_Indexed] = KeptByObject(256)


def _indexed(tools: Any) -> _Indexed:
    if not isinstance(tools, (list, dict)):
        return _Indexed(tools)
    count = len(tools)  # a tool added to the list: read again
    return _INDEXED.get(tools, key=count) or _INDEXED.put(_Indexed(tools), tools, key=count)


def mcp_light(state: dict[str, Any], tool_name: str, context: dict[str, Any]) -> bool:
    """Whether a call is light enough to answer on the caller's thread: a known server's light
    tool (:func:`.servers.is_light`). Its arguments are bounded by the caller."""
    world = state.get(STATE_KEY)
    if world is None:
        return False
    server = _indexed(context.get("tools")).server
    return server is not None and tool_name in server.tools and is_light(world, server, tool_name)


def new_world() -> dict[str, Any]:
    """An MCP world state before its first call."""
    return {"calls": 0, "resources": {}}


def _step(
    state: dict[str, Any], name: str, arguments: dict[str, Any], context: dict[str, Any]
) -> OfflineResult:
    world = state.get(STATE_KEY)
    if world is None:
        world = state[STATE_KEY] = new_world()
    world["calls"] += 1
    turn = world["calls"]
    indexed = _indexed(context.get("tools"))
    tools, server = indexed.index, indexed.server
    tool = tools.get(name) if tools is not None else None
    if tools is not None and tool is None:
        return OfflineResult(text=f"Unknown tool: {name}", is_error=True)
    input_schema = tool.get("inputSchema") if tool else None
    if isinstance(input_schema, dict):
        # a copy of the values the tool's function would get ("3" -> 3), and the check's verdict
        args, problem = indexed.checker(name, input_schema).prepare(name, arguments)
        if problem:
            return OfflineResult(text=problem, is_error=True, metadata={"offline_invalid_arguments": True})
    else:
        args = copy.deepcopy(arguments)

    if server is not None and name in server.tools:  # a reference server's tool: its own answers
        return answer_as_server(world, server, name, args, context)

    typed = typed_answer(world, name, args, tool, tools, context)  # ad-hoc tools: see .typed
    if typed is not None:
        return typed

    family, op = family_of(tool or {"name": name})
    metadata: dict[str, Any] = {"offline_family": family, "offline_operation": op}
    out_schema = tool.get("outputSchema") if tool else None
    if not isinstance(out_schema, dict) or not out_schema:
        out_schema = None
    if family in ENGINES:
        answer = engine(world, family, context).run(op, args, out_schema)
        return _engine_result(answer, out_schema, seed_of(name, args, turn), metadata)

    if family == "ledger":
        kind, resource, _ = classify_tool(name)
        outcome = apply(world, name, args, tool, tools)
    else:
        kind, resource = record_kind(tool or {"name": name})
        outcome = apply_record(world, name, args, tool, tools, family, context)
    metadata["offline_kind"] = kind or "other"
    if resource:
        metadata["offline_resource"] = resource
    if outcome.error:
        return OfflineResult(text=outcome.error, is_error=True, metadata=metadata)

    reads = kind in ("get", "list")
    seed = seed_of(name, args, None if reads else turn)
    if out_schema is None:
        return OfflineResult(text=_dump(outcome.data), is_error=False, metadata=metadata)

    structured, path = shape_result(out_schema, outcome, resource, seed, fresh=kind == "create")
    if path is not None and resource in world["resources"]:
        remember(world["resources"][resource], outcome, value_at(structured, path))
    metadata["structured_content"] = structured
    return OfflineResult(text=_dump(structured), is_error=False, metadata=metadata)


def engine(world: dict[str, Any], family: str, context: dict[str, Any]) -> Any:
    """The session's engine of ``family`` (``files`` or ``sql``), made on first use."""
    found = world.get(family)
    if found is None:
        found = world[family] = ENGINES[family](context)
    return found


def _files(context: dict[str, Any]) -> Any:
    from .families.files import FileStore

    return FileStore.from_context(context)


def _sql(context: dict[str, Any]) -> Any:
    from .families.sql import SqlDatabase

    script = context.get("database")
    return SqlDatabase(script if isinstance(script, str) else None)


#: the families answered by an engine of their own (the others by the ledger)
ENGINES: dict[str, Callable[[dict[str, Any]], Any]] = {"files": _files, "sql": _sql}


def _engine_result(answer: Answer, out_schema: Any, seed: int, metadata: dict[str, Any]) -> OfflineResult:
    metadata.update(answer.metadata)
    if answer.is_error or out_schema is None:
        return OfflineResult(text=answer.text, is_error=answer.is_error, metadata=metadata)
    data = answer.data if isinstance(answer.data, dict) else {"content": answer.text}
    structured, _ = shape_result(out_schema, Outcome("other", data), None, seed, fresh=False)
    metadata["structured_content"] = structured
    # the reference server sends its own text beside {"content": text}; a schema of other fields
    # (a look-alike's) gets the JSON of its structured result, as MCP servers commonly send
    text = answer.text if structured == {"content": answer.text} else _dump(structured)
    return OfflineResult(text=text, is_error=False, metadata=metadata)
