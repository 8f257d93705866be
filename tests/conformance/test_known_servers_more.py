"""More of the offline world against the real reference servers it mirrors (see
test_known_servers.py): server-everything (npm) and mcp-server-git (PyPI), pinned and installed on
demand into the conformance cache. The same call sequences go to the real server and to
``agentworld mcp serve --snapshot`` of its mirrored tools; every content block, the
``structuredContent`` and the error flag must be equal, modulo what the test names. The figure
per server is printed (``-s``) and kept >= 95 %."""

from __future__ import annotations

import base64
import json
import os
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from conformance_support import (
    isolating_server,
    mirror_snapshot,
    npm_server,
    offline_server,
    one_session,
    own_sessions,
    throwaway_python,
)
from mcp import Client, StdioServerParameters

from agentworld_plugins import World

EVERYTHING_VERSION = "2026.8.31"  # @modelcontextprotocol/server-everything
GIT_VERSION = "2026.10.19"  # mcp-server-git


async def _blocks(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's whole result: every content block, structuredContent, isError."""
    out = []
    async with Client(params) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            blocks = [b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in result.content]
            out.append((bool(result.is_error), blocks, result.structured_content))
    return out


def _compare(
    label: str,
    sequences: list[Any],
    real: Any,
    ours: Any,
    normalise: Any = json.dumps,
    *,
    stateless: bool = False,
) -> tuple[int, list[Any]]:
    """``real(index)`` and ``ours(index)``: the servers of sequence ``index``, a process each; one
    of each for them all when the server is ``stateless`` (or its sequences touch disjoint state)."""
    if stateless:
        wants, gots = one_session(_blocks, real(0), sequences), one_session(_blocks, ours(0), sequences)
    else:
        servers = list(range(len(sequences)))
        wants = own_sessions(_blocks, [real(i) for i in servers], sequences)
        gots = own_sessions(_blocks, [ours(i) for i in servers], sequences)
    same, differences = 0, []
    for calls, want_raw, got_raw in zip(sequences, wants, gots):
        want, got = [normalise(a) for a in want_raw], [normalise(a) for a in got_raw]
        if want == got:
            same += 1
        else:
            differences.append(next((c, w, g) for c, w, g in zip(calls, want, got) if w != g))
    print(f"{label}: {same}/{len(sequences)} call sequences identical")
    if os.environ.get("KNOWN_SERVERS_DIFF"):  # every difference, for a look by hand
        Path(os.environ["KNOWN_SERVERS_DIFF"]).write_text(json.dumps(differences, indent=1))
    return same, differences


# -- @modelcontextprotocol/server-everything ---------------------------------------------------------

#: what differs by when the call is made: the time in a dynamic resource's text (also inside blobs)
_CREATED = re.compile(r"created at \d{1,2}:\d{2}:\d{2}\s?[AP]M")


def _everything_normalised(answer: Any) -> str:
    is_error, blocks, structured = answer
    for block in blocks:
        resource = block.get("resource") if block.get("type") == "resource" else None
        if resource and resource.get("uri", "").startswith("demo://resource/dynamic/") and "blob" in resource:
            resource["blob"] = base64.b64decode(resource["blob"]).decode()
    return _CREATED.sub("created at TIME", json.dumps([is_error, blocks, structured]))


def _everything_calls(seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Calls to every tool that answers the same wherever it runs (get-env shows the process
    environment, get-roots-list the client's roots, and gzip of an http URL the internet: left
    out), valid and not (missing, wrong type, out of range, unknown option, extra argument)."""
    rng = random.Random(seed)
    choices: list[Any] = [
        lambda: ("echo", {"message": rng.choice(["hi", "", "Ünïcode ✓", "two\nlines"])}),
        lambda: ("echo", rng.choice([{}, {"message": 3}, {"message": None}, {"message": "x", "extra": 1}])),
        lambda: (
            "get-sum",
            {"a": rng.choice([1, 2.5, -3, 0.1, 1e21, 1e-7]), "b": rng.choice([2, 0.2, -0.5])},
        ),
        lambda: ("get-sum", rng.choice([{"a": "1", "b": 2}, {"a": 1}, {"a": [1], "b": True}])),
        lambda: ("get-tiny-image", {}),
        lambda: (
            "get-annotated-message",
            {
                "messageType": rng.choice(["error", "success", "debug", "bad"]),
                "includeImage": rng.random() < 0.5,
            },
        ),
        lambda: ("get-annotated-message", rng.choice([{}, {"messageType": "debug", "includeImage": "yes"}])),
        lambda: (
            "get-resource-reference",
            rng.choice(
                [
                    {},
                    {"resourceType": "Blob", "resourceId": 2},
                    {"resourceType": "Text", "resourceId": 7},
                    {"resourceId": 0},
                    {"resourceId": 1.5},
                    {"resourceType": "Blob"},
                ]
            ),
        ),
        lambda: (
            "get-resource-links",
            rng.choice([{}, {"count": 1}, {"count": 4}, {"count": 11}, {"count": 0}]),
        ),
        lambda: ("get-structured-content", {"location": rng.choice(["New York", "Chicago", "Los Angeles"])}),
        lambda: ("get-structured-content", rng.choice([{}, {"location": "Paris"}])),
        lambda: (
            "trigger-long-running-operation",
            rng.choice([{"duration": 0, "steps": 1}, {"duration": 0.01, "steps": 2}, {"duration": "x"}]),
        ),
        lambda: (rng.choice(["toggle-simulated-logging", "toggle-subscriber-updates"]), {}),
        lambda: (
            "gzip-file-as-resource",
            {
                "name": rng.choice(["a.gz", "notes.txt.gz"]),
                "data": rng.choice(
                    ["data:text/plain,hello", "data:text/plain;base64,aGVsbG8gd29ybGQ=", "ftp://x/y"]
                ),
                "outputType": rng.choice(["resource", "resourceLink"]),
            },
        ),
        lambda: ("simulate-research-query", {"topic": "tides"}),
    ]
    return [rng.choice(choices)() for _ in range(10)]


def test_everything_server_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    real_cmd = npm_server(
        "@modelcontextprotocol/server-everything", EVERYTHING_VERSION, "mcp-server-everything"
    )
    snapshot = tmp_path / "everything.json"
    mirror_snapshot(snapshot, real_cmd, tmp_path)
    sequences = [_everything_calls(seed) for seed in range(20)]
    with isolating_server(snapshot, tmp_path / "home") as url:
        same, differences = _compare(
            "server-everything",
            sequences,
            lambda _: StdioServerParameters(
                command=real_cmd[0], args=real_cmd[1:], env={"PATH": os.environ["PATH"]}
            ),
            lambda index: url if index else offline_server(snapshot, tmp_path / "home-0"),
            _everything_normalised,
        )  # ours: the first sequence over stdio, each other one in a world of its own over HTTP
    assert same / len(sequences) >= 0.95, differences[:3]


# -- mcp-server-git (PyPI) -------------------------------------------------------------------------

#: the repository both sides start from: a commit, then a modified, a staged and an untracked file
SEED = (
    "mkdir -p {repo} && cd {repo} && git init -q && git config user.name Dev && "
    "git config user.email dev@example.com && printf 'one\\ntwo\\nthree\\n' > a.txt && "
    "printf '# Notes\\n' > b.md && git add a.txt b.md && git commit -q -m 'first commit' && "
    "printf 'one\\nTWO\\nthree\\n' > a.txt && printf 'staged\\n' > c.txt && git add c.txt && "
    "printf 'new\\n' > d.txt"
)
#: what differs by when and where a commit is made: hashes (full and abbreviated) and dates
_HASH = re.compile(r"\b[0-9a-f]{7,40}\b")
_DATES = re.compile(r"(Date: +)[^\n\\]+|\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}")


#: the pydantic release in a validation error's help link (the server's venv has its own)
_PYDANTIC = re.compile(r"errors\.pydantic\.dev/[0-9.]+/")


def _git_normalised(answer: Any) -> str:
    text = _PYDANTIC.sub("errors.pydantic.dev/VERSION/", json.dumps(answer))
    return _DATES.sub(r"\1DATE", _HASH.sub("HASH", text))


def _git_calls(repo: str, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = [("git_status", {"repo_path": repo})]
    for _ in range(8):
        kind = rng.randrange(13)
        if kind == 0:
            calls.append(("git_status", {"repo_path": repo}))
        elif kind == 1:
            calls.append(
                ("git_diff_unstaged", {"repo_path": repo, "context_lines": rng.choice([0, 1, 3, 50])})
            )
        elif kind == 2:
            calls.append(("git_diff_staged", {"repo_path": repo, "context_lines": rng.choice([0, 1, 3])}))
        elif kind == 3:
            calls.append(("git_add", {"repo_path": repo, "files": rng.sample(["a.txt", "d.txt", "b.md"], 1)}))
        elif kind == 4:
            calls.append(("git_reset", {"repo_path": repo}))
        elif kind == 5:
            calls.append(("git_commit", {"repo_path": repo, "message": rng.choice(["second", "fix: TWO ✓"])}))
        elif kind == 6:
            calls.append(("git_log", {"repo_path": repo, "max_count": rng.choice([1, 5])}))
        elif kind == 7:
            calls.append(
                ("git_create_branch", {"repo_path": repo, "branch_name": rng.choice(["feature", "fix-1"])})
            )
        elif kind == 8:
            calls.append(
                ("git_checkout", {"repo_path": repo, "branch_name": rng.choice(["feature", "master"])})
            )
        elif kind == 9:
            calls.append(("git_branch", {"repo_path": repo, "branch_type": "local"}))
        elif kind == 10:
            calls.append(("git_show", {"repo_path": repo, "revision": "HEAD"}))
        elif kind == 11:
            target = rng.choice(["HEAD", "master", "feature"])
            calls.append(
                ("git_diff", {"repo_path": repo, "target": target, "context_lines": rng.choice([0, 2])})
            )
        else:
            calls.append(("git_status", rng.choice([{}, {"repo_path": 3}])))
    return calls


@pytest.fixture(scope="module")
def git_server() -> list[str]:
    python = throwaway_python(f"mcp-server-git-{GIT_VERSION}", [f"mcp-server-git=={GIT_VERSION}"])
    return [python, "-m", "mcp_server_git"]


def _real_git_env(home: Path) -> dict[str, str]:
    """git with no user or system configuration of the host's (default branch: master)."""
    home.mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "LANG": "C"}  # fmt: skip


def test_git_server_sequences_answer_as_the_real_one(git_server: list[str], tmp_path: Path) -> None:
    snapshot = tmp_path / "git.json"
    mirror_snapshot(snapshot, git_server, tmp_path)
    home = tmp_path / "home"
    repos = [str((tmp_path / f"seq-{index}" / "repo").resolve()) for index in range(20)]
    with World(backend="offline", name="git", home=home) as world:  # a repository per sequence,
        shell = world.session("swe", front="shell", tools=[{"name": "run_shell_command"}])
        for repo in repos:  # the same seed on the host's git and in the world's shell
            env = _real_git_env(tmp_path / "git-home")
            done = subprocess.run(
                ["bash", "-c", SEED.format(repo=repo)], capture_output=True, text=True, env=env
            )
            assert done.returncode == 0, done.stderr
            seeded = shell.step(
                {"tool_name": "run_shell_command", "arguments": {"command": SEED.format(repo=repo)}}
            )
            assert "Exit Code: 0" in seeded.text, seeded.text
    sequences = [_git_calls(repo, index) for index, repo in enumerate(repos)]
    same, differences = _compare(
        "mcp-server-git",
        sequences,
        lambda _: StdioServerParameters(
            command=git_server[0], args=git_server[1:], env=_real_git_env(tmp_path / "git-home")
        ),
        lambda _: offline_server(snapshot, home, "--world", "git"),
        _git_normalised,
        stateless=True,  # the server keeps nothing but the repositories, one per sequence
    )
    assert same / len(sequences) >= 0.95, differences[:3]


# -- validation errors in each SDK's words -------------------------------------------------------

TIME_VERSION = "2026.10.19"
MEMORY_VERSION = "2026.8.31"
FILESYSTEM_VERSION = "2026.8.31"
#: per server: (tool, arguments) with a missing argument, a wrong type, an extra one, a huge one
BAD_CALLS = {
    "memory": [
        ("create_entities", {}),
        ("create_entities", {"entities": "Ada"}),
        ("create_entities", {"entities": [{"name": "Ada", "entityType": 3, "observations": []}]}),
        ("open_nodes", {"names": ["Ada"], "extra": True}),
        ("search_nodes", {"query": 7}),
        ("search_nodes", {"query": ["x" * 1_000_000]}),
    ],
    "filesystem": [
        ("read_text_file", {}),
        ("read_text_file", {"path": 3}),
        ("read_text_file", {"path": "{root}/a.txt", "head": "2"}),
        ("list_directory", {"path": "{root}", "extra": 1}),
        ("write_file", {"path": "{root}/big.txt", "content": 1_000_000}),
    ],
    "git": [
        ("git_status", {}),
        ("git_status", {"repo_path": 3}),
        ("git_log", {"repo_path": "{root}", "max_count": 2.5}),
        ("git_log", {"repo_path": "{root}", "max_count": "x" * 1_000_000}),
        ("git_branch", {"repo_path": "{root}"}),
    ],
    "time": [
        ("get_current_time", {}),
        ("get_current_time", {"timezone": 9}),
        ("convert_time", {"source_timezone": "UTC", "time": "10:00"}),
        ("get_current_time", {"timezone": ["UTC" * 300_000]}),
    ],
}


def _first_texts(answers: list[Any]) -> list[Any]:
    return [
        (is_error, _PYDANTIC.sub("errors.pydantic.dev/VERSION/", blocks[0]["text"]))
        for is_error, blocks, _ in answers
    ]


def test_invalid_arguments_are_refused_in_each_real_servers_words(
    git_server: list[str], tmp_path: Path
) -> None:
    """Missing, mistyped, extra and 1 MB arguments: the TypeScript SDK's ``MCP error -32602``
    zod text (memory, filesystem) and the Python SDK's pydantic text (git, time), as the real
    servers answer them; a huge value is never echoed whole."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=_real_git_env(tmp_path / "gh"))
    time_python = throwaway_python(f"mcp-server-time-{TIME_VERSION}", [f"mcp-server-time=={TIME_VERSION}"])
    commands = {
        "memory": npm_server("@modelcontextprotocol/server-memory", MEMORY_VERSION, "mcp-server-memory"),
        "filesystem": [
            *npm_server(
                "@modelcontextprotocol/server-filesystem", FILESYSTEM_VERSION, "mcp-server-filesystem"
            ),
            str(root),
        ],
        "git": git_server,
        "time": [time_python, "-m", "mcp_server_time", "--local-timezone", "UTC"],
    }
    for server, command in commands.items():
        snapshot = tmp_path / f"{server}.json"
        mirror_snapshot(snapshot, command, tmp_path)
        calls = [
            (name, json.loads(json.dumps(args).replace("{root}", str(root))))
            for name, args in BAD_CALLS[server]
        ]
        env = {"PATH": os.environ["PATH"], "MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        real = StdioServerParameters(command=command[0], args=command[1:], env=env)
        want = _first_texts(anyio.run(_blocks, real, calls))
        got = _first_texts(anyio.run(_blocks, offline_server(snapshot, tmp_path / f"home-{server}"), calls))
        assert got == want, (server, [(c, w, g) for c, w, g in zip(calls, want, got) if w != g][:2])
        assert all(len(text) < 2000 for _, text in got)


# -- the surface, through the MCP Inspector CLI --------------------------------------------------

INSPECTED = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]


def _inspect(inspector: list[str], command: list[str], method: str, env: dict[str, str], cwd: Path) -> Any:
    pairs = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    done = subprocess.run(
        [*inspector, *pairs, *command, "--method", method], capture_output=True, text=True, timeout=180,
        cwd=cwd,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stdout + done.stderr


@pytest.mark.parametrize("server", ["memory", "everything"])
def test_the_inspector_cli_sees_the_real_servers_surface_on_the_mirror(
    inspector: list[str], server: str, tmp_path: Path
) -> None:
    """tools, resources, resource templates and prompts as the MCP Inspector CLI lists them:
    the same from the real server and from its mirror (``mcp serve --snapshot``)."""
    package = {"memory": "server-memory", "everything": "server-everything"}[server]
    version = MEMORY_VERSION if server == "memory" else EVERYTHING_VERSION
    real = npm_server(f"@modelcontextprotocol/{package}", version, f"mcp-{package}")
    snapshot = tmp_path / f"{server}.json"
    mirror_snapshot(snapshot, real, tmp_path)
    ours = offline_server(snapshot, tmp_path / "home")
    real_env = {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")}
    ours_env = {"AGENTWORLD_HOME": str(tmp_path / "home")}
    for method in INSPECTED:
        want = _inspect(inspector, real, method, real_env, tmp_path)
        got = _inspect(inspector, [ours.command, *ours.args], method, ours_env, tmp_path)
        assert got == want, method
        assert want[0] == 0 and want[1], (method, want)


# -- mcp-server-fetch (PyPI), against pages on 127.0.0.1 ---------------------------------------------

FETCH_VERSION = "2026.10.24"
PAGES = {
    "/notes.md": "# Field notes\n\nTides rise twice a day. Ünïcode ✓\n\n- one\n- two",
    "/long.md": "\n\n".join(f"Paragraph {n}: " + "lorem ipsum " * 40 for n in range(30)),
    "/": "# Home\n\nWelcome.",
}


class _Pages:
    """The pages on a real HTTP server on 127.0.0.1, as markdown (anything else: 404)."""

    def __enter__(self) -> str:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = PAGES.get(self.path)
                data = (body or "not found").encode()
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/markdown; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _fetch_calls(base: str, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls = []
    for _ in range(6):
        url = rng.choice(
            [f"{base}/notes.md", f"{base}/long.md", base, f"{base}/missing.md", "http://127.0.0.1:9/page"]
        )  # fmt: skip  (port 9: refused, as no host of the web)
        arguments: dict[str, Any] = {"url": url}
        if rng.random() < 0.6:
            arguments["max_length"] = rng.choice([1, 20, 500, 5000, 999999])
        if rng.random() < 0.5:
            arguments["start_index"] = rng.choice([0, 10, 4999, 20000, 100000])
        if rng.random() < 0.2:
            arguments["raw"] = True
        calls.append(("fetch", arguments))
    return calls


def test_fetch_server_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    """The real server fetches pages from 127.0.0.1 (robots.txt checked, private addresses
    allowed); the mirror reads the same pages from the offline web (``--corpus``)."""
    python = throwaway_python(f"mcp-server-fetch-{FETCH_VERSION}", [f"mcp-server-fetch=={FETCH_VERSION}"])
    real_cmd = [python, "-m", "mcp_server_fetch", "--allow-private-ips"]
    snapshot = tmp_path / "fetch.json"
    mirror_snapshot(snapshot, real_cmd, tmp_path)
    with _Pages() as base:
        corpus = tmp_path / "web"
        corpus.mkdir()
        for index, (path, body) in enumerate(PAGES.items()):
            (corpus / f"page-{index}.md").write_text(f"url: {base}{path}\n\n{body}\n")
        ours = offline_server(snapshot, tmp_path / "home", "--corpus", str(corpus))
        real = StdioServerParameters(command=real_cmd[0], args=real_cmd[1:], env={"PATH": os.environ["PATH"]})
        sequences = [_fetch_calls(base, seed) for seed in range(20)]
        same, differences = _compare(
            "mcp-server-fetch", sequences, lambda _: real, lambda _: ours, stateless=True
        )
    assert same / len(sequences) >= 0.95, differences[:3]
