"""Values kept by object identity: found for the same objects only, apart by key, bounded."""

from __future__ import annotations

from agentworld_plugins.kept import KeptByObject


def test_values_are_found_by_the_very_objects_and_key_they_were_kept_by() -> None:
    kept: KeptByObject[str] = KeptByObject(limit=3)
    tools, same_content = [{"name": "a"}], [{"name": "a"}]
    assert kept.put("index", tools, key=1) == "index"
    assert kept.get(tools, key=1) == "index"
    assert kept.get(same_content, key=1) is None  # equal is not the same object
    assert kept.get(tools, key=2) is None  # another key (a tool added: another length)
    kept.put("pair", tools, same_content)
    assert kept.get(tools, same_content) == "pair" and kept.get(same_content, tools) is None
    kept.put("x", [1])
    kept.put("y", [2])  # the fourth entry: the full table was cleared first
    assert kept.get(tools, key=1) is None and kept.get(tools, same_content) is None
