"""The WASI python3's bounds: fuel is the step's work budget, memory its memory budget, files and
network never the host's; pure-Python packages in the virtual filesystem import; pip offline."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.interpreters.wasi_python import runtime
from agentworld_plugins.offline.shell.limits import StepLimits


def machine(seconds: float = 30, memory_mb: int = 256) -> VirtualMachine:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=seconds, memory_mb=memory_mb)
    return vm


def test_a_busy_loop_ends_with_the_budget_error_at_the_same_point_every_time() -> None:
    results = []
    for _ in range(2):
        vm = machine(seconds=0.5)
        r = vm.run("python3 -c 'while True: pass'; echo never")
        results.append((r.stdout, r.stderr, r.exit_code))
        assert vm.run("echo still usable").stdout == "still usable\n"
    assert results[0] == results[1]
    assert results[0] == (
        "",
        "bash: CPU time limit exceeded (the offline step budget is 0.5 s of work)\n",
        152,
    )


def test_fuel_is_work_a_timeout_counts_it_in_virtual_time() -> None:
    vm = machine(seconds=30)
    r = vm.run("timeout 0.2 python3 -c 'while True: pass'; echo $?")
    assert (r.stdout, r.exit_code) == ("124\n", 0)
    slept = vm.run("timeout 1 python3 -c 'import time; time.sleep(500)'; echo $?")
    assert slept.stdout == "124\n"  # a virtual sleep: the deadline fires inside it, at once
    clock = vm.run(
        "python3 -c 'import time; a = time.monotonic(); time.sleep(2.5); print(round(time.monotonic() - a, 1))'"
    )
    assert clock.stdout == "2.5\n"


def test_memory_bombs_are_python_errors_inside_the_guest() -> None:
    vm = machine(memory_mb=128)
    big = vm.run("python3 -c \"x = 'x' * 10**9\"")
    assert big.exit_code == 1 and big.stderr.endswith("\nMemoryError\n")
    grow = vm.run("python3 -c \"x = []\nwhile True: x.append(' ' * 10**6)\"")
    assert grow.exit_code == 1 and grow.stderr.endswith("\nMemoryError\n")
    # 10**10 does not fit a 32-bit index: CPython on wasm32 says so before it tries to allocate
    huge = vm.run("python3 -c \"x = 'x' * 10**10\"")
    assert huge.exit_code == 1 and "OverflowError" in huge.stderr
    assert vm.run("python3 -c 'print(1)'").stdout == "1\n"


def test_output_and_files_written_count_against_the_step(tmp_path: Path) -> None:
    vm = machine(seconds=2, memory_mb=64)
    r = vm.run("python3 -c \"f = open('big', 'w')\ns = 'x' * 10**7\nwhile True: f.write(s)\"")
    assert r.exit_code in (2, 152) and "budget" in r.stderr
    assert vm.fs.stat("/app/big").size <= 64 * 1024 * 1024


def test_no_host_side_effects() -> None:
    name = f"/tmp/agentworld-wasi-{uuid.uuid4().hex}"
    vm = machine()
    script = (
        f"open({name!r}, 'w').write('virtual'); print(open('/etc/hostname').read().strip()); "
        "import os; print(sorted(os.listdir('/'))[:3])"
    )
    r = vm.run(f'python3 -c "{script}"')
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "agentworld"  # the virtual /etc/hostname, not the host's
    assert not os.path.exists(name)
    assert vm.fs.read_text(name) == "virtual"
    net = vm.run("python3 -c \"import socket; socket.create_connection(('example.com', 80))\"")
    assert net.exit_code == 1 and "Traceback" in net.stderr
    proc = vm.run(
        "python3 -c \"import subprocess; print(subprocess.run(['cat', '/etc/hostname'], capture_output=True).stdout)\""
    )
    assert proc.stdout == "b'agentworld\\n'\n", proc.stderr  # a command of the virtual shell, not the host


def test_pure_python_packages_in_the_virtual_fs_import_and_run_with_dash_m() -> None:
    vm = machine()
    site = "/usr/lib/python3/dist-packages"
    vm.fs.mkdir(f"{site}/minitest", parents=True)
    vm.fs.write(
        f"{site}/minitest/__init__.py", "def check(fn):\n    fn()\n    return 'passed ' + fn.__name__\n"
    )
    vm.fs.write(
        f"{site}/minitest/__main__.py",
        "import importlib, sys\nfrom minitest import check\nmod = importlib.import_module(sys.argv[1])\n"
        "for name in sorted(dir(mod)):\n    if name.startswith('test_'):\n        print(check(getattr(mod, name)))\n",
    )
    vm.fs.write("/app/test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    vm.fs.write("/app/calc.py", "def add(a, b):\n    return a + b\n")
    r = vm.run("python3 -m minitest test_calc; ls __pycache__")
    assert r.stdout == "passed test_add\ncalc.cpython-312.pyc\ntest_calc.cpython-312.pyc\n", r.stderr


def test_real_pytest_runs_from_the_virtual_fs() -> None:
    import _pytest
    import iniconfig
    import packaging
    import pluggy
    import pygments
    import pytest as pytest_pkg

    vm = machine(seconds=120)
    site = "/usr/lib/python3/dist-packages"
    for mod in (pytest_pkg, _pytest, pluggy, iniconfig, packaging, pygments):
        folder = Path(mod.__file__).parent
        vm.fs.add_folder(folder, f"{site}/{folder.name}", exclude=("__pycache__",))
    shim = Path(pytest_pkg.__file__).parent.parent / "py.py"  # pytest's stand-in for the old py lib
    if shim.exists():
        vm.fs.write(f"{site}/py.py", shim.read_text())
    vm.fs.write(
        "/app/test_it.py", "def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert [1] == [2]\n"
    )
    r = vm.run("python3 -m pytest -q -p no:cacheprovider test_it.py")
    assert r.exit_code == 1, r.stderr
    assert "1 failed, 1 passed" in r.stdout and "assert [1] == [2]" in r.stdout


def test_pip_answers_like_pip_without_network() -> None:
    vm = machine()
    r = vm.run("pip install requests")
    lines = r.stderr.splitlines()
    assert r.exit_code == 1 and len(lines) == 7
    assert lines[0].startswith("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None")
    assert lines[0].endswith("[Errno -3] Temporary failure in name resolution')': /simple/requests/")
    assert lines[-2:] == [
        "ERROR: Could not find a version that satisfies the requirement requests (from versions: none)",
        "ERROR: No matching distribution found for requests",
    ]
    assert vm.run("python3 -m pip install requests").stderr == r.stderr
    assert (
        vm.run("pip --version").stdout == "pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.12)\n"
    )
    vm.fs.mkdir("/usr/lib/python3/dist-packages/six-1.16.0.dist-info", parents=True)
    assert "six        1.16.0" in vm.run("pip list").stdout.replace("six     ", "six        ")
    assert vm.run("pip install six").stdout == (
        "Requirement already satisfied: six in /usr/lib/python3/dist-packages (1.16.0)\n"
    )
    assert vm.run("pip show nope").stderr == "WARNING: Package(s) not found: nope\n"


def test_the_compiled_module_is_cached_by_hash_and_wasmtime_version() -> None:
    runtime.load()
    cached = list(runtime.cache_dir().glob(f"python-{runtime.WASM_SHA256[:16]}-wasmtime-*.cwasm"))
    assert cached and cached[0].stat().st_size > 1_000_000


def test_a_binary_that_is_not_the_pinned_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fake = tmp_path / "python-3.12.0.wasm"
    fake.write_bytes(b"\x00asm not the release")
    with pytest.raises(runtime.RuntimeUnavailable, match=hashlib.sha256(fake.read_bytes()).hexdigest()):
        runtime._verified(fake)
    assert hashlib.sha256(runtime.wasm_path().read_bytes()).hexdigest() == runtime.WASM_SHA256


def test_without_the_extra_python3_exits_126_with_the_install_hint() -> None:
    code = (
        "import sys; sys.modules['wasmtime'] = None\n"
        "from agentworld_plugins.offline.shell import VirtualMachine\n"
        "r = VirtualMachine(interactive=False).run(\"python3 -c 'print(1)'\")\n"
        "print(r.exit_code); print(r.stderr, end='')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert lines[0] == "126"
    assert "cannot run in the offline world" in lines[1]
    assert (
        lines[2]
        == 'python3: a sandboxed CPython runs here once installed: pip install -e ".[python]" (from the checkout)'
    )


def test_the_guest_sees_the_boxs_kernel_host_name_and_working_directory() -> None:
    vm = machine()
    vm.run("mkdir -p /srv/work && cd /srv/work")
    r = vm.run(
        'python3 -c "import os, platform; print(platform.system(), platform.node(), os.getcwd())"; uname -s -n'
    )
    assert r.stdout == "Linux agentworld /srv/work\nLinux agentworld\n"
    dup = vm.run(
        "python3 -c \"import os, sys; f = open('cap.txt', 'w+'); keep = os.dup(1); os.dup2(f.fileno(), 1); "
        "print('caught'); sys.stdout.flush(); os.dup2(keep, 1); f.seek(0); print('file has', f.read().strip())\""
    )
    assert dup.stdout == "file has caught\n", dup.stderr


def test_the_wall_clock_safety_limit_stops_a_guest_and_says_it_is_not_deterministic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentworld_plugins.offline.shell import limits

    vm = machine(seconds=60)  # fuel for 60 virtual s: the epoch tick (1 s of wall time) comes first
    monkeypatch.setattr(limits, "wall_seconds", lambda _limits: -1.0)  # a safety limit already passed
    r = vm.run("python3 -c 'while True: pass'")
    assert r.exit_code == 152 and "wall-clock safety limit" in r.stderr and "not deterministic" in r.stderr
    assert r.unknown_effect


def test_venv_layout_activation_and_its_site_packages() -> None:
    vm = machine()
    made = vm.run("python3 -m venv .venv && ls .venv/bin && cat .venv/pyvenv.cfg")
    assert made.stdout.startswith(
        "activate\npip\npip3\npip3.12\npython\npython3\npython3.12\nhome = /usr/bin\n"
    )
    vm.fs.mkdir("/app/.venv/lib/python3.12/site-packages/vpkg", parents=True)
    vm.fs.write("/app/.venv/lib/python3.12/site-packages/vpkg/__init__.py", "V = 'from the venv'\n")
    inside = vm.run(
        ". .venv/bin/activate && which python && python -c 'import vpkg, sys; print(vpkg.V, sys.prefix)'"
    )
    assert inside.stdout == "/app/.venv/bin/python\nfrom the venv /app/.venv\n", inside.stderr
    outside = vm.run("deactivate; python3 -c 'import vpkg'")
    assert outside.exit_code == 1 and "No module named 'vpkg'" in outside.stderr


def test_subprocess_and_os_system_run_in_the_virtual_shell() -> None:
    vm = machine()
    script = (
        "import os, subprocess\n"
        "r = subprocess.run(['python3', '-c', 'print(6 * 7)'], capture_output=True, text=True)\n"
        "print(repr(r.stdout), r.returncode)\n"
        "print(subprocess.check_output('echo made > made.txt; cat made.txt | tr a-z A-Z', shell=True))\n"
        "print(subprocess.run(['cat'], input=b'fed', stdout=subprocess.PIPE).stdout)\n"
        "print(os.system('exit 3') >> 8)\n"
        "try:\n    subprocess.run(['false'], check=True)\nexcept subprocess.CalledProcessError as e:\n"
        "    print('failed', e.returncode)\n"
    )
    vm.fs.write("/app/calls.py", script)
    r = vm.run("python3 calls.py && cat made.txt")
    assert r.stdout == "'42\\n' 0\nb'MADE\\n'\nb'fed'\n3\nfailed 1\nmade\n", r.stderr
