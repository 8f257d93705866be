"""Turn rendering, message construction and the output parser."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.turns import build_messages, messages_for_record, parse_output, render_turn


def test_render_turn_with_state_matches_trained_layout():
    text = render_turn(
        3, '[\n  {"keystrokes": "ls -la\\n", "duration": 0.5}\n]', state="root@ad092d3df69c:/app#"
    )
    assert text == (
        "### Turn 3\n"
        "**Current State:**\n"
        "root@ad092d3df69c:/app#\n"
        "\n"
        "**Action:**\n"
        "```json\n"
        '[\n  {"keystrokes": "ls -la\\n", "duration": 0.5}\n]\n'
        "```"
    )


def test_render_turn_without_state_and_bare_action():
    assert render_turn(1, "click('12')", fence=None) == "### Turn 1\n**Action:**\nclick('12')"


# One record per domain: the construction of FORMATS.md, message for message.
DOMAIN_ACTIONS = {
    "mcp": '```json\n{"tool_name": "list_files", "arguments": {}}\n```',
    "search": '```json\n{"name": "web_search", "arguments": {"queries": ["x"]}}\n```',
    "terminal": '```json\n[{"keystrokes": "ls\\n", "duration": 0.1}]\n```',
    "swe": '```json\n{"tool_name": "read_file", "arguments": {"absolute_path": "/a"}}\n```',
    "android": '```json\n{"action_type": "click", "index": 3}\n```',
    "web": "click('12')",
    "os": "```python\npyautogui.click(10, 20)\n```",
}


@pytest.mark.parametrize("domain", sorted(DOMAIN_ACTIONS))
@pytest.mark.parametrize("turn_idx", [1, 2, 4])
def test_messages_for_record_every_domain(domain, turn_idx):
    prompts = [f"### Turn {i}\n**Action:**\n{DOMAIN_ACTIONS[domain]}" for i in range(1, 5)]
    responses = [f"{domain} observation {i}" for i in range(1, 5)]
    record = {
        "task": f"x/{domain}",
        "id": f"{domain}-1",
        "prompt": prompts,
        "response": responses,
        "current_prompt": prompts[turn_idx - 1],
        "system_str": f"You simulate {domain}.",
        "turn_idx": turn_idx,
        "total_turns": 4,
    }
    expected = [{"role": "system", "content": f"You simulate {domain}."}]
    for i in range(turn_idx - 1):
        expected.append({"role": "user", "content": prompts[i]})
        expected.append({"role": "assistant", "content": responses[i]})
    expected.append({"role": "user", "content": prompts[turn_idx - 1]})
    assert messages_for_record(record) == expected


def test_messages_for_record_errors_name_the_problem():
    with pytest.raises(AgentWorldError, match="lacks current_prompt"):
        messages_for_record({"id": "r", "system_str": "", "prompt": [], "response": [], "turn_idx": 1})
    with pytest.raises(AgentWorldError, match="turn_idx 5 is out of range"):
        messages_for_record(
            {
                "id": "r",
                "system_str": "",
                "prompt": ["a"],
                "response": ["b"],
                "current_prompt": "a",
                "turn_idx": 5,
            }
        )


def test_build_messages_only_grows():
    first = build_messages("S", [("p1", "o1")], "p2")
    second = build_messages("S", [("p1", "o1"), ("p2", "o2")], "p3")
    assert second[: len(first)] == first


@pytest.mark.parametrize(
    ("content", "reasoning", "text", "thought", "warned"),
    [
        ("plain observation", None, "plain observation", None, False),
        ("<think>hmm</think>\nout", None, "out", "hmm", False),
        (
            "<think>a</think>x<think>b</think><predicted_observation>obs</predicted_observation>",
            None,
            "obs",
            "a\n\nb",
            False,
        ),
        (
            "<think>outer <think>inner</think> more</think>result",
            None,
            "result",
            "outer <think>inner</think> more",
            False,
        ),
        ("<think>never closed", None, "", "never closed", True),
        ("<think>plan<predicted_observation>late</predicted_observation>", None, "late", "plan", True),
        ("thinking before</think>\n\nafter", None, "after", "thinking before", True),
        (
            "<predicted_observation>one</predicted_observation> <predicted_observation>two</predicted_observation>",
            None,
            "two",
            None,
            False,
        ),
        ("<predicted_observation>\nunclosed to the end\n", None, "unclosed to the end", None, True),
        (
            "<predicted_observation>**Environment Observation:**\nscreen</predicted_observation>",
            None,
            "screen",
            None,
            False,
        ),
        ("**Environment Observation:**\nbare", None, "bare", None, False),
        (
            "<predicted_observation>x</predicted_observation>",
            "server reasoning",
            "x",
            "server reasoning",
            False,
        ),
        ("", None, "", None, True),
        (None, None, "", None, True),
    ],
)
def test_parse_output_shapes(content, reasoning, text, thought, warned):
    parsed = parse_output(content, reasoning)
    assert parsed.text == text
    assert parsed.reasoning == thought
    assert bool(parsed.warnings) is warned


def test_parse_output_requires_block_only_when_asked():
    assert parse_output("no block").warnings == []
    assert parse_output("no block", require_block=True).warnings


def test_parse_output_keeps_terminal_indentation():
    screen = "root@box:/app# ls\n  indented.txt\nroot@box:/app# "
    assert (
        parse_output(f"<predicted_observation>\n{screen}\n</predicted_observation>").text == screen.rstrip()
    )


_tags = st.sampled_from(
    [
        "<think>",
        "</think>",
        "<predicted_observation>",
        "</predicted_observation>",
        "**Environment Observation:**",
        "\n",
        "x",
        " ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(_tags, st.text(max_size=8)), max_size=30),
    st.one_of(st.none(), st.text(max_size=20)),
    st.booleans(),
)
def test_parser_never_raises(pieces, reasoning, exact):
    parsed = parse_output("".join(pieces), reasoning, require_block=True, exact=exact)
    assert isinstance(parsed.text, str)
    assert "<predicted_observation>" not in parsed.text
    assert "</predicted_observation>" not in parsed.text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200).filter(lambda s: "<" not in s and "Environment Observation" not in s))
def test_parser_returns_block_content(body):
    parsed = parse_output(f"<think>r</think><predicted_observation>{body}</predicted_observation>")
    assert parsed.text == body.strip("\n").rstrip()


# -- exact observations (an MCP tool's text): only the format comes off -----------------------------


@pytest.mark.parametrize(
    ("content", "text"),
    [
        # we write a block as "<predicted_observation>\nTEXT\n</predicted_observation>": the two
        # newlines inside the tags are format, the text's own final newline is content
        ("<predicted_observation>\nline one\nline two\n\n</predicted_observation>", "line one\nline two\n"),
        ("<predicted_observation>\n  indented  \n</predicted_observation>", "  indented  "),
        ("<predicted_observation>tight</predicted_observation>", "tight"),
        ("<predicted_observation>\n\nblank first\n</predicted_observation>", "\nblank first"),
        ("<think>plan</think>\n\nbare text\n", "bare text\n"),
        ("<predicted_observation>\n**Environment Observation:**\nout\n\n</predicted_observation>", "out\n"),
        ("**Environment Observation:**\n\nbare\n", "bare\n"),
        ("<predicted_observation>\nunclosed\n", "unclosed\n"),
        ("<predicted_observation>\n\n</predicted_observation>", ""),
    ],
)
def test_exact_parse_keeps_everything_but_the_tags_newlines(content, text):
    assert parse_output(content, exact=True).text == text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200).filter(lambda s: "<" not in s and "environment observation" not in s.lower()))
def test_exact_parse_returns_what_was_wrapped(body):
    """What the offline world, a scenario and ``serve --perturb`` write comes back byte for byte."""
    wrapped = f"<think>r</think>\n\n<predicted_observation>\n{body}\n</predicted_observation>"
    assert parse_output(wrapped, exact=True).text == body


def test_only_the_mcp_domain_parses_exactly():
    """Tool text reaches the agent verbatim; a terminal screen keeps its trimmed form."""
    from agentworld_plugins.plugins import get_plugin_manager

    domains = get_plugin_manager().registry.domains
    answer = (
        "<predicted_observation>\nroot@box:/app# ls\nnotes.txt\nroot@box:/app# \n</predicted_observation>"
    )
    assert domains["mcp"].parse_output(answer).text.endswith("root@box:/app# ")
    assert domains["terminal"].parse_output(answer).text.endswith("root@box:/app#")
    built_in = ("android", "mcp", "os", "search", "swe", "terminal", "web")
    assert [name for name in built_in if domains[name].exact_text] == ["mcp"]
