"""git stash, tag and remote, git's identity rules and GIT_*_DATE, compared with the host's git
(same command lines, same stdout, stderr and status; commit ids included, since the dates and
identities are fixed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import repo

from agentworld_plugins.offline.shell import VirtualMachine

#: the fixed identity and clock (git_lines.py): the host's git and the offline one make the same ids
FIXED = repo("printf 'one\\ntwo\\n' > a.txt && echo b > b.txt")

SAME_AS_GIT = [
    "git log --format='%H|%an|%ae|%ad|%cn|%ce|%cd|%at|%ct|%ai' && git rev-parse HEAD^{tree}",
    "git log",
    "git stash; echo rc=$?; git stash list; git stash pop; echo rc=$?",
    "echo three >> a.txt && echo new > n.txt && git add n.txt && git stash && git stash list && "
    "git status --short && git stash show && git stash pop && git status --short",
    "echo x >> b.txt && git stash -m 'my work' && git stash list && git stash apply && git stash drop",
    "echo x >> b.txt && git stash -q && echo y >> a.txt && git stash -q && git stash list && "
    "git stash drop stash@{1} && git stash list && git rev-parse stash",
    "git stash drop; echo rc=$?; git stash apply; echo rc=$?",
    "echo u > u.txt && git stash -u && ls && git stash pop -q; cat u.txt",
    "echo change >> a.txt && git stash -q && git stash show -p",
    "git tag v1 && git tag -a v2 -m 'release two' && git tag && git tag -n && git tag -l 'v2*'",
    "git tag v1 && git tag v1; echo rc=$?; git tag -d v1; git tag -d v1; echo rc=$?",
    "git tag -a v3 -m rel && git log --format=%s v3 && git rev-parse v3^{commit} && git cat-file -t v3 2>/dev/null;"
    " echo done",
    "git remote; git remote add origin https://example.com/r.git && git remote && git remote -v && "
    "git remote get-url origin && cat .git/config",
    "git remote add origin u1 && git remote add origin u2; echo rc=$?; git remote remove nope; echo rc=$?",
    "git remote add origin u1 && git remote set-url origin u2 && git remote rename origin up && git remote -v && "
    "git remote rm up && git remote -v && cat .git/config",
    "git -c user.name=Other -c user.email=o@example.com commit -q --allow-empty -m two && "
    "git log -1 --format='%an %ae %cn'",
    "GIT_AUTHOR_DATE='Fri, 01 Mar 2024 12:00:00 -0500' git commit -q --allow-empty -m rfc && "
    "git log -1 --format='%ad|%at' && git rev-parse HEAD",
    "GIT_AUTHOR_DATE='@1700000000 +0530' git commit -q --allow-empty -m epoch && git log -1 && git rev-parse HEAD",
    "git grep -n one; git grep -c o; git grep -l -e two -e b; git grep -i ONE -- a.txt; git grep zzz; echo rc=$?",
    "git mv a.txt c.txt && git status --short && git status && mkdir d && git mv b.txt d && git status --short",
    "git mv nope x; echo rc=$?; git mv a.txt b.txt; echo rc=$?",
    "echo u > u.txt && mkdir -p new/sub && echo n > new/sub/n && git clean; echo rc=$?; git clean -n; git clean -nd; "
    "git clean -fd && git status --short",
    "git describe; echo rc=$?; git tag light && git describe; echo rc=$?; git describe --tags; "
    "git tag -a v1 -m one && git commit -q --allow-empty -m two && git describe && git describe --always HEAD~1",
    "git commit -q --allow-empty -m two && git shortlog -sn HEAD && git shortlog HEAD && git shortlog -s < /dev/null",
    "echo 3 >> a.txt && git commit -qam second && git log -p && git log --stat --oneline && git log --graph --oneline",
    "git branch feature && git branch -v && git log --format='%h %s' --graph",
    # reset's report, and -q that silences it
    "echo 3 >> a.txt && git commit -qam second && git reset -q --hard HEAD~1 && cat a.txt && git log --oneline",
    "echo 3 >> a.txt && git commit -qam second && git reset --hard HEAD~1 && echo 4 >> a.txt && git commit -qam third && "
    "git reset HEAD~1; git reset --quiet HEAD; git status --short; git reset --soft -q HEAD; echo rc=$?",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_stash_tag_remote_and_dates_match_the_host_git(
    command: str, vm: VirtualMachine, real_bash_err: Callable[[str], tuple[str, str, int]]
) -> None:
    vm.run("mkdir -p /work && cd /work")
    line = FIXED + "{ " + command + "; }"
    r = vm.run(line)
    assert not r.unknown_effect
    assert (r.stdout, r.stderr, r.exit_code) == real_bash_err(line)


def test_a_commit_without_an_identity_is_refused_as_git_refuses_it() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run("git init -q && git add . && git commit -qm first")
    assert r.exit_code == 128 and r.stdout == ""
    assert r.stderr.startswith("Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n")
    assert r.stderr.endswith("fatal: unable to auto-detect email address (got 'root@agentworld.(none)')\n")
    assert vm.run("git log").exit_code == 128  # nothing was committed
    # an email from any source is enough (the name falls back to the user's)
    assert vm.run("EMAIL=me@example.com git commit -qm first && git log --format='%an <%ae>'").stdout == (
        "root <me@example.com>\n"
    )
    only_author = vm.run("GIT_AUTHOR_EMAIL=a@example.com git commit -q --allow-empty -m two")
    assert only_author.exit_code == 128 and only_author.stderr.startswith("Committer identity unknown\n")


def test_a_bad_date_is_refused() -> None:
    vm = VirtualMachine(interactive=False)
    vm.run("git init -q && git config user.name A && git config user.email a@x && git add .")
    r = vm.run("GIT_AUTHOR_DATE=yesterdayish git commit -qm x")
    assert (r.stderr, r.exit_code) == ("fatal: invalid date format: yesterdayish\n", 128)


def test_the_git_mcp_engine_commits_without_an_identity_as_gitpython_does() -> None:
    from agentworld_plugins.offline.mcp.servers.git import GitServer

    vm = VirtualMachine(interactive=False)
    vm.run("git init -q /app/r && echo a > /app/r/a.txt")
    engine = GitServer(vm.fs)
    engine.call("git_add", {"repo_path": "/app/r", "files": ["a.txt"]})
    text, _, error = engine.call("git_commit", {"repo_path": "/app/r", "message": "m"})
    assert not error and text.startswith("Changes committed successfully with hash ")
    assert vm.run("cd /app/r && git log --format='%an <%ae>'").stdout == "root <root@agentworld>\n"
