"""A small synthetic AgentWorldBench-shaped dataset: all seven domains, multi-turn records.

For tests, examples and benchmarks; no download. The turn prompts and system prompts are rendered
by the domain plugins (the trained format), so any backend can answer them, the offline world
included; the ground-truth observations are hand-written.

>>> make_sample_dataset("bench-data", episodes=2)          # doctest: +SKIP
{'mcp': PosixPath('bench-data/mcp_test.jsonl'), ...}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..domains.formats.android import render_android_screen
from ..domains.formats.os import OS_HEADER
from ..files import open_private
from .data import DOMAINS, FILE_SUFFIX, dump_line

_NOTES_TOOLS = [
    {
        "name": "create_note",
        "description": "Create a note; returns it with its id.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["title"],
        },
    },
    {
        "name": "list_notes",
        "description": "List every note.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]

_UI = render_android_screen(
    [
        {"text": "Settings", "class_name": "android.widget.TextView", "is_clickable": False},
        {
            "text": "Wi-Fi",
            "class_name": "android.widget.Switch",
            "is_clickable": True,
            "is_checked": False,
        },
        {"text": "Bluetooth", "class_name": "android.widget.Switch", "is_clickable": True},
    ]
)

_PAGE = """URL: https://shop.example.com/
Title: Example Shop

RootWebArea 'Example Shop', focused
\t[12] searchbox 'Search products'
\t[13] button 'Search'
\t[14] link 'Cart (0)'"""

_DESKTOP = "\n".join(
    [
        OS_HEADER,
        "push-button\tFiles\t\t\t\t(0, 64)\t(64, 64)",
        "push-button\tText Editor\t\t\t\t(0, 128)\t(64, 64)",
    ]
)


def _episodes(n: int) -> dict[str, dict[str, Any]]:
    """Per domain: the context (tools, initial state) and (action, ground truth) turns; ``n``
    varies the content between episodes."""
    return {
        "mcp": {
            "context": {"tools": _NOTES_TOOLS},
            "turns": [
                (
                    {"tool_name": "create_note", "arguments": {"title": f"groceries {n}", "body": "milk"}},
                    json.dumps({"id": f"note_{n}", "title": f"groceries {n}", "body": "milk"}, indent=2),
                ),
                (
                    {"tool_name": "list_notes", "arguments": {}},
                    json.dumps([{"id": f"note_{n}", "title": f"groceries {n}"}], indent=2),
                ),
                (
                    {"tool_name": "create_note", "arguments": {"body": "no title"}},
                    "Error calling tool 'create_note': 1 validation error for call[create_note]\n"
                    "title\n  Missing required argument [type=missing_argument]",
                ),
            ],
        },
        "search": {
            "context": {},
            "turns": [
                (
                    {"name": "web_search", "arguments": {"queries": [f"vllm prefix caching {n}"]}},
                    "[1] https://docs.vllm.ai/en/latest/features/automatic_prefix_caching.html\n"
                    "Title: Automatic Prefix Caching - vLLM\n"
                    "Snippet: Automatic prefix caching reuses the KV cache of shared prompt prefixes.\n"
                    "Date: 2025-03-02",
                ),
                (
                    {"name": "web_extractor", "arguments": {"url": "https://docs.vllm.ai/en/latest/"}},
                    "vLLM is a fast and easy-to-use library for LLM inference and serving.",
                ),
            ],
        },
        "terminal": {
            "context": {"initial_state": "root@box:/app# "},
            "turns": [
                (
                    [{"keystrokes": f"mkdir run{n} && cd run{n}\n", "duration": 0.2}],
                    f"root@box:/app# mkdir run{n} && cd run{n}\nroot@box:/app/run{n}# ",
                ),
                (
                    [{"keystrokes": "ls -la\n", "duration": 0.3}],
                    f"root@box:/app/run{n}# ls -la\ntotal 8\ndrwxr-xr-x 2 root root 4096 Jan  1 00:00 .\n"
                    f"drwxr-xr-x 3 root root 4096 Jan  1 00:00 ..\nroot@box:/app/run{n}# ",
                ),
                (
                    [{"keystrokes": "frobnicate\n", "duration": 0.2}],
                    f"root@box:/app/run{n}# frobnicate\nbash: frobnicate: command not found\nroot@box:/app/run{n}# ",
                ),
            ],
        },
        "swe": {
            "context": {},
            "turns": [
                (
                    {"tool_name": "run_shell_command", "arguments": {"command": "git status --short"}},
                    "Command: git status --short\nDirectory: (root)\nStdout: M src/app.py\nStderr: (empty)\n"
                    "Error: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)",
                ),
                (
                    {"tool_name": "read_file", "arguments": {"absolute_path": f"/app/src/mod{n}.py"}},
                    f"File not found: /app/src/mod{n}.py",
                ),
            ],
        },
        "android": {
            "context": {"initial_state": _UI},
            "turns": [
                (
                    {"action_type": "click", "index": 1},
                    _UI.replace('"is_checked": false', '"is_checked": true'),
                ),
                (
                    {"action_type": "navigate_home"},
                    'UI element 0: {"text": "Home", "class_name": "android.widget.FrameLayout"}',
                ),
            ],
        },
        "web": {
            "context": {"initial_state": _PAGE},
            "turns": [
                (
                    f"fill('12', 'headphones {n}')",
                    _PAGE.replace("'Search products'", f"'Search products' value='headphones {n}'"),
                ),
                (
                    "click('13')",
                    f"URL: https://shop.example.com/search?q=headphones+{n}\nTitle: Results\n\nRootWebArea 'Results'",
                ),
            ],
        },
        "os": {
            "context": {"initial_state": _DESKTOP},
            "turns": [
                (
                    "pyautogui.click(32, 160)",
                    _DESKTOP + "\nframe\tUntitled - Text Editor\t\t\t\t(64, 0)\t(1856, 1080)",
                ),
                (
                    f"pyautogui.write('note {n}')",
                    _DESKTOP + f"\ntext\t\tnote {n}\t\t\t(80, 40)\t(1800, 1000)",
                ),
            ],
        },
    }


def sample_records(domain: str, episodes: int = 1, start: int = 0) -> list[dict[str, Any]]:
    """The records of ``episodes`` synthetic episodes of ``domain`` (one record per turn)."""
    from ..plugins import get_plugin_manager

    dom = get_plugin_manager().registry.domain(domain)
    records: list[dict[str, Any]] = []
    for n in range(start, start + episodes):
        script = _episodes(n)[domain]
        context = script["context"]
        system = dom.system_prompt(context)
        prompts, responses = [], []
        for number, (action, observation) in enumerate(script["turns"], 1):
            state = dom.state_for_turn(number, context)
            prompts.append(dom.render_turn(number, dom.validate_action(action), state))
            responses.append(observation)
        for number, prompt in enumerate(prompts, 1):
            records.append(
                {
                    "task": f"AgentWorldBench/{domain}",
                    "id": f"{domain}-{n:04d}",
                    "prompt": prompts,
                    "response": responses,
                    "current_prompt": prompt,
                    "system_str": system,
                    "turn_idx": number,
                    "total_turns": len(prompts),
                }
            )
    return records


def make_sample_dataset(
    folder: str | Path, episodes: int = 1, domains: tuple[str, ...] = DOMAINS
) -> dict[str, Path]:
    """Write ``<domain>_test.jsonl`` for each domain into ``folder``; returns the files."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for domain in domains:
        path = folder / f"{domain}{FILE_SUFFIX}"
        with open_private(path, "w") as fh:
            for record in sample_records(domain, episodes):
                fh.write(dump_line(record))
        written[domain] = path
    return written
