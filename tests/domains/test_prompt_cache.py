"""Kept templates and tool blocks: the same bytes as a fresh render, and a changed file is seen."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins import World
from agentworld_plugins.domains import prompt_cache
from agentworld_plugins.domains.base import DEMONSTRATIONS, TOOL_DEFINITIONS
from agentworld_plugins.domains.search import SEARCH_TOOLS
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.plugins import get_plugin_manager

DOMAINS = ("mcp", "search", "terminal", "swe", "android", "web", "os")


def fresh_prompt(domain: str, tools: Any, demos: str = "", prompts_dir: Path | None = None) -> str:
    """The system prompt built the long way: the file read now, the tools dumped now."""
    if prompts_dir is None:
        text = files("agentworld_plugins.prompts").joinpath(domain, "system_prompt.txt").read_text("utf-8")
    else:
        text = (prompts_dir / domain / "system_prompt.txt").read_text("utf-8")
    if domain == "search" and not tools:
        tools = SEARCH_TOOLS
    block = json.dumps(tools, ensure_ascii=False, indent=2) if tools else "(no tool definitions were given)"
    return text.replace(TOOL_DEFINITIONS, block).replace(DEMONSTRATIONS, demos)


@pytest.fixture(autouse=True)
def _empty_cache():
    prompt_cache.clear()
    yield
    prompt_cache.clear()


@pytest.mark.parametrize("domain", DOMAINS)
def test_kept_render_is_byte_identical_to_a_fresh_one(domain: str) -> None:
    registry = get_plugin_manager().registry
    dom = registry.domain(domain)
    tools = registry.tool_pack("github-issues") if domain in ("mcp", "swe") else None
    context = {"tools": tools, "demonstrations": "Turn 1: ls"} if tools else {}
    expected = fresh_prompt(domain, tools, "Turn 1: ls" if tools else "")
    first = dom.system_prompt(context)
    second = dom.system_prompt(context)  # from what the first call kept
    assert first == second == expected
    with World(backend="offline") as world:
        assert world.session(domain, **context).system_prompt == expected


def test_tools_changed_in_place_give_a_new_block() -> None:
    dom = get_plugin_manager().registry.domain("mcp")
    tools = [{"name": "ping", "description": "Ping a host.", "inputSchema": {"type": "object"}}]
    before = dom.system_prompt({"tools": tools})
    tools[0]["description"] = "Ping a host, héllo."  # the same list object, other content
    after = dom.system_prompt({"tools": tools})
    assert before != after
    assert after == fresh_prompt("mcp", tools)
    assert "héllo" in after  # ensure_ascii=False, as before


def test_tool_blocks_are_bounded() -> None:
    for n in range(prompt_cache.MAX_TOOL_BLOCKS + 10):
        tools = [{"name": f"tool_{n}"}]
        assert prompt_cache.tool_definitions_json(tools) == json.dumps(tools, ensure_ascii=False, indent=2)
    assert len(prompt_cache._tool_blocks) == prompt_cache.MAX_TOOL_BLOCKS


def write_template(root: Path, text: str, domain: str = "terminal") -> Path:
    path = root / domain / "system_prompt.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_changed_prompts_dir_file_reaches_the_next_session(tmp_path: Path) -> None:
    path = write_template(tmp_path, "Simulate a terminal. {demonstrations}")
    with World(backend="offline", prompts_dir=tmp_path) as world:
        assert world.session("terminal").system_prompt == "Simulate a terminal. "
        path.write_text("Simulate a busy terminal. {demonstrations}", encoding="utf-8")
        assert world.session("terminal").system_prompt == "Simulate a busy terminal. "
        # the same size and the same modification time, but another file (an editor's atomic save)
        stamp = path.stat().st_mtime_ns
        replacement = tmp_path / "new.txt"
        replacement.write_text("Simulate a calm terminal. {demonstrations}", encoding="utf-8")
        os.utime(replacement, ns=(stamp, stamp))
        os.replace(replacement, path)
        assert world.session("terminal").system_prompt == "Simulate a calm terminal. "
        # the same size and inode, another modification time
        path.write_text("Simulate a loud terminal. {demonstrations}", encoding="utf-8")
        os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
        assert world.session("terminal").system_prompt == "Simulate a loud terminal. "
        path.unlink()
        with pytest.raises(ConfigError, match=r"No system_prompt\.txt for domain 'terminal'"):
            world.session("terminal")


def test_worlds_with_different_prompts_dirs_keep_their_own(tmp_path: Path) -> None:
    write_template(tmp_path / "a", "A {tool_definitions}", "mcp")
    write_template(tmp_path / "b", "B {tool_definitions}", "mcp")
    tools = [{"name": "ping"}]
    with (
        World(backend="offline", prompts_dir=tmp_path / "a") as a,
        World(backend="offline", prompts_dir=tmp_path / "b") as b,
        World(backend="offline") as bundled,
    ):
        for _ in range(2):
            assert a.session("mcp", tools=tools).system_prompt == fresh_prompt(
                "mcp", tools, "", tmp_path / "a"
            )
            assert b.session("mcp", tools=tools).system_prompt == fresh_prompt(
                "mcp", tools, "", tmp_path / "b"
            )
            assert bundled.session("mcp", tools=tools).system_prompt == fresh_prompt("mcp", tools)


def test_a_prompts_dir_without_the_file_is_the_same_error(tmp_path: Path) -> None:
    (tmp_path / "terminal" / "system_prompt.txt").mkdir(parents=True)  # a folder, not a file
    dom = get_plugin_manager().registry.domain("terminal")
    with pytest.raises(ConfigError, match=r"No system_prompt\.txt") as caught:
        dom.template(tmp_path)
    assert "unset --prompts-dir / AGENTWORLD_PROMPTS_DIR" in (caught.value.hint or "")
    with pytest.raises(ConfigError, match=r"ships no nothing\.txt"):
        dom.template(None, "nothing.txt")
