"""less and more with their output not a terminal (what agents' tools capture), compared with the
host's; on a terminal the pager is flagged as not simulated."""

from __future__ import annotations

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine

SAME_AS_HOST = [
    "printf 'a\\nb\\n' > f; printf 'c\\n' > g; less f; echo $?; less f g; more f; more f g; echo $?",
    "less nosuch; echo $?; more nosuch; echo $?",
    "printf 'x\\n' | less; printf 'y\\n' | more",
    "mkdir d; less d; echo $?; more d; echo $?",
    "printf 'a\\n' > f; less +G f; less -R f; more -d f; less -N f | cat",
    "seq 3 | less -S | wc -l; git log 2>/dev/null | less",
]


@pytest.mark.parametrize("command", SAME_AS_HOST)
def test_less_and_more_copy_as_the_host_s_do(command: str) -> None:
    ours, host = both(command)
    assert ours == host


def test_a_pager_on_a_terminal_is_flagged() -> None:
    vm = VirtualMachine(interactive=True)
    vm.run("echo hi > f")
    assert vm.run("less f", tty=True).unknown_effect
    assert not vm.run("less f | cat", tty=True).unknown_effect
