"""find compared with the host's GNU find: -depth (and -delete, which implies it), -name on the name
as shown (``.``, ``p/``), -execdir (in the file's folder, as ./NAME), -ok (asks on stderr, runs on
a yes), -prune, -print0, -size, -perm, -empty, -printf, -maxdepth/-mindepth."""

from __future__ import annotations

from collections.abc import Callable

import pytest

FIND = [
    "mkdir -p w && cd w && mkdir -p p/q; touch p/x p/q/y; find p -type f -print0 | xargs -0 ls | sort; find p -name x -exec rm {} +; find p | sort; find p -empty -type f",
    "mkdir -p w && cd w && mkdir -p p; printf 'aaa' > p/big; touch p/small; find p -size +1c | sort; find p -size -1c; find p -type f -size 3c; find p -perm -u+r -type f | sort",
    "mkdir -p w && cd w && mkdir -p p/.git/o p/s; touch p/.git/o/z p/s/k; find p -path p/.git -prune -o -type f -print | sort; find p -not -path '*/.git/*' -type f | sort",
    "mkdir -p w && cd w && mkdir -p p; touch p/A.txt p/b.TXT; find p -iname '*.txt' | sort; find p -name '*.txt' -printf '%f %s %y\\n'; find p -maxdepth 0; find p -mindepth 1 | sort | head -1",
    "mkdir -p w && cd w && find /nonexistent 2>&1; echo $?; find . -maxdepth 0 -name . ; find . -name 'no*' -o -name 'x' | head -1; echo end",
    "mkdir -p w && cd w && mkdir -p p/q/r; touch p/q/r/c.h; find p -depth; find p -depth -type d; find . -maxdepth 0 -name .; find p/ -maxdepth 0 -name p",
    'mkdir -p w && cd w && mkdir -p p/q; touch p/q/x; find p -type f -execdir echo {} \\;; find p -type f -execdir pwd \\; | sed "s|$PWD|.|"; find p -type f -ok echo {} \\; < /dev/null 2>&1; echo; echo y | find p -type f -ok echo run {} \\; 2>&1',
    "mkdir -p w && cd w && mkdir -p p/q/r; touch p/q/r/x p/q/y; find p -name r -delete 2>&1; find p/q -delete; find p | sort",
]


@pytest.mark.parametrize("command", FIND)
def test_find_answers_as_gnu_find(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
