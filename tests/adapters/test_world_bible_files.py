"""A world bible is text or a file; a string that names a missing file is an error, not the bible."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentworld_plugins.adapters.search import search_tools

from agentworld_plugins import World
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.files import looks_like_path, text_or_file


@pytest.mark.parametrize("name", ["bible.md", "./facts", "~/world.txt", "/srv/bible.yaml"])
def test_a_missing_bible_file_is_an_error_naming_it(name: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        search_tools(world=World(backend="offline"), world_bible=name)
    assert Path(name).name in info.value.message and "world bible" in info.value.message


def test_a_bible_file_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bible.md").write_text("# Estria\nVornholm is the capital of Estria.\n")
    tools = {t.name: t for t in search_tools(world=World(backend="offline"), world_bible="bible.md")}
    answer = tools["web_search"].invoke({"query": "capital of Estria"})
    assert "Vornholm" in str(answer)


def test_the_offline_world_answers_a_missing_bible_file_with_an_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    session = World(backend="offline").session("search", world_bible="bible.md")
    observation = session.step({"name": "web_search", "arguments": {"queries": ["anything"]}})
    assert observation.is_error and "Cannot read the world bible file bible.md" in observation.text


def test_the_rule() -> None:
    assert looks_like_path("bible.md") and looks_like_path("../x") and looks_like_path("~/a b/c.TXT")
    for text in ("Vornholm is the capital of Estria.", "one\ntwo.md", "", "Thera"):
        assert not looks_like_path(text)
        assert text_or_file(text, "world bible") == text
