"""The explicit package list in pyproject.toml covers every package in the tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"adapters": "agentworld_plugins.adapters", "prompts": "agentworld_plugins.prompts"}


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _packages_on_disk() -> set[str]:
    found = set()
    for top, dotted in [("agentworld_plugins", "agentworld_plugins"), *MAPPED.items()]:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top)
            found.add(".".join([dotted, *rel.parts]))
    return found


def test_every_package_is_listed():
    listed = set(_config()["packages"])
    missing = _packages_on_disk() - listed
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_package_dir_maps_adapters_and_prompts():
    assert _config()["package-dir"] == {v: k for k, v in MAPPED.items()}


def test_prompt_files_are_package_data():
    data = _config()["package-data"]
    for domain_dir in (ROOT / "prompts").iterdir():
        if domain_dir.is_dir() and (domain_dir / "system_prompt.txt").exists():
            assert "*.txt" in data.get(f"agentworld_plugins.prompts.{domain_dir.name}", []), domain_dir.name


def test_every_listed_package_exists():
    reverse = {v: k for k, v in MAPPED.items()}
    missing = []
    for name in _config()["packages"]:
        parts = name.split(".")
        for depth in (2, 1):
            prefix = ".".join(parts[:depth])
            if prefix in reverse:
                folder = ROOT / reverse[prefix] / Path(*parts[depth:])
                break
        else:
            folder = ROOT / Path(*parts)
        if not (folder / "__init__.py").is_file():
            missing.append(name)
    assert not missing, f"listed in pyproject.toml but without an __init__.py: {missing}"
