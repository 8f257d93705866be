"""The bash / sh shim: parsed like bash, run in separate processes, one consistent session."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell.shim import USAGE, ShimExit, parse_args
from click.testing import CliRunner

from agentworld_plugins.cli import cli


def bash(
    env: dict[str, str], *args: str, stdin: str | None = None, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args],
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        **kwargs,  # type: ignore[arg-type]
    )


# -- options, as bash parses them ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus"], "bash: --bogus: invalid option\n" + USAGE.format(name="bash")),
        (["-Z", "-c", "true"], "bash: -Z: invalid option\n" + USAGE.format(name="bash")),
        (["-c"], "bash: -c: option requires an argument\n"),
        (["-o", "bogus", "-c", "true"], "bash: line 0: bash: bogus: invalid option name\n"),
        (["-O", "bogus", "-c", "true"], "bash: bogus: invalid shell option name\n"),
        (["--rcfile"], "bash: rcfile: option requires an argument\n"),
    ],
    ids=["long", "short", "c-without-command", "set-o", "shopt", "rcfile"],
)
def test_rejected_options_get_bash_messages_and_status_2(args: list[str], message: str) -> None:
    with pytest.raises(ShimExit) as stop:
        parse_args("bash", args)
    assert (stop.value.code, stop.value.stderr) == (2, message)


def test_accepted_options() -> None:
    inv = parse_args("bash", ["--login", "--norc", "-euo", "pipefail", "-c", "ls", "me", "a"])
    assert (inv.command, inv.dollar0, inv.args) == ("ls", "me", ["a"])
    assert inv.command_text() == "set -eu -o pipefail; bash -c ls me a"
    assert parse_args("bash", ["-lc", "echo hi"]).command_text() == "echo hi"
    assert parse_args("bash", ["-x", "-c", "true"]).command_text() == "set -x; true"
    # every option reaches the simulated shell, which applies it or flags it as not simulated
    shopts = parse_args("bash", ["-fC", "-o", "noclobber", "-O", "nullglob", "-O", "dotglob", "-c", "echo *"])
    assert shopts.command_text() == "set -fC -o noclobber; shopt -s nullglob dotglob; echo *"
    assert parse_args("bash", ["script.sh", "1"]).command_text() == "bash script.sh 1"
    assert parse_args("bash", ["-s", "a"]).read_stdin
    assert parse_args("bash", ["-i"]).interactive
    assert parse_args("sh", ["-c", "echo $0"]).command_text() == "bash -c 'echo $0' sh"
    with pytest.raises(ShimExit) as version:
        parse_args("bash", ["--version"])
    assert version.value.code == 0 and version.value.stdout.startswith("GNU bash, version 5.2")


def test_sh_speaks_like_dash() -> None:
    for args, message in (
        (["--bogus"], "sh: 0: Illegal option --\n"),
        (["-Z"], "sh: 0: Illegal option -Z\n"),
        (["-c"], "sh: 0: -c requires an argument\n"),
    ):
        with pytest.raises(ShimExit) as stop:
            parse_args("sh", args)
        assert (stop.value.code, stop.value.stderr) == (2, message)


# -- processes -------------------------------------------------------------------------------------


def test_bash_c_calls_in_separate_processes_share_one_session(shim_env: dict[str, str]) -> None:
    assert shutil.which("bash", path=shim_env["PATH"]).startswith(
        str(Path(shim_env["PATH"].split(os.pathsep)[0]))
    )
    first = bash(shim_env, "-c", "mkdir -p src && echo 'print(42)' > src/main.py && echo written")
    assert (first.stdout, first.stderr, first.returncode) == ("written\n", "", 0)
    second = bash(shim_env, "-lc", "cat src/main.py; ls src")
    assert (second.stdout, second.returncode) == ("print(42)\nmain.py\n", 0)
    failed = bash(shim_env, "-c", "cat missing.txt; echo out")
    assert failed.stdout == "out\n" and "missing.txt: No such file or directory" in failed.stderr
    assert bash(shim_env, "-c", "exit 7").returncode == 7
    assert bash(shim_env, "-c", "cd /tmp; pwd").stdout == "/tmp\n"
    assert bash(shim_env, "-c", "pwd").stdout == "/app\n"
    assert bash(shim_env, "-c", 'echo "$0 $1"', "name", "arg").stdout == "name arg\n"


def test_stdin_scripts_and_pipes(shim_env: dict[str, str]) -> None:
    script = bash(shim_env, stdin="echo one > f.txt\necho two >> f.txt\nwc -l < f.txt\n")
    assert (script.stdout, script.returncode) == ("2\n", 0)
    piped = bash(shim_env, "-c", "sort -r", stdin="a\nc\nb\n")
    assert piped.stdout == "c\nb\na\n"


def test_output_bytes_come_back_exactly(shim_env: dict[str, str]) -> None:
    """The shim writes the shell's own bytes (invalid UTF-8, NUL, no added newline), not the
    text the model is shown; a later process reads the session's stored bytes the same way."""

    def raw(command: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["bash", "-c", command],
            env=shim_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )

    binary = raw(r"printf '\xff\0a'")
    assert (binary.stdout, binary.stderr, binary.returncode) == (b"\xff\x00a", b"", 0)
    utf8 = raw(r"printf 'caf\xc3\xa9\n'; printf 'e\x80' >&2; exit 3")
    assert (utf8.stdout, utf8.stderr, utf8.returncode) == (b"caf\xc3\xa9\n", b"e\x80", 3)
    every = raw("printf '" + "".join(f"\\{k:03o}" for k in range(256)) + "'")
    assert every.stdout == bytes(range(256))
    stored = raw(r"printf '\xfe\0' > blob; cat blob")
    assert stored.stdout == b"\xfe\x00"
    assert raw("cat blob; wc -c < blob").stdout == b"\xfe\x002\n"


def test_shell_true_through_an_sh_shim(shim_env: dict[str, str]) -> None:
    """``shell=True`` runs /bin/sh (an absolute path, so PATH cannot reach it): ``executable=``
    points it at the shim, which is what a harness does to simulate such an agent."""
    sh = shutil.which("sh", path=shim_env["PATH"])
    assert sh is not None and sh.startswith(shim_env["PATH"].split(os.pathsep)[0])
    bash(shim_env, "-c", "echo from-bash > shared.txt")
    done = subprocess.run(
        "cat shared.txt && echo $0",
        shell=True,
        executable=sh,
        env=shim_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.stdout, done.returncode) == ("from-bash\nsh\n", 0)
    via_env = subprocess.run(
        ["/usr/bin/env", "bash", "-c", "cat shared.txt"],
        env=shim_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert via_env.stdout == "from-bash\n"


def test_perturbations_follow_the_session_across_processes(shim_env: dict[str, str]) -> None:
    env = {**shim_env, "AGENTWORLD_PERTURB": "faults:kinds=permission_denied,commands=touch*,first=1"}
    denied = bash(env, "-c", "touch a")
    assert denied.returncode == 1 and "Permission denied" in denied.stderr
    assert bash(env, "-c", "touch b").returncode == 0  # first=1: the counter lives in the session
    assert bash(env, "-c", "ls a b").stdout == "b\n"


def test_tools_targeting_names_the_program_through_the_shim(shim_env: dict[str, str]) -> None:
    env = {**shim_env, "AGENTWORLD_PERTURB": "faults:kinds=connection_reset,tools=curl"}
    assert bash(env, "-c", "echo ok").stdout == "ok\n"
    reset = bash(env, "-eu", "-c", "cd /tmp && curl -sS https://api.test/v1")
    assert reset.returncode == 56 and "curl: (56) Recv failure: Connection reset by peer" in reset.stderr
    quiet = bash(env, "-eu", "-c", "cd /tmp && curl -s https://api.test/v1")  # -s: curl says nothing
    assert quiet.returncode == 56 and quiet.stderr == "" and quiet.stdout == ""


def test_bad_flags_through_the_process(shim_env: dict[str, str]) -> None:
    done = bash(shim_env, "--bogus")
    assert done.returncode == 2 and done.stderr.startswith("bash: --bogus: invalid option\nUsage:")
    assert bash(shim_env, "--version").stdout.startswith("GNU bash, version")


def test_parallel_processes_on_one_session(shim_env: dict[str, str]) -> None:
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda k: bash(shim_env, "-c", f"echo {k} >> log.txt"), range(6)))
    assert all(d.returncode == 0 for d in done)
    assert sorted(bash(shim_env, "-c", "cat log.txt").stdout.split()) == [str(k) for k in range(6)]


def test_in_process_fallback_continues_the_same_session(shim_env: dict[str, str]) -> None:
    bash(shim_env, "-c", "echo helper > who.txt")
    local = bash({**shim_env, "AGENTWORLD_SHIM_DAEMON": "0"}, "-c", "cat who.txt; echo local >> who.txt")
    assert (local.stdout, local.stderr, local.returncode) == ("helper\n", "", 0)
    assert bash(shim_env, "-c", "cat who.txt").stdout == "helper\nlocal\n"


def test_unusable_home_is_one_clear_line(shim_env: dict[str, str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = bash({**shim_env, "AGENTWORLD_HOME": str(blocker)}, "-c", "true")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "agentworld: Cannot open the session store" in done.stderr


# -- the CLI ---------------------------------------------------------------------------------------


def test_shim_install_and_env_commands(tmp_path: Path) -> None:
    runner = CliRunner()
    installed = runner.invoke(cli, ["shim", "install", str(tmp_path / "bin")])
    assert installed.exit_code == 0, installed.output
    assert os.access(tmp_path / "bin" / "bash", os.X_OK) and os.access(tmp_path / "bin" / "sh", os.X_OK)
    printed = runner.invoke(
        cli,
        [
            "shim",
            "env",
            str(tmp_path / "bin"),
            "--session",
            "agent-1",
            "--hostname",
            "box",
            "--backend",
            "offline",
        ],
        env={"AGENTWORLD_HOME": str(tmp_path / "home")},
    )
    assert printed.exit_code == 0, printed.output
    assert "export AGENTWORLD_SESSION=agent-1" in printed.output
    assert "export AGENTWORLD_SHELL_HOSTNAME=box" in printed.output
    assert f'export PATH={tmp_path / "bin"}:"$PATH"' in printed.output


def test_shell_options_through_the_shim(shim_env: dict[str, str]) -> None:
    """`bash -e`, `-u`, `-x` and `-o pipefail` act; each process starts with its options off."""
    stopped = bash(shim_env, "-eo", "pipefail", "-c", "false | true; echo no")
    assert (stopped.stdout, stopped.returncode) == ("", 1)
    unbound = bash(shim_env, "-u", "-c", "echo $nope")
    assert (unbound.stderr, unbound.returncode) == ("bash: line 1: nope: unbound variable\n", 127)
    traced = bash(shim_env, "-x", "-c", "echo 'a b'")
    assert (traced.stdout, traced.stderr) == ("a b\n", "+ echo 'a b'\n")
    assert bash(shim_env, "-c", "set -eu; true").returncode == 0
    after = bash(shim_env, "-c", "false; echo $nope; echo fresh")
    assert (after.stdout, after.returncode) == ("\nfresh\n", 0)


@pytest.mark.parametrize(
    ("kind", "command", "code", "stdout", "stderr"),
    [
        # curl -s says nothing on error; a pipeline's status is its last command's
        ("connection_reset", "curl -s https://api.test/v1 | head -1", 0, "", ""),
        ("connection_reset", "set -o pipefail; curl -s https://api.test/v1 | head -1", 56, "", ""),
        ("connection_reset", "curl -s https://api.test/v1 | grep id", 1, "", ""),
        # an HTTP error status is a success for plain curl: it prints the page; -f fails with 22
        (
            "rate_limit",
            "curl https://api.test/v1 | head -2",
            0,
            "<html>\n<head><title>429 Too Many Requests</title></head>\n",
            "",
        ),
        (
            "rate_limit",
            "curl -f https://api.test/v1",
            22,
            "",
            "curl: (22) The requested URL returned error: 429\n",
        ),
        ("rate_limit", "curl -sf https://api.test/v1", 22, "", ""),
        (
            "rate_limit",
            "curl -fsS https://api.test/v1",
            22,
            "",
            "curl: (22) The requested URL returned error: 429\n",
        ),
        # bash opens a redirection's file before the command runs, and says so itself
        ("permission_denied", "echo hi > a.txt", 1, "", "bash: a.txt: Permission denied\n"),
        ("not_found", "wc -l < missing.txt", 1, "", "bash: missing.txt: No such file or directory\n"),
    ],
    ids=[f"case{n}" for n in range(9)],
)
def test_faults_read_as_bash_and_curl_give_them(
    shim_env: dict[str, str], kind: str, command: str, code: int, stdout: str, stderr: str
) -> None:
    env = {**shim_env, "AGENTWORLD_PERTURB": f"faults:kinds={kind},tools=curl+echo+wc"}
    done = bash(env, "-c", command)
    assert (done.returncode, done.stdout, done.stderr) == (code, stdout, stderr)


def test_a_network_fault_on_a_local_command_is_not_injected_and_said(shim_env: dict[str, str]) -> None:
    """echo cannot be rate limited: it runs as it would, and the shim says once why nothing was injected."""
    env = {**shim_env, "AGENTWORLD_PERTURB": "faults:kinds=rate_limit"}
    first, second = bash(env, "-c", "echo hi"), bash(env, "-c", "echo hi")
    assert first.returncode == 0 and first.stdout == "hi\n" and "429" not in first.stderr
    assert (
        "agentworld: warning: the faults perturbation did not inject rate_limit into `echo`" in first.stderr
    )
    assert second.stderr == ""  # once a session


def test_a_relative_cassette_records_beside_the_caller(shim_env: dict[str, str], tmp_path: Path) -> None:
    """`AGENTWORLD_BACKEND=cassette:run.db,offline` from a working directory: the helper (which
    runs from /) records into that directory's run.db, not /run.db."""
    work = tmp_path / "work"
    work.mkdir()
    env = {**shim_env, "AGENTWORLD_BACKEND": "cassette:run.db,offline"}
    done = bash(env, "-c", "echo recorded", cwd=work)
    assert done.returncode == 0 and done.stdout == "recorded\n", done.stderr
    assert (work / "run.db").is_file()


def test_the_callers_environment_reaches_the_command(shim_env: dict[str, str]) -> None:
    """As a real ``bash -c`` inherits its caller's environment: exported variables are there
    (for that command only), the machine keeps its own PATH and HOME, secrets stay on the host."""
    env = {**shim_env, "FOO": "bar", "QUOTED": "a 'b' $c", "OPENAI_API_KEY": "sk-x", "DB_PASSWORD": "p"}
    env["HOME"] = "/host/home"
    ran = bash(env, "-c", 'echo "$FOO|$QUOTED|${OPENAI_API_KEY-unset}|${DB_PASSWORD-unset}|$HOME"')
    assert (ran.stdout, ran.stderr, ran.returncode) == ("bar|a 'b' $c|unset|unset|/root\n", "", 0)
    assert bash(shim_env, "-c", 'echo "[$FOO]"').stdout == "[]\n"  # it lasted for that command only
    script = bash(env, "-c", "bash -c 'echo $FOO'; set -o | grep -c xtrace")
    assert script.stdout.startswith("bar\n")


def test_caller_env_keeps_the_machine_and_the_secrets() -> None:
    from agentworld_plugins.adapters.shell.shim import caller_env

    given = {"FOO": "1", "PATH": "/x", "GITHUB_TOKEN": "t", "AWS_REGION": "r", "my_secret": "s",
             "LC_ALL": "C", "AGENTWORLD_HOME": "/h", "1BAD": "x", "PYTHONPATH": "/p", "BIG": "x" * 5000}  # fmt: skip
    assert caller_env(given) == {"FOO": "1"}
