"""git log, show, rev-list, reflog and checkout's history moves, compared with the host's git:
revision ranges, paths, filters, every built-in --pretty format, --format placeholders, --date
modes, decorations, HEAD@{N} / @{-N}, and what checkout says about detached HEADs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import IDENTITY

from agentworld_plugins.offline.shell import VirtualMachine

#: four commits a hundred seconds apart (dates set per commit, so the ids are fixed), the last on
#: the branch dev; a tag v1 (lightweight) and v0 (annotated) on the third
HISTORY = (
    IDENTITY + 't=1700000000; c() { t=$((t+100)); GIT_AUTHOR_DATE="@$t +0100" '
    'GIT_COMMITTER_DATE="@$t +0000" git commit -q "$@"; }; '
    "mkdir -p repo && cd repo && git init -q && printf 'a\\nb\\n' > f && echo x > g && git add . && "
    "c -m one && echo c >> f && c -am 'two f' -m 'the body' && echo y >> g && c -am 'three g' && "
    "git tag v1 && git tag -a v0 -m ann && git checkout -qb dev && mkdir d && echo z > d/h && "
    "git add d && c -m 'four h' && git checkout -q master && "
)

SAME_AS_GIT = [
    # paths: git's history simplification
    "git log --oneline -- f; git log --format=%s g; git log --oneline d; git log --oneline dev -- d/h",
    "git log --oneline -- nothing-here; echo rc=$?; git log --oneline nope; echo rc=$?",
    # ranges and ref sets
    "git log --oneline master..dev; git log --oneline dev ^master; git log --oneline --all; "
    "git log --oneline dev...master; git log --oneline ..dev; git log --oneline --branches; git log --tags --oneline",
    "echo b >> f && git add f && echo c > u && git status -v; git status -v -s; git reset -q; git status -v | tail -3; "
    "git mv g g2; git status -v",
    # dates git refuses: @N without a zone, a bare number below 100000000
    "GIT_COMMITTER_DATE=@100 git commit --allow-empty -qm x; echo rc=$?; GIT_AUTHOR_DATE=99999 git commit --allow-empty "
    "-qm x; echo rc=$?; GIT_AUTHOR_DATE=1600000000 git commit --allow-empty -qm y && git log -1 --format=%ad",
    # a pathspec limits the diffs too (not with --full-diff)
    "echo q >> f && echo w >> g && c -am both && git log -p -1 -- f; git log --stat -1 -- g; "
    "git log --name-only --format=%s -1 -- f; git show --stat HEAD -- g; git show --name-only HEAD g; "
    "git log --oneline --stat -1 --full-diff -- f",
    # limits, order, filters
    "git log --reverse --format=%s; git log --skip=1 -n1 --format=%s; git log -2 --format=%s; "
    "git log --max-count 1 --format=%s",
    "git log --author=Ada --grep=two --format=%s; git log --grep=T -i --format=%s; git log --grep=nomatch; "
    "git log --grep=f --grep=g --all-match --format=%s; git log --grep=one --invert-grep --format=%s; "
    "git log -E --grep='t(wo|hree)' --format=%s; git log --committer=nobody --format=%s",
    "git log --since=@1700000150 --format=%s; git log --until='2023-11-14 22:16:50 +0000' --format=%s; "
    "git log --no-merges --first-parent --format=%s -1",
    # rev-list
    "git rev-list --count HEAD; git rev-list HEAD | wc -l; git rev-list --all --count; git rev-list master..dev; "
    "git rev-list --parents -n1 HEAD; git rev-list --reverse HEAD~1; git rev-list --oneline -1 HEAD; "
    "git rev-list --format=%s -2 HEAD; git rev-list; echo rc=$?",
    # the built-in formats
    "git log --pretty=short -2; git log --pretty=full -1; git log --pretty=fuller -1; git log --pretty=medium -2",
    "git log --pretty=oneline; git log --pretty=reference; git log --pretty=raw -1; git log --pretty=email -2",
    "git log --pretty; git log --abbrev-commit -1; git log --no-abbrev-commit --oneline -1; git log --pretty=nope; "
    "echo rc=$?",
    # placeholders
    "git log --format='%H|%h|%T|%t|%P|%p|%s|%f|%e|%N|%m|%n|%%|%x41|%Z'",
    "git log --format='%an|%aN|%ae|%aE|%al|%ad|%aD|%at|%ai|%aI|%as' -2; "
    "git log --format='%cn|%ce|%cl|%cd|%cD|%ct|%ci|%cI|%cs' -2",
    "git log --format='[%b]' -3; git log --format='[%B]' -2; git log --format='a%n%-b|%+b|% b|%+s' -3",
    "git log --format='%d|%D' --all; git log --decorate --oneline --all; git log --decorate=full --oneline -1; "
    "git log --decorate=short --oneline -1; git log --no-decorate --oneline -1; git log --decorate=bad; echo rc=$?",
    "git log --format='%<(12)%s|%>(9)%h|%><(9)%an|%<(5,trunc)%s|%<(6,ltrunc)%s|%<(7,mtrunc)%s|'",
    "git log --format='%C(yellow)%h%Creset %C(bold blue)%s%Cred|' -2; "
    "git log --color --format='%C(yellow)%h%Creset%Cgreen%s%C(reset)' -1; git log --format='%C(always,red)x' -1",
    "git log --pretty=format:%s; echo END; git log --pretty=tformat:%s; git log --format=format:'%h %s' -p -2",
    # --date
    "for m in default local iso iso8601 iso-strict rfc rfc2822 short raw unix iso-local short-local "
    "'format:%Y/%m %H:%M %z' 'format-local:%d.%m.%y'; do git log --date=\"$m\" --format=%ad -1; done; "
    "git log --date=iso -1; git log --date=bogus -1; echo rc=$?",
    # show
    "git show --pretty=fuller --stat HEAD; git show -s --format=%B HEAD~1; git show --oneline -s v1; "
    "git show --format='%an %s' --name-only HEAD~2",
    "git log --graph --oneline; git log --graph --format=%s -2; git log --graph -2",
    "git log --stat --format=%s -2; git log --name-status --format=%s -2; git log --name-only --oneline -2",
    # branch listing, filters, rename, copy, delete
    "git branch --list 'd*'; git branch -l; git branch --merged; git branch --no-merged; git branch --contains HEAD~1; "
    "git branch -a; git branch -r; git branch -d dev; echo rc=$?; git branch -m dev dev2; git branch; "
    "git branch -m dev2 master; echo rc=$?; git branch -M dev2 x; git branch -m nope y; echo rc=$?; git branch -c x copy; "
    "git branch; git branch -D copy; git branch -f x HEAD~2; git branch -v; git branch new HEAD~1; git branch new; "
    "echo rc=$?; git branch -m renamed; git branch; git branch --merged x; git branch --sort=-committerdate; "
    "git branch --format='%(refname:short) %(objectname:short) %(HEAD) %(subject)'; git branch -vv",
    'git branch -f master HEAD~1 2>&1 | sed "s|$PWD|PWD|"; git branch -d nope; echo rc=$?; git branch -d; echo rc=$?; '
    "git checkout -q --detach; git branch; git branch -v; git branch --contains dev; git branch --no-contains dev; "
    "git branch 'bad..name'; echo rc=$?; git branch --points-at HEAD",
    "git shortlog -sn HEAD; git shortlog HEAD; git shortlog -s master..dev; git shortlog -e --all; "
    "git shortlog HEAD -- g; git shortlog -sne HEAD~1; git shortlog --author=Ada -s HEAD",
    # show: annotated tags, several revisions, blobs
    "git show v0 | head -12; git show v0 --format=%s -s; git show -s v0 HEAD --oneline; "
    "git show -s --format=%s HEAD HEAD~1; git show -s HEAD HEAD~1; git show --pretty=fuller -s v0; "
    "git show HEAD~1:f HEAD:g; git show --stat HEAD HEAD~1",
    # rev-parse, merge-base, describe --dirty
    "git rev-parse --verify nope; echo rc=$?; git rev-parse -q --verify nope; echo rc=$?; git rev-parse --verify HEAD HEAD~1; "
    "echo rc=$?; git rev-parse HEAD:f; git rev-parse master..HEAD~1; git rev-parse master...dev dev...HEAD~1; "
    "git rev-parse --show-cdup; "
    "git rev-parse --is-bare-repository; git rev-parse --short=4 HEAD; git rev-parse --symbolic-full-name master v0 HEAD~1; "
    "git rev-parse --abbrev-ref master; git rev-parse nope; echo rc=$?; git rev-parse --symbolic HEAD; mkdir -p sub && cd sub && "
    "git rev-parse --show-cdup --show-prefix --is-inside-git-dir; git rev-parse HEAD~1 --short HEAD; "
    "git checkout -q dev; git rev-parse --abbrev-ref @{-1}; git rev-parse --symbolic-full-name @{-1}",
    "git merge-base master dev; git merge-base --is-ancestor HEAD~1 HEAD && echo anc; git merge-base --is-ancestor dev HEAD; "
    "echo rc=$?; git merge-base --all dev master; git merge-base HEAD; echo rc=$?; git log --left-right --oneline master...dev; "
    "git log --oneline --no-walk dev HEAD~2; git log --topo-order --oneline | wc -l",
    "git describe --always --dirty; echo x >> f; git describe --always --dirty; git describe --always --dirty=+; git add f; "
    "git describe --dirty; git checkout -q HEAD -- f; git describe --dirty; git describe --dirty HEAD; echo rc=$?",
    "git mv f f2 && c -m mv && git log --oneline --follow -- f2; git log --oneline -- f2; git log --follow --format=%s f2",
    # status: untracked modes and pathspecs; diff-tree
    "echo q >> f; touch new1; mkdir nd && touch nd/a nd/b; git status -uno; git status -s -uall; git status -s -u; "
    "git status --porcelain=v1 -b; git status --short --untracked-files=no; git status -s -- f; git status -s -- nd; "
    "git status -ubad; echo rc=$?",
    "git diff-tree --no-commit-id --name-only -r HEAD; git diff-tree -r HEAD~1 HEAD; git diff-tree --name-status -r HEAD; "
    "git diff-tree -p HEAD; git diff-tree dev; git diff-tree -r dev; git diff-tree HEAD~2; git diff-tree --root HEAD~2; "
    "git diff-tree --stat HEAD; git diff-tree -r HEAD~2 dev -- d; git diff-tree; echo rc=$?",
    # git grep
    "printf 'def foo():\\n    return 1\\n\\nclass Bar:\\n    x = foo()\\n' > m.py && git add m.py && git grep -n foo; "
    "git grep -c foo; git grep -w x; git grep -o 'fo*'; git grep -h foo; git grep -A1 class; git grep -B1 -n return; "
    "git grep -C1 x; git grep --untracked -l zzz; echo rc=$?; git grep -e foo --and -e return; echo rc=$?; "
    "git grep -I -l a; git grep foo -- '*.py'; git grep -p return m.py; git grep --count -i BAR; git grep -q foo; "
    "echo rc=$?; git grep foo HEAD; echo rc=$?; git grep -n --column foo; git grep -E 'fo+|Bar' --name-only",
    "mkdir -p s && printf 'a1\\nb\\na2\\nc\\nd\\ne\\na3\\n' > s/t.txt && printf 'zz a\\n' > u.txt && git add s && "
    "c -m s; git grep -n -C1 a; git grep -A2 a -- s; git grep -L a; git grep a HEAD~1; git grep a HEAD -- '*.txt'; "
    "cd s && git grep -n a; git grep a ..; cd ..; git grep --untracked -c a; git grep -c -h a; git grep --cached -l x; "
    "git grep -z -l a | tr '\\0' '|'; echo; git grep -e a --and --not -e 1; git grep --not -e a; git grep -m1 a; "
    "git grep -e a --or -e b -n s; git grep; echo rc=$?; git grep -P 'x(?=$)'; echo rc=$?; git grep -e; echo rc=$?",
    "printf 'bin\\0ary a\\n' > b.bin && git add b.bin && git grep a; git grep -I a; git grep -c ary; git grep -a -c ary; "
    "git grep -l ary; git grep -n -B2 c f; git grep -p c; git grep -F 'a.'; echo rc=$?; git grep nothing HEAD~9; echo rc=$?",
    # diff over ranges
    "echo w >> f && c -am five; git diff master...dev --name-only; git diff dev...master --stat; "
    "git diff master..dev --name-status; git diff ..dev --stat; git diff HEAD~1.. --name-only; git diff nope..dev; echo rc=$?",
    # the reflog, @{-N}, checkout -
    "git reflog; git reflog -2; git reflog show HEAD -1; git log -g --oneline -3; git rev-parse HEAD@{1} @{-1}",
    "git checkout - 2>&1; git branch --show-current; git checkout - 2>&1; git switch - 2>&1; "
    "git rev-parse --abbrev-ref @{-1}; git checkout @{-2} 2>&1; git reflog -4",
    "git checkout HEAD~1 2>&1; git checkout - 2>&1; git -c advice.detachedHead=false checkout master~2 2>&1; "
    "git switch --detach dev 2>&1; git switch - 2>&1; git switch master 2>&1; git checkout -q --detach && git status | head -1",
    'git checkout -q --detach && for i in 1 2 3 4 5 6; do c --allow-empty -m "l$i"; done; git checkout dev 2>&1; '
    "git checkout -q HEAD~1 && c --allow-empty -m lone && git -c advice.detachedHead=false checkout - 2>&1",
    "git reset -q --hard HEAD~1 && git reflog -2 && git reset --hard HEAD@{1} && git log --oneline -1 && "
    "git merge -q dev && git reflog -1 && git commit -q --amend -m amended && git reflog -1 | cut -d' ' -f2-",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_history_commands_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(HISTORY + "{ " + command + "; }")


def test_relative_dates_count_back_from_the_machine_clock(same_as_bash: Callable[[str], None]) -> None:
    """``--date=relative`` and ``%ar`` round as git does at each step; both shells commit at
    their own clock's ``now`` less the same offsets, away from every rounding edge (the offline
    clock moves on a little with each commit)."""
    offsets = [170, 400, 7200, 90000, 20 * 86400, 100 * 86400, 400 * 86400, 800 * 86400, 3000 * 86400]
    line = IDENTITY + "mkdir -p repo && cd repo && git init -q && now=$(date +%s) && "
    for k, back in enumerate(offsets):
        line += (
            f'GIT_AUTHOR_DATE="@$((now - {back})) +0000" GIT_COMMITTER_DATE="@$((now - {back})) +0000" '
            f"git commit -q --allow-empty -m c{k} && "
        )
    same_as_bash(line + "git log --format='%s %ar|%cr' && git log --date=relative -1 | grep Date")


def test_unsupported_formats_are_flagged_not_guessed(vm: VirtualMachine) -> None:
    vm.run(HISTORY + "true")
    for command in (
        "git log --date=human -1",
        "git log --format='%w(20)%s' -1",
        "git log -g -1",
        "git log -L 1,2:f",
        "git log --cherry-pick master...dev",
        "git log --bogus-option",
        "git mv f f3 && echo more >> f3 && git commit -qam 'moved, edited' && git log --follow --oneline -- f3",
    ):
        r = vm.run(command)
        assert r.unknown_effect, command
