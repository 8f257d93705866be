"""An AndroidWorld look-alike: an ``AsyncEnv`` whose phone is simulated by the world model.

:class:`AgentWorldAndroidEnv` has AndroidWorld's ``AsyncEnv`` surface (``reset(go_home)``,
``get_state(wait_to_stabilize)``, ``execute_action(JSONAction)``, ``display_message``,
``ask_question``, ``close``, the screen size, orientation and frame-boundary properties, and a
``controller`` that answers the ``adb`` probes agents make). :meth:`get_state` returns a
:class:`State` with a wireframe ``pixels`` array, a ``forest`` shaped like AndroidEnv's
accessibility forest, :class:`UIElement` records and ``auxiliaries``.

>>> env = AgentWorldAndroidEnv(task="android/clock-set-alarm", backend="offline")   # doctest: +SKIP
>>> state = env.reset(go_home=False)                                                # doctest: +SKIP
>>> env.execute_action(JSONAction(action_type="click", index=3))                   # doctest: +SKIP
>>> [e.text for e in env.get_state().ui_elements][:3]                               # doctest: +SKIP

An action AndroidWorld would reject (an unknown type, ``index`` together with ``x``/``y``) raises
``ValueError`` when the :class:`JSONAction` is built, as in AndroidWorld; ``execute_action``
itself never raises: a refused action or an error the phone shows is kept in
``env.last_action_error`` and in the next state's ``auxiliaries``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from agentworld_plugins.domains.formats.android import parse_android_screen

from .episode import Episode, StepOutcome
from .render import render_android_screen, to_rgb_array
from .task import Task, load_task

__all__ = [
    "AgentWorldAndroidEnv",
    "AgentWorldController",
    "BoundingBox",
    "JSONAction",
    "State",
    "UIElement",
]

# AndroidWorld's action types and scroll directions
ANSWER = "answer"
CLICK = "click"
DOUBLE_TAP = "double_tap"
INPUT_TEXT = "input_text"
KEYBOARD_ENTER = "keyboard_enter"
LONG_PRESS = "long_press"
NAVIGATE_BACK = "navigate_back"
NAVIGATE_HOME = "navigate_home"
OPEN_APP = "open_app"
SCROLL = "scroll"
STATUS = "status"
SWIPE = "swipe"
UNKNOWN = "unknown"
WAIT = "wait"
_ACTION_TYPES = (
    CLICK,
    DOUBLE_TAP,
    SCROLL,
    SWIPE,
    INPUT_TEXT,
    NAVIGATE_HOME,
    NAVIGATE_BACK,
    KEYBOARD_ENTER,
    OPEN_APP,
    STATUS,
    WAIT,
    LONG_PRESS,
    ANSWER,
    UNKNOWN,
)
_DIRECTIONS = ("left", "right", "down", "up")
_FIELDS = (
    "action_type",
    "index",
    "x",
    "y",
    "text",
    "direction",
    "goal_status",
    "app_name",
    "keycode",
    "clear_text",
)


@dataclass
class JSONAction:
    """AndroidWorld's ``JSONAction``; checks the same things on construction (``ValueError``)."""

    action_type: str | None = None
    index: str | int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    goal_status: str | None = None
    app_name: str | None = None
    keycode: str | None = None
    clear_text: bool | None = None

    def __post_init__(self) -> None:
        if self.action_type not in _ACTION_TYPES:
            raise ValueError(f"Invalid action type: {self.action_type}")
        if self.index is not None:
            self.index = int(self.index)
            if self.x is not None or self.y is not None:
                raise ValueError("Either an index or a <x, y> should be provided.")
        if self.direction and self.direction not in _DIRECTIONS:
            raise ValueError(f"Invalid scroll direction: {self.direction}")
        if self.text is not None and not isinstance(self.text, str):
            self.text = str(self.text)
        if self.keycode is not None and not self.keycode.startswith("KEYCODE_"):
            raise ValueError(f"Invalid keycode: {self.keycode}")

    def __eq__(self, other: object) -> bool:
        """AndroidWorld's comparison: ``text`` and ``app_name`` ignore case, ``clear_text`` is not
        compared, and only another JSONAction can be equal."""
        if not isinstance(other, JSONAction):
            return False

        def same(a: str | None, b: str | None) -> bool:
            return a.lower() == b.lower() if a is not None and b is not None else a == b

        keys = ("action_type", "index", "x", "y", "keycode", "direction", "goal_status")
        return (
            same(self.app_name, other.app_name)
            and same(self.text, other.text)
            and all(getattr(self, k) == getattr(other, k) for k in keys)
        )

    def __repr__(self) -> str:
        shown = [
            f"{key}={f'{value:.3f}' if isinstance(value, float) else value!r}"
            for key, value in self.as_dict().items()
        ]
        return f"JSONAction({', '.join(shown)})"

    def as_dict(self, skip_none: bool = True) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None or not skip_none}

    def json_str(self) -> str:
        return json.dumps(self.as_dict(), separators=(",", ":"))


@dataclass
class BoundingBox:
    """AndroidWorld's ``BoundingBox`` (note the field order: x_min, x_max, y_min, y_max)."""

    x_min: float | int
    x_max: float | int
    y_min: float | int
    y_max: float | int

    @property
    def center(self) -> tuple[float, float]:
        return (self.x_min + self.x_max) / 2.0, (self.y_min + self.y_max) / 2.0

    @property
    def width(self) -> float | int:
        return self.x_max - self.x_min

    @property
    def height(self) -> float | int:
        return self.y_max - self.y_min

    @property
    def area(self) -> float | int:
        return self.width * self.height


@dataclass
class UIElement:
    """AndroidWorld's ``UIElement``: ``bbox_pixels`` in screen pixels, ``bbox`` normalised to 0-1."""

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox: BoundingBox | None = None
    bbox_pixels: BoundingBox | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_name: str | None = None
    tooltip: str | None = None
    resource_id: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class State:
    """AndroidWorld's ``State``: screen pixels, the raw forest, UI elements, auxiliary data."""

    pixels: Any
    forest: Any
    ui_elements: list[UIElement]
    auxiliaries: dict[str, Any] | None = None


# -- screen text -> elements, forest ----------------------------------------------------------------


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _opt_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _pixels_box(element: dict[str, Any]) -> BoundingBox | None:
    box = element.get("bbox")
    if isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box):
        return BoundingBox(box[0], box[2], box[1], box[3])
    if isinstance(box, dict) and all(k in box for k in ("x_min", "x_max", "y_min", "y_max")):
        return BoundingBox(box["x_min"], box["x_max"], box["y_min"], box["y_max"])
    return None


def _package(element: dict[str, Any]) -> str | None:
    package = element.get("package_name")
    if package:
        return str(package)
    resource = element.get("resource_name") or element.get("resource_id")
    if isinstance(resource, str) and ":id/" in resource:
        return resource.split(":id/", 1)[0]
    return None


def ui_elements_from_screen(
    elements: list[dict[str, Any]], screen_size: tuple[int, int] = (1080, 2400)
) -> list[UIElement]:
    """:class:`UIElement` records for the element dicts of an android observation."""
    width, height = screen_size
    found = []
    for element in elements:
        pixels = _pixels_box(element)
        normalised = (
            BoundingBox(
                pixels.x_min / width, pixels.x_max / width, pixels.y_min / height, pixels.y_max / height
            )
            if pixels is not None
            else None
        )
        cls = str(element.get("class_name") or "")
        found.append(
            UIElement(
                text=_opt_str(element.get("text")),
                content_description=_opt_str(element.get("content_description")),
                class_name=_opt_str(cls),
                bbox=normalised,
                bbox_pixels=pixels,
                hint_text=_opt_str(element.get("hint_text")),
                is_checked=_opt_bool(element.get("is_checked")),
                is_checkable=_opt_bool(element.get("is_checkable"))
                if "is_checkable" in element
                else any(k in cls for k in ("CheckBox", "Switch", "ToggleButton", "RadioButton")),
                is_clickable=_opt_bool(element.get("is_clickable")),
                is_editable=_opt_bool(element.get("is_editable")),
                is_enabled=_opt_bool(element.get("is_enabled")) if "is_enabled" in element else True,
                is_focused=_opt_bool(element.get("is_focused")),
                is_focusable=_opt_bool(element.get("is_focusable"))
                if "is_focusable" in element
                else bool(element.get("is_editable") or element.get("is_clickable")),
                is_long_clickable=_opt_bool(element.get("is_long_clickable"))
                if "is_long_clickable" in element
                else False,
                is_scrollable=_opt_bool(element.get("is_scrollable")),
                is_selected=_opt_bool(element.get("is_selected")),
                is_visible=_opt_bool(element.get("is_visible")) if "is_visible" in element else True,
                package_name=_package(element),
                resource_name=_opt_str(element.get("resource_name")),
                tooltip=_opt_str(element.get("tooltip")),
                resource_id=_opt_str(element.get("resource_id")),
            )
        )
    return found


def forest_from_screen(
    elements: list[dict[str, Any]], screen_size: tuple[int, int] = (1080, 2400)
) -> SimpleNamespace:
    """A forest shaped like AndroidEnv's ``AndroidAccessibilityForest``: one window whose tree
    has a full-screen root and one leaf node per element (``bounds_in_screen``, ``text``,
    ``content_description``, ``class_name``, flags, ``view_id_resource_name``, ``child_ids``).
    AndroidWorld's ``forest_to_ui_elements`` reads it back into the same elements."""
    width, height = screen_size
    root = SimpleNamespace(
        unique_id=0,
        bounds_in_screen=SimpleNamespace(left=0, top=0, right=width, bottom=height),
        class_name="android.widget.FrameLayout",
        content_description="",
        text="",
        hint_text="",
        package_name="",
        view_id_resource_name="",
        child_ids=list(range(1, len(elements) + 1)),
        depth=0,
        is_checkable=False,
        is_checked=False,
        is_clickable=False,
        is_editable=False,
        is_enabled=True,
        is_focusable=False,
        is_focused=False,
        is_long_clickable=False,
        is_scrollable=False,
        is_selected=False,
        is_visible_to_user=True,
        actions=[],
    )
    nodes = [root]
    for i, element in enumerate(ui_elements_from_screen(elements, screen_size), 1):
        box = element.bbox_pixels or BoundingBox(0, 0, 0, 0)
        nodes.append(
            SimpleNamespace(
                unique_id=i,
                bounds_in_screen=SimpleNamespace(
                    left=box.x_min, top=box.y_min, right=box.x_max, bottom=box.y_max
                ),
                class_name=element.class_name or "",
                content_description=element.content_description or "",
                text=element.text or "",
                hint_text=element.hint_text or "",
                package_name=element.package_name or "",
                view_id_resource_name=element.resource_name or "",
                child_ids=[],
                depth=1,
                is_checkable=bool(element.is_checkable),
                is_checked=bool(element.is_checked),
                is_clickable=bool(element.is_clickable),
                is_editable=bool(element.is_editable),
                is_enabled=element.is_enabled is not False,
                is_focusable=bool(element.is_focusable),
                is_focused=bool(element.is_focused),
                is_long_clickable=bool(element.is_long_clickable),
                is_scrollable=bool(element.is_scrollable),
                is_selected=bool(element.is_selected),
                is_visible_to_user=element.is_visible is not False,
                actions=[],
            )
        )
    window = SimpleNamespace(
        id=1,
        layer=0,
        title="",
        window_type="TYPE_APPLICATION",
        is_focused=True,
        is_active=True,
        bounds_in_screen=SimpleNamespace(left=0, top=0, right=width, bottom=height),
        tree=SimpleNamespace(nodes=nodes),
    )
    return SimpleNamespace(windows=[window])


# -- the controller --------------------------------------------------------------------------------

_OK = 1  # adb_pb2.AdbResponse.Status.OK


def _request_args(request: Any) -> str:
    """The shell words of an adb request (an ``AdbRequest``, a list of words or a string)."""
    if isinstance(request, str):
        return request
    if isinstance(request, (list, tuple)):
        return " ".join(str(a) for a in request)
    generic = getattr(request, "generic", None)
    args = getattr(generic, "args", None)
    if args is not None:
        return " ".join(str(a) for a in args)
    return ""


class AgentWorldController:
    """Answers the probes agents send to AndroidWorld's controller: screen size, orientation,
    frame boundary, current activity, UI elements, and generic ``adb shell`` requests
    (``dumpsys input``, ``dumpsys window``, ``wm size``) through :meth:`execute_adb_call`."""

    def __init__(self, env: AgentWorldAndroidEnv) -> None:
        self._owner = env

    @property
    def env(self) -> AgentWorldController:
        return self

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return self._owner.device_screen_size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self._owner.logical_screen_size

    @property
    def orientation(self) -> int:
        return self._owner.orientation

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return self._owner.physical_frame_boundary

    def get_screen_size(self) -> tuple[int, int]:
        return self.device_screen_size

    def get_logical_screen_size(self) -> tuple[int, int]:
        return self.logical_screen_size

    def get_orientation(self) -> int:
        return self.orientation

    def get_physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return self.physical_frame_boundary

    def get_current_activity(self) -> str:
        return self._owner.foreground_activity_name

    def get_ui_elements(self) -> list[UIElement]:
        return self._owner.get_state().ui_elements

    def get_a11y_forest(self) -> Any:
        return self._owner.get_state().forest

    def refresh_env(self) -> None:
        return None

    def execute_adb_call(self, request: Any) -> SimpleNamespace:
        """An ``AdbResponse``-like answer: ``status`` (1 = OK), ``generic.output`` (bytes),
        ``get_current_activity.full_activity`` and ``get_screen_size`` sizes."""
        words = _request_args(request)
        width, height = self.device_screen_size
        output = ""
        if "dumpsys input" in words:
            output = (
                f"  Viewport INTERNAL: displayId=0, orientation={self.orientation}, "
                f"logicalFrame=[0, 0, {width}, {height}], physicalFrame=[0, 0, {width}, {height}], "
                f"deviceWidth={width}, deviceHeight={height}\n"
                f"    SurfaceOrientation: {self.orientation}\n"
            )
        elif "dumpsys window" in words:
            output = f"  mCurrentRotation=ROTATION_{90 * self.orientation}\n"
        elif "wm size" in words:
            output = f"Physical size: {width}x{height}\n"
        return SimpleNamespace(
            status=_OK,
            error_message="",
            generic=SimpleNamespace(output=output.encode()),
            get_current_activity=SimpleNamespace(full_activity=self.get_current_activity()),
            get_screen_size=SimpleNamespace(width_px=width, height_px=height),
        )


# -- the environment -------------------------------------------------------------------------------


def _action_dict(action: Any) -> dict[str, Any]:
    """The fields of a JSONAction (ours, AndroidWorld's or a look-alike), a dict or a JSON string."""
    if isinstance(action, str):
        action = json.loads(action)  # json.JSONDecodeError is a ValueError
    if isinstance(action, dict):
        data = dict(action)
    elif hasattr(action, "as_dict"):
        data = dict(action.as_dict())
    elif dataclasses.is_dataclass(action) and not isinstance(action, type):
        data = dataclasses.asdict(action)
    else:
        raise ValueError(f"expected a JSONAction, a dict or a JSON string, got {type(action).__name__}")
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise ValueError(f"JSONAction has no field(s) {', '.join(unknown)}")
    fields = {k: v for k, v in data.items() if v is not None}
    JSONAction(**fields)  # AndroidWorld's own checks, with its messages
    return fields


def _error_text(message: str) -> str:
    """Every refused action reads alike: ``ValueError: ...``, as AndroidWorld's JSONAction raises."""
    return message if message.startswith("ValueError: ") else f"ValueError: {message}"


class AgentWorldAndroidEnv:
    """AndroidWorld's ``AsyncEnv`` on a simulated phone (see the module docs).

    ``task``: a task id, file, mapping or :class:`Task` (default: the phone's home screen, or a
    start the world model invents). ``world`` / ``backend``: where the world model runs.
    ``screen_size``: the device's ``(width, height)`` in pixels (AndroidWorld's Pixel: 1080x2400).
    ``seed``: the session seed of each episode. ``session_options``: extra session arguments.
    """

    def __init__(
        self,
        task: str | dict[str, Any] | Task | None = None,
        *,
        world: Any = None,
        backend: Any = None,
        screen_size: tuple[int, int] = (1080, 2400),
        seed: int | None = None,
        session_options: dict[str, Any] | None = None,
    ) -> None:
        self.episode = Episode("android", world=world, backend=backend, session_options=session_options)
        self._task_source = task
        self.seed = seed
        self._screen_size = (int(screen_size[0]), int(screen_size[1]))
        self._controller = AgentWorldController(self)
        self.interaction_cache = ""
        self.last_action_error = ""
        self.messages: list[dict[str, str]] = []
        self.questions: list[str] = []
        self.history: list[dict[str, Any]] = []
        self._outcome: StepOutcome | None = None
        self._cache: tuple[str, State] | None = None
        self._started = False
        self.closed = False

    # -- AsyncEnv ------------------------------------------------------------------------------

    @property
    def controller(self) -> AgentWorldController:
        return self._controller

    @property
    def task(self) -> Task:
        return self.episode.task

    def set_task(self, task: str | dict[str, Any] | Task | None) -> None:
        """Use ``task`` from the next :meth:`reset` on."""
        self._task_source = task

    def reset(self, go_home: bool = False) -> State:
        """A fresh episode of the task (the phone restored), optionally pressing Home first."""
        source = self._task_source
        task = (
            load_task(source, "android") if source is not None else Task(id="android-open", domain="android")
        )
        self.episode.begin(task, seed=self.seed)
        self._started = True
        self.interaction_cache = ""
        self.last_action_error = ""
        self.history = []
        self._outcome = None
        if go_home:
            self._run({"action_type": NAVIGATE_HOME})
        return self.get_state()

    def get_state(self, wait_to_stabilize: bool = False) -> State:
        """The current screen (the simulated screen is always stable)."""
        if not self._started:
            self.reset()
        text = self.episode.text
        if self._cache is None or self._cache[0] != text:
            elements = parse_android_screen(text)
            pixels = to_rgb_array(render_android_screen(elements, *self._screen_size))
            ui = ui_elements_from_screen(elements, self._screen_size)
            self._cache = (text, State(pixels, forest_from_screen(elements, self._screen_size), ui, None))
        cached = self._cache[1]
        return State(
            pixels=cached.pixels.copy(),
            forest=cached.forest,
            ui_elements=[dataclasses.replace(e) for e in cached.ui_elements],
            auxiliaries=self._auxiliaries(),
        )

    def execute_action(self, action: Any) -> None:
        """Apply a :class:`JSONAction` (also AndroidWorld's own, a dict or a JSON string)."""
        if not self._started:
            self.reset()
        try:
            data = _action_dict(action)
            if data.get("action_type") == UNKNOWN:
                raise ValueError("the action type 'unknown' does nothing")
        except (ValueError, TypeError) as exc:
            self._refused(str(exc))
            return
        self._run(data)

    def display_message(self, message: str, header: str = "") -> None:
        """Show a message on the screen's overlay (kept in :attr:`messages`; the screen does not change)."""
        self.messages.append({"header": str(header), "message": str(message)})

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        """Ask the user; answers the task's ``user_answer`` (None when the task has none)."""
        self.questions.append(str(question))
        answer = self.task.user_answer
        if answer is not None:
            self.interaction_cache = answer
        return answer

    def hide_automation_ui(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    @property
    def foreground_activity_name(self) -> str:
        packages = [e.package_name for e in self.get_state().ui_elements if e.package_name]
        apps = [p for p in packages if p not in ("com.android.systemui",)]
        return f"{apps[0]}/.MainActivity" if apps else ""

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return self._screen_size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self._screen_size

    @property
    def orientation(self) -> int:
        return 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return (0, 0, *self._screen_size)

    # -- helpers -------------------------------------------------------------------------------

    def _refused(self, message: str) -> None:
        message = _error_text(message)
        self._outcome = self.episode.refuse(message)
        self.last_action_error = message
        self.history.append({"action": None, "error": message})

    def _run(self, data: dict[str, Any]) -> None:
        outcome = self.episode.act(data)
        self._outcome = outcome
        if outcome.action_error is not None:
            self.last_action_error = _error_text(outcome.action_error)
        elif outcome.observation is not None and outcome.observation_error is None:
            lead = []
            for line in outcome.observation.text.splitlines():
                if line.lstrip().startswith("UI element "):
                    break
                if line.strip():
                    lead.append(line.strip())
            self.last_action_error = "\n".join(lead)
        else:
            self.last_action_error = ""
        if data.get("action_type") == ANSWER and outcome.action_error is None:
            self.interaction_cache = str(data.get("text") or "")
            if self.interaction_cache:
                self.display_message(self.interaction_cache, header="Agent answered:")
        self.history.append({"action": data, "error": self.last_action_error or None})

    def _auxiliaries(self) -> dict[str, Any]:
        outcome = self._outcome
        data: dict[str, Any] = {
            "last_action_error": self.last_action_error,
            "observation_text": self.episode.text,
            "step": self.episode.steps,
        }
        if outcome is not None:
            data.update(outcome.info())
        return data
