"""GNU sort compared with the host's (coreutils 9.1, as Ubuntu 24.04's 9.4 answers these): keys
with their own options and inherited ones, the orders (-n -g -h -M -V -d -i -f -b -r), the
last-resort comparison, -u, -s, -c/-C, -m, -o, -z, byte offsets, and GNU's messages; then
random lines under random options."""

from __future__ import annotations

import random
import shlex
import subprocess
import tempfile
from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

SAME_AS_SORT = [
    "printf 'b\\na\\nc\\n' | sort; printf 'b\\na\\n' | sort -r",
    "printf '10\\n9\\n100\\n-5\\n0\\n-0\\n3.5\\n.5\\n' | sort -n; printf '10\\n9\\n100\\n' | sort -rn",
    "printf 'x 3\\ny 1\\nz 2\\n' | sort -k2 -n; printf 'x 3\\ny 1\\nz 2\\n' | sort -k2,2nr",
    "printf 'b,2\\na,1\\nc,3\\na,0\\n' | sort -t, -k1,1 -k2,2n",
    "printf 'root:x:0:0\\nbin:x:2:2\\ndaemon:x:1:1\\n' | sort -t: -k3,3n",
    "printf '1.5K\\n200\\n3M\\n1G\\n0K\\n-2M\\n' | sort -h",
    "printf 'v1.10\\nv1.2\\nv1.2a\\nv1.2~rc1\\nfoo.tar.gz\\nfoo-1.0.tar.gz\\n.hidden\\n..\\n.\\n' | sort -V",
    "printf 'Feb\\njan\\nDEC\\nxyz\\n mar\\n' | sort -M",
    "printf 'B\\na\\nA\\nb\\n' | sort; printf 'B\\na\\nA\\nb\\n' | sort -f; printf 'B\\na\\nA\\nb\\n' | sort -fu",
    "printf 'a\\na\\nb\\nA\\n' | sort -u; printf 'x 1\\nx 2\\ny 1\\n' | sort -u -k1,1",
    "printf '  b\\na\\n c\\n' | sort; printf '  b\\na\\n c\\n' | sort -b; printf 'x  b\\nx a\\n' | sort -k2; printf 'x  b\\nx a\\n' | sort -k2b",
    "printf 'a-b\\nab\\na_c\\n' | sort -d; printf 'a\\tb\\nab\\n' | sort -i",
    "printf '1e3\\n100\\nabc\\nnan\\n-inf\\n0x10\\n' | sort -g",
    "printf 'b\\na\\n' | sort -c; echo $?; printf 'a\\nb\\n' | sort -c; echo $?; printf 'a\\na\\n' | sort -cu; echo $?; printf 'b\\na\\n' | sort -C; echo $?",
    "printf 'b\\na\\n' > x; sort -c x; echo $?; sort --check=quiet x; echo $?; sort -c x x; echo $?",
    "printf 'a\\nc\\n' > 1; printf 'b\\nd\\n' > 2; sort -m 1 2; sort 1 2 -o out; cat out",
    "printf 'b\\0a\\0' | sort -z | od -c | head -2",
    "printf 'b 1\\na 1\\n' | sort -k2,2 -s; printf 'b 1\\na 1\\n' | sort -k2,2",
    'for a in "-k 0" "-k a" "-k 1.0" "-k 1x" "-k 1,a" "-k 2,0" "-t ab" "-gn" "-nM" "-rgnb" "-dn" "-R -n" "-o a -o b" "-S 1x"; do sort $a </dev/null; echo "$?"; done 2>&1',
    "sort -t '' /dev/null; echo $?; sort --sort=foo /dev/null; echo $?; sort --sort=numeric <<< $'10\\n9'",
    "printf 'a b c\\nd e f\\n' | sort -k2.2; printf 'ab cd\\nab ce\\n' | sort -k1.2,1.2 -k2.2r",
    "printf 'x\\ty\\nx\\tz\\n' | sort -t $'\\t' -k2r; printf 'a:b\\na:a\\n' | sort -t: -k2 -r",
    "sort nofile; echo $?; sort -o /nonexistent/x /dev/null; echo $?",
    "printf '3\\n1\\n2\\n' | sort -n -r -k1,1; printf '%s\\n' 10 2 1 | sort -k1n,1",
    "printf 'c 2\\nb 10\\na 2\\n' | sort -k2n -k1r",
    "printf '1,000\\n999\\n' | sort -n; printf '+5\\n3\\n' | sort -n",
    "printf 'é\\ne\\nf\\nE\\n' | sort; printf 'é\\ne\\n' | sort -f",
]

#: pieces of lines that each order reads differently
_WORDS = ["a", "B", "b", "10", "9", "-3", "1.5", "1e3", "2K", "1M", "jan", "Feb", " x", "v1.2", "v1.10",
          "a~b", "", "0", "-0", "ab-c", "AB", "é", "z9", "1,5", "\t t"]  # fmt: skip
_OPTIONS = ["-n", "-r", "-f", "-b", "-u", "-s", "-d", "-g", "-h", "-M", "-V", "-i", "-k2", "-k2,2", "-k1,1",
            "-k2n", "-k1.2", "-k2,2r", "-k3b", "-t,", "-k1,1f", "-k2.2,2.3", "-k2V"]  # fmt: skip


@pytest.mark.parametrize("command", SAME_AS_SORT)
def test_sort_answers_as_gnu_sort(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_random_lines_under_random_options_sort_as_gnu_sorts_them(
    real_bash_err: Callable[[str], tuple[str, str, int]],
) -> None:
    rng = random.Random(7)
    differ = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(300):
            lines = [
                rng.choice([" ", ",", "  ", "\t"]).join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(0, 8))
            ]
            text = "".join(line + "\n" for line in lines)
            command = " ".join(
                ["sort", *(shlex.quote(o) for o in rng.sample(_OPTIONS, rng.randint(0, 3))), "in"]
            )
            host = subprocess.run(
                ["bash", "-c", f"cat > in && {command}"], input=text, capture_output=True, text=True,
                cwd=folder, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, timeout=60,
            )  # fmt: skip
            vm = VirtualMachine(
                cwd=folder, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, interactive=False
            )
            vm.fs.write(f"{folder}/in", text)
            r = vm.run(command)
            if (r.stdout, r.stderr, r.exit_code) != (host.stdout, host.stderr, host.returncode):
                differ.append((command, lines))
    assert differ == []
