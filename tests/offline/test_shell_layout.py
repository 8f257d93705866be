"""The offline shell package: applets register by decorator, and its parts import one way only."""

from __future__ import annotations

import ast
from pathlib import Path

import agentworld_plugins.offline.shell as shell
from agentworld_plugins.offline.shell import BUILTINS, PROGRAMS, VirtualMachine
from agentworld_plugins.offline.shell.registry import applet, builtin

PACKAGE = Path(shell.__file__).parent
APPLET_FOLDERS = {
    "archivers",
    "builtins",
    "coreutils",
    "findutils",
    "editors",
    "procps",
    "debianutils",
    "dumpers",
    "interpreters",
    "libcbin",
    "vcs",
}


def test_importing_the_package_registers_every_applet_folder() -> None:
    folders = {fn.__module__.split(".")[3] for fn in [*BUILTINS.values(), *PROGRAMS.values()]}
    assert folders == APPLET_FOLDERS
    for name in (
        "ls",
        "grep",
        "find",
        "sed",
        "diff",
        "xargs",
        "ps",
        "which",
        "python3",
        "md5sum",
        "df",
        "awk",
        "fold",
        "column",
    ):
        assert name in PROGRAMS, name
    for name in ("cd", "export", "test", "[[", "read", "break", "kill", "echo"):
        assert name in BUILTINS, name


def test_a_decorated_function_runs_as_a_program_and_as_a_builtin() -> None:
    def hello(p) -> int:
        p.out(f"hello {' '.join(p.args)}\n")
        return 3

    try:
        assert applet("hello-prog")(hello) is hello
        builtin("hello-builtin")(hello)
        vm = VirtualMachine()
        missing = vm.run("hello-prog a b")
        assert missing.exit_code == 127  # a program must also be on PATH to be found
        # /usr/bin holds stub executables naming the program they stand for
        vm.fs.write("/usr/bin/hello-prog", vm.fs.read("/usr/bin/true").replace(b"true", b"hello-prog"))
        vm.fs.chmod("/usr/bin/hello-prog", 0o755)
        ran = vm.run("hello-prog a b; echo $?; hello-builtin c")
        assert ran.stdout == "hello a b\n3\nhello c\n"
        assert not ran.unknown_effect
    finally:
        PROGRAMS.pop("hello-prog", None)
        BUILTINS.pop("hello-builtin", None)


def _applet_imports(path: Path) -> set[str]:
    """What ``path`` imports from the applet folders (or, for an applet module, from its own folder)."""
    in_folder = path.parent != PACKAGE
    # a program split into a package of its own (vcs/git/) imports its own modules
    own_package = path.parent.parent != PACKAGE and path.parent != PACKAGE
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        first = (node.module or "").split(".")[0]
        # a core module's ``.coreutils``, or an applet module's ``.sibling`` / ``..coreutils``
        core_level = 2 if in_folder else 1
        if (in_folder and node.level == 1 and not own_package) or (
            node.level == core_level and first in APPLET_FOLDERS
        ):
            found.add("." * node.level + (node.module or ""))
    return found


def test_core_modules_do_not_import_applets_and_applets_not_each_other() -> None:
    checked = 0
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py":
            continue
        checked += 1
        imported = _applet_imports(path)
        assert not imported, f"{path.relative_to(PACKAGE)} imports applet modules {imported}"
    assert checked > 40
