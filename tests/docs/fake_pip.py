"""``pip`` for doc blocks: installs never touch the environment the tests run in.

``pip install -e DIR`` of a local project puts its packages (symlinks) and a ``.dist-info`` with its
entry points into ``$_DOCS_SITE`` (on the blocks' ``PYTHONPATH``), so plugins are found as if
installed. Installing this repository (``-e .``, ``-e ".[extra]"``) checks the extras exist: the
checkout is already installed. Anything else (a package from an index) fails: the docs install
from the checkout.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib


def fail(message: str) -> None:
    print(f"docs-test pip: {message}", file=sys.stderr)
    sys.exit(1)


def install(spec: str) -> None:
    m = re.fullmatch(r"(?P<path>[^\[\]]+?)(?:\[(?P<extras>[^\]]*)\])?", spec.strip("\"'"))
    if not m:
        fail(f"cannot read {spec!r}")
    path = Path(m.group("path"))
    extras = [e.strip() for e in (m.group("extras") or "").split(",") if e.strip()]
    if not (path / "pyproject.toml").is_file() and path.resolve() == Path.cwd().resolve():
        path = Path(os.environ["_DOCS_REPO"])  # `-e .` from the docs means the checkout
    if not (path / "pyproject.toml").is_file():
        fail(f"{spec!r} is not a local project; the docs install from the checkout (pip install -e PATH)")
    project = tomllib.loads((path / "pyproject.toml").read_text())
    name = project["project"]["name"]
    missing = sorted(set(extras) - set(project["project"].get("optional-dependencies", {})))
    if missing:
        fail(f"{name} has no extra(s) {missing}")
    if path.resolve() == Path(os.environ["_DOCS_REPO"]).resolve():
        print(f"docs-test pip: {name}{extras or ''} is installed from the checkout already")
        return
    site = Path(os.environ["_DOCS_SITE"])
    site.mkdir(parents=True, exist_ok=True)
    packages = project.get("tool", {}).get("setuptools", {}).get("packages") or [
        p.name for p in path.iterdir() if (p / "__init__.py").is_file()
    ]
    for package in packages:
        top = package.split(".")[0]
        link = site / top
        if not link.exists():
            link.symlink_to((path / top).resolve())
    dist = site / f"{name.replace('-', '_')}-{project['project'].get('version', '0')}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n")
    lines = []
    for group, entries in project["project"].get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines += [f"{k} = {v}" for k, v in entries.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    print(f"docs-test pip: {name} linked into {site}")


def main(argv: list[str]) -> None:
    if not argv or argv[0] != "install":
        fail(f"only 'pip install' is supported in doc blocks, not {' '.join(argv)!r}")
    args = argv[1:]
    editable = [args[i + 1] for i, a in enumerate(args) if a == "-e" and i + 1 < len(args)]
    plain = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-e")]
    if plain:
        fail(
            f"{plain} would come from a package index; the docs install from the checkout (pip install -e PATH)"
        )
    for spec in editable:
        install(spec)


if __name__ == "__main__":
    main(sys.argv[1:])
