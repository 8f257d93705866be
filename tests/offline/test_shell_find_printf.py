"""find -printf / -fprintf / -ls, ls --time-style, touch -d/-t/-r/-h, getconf and locale,
compared with GNU findutils 4.9, coreutils and glibc's programs on the host."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

# a file, a directory, a link and a dangling link, all at a fixed time (old on any clock)
TREE = (
    "mkdir -p d/e && printf hello > d/a.txt && ln -s a.txt d/l && ln -s nowhere d/bad && "
    "touch -d '2024-03-05 14:07:09' d/a.txt d/e d && touch -h -d '2024-03-05 14:07:09' d/l d/bad; "
)
ALL = "%p|%P|%f|%h|%H|%d|%s|%k|%b|%m|%M|%y|%Y|%l|%u|%g|%U|%G|%n|%S"
TIMES = "%t|%a|%T@|%A@|%T+|%TS|%TT|%Tc|%Tx|%TX|%TZ|%Tz|%Tk|%Tl|%Te|%Ts|%TD|%TF|%Tj|%TI|%Tp|%Tr|%TU|%TV|%Tq"

FIND = [
    TREE + f"find d -printf '{ALL}\\n' | sort",
    TREE + f"find d/a.txt -printf '{TIMES}\\n'",
    TREE
    + "find d/a.txt -printf '%Ta %TA %Tb %TB %TC %Td %Tg %TG %Th %TH %Tm %TM %Tn %Tt %Tu %Tw %TW %Ty %TY %TR'",
    TREE + "find d/ -maxdepth 1 -printf '[%p][%P][%f][%h][%H][%d]\\n' | sort",
    TREE + "find ./d -name e -printf '[%p][%P][%f][%h][%H]\\n'; find d//e -printf '[%p][%h][%f]\\n'",
    TREE + "find / -maxdepth 0 -printf '[%p][%P][%f][%h][%H]\\n'",
    TREE
    + "find d/a.txt d/e -printf '[%+d][% d][%#d][%0d][%-5d|%5d][%.1d][%+s][%#s][%5.2f][%-#10m][%08m][%.2s]\\n'",
    TREE + "find d/a.txt -printf '[%-10p][%10s][%.3p][%#m][%05s][%-5m][%10Tk|%-4TY|%5TS]\\n'",
    TREE + "find d/a.txt d/e -printf '%Q%Q\\n%5%x %%\\n'",
    TREE + "find d/a.txt -printf '%5\\n'",
    TREE + "find d/a.txt -printf '%T'; echo; find d/a.txt -printf '%A'",
    TREE + "find d -printf '%'; echo $?",
    TREE + "find d -printf '%{'; echo $?; find d -printf '%[x'; echo $?",
    TREE + "find d/a.txt d/e -printf 'x\\cy' -printf 'a\\'",
    TREE + "find d/a.txt -printf '\\101\\0\\a\\b\\f\\r\\v\\t\\\\\\q\\18\\777' | od -c",
    TREE + "find d/a.txt -printf '%p\\n' -printf x; echo; find d/a.txt -printf ab -o -print",
    TREE + "find d -name '*.txt' -printf '%f is %s bytes\\n' -o -type d -printf 'dir %p\\n' 2>&1 | sort",
    TREE + "find d -type l -printf '%p -> %l (%Y)\\n' | sort",
    TREE + "find d -maxdepth 0 -fprintf out '%p %m\\n' -fprint o2 -fprint0 o3; cat out o2; od -c o3",
    TREE + "find d/nothing -fprint o1 2>&1; cat o1; echo $?",
    TREE
    + "find d -maxdepth 0 -fprintf; echo $?; find d -maxdepth 0 -printf; echo $?; find d -fprint; echo $?",
    TREE + "find d -maxdepth 0 -fprintf /nonexist/x a; echo $?",
    TREE + "find d/a.txt -printf '%Z|\\n'; echo $?",
    TREE + "find d/a.txt -printf '%p\\n' -fprintf /dev/stdout 'again %f\\n' -fprintf /dev/stderr 'err\\n'",
    TREE + "find d/a.txt -fprintf /dev/null x; echo $?",
    TREE + "find d -printf '%#.3m|%.5d|%-+5d|% 05d|%05d|%5Q|%-3Q|%.2Q\\n' | sort",
    TREE
    + "find d d/e -printf '[%P][%H][%d]\\n' -quit; find ./ -maxdepth 1 -name d -printf '[%P][%H][%h]\\n'",
    TREE
    + "find d -name e -print -quit; find d nosuch -quit; echo $?; find d -maxdepth 0 -printf '%p\\t%y\\n' -printf '%f\\0' | od -c",
    "printf 'x%.0s' $(seq 5000) > f; touch -d '2024-01-01' f; find f -printf '%s %k %b %S\\n'",
    "touch -d '2024-01-01' f; find f -fprintf out '%f\\n' -fprintf out 'twice\\n' -fprint out2; cat out out2",
    "touch -d '2024-06-15 23:59:59' f; find f -printf '%AF %A+ %AT %A@ %TY %Tp %TI %Tl|%Tk|\\n'",
    "touch f; find f -printf '\\x41\\n\\8\\n'; find nosuch -printf '%p\\n'; echo $?",
    "touch -t 202401021530.45 f && find f -printf '%TF %TT\\n'; touch -t 01021530 g; echo $?",
    "touch -d @86400 f && touch -r f g && find g -printf '%T@\\n'",
    "touch -d 'yesterday' f; touch -d nonsense f; echo $?; touch -t 13011200 f; echo $?",
    "touch -r nosuch f; echo $?; touch -h nosuch; echo $?; touch -c -h nosuch; echo $?",
]


@pytest.mark.parametrize("command", FIND)
def test_find_printf_answers_as_gnu_find(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_machine_specific_directives_have_the_form_gnu_gives_them() -> None:
    """Inode numbers, devices and the filesystem differ per machine: their form, and agreement
    with ``stat``; ctime is the one time the machine keeps (GNU's is the change time)."""
    vm = VirtualMachine(interactive=False)
    r = vm.run(
        TREE + "find d/a.txt -printf '%i|%D|%F|%c|%C@|%Ck\\n'; stat -c %i d/a.txt; find d -maxdepth 0 -ls"
    )
    inode, device, fstype, ctime, cstamp, chour, stat_inode, ls = r.stdout.replace("\n", "|").split("|")[:8]
    assert inode.isdigit() and inode == stat_inode and device.isdigit() and fstype == "overlay"
    assert ctime == "Tue Mar  5 14:07:09.0000000000 2024" and cstamp == "1709647629.0000000000"
    assert chour == "14"
    assert re.fullmatch(r" *\d+ +4 drwxr-xr-x   3 root     root         4096 Mar  5  2024 d", ls)
    assert ls[:9].strip().isdigit() and ls[9] == " "  # the inode right-aligned in nine columns
    r = vm.run("cd d && find . -maxdepth 1 -name l -ls -fls ../o && cat ../o")
    line = r.stdout.split("\n")[0]
    assert line.endswith(" lrwxrwxrwx   1 root     root            5 Mar  5  2024 ./l -> a.txt")
    assert r.stdout == line + "\n" + line + "\n"


def test_printf_over_30000_files_is_charged_per_file() -> None:
    def machine(files: int) -> VirtualMachine:
        vm = VirtualMachine(interactive=False)
        vm.limits = StepLimits(seconds=0.15, memory_mb=256)
        for k in range(100):
            vm.fs.mkdir(f"/t/d{k}", parents=True)
        for k in range(files):
            vm.fs.write(f"/t/d{k % 100}/f{k}", "")
        return vm

    answers, works = set(), set()
    for _ in range(2):
        vm = machine(30_000)
        r = vm.run("find /t -printf '%d %s %m %y %p\\n' | tail -1")
        answers.add((r.stdout, r.stderr, r.exit_code))
        works.add(vm._budget.work)
    assert len(answers) == 1 and len(works) == 1
    _out, err, code = answers.pop()
    assert code == 152 and "CPU time limit exceeded" in err
    vm = machine(30_000)
    r = vm.run("find /t -printf ''")  # printing nothing is still work per file
    assert r.exit_code == 0 and vm._budget.work >= 3 * 30_000
    small = machine(2_000)
    r = small.run("find /t -printf '%d %s %m %y %p\\n' | wc -l")
    assert (r.stdout, r.exit_code) == ("2101\n", 0)
    per_file = small._budget.work
    small.run("find /t -printf '%p'")
    assert small._budget.work > 2000 and per_file > small._budget.work  # more directives, more work


LS = "mkdir d && printf hello > d/a.txt && ln -s a.txt d/l && touch -d '2024-03-05 14:07:09' d/a.txt d && touch -h -d '2024-03-05 14:07:09' d/l; "
STYLES = ["full-iso", "long-iso", "iso", "locale", "full", "long", "i", "+%Y/%m/%d %j", "posix-full-iso", "posix-iso",
          "posix-+%F", "posix-locale", "bogus", "", "l"]  # fmt: skip
LS_CASES = [
    *(
        LS + f"ls -l --time-style='{style}' d; echo $?; LC_ALL=C ls -l --time-style='{style}' d"
        for style in STYLES
    ),
    LS + "ls -l --time-style=$'+%Y %m\\n%H:%M' d",
    LS + "touch -d '2 days ago' d/a.txt; ls -l --time-style=$'+old\\nrecent' d; ls -l --time-style=+both d",
    LS + "ls -l --full-time d; ls --full-time d/a.txt",
    LS
    + "TIME_STYLE=long-iso ls -l d; TIME_STYLE=posix-long-iso ls -l d; TIME_STYLE=posix-long-iso LC_ALL=C ls -l d",
    LS + "TIME_STYLE=bogus ls -l d; echo $?; TIME_STYLE=+%s ls -l --time-style=iso d",
    LS + "ls --time-style=iso d; ls --time-style=nope d; echo $?",
    LS + "ls -lu d/a.txt; ls -l --time=atime d/a.txt; ls -l --time=use --time-style=long-iso d/a.txt",
    LS + "ls -l --time=bogus d; echo $?; LC_ALL=C ls -l --time=c d; echo $?",
    LS + "ls -l --time-style=+%s d/a.txt; ls -g --time-style=long-iso d/a.txt; ls -o --full-time d/a.txt",
    LS + "ls -l --time-style=+ d/a.txt; ls -l '--time-style=+%%' d/a.txt; touch -d 2023-01-01 d/g; ls -lt d",
    "touch -t 200001011200 f; touch -t 9901011200 g; touch -t 6901011200 h; ls -l --time-style=long-iso f g h",
]


@pytest.mark.parametrize("command", LS_CASES)
def test_ls_time_styles_answer_as_gnu_ls(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


GETCONF = [
    "getconf ARG_MAX; getconf PAGESIZE; getconf PAGE_SIZE; getconf LONG_BIT; getconf CLK_TCK; getconf PATH",
    "getconf NAME_MAX /; getconf PATH_MAX /; getconf PIPE_BUF /tmp; getconf HOST_NAME_MAX; getconf LINE_MAX",
    "getconf INT_MAX; getconf UINT_MAX; getconf CHAR_BIT; getconf _POSIX_VERSION; getconf POSIX2_VERSION",
    "getconf _XOPEN_VERSION; getconf CS_PATH; getconf LFS64_CFLAGS; getconf POSIX_V7_LP64_OFF64_CFLAGS",
    "getconf PTHREAD_THREADS_MAX; getconf LFS_CFLAGS; getconf SOCK_MAXBUF /",
    "getconf FOO; echo $?; getconf POSIX_VERSION; echo $?; getconf -z; echo $?",
    "getconf; echo $?; getconf NAME_MAX; echo $?; getconf ARG_MAX /; echo $?; getconf ARG_MAX x y; echo $?",
    "getconf NAME_MAX /nonexist; echo $?; getconf -a x y; echo $?; getconf -v; echo $?",
    "getconf -v POSIX_V7_LP64_OFF64 LONG_BIT; getconf -vPOSIX_V7_LP64_OFF64 LONG_BIT; getconf -- ARG_MAX",
]


@pytest.mark.parametrize("command", GETCONF)
def test_getconf_answers_as_glibc(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_getconf_knows_the_machine() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run(
        "getconf _NPROCESSORS_ONLN; getconf _NPROCESSORS_CONF; nproc; getconf GNU_LIBC_VERSION; getconf OPEN_MAX"
    )
    assert r.stdout == "4\n4\n4\nglibc 2.39\n1048576\n" and not r.unknown_effect
    r = vm.run("getconf LEVEL1_DCACHE_SIZE")  # the host's hardware: not simulated
    assert r.unknown_effect
    r = vm.run("getconf -a")
    lines = r.stdout.splitlines()
    assert r.unknown_effect and r.exit_code == 0  # cache sizes and memory left out: a guess
    assert "ARG_MAX                            2097152" in lines and "LFS_CFLAGS" + " " * 25 in lines
    assert "GNU_LIBC_VERSION                   glibc 2.39" in lines
    assert lines.index("NAME_MAX                           255") < lines.index(
        "ARG_MAX                            2097152"
    )
    assert vm.run("command -v getconf locale").stdout == "/usr/bin/getconf\n/usr/bin/locale\n"


LOCALE = [
    "env -i locale; echo $?",
    "env -i LANG=C.UTF-8 locale",
    "env -i LC_ALL=C.UTF-8 locale; env -i LC_ALL=C.utf8 locale charmap",
    "env -i LANG=en_US.UTF-8 LC_TIME=C locale; echo $?",
    "env -i LANGUAGE=fr LANG= LC_CTYPE=C locale",
    "env -i LC_ALL=xx locale; env -i LC_TIME=xx locale",
    "env -i locale -a; env -i LC_ALL=xx locale -a",
    "env -i locale charmap; env -i LANG=C.UTF-8 locale charmap; env -i LANG=en_US.UTF-8 locale charmap",
    "env -i LANG=C.UTF8 locale charmap; env -i LANG=c.utf8 locale charmap; env -i LANG=POSIX locale charmap",
    "env -i locale -k LC_NUMERIC; env -i LANG=C.UTF-8 locale -k LC_NUMERIC; env -i locale LC_NUMERIC",
    "env -i locale decimal_point; env -i locale -k decimal_point charmap; env -i locale -ck thousands_sep",
    "env -i locale bogus; echo $?; env -i locale -z; echo $?; env -i locale --bogus; echo $?",
    "locale charmap; LC_ALL=C locale charmap",
]


@pytest.mark.parametrize("command", LOCALE)
def test_locale_answers_as_glibc(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_locale_reads_the_machine_s_environment() -> None:
    vm = VirtualMachine(interactive=False)  # LANG=C.UTF-8, as the image's environment sets it
    r = vm.run("locale | head -3; export LC_TIME=POSIX; locale | grep TIME; locale -k LC_TIME")
    assert r.stdout == 'LANG=C.UTF-8\nLANGUAGE=\nLC_CTYPE="C.UTF-8"\nLC_TIME=POSIX\n'
    assert r.unknown_effect  # LC_TIME's keywords are not modelled
