"""The virtual terminal: result parsing, one machine behind both fronts, the session store."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell import results
from agentworld_plugins.adapters.shell.core import (
    MachineSpec,
    VirtualTerminal,
    parse_bash_footer,
    parse_shell_result,
    truncate_output,
)
from agentworld_plugins.adapters.shell.store import SessionStore, StoreError, StoreLockedError

from agentworld_plugins import World
from agentworld_plugins.backends import offline as offline_backend
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import ConfigError

FIELDS = (
    "Command: {cmd}\nDirectory: (root)\nStdout: {out}\nStderr: {err}\nError: {error}\n"
    "Exit Code: {code}\nSignal: {sig}\nBackground PIDs: (none)"
)


def result_text(
    out: str = "(empty)", err: str = "(empty)", code: str = "0", error: str = "(none)", sig: str = "(none)"
) -> str:
    return FIELDS.format(cmd="x", out=out, err=err, code=code, error=error, sig=sig)


# -- parsing the coding-tool format ----------------------------------------------------------------


def test_parse_fields_into_streams_and_exit_code() -> None:
    assert parse_shell_result(result_text("hi\nthere", "oops", "3")) == ("hi\nthere\n", "oops\n", 3)
    assert parse_shell_result(result_text()) == ("", "", 0)
    assert parse_shell_result(result_text("(none)", "(none)")) == ("", "", 0)


def test_parse_keeps_output_lines_that_look_like_fields() -> None:
    text = result_text("Error: not really\nStderr: still stdout", "Error: Cannot find module 'x'", "1")
    assert parse_shell_result(text) == (
        "Error: not really\nStderr: still stdout\n",
        "Error: Cannot find module 'x'\n",
        1,
    )


def test_parse_signal_error_and_other_formats() -> None:
    assert parse_shell_result(result_text(code="(none)", sig="9"))[2] == 137
    timed_out = parse_shell_result(result_text(code="(none)", error="Command timed out after 30 seconds."))
    assert timed_out == ("", "Command timed out after 30 seconds.\n", 1)
    assert parse_shell_result("plain words") == ("plain words\n", "", 0)
    assert parse_shell_result("Directory 'x' does not exist.", is_error=True) == (
        "",
        "Directory 'x' does not exist.\n",
        1,
    )
    assert parse_shell_result("a\nb\n[Command finished with exit code 2]") == ("a\nb\n", "", 2)
    assert parse_bash_footer("out\n[The command completed with exit code 4.]") == ("out\n", 4)
    assert parse_bash_footer("still running") == ("still running", None)


def test_truncation_marks_what_was_cut() -> None:
    cut = truncate_output("x" * 50, limit=10)
    assert cut.startswith("x" * 10) and "output truncated, 40 more characters" in cut
    assert truncate_output("short", limit=10) == "short"


# -- one machine, two fronts -----------------------------------------------------------------------


def test_command_front_runs_like_bash_c(world: World) -> None:
    term = VirtualTerminal(world)
    result = term.run("echo hi > a.txt && cat a.txt; echo err >&2; nope")
    assert result.stdout == "hi\n"
    assert "err\n" in result.stderr and "nope: command not found" in result.stderr
    assert result.exit_code == 127
    assert term.run("cd /tmp && pwd").stdout == "/tmp\n"
    assert term.run("pwd").stdout == "/app\n"  # a fresh shell each time
    assert term.run("pwd", cwd="/tmp").stdout == "/tmp\n"
    assert term.run("echo $GREETING", env={"GREETING": "hello world"}).stdout == "hello world\n"
    assert term.run("cat; wc -l", stdin="line\n").stdout.startswith("line\n")


def test_both_fronts_share_the_filesystem_not_the_shell(world: World) -> None:
    term = VirtualTerminal(world)
    term.run("mkdir -p src && echo 'print(1)' > src/app.py")
    screen = term.send_keys("cat src/app.py\n")
    assert screen.splitlines()[-2:] == ["print(1)", "root@agentworld:/app#"]
    term.send_keys(["cd /tmp", "Enter"])
    term.send_keys("echo from-screen > note.txt\n")
    assert term.run("cat /tmp/note.txt").stdout == "from-screen\n"
    assert term.run("pwd").stdout == "/app\n"
    assert term.prompt() == "root@agentworld:/tmp# "
    assert term.tool("read_file", {"absolute_path": "/tmp/note.txt"}).text.strip() == "from-screen"


def test_send_line_gives_output_and_next_prompt(world: World) -> None:
    term = VirtualTerminal(world)
    assert term.send_line("echo one; echo two").output == "one\ntwo\n"
    pending = term.send_line("for i in 1 2; do")
    assert (pending.output, pending.prompt) == ("", "> ")
    assert term.send_line("echo $i; done").output == "1\n2\n"
    term.send_line("PS1='agent$ '")
    assert term.prompt() == "agent$ "
    done = term.send_line("exit 4")
    assert done.exited == 4 and not term.alive


def test_execute_bash_is_one_persistent_shell(world: World) -> None:
    term = VirtualTerminal(world)
    term.execute_bash("cd /tmp && export X=7")
    result = term.execute_bash("echo $X; pwd")
    assert (result.stdout, result.exit_code) == ("7\n/tmp\n", 0)
    assert term.execute_bash("false").exit_code == 1


def test_machine_spec_from_files(tmp_path: Path, world: World) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "app.py").write_text("print('repo')\n")
    term = VirtualTerminal(world, machine=MachineSpec.load(tmp_path / "repo", hostname="box", cwd="/work"))
    assert term.run("cat app.py; hostname; pwd").stdout == "print('repo')\nbox\n/work\n"
    assert term.prompt() == "root@box:/work# "
    described = tmp_path / "machine.yaml"
    described.write_text("hostname: lab\nuser: ubuntu\ncwd: /home/ubuntu\nfiles:\n  notes.md: hello\n")
    spec = MachineSpec.load(described)
    assert (spec.hostname, spec.user, spec.files) == ("lab", "ubuntu", {"notes.md": "hello"})
    assert VirtualTerminal(world, machine=spec).prompt() == "ubuntu@lab:~$ "
    text = tmp_path / "machine.md"
    text.write_text("A build server with a Rust toolchain.")
    assert "Rust toolchain" in MachineSpec.load(text).describe()
    with pytest.raises(ConfigError, match="not an absolute path"):
        MachineSpec(cwd="app")
    with pytest.raises(ConfigError, match="Unknown machine field"):
        MachineSpec.from_dict({"hostnme": "x"})


def test_binary_and_enormous_output_do_not_crash(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    term = VirtualTerminal(world)
    term.write_file("/tmp/blob", "\x00\x01\xff binary \ufffd")
    assert isinstance(term.run("cat /tmp/blob; head -c 64 /usr/bin/ls").stdout, str)
    monkeypatch.setattr(results, "MAX_OUTPUT", 1000)
    big = term.run("seq 1 20000")
    assert len(big.stdout) < 1200 and "output truncated" in big.stdout
    assert big.exit_code == 0


def test_perturbations_apply_to_every_front(world: World) -> None:
    term = VirtualTerminal(world, perturbations=["faults:kinds=permission_denied,commands=touch*"])
    result = term.run("touch x")
    assert result.exit_code == 1 and "Permission denied" in result.stderr
    assert "Permission denied" in term.send_keys("touch y\n")
    assert "x" not in term.run("ls").stdout.split()  # the faulted command never ran


def test_a_world_model_screen_is_diffed_into_output() -> None:
    backend = FakeBackend().enqueue(
        "root@box:/app# ls\nmain.py  notes.txt\nroot@box:/app#",
        "Command: cat notes.txt\nDirectory: (root)\nStdout: remember\nStderr: (none)\nError: (none)\n"
        "Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)",
    )
    term = VirtualTerminal(World(backend=backend), machine={"hostname": "box"})
    line = term.send_line("ls")
    assert (line.output, line.prompt) == ("main.py  notes.txt\n", "root@box:/app# ")
    assert term.run("cat notes.txt").stdout == "remember\n"
    system = backend.history[-1][0][0]["content"]
    assert "## The Machine" in system and "host name: box" in system


# -- the store -------------------------------------------------------------------------------------


def test_store_continues_a_session_across_instances(tmp_path: Path, world: World) -> None:
    db = tmp_path / "shell.db"
    first = VirtualTerminal(world, session_id="s", store=db, machine={"hostname": "first"})
    first.run("echo 1 > counter")
    first.send_line("cd /tmp")
    second = VirtualTerminal(world, session_id="s", store=db, machine={"hostname": "ignored"})
    assert second.run("cat counter; hostname").stdout == "1\nfirst\n"
    assert second.prompt() == "root@first:/tmp# "
    second.run("echo 2 >> counter")
    assert first.run("cat counter").stdout == "1\n2\n"  # the first notices the change
    assert [t.number for t in first.turns["command"]] == [1, 2, 3, 4]
    rows = SessionStore(db).sessions()
    assert rows[0]["id"] == "s" and rows[0]["turns"] == 5


def test_store_replays_when_the_snapshot_cannot_be_used(
    tmp_path: Path, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "shell.db"
    term = VirtualTerminal(
        world, session_id="r", store=db, perturbations=["faults:kinds=not_found,commands=rm*"]
    )
    term.run("echo keep > a; echo b > b")
    term.run("rm a")  # faulted: must not run on replay either
    term.send_keys("cd /tmp && echo screen > s\n")
    monkeypatch.setattr(offline_backend, "snapshot_tag", lambda: "another-version")
    again = VirtualTerminal(world, session_id="r", store=db)
    assert again.run("cat a b /tmp/s").stdout == "keep\nb\nscreen\n"
    assert again.prompt() == "root@agentworld:/tmp# "


def test_concurrent_writers_keep_every_turn(tmp_path: Path, world: World) -> None:
    db = tmp_path / "shell.db"
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        term = VirtualTerminal(world, session_id="c", store=SessionStore(db))
        try:
            for j in range(3):
                term.run(f"echo {k}-{j} >> log")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    lines = VirtualTerminal(world, session_id="c", store=db).run("cat log").stdout.split()
    assert sorted(lines) == sorted(f"{k}-{j}" for k in range(4) for j in range(3))


def test_missing_or_locked_store_is_one_clear_line(tmp_path: Path, world: World) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    term = VirtualTerminal(world, session_id="m", store=blocker / "shell.db")
    with pytest.raises(StoreError) as info:
        term.run("true")
    assert "Cannot open the session store" in str(info.value) and "\n" not in str(info.value)
    store = SessionStore(tmp_path / "shell.db", timeout=0.2)
    busy = VirtualTerminal(world, session_id="busy", store=SessionStore(store.path, timeout=0.2))
    with store.lock("busy"), pytest.raises(StoreLockedError, match="busy in another process"):
        busy.run("true")  # another open of the lock file is another holder, as another process is
    busy.run("true")  # free again


def test_run_gives_the_exact_bytes_and_the_model_text_stays_lossy() -> None:
    """The streams are the shell's bytes (NUL, invalid UTF-8 as surrogate escapes, no added
    newline); the observation text is the usual field format. A text rewritten afterwards (a
    perturbation) makes the stored bytes stale, and then the text is what counts."""
    from agentworld_plugins.observation import raw_streams

    term = VirtualTerminal(World(backend="offline"))
    result = term.run(r"printf '\xff\0a'; printf 'no newline' >&2")
    assert (result.stdout, result.stderr) == ("\udcff\x00a", "no newline")
    assert result.observation is not None
    assert "Stdout: \ufffda\nStderr: no newline\n" in result.observation.text
    assert raw_streams(result.observation) == (b"\xff\x00a", b"no newline")
    changed = result.observation.model_copy(update={"text": result.observation.text.replace("a\n", "b\n")})
    assert raw_streams(changed) is None
