"""An OSWorld look-alike: a ``DesktopEnv`` whose Ubuntu desktop is simulated by the world model.

:class:`DesktopEnv` takes OSWorld's constructor arguments (the VM ones are accepted and unused),
``reset(task_config)`` returns the observation, ``step(action, pause)`` returns ``(obs, reward,
done, info)``; actions are pyautogui code strings, ``WAIT``/``FAIL``/``DONE``, or OSWorld's
``computer_13`` dictionaries. The observation holds ``screenshot`` (PNG bytes of a wireframe),
``accessibility_tree`` (AT-SPI-style XML that OSWorld's ``linearize_accessibility_tree`` reads),
``terminal`` and ``instruction``.

The world model writes the desktop as a table (``tag, name, text, class, description, position,
size``). :func:`table_to_xml` turns it into the XML an OSWorld VM serves, :func:`xml_to_table`
back into the table, and :func:`linearize_accessibility_tree` does what OSWorld's agents do with
the XML (their filter and their text quoting).

>>> env = DesktopEnv(action_space="pyautogui", require_a11y_tree=True, backend="offline")  # doctest: +SKIP
>>> obs = env.reset(task_config={"id": "t1", "instruction": "Open a terminal"})            # doctest: +SKIP
>>> obs, reward, done, info = env.step("pyautogui.hotkey('ctrl', 'alt', 't')", pause=0)   # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import warnings
import xml.etree.ElementTree as ET
from typing import Any

import gymnasium as gym

from agentworld_plugins import pyast
from agentworld_plugins.domains.formats.os import (
    OS_COLUMNS,
    OS_HEADER,
    os_cell_text,
    os_text_cell,
    parse_os_table,
)

from .computer13 import Computer13Error, computer13_to_code
from .episode import Episode, StepOutcome
from .render import png_bytes, render_os_table
from .task import Task, load_task

__all__ = [
    "DesktopEnv",
    "PythonController",
    "computer13_to_code",
    "linearize_accessibility_tree",
    "table_to_xml",
    "xml_to_table",
]

STATE_NS = "https://accessibility.ubuntu.example.org/ns/state"
ATTRIBUTES_NS = "https://accessibility.ubuntu.example.org/ns/attributes"
COMPONENT_NS = "https://accessibility.ubuntu.example.org/ns/component"
VALUE_NS = "https://accessibility.ubuntu.example.org/ns/value"
#: OSWorld's agents read ``class`` and ``description`` from this namespace on Ubuntu too
AGENT_ATTRIBUTES_NS = "https://accessibility.windows.example.org/ns/attributes"
WINDOWS_STATE_NS = "https://accessibility.windows.example.org/ns/state"
WINDOWS_COMPONENT_NS = "https://accessibility.windows.example.org/ns/component"
WINDOWS_CLASS_NS = "https://accessibility.windows.example.org/ns/class"
WINDOWS_VALUE_NS = "https://accessibility.windows.example.org/ns/value"
#: our own markers: which element is which table row, and cells the standard XML cannot hold
TABLE_NS = "https://agentworld.example.org/ns/table"

for _prefix, _uri in (
    ("st", STATE_NS),
    ("attr", ATTRIBUTES_NS),
    ("cp", COMPONENT_NS),
    ("val", VALUE_NS),
    ("attrw", AGENT_ATTRIBUTES_NS),
    ("aw", TABLE_NS),
):
    ET.register_namespace(_prefix, _uri)

_WINDOW_TAGS = frozenset({"frame", "window", "dialog", "alert", "file-chooser"})
_EDITABLE_TAGS = frozenset(
    {"entry", "text", "terminal", "password-text", "paragraph", "document-text", "spin-button"}
)
_CHECKABLE_TAGS = frozenset(
    {"check-box", "toggle-button", "check-menu-item", "radio-button", "radio-menu-item"}
)
_XML_NAME = re.compile(r"^[A-Za-z_][\w.-]*$")
_BAD_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


def _xml_safe(text: str) -> str:
    return _BAD_XML_CHARS.sub("\ufffd", text)


def _column_index(columns: list[str], name: str) -> int | None:
    for i, column in enumerate(columns):
        if column == name or column.startswith(name + " "):
            return i
    return None


def _pair(cell: str) -> tuple[float, float] | None:
    match = re.match(r"^\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)$", cell.strip())
    return (float(match.group(1)), float(match.group(2))) if match else None


def _inside(
    inner: tuple[float, float, float, float] | None, outer: tuple[float, float, float, float] | None
) -> bool:
    if inner is None or outer is None:
        return False
    return inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


# -- table -> XML -----------------------------------------------------------------------------------


def table_to_xml(table: str | dict[str, Any], screen_size: tuple[int, int] = (1920, 1080)) -> str:
    """The AT-SPI-style XML of an accessibility table, as an OSWorld VM serves it.

    Every row becomes an element named by its ``tag`` with ``name``, the states ``showing``,
    ``visible``, ``enabled`` (plus ``editable``/``focusable``/``checkable``/``checked`` where they
    apply), ``screencoord`` and ``size`` in the component namespace, ``class`` and
    ``description`` attributes, and its text as the element's text. Rows up to the first window
    belong to ``gnome-shell``; each window (frame, dialog, ...) starts an application holding
    the rows inside its box; the last window is the active one. ``aw:row`` numbers the rows so
    that :func:`xml_to_table` gives the table back exactly.
    """
    parsed = parse_os_table(table) if isinstance(table, str) else table
    columns = [str(c) for c in parsed.get("columns") or OS_COLUMNS]
    rows = [list(r) for r in parsed.get("rows") or []]
    where = {
        key: _column_index(columns, key)
        for key in ("tag", "name", "text", "class", "description", "position", "size")
    }
    standard = columns == list(OS_COLUMNS)
    width, height = screen_size
    root = ET.Element(
        "desktop-frame",
        {
            "name": "main",
            _q(STATE_NS, "enabled"): "true",
            _q(STATE_NS, "showing"): "true",
            _q(STATE_NS, "visible"): "true",
            _q(COMPONENT_NS, "screencoord"): "(0, 0)",
            _q(COMPONENT_NS, "size"): f"({width}, {height})",
        },
    )
    if not standard:
        root.set(_q(TABLE_NS, "columns"), json.dumps(columns, ensure_ascii=False))

    def cell(row: list[str], key: str) -> str:
        i = where[key]
        return row[i] if i is not None and i < len(row) else ""

    windows = [i for i, row in enumerate(rows) if cell(row, "tag") in _WINDOW_TAGS]
    front = windows[-1] if windows else None
    window: ET.Element | None = None
    window_box: tuple[float, float, float, float] | None = None
    for number, row in enumerate(rows):
        tag_cell = cell(row, "tag")
        position, size = _pair(cell(row, "position")), _pair(cell(row, "size"))
        box = (
            (position[0], position[1], position[0] + size[0], position[1] + size[1])
            if position and size
            else None
        )
        element = ET.Element(tag_cell if _XML_NAME.match(tag_cell) else "unknown")
        if element.tag != tag_cell:
            element.set(_q(TABLE_NS, "tag"), _xml_safe(tag_cell))
        element.set("name", _xml_safe(cell(row, "name")))
        element.set(_q(TABLE_NS, "row"), str(number))
        for state in ("showing", "visible", "enabled"):
            element.set(_q(STATE_NS, state), "true")
        if tag_cell in _EDITABLE_TAGS:
            element.set(_q(STATE_NS, "editable"), "true")
            element.set(_q(STATE_NS, "focusable"), "true")
        description = cell(row, "description")
        if tag_cell in _CHECKABLE_TAGS:
            element.set(_q(STATE_NS, "checkable"), "true")
            if "checked" in [t.strip() for t in description.split(",")]:
                element.set(_q(STATE_NS, "checked"), "true")
        for key in ("class", "description"):
            value = _xml_safe(cell(row, key))
            element.set(_q(ATTRIBUTES_NS, key), value)
            if value:
                element.set(_q(AGENT_ATTRIBUTES_NS, key), value)
        element.set(_q(COMPONENT_NS, "screencoord"), _xml_safe(cell(row, "position")))
        element.set(_q(COMPONENT_NS, "size"), _xml_safe(cell(row, "size")))
        raw_text = cell(row, "text")
        text = os_cell_text(raw_text)
        if text:
            element.text = _xml_safe(text)
        if os_text_cell(text) != raw_text or _xml_safe(text) != text:
            element.set(_q(TABLE_NS, "text"), _xml_safe(raw_text))
        if not standard:
            for i, value in enumerate(row):
                if i not in where.values():
                    element.set(_q(TABLE_NS, f"c{i}"), _xml_safe(value))
        if len(row) != len(columns):
            element.set(_q(TABLE_NS, "cells"), str(len(row)))
        if tag_cell in _WINDOW_TAGS:
            application = ET.SubElement(root, "application", {"name": _xml_safe(cell(row, "name"))})
            if number == front:
                element.set(_q(STATE_NS, "active"), "true")
            application.append(element)
            window, window_box = element, box
        elif window is not None and _inside(box, window_box):
            window.append(element)
        else:
            shell = root[-1] if len(root) and root[-1].get("name") == "gnome-shell" else None
            if shell is None:
                shell = ET.SubElement(root, "application", {"name": "gnome-shell"})
            shell.append(element)
            window, window_box = None, None
    return ET.tostring(root, encoding="unicode")


# -- XML -> table -----------------------------------------------------------------------------------


def _text_of(element: ET.Element) -> str:
    return element.text or ""


def _rows_of(root: ET.Element) -> list[ET.Element]:
    marked = [e for e in root.iter() if e.get(_q(TABLE_NS, "row")) is not None]
    if marked:
        return sorted(marked, key=lambda e: int(e.get(_q(TABLE_NS, "row"), "0")))
    found = []
    for element in root.iter():
        if element is root or element.tag == "application":
            continue
        coord, size = element.get(_q(COMPONENT_NS, "screencoord")), element.get(_q(COMPONENT_NS, "size"))
        shown = (
            element.get(_q(STATE_NS, "showing")) == "true" and element.get(_q(STATE_NS, "visible")) == "true"
        )
        if coord and size and shown:
            found.append(element)
    return found


def xml_to_table(xml: str) -> str:
    """The world model's table of an accessibility-tree XML (the inverse of :func:`table_to_xml`).

    For XML from elsewhere (a real OSWorld VM) every showing, visible element with a position and
    a size becomes a row, with the text in double quotes as the world model writes it.
    """
    root = ET.fromstring(xml)
    marked = root.get(_q(TABLE_NS, "columns"))
    columns = json.loads(marked) if marked else list(OS_COLUMNS)
    keys = {
        "tag": _column_index(columns, "tag"),
        "name": _column_index(columns, "name"),
        "text": _column_index(columns, "text"),
        "class": _column_index(columns, "class"),
        "description": _column_index(columns, "description"),
        "position": _column_index(columns, "position"),
        "size": _column_index(columns, "size"),
    }
    lines = ["\t".join(columns)]
    for element in _rows_of(root):
        values = {
            "tag": element.get(_q(TABLE_NS, "tag"), element.tag),
            "name": element.get("name", ""),
            "text": element.get(_q(TABLE_NS, "text"), os_text_cell(_text_of(element))),
            "class": element.get(
                _q(ATTRIBUTES_NS, "class"), element.get(_q(AGENT_ATTRIBUTES_NS, "class"), "")
            ),
            "description": element.get(
                _q(ATTRIBUTES_NS, "description"), element.get(_q(AGENT_ATTRIBUTES_NS, "description"), "")
            ),
            "position": element.get(_q(COMPONENT_NS, "screencoord"), ""),
            "size": element.get(_q(COMPONENT_NS, "size"), ""),
        }
        cells = []
        for i in range(len(columns)):
            key = next((k for k, at in keys.items() if at == i), None)
            cells.append(values[key] if key is not None else element.get(_q(TABLE_NS, f"c{i}"), ""))
        count = element.get(_q(TABLE_NS, "cells"))
        if count is not None and count.isdigit():
            cells = cells[: int(count)]
        lines.append("\t".join(cells))
    return "\n".join(lines)


# -- OSWorld's linearisation -------------------------------------------------------------------------

_KEEP_SUFFIXES = (
    "item",
    "button",
    "heading",
    "label",
    "scrollbar",
    "searchbox",
    "textbox",
    "link",
    "tabelement",
    "textfield",
    "textarea",
    "menu",
)
_KEEP_TAGS = frozenset(
    {
        "alert",
        "canvas",
        "check-box",
        "combo-box",
        "entry",
        "icon",
        "image",
        "paragraph",
        "scroll-bar",
        "section",
        "slider",
        "static",
        "table-cell",
        "terminal",
        "text",
        "netuiribbontab",
        "start",
        "trayclockwclass",
        "traydummysearchcontrol",
        "uiimage",
        "uiproperty",
        "uiribboncommandbar",
    }
)


def _literal_pair(value: str) -> tuple[float, float]:
    try:
        pair = pyast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return (-1, -1)
    if isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(v, (int, float)) for v in pair):
        return (pair[0], pair[1])
    return (-1, -1)


def _kept(element: ET.Element, platform: str) -> bool:
    """OSWorld's filter of the nodes its agents see."""
    tag = element.tag
    ubuntu = platform == "ubuntu"
    state_ns = STATE_NS if ubuntu else WINDOWS_STATE_NS
    component_ns = COMPONENT_NS if ubuntu else WINDOWS_COMPONENT_NS
    if not (tag.startswith("document") or tag.endswith(_KEEP_SUFFIXES) or tag in _KEEP_TAGS):
        return False

    def state(name: str) -> bool:
        return element.get(_q(state_ns, name), "false") == "true"

    if ubuntu and not (state("showing") and state("visible")):
        return False
    if not ubuntu and not state("visible"):
        return False
    if not (state("enabled") or state("editable") or state("expandable") or state("checkable")):
        return False
    if not (element.get("name", "") != "" or (element.text is not None and len(element.text) > 0)):
        return False
    x, y = _literal_pair(element.get(_q(component_ns, "screencoord"), "(-1, -1)"))
    w, h = _literal_pair(element.get(_q(component_ns, "size"), "(-1, -1)"))
    return x >= 0 and y >= 0 and w > 0 and h > 0


def _quote(text: str) -> str:
    return text if '"' not in text else '"{}"'.format(text.replace('"', '""'))


def linearize_accessibility_tree(xml: str, platform: str = "ubuntu") -> str:
    """What OSWorld's agents make of the accessibility-tree XML: the kept nodes (see OSWorld's
    ``filter_nodes``) as a tab-separated table, text written raw (quoted only when it holds a
    double quote, ``""`` when empty), ``class`` and ``description`` read from the attributes
    namespace OSWorld's agent code uses."""
    platform = platform.lower()
    if platform not in ("ubuntu", "windows"):
        raise ValueError("Invalid platform, must be 'ubuntu' or 'windows'")
    ubuntu = platform == "ubuntu"
    component_ns = COMPONENT_NS if ubuntu else WINDOWS_COMPONENT_NS
    value_ns = VALUE_NS if ubuntu else WINDOWS_VALUE_NS
    lines = [OS_HEADER]
    for node in ET.fromstring(xml).iter():
        if not _kept(node, platform):
            continue
        if node.text:
            text = _quote(node.text)
        elif node.get(_q(WINDOWS_CLASS_NS, "class"), "").endswith("EditWrapper") and node.get(
            _q(value_ns, "value")
        ):
            text = _quote(node.get(_q(value_ns, "value"), ""))
        else:
            text = '""'
        klass = (
            node.get(_q(AGENT_ATTRIBUTES_NS, "class"), "")
            if ubuntu
            else node.get(_q(WINDOWS_CLASS_NS, "class"), "")
        )
        lines.append(
            "\t".join(
                [
                    node.tag,
                    node.get("name", ""),
                    text,
                    klass,
                    node.get(_q(AGENT_ATTRIBUTES_NS, "description"), ""),
                    node.get(_q(component_ns, "screencoord"), ""),
                    node.get(_q(component_ns, "size"), ""),
                ]
            )
        )
    return "\n".join(lines)


# -- the environment -------------------------------------------------------------------------------


class PythonController:
    """The parts of OSWorld's ``PythonController`` that agents and harnesses call."""

    def __init__(self, env: DesktopEnv) -> None:
        self.env = env
        self.recording = False

    def get_screenshot(self) -> bytes:
        return self.env.screenshot_png()

    def get_accessibility_tree(self) -> str:
        return table_to_xml(self.env.table_text, self.env.screen_size)

    def get_terminal_output(self) -> str | None:
        return self.env.terminal_output()

    def execute_python_command(self, command: str) -> dict[str, Any]:
        """Run code on the simulated desktop (a step without the special actions)."""
        outcome = self.env._apply(command)
        failed = outcome.action_error is not None
        return {
            "status": "error" if failed else "success",
            "message": outcome.action_error or "",
            "output": "",
            "error": outcome.action_error or "",
            "returncode": 1 if failed else 0,
        }

    def execute_action(self, action: Any) -> None:
        return None

    def get_vm_platform(self) -> str:
        return "Linux"

    def get_vm_machine(self) -> str:
        return "x86_64"

    def get_vm_screen_size(self) -> dict[str, int]:
        width, height = self.env.screen_size
        return {"width": width, "height": height}

    def get_file(self, file_path: str) -> bytes | None:
        return None

    def start_recording(self) -> None:
        self.recording = True

    def end_recording(self, dest: str) -> None:
        self.recording = False


_OSWORLD_KWARGS = (
    "provider_name",
    "region",
    "path_to_vm",
    "snapshot_name",
    "action_space",
    "cache_dir",
    "screen_size",
    "headless",
    "require_a11y_tree",
    "require_terminal",
    "os_type",
    "enable_proxy",
    "client_password",
)


class DesktopEnv(gym.Env):
    """OSWorld's ``DesktopEnv`` (a ``gymnasium.Env``, ``action_space`` the name of the action
    space as in OSWorld) on a simulated desktop (see the module docs).

    Own arguments: ``task`` (the default task: an id, file, mapping or :class:`Task`;
    ``reset(task_config=...)`` overrides it), ``world`` / ``backend``, ``seed`` (each session's),
    ``session_options``. ``pause`` and the VM arguments are accepted and do nothing: the
    simulated desktop does not need to wait.
    """

    def __init__(
        self,
        provider_name: str = "vmware",
        region: str | None = None,
        path_to_vm: str | None = None,
        snapshot_name: str = "init_state",
        action_space: str = "pyautogui",
        cache_dir: str = "cache",
        screen_size: tuple[int, int] = (1920, 1080),
        headless: bool = False,
        require_a11y_tree: bool = True,
        require_terminal: bool = False,
        os_type: str = "Ubuntu",
        enable_proxy: bool = False,
        client_password: str = "",
        *,
        task: str | dict[str, Any] | Task | None = None,
        world: Any = None,
        backend: Any = None,
        seed: int | None = None,
        session_options: dict[str, Any] | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            warnings.warn(
                f"DesktopEnv ignores the keyword argument(s) {', '.join(sorted(unknown))} "
                f"(OSWorld's are {', '.join(_OSWORLD_KWARGS)})",
                stacklevel=2,
            )
        if action_space not in ("pyautogui", "computer_13", "claude_computer_use"):
            raise ValueError(f"Invalid action space {action_space!r}; use 'pyautogui' or 'computer_13'")
        self.provider_name = provider_name
        self.region = region
        self.path_to_vm = path_to_vm
        self.snapshot_name = snapshot_name
        self.action_space = action_space
        self.cache_dir_base = cache_dir
        self.cache_dir = cache_dir
        self.screen_width, self.screen_height = int(screen_size[0]), int(screen_size[1])
        self.headless = headless
        self.require_a11y_tree = require_a11y_tree
        self.require_terminal = require_terminal
        self.os_type = os_type
        self.enable_proxy = enable_proxy
        self.client_password = client_password or "password"
        self.seed = seed
        self._task_source = task
        self.episode = Episode("os", world=world, backend=backend, session_options=session_options)
        self.controller = PythonController(self)
        self.instruction: str | None = None
        self.task_id: str | None = None
        self._traj_no = -1
        self._step_no = 0
        self.action_history: list[Any] = []
        self.last_outcome: StepOutcome | None = None
        self._started = False
        self.closed = False

    # -- properties ----------------------------------------------------------------------------

    @property
    def screen_size(self) -> tuple[int, int]:
        return (self.screen_width, self.screen_height)

    @property
    def table_text(self) -> str:
        """The desktop as the world model wrote it (the accessibility table)."""
        return self.episode.text

    @property
    def task(self) -> Task:
        return self.episode.task

    @property
    def vm_platform(self) -> str:
        return self.controller.get_vm_platform()

    @property
    def vm_machine(self) -> str:
        return self.controller.get_vm_machine()

    @property
    def vm_screen_size(self) -> dict[str, int]:
        return self.controller.get_vm_screen_size()

    # -- OSWorld -------------------------------------------------------------------------------

    def reset(
        self, task_config: Any = None, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A fresh episode of ``task_config`` (an OSWorld task config or any task source)."""
        source = task_config if task_config is not None else self._task_source
        task = load_task(source, "os") if source is not None else Task(id="os-open", domain="os")
        self.episode.begin(task, seed=self.seed if seed is None else seed)
        self._started = True
        self._traj_no += 1
        self._step_no = 0
        self.action_history = []
        self.last_outcome = None
        self.task_id = task.id
        self.instruction = task.instruction or None
        return self._get_obs()

    def step(self, action: Any, pause: float = 2) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        """Apply an action; returns ``(observation, reward, done, info)``. ``done`` after
        ``DONE``/``FAIL``; ``info["action_error"]`` names a refused action (the desktop is
        unchanged), ``info["observation_error"]`` an unusable answer of the world model."""
        if not self._started:
            self.reset()
        self._step_no += 1
        self.action_history.append(action)
        special = self._special(action)
        info: dict[str, Any] = {}
        done = False
        if special == "FAIL":
            done, info = True, {"fail": True}
        elif special == "DONE":
            done, info = True, {"done": True}
        outcome = self._apply(action)
        info.update({k: v for k, v in outcome.info().items() if k not in ("success",)})
        return self._get_obs(), 0.0, done, info

    def evaluate(self) -> float:
        """1.0 when the task's success criteria hold (an ``infeasible`` evaluator: when the
        agent's last action was ``FAIL``), else 0.0."""
        last = self.action_history[-1] if self.action_history else None
        failed = self._special(last) == "FAIL" if last is not None else False
        evaluator = self.task.evaluator or {}
        if evaluator.get("func") == "infeasible":
            return 1.0 if failed else 0.0
        if failed:
            return 0.0
        return 1.0 if self.task.criteria.met(self.episode.text, self.episode.answer) else 0.0

    def render(self, mode: str = "rgb_array") -> Any:  # type: ignore[override]
        """The screenshot as PNG bytes, as OSWorld's ``render`` returns it (whatever the mode's name)."""
        if mode == "rgb_array":
            return self.screenshot_png()
        raise ValueError(f"Unsupported render mode: {mode}")

    def close(self) -> None:
        self.closed = True

    def _get_obs(self) -> dict[str, Any]:
        return {
            "screenshot": self.screenshot_png(),
            "accessibility_tree": table_to_xml(self.table_text, self.screen_size)
            if self.require_a11y_tree
            else None,
            "terminal": self.terminal_output() if self.require_terminal else None,
            "instruction": self.instruction,
        }

    # -- helpers -------------------------------------------------------------------------------

    def screenshot_png(self) -> bytes:
        return png_bytes(render_os_table(parse_os_table(self.table_text), *self.screen_size))

    def terminal_output(self) -> str | None:
        """The text of the front-most terminal on the desktop, if one is showing."""
        table = parse_os_table(self.table_text)
        tag, text = _column_index(table["columns"], "tag"), _column_index(table["columns"], "text")
        if tag is None or text is None:
            return None
        found = [row for row in table["rows"] if tag < len(row) and row[tag] == "terminal"]
        if not found:
            return None
        row = found[-1]
        return os_cell_text(row[text]) if text < len(row) else ""

    @staticmethod
    def _special(action: Any) -> str | None:
        """``WAIT``/``FAIL``/``DONE`` as OSWorld reads them: the plain strings only (a dict with
        that ``action_type`` goes to the controller, which sends nothing, and ends nothing)."""
        return action if isinstance(action, str) and action in ("WAIT", "FAIL", "DONE") else None

    def _code(self, action: Any) -> str:
        if self.action_space == "computer_13":  # everything goes through the controller
            special = self._special(action)
            if special is not None:
                return special
            return computer13_to_code(action) or "WAIT"  # nothing sent: the desktop stays as it is
        if isinstance(action, str):
            return action
        if isinstance(action, dict):
            if "command" in action and isinstance(action["command"], str):
                return action["command"]
            return computer13_to_code(action)
        raise ValueError(f"an action is a code string or a dict, not {type(action).__name__}")

    def _apply(self, action: Any) -> StepOutcome:
        if not self._started:
            self.reset()
        try:
            code = self._code(action)
        except Computer13Error as exc:  # what desktop-env's controller raises
            outcome = self.episode.refuse(f"{exc.kind}: {exc.message}")
        except (ValueError, TypeError) as exc:
            outcome = self.episode.refuse(f"{type(exc).__name__}: {exc}")
        else:
            outcome = self.episode.act(code)
        self.last_outcome = outcome
        return outcome
