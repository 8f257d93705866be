"""The offline worlds of the GUI domains (web, android, os): the current screen, carried forward.

The observation text is parsed into a plain model (dicts, lists and strings, so a session store
can keep it as JSON), each action applies its deterministic local edits to it (a filled field, a
toggled checkbox, moved focus), and the model is rendered back in the format the domain's prompt
prescribes. What cannot be known without a model (the page behind a link, the screen an app
opens, a shell command's output) leaves the state unchanged and sets
``metadata["offline_unknown_effect"]``; ``metadata["offline_unknown_action"]`` names the call.

An action made of several calls (web lines, os statements) runs them in order; each call is all
or nothing, and the first one that fails or has an unknown effect stops the rest.

One module per world (:mod:`.web`, :mod:`.android`, :mod:`.os`) and :mod:`.shared` for what they share;
the observation formats they parse and render live in :mod:`agentworld_plugins.domains.formats`.

>>> from agentworld_plugins.domains.web import WebAction
>>> state: dict = {}
>>> page = "URL: https://a.test/\\nTitle: A\\n\\nRootWebArea 'A', focused\\n\\t[5] textbox 'Name'"
>>> result = web_step(state, WebAction("fill('5', 'Ada')"), {"initial_state": page})
>>> result.text.splitlines()[-2:]
["RootWebArea 'A'", "\\t[5] textbox 'Name', focused, value='Ada'"]
"""

from __future__ import annotations

from ...domains.formats.android import DEFAULT_ANDROID_SCREEN, parse_android_screen, render_android_screen
from ...domains.formats.os import (
    DEFAULT_OS_DESKTOP,
    OS_COLUMNS,
    os_cell_text,
    os_text_cell,
    parse_os_table,
    render_os_table,
)
from ...domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page, render_web_page
from .android import android_step
from .os import os_step
from .shared import ANDROID_STATE_KEY, OS_STATE_KEY, UNKNOWN_EFFECT, WEB_STATE_KEY
from .web import web_step

__all__ = [
    "ANDROID_STATE_KEY",
    "DEFAULT_ANDROID_SCREEN",
    "DEFAULT_OS_DESKTOP",
    "DEFAULT_WEB_PAGE",
    "OS_COLUMNS",
    "OS_STATE_KEY",
    "UNKNOWN_EFFECT",
    "WEB_STATE_KEY",
    "android_step",
    "os_cell_text",
    "os_step",
    "os_text_cell",
    "parse_android_screen",
    "parse_os_table",
    "parse_web_page",
    "render_android_screen",
    "render_os_table",
    "render_web_page",
    "web_step",
]
