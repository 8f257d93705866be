"""The fixed identity and dates the git tests run under, and the fresh repository they start in.

Both shells (the offline one and the host's bash with real git) get the same line, so hashes,
dates and names in what git prints agree. Imported by the ``test_shell_git_*`` files, which sit
beside it (pytest puts this folder on ``sys.path``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from agentworld_plugins.offline.shell import VirtualMachine

#: author and committer differ, and so do their dates and zones, so a test can tell them apart
IDENTITY = (
    "export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME='Ada L' GIT_AUTHOR_EMAIL=ada@example.com "
    "GIT_COMMITTER_NAME='Bo C' GIT_COMMITTER_EMAIL=bo@example.com "
    "GIT_AUTHOR_DATE='2024-03-01T10:20:30+0200' GIT_COMMITTER_DATE='@1709290000 +0000'; "
)


def repo(setup: str = "") -> str:
    """The start of a line: the identity, then ``cd`` into a new repository ``repo``; when
    ``setup`` (a command writing files) is given, what it writes is committed as ``first``. The
    line goes on with ``&&``."""
    line = IDENTITY + "mkdir -p repo && cd repo && git init -q && "
    if not setup:
        return line
    return line + f"{setup} && git add . && git commit -qm first && "


#: the repository the apply and merge tests edit: a ten-line a.txt (one .. ten) and b.txt
TEN_LINE_REPO = repo(
    "printf 'one\\ntwo\\nthree\\nfour\\nfive\\nsix\\nseven\\neight\\nnine\\nten\\n' > a.txt && echo b > b.txt"
)


def same_as_git_each(
    make: Callable[[random.Random], str],
    seed: int,
    vm: VirtualMachine,
    real_bash_err: Callable[[str], tuple[str, str, int]],
    count: int = 12,
) -> None:
    """``count`` lines ``make`` draws from a generator seeded with ``seed``, each run in a fresh
    ``repo`` by both shells: the offline one answers each as the host's git does."""
    rng = random.Random(seed)
    for _ in range(count):
        line = make(rng)
        vm.run("mkdir -p /work && cd /work && rm -rf repo")
        r = vm.run(line)
        assert not r.unknown_effect
        assert (r.stdout, r.stderr, r.exit_code) == real_bash_err("rm -rf repo; " + line), line
