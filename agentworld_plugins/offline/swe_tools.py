"""Coding-agent tools answered by the offline :class:`~.shell.VirtualMachine`.

The tools and their answers follow Gemini CLI / Qwen Code (``run_shell_command``, ``read_file``,
``write_file``, ``edit``/``replace``, ``list_directory``, ``glob``, ``grep_search``,
``save_memory``, ``todo_write``/``write_todos``) and OpenHands (``execute_bash``,
``str_replace_editor``)::

    tools = SweTools(VirtualMachine(interactive=False))
    tools.call("write_file", {"file_path": "/app/a.py", "content": "x = 1\\n"}).text
    # 'Successfully created and wrote to new file: /app/a.py.'
    tools.call("run_shell_command", {"command": "cat a.py"}).text.splitlines()[2]
    # 'Stdout: x = 1'

``run_shell_command`` runs like ``bash -c`` in a fresh shell (``cd`` and ``export`` do not last);
``execute_bash`` runs in one persistent shell, as OpenHands' tmux session does.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ..observation import RAW_STREAMS, raw_streams_metadata
from .shell import VirtualMachine, brace_expand, glob_regex
from .shell.limits import Budget, ResourceLimit, enter, hold, leave
from .shell.patterns import path_glob
from .shell.quoting import _display
from .shell.regex import compile_regex
from .vfs import DirNode, FileNode, FsError, as_text, is_binary

#: lines ``read_file`` shows without offset/limit, and the longest line it shows whole
READ_LIMIT = 2000
MAX_LINE = 2000
#: lines of context around an OpenHands edit
SNIPPET_LINES = 4
#: folders the search tools skip, as Gemini CLI's defaults do
SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


@dataclass
class ToolResult:
    """A tool's answer: the text the agent reads, whether it is an error, and metadata."""

    text: str
    is_error: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


class SweTools:
    """The coding tools over one machine; ``root`` is the project (workspace) directory."""

    def __init__(self, vm: VirtualMachine, root: str | None = None) -> None:
        self.vm = vm
        self.root = root or vm.cwd
        #: str_replace_editor's undo history: path -> earlier contents
        self.undo: dict[str, list[str | bytes]] = {}
        self.todos: list[Any] = []
        self.memories: list[str] = []
        self._handlers = {
            "run_shell_command": self.run_shell_command,
            "execute_bash": self.execute_bash,
            "read_file": self.read_file,
            "write_file": self.write_file,
            "edit": self.edit,
            "replace": self.edit,
            "list_directory": self.list_directory,
            "glob": self.glob,
            "grep_search": self.grep_search,
            "search_file_content": self.grep_search,
            "str_replace_editor": self.str_replace_editor,
            "save_memory": self.save_memory,
            "todo_write": self.todo_write,
            "write_todos": self.write_todos,
        }

    @property
    def names(self) -> list[str]:
        return sorted(self._handlers)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Run tool ``name``; an unknown name is an error, like a registry miss in Gemini CLI."""
        handler = self._handlers.get(name)
        if handler is None:
            return ToolResult(f'Error: Tool "{name}" not found in registry.', True, {"tool": name})
        budget = Budget(self.vm.limits)  # a tool call is bounded by work, as a shell step is
        previous = enter(budget)
        try:
            result = handler(dict(arguments or {}))
        except ResourceLimit as exc:
            result = ToolResult(f"Error: {exc.message}", True)
        finally:
            leave(previous)
        result.metadata.setdefault("tool", name)
        return result

    # -- paths -----------------------------------------------------------------------------------

    def _path(self, args: dict[str, Any], *keys: str) -> str | None:
        for key in keys:
            value = args.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    def _abs(self, path: str) -> str:
        return self.vm.fs.normalize(path, self.root)

    # -- shells ----------------------------------------------------------------------------------

    def run_shell_command(self, args: dict[str, Any]) -> ToolResult:
        command = str(args.get("command", ""))
        directory = self._path(args, "directory", "dir_path")
        cwd = self.root
        if directory:
            cwd = self._abs(directory)
            if not self.vm.fs.is_dir(cwd):
                return ToolResult(f"Directory '{directory}' does not exist.", True, {"exit_code": None})
        saved = self.vm._save()
        try:
            self.vm.cwd = cwd
            self.vm.vars["PWD"] = cwd
            result = self.vm.run(command, tty=False, ends_shell=True, deadline=_timeout(args))
        finally:
            self.vm._restore(saved)
        stdout = _display(result.stdout).rstrip("\n")
        stderr = _display(result.stderr).rstrip("\n")
        text = "\n".join(
            [
                f"Command: {command}",
                f"Directory: {directory or '(root)'}",
                f"Stdout: {stdout or '(empty)'}",
                f"Stderr: {stderr or '(empty)'}",
                "Error: (none)",
                f"Exit Code: {result.exit_code}",
                "Signal: (none)",
                "Background PIDs: (none)",
            ]
        )
        metadata = _shell_metadata(result, args)
        # the text shows streams lossily (one trailing newline, U+FFFD, no NUL): fronts that hand
        # the streams on (the bash shim) take the exact bytes from here
        metadata[RAW_STREAMS] = raw_streams_metadata(text, result.stdout, result.stderr)
        return ToolResult(text, result.exit_code != 0, metadata)

    def execute_bash(self, args: dict[str, Any]) -> ToolResult:
        command = str(args.get("command", ""))
        if args.get("is_input") in (True, "true", "True"):
            return ToolResult("ERROR: No previous running command to interact with.", True)
        if not command.strip():
            return ToolResult("ERROR: No previous running command to retrieve logs from.", True)
        result = self.vm.run(command, tty=True, deadline=_timeout(args))
        output = _display(result.output).rstrip("\n")
        footer = f"[Command finished with exit code {result.exit_code}]"
        if result.timed_out:  # OpenHands' words for a hard timeout
            footer = (
                f"[The command timed out after {args.get('timeout')} seconds. You may wait longer to see "
                "additional output by sending empty command '', send other commands to interact with "
                "the current process, or send keys to interrupt/kill the command.]"
            )
        text = f"{output}\n{footer}" if output else footer
        return ToolResult(text, result.exit_code != 0, _shell_metadata(result, args))

    # -- Gemini CLI / Qwen Code file tools -------------------------------------------------------

    def read_file(self, args: dict[str, Any]) -> ToolResult:
        raw = self._path(args, "absolute_path", "file_path", "path") or ""
        path = self._abs(raw)
        fs = self.vm.fs
        try:
            node = fs.stat(path)
        except FsError:
            return ToolResult(f"File not found: {path}", True)
        if isinstance(node, DirNode):
            return ToolResult(f"Path is a directory, not a file: {path}", True)
        assert isinstance(node, FileNode)
        if is_binary(node.content):
            return ToolResult(f"Cannot display content of binary file: {path}", True)
        text = as_text(node.content)
        lines = text.split("\n")
        if lines and lines[-1] == "" and text:
            lines.pop()
        total = len(lines)
        offset = _int(args.get("offset"), 0)
        limit = _int(args.get("limit"), READ_LIMIT)
        if offset < 0 or limit <= 0:
            return ToolResult(
                "Offset must be a non-negative number and limit must be a positive number", True
            )
        if offset and offset >= total:
            return ToolResult(
                f"Offset {offset} is beyond the total number of lines in the file ({total}).", True
            )
        end = min(offset + limit, total)
        shown = lines[offset:end]
        cut = False
        for k, line in enumerate(shown):
            if len(line) > MAX_LINE:
                shown[k] = line[:MAX_LINE] + "... [truncated]"
                cut = True
        header = ""
        if end < total or offset > 0:
            header = (
                f"[File content truncated: showing lines {offset + 1}-{end} of {total} total lines. "
                "Use offset/limit parameters to view more.]\n"
            )
        elif cut:
            header = f"[File content partially truncated: some lines exceeded maximum length of {MAX_LINE} characters.]\n"
        body = "\n".join(shown)
        if not header and text.endswith("\n") and body:
            body += "\n"
        return ToolResult(header + _display(body), False, {"lines": [offset + 1, end], "total_lines": total})

    def write_file(self, args: dict[str, Any]) -> ToolResult:
        raw = self._path(args, "file_path", "absolute_path", "path") or ""
        path = self._abs(raw)
        content = args.get("content", "")
        content = content if isinstance(content, str) else json.dumps(content)
        fs = self.vm.fs
        if fs.is_dir(path):
            return ToolResult(f"Path is a directory, not a file: {path}", True)
        existed = fs.exists(path)
        try:
            fs.mkdir(posixpath.dirname(path), parents=True)
            fs.write(path, content)
        except FsError as exc:
            return ToolResult(f"Error writing to file: {exc.strerror}", True)
        if existed:
            return ToolResult(f"Successfully overwrote file: {path}.")
        return ToolResult(f"Successfully created and wrote to new file: {path}.")

    def edit(self, args: dict[str, Any]) -> ToolResult:
        raw = self._path(args, "file_path", "absolute_path", "path") or ""
        path = self._abs(raw)
        old = str(args.get("old_string", ""))
        new = str(args.get("new_string", ""))
        expected = _int(args.get("expected_replacements"), 1)
        fs = self.vm.fs
        if fs.is_dir(path):
            return ToolResult(f"Path is a directory, not a file: {path}", True)
        if not fs.exists(path):
            if old == "":
                fs.mkdir(posixpath.dirname(path), parents=True)
                fs.write(path, new)
                return ToolResult(f"Created new file: {path} with provided content.")
            return ToolResult(f"File not found: {path}", True)
        if old == "" and expected > 1:
            return ToolResult(
                f"Invalid parameters: empty old_string with expected_replacements={expected} would cause infinite loop",
                True,
            )
        if old == "":
            return ToolResult(f"File already exists, cannot create: {path}", True)
        content = fs.read_text(path)
        found = content.count(old)
        if found == 0:
            return ToolResult(
                f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The exact text in "
                "old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, "
                "indentation, and context. Use read_file tool to verify.",
                True,
            )
        if found != expected:
            term = "occurrence" if expected == 1 else "occurrences"
            return ToolResult(
                f"Failed to edit, Expected {expected} {term} but found {found} for old_string in file: {path}",
                True,
            )
        if old == new:
            return ToolResult(
                f"No changes to apply. The old_string and new_string are identical in file: {path}", True
            )
        hold(len(content) + found * (len(new) - len(old)))  # the new file, before it is built
        fs.write(path, content.replace(old, new))
        return ToolResult(
            f"Successfully modified file: {path} ({found} replacements).", False, {"replacements": found}
        )

    def list_directory(self, args: dict[str, Any]) -> ToolResult:
        raw = self._path(args, "path", "dir_path", "absolute_path") or self.root
        path = self._abs(raw)
        fs = self.vm.fs
        try:
            node = fs.stat(path)
        except FsError:
            return ToolResult(
                f"Error listing directory: ENOENT: no such file or directory, stat '{path}'", True
            )
        if not isinstance(node, DirNode):
            return ToolResult(f"Path is not a directory: {path}", True)
        ignore = [str(g) for g in args.get("ignore") or []]
        names = [n for n in node.children if not any(glob_regex(g).match(n) for g in ignore)]
        if not names:
            return ToolResult(f"Directory {path} is empty.")
        dirs = sorted((n for n in names if fs.is_dir(posixpath.join(path, n))), key=_name_key)
        files = sorted((n for n in names if n not in dirs), key=_name_key)
        listing = "\n".join([*(f"[DIR] {d}" for d in dirs), *files])
        return ToolResult(f"Directory listing for {path}:\n{listing}")

    def _walk_files(self, top: str) -> list[str]:
        out: list[str] = []
        for dirpath, dirnames, filenames in self.vm.fs.walk(top):
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS]
            out.extend(posixpath.join(dirpath, f) for f in filenames)
        return out

    def glob(self, args: dict[str, Any]) -> ToolResult:
        pattern = str(args.get("pattern", ""))
        raw = self._path(args, "path", "dir_path")
        top = self._abs(raw) if raw else self.root
        fs = self.vm.fs
        if not fs.is_dir(top):
            return ToolResult(f"Path does not exist: {top}", True)
        flags = 0 if args.get("case_sensitive") else re.IGNORECASE
        regexes = [compile_regex(path_glob(p), flags) for p in brace_expand(pattern, 4096)]
        hits = []
        for path in self._walk_files(top):
            rel = path[len(top) :].lstrip("/") if top != "/" else path.lstrip("/")
            if any(rx.fullmatch(rel) for rx in regexes) or (
                pattern.startswith("/") and any(rx.fullmatch(path) for rx in regexes)
            ):
                hits.append(path)
        if not hits:
            return ToolResult(f'No files found matching pattern "{pattern}" within {top}')
        hits.sort(key=lambda p: (-fs.stat(p).mtime, p))
        listing = "\n".join(hits)
        return ToolResult(
            f'Found {len(hits)} file(s) matching "{pattern}" within {top}, sorted by modification time '
            f"(newest first):\n{listing}",
            False,
            {"matches": len(hits)},
        )

    def grep_search(self, args: dict[str, Any]) -> ToolResult:
        pattern = str(args.get("pattern", ""))
        raw = self._path(args, "path", "dir_path")
        include = args.get("include") or args.get("include_pattern")
        top = self._abs(raw) if raw else self.root
        fs = self.vm.fs
        where = f'in path "{raw}"' if raw else "in the workspace directory"
        filt = f' (filter: "{include}")' if include else ""
        try:
            rx = compile_regex(pattern)
        except re.error as exc:
            return ToolResult(f"Invalid regular expression pattern provided: {pattern}. Error: {exc}", True)
        if not fs.exists(top):
            return ToolResult(f"Path does not exist: {top}", True)
        files = self._walk_files(top) if fs.is_dir(top) else [top]
        if include:
            inc = [compile_regex(path_glob(p), re.IGNORECASE) for p in brace_expand(str(include), 4096)]
            files = [
                f
                for f in files
                if any(
                    r.fullmatch(posixpath.basename(f)) or r.fullmatch(f[len(top) :].lstrip("/")) for r in inc
                )
            ]
        by_file: dict[str, list[tuple[int, str]]] = {}
        count = 0
        for path in files:
            node = fs.stat(path)
            if not isinstance(node, FileNode) or is_binary(node.content):
                continue
            for k, line in enumerate(as_text(node.content).split("\n"), 1):
                if rx.search(line):
                    rel = path[len(top) :].lstrip("/") if fs.is_dir(top) else posixpath.basename(path)
                    by_file.setdefault(rel, []).append((k, line))
                    count += 1
        if not count:
            return ToolResult(
                f'No matches found for pattern "{pattern}" {where}{filt}.', False, {"matches": 0}
            )
        term = "match" if count == 1 else "matches"
        parts = [f'Found {count} {term} for pattern "{pattern}" {where}{filt}:', "---"]
        for rel, hits in by_file.items():
            parts.append(f"File: {rel}")
            parts.extend(f"L{k}: {_display(line.strip())}" for k, line in hits)
            parts.append("---")
        return ToolResult("\n".join(parts), False, {"matches": count})

    def save_memory(self, args: dict[str, Any]) -> ToolResult:
        fact = str(args.get("fact", "")).strip()
        if not fact:
            return ToolResult('Parameter "fact" must be a non-empty string.', True)
        self.memories.append(fact)
        fs = self.vm.fs
        memory = fs.normalize("~/.gemini/GEMINI.md")
        fs.mkdir(posixpath.dirname(memory), parents=True)
        current = fs.read_text(memory) if fs.exists(memory) else ""
        if "## Gemini Added Memories" not in current:
            current = (
                current.rstrip("\n") + "\n\n" if current.strip() else ""
            ) + "## Gemini Added Memories\n"
        fs.write(memory, current + f"- {fact}\n")
        message = f'Okay, I\'ve remembered that: "{fact}"'
        return ToolResult(json.dumps({"success": True, "message": message}))

    def todo_write(self, args: dict[str, Any]) -> ToolResult:
        todos = args.get("todos")
        if not isinstance(todos, list):
            return ToolResult("Parameter `todos` must be an array.", True)
        self.todos = todos
        return ToolResult(
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track "
            "your progress. Please proceed with the current tasks if applicable"
        )

    def write_todos(self, args: dict[str, Any]) -> ToolResult:
        todos = args.get("todos")
        if not isinstance(todos, list):
            return ToolResult("`todos` parameter must be an array", True)
        self.todos = todos
        if not todos:
            return ToolResult("Successfully cleared the todo list.")
        lines = []
        for k, item in enumerate(todos, 1):
            if isinstance(item, dict):
                lines.append(
                    f"{k}. [{item.get('status', 'pending')}] {item.get('description', item.get('content', ''))}"
                )
            else:
                lines.append(f"{k}. [pending] {item}")
        return ToolResult("Successfully updated the todo list. The current list is now:\n" + "\n".join(lines))

    # -- OpenHands str_replace_editor ------------------------------------------------------------

    def str_replace_editor(self, args: dict[str, Any]) -> ToolResult:
        command = str(args.get("command", ""))
        path = str(args.get("path", ""))
        fs = self.vm.fs
        if not path.startswith("/"):
            suggested = self._abs(path)
            return _editor_error(
                f"Invalid `path` parameter: {path}. The path should be an absolute path, starting with `/`. "
                f"Maybe you meant {suggested}?"
            )
        path = fs.normalize(path)
        exists = fs.exists(path)
        if command != "create" and not exists:
            return _editor_error(
                f"Invalid `path` parameter: {path}. The path {path} does not exist. Please provide a valid path."
            )
        if command == "create" and exists:
            return _editor_error(
                f"Invalid `path` parameter: {path}. File already exists at: {path}. Cannot overwrite files using command `create`."
            )
        if exists and fs.is_dir(path) and command != "view":
            return _editor_error(
                f"Invalid `path` parameter: {path}. The path {path} is a directory and only the `view` command can be used on directories."
            )
        if command == "view":
            return self._view(path, args.get("view_range"))
        if command == "create":
            if "file_text" not in args or args["file_text"] is None:
                return _editor_error("Parameter `file_text` is required for command: create.")
            fs.mkdir(posixpath.dirname(path), parents=True)
            fs.write(path, str(args["file_text"]))
            self.undo.setdefault(path, [])
            return ToolResult(f"File created successfully at: {path}")
        if command == "str_replace":
            return self._str_replace(path, args)
        if command == "insert":
            return self._insert(path, args)
        if command == "undo_edit":
            history = self.undo.get(path)
            if not history:
                return _editor_error(f"No edit history found for {path}.")
            fs.write(path, history.pop())
            content = fs.read_text(path)
            return ToolResult(f"Last edit to {path} undone successfully. {_numbered(content, f'{path}')}")
        return _editor_error(
            f"Unrecognized command {command}. The allowed commands for the str_replace_editor tool are: "
            "`view`, `create`, `str_replace`, `insert`, `undo_edit`"
        )

    def _view(self, path: str, view_range: Any) -> ToolResult:
        fs = self.vm.fs
        if fs.is_dir(path):
            if view_range:
                return _editor_error(
                    "The `view_range` parameter is not allowed when `path` points to a directory."
                )
            entries = []
            for dirpath, dirnames, filenames in fs.walk(path):
                depth = 0 if dirpath == path else dirpath[len(path) :].strip("/").count("/") + 1
                dirnames[:] = [d for d in dirnames if not d.startswith(".")] if depth < 2 else []
                if depth > 0:
                    entries.append(dirpath + "/")
                if depth < 2:
                    entries.extend(posixpath.join(dirpath, f) for f in filenames if not f.startswith("."))
            listing = "\n".join([path + "/", *sorted(entries)]) if path != "/" else "\n".join(sorted(entries))
            return ToolResult(
                f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n{listing}\n"
            )
        content = fs.read_text(path)
        if view_range:
            lines = content.split("\n")
            try:
                start, end = int(view_range[0]), int(view_range[1])
            except (TypeError, ValueError, IndexError):
                return _editor_error("Invalid `view_range` parameter: it should be a list of two integers.")
            total = len(lines)
            if start < 1 or start > total:
                return _editor_error(
                    f"Invalid `view_range` parameter: {list(view_range)}. Its first element `{start}` should be "
                    f"within the range of lines of the file: [1, {total}]."
                )
            if end != -1 and (end < start or end > total):
                return _editor_error(
                    f"Invalid `view_range` parameter: {list(view_range)}. Its second element `{end}` should be "
                    f"larger or equal than its first `{start}` and smaller or equal than the number of lines "
                    f"in the file: `{total}`."
                )
            chunk = "\n".join(lines[start - 1 :] if end == -1 else lines[start - 1 : end])
            return ToolResult(_numbered(chunk, path, start))
        return ToolResult(_numbered(content, path))

    def _str_replace(self, path: str, args: dict[str, Any]) -> ToolResult:
        fs = self.vm.fs
        old = args.get("old_str")
        if old is None:
            return _editor_error("Parameter `old_str` is required for command: str_replace.")
        old = str(old)
        new = str(args.get("new_str") or "")
        content = fs.read_text(path).expandtabs()
        old_x, new_x = old.expandtabs(), new.expandtabs()
        found = content.count(old_x) if old_x else 0
        if found == 0:
            return _editor_error(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            )
        if found > 1:
            lines = [k + 1 for k, line in enumerate(content.split("\n")) if old_x in line]
            return _editor_error(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines {lines}. "
                "Please ensure it is unique."
            )
        if old_x == new_x:
            return _editor_error(
                f"No replacement was performed, `new_str` and `old_str` must be different in {path}."
            )
        self.undo.setdefault(path, []).append(fs.read(path))
        updated = content.replace(old_x, new_x, 1)
        fs.write(path, updated)
        at = content.split(old_x)[0].count("\n")
        start = max(0, at - SNIPPET_LINES)
        end = at + SNIPPET_LINES + new_x.count("\n")
        snippet = "\n".join(updated.split("\n")[start : end + 1])
        return ToolResult(
            f"The file {path} has been edited. {_numbered(snippet, f'a snippet of {path}', start + 1)}"
            "Review the changes and make sure they are as expected. Edit the file again if necessary."
        )

    def _insert(self, path: str, args: dict[str, Any]) -> ToolResult:
        fs = self.vm.fs
        if args.get("insert_line") is None:
            return _editor_error("Parameter `insert_line` is required for command: insert.")
        if args.get("new_str") is None:
            return _editor_error("Parameter `new_str` is required for command: insert.")
        content = fs.read_text(path).expandtabs()
        lines = content.split("\n")
        total = len(lines) if not content.endswith("\n") else len(lines) - 1
        try:
            at = int(args["insert_line"])
        except (TypeError, ValueError):
            at = -1
        if at < 0 or at > total:
            return _editor_error(
                f"Invalid `insert_line` parameter: {args['insert_line']}. It should be within the range of "
                f"lines of the file: [0, {total}]"
            )
        new_lines = str(args["new_str"]).expandtabs().split("\n")
        updated_lines = lines[:at] + new_lines + lines[at:]
        self.undo.setdefault(path, []).append(fs.read(path))
        fs.write(path, "\n".join(updated_lines))
        start = max(0, at - SNIPPET_LINES)
        snippet = "\n".join(updated_lines[start : at + len(new_lines) + SNIPPET_LINES])
        return ToolResult(
            f"The file {path} has been edited. {_numbered(snippet, 'a snippet of the edited file', start + 1)}"
            "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, "
            "etc). Edit the file again if necessary."
        )


def _timeout(args: dict[str, Any]) -> float | None:
    """A shell tool's ``timeout`` argument (seconds of virtual time), if it gives a usable one."""
    try:
        value = float(args.get("timeout") or 0)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def _shell_metadata(result: Any, args: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"exit_code": result.exit_code}
    if getattr(result, "timed_out", False):
        meta["timed_out"] = True  # the call's `timeout` passed on the virtual clock
        meta["timeout"] = (args or {}).get("timeout")
    if result.unknown_effect:
        meta["offline_unknown_effect"] = True
        meta["unknown_commands"] = list(result.unknown_commands)
    return meta


def _editor_error(message: str) -> ToolResult:
    return ToolResult(f"ERROR:\n{message}", True)


def _numbered(content: str, descriptor: str, first: int = 1) -> str:
    body = "\n".join(
        f"{k:6}\t{line}" for k, line in enumerate(_display(content).expandtabs().split("\n"), first)
    )
    return f"Here's the result of running `cat -n` on {descriptor}:\n{body}\n"


def _int(value: Any, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _name_key(name: str) -> tuple[str, str]:
    return (name.lower(), name)
