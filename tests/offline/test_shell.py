"""The simulated bash: a scripted session, GNU error wording, expansions, control flow."""

from __future__ import annotations

import copy

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits


@pytest.fixture
def vm() -> VirtualMachine:
    return VirtualMachine()


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


# (command, stdout, stderr, exit code), run one after the other on one machine
SESSION = [
    ("pwd", "/app\n", "", 0),
    ("mkdir -p work/notes && cd work", "", "", 0),
    ("pwd", "/app/work\n", "", 0),
    ('echo "first line" > notes/todo.txt', "", "", 0),
    ("cat <<EOF >> notes/todo.txt\nsecond $USER\nEOF", "", "", 0),
    ("cat notes/todo.txt", "first line\nsecond root\n", "", 0),
    ("cp notes/todo.txt backup.txt && ls", "backup.txt  notes\n", "", 0),
    ("mv backup.txt notes/ && ls notes", "backup.txt  todo.txt\n", "", 0),
    ("wc -l notes/*.txt", " 2 notes/backup.txt\n 2 notes/todo.txt\n 4 total\n", "", 0),
    ("cat notes/todo.txt | grep second | wc -l", "1\n", "", 0),
    ("rm notes/backup.txt; ls notes", "todo.txt\n", "", 0),
    ('export GREETING=hello; echo "$GREETING, $USER"', "hello, root\n", "", 0),
    ("cd ..; pwd", "/app\n", "", 0),
    ("cat work/missing.txt", "", "cat: work/missing.txt: No such file or directory\n", 1),
    ("echo $?", "1\n", "", 0),
    ("false && echo never || echo recovered", "recovered\n", "", 0),
    ("frobnicate --now", "", "bash: frobnicate: command not found\n", 127),
    ("echo $?", "127\n", "", 0),
    ("echo oops ;;", "", "bash: syntax error near unexpected token `;;'\n", 2),
    (
        "ls -1 work/notes && rm -r work && ls work",
        "todo.txt\n",
        "ls: cannot access 'work': No such file or directory\n",
        2,
    ),
    ("env | grep GREETING", "GREETING=hello\n", "", 0),
    ("cd ~ && pwd", "/root\n", "", 0),
]


def test_scripted_session(vm: VirtualMachine) -> None:
    for command, out, err, code in SESSION:
        assert run(vm, command) == (out, err, code), command
    assert vm.prompt() == "root@agentworld:~# "
    assert vm.history[-1] == "cd ~ && pwd"
    assert not vm.fs.exists("/app/work")


@pytest.mark.parametrize(
    ("command", "stderr", "code"),
    [
        ("cat nope.txt", "cat: nope.txt: No such file or directory\n", 1),
        ("cat /app", "cat: /app: Is a directory\n", 1),
        ("cat 'my file'", "cat: 'my file': No such file or directory\n", 1),
        ("ls nope", "ls: cannot access 'nope': No such file or directory\n", 2),
        ("ls -z", "ls: invalid option -- 'z'\nTry 'ls --help' for more information.\n", 2),
        ("cd /x", "bash: cd: /x: No such file or directory\n", 1),
        ("cd main.py", "bash: cd: main.py: Not a directory\n", 1),
        ("cd a b", "bash: cd: too many arguments\n", 1),
        ("mkdir /app", "mkdir: cannot create directory \u2018/app\u2019: File exists\n", 1),
        ("mkdir a/b", "mkdir: cannot create directory \u2018a/b\u2019: No such file or directory\n", 1),
        ("mkdir", "mkdir: missing operand\nTry 'mkdir --help' for more information.\n", 1),
        ("rm x", "rm: cannot remove 'x': No such file or directory\n", 1),
        ("mkdir d && rm d", "rm: cannot remove 'd': Is a directory\n", 1),
        (
            "rm -rf /",
            "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n",
            1,
        ),
        ("rmdir /app", "rmdir: failed to remove '/app': Directory not empty\n", 1),
        ("rmdir nope", "rmdir: failed to remove 'nope': No such file or directory\n", 1),
        ("touch q/x", "touch: cannot touch 'q/x': No such file or directory\n", 1),
        ("cp nope x", "cp: cannot stat 'nope': No such file or directory\n", 1),
        ("cp /etc /tmp", "cp: -r not specified; omitting directory '/etc'\n", 1),
        (
            "cp main.py",
            "cp: missing destination file operand after 'main.py'\nTry 'cp --help' for more information.\n",
            1,
        ),
        ("mv nope x", "mv: cannot stat 'nope': No such file or directory\n", 1),
        ("head nope", "head: cannot open 'nope' for reading: No such file or directory\n", 1),
        ("tail nope", "tail: cannot open 'nope' for reading: No such file or directory\n", 1),
        ("head -n x main.py", "head: invalid number of lines: \u2018x\u2019\n", 1),
        ("wc nope", "wc: nope: No such file or directory\n", 1),
        ("grep x nope", "grep: nope: No such file or directory\n", 2),
        ("sort nope", "sort: cannot read: nope: No such file or directory\n", 2),
        ("find nope", "find: \u2018nope\u2019: No such file or directory\n", 1),
        ("sed -n 1p nope", "sed: can't read nope: No such file or directory\n", 2),
        ("chmod +x nope", "chmod: cannot access 'nope': No such file or directory\n", 1),
        ("./missing.sh", "bash: ./missing.sh: No such file or directory\n", 127),
        ("./main.py", "bash: ./main.py: Permission denied\n", 126),
        ("nosuchprog", "bash: nosuchprog: command not found\n", 127),
        (
            "python3 nope.py",
            "python3: can't open file '/app/nope.py': [Errno 2] No such file or directory\n",
            2,
        ),
        ("export 1x=2", "bash: export: `1x=2': not a valid identifier\n", 1),
        ("[ 1 -lt ]", "bash: [: 1: unary operator expected\n", 2),
        ("echo $((1/0))", 'bash: 1/0: division by 0 (error token is "0")\n', 1),
        ("echo hi > /nodir/x", "bash: /nodir/x: No such file or directory\n", 1),
        ("cat < nope", "bash: nope: No such file or directory\n", 1),
    ],
)
def test_gnu_error_wording(vm: VirtualMachine, command: str, stderr: str, code: int) -> None:
    out, err, status = run(vm, command)
    assert (err, status) == (stderr, code)
    assert out == ""


def test_syntax_errors_exit_2_in_both_modes() -> None:
    assert run(VirtualMachine(), "echo (") == ("", "bash: syntax error near unexpected token `newline'\n", 2)
    batch = VirtualMachine(interactive=False)
    assert run(batch, "| ls") == (
        "",
        "bash: -c: line 1: syntax error near unexpected token `|'\nbash: -c: line 1: `| ls'\n",
        2,
    )
    # an unfinished command: reported on the line past the last, as bash 5.2 does
    assert run(batch, "ls |") == ("", "bash: -c: line 2: syntax error: unexpected end of file\n", 2)
    # an unclosed quote: one line, as the host's bash 5.2 says it
    assert run(batch, "echo 'abc") == (
        "",
        "bash: -c: line 1: unexpected EOF while looking for matching `''\n",
        2,
    )
    # bash -c names the line of errors bash itself reports
    assert run(batch, "true\nnope") == ("", "bash: line 2: nope: command not found\n", 127)


def test_pipes_lists_and_short_circuit(vm: VirtualMachine) -> None:
    assert run(vm, "printf 'b\\na\\nb\\nc\\n' | sort | uniq -c | sort -rn | head -1") == (
        "      2 b\n",
        "",
        0,
    )
    assert run(vm, "true || echo skipped; echo after") == ("after\n", "", 0)
    assert run(vm, "false || false && echo reached") == ("", "", 1)
    assert run(vm, "true | false; echo $?") == ("1\n", "", 0)
    assert run(vm, "! true; echo $?") == ("1\n", "", 0)
    assert run(vm, "cat main.py | grep -c def") == ("1\n", "", 0)


def test_redirections(vm: VirtualMachine) -> None:
    assert run(vm, "ls nope > out.txt 2>&1; cat out.txt") == (
        "ls: cannot access 'nope': No such file or directory\n",
        "",
        0,
    )
    assert run(vm, "ls nope 2>/dev/null; echo $?") == ("2\n", "", 0)
    assert run(vm, "ls nope 2>&1 >/dev/null | wc -l") == ("1\n", "", 0)
    assert run(vm, "echo a > f; echo b >> f; cat < f") == ("a\nb\n", "", 0)
    assert run(vm, "echo err >&2") == ("", "err\n", 0)
    assert run(vm, "cat <<< 'here string'") == ("here string\n", "", 0)
    assert run(vm, "X=1; cat <<'EOF'\n$X stays\nEOF") == ("$X stays\n", "", 0)
    assert run(vm, "cat <<-EOF\n\tindented $((1+1))\n\tEOF") == ("indented 2\n", "", 0)
    assert run(vm, "{ echo one; echo two; } > g; wc -l < g") == ("2\n", "", 0)
    assert run(vm, "cat f nope f") == ("a\nb\na\nb\n", "cat: nope: No such file or directory\n", 1)
    # stdout and stderr keep their order for the terminal
    assert vm.run("cat f nope").output == "a\nb\ncat: nope: No such file or directory\n"


def test_quoting_and_expansion(vm: VirtualMachine) -> None:
    vm.run("touch a.txt b.txt")
    assert run(vm, "echo 'single $HOME' \"double $HOME\" \\$HOME") == (
        "single $HOME double /root $HOME\n",
        "",
        0,
    )
    assert run(vm, "v='a  b'; echo $v; echo \"$v\"") == ("a b\na  b\n", "", 0)
    assert run(vm, "x=hello; echo ${#x} ${x:1:3} ${x^^} ${x%lo} ${x#he} ${x//l/L}") == (
        "5 ell HELLO hel llo heLLo\n",
        "",
        0,
    )
    assert run(vm, "echo ${UNSET:-default} [${UNSET:+alt}]") == ("default []\n", "", 0)
    assert run(vm, "echo {1..3} x{a,b}y {01..03}") == ("1 2 3 xay xby 01 02 03\n", "", 0)
    assert run(vm, "echo $((3 + 4 * 2)) $((7 / 2)) $((2 ** 5)) $((2#101))") == ("11 3 32 5\n", "", 0)
    assert run(vm, 'echo "$(echo inner) `echo back`"') == ("inner back\n", "", 0)
    assert run(vm, "echo *.txt; echo *.none") == ("a.txt b.txt requirements.txt\n*.none\n", "", 0)
    assert run(vm, "echo $'tab\\there'") == ("tab\there\n", "", 0)
    assert run(vm, "f=a.txt; echo ${f%.txt}.md") == ("a.md\n", "", 0)
    assert run(vm, "echo ~ ~/x") == ("/root /root/x\n", "", 0)


def test_control_flow_functions_and_scripts(vm: VirtualMachine) -> None:
    assert run(vm, "for f in 1 2 3; do [ $f = 2 ] && continue; echo $f; done") == ("1\n3\n", "", 0)
    assert run(vm, "n=3; while [ $n -gt 0 ]; do echo $n; n=$((n-1)); done") == ("3\n2\n1\n", "", 0)
    assert run(vm, "if [ -f main.py ]; then echo yes; elif true; then echo no; else echo never; fi") == (
        "yes\n",
        "",
        0,
    )
    assert run(vm, 'greet() { echo "hi $1"; return 3; }; greet you; echo $?') == ("hi you\n3\n", "", 0)
    assert run(vm, "printf 'a b\\nc d\\n' | while read x y; do echo \"$y-$x\"; done") == ("b-a\nd-c\n", "", 0)
    script = (
        "cat > run.sh <<'EOF'\n#!/bin/bash\necho \"args: $# $1\"\nnope_inside\nexit 4\nEOF\nchmod +x run.sh"
    )
    assert run(vm, script) == ("", "", 0)
    assert run(vm, "./run.sh one two; echo $?") == (
        "args: 2 one\n4\n",
        "./run.sh: line 3: nope_inside: command not found\n",
        0,
    )
    assert run(vm, "bash -c 'echo $0 $1' zero one") == ("zero one\n", "", 0)
    assert run(vm, "(cd /tmp; pwd); pwd") == ("/tmp\n/app\n", "", 0)
    assert run(vm, "x=$(false); echo $?") == ("1\n", "", 0)


def test_utilities_match_gnu_output(vm: VirtualMachine) -> None:
    vm.run("printf 'apple\\nbanana\\ncherry\\napple pie\\n' > a.txt")
    assert run(vm, "grep -n apple a.txt") == ("1:apple\n4:apple pie\n", "", 0)
    assert run(vm, "grep -c a a.txt main.py") == ("a.txt:3\nmain.py:4\n", "", 0)
    assert run(vm, "grep -r greet .") == (
        './main.py:def greet(name: str) -> str:\n./main.py:    print(greet("world"))\n',
        "",
        0,
    )
    assert run(vm, "grep zzz a.txt; echo $?") == ("1\n", "", 0)
    assert run(vm, "head -2 a.txt; tail -n +4 a.txt") == ("apple\nbanana\napple pie\n", "", 0)
    assert run(vm, "wc a.txt; cat a.txt | wc") == (" 4  5 30 a.txt\n      4       5      30\n", "", 0)
    assert run(vm, "sed -n 2p a.txt; sed 's/apple/APPLE/g' a.txt | head -1") == ("banana\nAPPLE\n", "", 0)
    assert run(vm, "echo hello | tr a-z A-Z; echo a:b:c | cut -d: -f2") == ("HELLO\nb\n", "", 0)
    assert run(vm, "seq -s, 5; basename /x/y.txt .txt; dirname /x/y.txt") == ("1,2,3,4,5\ny\n/x\n", "", 0)
    assert run(vm, "find . -name '*.py'; find . -type d") == ("./main.py\n.\n", "", 0)
    assert run(vm, "which ls nope; echo $?") == ("/usr/bin/ls\n1\n", "", 0)
    assert run(vm, "whoami; hostname; uname -s -m") == ("root\nagentworld\nLinux x86_64\n", "", 0)
    assert run(vm, "python3 --version; python --version") == ("Python 3.12.0\nPython 3.12.0\n", "", 0)
    assert run(vm, "printf '%5s|%-4s|%03d|%.2f\\n' ab cd 7 3.14159") == ("   ab|cd  |007|3.14\n", "", 0)


def test_arithmetic_printf_and_positional_parameters(vm: VirtualMachine) -> None:
    assert run(vm, "i=1; echo $((i++)) $i $((++i)) $((i += 5)) $i") == ("1 2 3 8 8\n", "", 0)
    assert run(vm, "echo $(( 5 > 3 ? 10 : 20 )) $(( -7 / 2 )) $(( -7 % 2 ))") == ("10 -3 -1\n", "", 0)
    assert run(vm, "printf '%q|%s\\n' 'a b' \\x41; printf '\\101\\n'") == ("a\\ b|x41\nA\n", "", 0)
    assert run(vm, 'set -- a "b c"; for x in "$@"; do echo "[$x]"; done; echo $#') == (
        "[a]\n[b c]\n2\n",
        "",
        0,
    )
    assert run(vm, "seq 3 | paste -sd+") == ("1+2+3\n", "", 0)
    assert run(vm, "mkdir -pv p/q") == (
        "mkdir: created directory 'p'\nmkdir: created directory 'p/q'\n",
        "",
        0,
    )
    assert run(vm, "rm -rv p") == ("removed directory 'p/q'\nremoved directory 'p'\n", "", 0)
    assert run(vm, "a=(1 2); echo ${a[0]}") == ("1\n", "", 0)  # arrays are simulated (arrays.py)


def test_ls_formats(vm: VirtualMachine) -> None:
    assert run(vm, "ls") == ("README.md  main.py  requirements.txt\n", "", 0)
    assert vm.run("ls", tty=False).stdout == "README.md\nmain.py\nrequirements.txt\n"
    assert run(vm, "ls | cat") == ("README.md\nmain.py\nrequirements.txt\n", "", 0)
    assert run(vm, "ls -la") == (
        "total 20\n"
        "drwxr-xr-x  2 root root 4096 Jan 15 09:30 .\n"
        "drwxr-xr-x 14 root root 4096 Jan 15 09:30 ..\n"
        "-rw-r--r--  1 root root  103 Jan 15 09:30 README.md\n"
        "-rw-r--r--  1 root root  150 Jan 15 09:30 main.py\n"
        "-rw-r--r--  1 root root   17 Jan 15 09:30 requirements.txt\n",
        "",
        0,
    )
    vm.run("mkdir src && touch src/a.py")
    assert run(vm, "ls -F; ls -R src") == ("README.md  main.py  requirements.txt  src/\nsrc:\na.py\n", "", 0)


def test_date_is_frozen_and_advances_with_mutations() -> None:
    vm = VirtualMachine()
    assert run(vm, "date") == ("Thu Jan 15 09:30:00 UTC 2026\n", "", 0)
    vm.run("touch x y")
    assert run(vm, "date +%H:%M:%S") == ("09:30:02\n", "", 0)


def test_binary_files_are_reported_like_grep_does(vm: VirtualMachine) -> None:
    vm.fs.write("/app/blob.bin", b"\x00\x01hello\xff")
    assert run(vm, "grep hello blob.bin") == ("", "grep: blob.bin: binary file matches\n", 0)
    assert run(vm, "grep -c hello blob.bin") == ("1\n", "", 0)
    assert vm.run("cat blob.bin").stdout.encode("utf-8", "surrogateescape") == b"\x00\x01hello\xff"


def test_unknown_programs_are_flagged_not_invented(vm: VirtualMachine) -> None:
    for command in ("make install", "gcc main.c", "vim main.py", "curl http://x"):
        r = vm.run(command)
        name = command.split()[0]
        assert r.stdout == "" and r.exit_code == 126, command
        assert r.stderr.startswith(f"{name}: cannot run in the offline world") and r.stderr.count("\n") == 1
        assert r.unknown_effect and r.unknown_commands == [command]
    vm.limits = StepLimits(unknown_fails=False)  # AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS=succeed
    quiet = vm.run("make install")
    assert (quiet.stdout, quiet.stderr, quiet.exit_code, quiet.unknown_effect) == ("", "", 0, True)
    known = vm.run("git --version && python3 --version")
    assert known.stdout == "git version 2.43.0\nPython 3.12.0\n" and not known.unknown_effect
    assert vm.run("select x in a; do echo; done").unknown_effect  # parsed by nobody: flagged
    vm.limits = StepLimits(seconds=0.2)
    runaway = vm.run("while true; do :; done")
    assert runaway.exit_code == 152 and "CPU time limit exceeded" in runaway.stderr
    assert vm.run("echo still here").stdout == "still here\n"


def test_prompt_needs_more_and_determinism() -> None:
    vm = VirtualMachine(cwd="/root")
    assert vm.prompt() == "root@agentworld:~# "
    vm.run("cd /tmp")
    assert vm.prompt() == "root@agentworld:/tmp# "
    assert vm.needs_more("cat <<EOF") and vm.needs_more("echo 'open") and vm.needs_more("for i in 1; do")
    assert vm.needs_more("ls |") and vm.needs_more("echo \\") and not vm.needs_more("echo done")
    script = "mkdir -p a/b; echo x > a/b/c; ls -lR; date; echo $RANDOM; stat a/b/c"
    first, second = VirtualMachine(), VirtualMachine()
    assert first.run(script).output == second.run(script).output
    twin = copy.deepcopy(first)
    twin.run("rm -r a")
    assert first.fs.exists("/app/a/b/c") and not twin.fs.exists("/app/a")


def test_exit_and_rm_no_preserve_root(vm: VirtualMachine) -> None:
    r = vm.run("echo bye; exit 3; echo never")
    assert (r.stdout, r.stderr, r.exit_code, r.exited) == ("bye\n", "exit\n", 3, True)
    r = vm.run("rm -rf --no-preserve-root /; ls")
    assert r.stderr == "bash: ls: command not found\n" and r.exit_code == 127


def test_nothing_runs_or_writes_on_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Process creation and host file writes are booby-trapped; a destructive session still works."""
    import builtins
    import io
    import os
    import shutil
    import subprocess

    from agentworld_plugins.domains.swe import SweDomain
    from agentworld_plugins.domains.terminal import TerminalDomain

    probe = "/tmp/agentworld-host-probe-XYZ"
    probe_dir = "/tmp/agentworld-host-probe-dir-XYZ"
    before = {name for name in os.listdir("/tmp") if name.startswith("agentworld-host-probe")}
    assert not os.path.exists(probe) and not os.path.exists(probe_dir)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"host access attempted: {args!r}")

    monkeypatch.setattr(subprocess, "Popen", forbidden)
    for name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execvp", "execvpe", "execl", "execlp",
                 "execle", "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp",
                 "remove", "unlink", "rmdir", "removedirs", "mkdir", "makedirs", "rename", "replace", "chmod",
                 "symlink", "link", "truncate", "utime"):  # fmt: skip
        if hasattr(os, name):
            monkeypatch.setattr(os, name, forbidden)
    monkeypatch.setattr(shutil, "rmtree", forbidden)
    real_open = builtins.open

    def read_only_open(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if any(flag in mode for flag in "wax+"):
            raise AssertionError(f"host write attempted: {file!r}")
        return real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", read_only_open)
    monkeypatch.setattr(io, "open", read_only_open)

    vm = VirtualMachine()
    session = [
        f"touch {probe} && ls -l {probe}",
        f"echo data > {probe}; cat {probe} >> {probe}.2; mkdir -p {probe_dir}/a && cp -r /etc {probe_dir}/a",
        f"mv {probe} {probe_dir}/moved; chmod 777 {probe_dir}; ln -s /etc/passwd {probe_dir}/link",
        "rm -rf /",
        "rm -rf --no-preserve-root /",
        "ls /; cat /etc/passwd; python3 -c 'import os; os.system(\"id\")'; bash -c 'rm -rf ~'",
    ]
    results = [vm.run(command) for command in session]
    assert results[0].exit_code == 0 and probe in results[0].stdout
    assert results[3].exit_code == 1 and "dangerous to operate recursively" in results[3].stderr
    assert results[5].exit_code == 127  # nothing left in the virtual machine, not even ls
    terminal_state: dict[str, object] = {}
    terminal = TerminalDomain()
    terminal.offline_step(
        terminal_state, terminal.validate_action([{"keystrokes": f"touch {probe}; rm -rf /tmp\n"}]), {}
    )
    swe_state: dict[str, object] = {}
    swe = SweDomain()
    for tool, args in (
        ("write_file", {"file_path": probe, "content": "x"}),
        ("run_shell_command", {"command": f"echo y > {probe}; rm -rf --no-preserve-root /"}),
        ("execute_bash", {"command": f"mkdir {probe_dir}"}),
    ):
        swe.offline_step(swe_state, swe.validate_action({"tool_name": tool, "arguments": args}), {})

    monkeypatch.undo()
    assert not os.path.exists(probe) and not os.path.exists(probe + ".2") and not os.path.exists(probe_dir)
    after = {name for name in os.listdir("/tmp") if name.startswith("agentworld-host-probe")}
    assert after == before == set()
    assert os.path.isdir("/tmp") and os.path.isfile("/etc/passwd")


PINNED_SETUP = "printf 'one\\ntwo\\nthree\\n' > a.txt; printf 'tail' > b.txt; mkdir d"


@pytest.mark.parametrize(
    ("command", "stdout", "stderr", "code", "unknown"),
    [
        # head and tail: headers, byte counts, directories, counts from the start or the end
        ("head -2 a.txt b.txt", "==> a.txt <==\none\ntwo\n\n==> b.txt <==\ntail", "", 0, False),
        (
            "head d a.txt",
            "==> d <==\n\n==> a.txt <==\none\ntwo\nthree\n",
            "head: error reading 'd': Is a directory\n",
            1,
            False,
        ),
        ("head -c 3 b.txt", "tai", "", 0, False),
        ("head -n -1 a.txt", "one\ntwo\n", "", 0, False),
        ("echo x | head -v", "==> standard input <==\nx\n", "", 0, False),
        ("tail -c +2 b.txt", "ail", "", 0, False),
        ("tail -n 0 a.txt", "", "", 0, False),
        (
            "tail d a.txt",
            "==> a.txt <==\none\ntwo\nthree\n",
            "tail: error reading 'd': Is a directory\n",
            1,
            False,
        ),
        ("tail -c x a.txt", "", "tail: invalid number of bytes: \u2018x\u2019\n", 1, False),
        ("tail -f a.txt", "one\ntwo\nthree\n", "", 0, True),
        # filters over several operands: a missing one is reported in each program's words, the rest still read
        (
            "tac nope a.txt",
            "three\ntwo\none\n",
            "tac: failed to open 'nope' for reading: No such file or directory\n",
            1,
            False,
        ),
        ("rev nope b.txt", "liat\n", "rev: cannot open nope: No such file or directory\n", 1, False),
        (
            "nl nope a.txt",
            "     1\tone\n     2\ttwo\n     3\tthree\n",
            "nl: nope: No such file or directory\n",
            1,
            False,
        ),
        (
            "md5sum nope b.txt",
            "7aea2552dfe7eb84b9443b6fc9ba6e01  b.txt\n",
            "md5sum: nope: No such file or directory\n",
            1,
            False,
        ),
        ("paste -d: a.txt nope", "one\ntwo\nthree\n", "paste: nope: No such file or directory\n", 1, False),
        ("cut -c1 nope a.txt", "o\nt\nt\n", "cut: nope: No such file or directory\n", 1, False),
        ("cat -n nope b.txt", "     1\ttail", "cat: nope: No such file or directory\n", 1, False),
        ("uniq nope", "", "uniq: nope: No such file or directory\n", 1, False),
        ("sort -o /nodir/x a.txt", "", "sort: open failed: /nodir/x: No such file or directory\n", 2, False),
        ("uniq a.txt /nodir/x", "", "uniq: /nodir/x: No such file or directory\n", 1, False),
        # usage errors point at --help
        (
            "sleep x",
            "",
            "sleep: invalid time interval \u2018x\u2019\nTry 'sleep --help' for more information.\n",
            1,
            False,
        ),
        (
            "seq x",
            "",
            "seq: invalid floating point argument: 'x'\nTry 'seq --help' for more information.\n",
            1,
            False,
        ),
        (
            "chmod zz a.txt",
            "",
            "chmod: invalid mode: 'zz'\nTry 'chmod --help' for more information.\n",
            1,
            False,
        ),
        (
            "diff a.txt",
            "",
            "diff: missing operand after 'a.txt'\ndiff: Try 'diff --help' for more information.\n",
            2,
            False,
        ),
        # break and continue with levels, in for and while loops
        (
            "for i in 1 2 3; do for j in a b c; do [ $j = b ] && continue 2; [ $i = 3 ] && break 2; echo $i$j;"
            " done; done; echo $?",
            "1a\n2a\n0\n",
            "",
            0,
            False,
        ),
        (
            "i=0; while true; do i=$((i+1)); [ $i = 2 ] && continue; [ $i -gt 3 ] && break; echo $i; done",
            "1\n3\n",
            "",
            0,
            False,
        ),
        ("for i in 1 2; do true; break; done; echo $?", "0\n", "", 0, False),
        ("break", "", "bash: break: only meaningful in a `for', `while', or `until' loop\n", 0, False),
        ("for i in 1; do break x; done", "", "bash: break: x: numeric argument required\n", 1, False),
        # builtins' errors start the way bash starts its own
        ("local x=1", "", "bash: local: can only be used in a function\n", 1, False),
        ("alias nope", "", "bash: alias: nope: not found\n", 1, False),
        ("unalias nope", "", "bash: unalias: nope: not found\n", 1, False),
        ("type nope", "", "bash: type: nope: not found\n", 1, False),
        ("command -V nope", "", "bash: command: nope: not found\n", 1, False),
        ("source", "", "bash: source: filename argument required\n", 2, False),
        ("source nope", "", "bash: nope: No such file or directory\n", 1, False),
        # brackets inside $(...), ${...} and brace expansion: quotes and escapes do not count
        ("echo $(echo \"a)b\" '(c' $(echo d))", "a)b (c d\n", "", 0, False),
        ("echo ${x:-'}'} ${x:-\"{}\"}", "} {}\n", "", 0, False),
        ("echo {a,'b,c'}{1..2} {a,{b,c}}d {x,\\,y}", "a1 a2 b,c1 b,c2 ad bd cd x ,y\n", "", 0, False),
    ],
)
def test_pinned_behaviour(command: str, stdout: str, stderr: str, code: int, unknown: bool) -> None:
    vm = VirtualMachine()
    vm.run(PINNED_SETUP)
    r = vm.run(command)
    assert (r.stdout, r.stderr, r.exit_code, r.unknown_effect) == (stdout, stderr, code, unknown)
