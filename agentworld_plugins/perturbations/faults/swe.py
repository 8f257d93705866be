"""Coding-agent tool faults: file tool errors and ``run_shell_command`` results as Gemini CLI and
Qwen Code write them."""

from __future__ import annotations

import re

from ..targeting import SHELL_TOOLS
from .bash import bash_failure
from .core import HTTP_STATUS, FaultContext, path_argument

STDOUT_FIELD = re.compile(r"^Stdout: (.*?)(?=^Stderr: )", re.MULTILINE | re.DOTALL)


def shell_result(
    command: str,
    directory: str | None,
    stdout: str,
    stderr: str,
    error: str | None,
    exit_code: int | None,
    signal: int | None,
) -> str:
    """A ``run_shell_command`` result, field by field as Gemini CLI and Qwen Code write it."""
    return "\n".join(
        [
            f"Command: {command}",
            f"Directory: {directory or '(root)'}",
            f"Stdout: {stdout or '(empty)'}",
            f"Stderr: {stderr or '(empty)'}",
            f"Error: {error or '(none)'}",
            f"Exit Code: {exit_code if exit_code is not None else '(none)'}",
            f"Signal: {signal if signal is not None else '(none)'}",
            "Background PIDs: (none)",
        ]
    )


def _swe_file_tool(kind: str, ctx: FaultContext) -> str | None:
    view = ctx.view
    path = path_argument(view) or view.target
    tool = view.tool
    if kind not in ("permission_denied", "not_found") or not path:
        return None
    denied = kind == "permission_denied"
    code = "EACCES: permission denied" if denied else "ENOENT: no such file or directory"
    if tool == "str_replace_editor":
        if denied:
            return f"ERROR:\nRan into [Errno 13] Permission denied: '{path}' while trying to write to {path}"
        return f"ERROR:\nInvalid `path` parameter: {path}. The path {path} does not exist. Please provide a valid path."
    if tool in ("read_file", "read_many_files"):
        return f"Error reading file {path}: {code}, open '{path}'" if denied else f"File not found: {path}"
    if tool == "write_file":
        return f"Error writing to file: {code}, open '{path}'"
    if tool in ("edit", "replace"):
        return f"Error executing edit: {code}, open '{path}'" if denied else f"File not found: {path}"
    if tool in ("list_directory", "ls"):
        return f"Error listing directory: {code}, scandir '{path}'"
    if tool in ("glob", "grep_search", "search_file_content", "grep"):
        return f"Error during {tool} operation: {code}, scandir '{path}'"
    return f"Error: {code}, open '{path}'"


def swe_error(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    if view.tool in SHELL_TOOLS and view.command:
        cwd = str(view.arguments.get("directory") or "/app")
        failure = bash_failure(kind, view.command, view, cwd, ctx.timeout_s, ctx.retry_after)
        status, stderr, stdout = failure.status, failure.stderr, failure.stdout
        if view.tool == "execute_bash":  # OpenHands
            if status is None:
                return (
                    f"[The command has no new output after {ctx.timeout_s} seconds. You may wait longer to see "
                    "additional output by sending empty command '', send other commands to interact with the "
                    "current process, or send keys to interrupt/kill the command.]"
                )
            return "\n".join([*stderr, *stdout, f"[The command completed with exit code {status}.]"])
        if status is None:
            error = f"Command timed out after {ctx.timeout_s} seconds and was terminated."
            return shell_result(view.command, view.arguments.get("directory"), "", "", error, None, 15)
        return shell_result(
            view.command,
            view.arguments.get("directory"),
            "\n".join(stdout),
            "\n".join(stderr),
            None,
            status,
            None,
        )
    text = _swe_file_tool(kind, ctx)
    if text is not None:
        return text
    url = view.arguments.get("url") or view.arguments.get("prompt")
    where = f" for {url}" if isinstance(url, str) and url.startswith("http") else ""
    if kind in HTTP_STATUS:
        code, reason = HTTP_STATUS[kind]
        return f"Error during {view.tool}{where}: Request failed with status code {code} {reason}"
    if kind == "timeout":
        return (
            f"Error during {view.tool}{where}: ETIMEDOUT: operation timed out after {ctx.timeout_s * 1000}ms"
        )
    return f"Error during {view.tool}{where}: read ECONNRESET"
