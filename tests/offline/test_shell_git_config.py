"""git config and aliases compared with the host's git: reading every scope (and ``git -c``),
setting in place with the key's case kept, quoting, ``--add``/``--get-all``/``--unset-all``,
``--get-regexp``, ``--list`` with origins and scopes, types, sections, errors and statuses."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import repo

from agentworld_plugins.offline.shell import VirtualMachine

SAME_AS_GIT = [
    "git config user.name X; git config --get user.name; git config --list --local; git config --get-regexp '^core'; "
    "git config --unset user.name; git config user.name; echo rc=$?; cat .git/config",
    "git config core.ignoreCase true && git config Core.IgnoreCase false && git config --local core.editor vim && "
    "git config core.editor && cat .git/config && git config --bool core.bare && git config --type=bool core.filemode",
    "git config a.b 'x # y' && git config a.c ' lead' && git config a.d 'q\"t' && cat .git/config && "
    "git config a.b && git config a.c && git config a.d && git config -l --local --name-only",
    "git config --add m.v one && git config --add m.v two && git config m.v; git config --get-all m.v; "
    "git config m.v three; echo rc=$?; git config --unset m.v; echo rc=$?; git config --unset-all m.v; echo rc=$?; "
    "git config --unset m.v; echo rc=$?; cat .git/config",
    "git config remote.origin.url u && git config Remote.origin.URL && git config --get-regexp 'remote\\..*' && "
    "git config --remove-section remote.origin && cat .git/config; git config --remove-section nope; echo rc=$?",
    "git config nope; echo rc=$?; git config a..b c; echo rc=$?; git config 1a.b c; echo rc=$?; git config; echo rc=$?",
    "git config --global alias.st 'status -s' && touch q && git st && git config --global --list && "
    "git -c alias.l='log --format=%s' l && git config --show-origin --get-regexp 'alias|user' | sed \"s|$HOME|~|\" && "
    "git -c x.y=z config --list --show-scope | grep x.y && git -c alias.a=b -c alias.b=a a; echo rc=$?",
    'printf \'[core]\\n\\tname\\n[Sec "Sub"]\\n\\tKey = "quoted \\\\" value" ; comment\\n\' >> .git/config && '
    "git config core.name && git config sec.Sub.key && git config --int --get sec.Sub.key; echo rc=$?; "
    "git config n.size 2k && git config --int n.size",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_config_matches_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(repo("echo one > a.txt") + "{ " + command + "; }")


def test_value_patterns_and_shell_aliases_are_not_guessed(vm: VirtualMachine) -> None:
    vm.run(repo("echo one > a.txt") + "git config --add m.v one && git config --add m.v two")
    for command in ("git config --get m.v 'o.*'", "git config --get-regexp m 'o.*'", "git config --unset m.v two",
                    "git -c alias.x='!echo hi' x", "git config --edit"):  # fmt: skip
        assert vm.run(command).unknown_effect, command
    assert vm.run("git config --get-all m.v").stdout == "one\ntwo\n"
