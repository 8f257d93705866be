"""A scripted agent (no LLM) that plays a short episode in each domain, for ``agentworld demo``.

The agent reads each observation to choose its next action (the element ids to click, the URL to
open), so the same script runs against the offline world and a real world model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from .domains.formats.android import render_android_screen
from .session import Observation, Session, World

NOTES_TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_note",
        "description": "Create a note and return it with its id.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["title"],
        },
    },
    {
        "name": "list_notes",
        "description": "List all notes.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "get_note",
        "description": "Fetch one note by id.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    },
    {
        "name": "delete_note",
        "description": "Delete a note by id.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    },
]

Policy = Callable[[list[Observation]], Iterator[Any]]


def _first(pattern: str, text: str, default: str) -> str:
    match = re.search(pattern, text, re.MULTILINE)
    return match.group(1) if match else default


def terminal_agent(seen: list[Observation]) -> Iterator[Any]:
    yield [{"keystrokes": "mkdir -p /app/demo && cd /app/demo\n", "duration": 0.2}]
    yield [{"keystrokes": "printf 'alpha\\nbeta\\ngamma\\n' > words.txt\n", "duration": 0.2}]
    yield [{"keystrokes": "grep -n a words.txt | wc -l\n", "duration": 0.2}]
    yield [{"keystrokes": "mv words.txt list.txt && ls -la\n", "duration": 0.2}]
    yield [{"keystrokes": "frobnicate --all; echo exit=$?\n", "duration": 0.2}]


def swe_agent(seen: list[Observation]) -> Iterator[Any]:
    yield {
        "tool_name": "write_file",
        "arguments": {"file_path": "/app/calc.py", "content": "def add(a, b):\n    return a - b\n"},
    }
    yield {"tool_name": "read_file", "arguments": {"absolute_path": "/app/calc.py"}}
    yield {
        "tool_name": "edit",
        "arguments": {"file_path": "/app/calc.py", "old_string": "a - b", "new_string": "a + b"},
    }
    yield {"tool_name": "grep_search", "arguments": {"pattern": "return", "path": "/app"}}
    yield {
        "tool_name": "run_shell_command",
        "arguments": {"command": "python3 --version && cat /app/calc.py"},
    }


def mcp_agent(seen: list[Observation]) -> Iterator[Any]:
    yield {"tool_name": "create_note", "arguments": {"title": "groceries", "body": "milk, eggs"}}
    note_id = _first(r'"id":\s*"?([\w-]+)', seen[-1].text, "1")
    yield {"tool_name": "create_note", "arguments": {"title": "ideas"}}
    yield {"tool_name": "list_notes", "arguments": {}}
    yield {"tool_name": "delete_note", "arguments": {"id": note_id}}
    yield {"tool_name": "get_note", "arguments": {"id": note_id}}


def search_agent(seen: list[Observation]) -> Iterator[Any]:
    yield {"name": "web_search", "arguments": {"queries": ["how to serve a model with vLLM"]}}
    url = _first(r"^\[\d+\]\s+(\S+)", seen[-1].text, "https://docs.vllm.ai/")
    yield {"name": "web_extractor", "arguments": {"url": url}}
    yield {"name": "dict_memory", "arguments": {"operation": "add", "key": "source", "value": url}}
    yield {"name": "dict_memory", "arguments": {"operation": "retrieve_all"}}


ABOUT_PAGE = """URL: https://www.example.com/about
Title: About Example Search

RootWebArea 'About Example Search', focused
\t[30] heading 'About us', level=1
\tStaticText 'Example Search indexes the simulated web.'
\t[31] link 'Back to search', url='https://www.example.com/'"""


def web_agent(seen: list[Observation]) -> Iterator[Any]:
    yield "noop()"
    page = seen[-1].text
    box = _first(r"\[([\w-]+)\]\s+(?:textbox|searchbox|combobox)", page, "1")
    yield f"fill('{box}', 'world models')"
    check = _first(r"\[([\w-]+)\]\s+checkbox", page, box)
    yield f"click('{check}')"
    about = _first(r"\[([\w-]+)\]\s+link 'About'", page, box)
    yield f"click('{about}')"
    yield "go_back()"
    yield "send_msg_to_user('Searched for world models.')"


SETTINGS_SCREEN = render_android_screen(
    [
        {
            "text": "Settings",
            "class_name": "android.widget.TextView",
            "is_clickable": False,
            "bbox": [63, 120, 600, 220],
        },
        {
            "text": "Wi-Fi",
            "class_name": "android.widget.Switch",
            "is_clickable": True,
            "is_checkable": True,
            "is_checked": False,
            "bbox": [63, 300, 1017, 420],
        },
        {
            "text": None,
            "hint_text": "Search settings",
            "class_name": "android.widget.EditText",
            "is_clickable": True,
            "is_editable": True,
            "bbox": [63, 460, 1017, 580],
        },
    ]
)


def android_agent(seen: list[Observation]) -> Iterator[Any]:
    yield {"action_type": "wait"}
    settings = _first(r'UI element (\d+): \{"text": "Settings"', seen[-1].text, "0")
    yield {"action_type": "click", "index": int(settings)}
    wifi = _first(r'UI element (\d+):[^\n]*"Wi-Fi"', seen[-1].text, "1")
    yield {"action_type": "click", "index": int(wifi)}
    field = _first(r'UI element (\d+):[^\n]*"is_editable": true', seen[-1].text, "2")
    yield {"action_type": "input_text", "text": "battery", "index": int(field)}
    yield {"action_type": "navigate_home"}
    yield {"action_type": "status", "goal_status": "complete"}


def os_agent(seen: list[Observation]) -> Iterator[Any]:
    yield "WAIT"
    yield "import pyautogui\npyautogui.click(960, 540)"
    yield "pyautogui.write('notes for today')"
    yield "pyautogui.hotkey('ctrl', 's')"
    yield "DONE"


AGENTS: dict[str, tuple[Policy, dict[str, Any]]] = {
    "terminal": (terminal_agent, {}),
    "swe": (swe_agent, {}),
    "mcp": (mcp_agent, {"tools": NOTES_TOOLS}),
    "search": (search_agent, {}),
    "web": (web_agent, {"pages": {"https://www.example.com/about": ABOUT_PAGE}}),
    "android": (android_agent, {"screens": {"Settings": SETTINGS_SCREEN}}),
    "os": (os_agent, {}),
}


def start_episode(world: World, domain: str) -> Session:
    """A new session of ``domain`` with the context its scripted agent expects."""
    return world.session(domain, **AGENTS[domain][1])


def run_episode(session: Session) -> Iterator[tuple[Any, Observation]]:
    """Play the scripted agent of the session's domain; yields (action, observation) per turn."""
    seen: list[Observation] = []
    for action in AGENTS[session.domain.name][0](seen):
        observation = session.step(action)
        seen.append(observation)
        yield action, observation
