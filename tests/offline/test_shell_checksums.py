"""md5sum / sha*sum / b2sum (hashing, --tag, -z, escaped names, -c with its warnings), cksum, sum,
base64, base32 and basenc, compared with GNU coreutils on the host in the same folder."""

from __future__ import annotations

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.coreutils.checksums import posix_crc
from agentworld_plugins.offline.shell.limits import StepLimits

SAME_AS_GNU = [
    "printf 'hello\\n' > a; printf 'x' > b; sha256sum a b; md5sum a; sha1sum - < a; sha224sum a; sha384sum a; sha512sum a; b2sum a; b2sum -l 128 a",
    "printf 'hello\\n' > a; sha256sum --tag a; md5sum --tag a; b2sum --tag a; b2sum -l 256 --tag a; sha1sum -b a; sha1sum -t a",
    "printf 'hello\\n' > a; printf 'x' > 'we\\ird'; printf 'y' > \"$(printf 'n\\nl')\"; sha256sum 'we\\ird' n*l; sha256sum --tag 'we\\ird'; sha256sum -z a | od -c | head -3",
    "mkdir d; sha256sum d nosuch; echo $?",
    "printf 'hello\\n' > a; printf 'x' > b; sha256sum a b > s; sha256sum -c s; echo $?; printf 'y' > b; sha256sum -c s; echo $?",
    "printf 'hello\\n' > a; sha256sum a > s; echo 'garbage' >> s; sha256sum nosuch >> s 2>/dev/null; echo \"$(sha256sum a | cut -c1-64)  missing\" >> s; sha256sum -c s; echo $?",
    "printf 'hello\\n' > a; sha256sum a > s; echo 'garbage' >> s; echo junk2 >> s; sha256sum -c --strict s; echo $?; sha256sum -c -w s; echo $?",
    "printf 'hello\\n' > a; sha256sum a > s; sha256sum -c --quiet s; echo $?; sha256sum -c --status s; echo $?; echo x > a; sha256sum -c --quiet s; echo $?; sha256sum -c --status s; echo $?",
    "printf 'garbage\\n' > s; sha256sum -c s; echo $?",
    'printf \'hello\\n\' > a; sha256sum a > s; echo "$(sha256sum a | cut -c1-64)  gone" >> s; sha256sum -c --ignore-missing s; echo $?; echo "$(sha256sum a | cut -c1-64)  gone" > s2; sha256sum -c --ignore-missing s2; echo $?',
    "printf 'hello\\n' > a; sha256sum --tag a > s; sha256sum -c s; md5sum --tag a > m; md5sum -c m; sha256sum -c m; echo $?",
    "printf 'hello\\n' > a; sha256sum a | sha256sum -c; echo $?; sha256sum -c nosuch; echo $?",
    "printf 'hello\\n' > a; sha256sum -b a > s; cat s; sha256sum -c s; printf '# comment\\n' >> s; sha256sum -c s",
    "printf 'hello\\n' > a; md5sum a | tr a-f A-F > s; md5sum -c s; echo $?",
    "sha256sum --tag -z a; echo $?; sha256sum -c --tag x; echo $?; sha256sum -x; echo $?",
    "printf 'hello\\n' > a; printf 'x' > b; cksum a b; cksum < a; sum a; sum -s a; sum -r b; cksum -a md5 a; cksum -a sha256 --untagged a; cksum -a crc a; cksum -a sysv a; cksum -a bsd a; cksum -a blake2b -l 64 a",
    "printf 'hello\\n' > a; cksum -a sha256 a > s; cksum -a sha256 -c s; cksum -c s; echo $?; cksum -a sha256 --base64 a; cksum -a nope a; echo $?",
    "printf 'hello' | base32; printf 'hello' | base32 | base32 -d; echo; printf 'hi' | basenc --base16; printf 'hi' | basenc --base64url; printf 'hi?>' | basenc --base64url; printf 'hi' | basenc --base2msbf; printf 'hi' | basenc --base2lsbf; printf 'hi' | basenc --base32hex; printf 'abcd' | basenc --z85; echo ZZZ | base32 -d; echo $?",
    "printf 'hello' | base64 -w 4; printf 'aGVsbG8=\\n' | base64 -d; echo; printf 'aGV!sbG8=' | base64 -d; echo $?; printf 'aGV!sbG8=' | base64 -di; echo; basenc; echo $?; seq 100 | base32 -w 0 | wc -c",
    "printf 'a' > a; b2sum -l 7 a; echo $?; b2sum -l 1024 a; echo $?; b2sum -l x a; echo $?; b2sum -l 0 a",
    "printf 'hello' | base64 -w abc; echo $?; printf 'hello' | base64 -w 0; echo; printf hi | basenc --z85; echo $?; basenc --base64 a b; echo $?",
    "printf 'aGk' | base64 -d; echo \" $?\"; printf '6869' | basenc --base16 -d; echo; printf '686' | basenc --base16 -d; echo \" $?\"; printf 'aGk=\\naGk=\\n' | base64 -d; echo \" $?\"",
    "printf 'x' > 'we\\ird'; sha256sum 'we\\ird' > s; cat s; sha256sum -c s; sha256sum --tag 'we\\ird' > t; sha256sum -c t",
    "printf 'hello\\n' > a; sha256sum a | sed 's/$/\\r/' > s; sha256sum -c s; echo $?",
    "printf 'hello\\n' > a; sha256sum a > s; cksum -c s; echo $?",
    "printf 'hello\\n' > a; b2sum -l 128 a > s; b2sum -c s; b2sum a > s2; b2sum -c s2; b2sum --tag -l 128 a > s3; b2sum -c s3",
    "printf 'hello\\n' > a; sha256sum a > s; sha256sum a >> s; sha256sum -c s s; echo $?",
    "printf 'hello\\n' > a; echo \"0000000000000000000000000000000000000000000000000000000000000000  a\" > s; sha256sum -c s; sha256sum -c --status s; echo $?; sha256sum -c --quiet s; echo $?",
    "sha256sum -c; echo $?",
    "printf 'x' | sha256sum -z | od -An -c; printf 'x' | sha256sum --zero --tag | od -An -c | head -2",
    'mkdir d; echo "0000000000000000000000000000000000000000000000000000000000000000  d" > s; sha256sum -c s; echo $?',
    "printf 'hello\\n' | md5sum --tag; printf 'hello\\n' | cksum -a sha1; printf 'hello\\n' | cksum -a crc --untagged",
    "printf '' > e; sum e; sum -s e; cksum e; seq 1000 > big; sum big; sum -s big; cksum big",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_checksums_and_encodings_answer_as_gnu(command: str) -> None:
    ours, host = both(command)
    assert ours == host


def test_sha256sum_c_is_simulated_not_flagged() -> None:
    vm = VirtualMachine(interactive=False)
    result = vm.run("echo hi > f; sha256sum f > f.sha256; sha256sum -c f.sha256")
    assert (result.stdout, result.exit_code, result.unknown_effect) == ("f: OK\n", 0, False)


def test_the_posix_crc_of_known_inputs() -> None:
    assert posix_crc(b"") == 4294967295
    assert posix_crc(b"123456789") == 930766865  # POSIX cksum's check value


def test_a_huge_input_ends_with_the_budget_error() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2, memory_mb=256)
    result = vm.run("seq 3000000 | cksum")
    assert result.stdout == ""
    assert result.exit_code == 152 and "CPU time limit exceeded" in result.stderr
