"""chown and chgrp compared with GNU coreutils on the host (as root, in the same folder)."""

from __future__ import annotations

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine

SAME_AS_GNU = [
    "touch f; chown root f; echo $?; chown root:root f; chown :root f; chown root: f; echo $?",
    "touch f; chown bob f; echo $?; chown root:bob f; echo $?",
    "chown; echo $?; chown root; echo $?; chown root nope; echo $?",
    "touch f; chown -v root f; chown -v root:root f; chown -v :root f; chown -v root: f; chown -c root f",
    "touch f g h i; chown -v nobody f; chown -v nobody:nogroup g; chown -v :nogroup h; chown -v nobody: i",
    "mkdir -p d/e; touch d/e/f; chown -Rv root:root d",
    "touch f; chgrp root f; echo $?; chgrp bob f; echo $?; chgrp -v root f; touch g; chgrp -v nogroup g; chgrp; echo $?",
    "touch f; chown 0:0 f; echo $?",
    "touch f; chown -x root f; echo $?",
    "chown -f root nope; echo $?; chown -R root nope; echo $?",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_chown_and_chgrp_answer_as_gnu(command: str) -> None:
    ours, host = both(command)
    assert ours == host


def test_an_owner_other_than_root_is_flagged_and_root_is_not() -> None:
    vm = VirtualMachine(interactive=False)
    assert not vm.run("touch f; chown -R root:root . && chgrp root f").unknown_effect
    given = vm.run("chown nobody:nogroup f; ls -l f | cut -d' ' -f3,4")
    assert given.stdout == "root root\n" and given.unknown_effect
