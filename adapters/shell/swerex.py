"""A SWE-ReX-compatible HTTP runtime answered by the virtual terminal.

SWE-agent (and anything built on SWE-ReX's ``RemoteRuntime``) talks to a runtime server over
HTTP; point it here instead of at a container::

    agentworld shell swerex --port 8000 --token s3cret --session swe-1

    from swerex.runtime.remote import RemoteRuntime
    runtime = RemoteRuntime(host="http://127.0.0.1", port=8000, auth_token="s3cret")

Endpoints (JSON bodies as SWE-ReX's pydantic models): ``GET /``, ``GET /is_alive``,
``POST /create_session``, ``/run_in_session``, ``/close_session``, ``/execute``, ``/read_file``,
``/write_file``, ``/upload`` (multipart: ``file``, ``target_path``, ``unzip``), ``/close``.
With a token, every request needs ``X-API-Key``. A runtime error comes back as SWE-ReX sends
it, status 511 with ``{"swerexception": {message, class_path, traceback, extra_info}}``, so the
client raises the same exception class; a malformed body gets FastAPI's 422 ``{"detail": [...]}``.

``run_in_session`` uses the persistent shell of the terminal's command front (``cd`` and
``export`` last); every named session shares it. ``execute`` runs like ``bash -c``. Timeouts are
on the offline world's virtual clock: ``sleep 100`` with ``timeout=2`` is SWE-ReX's
``CommandTimeoutError`` (``timeout after 2.0 seconds while running command 'sleep 100'``) at
once, and a busy loop ends when its work reaches 2 s; a command the step budget stops (status
152) is a timeout too. A command with a syntax error is ``BashIncorrectSyntaxError`` with the
message SWE-ReX builds from ``bash -n``. A ``BashInterruptAction`` (``action_type:
bash_interrupt``) answers at once, as every simulated command has already finished.
"""

from __future__ import annotations

import asyncio
import io
import shlex
import zipfile
from typing import Any

import bashlex
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.http_guard import BodyError, HttpGuard, HttpLimits, read_json, secret_matches

from .results import CommandResult, parse_bash_footer, truncate_output
from .terminal import VirtualTerminal

__all__ = ["swerex_app"]

#: exit statuses of a command that would not finish: 124 as coreutils' ``timeout`` gives it, and
#: 152 (128 + SIGXCPU) when the offline world's step budget stopped it (docs/shell.md)
TIMEOUT_STATUSES = frozenset({124, 152})


def _exception(class_path: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse(
        {
            "swerexception": {
                "message": message,
                "class_path": class_path,
                "traceback": "",
                "extra_info": extra,
            }
        },
        status_code=511,
    )


def _no_session(name: str) -> JSONResponse:
    return _exception("swerex.exceptions.SessionDoesNotExistError", f"session {name!r} does not exist")


def _invalid(field: str, message: str, value: Any = None) -> JSONResponse:
    return JSONResponse(
        {"detail": [{"type": "value_error", "loc": ["body", field], "msg": message, "input": value}]},
        status_code=422,
    )


async def _body(request: Request) -> dict[str, Any] | JSONResponse:
    try:
        data = await read_json(request)
    except BodyError as exc:
        if exc.status != 400:
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        return JSONResponse(
            {"detail": [{"type": "json_invalid", "loc": ["body"], "msg": "JSON decode error", "input": {}}]},
            status_code=422,
        )
    if not isinstance(data, dict):
        return _invalid("", "Input should be a valid dictionary", data)
    return data


def _guard_error(status: int, message: str, path: str) -> dict[str, Any]:
    return {"detail": message}  # FastAPI's HTTPException shape, as SWE-ReX's server answers


def _seconds(value: Any) -> float | None:
    """A request's ``timeout`` as seconds (None: none, or not a number)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds > 0 else None


def _in_session(terminal: VirtualTerminal, command: str, timeout: float | None) -> CommandResult:
    """``execute_bash`` in the command front's persistent shell, with the request's timeout (on
    the offline world's virtual clock: ``sleep 100`` under 2 s ends at 2 s, at once)."""
    arguments: dict[str, Any] = {"command": command}
    if timeout is not None:
        arguments["timeout"] = timeout
    observation = terminal.tool("execute_bash", arguments)
    output, code = parse_bash_footer(observation.text)
    if code is None:
        code = 1 if observation.is_error else 0
    return CommandResult(truncate_output(output), "", code, observation)


def _joined(command: str) -> str:
    """The command as SWE-ReX sends it to its shell (and names it in a timeout's message): its
    top-level commands joined with `` ; ``."""
    try:
        parts = bashlex.parse(command)
    except Exception:  # bashlex fails on some valid bash, as SWE-ReX knows: it sends the text
        return command
    return " ; ".join(command[p.pos[0] : p.pos[1]] for p in parts)


#: the here-document word SWE-ReX's syntax check wraps a command in
_CHECK_EOF = "SOUNIQUEEOF"


async def _syntax_error(terminal: VirtualTerminal, command: str) -> JSONResponse | None:
    """SWE-ReX checks a command with ``bash -n`` before it runs it; a syntax error comes back as
    ``BashIncorrectSyntaxError``. Commands bashlex parses (nearly all valid ones) skip the check,
    so a session takes no extra step for them; the others are checked on the machine itself."""
    try:
        bashlex.parse(command)
    except Exception:
        pass
    else:
        return None
    check = await terminal.arun(f"bash -n << '{_CHECK_EOF}'\n{command}\n{_CHECK_EOF}")
    if check.exit_code == 0 or "not supported by the offline shell" in check.stderr:
        return None  # valid, or syntax the offline shell cannot judge: it is run (and flagged)
    message = (
        f"Error (exit code {check.exit_code}) while checking bash command \n{command!r}\n"
        f"---- Stderr ----\n{check.stderr}\n---- Stdout ----\n{check.stdout}"
    )
    return _exception(
        "swerex.exceptions.BashIncorrectSyntaxError",
        message,
        bash_stdout=check.stdout,
        bash_stderr=check.stderr,
    )


def swerex_app(
    terminal: VirtualTerminal, *, token: str | None = None, limits: HttpLimits | None = None
) -> HttpGuard:
    """The SWE-ReX runtime server for ``terminal`` (an ASGI app behind :class:`HttpGuard`; serve it with uvicorn)."""
    sessions: set[str] = set()

    def authorized(request: Request) -> bool:
        return not token or secret_matches(request.headers.get("X-API-Key"), token)

    def guarded(handler: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            if not authorized(request):
                return JSONResponse({"detail": "Invalid API Key"}, status_code=401)
            try:
                return await handler(request)
            except AgentWorldError as exc:
                return _exception("swerex.exceptions.SwerexException", str(exc))

        return endpoint

    async def root(request: Request) -> Response:
        return JSONResponse({"message": "hello world"})

    async def is_alive(request: Request) -> Response:
        return JSONResponse({"is_alive": True, "message": ""})

    async def create_session(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        sources = body.get("startup_source") or []
        if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
            return _invalid("startup_source", "Input should be a valid list of strings", sources)
        name = str(body.get("session", "default"))
        if name in sessions:
            return _exception("swerex.exceptions.SessionExistsError", f"session {name} already exists")
        sessions.add(name)
        output = ""
        for source in sources:
            result = await asyncio.to_thread(terminal.execute_bash, f"source {shlex.quote(str(source))}")
            output += result.stdout
        return JSONResponse({"output": output, "session_type": "bash", "success": True, "failure_reason": ""})

    async def run_in_session(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        if body.get("action_type") == "bash_interrupt":
            return await interrupt(body)
        command = body.get("command")
        if not isinstance(command, str):
            return _invalid(
                "command", "Field required" if command is None else "Input should be a valid string", command
            )
        name = str(body.get("session", "default"))
        if name not in sessions:
            return _no_session(name)
        if not body.get("is_interactive_command") and not body.get("is_interactive_quit"):
            wrong = await _syntax_error(terminal, command)
            if wrong is not None:
                return wrong
        timeout = _seconds(body.get("timeout"))
        result = await asyncio.to_thread(_in_session, terminal, command, timeout)
        output = result.stdout[:-1] if result.stdout.endswith("\n") else result.stdout
        if result.timed_out or result.exit_code in TIMEOUT_STATUSES:
            return _exception(
                "swerex.exceptions.CommandTimeoutError",
                f"timeout after {body.get('timeout')} seconds while running command {_joined(command)!r}",
            )
        check = body.get("check", "raise")
        if check == "raise" and result.exit_code != 0 and not body.get("is_interactive_command"):
            message = body.get("error_msg") or (
                f"Command {command!r} failed with exit code {result.exit_code}. Here is the output:\n{output!r}"
            )
            return _exception("swerex.exceptions.NonZeroExitCodeError", message)
        return JSONResponse(
            {
                "output": output,
                "exit_code": result.exit_code,
                "failure_reason": "",
                "expect_string": "",
                "session_type": "bash",
                "success": True,
            }
        )

    async def interrupt(body: dict[str, Any]) -> Response:
        name = str(body.get("session", "default"))
        if name not in sessions:
            return _no_session(name)
        # every simulated command has finished by the time it answers: nothing is left to stop
        return JSONResponse(
            {
                "output": "",
                "exit_code": 0,
                "failure_reason": "",
                "expect_string": "",
                "session_type": "bash",
                "success": True,
            }
        )

    async def close_session(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        name = str(body.get("session", "default"))
        if name not in sessions:
            return _no_session(name)
        sessions.discard(name)
        return JSONResponse({"session_type": "bash", "success": True, "failure_reason": ""})

    async def execute(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        command = body.get("command")
        if isinstance(command, list) and all(isinstance(c, str) for c in command):
            command = shlex.join(command)
        if not isinstance(command, str):
            return _invalid("command", "Input should be a valid string or list of strings", command)
        env = body.get("env") if isinstance(body.get("env"), dict) else None
        timeout = _seconds(body.get("timeout"))
        result = await terminal.arun(command, cwd=body.get("cwd") or None, env=env, timeout=timeout)
        if (result.timed_out or result.exit_code in TIMEOUT_STATUSES) and body.get("timeout") is not None:
            return _exception(
                "swerex.exceptions.CommandTimeoutError",
                f"Timeout ({body.get('timeout')}s) exceeded while running command",
            )
        if body.get("check") and result.exit_code != 0:
            message = body.get("error_msg") or (
                f"Command {command!r} failed with exit code {result.exit_code}. "
                f"Stdout:\n{result.stdout!r}\nStderr:\n{result.stderr!r}"
            )
            return _exception("swerex.exceptions.NonZeroExitCodeError", message)
        stdout, stderr = result.stdout, result.stderr
        if body.get("merge_output_streams"):
            stdout, stderr = stdout + stderr, ""
        return JSONResponse(
            {
                "stdout": stdout,
                "stderr": stderr,
                "exit_code": result.exit_code,
                "success": True,
                "failure_reason": "",
            }
        )

    async def read_file(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        path = body.get("path")
        if not isinstance(path, str):
            return _invalid("path", "Field required", path)
        result = await terminal.arun(f"cat -- {shlex.quote(path)}")
        if result.exit_code != 0:
            return _exception("builtins.FileNotFoundError", f"[Errno 2] No such file or directory: {path!r}")
        return JSONResponse({"content": result.stdout, "success": True, "failure_reason": ""})

    async def write_file(request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        path, content = body.get("path"), body.get("content")
        if not isinstance(path, str) or not isinstance(content, str):
            field = "path" if not isinstance(path, str) else "content"
            return _invalid(field, "Field required", body.get(field))
        observation = await terminal.atool("write_file", {"file_path": path, "content": content})
        if observation.is_error:
            return _exception("builtins.OSError", observation.text)
        return JSONResponse({"success": True, "failure_reason": ""})

    async def upload(request: Request) -> Response:
        form = await request.form()
        upload_file = form.get("file")
        target = form.get("target_path")
        if upload_file is None or not isinstance(target, str):
            return _invalid("file" if upload_file is None else "target_path", "Field required")
        data = await upload_file.read()  # type: ignore[union-attr]
        unzip = str(form.get("unzip", "false")).lower() in ("true", "1", "yes")
        files: list[tuple[str, bytes]] = []
        if unzip:
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    for info in archive.infolist():
                        if not info.is_dir():
                            files.append((f"{target.rstrip('/')}/{info.filename}", archive.read(info)))
            except zipfile.BadZipFile:
                return _exception("zipfile.BadZipFile", "File is not a zip file")
        else:
            files.append((target, data))
        for path, content in files:
            await terminal.atool(
                "write_file", {"file_path": path, "content": content.decode("utf-8", "replace")}
            )
        return JSONResponse({"success": True, "failure_reason": ""})

    async def close(request: Request) -> Response:
        sessions.clear()
        return JSONResponse({"success": True, "failure_reason": ""})

    routes = [
        Route("/", guarded(root), methods=["GET"]),
        Route("/is_alive", guarded(is_alive), methods=["GET"]),
        Route("/create_session", guarded(create_session), methods=["POST"]),
        Route("/run_in_session", guarded(run_in_session), methods=["POST"]),
        Route("/close_session", guarded(close_session), methods=["POST"]),
        Route("/execute", guarded(execute), methods=["POST"]),
        Route("/read_file", guarded(read_file), methods=["POST"]),
        Route("/write_file", guarded(write_file), methods=["POST"]),
        Route("/upload", guarded(upload), methods=["POST"]),
        Route("/close", guarded(close), methods=["POST"]),
    ]
    return HttpGuard(Starlette(routes=routes), error=_guard_error, limits=limits)
