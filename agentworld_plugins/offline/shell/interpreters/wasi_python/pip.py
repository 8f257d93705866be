"""pip and pip3 (and ``python3 -m pip``): pip 24.0 on a machine without network access.

``pip install NAME`` prints what pip prints when it cannot reach the index: five retry warnings
and "No matching distribution found" (text taken from pip run in a network namespace without a
route), exit 1. What is already in the virtual filesystem counts as installed: a
``NAME-VERSION.dist-info`` folder in one of the Debian site folders or the user site gives
``Requirement already satisfied``, ``pip list`` / ``pip freeze`` / ``pip show``.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...constants import _VERSIONS
from ...registry import applet
from .guest import DIST_PACKAGES

if TYPE_CHECKING:
    from ...proc import _Proc

PIP_VERSION = "24.0"
_RETRY = (
    "WARNING: Retrying (Retry(total={left}, connect=None, read=None, redirect=None, status=None)) after "
    "connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at "
    "0x{addr:x}>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')'"
    ": /simple/{project}/\n"
)
_USAGE = """
Usage:   
  pip <command> [options]

Commands:
  install                     Install packages.
  download                    Download packages.
  uninstall                   Uninstall packages.
  freeze                      Output installed packages in requirements format.
  list                        List installed packages.
  show                        Show information about installed packages.
  help                        Show help for commands.
"""  # noqa: W291 (pip prints "Usage:" followed by three spaces)
#: options of ``pip install`` that take the next word as their value
_VALUED = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
           "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--python-version",
           "--platform", "--implementation", "--abi", "--cache-dir", "--log", "--timeout"}  # fmt: skip


def _project(requirement: str) -> str:
    """The normalized project name of a requirement (PEP 503: what /simple/ is indexed by)."""
    name = re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(p: _Proc) -> dict[str, tuple[str, str, str]]:
    """Distributions found in the virtual site folders: project -> (name, version, folder)."""
    folders = [
        *DIST_PACKAGES,
        posixpath.join(p.vm.vars.get("HOME", "/root"), ".local/lib/python3.12/site-packages"),
    ]
    found: dict[str, tuple[str, str, str]] = {}
    for folder in folders:
        try:
            names = p.fs.listdir(folder)
        except FsError:
            continue
        for entry in names:
            m = re.fullmatch(r"(.+?)-([^-]+)\.(dist|egg)-info", entry)
            if m:
                found.setdefault(_project(m.group(1)), (m.group(1), m.group(2), folder))
    found.setdefault("pip", ("pip", PIP_VERSION, "/usr/lib/python3/dist-packages"))
    return found


def _install(p: _Proc, args: list[str], download: bool = False) -> int:
    requirements: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-r", "--requirement") and i + 1 < len(args):
            try:
                text = p.fs.read_text(p.path(args[i + 1]))
            except FsError as exc:
                p.ctx.err.write(f"ERROR: Could not open requirements file: [Errno 2] {exc.strerror}: "
                                f"'{args[i + 1]}'\n")  # fmt: skip
                return 1
            requirements += [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
            i += 2
            continue
        if a in ("-e", "--editable") and i + 1 < len(args):
            requirements.append(args[i + 1])
            i += 2
            continue
        if a in _VALUED:
            i += 2
            continue
        if not a.startswith("-"):
            requirements.append(a)
        i += 1
    requirements = [r for r in requirements if r and not r.startswith("-")]
    if not requirements:
        p.ctx.err.write('ERROR: You must give at least one requirement to install (see "pip help install")\n')
        return 1
    have = installed(p)
    for req in requirements:
        if req.startswith((".", "/")) or "://" in req:
            return _local(p, req)
        project = _project(req)
        if project in have and not download and re.fullmatch(r"[A-Za-z0-9._-]+", req.strip()):
            _name, version, folder = have[project]
            p.out(f"Requirement already satisfied: {req} in {folder} ({version})\n")
            continue
        for left in range(4, -1, -1):
            addr = 0x7F4832F8EB50 + 0xAC0 * (4 - left) + (sum(map(ord, project)) & 0xFF) * 0x10
            p.ctx.err.write(_RETRY.format(left=left, addr=addr, project=project))
        p.ctx.err.write(f"ERROR: Could not find a version that satisfies the requirement {req} (from versions: none)\n"
                        f"ERROR: No matching distribution found for {req}\n")  # fmt: skip
        return 1
    return 0


def _local(p: _Proc, req: str) -> int:
    """A local project: its build dependencies (setuptools) cannot be fetched either."""
    path = p.path(req)
    if not p.fs.exists(path):
        p.ctx.err.write(f"ERROR: Invalid requirement: '{req}'\n"
                        f"Hint: It looks like a path. File '{req}' does not exist.\n")  # fmt: skip
        return 1
    p.out(f"Processing {path}\n  Installing build dependencies ... error\n")
    p.ctx.err.write(  # pip draws its error box with a multiplication sign (U+00D7)
        "  error: subprocess-exited-with-error\n  \n"
        "  \u00d7 pip subprocess to install build dependencies did not run successfully.\n"
        "  │ exit code: 1\n  ╰─> See above for output.\n  \n"
        "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
        "error: subprocess-exited-with-error\n\n"
        "\u00d7 pip subprocess to install build dependencies did not run successfully.\n"
        "│ exit code: 1\n╰─> See above for output.\n\n"
        "note: This error originates from a subprocess, and is likely not a problem with pip.\n"
    )
    return 1


def run_pip(p: _Proc, args: list[str]) -> int:
    """pip's answer to ``args`` (its command line after ``pip``)."""
    args = [a for a in args if a not in ("-q", "--quiet", "-v", "--verbose", "--no-cache-dir",
                                         "--disable-pip-version-check", "--no-input")]  # fmt: skip
    if not args or args[0] in ("-h", "--help", "help"):
        p.out(_USAGE)
        return 0
    if args[0] in ("-V", "--version"):
        p.out(_VERSIONS["pip"] + "\n")
        return 0
    command, rest = args[0], args[1:]
    have = installed(p)
    if command in ("install", "download"):
        return _install(p, rest, download=command == "download")
    if command == "list":
        rows = sorted(((n, v) for n, v, _ in have.values()), key=lambda r: r[0].lower())
        width = max(7, *(len(n) for n, _ in rows))
        vwidth = max(7, *(len(v) for _, v in rows))
        p.out(f"{'Package':<{width}} {'Version':<{vwidth}}\n{'-' * width} {'-' * vwidth}\n")
        p.out("".join(f"{n:<{width}} {v}\n" for n, v in rows))
        return 0
    if command == "freeze":
        p.out("".join(f"{n}=={v}\n" for n, v, _ in sorted(have.values()) if n != "pip"))
        return 0
    if command == "show":
        missing = [r for r in rest if not r.startswith("-") and _project(r) not in have]
        shown = [have[_project(r)] for r in rest if not r.startswith("-") and _project(r) in have]
        p.out(
            "---\n".join(
                f"Name: {n}\nVersion: {v}\nLocation: {f}\nRequires: \nRequired-by: \n" for n, v, f in shown
            )
        )
        if missing:
            p.ctx.err.write(f"WARNING: Package(s) not found: {', '.join(missing)}\n")
            return 1
        return 0
    if command == "uninstall":
        for r in rest:
            if not r.startswith("-"):
                p.ctx.err.write(f"WARNING: Skipping {r} as it is not installed.\n")
        return 0
    p.ctx.err.write(f'ERROR: unknown command "{command}"\n')
    return 1


@applet("pip", "pip3", "pip3.12")
def _u_pip(p: _Proc) -> int:
    return run_pip(p, list(p.args))
