"""The architecture's contracts (docs/architecture.md): layers import downward only (import-linter,
``.importlinter``), no import cycles beyond ``TYPE_CHECKING`` ones, and no source file over 800
lines.

The linter reads the package from a copy laid out as installed: in an editable install
``adapters/`` and ``prompts/`` are mapped into the package by ``package_dir``, where static import
analysis cannot see them.
"""

from __future__ import annotations

import configparser
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import importlinter  # noqa: F401  (the dev extra installs it; a missing linter fails, never skips)
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"
#: the contract on adapters/, which only an installed layout shows the linter
ADAPTERS_CONFIG = ROOT / ".importlinter-adapters"
MAX_LINES = 800


def package_view(where: Path) -> Path:
    """A copy of the package as an installed wheel lays it out, under ``where``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    package = where / "agentworld_plugins"
    shutil.copytree(ROOT / "agentworld_plugins", package, ignore=ignore)
    shutil.copytree(ROOT / "adapters", package / "adapters", ignore=ignore)
    shutil.copytree(ROOT / "prompts", package / "prompts", ignore=ignore)
    return where


def run_in_view(view: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter that imports the package from ``view``, not the install."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=view,
        env={
            "PYTHONPATH": str(view),
            "PATH": "/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE": "1",
            "COLUMNS": "200",
        },
        capture_output=True,
        text=True,
        timeout=300,
    )


def lint(view: Path) -> subprocess.CompletedProcess[str]:
    return run_in_view(
        view,
        f"""
        import sys
        from importlinter.cli import lint_imports
        codes = [
            lint_imports(config_filename=config, no_cache=True, no_logo=True)
            for config in {[str(CONFIG), str(ADAPTERS_CONFIG)]!r}
        ]
        sys.exit(max(codes))
        """,
    )


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return package_view(tmp_path_factory.mktemp("installed"))


def test_import_contracts_are_kept(view: Path) -> None:
    result = lint(view)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("layer", "line"),
    [
        ("domains", "from ..offline.vfs import VirtualFS"),  # a domain importing an offline world
        ("adapters", "from agentworld_plugins.offline.vfs import VirtualFS"),  # a front reaching in
    ],
    ids=["domain", "adapter"],
)
def test_the_contracts_catch_an_import_of_an_offline_world(tmp_path: Path, layer: str, line: str) -> None:
    view = package_view(tmp_path)
    (view / "agentworld_plugins" / layer / "leaky.py").write_text(line + "\n", encoding="utf-8")
    result = lint(view)
    assert result.returncode != 0
    assert f"agentworld_plugins.{layer}.leaky -> agentworld_plugins.offline.vfs" in result.stdout


def test_every_top_level_module_has_a_layer() -> None:
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    layers = parser["importlinter:contract:layers"]["layers"]
    layered = set(layers.replace(":", " ").replace("(", " ").replace(")", " ").split())  # (optional)
    package = ROOT / "agentworld_plugins"
    found = {
        f"agentworld_plugins.{p.stem if p.suffix == '.py' else p.name}"
        for p in package.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }
    found |= {"agentworld_plugins.adapters", "agentworld_plugins.prompts"}
    assert found - layered == set(), "add these modules to a layer in .importlinter"


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of a graph: its strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(edges):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)  # other tests depend on the interpreter's default
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_beyond_type_checking(view: Path) -> None:
    result = run_in_view(
        view,
        """
        import json, grimp
        graph = grimp.build_graph("agentworld_plugins", exclude_type_checking_imports=True)
        print(json.dumps({m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}))
        """,
    )
    assert result.returncode == 0, result.stderr
    edges = {m: set(targets) for m, targets in json.loads(result.stdout).items()}
    assert len(edges) > 100  # the view holds the whole package, adapters included
    assert "agentworld_plugins.adapters.mcp_server" in edges
    assert strongly_connected(edges) == []


def test_no_source_file_over_800_lines() -> None:
    long = {}
    for folder in (ROOT / "agentworld_plugins", ROOT / "adapters"):
        for path in folder.rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                long[str(path.relative_to(ROOT))] = lines
    assert long == {}, f"split these into folders of files named after what they hold: {long}"
