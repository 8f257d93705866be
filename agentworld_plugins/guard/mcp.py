"""The guard of MCP tool calls: files, SQL and records, told apart as the offline world tells
them (``offline.mcp.classify``: by the tool's name, description and schema)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from . import files as F
from . import records as R
from . import sql as S
from .core import Checker, Verdict

if TYPE_CHECKING:
    from pydantic import BaseModel

_RECORD_FAMILIES = {"ledger", "records", "issues", "messages", "events", "kv"}


def _call(action: BaseModel) -> tuple[str, dict[str, Any]]:
    name = str(getattr(action, "tool_name", "") or getattr(action, "name", ""))
    args = getattr(action, "arguments", None)
    return name, dict(args) if isinstance(args, dict) else {}


def classify(name: str, context: dict[str, Any]) -> tuple[str, str, str | None]:
    """``(family, operation, resource)`` of tool ``name`` in ``context``'s tool list."""
    from ..offline.mcp.classify import family_of
    from ..offline.mcp.families.records import record_kind
    from ..offline.mcp.ledger import tool_index

    tools = tool_index(context.get("tools")) or {}
    tool = tools.get(name) or {"name": name}
    family, op = family_of(tool)
    if family in _RECORD_FAMILIES:
        kind, resource = record_kind(tool)
        return "records", kind or "other", resource
    return family, op, None


def _path(args: dict[str, Any], *keys: str) -> str | None:
    for key in keys or ("path", "file_path", "absolute_path", "filename", "file"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return F.norm(value)
    return None


def _sql(args: dict[str, Any]) -> str:
    return str(next((args[k] for k in ("query", "sql", "statement", "sql_query") if k in args), ""))


class McpChecker(Checker):
    """Checks reads, listings, queries and record lookups against what earlier calls fixed."""

    domain = "mcp"

    def check(self, facts: dict[str, Any], action: BaseModel, text: str, context: dict[str, Any]) -> Verdict:
        name, args = _call(action)
        family, op, resource = classify(name, context)
        is_error = _looks_error(text)
        if family == "files":
            path = _path(args)
            if op == "read" and path:
                return _verdict(F.check_read(facts, path, text, is_error), F.known(facts, path) is not None)
            if op == "list" and path and not is_error:
                names = F.listed_names(text)
                if names is None:
                    return Verdict()
                found = F.check_listing(facts, path, names, F.repeated(text))
                return _verdict(found, bool(F.children(facts, path)))
        elif family == "sql":
            sql = _sql(args)
            if op == "read" or (op == "execute" and sql.lstrip().lower().startswith(("select", "with"))):
                found, compared = S.check_select(facts, sql, text, is_error)
                return _verdict(found, compared)
            if op in ("write", "execute"):
                found, compared = S.check_write(facts, sql, text, is_error)
                return _verdict(found, compared)
        elif family == "records" and resource:
            return self._check_records(facts, op, resource, args, text, is_error)
        return Verdict()

    @staticmethod
    def _check_records(
        facts: dict[str, Any], op: str, resource: str, args: dict[str, Any], text: str, is_error: bool
    ) -> Verdict:
        if op == "get":
            rid = R.id_argument(args, resource)
            fact = R.table(facts, resource).get(rid) if rid else None
            if rid is None or fact is None:
                return Verdict()
            if is_error:
                if fact[0] is None:
                    return Verdict(checked=True)
                return _verdict(
                    [R.Contradiction("presence", f"{resource} {rid}", "exists", text, fact[1], fact[2])], True
                )
            data = R.parse_json(text)
            if not isinstance(data, dict):
                return Verdict()
            return _verdict(R.check_record(facts, resource, rid, data), True)
        if op == "list" and not is_error:
            items = R.items_of(R.parse_json(text))
            if items is None:
                return Verdict()
            return _verdict(R.check_list(facts, resource, args, items), bool(R.table(facts, resource)))
        if op == "create" and not is_error:
            data = R.parse_json(text)
            rid = R.record_id(data, resource) if isinstance(data, dict) else None
            fact = R.table(facts, resource).get(rid) if rid else None
            if rid is not None and fact is not None and fact[0] is not None:
                return _verdict(
                    [R.Contradiction("duplicate-id", f"{resource} {rid}", "a new id", rid, fact[1], fact[2])],
                    True,
                )
        return Verdict()

    def substitute(
        self, facts: dict[str, Any], action: BaseModel, text: str, verdict: Verdict, context: dict[str, Any]
    ) -> str:
        name, args = _call(action)
        family, op, resource = classify(name, context)
        if family == "files":
            path = _path(args) or ""
            fact = F.known(facts, path)
            if op == "read" and fact is not None:
                if fact[0] is F.ABSENT:
                    return f"Error: ENOENT: no such file or directory, open '{path}'"
                return text if fact[0] == F.PRESENT else str(fact[0])
            if op == "list":
                return F.fixed_listing(facts, path, text)
        if family == "sql":
            sql = _sql(args)
            if op in ("write", "execute") and not sql.lstrip().lower().startswith(("select", "with")):
                return S.fixed_write(facts, sql, text)
            answer = S.select_answer(facts, sql, text)
            if answer is not None:
                return answer
            return f"Error: no such table: {S._missing_tables(sql, S.state(facts)['dropped'])[0]}"
        if family == "records" and resource:
            return self._fixed_records(facts, op, resource, args, text)
        return text

    @staticmethod
    def _fixed_records(facts: dict[str, Any], op: str, resource: str, args: dict[str, Any], text: str) -> str:
        data = R.parse_json(text)
        indent = 2 if "\n" in text.strip() else None
        if op == "get":
            rid = R.id_argument(args, resource) or ""
            fact = R.table(facts, resource).get(rid)
            if fact is not None and fact[0] is None:
                return f"Error: {resource.replace('_', ' ')} {rid} not found"
            if isinstance(data, dict):
                return json.dumps(
                    R.fixed_record(facts, resource, rid, data), indent=indent, ensure_ascii=False
                )
            if fact is not None:
                return json.dumps({"id": R._as_id(rid), **fact[0]}, indent=indent, ensure_ascii=False)
        if op == "list" and data is not None:
            return json.dumps(R.fixed_list(facts, resource, args, data), indent=indent, ensure_ascii=False)
        if op == "create" and isinstance(data, dict):
            taken = {int(k) for k in R.table(facts, resource) if k.isdigit()}
            fresh = max(taken, default=0) + 1
            key = (
                next(k for k in ("number", "id") if k in data)
                if any(k in data for k in ("number", "id"))
                else "id"
            )
            return json.dumps({**data, key: fresh}, indent=indent, ensure_ascii=False)
        return text

    def exact(self, facts: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> str | None:
        name, args = _call(action)
        family, op, _ = classify(name, context)
        if family == "files" and op == "read":
            fact = F.known(facts, _path(args) or "")
            if fact is not None and fact[0] not in (F.ABSENT, F.PRESENT):
                return str(fact[0])
        return None

    def commit(
        self,
        facts: dict[str, Any],
        action: BaseModel,
        text: str,
        is_error: bool,
        turn: int,
        context: dict[str, Any],
    ) -> None:
        name, args = _call(action)
        family, op, resource = classify(name, context)
        if family == "files":
            self._commit_files(facts, op, args, text, is_error, turn)
        elif family == "sql":
            sql = _sql(args)
            if op in ("write", "create_table", "execute"):
                S.commit(facts, sql, is_error, turn)
        elif family == "records" and resource:
            self._commit_records(facts, op, resource, args, text, is_error, turn)

    @staticmethod
    def _commit_files(
        facts: dict[str, Any], op: str, args: dict[str, Any], text: str, is_error: bool, turn: int
    ) -> None:
        path = _path(args)
        if op == "read" and path:
            F.learn_read(facts, path, text, is_error, turn)
            return
        if is_error:
            return
        if op == "list" and path:
            names = F.listed_names(text)
            if names is not None:
                F.learn_listing(facts, path, names, turn)
        elif op == "write" and path and isinstance(args.get("content"), str):
            F.establish(facts, path, args["content"], turn, "agent")
        elif op == "append" and path:
            fact = F.known(facts, path)
            added = str(args.get("content") or "")
            if fact is not None and fact[0] not in (F.ABSENT, F.PRESENT):
                F.establish(facts, path, str(fact[0]) + added, turn, "agent")
            else:
                F.forget(facts, path)
        elif op == "edit" and path:
            _commit_edit(facts, path, args, turn)
        elif op == "delete" and path:
            F.establish(facts, path, F.ABSENT, turn, "agent")
        elif op in ("move", "copy"):
            source = _path(args, "source", "src", "from", "old_path", "source_path")
            destination = _path(args, "destination", "dest", "to", "new_path", "destination_path", "target")
            if source and destination:
                if op == "move":
                    F.move(facts, source, destination, turn)
                else:
                    fact = F.known(facts, source)
                    F.establish(facts, destination, fact[0] if fact else F.PRESENT, turn, "agent")

    @staticmethod
    def _commit_records(
        facts: dict[str, Any],
        op: str,
        resource: str,
        args: dict[str, Any],
        text: str,
        is_error: bool,
        turn: int,
    ) -> None:
        bucket = R.table(facts, resource)
        data = R.parse_json(text)
        if op == "get":
            rid = R.id_argument(args, resource)
            if rid is not None and not is_error and isinstance(data, dict):
                R.learn_record(facts, resource, rid, data, turn)
            return
        if op == "list" and not is_error:
            for item in R.items_of(data) or []:
                rid = R.record_id(item, resource)
                if rid is not None:
                    R.learn_record(facts, resource, rid, item, turn)
            return
        if is_error:
            return
        if op == "create":
            rid = R.record_id(data, resource) if isinstance(data, dict) else None
            if rid is not None:
                bucket.pop(rid, None)
                R.learn_record(facts, resource, rid, data, turn)  # what the answer showed of it
                shown = bucket[rid][0] or {}
                bucket[rid] = [{**shown, **R.fields_of(args, resource)}, turn, "agent"]
        elif op == "update":
            rid = R.id_argument(args, resource)
            if rid is not None:
                fact = bucket.get(rid)
                fields = {**(fact[0] or {} if fact else {}), **R.fields_of(args, resource)}
                bucket[rid] = [fields, turn, "agent"]
        elif op == "delete":
            rid = R.id_argument(args, resource)
            if rid is not None:
                bucket[rid] = [None, turn, "agent"]


def _commit_edit(facts: dict[str, Any], path: str, args: dict[str, Any], turn: int) -> None:
    fact = F.known(facts, path)
    if fact is None or fact[0] in (F.ABSENT, F.PRESENT) or args.get("dryRun") or args.get("dry_run"):
        if not (args.get("dryRun") or args.get("dry_run")):
            F.forget(facts, path)
        return
    content = str(fact[0])
    edits = args.get("edits")
    pairs: list[tuple[str, str]] = []
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict):
                pairs.append(
                    (
                        str(edit.get("oldText", edit.get("old_text", ""))),
                        str(edit.get("newText", edit.get("new_text", ""))),
                    )
                )
    elif "old_string" in args or "oldText" in args:
        pairs.append(
            (
                str(args.get("old_string", args.get("oldText", ""))),
                str(args.get("new_string", args.get("newText", ""))),
            )
        )
    for old, new in pairs:
        if not old or old not in content:
            F.forget(facts, path)
            return
        content = content.replace(old, new, 1)
    F.establish(facts, path, content, turn, "agent")


def _looks_error(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith(
        ("Error", "error", "MCP error", '{"error"', '{\n  "error"')
    ) or head.lower().startswith("not found")


def _verdict(found: list[Any], checked: bool) -> Verdict:
    return Verdict(contradictions=list(found), checked=checked or bool(found))
