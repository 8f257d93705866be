"""Scripts run by their ``#!`` line as the kernel runs them: the interpreter (one of the machine's
programs), the rest of the line as one argument, the script's path, its arguments; compared with
the host's bash."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SHEBANG = [
    "printf '#!/usr/bin/awk -f\\n{ print NR \": \" $0 }\\n' > s.awk; chmod +x s.awk; printf 'a\\nb\\n' | ./s.awk; ./s.awk s.awk",
    "printf '#!/usr/bin/sed -f\\ns/a/b/\\n' > e.sed; chmod +x e.sed; echo abc | ./e.sed",
    "printf '#!/usr/bin/nosuch -x\\necho\\n' > n.x && chmod +x n.x && ./n.x; echo $?",
    "printf '#!/tmp\\n' > d.x && chmod +x d.x && ./d.x; echo $?",
    "printf '#!/usr/bin/env -S awk -f\\n{print \"env:\" $0}\\n' > e.awk; chmod +x e.awk; echo hi | ./e.awk",
    "printf '#!/usr/bin/awk -f\\nBEGIN { x = }\\n' > bad.awk; chmod +x bad.awk; ./bad.awk; echo $?",
]


@pytest.mark.parametrize("command", SHEBANG)
def test_a_script_runs_by_its_interpreter_line(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
