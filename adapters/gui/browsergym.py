"""A BrowserGym look-alike: ``browsergym/agentworld.<task>`` gymnasium environments.

The environment takes BrowserGym's ``gym.make`` keyword arguments, the high-level action strings
(``click('12')``, ``fill('14', 'mouse')``, ``goto(url)``, ``send_msg_to_user(text)``, ...) and
returns BrowserGym's observation dictionary. The world model's page text becomes an
``axtree_object`` in Chrome DevTools Protocol shape (``nodeId``, ``role.value``, ``name.value``,
``properties``, ``childIds``, ``browsergym_id``), ``extra_element_properties``, a synthetic
``dom_object`` and a wireframe ``screenshot``. :func:`flatten_axtree` turns the tree back into the
page's lines.

>>> import gymnasium as gym, agentworld_plugins                                   # doctest: +SKIP
>>> env = gym.make("browsergym/agentworld.shop-find-mouse", backend="offline")    # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                                                 # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step("click('24')")            # doctest: +SKIP
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from agentworld_plugins import pyast
from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page
from agentworld_plugins.domains.web import WebActionError, parse_web_action
from agentworld_plugins.errors import ConfigError

from .episode import Episode
from .render import Box, layout_web_page, render_web_page, to_rgb_array
from .spaces import AnyBox, AnyDict, Float, Unicode
from .task import Task, load_task
from .web_actions import BrowserGymActionSet

__all__ = [
    "AgentWorldBrowserEnv",
    "axtree_from_page",
    "dom_from_page",
    "extra_properties_from_page",
    "flatten_axtree",
]

#: the welcome line BrowserGym's chat starts with
WELCOME = "Hi! I am your UI assistant, I can perform web tasks for you. What can I help you with?"
FRAME_ID = "AGENTWORLD_MAIN_FRAME"

#: flags that BrowserGym's own flattening writes bare when true (others it writes ``name=True``)
_BARE_TRUE = frozenset({"focused", "required", "atomic"})
_TRISTATE = frozenset({"checked", "pressed"})
_CLICKABLE_ROLES = frozenset(
    {
        "link",
        "button",
        "checkbox",
        "radio",
        "switch",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "textbox",
        "searchbox",
        "combobox",
        "spinbutton",
        "slider",
        "treeitem",
    }
)


# -- page text <-> axtree_object -------------------------------------------------------------------


def _literal(raw: str) -> tuple[bool, Any]:
    try:
        return True, pyast.literal_eval(raw)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _ax_type(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "tristate" if key in _TRISTATE and value in ("true", "false", "mixed") else "string"
    if value is None:
        return "valueUndefined"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "tokenList"
    return "string"


def _flat_property(prop: dict[str, Any]) -> str:
    """One property as a flattened line writes it (``, ``-separated, without the comma)."""
    name = str(prop.get("name", ""))
    if "raw" in prop:
        return f"{name}={prop['raw']}"
    value = prop.get("value") or {}
    kind, data = value.get("type"), value.get("value")
    if data is True and (kind == "booleanOrUndefined" or (kind == "boolean" and name in _BARE_TRUE)):
        return name
    return f"{name}={data!r}"


def _ax_property(key: str, raw: str | None) -> dict[str, Any]:
    """The CDP ``AXProperty`` for a ``key`` / raw value pair of the page text."""
    if raw is None:  # a bare flag such as ``focused`` or ``clickable``
        kind = "boolean" if key in _BARE_TRUE else "booleanOrUndefined"
        return {"name": key, "value": {"type": kind, "value": True}}
    ok, value = _literal(raw)
    if not ok:  # not a Python literal (``hasPopup=menu``): a token, as written
        prop: dict[str, Any] = {"name": key, "value": {"type": "token", "value": raw}}
    else:
        kind = _ax_type(key, value)
        if kind == "string" and not isinstance(value, str):  # a tuple, dict, bytes...: kept as text
            prop = {"name": key, "value": {"type": "string", "value": raw}}
        else:
            prop = {"name": key, "value": {"type": kind, "value": value}}
    if _flat_property(prop) != f"{key}={raw}":
        prop["raw"] = raw  # keeps the page's own notation where it is not Python's repr
    return prop


def _root_node(children: list[str]) -> dict[str, Any]:
    return {
        "nodeId": "0",
        "ignored": True,
        "ignoredReasons": [],
        "role": {"type": "role", "value": "none"},
        "childIds": children,
        "backendDOMNodeId": 0,
        "frameId": FRAME_ID,
    }


def _as_page(page: dict[str, Any] | str) -> dict[str, Any]:
    return parse_web_page(page) if isinstance(page, str) else page


def axtree_from_page(page: dict[str, Any] | str) -> dict[str, Any]:
    """The ``axtree_object`` (``{"nodes": [...]}`` in CDP shape) of a web page's text or model.

    Node ``0`` is the root when the page has a single top-level node (``RootWebArea``);
    otherwise an ignored, unnamed root holds the top-level nodes (flattening skips it). Each
    node carries ``nodeId``, ``ignored``, ``role``, ``name``, ``properties`` in the page's order,
    ``childIds``, ``parentId``, ``backendDOMNodeId``, ``frameId`` and, when the line has one,
    ``browsergym_id``. A node written without a name gets an empty name and
    ``agentworld_unnamed: true`` so that it flattens back without quotes.
    """
    parsed = _as_page(page)
    lines: list[dict[str, Any]] = parsed.get("nodes") or []
    nodes: list[dict[str, Any]] = []
    tops: list[str] = []
    stack: list[tuple[int, dict[str, Any]]] = []
    for i, line in enumerate(lines):
        node_id = str(i + 1)
        node: dict[str, Any] = {
            "nodeId": node_id,
            "ignored": False,
            "role": {"type": "role", "value": str(line["role"])},
            "name": {"type": "computedString", "value": "" if line["name"] is None else str(line["name"])},
            "properties": [_ax_property(str(k), v) for k, v in line["props"]],
            "childIds": [],
            "backendDOMNodeId": i + 1,
            "frameId": FRAME_ID,
        }
        if line["name"] is None:
            node["agentworld_unnamed"] = True
        if line["bid"] is not None:
            node["browsergym_id"] = str(line["bid"])
        depth = int(line["depth"])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            parent = stack[-1][1]
            parent["childIds"].append(node_id)
            node["parentId"] = parent["nodeId"]
        else:
            tops.append(node_id)
        stack.append((depth, node))
        nodes.append(node)
    if len(tops) == 1 and nodes:
        return {"nodes": nodes}
    for node in nodes:
        if "parentId" not in node:
            node["parentId"] = "0"
    return {"nodes": [_root_node(tops), *nodes]}


def _node_line(node: dict[str, Any], depth: int) -> str:
    role = str((node.get("role") or {}).get("value", ""))
    parts = ["\t" * depth]
    bid = node.get("browsergym_id")
    if bid is not None:
        parts.append(f"[{bid}] ")
    parts.append(role)
    if not node.get("agentworld_unnamed"):
        name = str((node.get("name") or {}).get("value", ""))
        parts.append(f" {name!r}")
    if "value" in node and isinstance(node["value"], dict) and "value" in node["value"]:
        parts.append(f" value={node['value']['value']!r}")
    for prop in node.get("properties") or []:
        parts.append(", " + _flat_property(prop))
    return "".join(parts)


def flatten_axtree(axtree: dict[str, Any]) -> str:
    """The lines of an ``axtree_object``: ``[bid] role 'name', prop, key=value`` with one tab
    per depth, as the world model writes a page (the inverse of :func:`axtree_from_page`).

    Ignored nodes without a name are skipped and pass their depth to their children, as
    BrowserGym's ``flatten_axtree_to_str`` does.
    """
    nodes = axtree.get("nodes") or []
    if not nodes:
        return ""
    by_id = {str(node.get("nodeId")): node for node in nodes}
    lines: list[str] = []
    todo: list[tuple[dict[str, Any], int]] = [(nodes[0], 0)]
    seen: set[str] = set()
    while todo:
        node, depth = todo.pop()
        key = str(node.get("nodeId"))
        if key in seen:
            continue
        seen.add(key)
        skip = bool(node.get("ignored")) and "name" not in node
        if not skip:
            lines.append(_node_line(node, depth))
        child_depth = depth if skip else depth + 1
        children = [by_id[str(c)] for c in node.get("childIds") or [] if str(c) in by_id and str(c) != key]
        todo.extend((child, child_depth) for child in reversed(children))
    return "\n".join(lines)


def _prop_raw(node: dict[str, Any], key: str) -> str | None:
    for name, value in node.get("props") or []:
        if name == key:
            return "True" if value is None else value
    return None


def _truthy(raw: str | None) -> bool:
    if raw is None:
        return False
    ok, value = _literal(raw)
    value = value if ok else raw
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _clickable(node: dict[str, Any]) -> bool:
    return _prop_raw(node, "clickable") is not None or str(node.get("role")) in _CLICKABLE_ROLES


def extra_properties_from_page(
    page: dict[str, Any] | str,
    boxes: list[Box | None] | None = None,
    viewport: tuple[int, int] = (1280, 720),
    scroll_y: float = 0.0,
) -> dict[str, dict[str, Any]]:
    """BrowserGym's ``extra_element_properties``: per bid ``visibility`` (1.0 in the viewport,
    else 0.0), ``bbox`` ``[x, y, width, height]`` in viewport pixels, ``clickable`` and
    ``set_of_marks``."""
    parsed = _as_page(page)
    nodes = parsed.get("nodes") or []
    if boxes is None:
        boxes = layout_web_page(parsed, viewport[0])
    width, height = viewport
    found: dict[str, dict[str, Any]] = {}
    for node, box in zip(nodes, boxes):
        bid = node.get("bid")
        if bid is None or bid in found:
            continue
        bbox = None
        visible = 0.0
        if box is not None:
            top = box.y - scroll_y
            bbox = [float(box.x), float(top), float(box.w), float(box.h)]
            shown_w = max(0.0, min(box.x + box.w, width) - max(box.x, 0.0))
            shown_h = max(0.0, min(top + box.h, height) - max(top, 0.0))
            area = box.w * box.h
            visible = round(shown_w * shown_h / area, 4) if area > 0 else 0.0
        clickable = _clickable(node)
        found[str(bid)] = {
            "visibility": visible,
            "bbox": bbox,
            "clickable": clickable,
            "set_of_marks": bool(clickable and visible >= 0.5),
        }
    return found


_TAGS = {
    "RootWebArea": "body",
    "link": "a",
    "button": "button",
    "textbox": "input",
    "searchbox": "input",
    "checkbox": "input",
    "radio": "input",
    "spinbutton": "input",
    "slider": "input",
    "combobox": "select",
    "listbox": "select",
    "option": "option",
    "paragraph": "p",
    "list": "ul",
    "listitem": "li",
    "navigation": "nav",
    "main": "main",
    "banner": "header",
    "contentinfo": "footer",
    "img": "img",
    "image": "img",
    "table": "table",
    "row": "tr",
    "cell": "td",
    "gridcell": "td",
    "columnheader": "th",
    "rowheader": "th",
    "form": "form",
    "dialog": "dialog",
    "article": "article",
    "region": "section",
    "complementary": "aside",
    "LabelText": "label",
    "label": "label",
}
_INPUT_TYPES = {
    "searchbox": "search",
    "checkbox": "checkbox",
    "radio": "radio",
    "spinbutton": "number",
    "slider": "range",
}


def dom_from_page(
    page: dict[str, Any] | str, boxes: list[Box | None] | None = None, url: str = ""
) -> dict[str, Any]:
    """A DOM snapshot in the shape of CDP ``DOMSnapshot.captureSnapshot`` (``documents`` and a
    shared ``strings`` table), synthesised from the page: one element per node (``bid``
    attribute, ``value``, ``checked``, ``aria-label``), text nodes for ``StaticText``, and layout
    bounds from the wireframe. It is a plausible stand-in, not a real page's DOM."""
    parsed = _as_page(page)
    strings: list[str] = []
    index: dict[str, int] = {}

    def s(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    nodes = parsed.get("nodes") or []
    if boxes is None:
        boxes = layout_web_page(parsed)
    parent_index: list[int] = [-1, 0, 1]
    node_type: list[int] = [9, 1, 1]
    node_name: list[int] = [s("#document"), s("HTML"), s("BODY")]
    node_value: list[int] = [-1, -1, -1]
    backend_ids: list[int] = [1, 2, 3]
    attributes: list[list[int]] = [[], [], []]
    text_value: dict[str, list[int]] = {"index": [], "value": []}
    input_value: dict[str, list[int]] = {"index": [], "value": []}
    input_checked: dict[str, list[int]] = {"index": []}
    clickable: dict[str, list[int]] = {"index": []}
    layout: dict[str, list[Any]] = {"nodeIndex": [], "bounds": [], "text": []}
    stack: list[tuple[int, int]] = []  # (depth, dom index)
    for line, box in zip(nodes, boxes):
        role = str(line["role"])
        depth = int(line["depth"])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else 2
        if role == "RootWebArea":
            stack.append((depth, 2))
            continue
        position = len(parent_index)
        name = "" if line["name"] is None else str(line["name"])
        parent_index.append(parent)
        backend_ids.append(position + 1)
        if role == "StaticText":
            node_type.append(3)
            node_name.append(s("#text"))
            node_value.append(s(name))
            attributes.append([])
        else:
            tag = _TAGS.get(role, "div")
            if role == "heading":
                level = _prop_raw(line, "level")
                tag = f"h{level}" if level and level.isdigit() and 1 <= int(level) <= 6 else "h2"
            if role == "textbox" and _prop_raw(line, "multiline") is not None:
                tag = "textarea"
            node_type.append(1)
            node_name.append(s(tag.upper()))
            node_value.append(-1)
            attrs: list[int] = []
            if line["bid"] is not None:
                attrs += [s("bid"), s(str(line["bid"]))]
            if role in _INPUT_TYPES:
                attrs += [s("type"), s(_INPUT_TYPES[role])]
            if name and role not in ("StaticText",):
                attrs += [s("aria-label"), s(name)]
            url_raw = _prop_raw(line, "url")
            if role == "link" and url_raw is not None:
                ok, href = _literal(url_raw)
                attrs += [s("href"), s(str(href if ok else url_raw))]
            value_raw = _prop_raw(line, "value")
            if value_raw is not None:
                ok, value = _literal(value_raw)
                shown = str(value if ok else value_raw)
                attrs += [s("value"), s(shown)]
                input_value["index"].append(position)
                input_value["value"].append(s(shown))
            if _truthy(_prop_raw(line, "checked")):
                input_checked["index"].append(position)
            if _clickable(line):
                clickable["index"].append(position)
            attributes.append(attrs)
            stack.append((depth, position))
        if box is not None:
            layout["nodeIndex"].append(position)
            layout["bounds"].append([box.x, box.y, box.w, box.h])
            layout["text"].append(s(name) if role == "StaticText" else -1)
    document = {
        "documentURL": s(url),
        "title": s(str(parsed.get("title") or "")),
        "baseURL": s(url),
        "contentLanguage": s("en"),
        "encodingName": s("UTF-8"),
        "frameId": s(FRAME_ID),
        "nodes": {
            "parentIndex": parent_index,
            "nodeType": node_type,
            "nodeName": node_name,
            "nodeValue": node_value,
            "backendNodeId": backend_ids,
            "attributes": attributes,
            "textValue": text_value,
            "inputValue": input_value,
            "inputChecked": input_checked,
            "isClickable": clickable,
            "contentDocumentIndex": {"index": [], "value": []},
        },
        "layout": layout,
        "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []},
        "scrollOffsetX": 0,
        "scrollOffsetY": 0,
    }
    return {"documents": [document], "strings": strings}


def _focused_bid(page: dict[str, Any]) -> str:
    for node in page.get("nodes") or []:
        if node.get("bid") is not None and any(key == "focused" for key, _ in node.get("props") or []):
            return str(node["bid"])
    return ""


# -- the environment -------------------------------------------------------------------------------

_BROWSERGYM_KWARGS = (
    "task_kwargs",
    "viewport",
    "slow_mo",
    "timeout",
    "locale",
    "timezone_id",
    "tags_to_mark",
    "headless",
    "wait_for_user_message",
    "terminate_on_infeasible",
    "resizeable_window",
    "record_video_dir",
    "pw_chromium_kwargs",
    "pw_context_kwargs",
    "action_mapping",
    "use_raw_page_output",
    "pre_observation_delay",
)


class _Chat:
    """BrowserGym's chat, without a window: messages with role, timestamp and text."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def add_message(self, role: str, msg: str) -> None:
        self.messages.append({"role": role, "timestamp": time.time(), "message": str(msg)})

    def close(self) -> None:
        return None


class AgentWorldBrowserEnv(gym.Env):
    """A BrowserGym ``BrowserEnv`` whose browser and sites are simulated by the world model.

    Accepts BrowserGym's keyword arguments (``task_kwargs``, ``viewport``, ``headless``,
    ``wait_for_user_message``, ``terminate_on_infeasible``, ``action_mapping``, ...); the
    Playwright-specific ones are accepted and have no effect. Own arguments: ``task`` (a task
    id, file, mapping or :class:`Task`), ``world`` / ``backend`` (where the world model runs),
    ``session_options`` (perturbations, sampling, world_bible, ... for each session), and
    ``max_steps`` (truncate after so many steps; default: the task's, else none).

    An action that does not parse or fit BrowserGym's signatures sets ``last_action_error`` and
    leaves the page as it was; so does an answer of the world model that is not a page (then
    ``info["agentworld"]["observation_error"]`` says so).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        task: str | dict[str, Any] | Task | None = None,
        *,
        world: Any = None,
        backend: Any = None,
        session_options: dict[str, Any] | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
        task_kwargs: dict[str, Any] | None = None,
        viewport: dict[str, int] | None = None,
        slow_mo: int | None = None,
        timeout: int | None = None,
        locale: str | None = None,
        timezone_id: str | None = None,
        tags_to_mark: str = "standard_html",
        headless: bool = True,
        wait_for_user_message: bool = False,
        terminate_on_infeasible: bool = True,
        resizeable_window: bool = False,
        record_video_dir: str | None = None,
        pw_chromium_kwargs: dict[str, Any] | None = None,
        pw_context_kwargs: dict[str, Any] | None = None,
        action_mapping: Callable[[str], str] | str | None = "default",
        use_raw_page_output: bool = False,
        pre_observation_delay: float = 0.5,
        **unknown: Any,
    ) -> None:
        super().__init__()
        if unknown:
            warnings.warn(
                f"AgentWorldBrowserEnv ignores the keyword argument(s) {', '.join(sorted(unknown))} "
                f"(BrowserGym's are {', '.join(_BROWSERGYM_KWARGS)})",
                stacklevel=2,
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"Unknown render_mode {render_mode!r}", hint="use 'rgb_array' or None")
        if tags_to_mark not in ("all", "standard_html"):
            raise ConfigError(f"tags_to_mark must be 'all' or 'standard_html', not {tags_to_mark!r}")
        self.render_mode = render_mode
        self.task_kwargs = dict(task_kwargs or {})
        self.viewport = dict(viewport or {"width": 1280, "height": 720})
        self.slow_mo, self.timeout, self.locale, self.timezone_id = slow_mo, timeout, locale, timezone_id
        self.tags_to_mark = tags_to_mark
        self.headless = headless
        self.wait_for_user_message = wait_for_user_message
        self.terminate_on_infeasible = terminate_on_infeasible
        self.resizeable_window = resizeable_window
        self.record_video_dir = record_video_dir
        self.pw_chromium_kwargs = dict(pw_chromium_kwargs or {})
        self.pw_context_kwargs = dict(pw_context_kwargs or {})
        self.action_mapping = action_mapping
        self.use_raw_page_output, self.pre_observation_delay = use_raw_page_output, pre_observation_delay
        self.max_steps = max_steps
        self._task_source = task
        self.episode = Episode("web", world=world, backend=backend, session_options=session_options)
        self.chat = _Chat()
        self.goal_object: list[dict[str, Any]] = []
        self.last_action = ""
        self.last_action_error = ""
        self.infeasible_message_received = False
        self.start_time = time.time()
        self.scroll_y = 0.0
        self._urls_by_title: dict[str, str] = {}
        self._page: dict[str, Any] = parse_web_page(DEFAULT_WEB_PAGE)
        self._boxes: list[Box | None] = []
        self.observation_space = gym.spaces.Dict(
            {
                "chat_messages": gym.spaces.Sequence(
                    gym.spaces.Dict({"role": Unicode(), "timestamp": Float(), "message": Unicode()})
                ),
                "goal": Unicode(),
                "goal_object": gym.spaces.Sequence(AnyDict()),
                "open_pages_urls": gym.spaces.Sequence(Unicode()),
                "open_pages_titles": gym.spaces.Sequence(Unicode()),
                "active_page_index": gym.spaces.Box(low=0, high=255, shape=(1,), dtype=np.int64),
                "url": Unicode(),
                "screenshot": AnyBox(low=0, high=255, shape=(-1, -1, 3), dtype=np.uint8),
                "dom_object": AnyDict(),
                "axtree_object": AnyDict(),
                "extra_element_properties": AnyDict(),
                "focused_element_bid": Unicode(),
                "last_action": Unicode(),
                "last_action_error": Unicode(),
                "elapsed_time": gym.spaces.Box(low=0.0, high=1e12, shape=(1,), dtype=np.float64),
            }
        )
        self.action_space = Unicode()  # BrowserGym's: any text

    # -- the task ------------------------------------------------------------------------------

    def _make_task(self) -> Task:
        source = self._task_source
        task = load_task(source, "web") if source is not None else Task(id="open", domain="web")
        updates: dict[str, Any] = {}
        start_url = self.task_kwargs.get("start_url")
        goal = self.task_kwargs.get("goal", self.task_kwargs.get("instruction"))
        if start_url and not task.start_url:
            updates["start_url"] = str(start_url)
        if goal and not task.instruction:
            updates["instruction"] = str(goal)
        return task.model_copy(update=updates) if updates else task

    @property
    def task(self) -> Task:
        return self.episode.task

    @property
    def page_text(self) -> str:
        """The current page as the world model wrote it."""
        return self.episode.text

    # -- gymnasium -------------------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        if "task" in options:
            self._task_source = options["task"]
        start = self.episode.begin(self._make_task(), seed=seed)
        self.goal_object = [{"type": "text", "text": self.task.instruction}] if self.task.instruction else []
        self.chat = _Chat()
        self.chat.add_message("assistant", WELCOME)
        for message in self.goal_object:
            self.chat.add_message("user", message["text"])
        self.last_action = ""
        self.last_action_error = ""
        self.infeasible_message_received = False
        self.scroll_y = 0.0
        self._urls_by_title = {}
        self._set_page(self.episode.text)
        self.start_time = time.time()
        info = {
            "task_info": {"task_id": self.task.id, "instruction": self.task.instruction},
            "agentworld": {"initial_state": start.source, "initial_state_error": start.error},
        }
        return self._get_obs(), info

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        info: dict[str, Any] = {"action_exec_start": time.time(), "action_exec_timeout": 0}
        self.last_action = action if isinstance(action, str) else repr(action)
        refused = self._mapping_error(action)
        actions, planned = BrowserGymActionSet.from_mapping(self.action_mapping), ""
        if refused is None and actions is not None:  # as the action set reads and runs it
            action, planned = actions.plan(action)
            refused = None if action else planned
        if refused is not None:
            outcome = self.episode.refuse(refused)
            error = refused
        else:
            outcome = self.episode.act(action)
            if outcome.action_error is not None:
                error = self._action_error(action, outcome.action_error)
            else:
                self._apply_chat(action)
                error = ""
                if outcome.observation is not None and outcome.observation_error is None:
                    error = str(parse_web_page(outcome.text).get("error") or "")
                    self._track_scroll(action, outcome.text)
            error = error or planned  # the calls before a failing one have run
        self.last_action_error = error
        self._set_page(self.episode.text)
        info["action_exec_stop"] = time.time()
        success = outcome.success
        reward = 1.0 if success else 0.0
        terminated = success or (self.terminate_on_infeasible and self.infeasible_message_received)
        limit = self._limit()
        truncated = bool(limit is not None and self.episode.steps >= limit and not terminated)
        info["task_info"] = {"task_id": self.task.id, "success": success}
        info["agentworld"] = outcome.info()
        return self._get_obs(), reward, terminated, truncated, info

    def render(self) -> Any:
        if self.render_mode == "rgb_array":
            return self._screenshot()
        return None

    def close(self) -> None:
        self.chat.close()

    # -- helpers -------------------------------------------------------------------------------

    def _limit(self) -> int | None:
        return self.max_steps or self.task.max_steps

    def _mapping_error(self, action: Any) -> str | None:
        """Run the agent's own ``action_mapping`` (it only translates text), as BrowserGym does."""
        mapping = self.action_mapping
        if not callable(mapping):
            return None
        try:
            mapping(action)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

    @staticmethod
    def _action_error(action: Any, message: str) -> str:
        try:
            parse_web_action(action)
        except WebActionError as exc:
            return f"ValueError: {exc}"
        return f"ValueError: {message}"

    def _apply_chat(self, action: str) -> None:
        for name, args in parse_web_action(action):
            if name == "send_msg_to_user":
                self.chat.add_message("assistant", args["text"])
            elif name == "report_infeasible":
                self.chat.add_message("infeasible", args["reason"])
                self.infeasible_message_received = True

    def _track_scroll(self, action: str, after: str) -> None:
        if str(self._page.get("url") or "") != str(parse_web_page(after).get("url") or ""):
            self.scroll_y = 0.0  # a new page opens at its top
        for name, args in parse_web_action(action):
            if name in ("scroll", "scroll_at"):
                self.scroll_y = max(0.0, self.scroll_y + float(args.get("delta_y", args.get("dy", 0))))

    def _set_page(self, text: str) -> None:
        self._page = parse_web_page(text)
        self._boxes = layout_web_page(self._page, int(self.viewport["width"]))
        if self._boxes and self._boxes[0] is not None:
            bottom = max(0.0, self._boxes[0].h - float(self.viewport["height"]))
            self.scroll_y = min(self.scroll_y, bottom)
        if self._page.get("title") is not None and self._page.get("url"):
            self._urls_by_title[str(self._page["title"])] = str(self._page["url"])

    def _screenshot(self) -> np.ndarray:
        image, _ = render_web_page(
            self._page, int(self.viewport["width"]), int(self.viewport["height"]), self.scroll_y
        )
        return to_rgb_array(image)

    def _pages(self) -> tuple[tuple[str, ...], tuple[str, ...], int]:
        page = self._page
        url, title = str(page.get("url") or ""), str(page.get("title") or "")
        tabs = page.get("tabs")
        active = page.get("active_tab")
        if not tabs or active is None or not 0 <= int(active) < len(tabs):
            return (url,), (title,), 0
        urls = tuple(
            url if i == active else self._urls_by_title.get(str(t), "about:blank") for i, t in enumerate(tabs)
        )
        titles = tuple(title if i == active else str(t) for i, t in enumerate(tabs))
        return urls, titles, int(active)

    def _get_obs(self) -> dict[str, Any]:
        urls, titles, active = self._pages()
        viewport = (int(self.viewport["width"]), int(self.viewport["height"]))
        goal = "\n".join(m["text"] for m in self.goal_object if m.get("type") == "text")
        return {
            "chat_messages": tuple(copy.deepcopy(self.chat.messages)),
            "goal": goal,
            "goal_object": tuple(copy.deepcopy(self.goal_object)),
            "open_pages_urls": urls,
            "open_pages_titles": titles,
            "active_page_index": np.asarray([active], dtype=np.int64),
            "url": urls[active],
            "screenshot": self._screenshot(),
            "dom_object": dom_from_page(self._page, self._boxes, urls[active]),
            "axtree_object": axtree_from_page(self._page),
            "extra_element_properties": extra_properties_from_page(
                self._page, self._boxes, viewport, self.scroll_y
            ),
            "focused_element_bid": _focused_bid(self._page),
            "last_action": self.last_action,
            "last_action_error": self.last_action_error,
            "elapsed_time": np.asarray([time.time() - self.start_time], dtype=np.float64),
        }


def make_env(task: str | None = None, **kwargs: Any) -> AgentWorldBrowserEnv:
    """The registration entry point: ``browsergym/agentworld.<task>`` (``open``: no task)."""
    return AgentWorldBrowserEnv(task=None if task in (None, "open") else task, **kwargs)
