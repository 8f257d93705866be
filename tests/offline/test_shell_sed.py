"""sed compared with the host's GNU sed 4.9: addresses, every command, s flags, options, the
error messages, and the budgets that end scripts which loop or grow for ever."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

#: each command runs after this file is made
FIVE = "printf 'one\\ntwo\\nthree\\nfour\\nfive\\n' > f; "

SAME_AS_GNU = [
    "sed '2i\\    indented' f",
    "sed '2a\\    indented' f",
    "sed '2a    spaced' f",
    "sed '2,3c\\changed' f",
    "sed '2,3c changed' f",
    "sed '$!c x' f",
    "sed -e '2a\\' -e 'line1\\' -e 'line2' f",
    "printf '2a\\\\\\nfirst\\\\\\nsecond\\n' > s.sed; sed -f s.sed f",
    "sed '2a foo\\tbar' f",
    "sed '2a foo\\\\bar' f",
    "sed ':a;N;$!ba;s/\\n/ /g' f",
    "sed -e :a -e '$!N;s/\\n/,/;ta' f",
    "sed '/two/{n;d}' f",
    "sed -n '/two/,/four/p' f",
    "sed '0,/o/s//0/' f",
    "sed '1~2d' f",
    "sed -n '2~2p' f",
    "sed '2,+2d' f",
    "sed '2,~4d' f",
    "sed -n '$=' f",
    "sed -n l f",
    "printf 'a\\tb\\\\c\\001\\n' | sed -n l",
    "sed '$!N;P;D' f",
    "sed 'N;P;D' f",
    "sed '1!G;h;$!d' f",
    "sed -n '1!G;h;$p' f",
    "echo hello > r.txt; sed '2r r.txt' f",
    "sed '$r r.txt' f",
    "sed 'R f' f",
    "sed -n '/three/q;p' f",
    "sed '/three/Q' f",
    "sed 's/o/0/2g' f",
    "sed -E 's/(o+)/[\\1]/g' f",
    "sed 's/.*/\\u&/' f",
    "sed 's/.*/\\U&\\E!/' f",
    "sed 's/t\\(.\\)/T\\1/w out.txt' f; cat out.txt",
    "sed -n 's/o/O/gp' f",
    "sed 's/x/y/;T;s/$/ changed/' f",
    "sed 's/o/O/;t;s/$/ untouched/' f",
    "sed -s -n '$p' f f",
    "sed -n '$p' f f",
    "sed 'y/abc/xyz/' f",
    "sed 'y/ab/x/' f",
    "sed 'z;s/^$/empty/' f",
    "sed F f",
    "sed = f | sed 'N;s/\\n/ /'",
    "sed '2q5' f; echo $?",
    "sed -n '2{p;p}' f",
    "sed '2!d' f",
    "sed '/^t/!s/$/ !t/' f",
    "sed 'b end; s/o/X/; :end' f",
    "sed ':x s/o/X/; tx' f",
    "sed 'bx' f",
    "sed 's/a/b' f",
    "sed 'k' f",
    "sed '2,1d' f",
    "sed -n '/four/,2p' f",
    "sed '2,/o/d' f",
    "sed 's|/|_|g' <<< 'a/b/c'",
    "sed 's/[[:upper:]]/x/g' <<< 'aBcD'",
    "sed 's/\\bt/T/g' <<< 'tot tat'",
    "sed -E 's/(\\w+) (\\w+)/\\2 \\1/' <<< 'hello world'",
    "sed 's/a\\|b/X/g' <<< 'abc'",
    "sed 's/\\(ab\\)\\{2\\}/X/' <<< 'ababab'",
    "sed 'a\\' f",
    "sed '2{s/two/2/;}' f",
    "sed '2{s/two/2/' f",
    "sed '2}' f",
    "sed -n '/t/{/o/p}' f",
    "sed 's/o/\\n/' f",
    "sed 'N;N;s/\\n/+/g' f",
    "sed '$!N;s/\\n/-/' f",
    "sed 'n;d' f",
    "sed -n 'h;n;G;p' f",
    "sed 'x;$!d' f",
    "sed '1d;$d' f",
    "sed -z 's/\\n/,/g' f",
    "sed 'w /dev/stdout' f",
    "sed -n '/two/=' f",
    "sed '2 a after two' f",
    "sed 's/e/E/3' f",
    "sed 's/^/> /' f",
    "sed --expression='s/o/0/' f",
    "sed -i.bak 's/one/1/' f; cat f f.bak",
    "sed -n '2,4!p' f",
    "sed 's/o/&&/g' f",
    "sed 's/\\(o\\)\\(n\\)/\\2\\1/' f",
    "sed 'M' f",
    "sed 's/x*/-/2' <<< 'abc'",
    "sed 'l 3' f",
    "sed 'v' f",
    "sed ' ; ; s/o/0/ ; ' f",
    "seq 30 | sed -n '10,20p'",
    "printf 'a x\\nb x\\n' > a; printf 'x c\\n' > b; sed -i 's/x/y/' a b; cat a b",
    "printf 'a\\n\\nb\\n\\n\\nc\\n' | sed '/^$/d'",
    "printf 'x\\nstart\\na\\nb\\nend\\ny\\n' | sed -n '/start/,/end/{//!p}'",
    "seq 5 | sed '1!G;h;$!d'",
    "seq 5 | sed ':a;N;$!ba;s/\\n/,/g'",
    "seq 5 | sed -e :a -e N -e '$!ba' -e 's/\\n/ /g'",
    "printf 'a\\nb\\nc\\n' | sed = | sed 'N;s/\\n/\\t/'",
    "seq 12 | sed -n '$='",
    "printf 'a  \\nb\\t\\nc\\n' | sed 's/\\s\\+$//' | od -c",
    "printf 'a  \\nb\\t\\n' | sed 's/[[:space:]]*$//' | cat -A",
    "sed -i.orig 's/two/2/' f; cat f; cat f.orig",
    "sed -i -e 's/one/1/' -e '/three/d' f; cat f",
    "sed --in-place=.b 's/o/0/g' f; cat f f.b",
    "printf '# comment\\n/two/{\\n  s/two/2/ # trailing\\n  b done\\n}\\ns/$/!/\\n:done\\n' > s.sed; sed -f s.sed f",
    "printf 's/o/0/\\n' > s.sed; sed -f s.sed -e 's/e/E/' f",
    "sed -n -e '/two/{' -e 'p' -e '}' f",
    "sed '/two/,/four/{/three/d}' f",
    "sed -n '2{p;q}' f",
    "seq 10 | sed -n '0~3p'",
    "seq 10 | sed '2~3d'",
    "seq 10 | sed -n '5,+2p'",
    "seq 10 | sed -n '/4/,+1p'",
    "seq 10 | sed -n '/2/,~4p'",
    "seq 10 | sed '3q'",
    "seq 10 | sed -n '3{p;q}'",
    "seq 3 | sed 'a\\'",
    "seq 3 | sed '2c\\'",
    "seq 3 | sed '$a END'",
    "seq 3 | sed '1i START'",
    "seq 6 | sed -n '2,4!p'",
    "seq 6 | sed '2,4c gone'",
    "seq 6 | sed '2,4!c kept'",
    "seq 3 | sed 's/.*/\"&\"/'",
    "echo 'hello world' | sed 's/\\w\\+/\\u&/g'",
    "echo 'Hello World' | sed 's/.*/\\L&/'",
    "echo 'foo bar' | sed -E 's/(\\w+) (\\w+)/\\U\\1\\E \\u\\2/'",
    "echo 'FOO bar' | sed 's/.*/\\L\\u&/'",
    "echo 'a.b.c' | sed 's/\\./-/2'",
    "echo 'aaaa' | sed 's/a/b/3g'",
    "echo abc | sed 'y/abc/\\n\\t\\\\/' | od -c",
    "echo 'a/b' | sed 'y/a\\/b/x\\/y/'",
    "echo abc | sed 's/b/\\n/'",
    "echo 'x+y' | sed -E 's/\\+/ plus /'",
    "echo 'x+y' | sed 's/+/ plus /'",
    "echo 'aaa bbb' | sed -E 's/a{2}/X/'",
    "echo 'ab' | sed 's/\\(a\\)\\|b/[\\1]/g'",
    "printf 'a\\nb\\n' | sed 'N;s/a.b/X/'",
    "printf 'a\\n\\n' | sed 'N;s/$/X/'",
    "printf 'l1\\nl2\\nl3\\n' | sed -n 'N;l'",
    "printf 'a\\tb\\n' | sed -n 'l 3'",
    "printf 'a\\tb\\n' | sed -l 4 -n l",
    "printf 'a' | sed p",
    "printf 'a' | sed G | od -c",
    "printf 'a' | sed 'a x'",
    "printf 'a\\nb' | sed 'N;P;D'",
    "printf 'a\\nb' | sed '$!d'",
    "printf 'x' > nonl; sed 'r nonl' f",
    "sed '1R r.txt' f",
    "echo hello > r.txt; sed 'R r.txt' f",
    "sed 'r nosuch' f",
    "sed '2r /dev/stdin' f <<< 'from stdin'",
    "sed -n '/t/w out.txt' f; cat out.txt",
    "sed -n '/t/W out.txt' f; cat out.txt",
    "sed 'w /dev/stderr' f 2>&1 >/dev/null",
    "sed -n 'F;=' f",
    "sed -s -n '$=' f f",
    "sed -s -n 1p f f",
    "cp f f2; sed -s x f f2",
    "cp f f2; sed -s '2,7d' f f2",
    "cp f f2; sed -s 'N;N;N;N;N;s/\\n/+/g' f f2",
    "cp f f2; sed -s -n '/four/,/two/p' f f2",
    "cp f f2; sed -n '/four/,/two/p' f f2",
    "cp f f2; sed -s -n 'F;q' f f2",
    "cp f f2; sed -i 1d f f2; cat f f2",
    "cp f f2; sed -i '$d' f f2; cat f f2",
    "sed -i 2q f; cat f",
    "printf 'a\\0b\\0' | sed -z 's/^/>/' | od -c",
    "printf 'a\\0b\\0' | sed -z 'N;s/\\x00/+/;l' | od -c",
    "sed -n '$p' f nosuch; echo $?",
    "sed -n p nosuch; echo $?",
    "sed --posix -n 1p f",
    "sed -E -n '/^(t|f)/p' f",
    "sed -r 's/(.)(.)/\\2\\1/' f",
    "sed -n '/ONE/Ip' f",
    "sed 's/O/0/Ig' f",
    "printf 'a\\nb\\n' | sed -n 'N;/^b/Mp'",
    "printf 'ab\\ncd\\n' | sed 'N;s/^c/X/M'",
    "printf 'ab\\ncd\\n' | sed 'N;s/b$/X/M'",
    "sed '//p' f",
    "sed 's/o/0/;s//Q/' f",
    "sed -n '/o/{//!p;//p}' f",
    "sed '2!{s/o/0/}' f",
    "sed '/two/,/four/!d' f",
    "sed '3,$d' f",
    "sed '$!N;$!D' f",
    "sed -n '$!{h;d};x;G;p' f",
    "sed '1~3s/^/#/' f",
    "sed 's/x/y/;t;s/^/-/' f",
    "sed 's/o/O/;T;s/$/ ok/' f",
    "sed ':a;s/^.\\{1,7\\}$/ &/;ta' f",
    "sed -n '/two/{n;p}' f",
    "sed '$!N;s/\\n/ /' f",
    "sed 'n;n;s/$/!/' f",
    "sed '2{h;d};4G' f",
    "sed '2{x;p;x}' f",
    "sed 'b;p' f",
    "sed -n '2{N;N;D};p' f",
    "sed 'Q' f; echo $?",
    "sed '3Q7' f; echo $?",
    "{ sed 1q; cat; } < f",
    "sed 1d -- f",
    "sed --expression 1d --quiet --expression 3p f",
    "sed -ne 2p -e 4p f",
    "sed -n -f /dev/null f; echo $?",
    "sed 'p x' f",
    "sed '1,2,3p' f",
    "sed '0p' f",
    "sed '0,5p' f",
    "sed -n '0,/t/p' f",
    "sed -n '1,/t/p' f",
    "sed 'r' f",
    "sed ': ' f",
    "sed '1:a' f",
    "sed '1#x' f",
    "sed '1,2q' f",
    "sed '2!!p' f",
    "sed '1,p' f",
    "sed 's/x/y/gg' f",
    "sed 's/x/y/pp' f",
    "sed 's/x/y/2p2' f",
    "sed 's/x/y/0' f",
    "sed 's/x/\\3/' f",
    "sed 's/\\(x\\)/\\2/' f",
    "sed 's/\\(/x/' f",
    "sed 'y/a/' f",
    "sed '=x' f",
    "sed '{p};}' f",
    "sed '{' f",
    "sed 'u' f",
    "sed 'a' f",
    "sed 'v 9.0' f",
    "sed 'v 4.2' f",
    "sed -e p -e 's/a/b' f",
    "sed -e p -e k f",
    "printf 'p\\n\\ns/a/b\\n' > s.sed; sed -f s.sed f",
    "sed -f nosuch.sed f",
    "sed -n '/x' f",
    "sed 's/a/b/ g' f",
    "sed -n '/one/b end;p;:end' f",
    "sed -n ':a b;p' f",
    "sed '1,3{/t/b};d' f",
    "sed 'y/abc/xyz/;s/x/X/' <<< 'aabbcc'",
    "echo 'path/to/file.txt' | sed 's#.*/##'",
    "echo 'key=value' | sed 's/\\([^=]*\\)=\\(.*\\)/\\2=\\1/'",
    "echo 'CamelCaseName' | sed -E 's/([a-z])([A-Z])/\\1_\\l\\2/g'",
    "seq 3 | sed -n 'x;1!p;${x;p}'",
    "seq 5 | sed '2,4{s/^/[/;s/$/]/}'",
    "seq 4 | sed 'N;s/\\n/ /'",
    "seq 5 | sed -n 'p;n'",
    "seq 5 | sed 'n;d'",
    "seq 5 | sed '$!{N;s/\\n/-/}'",
    "seq 3 | sed 'G'",
    "seq 3 | sed -n 'H;${x;s/\\n/,/g;s/^,//;p}'",
    "seq 3 | sed = | sed 'N; s/^/   /; s/ *\\(.\\{6,\\}\\)\\n/\\1  /'",
    "printf 'one two\\n' | sed 's/ /\\n/g' | sed -n 2p",
    "seq 10 | sed -n '$!{$!p}' | wc -l",
    "printf 'a\\nb\\n' | sed '1!G;h;$!d' | od -c",
    "printf 'aXbXc\\n' | sed 's/X/\\n/g;P;D'",
    "sed '2 i\\\nbefore two' f",
    "sed '2a\\\nfirst\\\nsecond' f",
    "sed '2a\\\n   spaced\\\n  two' f",
    "sed '2a\\\n' f",
    "sed '#n\ns/o/0/' f",
    "sed -n '#n\np' f",
    "sed '#n\np' f",
    "sed '  #n\np' f",
    "sed -e '#n' -e p f",
    "echo abc | sed 's/b/\\\n/'",
    "sed '2{\n  s/two/2/\n  a\\\nafter\n}' f",
    "sed -n '\n/two/ {\n  p\n  =\n}\n' f",
    "printf '#n\\n/two/p\\n' > s.sed; sed -f s.sed f",
    "printf '2i\\\\\\n  kept\\\\\\nlines\\n' > s.sed; sed -f s.sed f",
    "printf ':top\\ns/o/0/\\nt top\\n' > s.sed; sed -f s.sed f",
    "sed '2c\\\nline one\\\nline two' f",
    "sed '1{\n:a\nN\n$!ba\n}\ns/\\n/|/g' f",
    "yes | sed p | head -3",
    "yes | sed 's/y/n/' | head -2; echo ${PIPESTATUS[@]}",
    "seq 100000 | sed -n '$p'",
    "seq 200000 | sed 's/1/X/g' | tail -2",
    "seq 100000 | sed -n '/99999/{=;q}'",
    "mkdir d; echo hi > d/r.txt; cd d; sed 'r r.txt' <<< x | cat; cd ..; sed 'w d/o.txt' f | head -1; cat d/o.txt | wc -l",
    "printf 'a\\nb\\n' | sed '$!{$!d}'",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_sed_answers_as_gnu_sed(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(FIVE + command)


CPU = "bash: CPU time limit exceeded (the offline step budget is 0.2 s of work)\n"


@pytest.mark.parametrize(
    "command",
    [
        "echo x | sed ':a;ba'",
        "echo x | sed ':a;s/x*/x/;ta'",
        "echo x | sed ':a;s/x/xx/;ta'",
        "echo x | sed -n ':a;p;ba' | wc -l",
        "yes | sed ':a;N;ba'",
        "yes | sed ':a;N;$!ba;s/\\n/ /g'",
        "echo x | sed 'G;D'",
        "echo x | sed ':a;s/^/y/;s/^y//;ta'",
        "seq 3 | sed -n '$!{h;d};:a;x;G;x;ba'",
    ],
)
def test_a_sed_loop_ends_at_the_work_budget(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2)
    r = vm.run(command)
    assert (r.stdout, r.stderr, r.exit_code) == ("", CPU, 152)
    assert vm.run("echo ok").stdout == "ok\n"


@pytest.mark.parametrize(
    "command",
    ["echo x | sed ':a;h;G;ba'", "echo x | sed ':a;s/.*/&&/;ta'", "echo x | sed ':a;H;x;ba'"],
)
def test_a_sed_space_that_doubles_ends_at_the_memory_budget(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=5, memory_mb=16)
    r = vm.run(command)
    assert r.stdout == "" and r.exit_code == 2
    assert r.stderr.startswith("bash: xmalloc: cannot allocate ")
    assert r.stderr.endswith(
        " bytes (the offline step memory budget is 16 MB, a third of it for one value)\n"
    )


NOT_SIMULATED = (
    "sed: cannot run in the offline world (its effect is not simulated; "
    "AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS=succeed pretends success)\n"
)


@pytest.mark.parametrize("command", [FIVE + "sed '2e echo hi' f", FIVE + "sed 's/two/ls/e' f"])
def test_e_runs_nothing_and_says_so(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run(command + "; echo $?")
    # the line before the command is out; then the notice, and sed stops with 126
    assert (r.stdout, r.stderr, r.unknown_effect) == ("one\n126\n", NOT_SIMULATED, True)
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(unknown_fails=False)
    r = vm.run(command + "; echo $?")
    assert r.unknown_effect and r.stderr == ""
    assert r.stdout.endswith("three\nfour\nfive\n0\n")


def test_e_without_a_matching_line_runs_nothing_and_is_not_flagged() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run(FIVE + "sed '/nomatch/e ls' f")
    assert (r.stdout, r.stderr, r.exit_code, r.unknown_effect) == (
        "one\ntwo\nthree\nfour\nfive\n",
        "",
        0,
        False,
    )


def test_w_files_and_in_place_backups_land_in_the_virtual_fs() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run(
        FIVE + "sed -n -i.bak -e '/o/w hits.txt' -e 's/e/E/p' f; cat f; cat hits.txt; cat f.bak | wc -l"
    )
    assert r.stdout == "onE\nthrEe\nfivE\none\ntwo\nfour\n5\n"
