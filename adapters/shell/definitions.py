"""Tool definitions of the coding agents the virtual terminal serves (MCP form: name,
description, inputSchema), written after Gemini CLI / Qwen Code and OpenHands.

Two packs are registered through ``register_tool_packs`` (see :mod:`.plugin`):
``coding-agent`` (Gemini CLI / Qwen Code names) and ``openhands`` (``execute_bash``,
``str_replace_editor``). The same definitions fill the swe session's ``{tool_definitions}``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CODING_AGENT_TOOLS", "OPENHANDS_TOOLS", "PACKS", "all_tools", "tool_named"]


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": required},
    }


_STR = {"type": "string"}
_EDIT_PROPS = {
    "file_path": {**_STR, "description": "Absolute path of the file to change."},
    "old_string": {**_STR, "description": "The exact text to replace, with enough context to be unique."},
    "new_string": {**_STR, "description": "The text to put in its place."},
    "expected_replacements": {
        "type": "number",
        "description": "How many occurrences to replace (default 1).",
        "minimum": 1,
    },
}
_GREP_PROPS = {
    "pattern": {**_STR, "description": "Regular expression to look for."},
    "path": {**_STR, "description": "Folder to search (default: the project root)."},
    "include": {**_STR, "description": "Glob of the files to search, e.g. '*.py'."},
}

CODING_AGENT_TOOLS: list[dict[str, Any]] = [
    _tool(
        "run_shell_command",
        "Run a command with `bash -c <command>` and report Command, Directory, Stdout, Stderr, Error, "
        "Exit Code, Signal and Background PIDs.",
        {
            "command": {**_STR, "description": "The exact bash command to run."},
            "description": {**_STR, "description": "A short note on what the command is for."},
            "directory": {**_STR, "description": "Folder to run it in, relative to the project root."},
            "is_background": {"type": "boolean", "description": "Run it in the background."},
        },
        ["command"],
    ),
    _tool(
        "read_file",
        "Read a file's text (offset and limit select lines of big files).",
        {
            "absolute_path": {**_STR, "description": "Absolute path of the file."},
            "offset": {"type": "number", "description": "First line to show, counted from 0."},
            "limit": {"type": "number", "description": "How many lines to show."},
        },
        ["absolute_path"],
    ),
    _tool(
        "write_file",
        "Write text to a file, creating it (and its folders) or replacing its content.",
        {
            "file_path": {**_STR, "description": "Absolute path of the file."},
            "content": {**_STR, "description": "The whole new content."},
        },
        ["file_path", "content"],
    ),
    _tool(
        "edit",
        "Replace text in a file; old_string must match exactly.",
        _EDIT_PROPS,
        ["file_path", "old_string", "new_string"],
    ),
    _tool("replace", "Older name of `edit`.", _EDIT_PROPS, ["file_path", "old_string", "new_string"]),
    _tool(
        "list_directory",
        "List a folder: sub-folders first, then files.",
        {
            "path": {**_STR, "description": "Absolute path of the folder."},
            "ignore": {"type": "array", "items": _STR, "description": "Glob patterns to leave out."},
        },
        ["path"],
    ),
    _tool(
        "glob",
        "Find files whose path matches a glob such as 'src/**/*.py', newest first.",
        {
            "pattern": {**_STR, "description": "The glob."},
            "path": {**_STR, "description": "Folder to search (default: the project root)."},
            "case_sensitive": {"type": "boolean"},
        },
        ["pattern"],
    ),
    _tool("grep_search", "Search file contents with a regular expression.", _GREP_PROPS, ["pattern"]),
    _tool("search_file_content", "Older name of `grep_search`.", _GREP_PROPS, ["pattern"]),
    _tool(
        "todo_write",
        "Replace the task list of this session.",
        {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": _STR,
                        "content": _STR,
                        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        ["todos"],
    ),
    _tool(
        "write_todos",
        "Gemini CLI's name for the task list.",
        {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": _STR,
                        "status": {
                            "type": "string",
                            "enum": ["pending", "in_progress", "completed", "cancelled"],
                        },
                    },
                    "required": ["description", "status"],
                },
            }
        },
        ["todos"],
    ),
    _tool(
        "save_memory",
        "Remember a fact for later sessions.",
        {"fact": {**_STR, "description": "The fact, as one sentence."}},
        ["fact"],
    ),
]

OPENHANDS_TOOLS: list[dict[str, Any]] = [
    _tool(
        "execute_bash",
        "Run a bash command in one persistent shell (cd and exports last); the output ends with "
        "the exit code.",
        {
            "command": {**_STR, "description": "The command; empty to see more output of a running one."},
            "is_input": {"type": "string", "enum": ["true", "false"], "description": "Send it as input."},
            "timeout": {"type": "number", "description": "Seconds to wait."},
        },
        ["command"],
    ),
    _tool(
        "str_replace_editor",
        "View, create and edit files: view, create, str_replace, insert, undo_edit.",
        {
            "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
            "path": {**_STR, "description": "Absolute path of the file or folder."},
            "file_text": {**_STR, "description": "Content of the file to create."},
            "old_str": _STR,
            "new_str": _STR,
            "insert_line": {"type": "integer", "description": "Insert new_str after this line."},
            "view_range": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "[first, last] lines.",
            },
        },
        ["command", "path"],
    ),
]

PACKS: dict[str, list[dict[str, Any]]] = {
    "coding-agent": CODING_AGENT_TOOLS,
    "openhands": OPENHANDS_TOOLS,
}


def all_tools() -> list[dict[str, Any]]:
    """Every coding tool the virtual terminal answers (both packs)."""
    return [*CODING_AGENT_TOOLS, *OPENHANDS_TOOLS]


def tool_named(name: str) -> dict[str, Any] | None:
    return next((t for t in all_tools() if t["name"] == name), None)
