"""Every HTTP server of the package, found by enumeration, is behind the one guard (``http_guard``).

A new command that binds a ``--host``, or a new place that starts uvicorn or an ``http.server``,
fails here until it is listed with its app, so no server can ship unguarded. Each listed app is
served for real on 127.0.0.1 and sent protocol-level garbage (a bad request line, a bad header,
a header block over the 64 KiB cap): every answer is JSON in the server's own shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from agentworld_plugins.adapters.search.api import create_search_app
from agentworld_plugins.adapters.shell.core import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from click.testing import CliRunner
from test_http_guard import SMALL, mcp_fake, raw_exchange

from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.http_guard import HttpGuard, HttpLimits, serving
from agentworld_plugins.rollout.openenv import create_openenv_app, default_task
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World

PACKAGE = Path(__file__).resolve().parents[1]


def _openenv(world: World) -> Any:
    task = default_task("terminal", None, 3, world.pm.registry)
    return create_openenv_app(world, [task], token="k", limits=SMALL)


#: command path -> (the option holding its token, minimal extra arguments, its app built for a test)
SERVERS: dict[str, tuple[str, list[str], Callable[[World], Any]]] = {
    "serve": ("--api-key", [], lambda w: create_app(FakeBackend(), api_key="k", limits=SMALL)),
    "search serve": ("--require-key", [], lambda w: create_search_app(w, api_key="k", limits=SMALL)),
    "shell swerex": ("--token", [], lambda w: swerex_app(VirtualTerminal(w), token="k", limits=SMALL)),
    "mcp serve": (
        "--token",
        ["--pack", "github-issues", "--http"],
        lambda w: mcp_fake().http_app(token="k", limits=SMALL),
    ),
    "openenv serve": ("--token", ["--tool-pack", "github-issues"], _openenv),
}
#: the only module that may start uvicorn (every server goes through ``http_guard.server_config``)
#: and the test fake world model (``fake_server``, an ``http.server`` on 127.0.0.1 for tests)
STARTS_SERVERS = {
    "http_guard.py": r"uvicorn\.(?:Server|Config)\(",
    "fake_server.py": r"HTTPServer\(|serve_forever",
}
SERVER_STARTS = re.compile(
    r"uvicorn\.(?:run|Server|Config)\(|HTTPServer\(|socketserver\.|asyncio\.start_server|"
    r"create_server\(|web\.run_app|hypercorn|serve_forever"
)


def _commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            yield from _commands(command, path + " ")
        else:
            yield path, command


def _options(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in getattr(param, "opts", [])}


def test_every_command_that_binds_a_host_is_a_listed_guarded_server() -> None:
    binding = {path for path, command in _commands(cli) if "--host" in _options(command)}
    assert binding == set(SERVERS), "a command binds --host: add it to SERVERS (and behind HttpGuard)"
    for path, (token_flag, _, _) in SERVERS.items():
        options = _options(dict(_commands(cli))[path])
        assert {"--allow-remote", "--max-body", token_flag} <= options, path


def test_only_the_guard_starts_servers() -> None:
    found = []
    for source in sorted(PACKAGE.rglob("*.py")):
        if ".venv" in source.parts or "tests" in source.parts or "benchmarks" in source.parts:
            continue
        text = source.read_text(encoding="utf-8")
        for match in SERVER_STARTS.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            allowed = STARTS_SERVERS.get(source.name)
            if not (allowed and re.match(allowed, match.group(0))) and not _in_docstring(text, match.start()):
                found.append(f"{source.relative_to(PACKAGE)}:{line}: {match.group(0)}")
    assert not found, "servers started outside http_guard.run/serving: " + ", ".join(found)


def _in_docstring(text: str, offset: int) -> bool:
    """Whether ``offset`` lies in a triple-quoted string or a comment (examples, not code)."""
    line_start = text.rfind("\n", 0, offset) + 1
    if "#" in text[line_start:offset]:
        return True
    return text.count('"""', 0, offset) % 2 == 1


@pytest.mark.parametrize("path", sorted(SERVERS))
def test_each_server_refuses_a_public_bind_without_a_token_naming_its_own_flag(path: str) -> None:
    token_flag, extra, _ = SERVERS[path]
    result = CliRunner().invoke(cli, [*path.split(), *extra, "--host", "0.0.0.0", "--port", "9"])
    assert result.exit_code == 1, result.output
    assert "without a token" in result.output
    named = set(re.findall(r"--[a-z][a-z-]+", result.output))
    assert token_flag in named and "--allow-remote" in named
    assert named <= _options(dict(_commands(cli))[path]) | {"--host"}, named


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with World(backend="offline") as w:
        yield w


GARBAGE = {
    "bad request line": (b"GARBAGE\r\n\r\n", 400),
    "bad header": (b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400),
    "bad chunked body": (
        b"POST /x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        400,
    ),
    "100 KiB header sent whole": (
        b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100 * 1024 + b"\r\n\r\n",
        431,
    ),
    "header block over the cap, unfinished": (b"GET /health HTTP/1.1\r\nX-Big: " + b"a" * 70 * 1024, 431),
}


@pytest.mark.parametrize("path", sorted(SERVERS))
def test_each_server_answers_protocol_errors_in_json(world: World, path: str) -> None:
    app = SERVERS[path][2](world)
    assert isinstance(app, HttpGuard), path
    limits = HttpLimits(max_body=SMALL.max_body, header_timeout=5, body_timeout=5)
    with serving(app, limits=limits, lifespan="on") as base:
        for name, (data, status) in GARBAGE.items():
            answer = raw_exchange(base, data)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 %d " % status), (path, name, answer[:300])
            assert b"content-type: application/json" in head.lower(), (path, name, head)
            shaped = json.dumps(json.loads(body))
            assert str(status) in shaped or "detail" in shaped or "error" in shaped, (path, name, shaped)
        # a header block just under the cap is still served
        fine = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " + b"a" * 60 * 1024
        assert not raw_exchange(base, fine + b"\r\n\r\n").startswith((b"HTTP/1.1 400", b"HTTP/1.1 431"))
