"""git over the virtual filesystem: real semantics and git's output, in the shell, the terminal
and the swe domains' offline worlds."""

from __future__ import annotations

import hashlib
from typing import Any

from agentworld_plugins.domains.swe import SweDomain
from agentworld_plugins.domains.terminal import TerminalDomain
from agentworld_plugins.offline.shell import VirtualMachine

#: what an agent types once git has refused to commit without an identity
IDENTITY = "git config --global user.name 'Dev' && git config --global user.email dev@example.com"


def with_identity() -> VirtualMachine:
    vm = VirtualMachine(interactive=False)
    vm.run(IDENTITY)
    return vm


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


def test_init_status_add_commit_and_diff_like_git() -> None:
    vm = with_identity()
    assert run(vm, "git status") == (
        "",
        "fatal: not a git repository (or any of the parent directories): .git\n",
        128,
    )
    out, err, code = run(vm, "git init")  # git 2.43 without init.defaultBranch: the branch-name hint
    assert (out, code) == ("Initialized empty Git repository in /app/.git/\n", 0)
    assert err.startswith("hint: Using 'master' as the name for the initial branch.") and err.endswith(
        "hint: \tgit branch -m <name>\n"
    )
    status = vm.run("git status").stdout
    assert "No commits yet" in status and "Untracked files:" in status and "\tmain.py\n" in status
    assert run(vm, "git add . && git commit -qm first") == ("", "", 0)
    assert run(vm, "git status") == ("On branch master\nnothing to commit, working tree clean\n", "", 0)
    vm.run("echo 'x = 2' >> main.py && rm requirements.txt && echo new > new.txt")
    assert run(vm, "git status -s") == (" M main.py\n D requirements.txt\n?? new.txt\n", "", 0)
    diff = vm.run("git diff main.py").stdout
    old = vm.run("git show HEAD:main.py").stdout.encode()
    new = vm.fs.read_text("/app/main.py").encode()
    ids = [hashlib.sha1(b"blob %d\x00" % len(d) + d).hexdigest()[:7] for d in (old, new)]
    assert diff.startswith(
        f"diff --git a/main.py b/main.py\nindex {ids[0]}..{ids[1]} 100644\n--- a/main.py\n+++ b/main.py\n"
    )
    assert "@@ -7,3 +7,4 @@ def greet(name: str) -> str:\n" in diff and diff.endswith("+x = 2\n")
    assert run(vm, "git commit -m nothing-staged")[2] == 1
    out, err, code = run(vm, "git add -A && git commit -m second")
    assert code == 0 and err == ""
    assert (
        out.startswith("[master ") and "] second\n 3 files changed, 2 insertions(+), 1 deletion(-)\n" in out
    )
    assert " create mode 100644 new.txt\n delete mode 100644 requirements.txt\n" in out
    assert vm.run("git log --oneline").stdout.count("\n") == 2
    assert vm.run("git diff HEAD~1 --name-status").stdout == "M\tmain.py\nA\tnew.txt\nD\trequirements.txt\n"


def test_branches_checkout_and_restore_move_the_work_tree() -> None:
    vm = with_identity()
    vm.run("git init -q && git add . && git commit -qm base")
    assert run(vm, "git checkout -b feature") == ("", "Switched to a new branch 'feature'\n", 0)
    vm.run("echo changed > README.md && git commit -qam readme")
    assert run(vm, "git checkout master") == ("", "Switched to branch 'master'\n", 0)
    assert vm.fs.read_text("/app/README.md").startswith("# demo-app")
    assert vm.run("git branch").stdout == "  feature\n* master\n"
    assert vm.run("git diff master feature --stat").stdout.endswith(
        "1 file changed, 1 insertion(+), 8 deletions(-)\n"
    )
    vm.run("echo local > README.md")
    _, err, code = run(vm, "git checkout feature")
    assert code == 1 and "would be overwritten by checkout:\n\tREADME.md\n" in err
    assert run(vm, "git checkout -- README.md") == ("", "", 0)
    assert vm.run("git status --porcelain").stdout == ""
    assert run(vm, "git rev-parse --abbrev-ref HEAD") == ("master\n", "", 0)
    vm.run("git reset --hard feature")
    assert vm.fs.read_text("/app/README.md") == "changed\n"
    assert vm.run("git push").exit_code == 126  # needs a network: not simulated, said so


def test_gitignore_and_config_identity() -> None:
    vm = VirtualMachine(interactive=False)
    vm.run(
        "git init -q && printf '*.log\\nbuild/\\n' > .gitignore && mkdir build && touch build/x a.log b.txt"
    )
    assert (
        vm.run("git status -s").stdout
        == "?? .gitignore\n?? README.md\n?? b.txt\n?? main.py\n?? requirements.txt\n"
    )
    vm.run(
        "git config user.name 'Ada L' && git config user.email ada@example.com && git add -A && git commit -qm i"
    )
    assert vm.run("git log --format='%an <%ae> %s'").stdout == "Ada L <ada@example.com> i\n"


def test_a_coding_agent_uses_git_in_the_terminal_domain() -> None:
    domain = TerminalDomain()
    state: dict[str, Any] = {}
    keys = f"{IDENTITY}\ngit init -q && git add . && git commit -qm start\nsed -i 's/world/there/' main.py\ngit diff\n"
    result = domain.offline_step(state, domain.validate_action([{"keystrokes": keys}]), {})
    assert '-    print(greet("world"))\n+    print(greet("there"))\n' in result.text
    assert result.metadata["exit_codes"] == [0, 0, 0, 0] and "offline_unknown_effect" not in result.metadata
    result = domain.offline_step(
        state,
        domain.validate_action([{"keystrokes": "git commit -qam fix && git log --oneline | wc -l\n"}]),
        {},
    )
    assert result.text.rstrip().endswith("2\nroot@agentworld:/app#")


def test_a_coding_agent_uses_git_in_the_swe_domain() -> None:
    domain = SweDomain()
    state: dict[str, Any] = {}

    def call(tool: str, **arguments: Any) -> Any:
        action = domain.validate_action({"tool_name": tool, "arguments": arguments})
        return domain.offline_step(state, action, {"files": {"a.py": "x = 1\n"}})

    assert (
        "Exit Code: 0"
        in call(
            "run_shell_command", command=f"{IDENTITY} && git init -q && git add -A && git commit -qm init"
        ).text
    )
    call("replace", file_path="/app/a.py", old_string="x = 1", new_string="x = 2")
    diff = call("run_shell_command", command="git diff").text
    assert "Stdout: diff --git a/a.py b/a.py\n" in diff and "-x = 1\n+x = 2\n" in diff
    done = call("execute_bash", command="git commit -qam bump && git status --short && git log --format=%s")
    assert done.text.startswith("bump\ninit\n") and done.is_error is False
