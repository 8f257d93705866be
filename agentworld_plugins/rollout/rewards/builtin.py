"""The built-in reward checks (always there; a plugin registering the same name replaces one).

State checks read the world's final state (:func:`~agentworld_plugins.rollout.state.world_state`):
``file_exists``, ``file_contains``, ``ledger_item``, ``sql``. Answer checks read the final
answer: ``answer_contains``, ``answer_regex``, ``answer_equals``. ``tool_called`` reads the
actions, ``no_errors`` the observations, and ``judge`` asks an LLM with a rubric.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..state import WorldState, world_state
from .judge import judge
from .result import RewardResult

if TYPE_CHECKING:
    from ..episode import Episode


def _state(episode: Episode) -> WorldState:
    if "world_state" not in episode.cache:
        episode.cache["world_state"] = world_state(episode.session)
    return episode.cache["world_state"]  # type: ignore[no-any-return]


def file_exists(episode: Episode, path: str) -> RewardResult:
    """1 when ``path`` is a file in the final filesystem."""
    found = path in _state(episode).files
    return RewardResult(float(found), f"{path} {'exists' if found else 'does not exist'}")


def file_contains(
    episode: Episode, path: str, text: str | None = None, regex: str | None = None
) -> RewardResult:
    """1 when file ``path`` holds ``text`` (a substring) or matches ``regex``."""
    content = _state(episode).files.get(path)
    if content is None:
        return RewardResult(0.0, f"{path} does not exist")
    if regex is not None:
        ok = re.search(regex, content, re.MULTILINE) is not None
        return RewardResult(float(ok), f"{path} {'matches' if ok else 'does not match'} /{regex}/")
    ok = (text or "") in content
    return RewardResult(float(ok), f"{path} {'contains' if ok else 'lacks'} {text!r}")


def _value_matches(value: Any, wanted: Any) -> bool:
    if value == wanted:
        return True
    if isinstance(value, str) and isinstance(wanted, str):
        return value.strip().lower() == wanted.strip().lower()
    if isinstance(value, list):  # labels: ["bug"] or [{"name": "bug"}]
        return any(
            _value_matches(v, wanted)
            or (isinstance(v, dict) and any(_value_matches(x, wanted) for x in v.values()))
            for v in value
        )
    return False


def _resource_items(state: WorldState, resource: str) -> list[dict[str, Any]]:
    wanted = resource.lower().rstrip("s")
    for name, items in state.ledger.items():
        if name.lower().rstrip("s") == wanted:
            return items
    return []


def ledger_item(
    episode: Episode, resource: str, where: dict[str, Any] | None = None, min_count: int = 1
) -> RewardResult:
    """1 when the MCP ledger holds at least ``min_count`` items of ``resource`` whose fields match
    ``where`` (equal, equal ignoring case, or for lists: holding the value)."""
    where = where or {}
    items = _resource_items(_state(episode), resource)
    hits = [item for item in items if all(_value_matches(item.get(k), v) for k, v in where.items())]
    shown = json.dumps(where, sort_keys=True)
    return RewardResult(
        float(len(hits) >= min_count), f"{len(hits)} {resource} item(s) match {shown} (need {min_count})"
    )


def sql(episode: Episode, query: str, expect: Any = None) -> RewardResult:
    """1 when ``query`` over the final state (a table per resource the tools act on, empty when it
    has no item, and the world's SQL database) returns rows, or exactly the rows of ``expect`` (a
    list of lists) when given."""
    rows = _state(episode).sql(query)
    if expect is None:
        return RewardResult(float(bool(rows)), f"{len(rows)} row(s)")
    wanted = [tuple(row) if isinstance(row, list) else (row,) for row in expect]
    ok = rows == wanted
    return RewardResult(float(ok), f"rows {rows!r} {'==' if ok else '!='} {wanted!r}")


def _answer(episode: Episode) -> str:
    return episode.final_answer or ""


def answer_contains(episode: Episode, text: str, case_sensitive: bool = False) -> RewardResult:
    """1 when the final answer contains ``text``."""
    answer = _answer(episode)
    ok = text in answer if case_sensitive else text.lower() in answer.lower()
    return RewardResult(float(ok), f"answer {'contains' if ok else 'lacks'} {text!r}")


def answer_regex(episode: Episode, pattern: str) -> RewardResult:
    """1 when the final answer matches ``pattern`` (``re.search``)."""
    ok = re.search(pattern, _answer(episode)) is not None
    return RewardResult(float(ok), f"answer {'matches' if ok else 'does not match'} /{pattern}/")


def answer_equals(episode: Episode, text: str, case_sensitive: bool = False) -> RewardResult:
    """1 when the final answer, stripped, equals ``text``."""
    answer = _answer(episode).strip()
    ok = answer == text.strip() if case_sensitive else answer.lower() == text.strip().lower()
    return RewardResult(float(ok), f"answer {'equals' if ok else 'differs from'} {text!r}")


def tool_called(episode: Episode, tool: str, arguments: dict[str, Any] | None = None) -> RewardResult:
    """1 when the agent called ``tool`` (with at least ``arguments``, when given)."""
    for name, action, _ in episode.steps:
        if name != tool:
            continue
        given = action.get("arguments") if isinstance(action, dict) else None
        if not arguments or (
            isinstance(given, dict) and all(_value_matches(given.get(k), v) for k, v in arguments.items())
        ):
            return RewardResult(1.0, f"{tool} was called")
    return RewardResult(0.0, f"{tool} was not called" + (f" with {arguments}" if arguments else ""))


def no_errors(episode: Episode) -> RewardResult:
    """1 when no world step failed (no error observation, no rejected action)."""
    return RewardResult(float(episode.world_errors == 0), f"{episode.world_errors} failed step(s)")


def consistent(episode: Episode, max_contradicted: int = 0) -> RewardResult:
    """1 when the world contradicted itself on at most ``max_contradicted`` steps (what a
    guarded backend's consistency guard found, docs/guard.md), else 0; 1 when no step was
    guarded (nothing to go by)."""
    found = [obs.metadata.get("guard") for _, _, obs in episode.steps if obs is not None]
    events = [e for e in found if isinstance(e, dict)]
    if not events:
        return RewardResult(1.0, "no step was guarded (use a guarded backend: --guard)")
    contradicted = sum(1 for e in events if e.get("contradictions"))
    return RewardResult(
        float(contradicted <= max_contradicted), f"{contradicted} of {len(events)} step(s) contradicted"
    )


BUILTIN: dict[str, Callable[..., Any]] = {
    "file_exists": file_exists,
    "file_contains": file_contains,
    "ledger_item": ledger_item,
    "sql": sql,
    "answer_contains": answer_contains,
    "answer_regex": answer_regex,
    "answer_equals": answer_equals,
    "tool_called": tool_called,
    "no_errors": no_errors,
    "consistent": consistent,
    "judge": judge,
}


#: the built-ins that read the world's final state
STATE_CHECKS = frozenset({"file_exists", "file_contains", "ledger_item", "sql"})


#: the types of the built-ins' parameters, by name (checked when a task file is loaded)
_PARAM_TYPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("path", "text", "regex", "pattern", "query", "tool", "resource", "rubric"), (str,)),
    **dict.fromkeys(("base_url", "model", "api_key"), (str,)),
    "where": (dict,),
    "arguments": (dict,),
    "expect": (list,),
    "min_count": (int,),
    "case_sensitive": (bool,),
    "max_score": (int, float),
    "timeout": (int, float),
}
_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", int: "a number", float: "a number"}


def builtin_param_problem(params: dict[str, Any]) -> tuple[str, str] | None:
    """``(parameter, what is wrong)`` with a built-in check's parameters, or None."""
    for key, value in params.items():
        types = _PARAM_TYPES.get(key)
        if types is None or value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join(dict.fromkeys(_TYPE_NAMES.get(t, "true or false") for t in types))
            return key, f"must be {wanted}, not {type(value).__name__} {value!r}"
    for key in ("regex", "pattern"):
        if isinstance(params.get(key), str):
            try:
                re.compile(params[key])
            except re.error as exc:
                return key, f"the regular expression {params[key]!r} does not compile: {exc}"
    query = params.get("query")
    if isinstance(query, str):
        db = sqlite3.connect(":memory:")
        try:
            db.execute(f"EXPLAIN {query}")
        except sqlite3.Error as exc:
            # the ledger's tables exist only when the episode ends; anything else is the query's fault
            if not str(exc).startswith(("no such table", "no such column")):
                return "query", f"the SQL query does not parse: {exc}"
        finally:
            db.close()
    return None
