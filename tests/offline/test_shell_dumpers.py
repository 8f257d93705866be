"""xxd (vim's), hexdump and hd (util-linux's) and strings (binutils'), compared with the host's
programs: dumps of real bytes (NULs, bytes above 0x7f), stdin, empty input, missing files,
directories, bad options and their statuses; and huge inputs end with the step-budget error."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

XXD = [
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -l 16 f; xxd -l 0 f; xxd -l 0x8 f; xxd -len 5 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -p f; xxd -ps -c 8 f; xxd -p -c 0 f; xxd -u -p f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -p f | xxd -r -p | od -c",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -i f; xxd -i -n my-var f; xxd -i -C f; xxd -u -i f; xxd -i -c 4 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -i < f; cat f | xxd -i -n foo; xxd -i - < f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -b f; xxd -b -c 4 f; xxd -b -g 2 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -c 8 -g 1 f; xxd -c 5 -g 3 f; xxd -g 0 f; xxd -g 16 -c 12 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -s 0x10 f; xxd -s -16 f; xxd -s +4 -l 8 f; xxd -s 100 f; echo $?",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; cat f | xxd -s 4 -l 8; cat f | xxd -s -4; echo $?; cat f | xxd -s 100; echo $?; xxd -s -100 f; echo $?",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -s 10 < f; xxd -s -8 < f; xxd -s10 -l4 f; xxd -seek 3 -l 4 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -u f; xxd -e f; xxd -e -g 2 f; xxd -e -g 8 f; xxd -e -c 6 f; xxd -e -c 6 -g 8 f",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -e -g 3 f; echo $?; xxd -e -c 10 -g 4 f; xxd -e -c 12 -g 8 f",
    "head -c 64 /dev/zero > z; xxd -a z; xxd -a -c 8 z; printf 'abc' >> z; xxd -a z; xxd z | head -3",
    "head -c 32 /dev/zero > z; xxd -a z; head -c 48 /dev/zero > z; xxd -a z; head -c 16 /dev/zero > z; xxd -a z",
    "{ printf 'a'; head -c 100 /dev/zero; printf 'b'; head -c 47 /dev/zero; } > z; xxd -a z; xxd -a -c 4 z",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd f > dump; xxd -r dump | od -c; xxd -r dump out; od -c out",
    "printf 'Hello' > f; printf 'XXXXXXXXXXXX' > out; xxd f | xxd -r - out; cat out; echo; xxd -r -s 4 <(xxd f); echo",
    "printf '00000010: 4142 4344\\n00000000: 6162\\n' | xxd -r | od -c; echo $?",
    "printf '00000010: 4142 4344\\n00000000: 6162\\n' > d1; xxd -r d1 o; od -c o; echo $?",
    "printf '00000004: 4142\\n' | xxd -r | od -c; printf '4142 zz 4344\\n' | xxd -r -p | od -c",
    "printf '0: 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52\\n' | xxd -r | od -c; printf '0: 414243\\n' | xxd -r -c 2 | od -c",
    "xxd nofile; echo $?; mkdir d; xxd d; echo $?; xxd -i d; echo $?; xxd -r d; echo $?; xxd -p d; echo $?",
    "printf 'x' > f; xxd f d2/x; echo $?; mkdir d; xxd f d; echo $?; xxd nofile out; echo $?; ls out; echo $?",
    "printf 'x' > f; xxd f o1; cat o1; xxd -i f o2; cat o2",
    "xxd -h; echo $?; xxd -v; echo $?; xxd --version; echo $?; xxd -Z; echo $?; xxd --help; echo $?",
    "printf 'abc' > f; xxd -c; echo $?; xxd -c 300 f; echo $?; xxd -c -1 f; echo $?; xxd -p -c -1 f; echo $?; xxd -i -c 300 f",
    "printf 'abc' > f; xxd f f f; echo $?; xxd -r -b f; echo $?; xxd -r -i f; echo $?; xxd -r -e f; echo $?",
    "printf '' | xxd; echo $?; printf '' | xxd -i; printf '' | xxd -p; echo $?; printf '' | xxd -p -c 0 | od -c; : > e; xxd -i e; xxd -a e",
    "printf 'Hello' > f; xxd -o 0x100 f; xxd -o -16 f; xxd -d -s 3 f; xxd -d -o 1000 f; xxd -E f",
    "printf 'Hello' > 1file; xxd -i 1file; xxd -i -n 9x 1file; printf 'ab' | xxd -b -i; echo $?",
    "printf 'abc' > f; xxd -- f; xxd -autoskip f; xxd --ps f; xxd - < f; xxd -l 2 -- -; echo $?",
    "seq 1000 | xxd | tail -3; seq 1000 | xxd -p | wc -l",
    "head -c 1000 /dev/zero | xxd -a; xxd -l 32 /dev/zero; xxd -l 16 -s 8 /dev/zero; yes | xxd -l 20",
    "printf 'abc' > f; xxd -capitalize -i f; xxd -g1 -c4 f; xxd -groupsize 1 f",
    "printf 'caf\\303\\251 \\342\\202\\254 ok\\n' > u; xxd u; xxd -p u | xxd -r -p; xxd u | xxd -r",
    "printf 'Hello world, this is text\\nmore text here\\n' | xxd -r | od -c; echo $?",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -c 4 f | xxd -r -c 4 | od -c | head -3",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -s 0x10 f | xxd -r -s -0x10 | od -c",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -g1 f | xxd -r | cmp - f; echo $?; xxd -u f | xxd -r | cmp - f; echo $?",
    "printf '\\r\\n00000000: 4142\\r\\n' | xxd -r | od -c",
    "printf 'Hello, world!\\nThis is a test of xxd.\\000\\001\\002\\377' > f; xxd -b f | xxd -r | od -c | head -3; echo $?",
    "printf '%s\\n' 'unsigned char x[] = {' '  0x41, 0x42' | xxd -r -p | od -c",
    "printf '41 42\\n43\\t44\\n45 4' | xxd -r -p | od -c",
    "printf 'abcdefghijklmnopqrstuvwxyz' > f; xxd -c 7 -g 3 -e f; echo $?; xxd -e -c 3 f; xxd -e -c 5 -g 1 f",
    "printf 'abc' > f; xxd -s; echo $?; xxd -l; echo $?; xxd -n; echo $?; xxd -g; echo $?; xxd -o; echo $?",
    "printf 'abcdefghijklmnopq' > f; xxd -s 0x05 -l 0x05 f; xxd -s 010 f; xxd -s abc f; xxd -l -1 f; xxd -c 0x4 f",
    "printf 'abcdefghijklmnopq' > f; xxd -p -l 3 f; xxd -p -s 15 f; xxd -i -s 15 f; xxd -i -l 0 f; xxd -b -l 3 f; xxd -b -a f",
    "printf 'abc' > f; xxd -pi f; xxd -ip f; xxd -bi f; xxd -p -b f; xxd -e -p f",
    "printf 'abc' > f; xxd -r -s 2 f; echo $?; printf '00000002: 41\\n' | xxd -r -s -4 | od -c; echo $?",
    "head -c 40 /dev/zero > z; xxd -a -l 40 z; xxd -a -s 8 z; xxd -a -p z",
]

HEXDUMP = [
    "yes | hexdump -n 8 -C; yes abc | xxd -l 8; cat /dev/urandom | hexdump -n 16 | wc -l; yes | xxd -p -l 4",
    "printf 'Hello, world!\\nThis is a test of hexdump.\\000\\001\\002\\377' > f; hexdump -C f; hd f; hexdump f",
    "printf 'Hello, world!\\nThis is a test of hexdump.\\000\\001\\002\\377' > f; hexdump -b f; hexdump -c f; hexdump -d f",
    "printf 'Hello, world!\\nThis is a test of hexdump.\\000\\001\\002\\377' > f; hexdump -o f; hexdump -x f; hexdump -C -x f",
    "printf 'Hello, world!\\nThis is a test of hexdump.\\000\\001\\002\\377' > f; hexdump -n 16 -s 4 -C f; hexdump -n 5 f; hexdump -s 0x10 -C f",
    "head -c 100 /dev/zero > z; hexdump z; hexdump -C z; hexdump -v -C z; hd -v z | wc -l",
    "{ printf 'abcdefghijklmnop'; printf 'abcdefghijklmnop'; printf 'abcdefghijklmnop'; printf 'xyz'; } > r; hexdump -C r; hexdump r; hexdump -C -v r",
    "{ printf 'abcdefghijklmnop'; printf 'abcdefghijklmnop'; } > r; hexdump -C r; { printf 'abcdefghijklmnop'; printf 'abcdefghijklmnop';  printf 'abcdefghijklmnop'; } > r; hd r",
    "printf 'abc' | hexdump -C; printf '' | hexdump -C; echo $?; printf '' | hexdump; : | hd",
    "printf 'abc' > f; hexdump nofile; echo $?; mkdir d; hexdump d; echo $?; hexdump -C d f; echo $?; hexdump -C nofile f; echo $?",
    "printf 'abc' > f; hexdump nofile nofile2; echo $?; hexdump -n 2 f nofile; echo $?; hexdump -n 0 nofile; echo $?; hexdump f nofile f; echo $?",
    "printf 'abc' > f; hexdump -s 1 nofile; echo $?; printf abc | hexdump -s 1; echo $?; hexdump -s 1 < f; hexdump -s 100 f; echo $?; mkdir d; hexdump -s 2 d; echo $?",
    "printf 'abc' > f; hexdump -n abc f; echo $?; hexdump -s -1 f; echo $?; hexdump -n 1k -s 0x1 f; hexdump -n 1KB f; hexdump -n 1x f; echo $?; hexdump -n '' f; echo $?",
    "printf 'abc' > f; hexdump -Z f; echo $?; hexdump --c f; echo $?; hexdump --length f; echo $?; hexdump --canonical=3 f; echo $?; hexdump -n; echo $?; hexdump --foo; echo $?",
    "printf 'abc' > f; hexdump -L f; hexdump -Lfoo f; echo $?; hexdump --color=always f; hexdump --canon f; hexdump --help; echo $?; hexdump -V; hd -V; hd --help | head -3",
    "printf 'abc' > f; hexdump -e '\"%z\"' f; echo $?; hexdump -e '\"%5_c\"' f; echo $?; hexdump -e '4/3 \"%x\"' f; echo $?; hexdump -e '\"%s\"' f; echo $?; hexdump -e 'x' f; echo $?",
    'printf \'Hello, world!\\nThis is a test.\' > f; hexdump -e \'16/1 "%02x " "\\n"\' f; hexdump -e \'"%08.8_ax  " 8/1 "%02x "  "\\n"\' f; hexdump -e \'1/4 "%d\\n"\' f',
    'printf \'Hello, world!\\nThis is a test.\' > f; hexdump -e \'"%07.7_ax " 8/2 "%04x " "\\n"\' f; hexdump -e \'16/1 "%c"\' f; echo; hexdump -e \'4/1 "%3d" "\\n"\' f',
    'printf \'Hello, world!\\nThis is a test.\' > f; hexdump -e \'1/1 "%02X"\' f; echo; hexdump -e \'"%_ad: " 4/1 "%02x" "\\n"\' f; hexdump -e \'16/1 "%_p" "\\n"\' f; hexdump -e \'8/1 "%_u " "\\n"\' f',
    'printf \'\\001\\002\\003\\004\\005\\006\\007\\010\\011\\012\\013\\014\\015\\016\\017\\020\\177\\200\\377 abc\' > f; hexdump -c f; hexdump -e \'8/1 "%_u " "\\n"\' f; hexdump -e \'8/1 "%4_c" "\\n"\' f',
    'printf \'\\377\\376\\375\\374\\001\\000\\000\\000\' > f; hexdump -e \'2/4 "%d " "\\n"\' f; hexdump -e \'2/4 "%u " "\\n"\' f; hexdump -e \'4/2 "%i " "\\n"\' f; hexdump -e \'1/8 "%x\\n"\' f; hexdump -e \'8/1 "%d " "\\n"\' f',
    "printf '\\000\\000\\200\\077\\000\\000\\000\\000\\000\\000\\360\\077' > f; hexdump -e '1/4 \"%f\\n\" 1/8 \"%e\\n\"' f; hexdump -e '\"%g\\n\"' f",
    'printf \'abcdefgh\' > f; hexdump -e \'"%.4s|" "\\n"\' f; hexdump -e \'2/4 "%s|" "\\n"\' f; hexdump -e \'4 "%-3x|" "\\n"\' f',
    'printf \'abcdefgh\' > f; hexdump -e \'"%08_ax: " 4/1 "%#04x " "\\n"\' f; hexdump -e \'"%_Ax\\n"\' f; echo; hexdump -e \'4/1 "%02x" "\\n"\' -e \'"%_Ad\\n"\' f',
    'printf \'abcdefghij\' > f; hexdump -e \'"%08.8_ax " 4/1 "%02x " "\\n" "%_Ad"\' f; echo; hexdump -e \'8/1 "%02x"\' -e \'"\\n"\' f',
    'printf \'abc\' > f; printf \'"%%02x"\\n# c\\n\\n "\\\\n"\\n\' > fmt; hexdump -f fmt f; hexdump -f nofile f; echo $?; hexdump -e \'16/1 "%02x" "\\n"\' -e \'"x\\n"\' f',
    "printf 'abc' > f; hexdump -e '2/1 \"%02x %02x\"' f; echo $?; hexdump -e '1/3 \"%s\"' f; echo $?; hexdump -e '\"%_z\"' f; echo $?; hexdump -e '\"%_ay\"' f; echo $?; hexdump -e '2/2 \"%_c\"' f; echo $?",
    'printf \'abcdefgh12345678abcdefgh12345678abcdefgh12345678\' > f; hexdump -e \'8/1 "%02x " "\\n"\' f; hexdump -v -e \'8/1 "%02x " "\\n"\' f',
    "seq 1000 > f; hexdump -C f | tail -3; hexdump f | head -3; hexdump -n 100 -s 50 -c f",
    "printf 'caf\\303\\251 \\342\\202\\254\\n' > u; hexdump -C u; hexdump -c u; hd -n 3 -s 2 u",
    "printf 'abc' > f; printf 'defgh' > g; hexdump -C f g; hexdump -s 4 -C f g; hexdump -s 3 -C f g; cat f | hexdump -C - ; hexdump -C f - < g",
    "printf 'abc' > f; printf 'defgh' > g; cat f | hexdump -C - ; hexdump -C f - < g; echo $?; printf 'x' > ./-; hexdump -C -- -",
    "printf 'abc' > f; hexdump -C /dev/stdin < f; hexdump -n 20 /dev/zero; hexdump -C -n 4 /dev/urandom | wc -c",
    "printf 'abc' > f; hexdump -vC f; hexdump -Cv -n2 f; hexdump -n2 -C f; hexdump f -C; hexdump --skip=1 --length 1 -C f",
    'printf \'abcdefghijklmnopqrstuvwxyz0123456789\' > f; hexdump -e \'"%06_ao "\' -e \'16/1 "%3o" "\\n"\' f; hexdump -e \'3/1 "%-4X|"  "\\n"\' f',
    'printf \'abcdefghijklmnopqrstuvwxyz0123456789\' > f; hexdump -e \'10/1 "%02x" "\\n"\' -e \'5/2 "%5d" "\\n"\' f',
    'printf \'abcdefghijklmnopqrstuvwxyz0123456789\' > f; hexdump -e \'"%07.7_Ax\\n"\' -e \'"%07.7_ax  " 16/1 "%_c  " "\\n"\' f',
    "printf 'ab' > f; hexdump -e '\"[%5c][%-5c][%05x][%+d][% d][%.3x][%#x][%#o]\\n\"' f; echo $?",
    'printf \'abcd\' > f; hexdump -e \'1/1 "[%5c]" 1/1 "[%-5c]" 1/2 "[%#06x]"\' -e \'"\\n"\' f; hexdump -e \'1/1 "[%+d]" 1/1 "[% d]" 1/1 "[%.3x]" 1/1 "[%#o]\\n"\' f',
    "printf 'abcdefgh' > f; hexdump -e '\"%x\" \"\\n\"' f; hexdump -e '4 \"%02x\"' f; echo; hexdump -e '2 \"ab \"' -e '\"\\n\"' f",
    "printf '\\000\\000\\000\\000' > f; hexdump -e '1/4 \"%f\\n\"' f; printf '\\377\\377\\377\\377' > f; hexdump -e '1/4 \"%f\\n\"' f; hexdump -e '1/4 \"%e\\n\"' f",
    "head -c 4096 /dev/zero > z; printf 'x' >> z; head -c 32 /dev/zero >> z; hexdump z; hexdump -C z; hexdump -e '16/1 \"%02x\" \"\\n\"' z",
]

STRINGS = [
    "printf 'hello world\\0abc\\0longer string here\\n\\tx tab\\001defg' > f; strings f; strings -n 8 f; strings -t x f; strings -t d f; strings -o f; strings -f f; strings -3 f",
    "printf 'hello world\\0abc\\0longer string here\\n\\tx tab\\001defg' > f; strings -n 0 f; echo $?; strings -n x f; echo $?; strings -t z f; echo $?; strings -e z f; echo $?; strings - < f; echo $?; strings -- - f",
    "strings --help; echo $?; strings -Z; echo $?; strings --version; strings -v; strings -V | head -1; strings nofile; echo $?; mkdir d; strings d; echo $?; printf 'abcdef' | strings",
    "printf 'abc\\0defghi' > f; strings -s '|' f; echo; strings -s '' f; echo; strings -w f; printf 'a\\tb c\\nd\\re\\ff\\vg   \\n' > w; strings -w w | od -c; strings w | od -c",
    "printf 'caf\\303\\251 na\\303\\257ve r\\303\\251sum\\303\\251 ok\\n' > u; strings u; strings -e S u; strings -U e u; strings -U s u; echo $?; strings --unicode=escape u; strings -U x u; strings -U i u; strings -U h u",
    "printf 'ab\\303\\251\\nx\\303\\251\\303\\251z\\n\\303\\251\\303\\251\\303\\251\\303\\251\\n\\303(bad\\n' > u; for m in e x h i d; do echo \"== $m\"; strings -U $m u; done; strings -t x -U e u; strings --unicode=foo u; echo $?; strings -U l u | od -c",
    "printf 'abcd\\0' > f; strings -f -t x f -; echo rc=$?; strings -1f f; echo rc=$?; strings -e l f; printf 'h\\0e\\0l\\0l\\0o\\0\\0\\0w\\0' > l; strings -e l l; strings -e b l; strings -el -t d l",
    "printf 'abcd\\0' > f; strings --bytes=2 f; strings --radix=d f; strings --encoding=S f; strings --print f; strings --out=: f; echo; strings --foo f; strings -n; strings --bytes; strings -e LL f; echo $?",
    "printf 'abcd\\0' > f; strings -n -1 f; echo \"rc=$?\"; strings -n 4294967296 f; echo \"rc=$?\"; strings -n 0x3 f; strings -n ' 3' f; strings -n 3x f; echo $?; strings -n 2147483648 f; echo $?; strings -n '' f; echo $?",
    "printf 'abcd\\0' > f; strings -T foo f; echo rc=$?; strings -d f; strings -12 f; strings -H | tail -2; printf 'abcd' | strings -f; printf 'x' > g; strings -f f g nofile f; echo $?",
    "printf 'A\\0\\0\\0B\\0\\0\\0C\\0\\0\\0D\\0\\0\\0E\\0\\0\\0' > L; strings -e L L; strings -e B L; strings -t x -e B L; printf '\\0\\0\\0A\\0\\0\\0B\\0\\0\\0C\\0\\0\\0D' > B; strings -e B B; strings -e L B",
    "for i in $(seq 1 300); do printf '%s\\0' \"item$i\"; done > n; strings n | tail -3; strings -n 7 -t d n | head -3; strings -a n | wc -l",
    "printf 'abc' > f; strings -n 3 /dev/stdin < f; strings -f -n 3 - f; cat f | strings -n 3 -f",
]


@pytest.mark.parametrize("command", XXD)
def test_xxd_is_the_hosts(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


@pytest.mark.parametrize("command", HEXDUMP)
def test_hexdump_and_hd_are_the_hosts(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


@pytest.mark.parametrize("command", STRINGS)
def test_strings_is_the_hosts(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def _tight_machine() -> VirtualMachine:
    """A machine with a 30 MB file of zeroes (/tmp/z), a 50 kB one (/tmp/small) and a 1 s budget."""
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=60, memory_mb=256)
    assert (
        vm.run("head -c 30000000 /dev/zero > /tmp/z && head -c 50000 /dev/zero > /tmp/small").exit_code == 0
    )
    vm.limits = StepLimits(seconds=1, memory_mb=256)
    return vm


HUGE = [
    "xxd /tmp/z | tail -1",
    "xxd -p /tmp/z | wc -l",
    "hexdump -v /tmp/z | tail -1",
    "hd -v /tmp/z | wc -l",
    "hexdump -C /tmp/z | tail -1",
    "strings -a /tmp/z",
    "xxd -r -p /tmp/z | wc -c",
]


@pytest.mark.parametrize("command", HUGE)
def test_a_huge_input_ends_with_the_budget_error(command: str) -> None:
    r = _tight_machine().run(command)
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr


def test_within_the_budget_dumps_finish_and_a_reader_that_stops_early_stops_them() -> None:
    vm = _tight_machine()
    r = vm.run("xxd /tmp/small | tail -1; hd /tmp/small; strings /tmp/small | wc -l")
    assert (r.stdout, r.exit_code) == (
        "0000c340: 0000 0000 0000 0000 0000 0000 0000 0000  ................\n"
        "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n0000c350\n0\n",
        0,
    )
    r = vm.run("xxd /tmp/z | head -2; hexdump -v -C /tmp/z | head -1")  # streamed: done long before the end
    assert r.exit_code == 0 and r.stdout.count("\n") == 3


def test_xxd_r_patches_its_output_file_in_place() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run("printf 'XXXXXXXXXX' > out; printf '00000002: 4142\\n' | xxd -r - out; cat out")
    assert (r.stdout, r.exit_code) == ("XXABXXXXXX", 0)
