"""Run one Markdown file's code blocks in order, in one process (used by ``test_docs.py``).

``python run_blocks.py SPEC.json RESULTS.json``: SPEC holds the blocks, the working directory and
the per-block timeout; ``needs-model`` blocks get an ``agentworld serve`` started for the file. Python blocks share one
namespace (as a reader pasting them into one session would); shell blocks run in bash with
``set -e``. Lines that start a server (``agentworld serve``, ``search serve``, ``mcp serve --http``,
``shell ... swerex``) run in the background on a free port until the block ends, after the test
waited for the port to accept connections; they keep running for the file's later blocks (a
client in the next block), until the file is done. Documented ports (``--port 8765``) are replaced by
free ones throughout the file. Each block's outcome is written to RESULTS.json.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path

#: a line that starts a network server: ``agentworld serve``, ``agentworld X serve`` (search,
#: openenv, ... but ``mcp serve`` only with ``--http``: without it, it serves stdin) and the shell's
#: ``swerex`` runtime, optionally after ``VAR=value`` settings
_SERVER = re.compile(
    r"^(?P<lead>\s*(?:[A-Z_]+=\S+\s+)*)"
    r"(?P<cmd>agentworld\s+(?:serve|(?!mcp\b)[\w-]+\s+serve|mcp\s+serve\b.*--http|shell\b.*\bswerex)\b.*)$"
)
_LOCAL_V1 = re.compile(r"http://(?:localhost|127\.0\.0\.1):(\d+)/v1")

_PRELUDE = r"""
set -eo pipefail
pip() { "$_DOCS_PY" "$_DOCS_FAKE_PIP" "$@"; }  # installs never touch the test's environment
_docs_bg() {  # _docs_bg PORT CMD...: (re)start a server in the background, wait for its port
  local port=$1; shift
  if [ -f "$_DOCS_PIDS/$port" ]; then  # the same documented server again: stop the earlier one first
    local old; old=$(cat "$_DOCS_PIDS/$port")
    kill -TERM -- "-$old" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
  fi
  setsid "$_DOCS_BASH" -c "$*" >>"$_DOCS_SERVER_LOG" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" > "$_DOCS_PIDS/$port"
  "$_DOCS_PY" - "$port" "$pid" <<'PY'
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
for _ in range(600):
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        sys.exit(0)
    except OSError:
        pass
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            done = f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        done = True
    if done:
        print(f"docs-test: the server for port {port} exited before listening", file=sys.stderr)
        sys.exit(1)
    time.sleep(0.1)
print(f"docs-test: nothing listened on port {port}", file=sys.stderr)
sys.exit(1)
PY
}
"""


class ModelServer:
    """``agentworld serve`` on the offline world, started when the file's first ``needs-model`` block
    runs (so it loads the plugins earlier blocks installed), stopped when the file is done."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        if self.proc is not None:
            return self.url
        port = free_port()
        log = open(Path(self.cwd) / ".docs-test-model-server.log", "ab")  # noqa: SIM115 (the server's lifetime)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentworld_plugins",
                "serve",
                "--backend",
                "offline",
                "--port",
                str(port),
            ],
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        for _ in range(1200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"agentworld serve exited with {self.proc.returncode}") from None
                time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port}/v1"
        return self.url

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_map(blocks: list[dict]) -> dict[str, str]:
    """A free port for every ``--port N`` the file's shell blocks use."""
    ports = {p for b in blocks if b["lang"] == "shell" for p in re.findall(r"--port[ =](\d+)", b["code"])}
    return {p: str(free_port()) for p in sorted(ports)}


_DEAD = socket.socket()  # bound, never listening: a block that talks to a model unmarked is refused
_DEAD.bind(("127.0.0.1", 0))


def rewrite(code: str, model_url: str | None, lang: str, ports: dict[str, str]) -> str:
    """Point localhost world-model URLs at the test's server (``needs-model`` blocks) or at a port
    nothing answers (other blocks: never at whatever else runs on this machine), and documented
    server ports at free ones."""

    def world_model(m: re.Match[str]) -> str:
        if m.group(1) in ports and not model_url:  # a server an earlier block of this file started
            return m.group(0)
        return model_url or f"http://127.0.0.1:{_DEAD.getsockname()[1]}/v1"

    code = _LOCAL_V1.sub(world_model, code)
    for port, new in ports.items():
        code = re.sub(rf"(--port[ =]){port}\b", rf"\g<1>{new}", code)
        code = re.sub(rf":{port}\b", f":{new}", code)
    if lang != "shell":
        return code
    lines = []
    for line in code.splitlines():
        m = _SERVER.match(line)
        if m and "--list" not in line and "--help" not in line:
            cmd = m.group("cmd").split(" #", 1)[0].strip()
            port = re.search(r"--port[ =](\d+)", cmd)
            if port is None:  # a server on its default port: give it a free one
                p = free_port()
                cmd += f" --port {p}"
            else:
                p = int(port.group(1))
            env = m.group("lead").strip()
            line = f"_docs_bg {p} {json.dumps((env + ' ' if env else '') + cmd)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise _Timeout("the block ran past its timeout")


def run_python(code: str, name: str, ns: dict, timeout: int, env: dict[str, str]) -> tuple[bool, str]:
    out = io.StringIO()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    ok = True
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(code, name, "exec"), ns)
    except BaseException:  # a block's SystemExit or KeyboardInterrupt is its failure too
        ok = False
        out.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if ok and isinstance(ns.get("__exit_code__"), int):
        ok = ns["__exit_code__"] == 0
    return ok, out.getvalue()


def run_shell(code: str, cwd: str, timeout: int, env: dict[str, str]) -> tuple[bool, str]:
    script = Path(cwd) / ".docs-test-block.sh"
    script.write_text(_PRELUDE + code)
    full = {**os.environ, **env, "_DOCS_PY": sys.executable, "_DOCS_PIDS": str(Path(cwd) / ".docs-test-pids")}
    full["_DOCS_BASH"] = shutil.which("bash") or "/bin/bash"  # the real one: a doc may put shims on PATH
    full["_DOCS_FAKE_PIP"] = str(Path(__file__).with_name("fake_pip.py"))
    full["_DOCS_SERVER_LOG"] = str(Path(cwd) / ".docs-test-servers.log")
    proc = subprocess.Popen(
        ["bash", str(script)],
        cwd=cwd,
        env=full,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return False, out + f"\n(timed out after {timeout} s)"
    log = Path(full["_DOCS_SERVER_LOG"])
    if proc.returncode != 0 and log.exists():
        out += "\n--- background servers ---\n" + log.read_text()[-4000:]
    return proc.returncode == 0, out


def write_file(code: str, target: str, append: bool, cwd: str) -> tuple[bool, str]:
    path = Path(cwd) / target
    path.parent.mkdir(parents=True, exist_ok=True)
    text = code.split("\n", 1)[1] if "\n" in code else ""
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        fh.write(("\n" if append else "") + text)
    importlib.invalidate_caches()
    for module in list(sys.modules.values()):  # a module a block imported grows as the tutorial goes on
        if getattr(module, "__file__", None) and Path(module.__file__).resolve() == path.resolve():
            with contextlib.suppress(Exception):  # a half-written file is completed by a later block
                importlib.reload(module)
    return True, f"wrote {target}"


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    results_path = Path(sys.argv[2])
    cwd = spec["cwd"]
    os.chdir(cwd)
    sys.path.insert(0, cwd)
    sys.path.insert(0, os.environ["_DOCS_SITE"])  # what the blocks' `pip install -e DIR` linked
    ns: dict = {"__name__": "__main__"}
    results: dict[str, dict] = {}
    ports = port_map(spec["blocks"])
    pids = Path(cwd) / ".docs-test-pids"
    pids.mkdir(exist_ok=True)
    model = ModelServer(cwd)
    try:
        run_all(spec, ns, results, ports, results_path, model)
    finally:
        model.stop()
        for pid_file in pids.iterdir():  # the file's background servers
            with contextlib.suppress(OSError, ValueError):
                os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    results_path.write_text(json.dumps(results))


def run_all(
    spec: dict, ns: dict, results: dict, ports: dict[str, str], results_path: Path, model: ModelServer
) -> None:
    cwd = spec["cwd"]
    for block in spec["blocks"]:
        if block["mark"] == "skip":
            results[block["id"]] = {"ok": True, "skipped": True, "output": ""}
            continue
        try:
            model_url = model.start() if block["mark"] == "needs-model" else None
        except RuntimeError as exc:
            results[block["id"]] = {"ok": False, "skipped": False, "output": str(exc)}
            continue
        env = {"AGENTWORLD_BASE_URL": model_url} if model_url else {}
        started = time.monotonic()
        code = rewrite(block["code"], model_url, block["lang"], ports)
        if block["lang"] == "file":
            ok, out = write_file(block["code"], block["target"], block["append"], cwd)
        elif block["lang"] == "python":
            ok, out = run_python(code, block["id"], ns, spec["timeout"], env)
        else:
            ok, out = run_shell(code, cwd, spec["timeout"], env)
        results[block["id"]] = {
            "ok": ok,
            "skipped": False,
            "output": out[-6000:],
            "code": code,
            "seconds": round(time.monotonic() - started, 2),
        }
        results_path.write_text(json.dumps(results))  # appended as produced


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # a thread a block left running must not keep the file's run alive
