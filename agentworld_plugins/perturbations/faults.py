"""``faults``: replace observations with realistic, domain-specific failures.

Six kinds answer the step themselves (``before_step``), so the world model is not asked and the
action has no effect: ``permission_denied``, ``not_found``, ``timeout``, ``rate_limit`` (429),
``server_error`` (500) and ``connection_reset``. Each is written the way the domain's real system
writes it: a FastMCP tool error for mcp, bash and GNU tool messages on the terminal screen, a
``run_shell_command`` result with Stderr and Exit Code for swe, ``Error: ... (HTTP 429 Too Many
Requests)`` for search, Playwright errors and error pages for web, toasts and system dialogs for
android, GNOME dialogs and browser pages for os.

Two kinds let the step run and then damage its output (``after_observation``):
``truncated_output`` cuts it, ``empty_result`` empties it the way the domain shows "nothing".

>>> from agentworld_plugins import World
>>> from agentworld_plugins.perturbations import Faults
>>> world = World()                                                           # doctest: +SKIP
>>> s = world.session("mcp", perturbations=[Faults(kinds="rate_limit")])      # doctest: +SKIP
>>> s.step({"tool_name": "list_issues", "arguments": {}}).text                # doctest: +SKIP
'Error executing tool list_issues: 429 Too Many Requests: rate limit exceeded, retry after 30 seconds'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import Field, field_validator

from ..hookspecs import hookimpl
from .base import TargetedPerturbation, TargetOptions, split_list
from .targeting import SHELL_TOOLS, ActionView

if TYPE_CHECKING:
    from ..session import Observation, Session

FaultKind = Literal[
    "permission_denied",
    "not_found",
    "timeout",
    "rate_limit",
    "server_error",
    "connection_reset",
    "truncated_output",
    "empty_result",
]
KINDS: tuple[str, ...] = get_args(FaultKind)
#: kinds that answer the step instead of the world model
ERROR_KINDS: tuple[str, ...] = KINDS[:6]
#: kinds that let the step run and damage what it returns
OUTPUT_KINDS: tuple[str, ...] = KINDS[6:]

#: the HTTP status a kind stands for, where it has one
HTTP_STATUS: dict[str, tuple[int, str]] = {
    "permission_denied": (403, "Forbidden"),
    "not_found": (404, "Not Found"),
    "rate_limit": (429, "Too Many Requests"),
    "server_error": (500, "Internal Server Error"),
}
SCREEN_LINES = 40
DEFAULT_PROMPT = "root@agentworld:/app#"  # the offline machine's own default prompt


@dataclass
class FaultContext:
    """What an error text is written from: the action and what the agent saw before it."""

    domain: str
    view: ActionView
    previous: str = ""
    retry_after: int = 30
    timeout_s: int = 30


# --- small helpers ----------------------------------------------------------------------------

_PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory", "filename", "notebook_path")
_VERBS = {
    "get", "list", "read", "fetch", "create", "add", "new", "update", "edit", "set", "delete",
    "remove", "search", "find", "query", "write", "put", "post", "patch", "open", "close", "run",
    "send", "upload", "download", "move", "copy", "show", "describe", "make", "do",
}  # fmt: skip


def _path(view: ActionView) -> str | None:
    for key in _PATH_KEYS:
        value = view.arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _resource(tool: str) -> str:
    """``get_note`` -> ``note``, ``listPullRequests`` -> ``pull requests``."""
    words = [w.lower() for w in re.split(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])", tool) if w]
    rest = [w for w in words if w not in _VERBS]
    return " ".join(rest) or "resource"


def _url_in(text: str) -> str | None:
    found = re.search(r"(https?://[^\s'\"]+|git@[^\s'\"]+)", text)
    return found.group(1) if found else None


def _host(url: str | None, default: str = "example.com") -> str:
    if not url:
        return default
    found = re.match(r"(?:https?://|git@)([^/:\s]+)", url)
    return found.group(1) if found else default


# --- bash and GNU tools -----------------------------------------------------------------------

_NETWORK = {"curl", "wget", "git", "pip", "pip3", "npm", "npx", "yarn", "pnpm", "apt", "apt-get", "uv"}


def _bash_local(
    kind: str, program: str, args: list[str], target: str | None, cwd: str
) -> tuple[list[str], int]:
    """Permission and not-found errors of local commands, as bash and coreutils word them."""
    denied = kind == "permission_denied"
    reason = "Permission denied" if denied else "No such file or directory"
    if not target:
        if denied:
            return [f"bash: {program}: Permission denied"], 126
        if program.startswith(("./", "/")):
            return [f"bash: {program}: No such file or directory"], 127
        return [f"bash: {program}: command not found"], 127
    if program in ("python", "python3"):
        shown = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
        errno = 13 if denied else 2
        return [f"{program}: can't open file '{shown}': [Errno {errno}] {reason}"], 2
    if program == "cd":
        return [f"bash: cd: {target}: {reason}"], 1
    if program == "ls":
        if denied:
            return [f"ls: cannot open directory '{target}': Permission denied"], 2
        return [f"ls: cannot access '{target}': No such file or directory"], 2
    if program == "rm":
        return [f"rm: cannot remove '{target}': {reason}"], 1
    if program == "mkdir":
        return [f"mkdir: cannot create directory '{target}': {reason}"], 1
    if program == "touch":
        return [f"touch: cannot touch '{target}': {reason}"], 1
    if program in ("cp", "mv"):
        operands = [a for a in args if not a.startswith("-")]
        if denied:
            return [f"{program}: cannot create regular file '{target}': Permission denied"], 1
        source = operands[0] if operands else target
        return [f"{program}: cannot stat '{source}': No such file or directory"], 1
    if program == "chmod" and denied:
        return [f"chmod: changing permissions of '{target}': Operation not permitted"], 1
    if program in ("grep", "egrep", "rg"):
        return [f"{program}: {target}: {reason}"], 2
    if program == "git" and denied:
        return ["fatal: Unable to create '.git/index.lock': Permission denied"], 128
    return [f"{program}: {target}: {reason}"], 1


def _bash_network(
    kind: str, program: str, args: list[str], command: str, timeout_s: int
) -> tuple[list[str], int] | None:
    """How the usual network clients report a fault, or None for other programs."""
    if program not in _NETWORK:
        return None
    url = _url_in(command)
    status = HTTP_STATUS.get(kind)
    package = next(
        (a for a in reversed(args) if not a.startswith("-") and a not in ("install", "add", "i")), ""
    )
    if program == "curl":
        if not url and not any(not a.startswith("-") for a in args):  # curl takes bare hosts too
            return None
        if kind == "timeout":
            return [
                f"curl: (28) Operation timed out after {timeout_s * 1000 + 1} milliseconds with 0 bytes received"
            ], 28
        if kind == "connection_reset":
            return ["curl: (56) Recv failure: Connection reset by peer"], 56
        assert status is not None
        return [f"curl: (22) The requested URL returned error: {status[0]}"], 22
    if program == "wget":
        if not url:
            return None
        host = _host(url)
        if kind == "timeout":
            return [
                f"Connecting to {host} ({host})|{host}|:443... failed: Connection timed out.",
                "Retrying.",
            ], 4
        if kind == "connection_reset":
            return [
                "HTTP request sent, awaiting response... Read error (Connection reset by peer) in headers.",
                "Retrying.",
            ], 4
        assert status is not None
        return [
            f"Connecting to {host} ({host})|{host}|:443... connected.",
            f"HTTP request sent, awaiting response... {status[0]} {status[1]}",
            f"ERROR {status[0]}: {status[1]}.",
        ], 8
    if program == "git":
        if not url and not (args and args[0] in ("clone", "fetch", "pull", "push", "ls-remote", "remote")):
            return None
        remote = url or "https://github.com/"
        host = _host(remote, "github.com")
        if kind == "timeout":
            return [
                f"fatal: unable to access '{remote}': Failed to connect to {host} port 443 after {timeout_s * 1000} ms: Timeout was reached"
            ], 128
        if kind == "connection_reset":
            return [
                "error: RPC failed; curl 56 Recv failure: Connection reset by peer",
                "fatal: expected flush after ref listing",
            ], 128
        assert status is not None
        if kind == "not_found":
            return ["remote: Repository not found.", f"fatal: repository '{remote}' not found"], 128
        if kind == "permission_denied":
            return [
                "remote: Permission to this repository denied.",
                f"fatal: unable to access '{remote}': The requested URL returned error: 403",
            ], 128
        return [f"fatal: unable to access '{remote}': The requested URL returned error: {status[0]}"], 128
    if program in ("pip", "pip3", "uv"):
        index = f"https://pypi.org/simple/{package or 'requests'}/"
        if kind == "timeout":
            return [
                "ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)"
            ], 1
        if kind == "connection_reset":
            return [
                "ERROR: Could not install packages due to an OSError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"
            ], 1
        if kind == "not_found":
            return [
                f"ERROR: Could not find a version that satisfies the requirement {package or 'requests'} (from versions: none)",
                f"ERROR: No matching distribution found for {package or 'requests'}",
            ], 1
        if kind == "permission_denied":
            return [
                f"ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.11/site-packages/{package or 'requests'}'",
                "Consider using the `--user` option or check the permissions.",
            ], 1
        assert status is not None
        return [f"ERROR: HTTP error {status[0]} while getting {index}"], 1
    if program in ("npm", "npx", "yarn", "pnpm"):
        registry = f"https://registry.npmjs.org/{package or 'express'}"
        if kind == "timeout":
            return [
                "npm ERR! code ETIMEDOUT",
                f"npm ERR! network request to {registry} failed, reason: connect ETIMEDOUT",
            ], 1
        if kind == "connection_reset":
            return ["npm ERR! code ECONNRESET", "npm ERR! network aborted"], 1
        if kind == "permission_denied":
            return [
                "npm ERR! code EACCES",
                "npm ERR! syscall mkdir",
                "npm ERR! path /usr/local/lib/node_modules",
                "npm ERR! errno -13",
            ], 243
        assert status is not None
        return [f"npm ERR! code E{status[0]}", f"npm ERR! {status[0]} {status[1]} - GET {registry}"], 1
    # apt, apt-get
    mirror = "http://archive.ubuntu.com/ubuntu"
    if kind == "permission_denied":
        return [
            "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)",
            "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?",
        ], 100
    if kind == "not_found":
        return [f"E: Unable to locate package {package or 'curl'}"], 100
    if kind == "timeout":
        return [
            f"Err:1 {mirror} jammy InRelease",
            "  Could not connect to archive.ubuntu.com:80 (185.125.190.36), connection timed out",
        ], 100
    if kind == "connection_reset":
        return [f"Err:1 {mirror} jammy InRelease", "  Connection failed [IP: 185.125.190.36 80]"], 100
    assert status is not None
    return [f"Err:1 {mirror} jammy InRelease", f"  {status[0]}  {status[1]} [IP: 185.125.190.36 80]"], 100


def bash_failure(
    kind: str, command: str, view: ActionView, cwd: str, timeout_s: int, retry_after: int
) -> tuple[list[str], int | None]:
    """The stderr lines and exit status of a failing command (exit None: still running)."""
    from .targeting import last_operand, split_command

    program, args = split_command(command)
    program = program or "bash"
    target = last_operand(args)
    network = _bash_network(kind, program, args, command, timeout_s)
    if network is not None:
        return network
    if kind in ("permission_denied", "not_found"):
        return _bash_local(kind, program, args, target, cwd)
    if kind == "timeout":
        return [], None  # the command hangs: no output, no prompt
    if program in ("python", "python3") and target:
        script = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
        url = _url_in(command) or "https://api.example.com/v1/items"
        last = {
            "rate_limit": f"requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: {url}",
            "server_error": f"requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: {url}",
        }.get(kind, "ConnectionResetError: [Errno 104] Connection reset by peer")
        return ["Traceback (most recent call last):", f'  File "{script}", line 1, in <module>', last], 1
    if kind == "rate_limit":
        return [
            f"{program}: error: 429 Too Many Requests (rate limit exceeded, retry after {retry_after} seconds)"
        ], 1
    if kind == "server_error":
        return [f"{program}: error: 500 Internal Server Error"], 1
    return [f"{program}: error: Connection reset by peer"], 1


# --- per-domain error texts -------------------------------------------------------------------


def _mcp(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    head = f"Error executing tool {view.tool}: "
    path = _path(view)
    resource = _resource(view.tool)
    if kind == "permission_denied":
        if path:
            return f"{head}[Errno 13] Permission denied: '{path}'"
        return f"{head}403 Forbidden: the credentials in use are not allowed to access this {resource}"
    if kind == "not_found":
        if path:
            return f"{head}[Errno 2] No such file or directory: '{path}'"
        if view.target:
            return f"{head}404 Not Found: {resource} '{view.target}' does not exist"
        return f"{head}404 Not Found: the requested {resource} does not exist"
    if kind == "timeout":
        return f"{head}Timed out while waiting for the upstream service after {ctx.timeout_s} seconds"
    if kind == "rate_limit":
        return f"{head}429 Too Many Requests: rate limit exceeded, retry after {ctx.retry_after} seconds"
    if kind == "server_error":
        return f"{head}500 Internal Server Error: the upstream service failed to process the request"
    return f"{head}[Errno 104] Connection reset by peer"


def _prompt_of(screen: str) -> str:
    for line in reversed(screen.splitlines()):
        if re.search(r"[$#>]\s*$", line):
            return line.rstrip()
        if line.strip():
            break
    return DEFAULT_PROMPT


def _cwd_of(prompt: str) -> str:
    found = re.search(r":(~?[^\s$#]*)\s*[$#]\s*$", prompt)
    return found.group(1) if found and found.group(1) else "/app"


def _terminal(kind: str, ctx: FaultContext) -> str:
    screen = ctx.previous or ""
    prompt = _prompt_of(screen)
    lines = screen.splitlines()
    echo = f"{prompt} {ctx.view.command}"
    if lines and lines[-1].rstrip() == prompt:
        lines[-1] = echo
    else:
        lines.append(echo)
    stderr, status = bash_failure(
        kind, ctx.view.command, ctx.view, _cwd_of(prompt), ctx.timeout_s, ctx.retry_after
    )
    lines.extend(stderr)
    if status is not None:
        lines.append(prompt + " ")
    return "\n".join(lines[-SCREEN_LINES:])


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
    path = _path(view) or view.target
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


def _swe(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    if view.tool in SHELL_TOOLS and view.command:
        cwd = str(view.arguments.get("directory") or "/app")
        stderr, status = bash_failure(kind, view.command, view, cwd, ctx.timeout_s, ctx.retry_after)
        if view.tool == "execute_bash":  # OpenHands
            if status is None:
                return (
                    f"[The command has no new output after {ctx.timeout_s} seconds. You may wait longer to see "
                    "additional output by sending empty command '', send other commands to interact with the "
                    "current process, or send keys to interrupt/kill the command.]"
                )
            return "\n".join([*stderr, f"[The command completed with exit code {status}.]"])
        if status is None:
            error = f"Command timed out after {ctx.timeout_s} seconds and was terminated."
            return shell_result(view.command, view.arguments.get("directory"), "", "", error, None, 15)
        return shell_result(
            view.command, view.arguments.get("directory"), "", "\n".join(stderr), None, status, None
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


def _search(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    if kind in HTTP_STATUS:
        code, reason = HTTP_STATUS[kind]
        why = f"HTTP {code} {reason}"
        if kind == "rate_limit":
            why += f"; retry after {ctx.retry_after}s"
    elif kind == "timeout":
        why = "timeout"
    else:
        why = "Connection reset by peer"
    if view.tool == "web_extractor":
        return f"Error: Failed to fetch {str(view.arguments.get('url', '')).strip()} ({why})"
    if view.tool == "dict_memory":
        op = view.arguments.get("operation", view.arguments.get("action", ""))
        key = view.arguments.get("key")
        if kind == "not_found" and isinstance(key, str):
            return f"Error: key '{key}' not found."
        return f"Error: dict_memory {op} failed ({why})."
    return f'Error: web_search failed for query "{view.target or ""}" ({why})'


_LOCATOR_ACTIONS = {
    "click",
    "dblclick",
    "fill",
    "hover",
    "press",
    "focus",
    "clear",
    "select_option",
    "check",
    "uncheck",
}
_HTTP_BODIES = {
    403: "You don't have permission to access this resource.",
    404: "The requested URL was not found on this server.",
    429: "You have sent too many requests in a given amount of time. Please try again later.",
    500: "The server encountered an internal error and was unable to complete your request.",
}


def _page_url(page: str) -> str | None:
    found = re.search(r"^URL:\s*(\S+)", page, re.MULTILINE)
    return found.group(1) if found else None


def _with_error_line(page: str, line: str) -> str:
    """The page unchanged, with BrowserGym's ``Error:`` header line after URL and Title."""
    lines = [ln for ln in page.splitlines() if not re.match(r"^(?:Error|ERROR)\s*:", ln)]
    at = 0
    while at < len(lines) and re.match(r"^(URL|Title):", lines[at]):
        at += 1
    return "\n".join([*lines[:at], line, *lines[at:]])


def _web(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    navigating = view.tool == "goto"
    url = str(view.arguments.get("url")) if navigating else (_page_url(ctx.previous) or "about:blank")
    if kind == "timeout":
        if navigating:
            return _with_error_line(
                ctx.previous, f"Error: TimeoutError: page.goto: Timeout {ctx.timeout_s * 1000}ms exceeded."
            )
        method = view.tool if view.tool in _LOCATOR_ACTIONS else "click"
        return _with_error_line(
            ctx.previous, f"Error: TimeoutError: Locator.{method}: Timeout 500ms exceeded."
        )
    if kind == "connection_reset":
        host = _host(url, url)
        return "\n".join(
            [
                f"URL: {url}",
                f"Title: {host}",
                f"Error: net::ERR_CONNECTION_RESET at {url}",
                "",
                f"RootWebArea '{host}', focused",
                "\t[1] heading 'This site can\u2019t be reached', level=1",
                "\tStaticText 'The connection was reset.'",
                "\tStaticText 'Try:'",
                "\tStaticText 'Checking the connection'",
                "\tStaticText 'Checking the proxy and the firewall'",
                "\tStaticText 'ERR_CONNECTION_RESET'",
                "\t[2] button 'Reload', clickable",
            ]
        )
    code, reason = HTTP_STATUS[kind]
    title = f"{code} {reason}"
    return "\n".join(
        [
            f"URL: {url}",
            f"Title: {title}",
            "",
            f"RootWebArea '{title}', focused",
            f"\t[1] heading '{title}', level=1",
            f"\tStaticText '{_HTTP_BODIES[code]}'",
            "\tseparator '', orientation='horizontal'",
            "\tStaticText 'nginx'",
        ]
    )


_ANDROID_APPS = {
    "nexuslauncher": "Pixel Launcher",
    "deskclock": "Clock",
    "settings": "Settings",
    "chrome": "Chrome",
    "contacts": "Contacts",
    "messaging": "Messages",
    "dialer": "Phone",
    "calendar": "Calendar",
    "gm": "Gmail",
    "camera": "Camera",
    "photos": "Photos",
    "documentsui": "Files",
    "systemui": "System UI",
}


def _ui(
    index: int, text: str, cls: str, resource: str | None, bbox: list[int], clickable: bool = False
) -> str:
    element = {
        "text": text,
        "content_description": None,
        "class_name": cls,
        "resource_name": resource,
        "is_clickable": clickable,
        "is_editable": False,
        "is_scrollable": False,
        "is_checked": False,
        "is_selected": False,
        "is_focused": False,
        "bbox": bbox,
    }
    return f"UI element {index}: {json.dumps(element, ensure_ascii=False)}"


def _android_app(view: ActionView, screen: str) -> str:
    if view.tool == "open_app" and view.target:
        return view.target
    counts: dict[str, int] = {}
    for package in re.findall(r'"resource_name": "([\w.]+):id/', screen):
        counts[package] = counts.get(package, 0) + 1
    for package, _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        last = package.rsplit(".", 1)[-1]
        if last != "systemui":
            return _ANDROID_APPS.get(last, last.capitalize())
    return "System UI"


def _android(kind: str, ctx: FaultContext) -> str:
    screen = ctx.previous or ""
    app = _android_app(ctx.view, screen)
    if kind == "timeout":
        return "\n".join(
            [
                _ui(
                    0,
                    f"{app} isn't responding",
                    "android.widget.TextView",
                    "android:id/alertTitle",
                    [126, 1005, 954, 1089],
                ),
                _ui(
                    1,
                    "Close app",
                    "android.widget.Button",
                    "android:id/aerr_close",
                    [84, 1131, 996, 1263],
                    True,
                ),
                _ui(2, "Wait", "android.widget.Button", "android:id/aerr_wait", [84, 1263, 996, 1395], True),
            ]
        )
    if kind == "server_error":
        return "\n".join(
            [
                _ui(
                    0,
                    f"{app} keeps stopping",
                    "android.widget.TextView",
                    "android:id/alertTitle",
                    [126, 1005, 954, 1089],
                ),
                _ui(
                    1,
                    "App info",
                    "android.widget.Button",
                    "android:id/aerr_app_info",
                    [84, 1131, 996, 1263],
                    True,
                ),
                _ui(
                    2,
                    "Close app",
                    "android.widget.Button",
                    "android:id/aerr_close",
                    [84, 1263, 996, 1395],
                    True,
                ),
            ]
        )
    toast = {
        "permission_denied": "Permission denied",
        "not_found": f"{ctx.view.target} not found"
        if ctx.view.tool == "open_app" and ctx.view.target
        else "File not found",
        "rate_limit": f"Too many requests. Try again in {ctx.retry_after} seconds.",
        "connection_reset": "Connection was reset. Check your connection and try again.",
    }[kind]
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    indices = [int(m) for m in re.findall(r"^UI element (\d+):", screen, re.MULTILINE)]
    lines.append(
        _ui(max(indices, default=-1) + 1, toast, "android.widget.Toast", None, [202, 2050, 878, 2180])
    )
    return "\n".join(lines)


_OS_HEADER = "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)"


def _os_row(tag: str, name: str, text: str, position: tuple[int, int], size: tuple[int, int]) -> str:
    return f"{tag}\t{name}\t{text}\t\t\t({position[0]}, {position[1]})\t({size[0]}, {size[1]})"


def _os(kind: str, ctx: FaultContext) -> str:
    table = ctx.previous.strip("\n") if ctx.previous.strip() else _OS_HEADER
    frame = re.search(r"^frame\t([^\t]+)", table, re.MULTILINE)
    app = frame.group(1) if frame else "Files"
    name = (ctx.view.target or "").rstrip("/").rsplit("/", 1)[-1] or "Documents"
    if kind == "timeout":
        rows = [
            _os_row("alert", f"“{app}” is not responding.", "", (660, 420), (600, 200)),
            _os_row(
                "label",
                "You may choose to wait a short while for it to continue or force the application to quit entirely.",
                "",
                (690, 470),
                (540, 40),
            ),
            _os_row("push-button", "Force Quit", "", (690, 560), (260, 40)),
            _os_row("push-button", "Wait", "", (970, 560), (260, 40)),
        ]
    elif kind == "permission_denied":
        rows = [
            _os_row("alert", f"Could not open “{name}”.", "", (660, 420), (600, 180)),
            _os_row(
                "label",
                f"You do not have the permissions necessary to view the contents of “{name}”.",
                "",
                (690, 470),
                (540, 40),
            ),
            _os_row("push-button", "OK", "", (1110, 540), (120, 40)),
        ]
    elif kind == "not_found":
        rows = [
            _os_row("alert", f"Could not find “{name}”.", "", (660, 420), (600, 180)),
            _os_row("label", "Please check the spelling and try again.", "", (690, 470), (540, 40)),
            _os_row("push-button", "OK", "", (1110, 540), (120, 40)),
        ]
    elif kind == "connection_reset":
        rows = [
            _os_row("document-web", "This site can\u2019t be reached", "", (70, 120), (1850, 960)),
            _os_row("heading", "This site can\u2019t be reached", "", (400, 300), (800, 40)),
            _os_row("label", "The connection was reset.", "", (400, 360), (800, 24)),
            _os_row("label", "ERR_CONNECTION_RESET", "", (400, 420), (800, 20)),
            _os_row("push-button", "Reload", "", (400, 480), (100, 36)),
        ]
    else:
        code, reason = HTTP_STATUS[kind]
        rows = [
            _os_row("document-web", f"{code} {reason}", "", (70, 120), (1850, 960)),
            _os_row("heading", f"{code} {reason}", "", (860, 140), (200, 40)),
            _os_row("label", "nginx", "", (930, 200), (60, 20)),
        ]
    return "\n".join([table, *rows])


def _generic(kind: str, ctx: FaultContext) -> str:
    if kind in HTTP_STATUS:
        code, reason = HTTP_STATUS[kind]
        return f"Error: {code} {reason}"
    if kind == "timeout":
        return f"Error: the operation timed out after {ctx.timeout_s} seconds"
    return "Error: Connection reset by peer"


_RENDERERS = {
    "mcp": _mcp,
    "terminal": _terminal,
    "swe": _swe,
    "search": _search,
    "web": _web,
    "android": _android,
    "os": _os,
}


def render_error(kind: str, ctx: FaultContext) -> str:
    """The observation an error ``kind`` shows in ``ctx.domain`` (a generic ``Error:`` line for
    domains added by plugins)."""
    if kind not in ERROR_KINDS:
        raise ValueError(f"{kind!r} is not an error kind; use one of {', '.join(ERROR_KINDS)}")
    return _RENDERERS.get(ctx.domain, _generic)(kind, ctx)


# --- damaged outputs --------------------------------------------------------------------------

_STDOUT = re.compile(r"^Stdout: (.*?)(?=^Stderr: )", re.MULTILINE | re.DOTALL)


def _empty(domain: str, view: ActionView, text: str) -> str:
    stripped = text.strip()
    if domain == "search":
        if view.tool == "web_search":
            queries = view.arguments.get("queries", view.arguments.get("query"))
            queries = [queries] if isinstance(queries, str) else list(queries or [])
            return "\n\n".join(f'No results found for query: "{q}"' for q in queries)
        if view.tool == "dict_memory" and view.arguments.get("operation") == "retrieve_all":
            return "{}"
        return ""
    if domain == "swe" and _STDOUT.search(text):
        return _STDOUT.sub("Stdout: (empty)\n", text, count=1)
    if domain == "terminal":
        lines = text.splitlines()
        echo = max((i for i, ln in enumerate(lines) if view.command and view.command in ln), default=None)
        if echo is None or echo == len(lines) - 1:
            return text
        return "\n".join([*lines[: echo + 1], lines[-1]])
    if domain == "web":
        header = [ln for ln in text.splitlines() if re.match(r"^(URL|Title):", ln)]
        title = next((ln.split(":", 1)[1].strip() for ln in header if ln.startswith("Title:")), "")
        return "\n".join([*header, "", f"RootWebArea '{title}', focused"])
    if domain == "os":
        first = text.splitlines()[0] if text else ""
        return first if first.startswith("tag\t") else ""
    if stripped.startswith("["):
        return "[]"
    if stripped.startswith("{"):
        return "{}"
    return ""


def _cut(text: str, fraction: float, by_lines: bool) -> str:
    if by_lines:
        lines = text.splitlines()
        if len(lines) > 1:
            return "\n".join(lines[: max(1, int(len(lines) * fraction))])
    return text[: max(1, int(len(text) * fraction))] if text else text


def degrade(kind: str, domain: str, view: ActionView, text: str, fraction: float) -> str:
    """``text`` after an output fault: cut to about ``fraction`` of it, or emptied."""
    if kind == "empty_result":
        return _empty(domain, view, text)
    if kind != "truncated_output":
        raise ValueError(f"{kind!r} is not an output kind; use one of {', '.join(OUTPUT_KINDS)}")
    if domain == "swe":
        found = _STDOUT.search(text)
        if found and found.group(1).strip() not in ("", "(empty)"):
            body = found.group(1).rstrip("\n")
            return text[: found.start(1)] + _cut(body, fraction, False) + "\n" + text[found.end(1) :]
    return _cut(text, fraction, by_lines=domain in ("terminal", "web", "android", "os"))


# --- the plugin -------------------------------------------------------------------------------


class FaultOptions(TargetOptions):
    kinds: list[FaultKind] = Field(
        default_factory=lambda: list(ERROR_KINDS),  # type: ignore[arg-type]
        description="fault kinds to draw from, e.g. permission_denied+timeout (default: the six error "
        f"kinds; all: {', '.join(KINDS)})",
    )
    retry_after: int = Field(30, ge=0, description="the seconds a rate_limit error asks the agent to wait")
    timeout_s: int = Field(30, ge=1, description="the seconds a timeout error says it waited")
    keep: float | None = Field(
        None, gt=0, lt=1, description="the fraction truncated_output keeps (default: 30-70%, drawn per step)"
    )

    @field_validator("kinds", mode="before")
    @classmethod
    def _kinds(cls, value: Any) -> Any:
        value = split_list(value)
        if value == ["all"]:
            return list(KINDS)
        if isinstance(value, list) and not value:
            raise ValueError(f"give at least one kind: {', '.join(KINDS)}")
        return value


class Faults(TargetedPerturbation):
    """Injects realistic failures on matching steps; see the module docstring for the kinds."""

    name = "faults"
    Options = FaultOptions
    example = "faults:rate=0.3,kinds=permission_denied+timeout,tools=write_*"

    def _kind(self, session: Session) -> str:
        kinds: list[str] = list(self.options.kinds)
        return self.random(session).rng(session.turn_number, "kind").choice(kinds)

    @staticmethod
    def previous(session: Session) -> str:
        """What the agent saw last: the last observation, else the initial state."""
        if session.trajectory.turns:
            return session.trajectory.turns[-1].observation.text
        state = session.context.get("initial_state")
        return "" if state is None else str(state)

    @hookimpl
    def before_step(self, session: Session, action: Any) -> Observation | None:
        from ..session import Observation

        view = self.view(session, action)
        if not self.fires(session, view):
            return None
        kind = self._kind(session)
        if kind in OUTPUT_KINDS:
            self.state(session)["pending"] = {"turn": session.turn_number, "kind": kind}
            return None
        opts: FaultOptions = self.options
        ctx = FaultContext(
            session.domain.name, view, self.previous(session), opts.retry_after, opts.timeout_s
        )
        entry = self.entry(session, kind=kind, tool=view.tool, replaced=True)
        return Observation(
            text=render_error(kind, ctx),
            is_error=True,
            metadata={"turn": session.turn_number, "session_id": session.id, "perturbations": [entry]},
        )

    @hookimpl
    def after_observation(
        self, session: Session, action: Any, observation: Observation
    ) -> Observation | None:
        view = self.view(session, action)
        self.count(session, view)
        pending = self.state(session).pop("pending", None)
        if not pending or pending.get("turn") != session.turn_number:
            return None
        kind = pending["kind"]
        keep = self.options.keep
        if keep is None:
            keep = 0.3 + 0.4 * self.random(session).uniform(session.turn_number, "keep")
        text = degrade(kind, session.domain.name, view, observation.text, keep)
        is_error = observation.is_error
        if kind == "empty_result":
            is_error = session.domain.is_error(text, action)
        entry = self.entry(session, kind=kind, tool=view.tool, replaced=False)
        if kind == "truncated_output":
            entry["kept"] = round(keep, 3)
        return self.record(observation, entry, text=text, is_error=is_error)
