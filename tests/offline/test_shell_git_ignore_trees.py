"""git's ignore rules (nested .gitignore files, info/exclude, the user's excludes file),
check-ignore, status --ignored, add -f, ls-tree and quoted paths in status, compared with the
host's git."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import repo

from agentworld_plugins.offline.shell import VirtualMachine

SAME_AS_GIT = [
    "echo '*.log' > .gitignore && mkdir d && touch a.log d/b.log k && git status --short --ignored; "
    "git check-ignore a.log d/b.log k; echo rc=$?; git check-ignore -v a.log; git status --ignored",
    # nested files, negation, anchoring, folders only, nothing re-included under an ignored folder
    "printf 'build/\\n*.o\\n!keep.o\\n/top\\n' > .gitignore && mkdir -p build src/sub top x/top && "
    "touch build/a.o src/k.o src/keep.o top/t x/top/t src/sub/y.o m.o && "
    "printf '*.tmp\\n!important.tmp\\n' > src/.gitignore && touch src/a.tmp src/important.tmp && "
    "git status --short --ignored && git check-ignore -v build/a.o src/keep.o x/top/t top/t src/a.tmp "
    "src/important.tmp m.o nothing; echo rc=$?; git check-ignore -n -v src/keep.o zz; echo rc=$?; "
    "git check-ignore src/keep.o; echo rc=$?; cd src && git check-ignore -v k.o ../m.o && git status -s --ignored",
    "echo 'x*' > .git/info/exclude && mkdir -p ~/.config/git && echo '*.swp' > ~/.config/git/ignore && "
    'touch xa b.swp c && git status --porcelain --ignored && git check-ignore -v xa b.swp c | sed "s|$HOME|~|"; '
    "git status --ignored | tail -6; echo '!xb' >> .gitignore && touch xb && git check-ignore -v xb; echo rc=$?",
    "echo '*.log' > .gitignore && touch t.log && git add t.log; echo rc=$?; git add -f t.log && git status -s && "
    "git check-ignore t.log; echo rc=$?; git check-ignore --no-index t.log; echo rc=$?; "
    "printf 'a.log\\nb\\n' | git check-ignore --stdin; git check-ignore; echo rc=$?; "
    "git check-ignore -q t.log -v; echo rc=$?; git check-ignore -n x; echo rc=$?",
    "printf 'foo \\nbar\\\\ \\n\\\\#hash\\n#c\\n**/deep/*.c\\nlogs/**\\n' > .gitignore && mkdir -p a/deep logs/x && "
    "touch 'foo' 'bar ' '#hash' a/deep/z.c logs/x/l && git status --short --ignored; "
    "git check-ignore -v foo 'bar ' '#hash' a/deep/z.c logs/x/l",
    "echo '*.o' > .gitignore && mkdir e f2 g && touch e/a.o e/b.c f2/only.o && git status -s --ignored && "
    "git status --ignored",
    # clean keeps ignored files, and the untracked folders holding them
    "echo '*.log' > .gitignore && mkdir -p d b e t/u && touch x.log k d/x.log d/y b/z.log e/w t/f t/u/v && "
    "git add .gitignore t/f && git commit -qm two && git clean -n; git clean -nd; git clean -fd; "
    "find . -path ./.git -prune -o -print | sort",
    # paths git quotes: in short status a blank too
    "touch 'a b' \"$(printf 'caf\\303\\251')\" 'q\"x' 'tab\there' && git status -s && git status && git add . && "
    "git status --short && git status | sed -n 3,9p",
    # ls-tree
    "mkdir -p d/e && echo q > d/e/q && echo r > d/r && git add . && git commit -qm deep && git ls-tree HEAD && "
    "git ls-tree -r HEAD && git ls-tree -r -t HEAD && git ls-tree -d HEAD && git ls-tree HEAD d && "
    "git ls-tree HEAD d/ && git ls-tree -r HEAD d && git ls-tree --name-only HEAD:d && git ls-tree -l HEAD d/",
    "mkdir -p d/e && echo q > d/e/q && echo r > d/r && git add . && git commit -qm deep && cd d && "
    "git ls-tree HEAD && git ls-tree --full-name HEAD && git ls-tree --full-tree HEAD && git ls-tree HEAD ../a.txt && "
    "git ls-tree --abbrev HEAD && git ls-tree --object-only HEAD e && git ls-tree -z HEAD | tr '\\0' '|'",
    "git ls-tree; echo rc=$?; git ls-tree nope; echo rc=$?; git ls-tree HEAD~1; echo rc=$?",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_ignore_rules_and_trees_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(repo("echo one > a.txt") + "{ " + command + "; }")


def test_cleaning_ignored_files_is_not_guessed(vm: VirtualMachine) -> None:
    vm.run(repo("echo one > a.txt") + "echo '*.log' > .gitignore && touch a.log k")
    for command in ("git clean -nx", "git clean -fX", "git clean -fdx"):
        assert vm.run(command).unknown_effect, command
    assert vm.run("ls").stdout == "a.log\na.txt\nk\n"  # nothing was removed
