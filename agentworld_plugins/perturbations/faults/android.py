"""Android faults: toasts and the system's app-not-responding and crash dialogs."""

from __future__ import annotations

import re

from ...domains.formats.android import (
    android_element,
    ui_element_indices,
    ui_element_line,
)
from ..targeting import ActionView
from .core import FaultContext

_ANDROID_APPS = {
    "nexuslauncher": "Pixel Launcher",
    "deskclock": "Clock",
    "settings": "Settings",
    "chrome": "Chrome",
    "contacts": "Contacts",
    "messaging": "Messages",
    "dialer": "Phone",
    "calendar": "Calendar",
    "gm": "Gmail",
    "camera": "Camera",
    "photos": "Photos",
    "documentsui": "Files",
    "systemui": "System UI",
}


def _ui(
    index: int,
    text: str,
    cls: str,
    resource: str | None,
    bbox: list[int],
    clickable: bool = False,
) -> str:
    return ui_element_line(index, android_element(text, None, cls, resource, bbox, clickable=clickable))


def _android_app(view: ActionView, screen: str) -> str:
    if view.tool == "open_app" and view.target:
        return view.target
    counts: dict[str, int] = {}
    for package in re.findall(r'"resource_name": "([\w.]+):id/', screen):
        counts[package] = counts.get(package, 0) + 1
    for package, _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        last = package.rsplit(".", 1)[-1]
        if last != "systemui":
            return _ANDROID_APPS.get(last, last.capitalize())
    return "System UI"


def _error_dialog(title: str, *buttons: tuple[str, str]) -> str:
    """Android's app-error dialog (not responding, keeps stopping): the title, then a row per
    ``(text, resource id)`` button."""
    rows = [_ui(0, title, "android.widget.TextView", "android:id/alertTitle", [126, 1005, 954, 1089])]
    for i, (text, resource) in enumerate(buttons):
        top = 1131 + 132 * i
        rows.append(
            _ui(
                i + 1,
                text,
                "android.widget.Button",
                f"android:id/{resource}",
                [84, top, 996, top + 132],
                True,
            )
        )
    return "\n".join(rows)


def android_error(kind: str, ctx: FaultContext) -> str:
    screen = ctx.previous or ""
    app = _android_app(ctx.view, screen)
    if kind == "timeout":
        return _error_dialog(f"{app} isn't responding", ("Close app", "aerr_close"), ("Wait", "aerr_wait"))
    if kind == "server_error":
        return _error_dialog(
            f"{app} keeps stopping", ("App info", "aerr_app_info"), ("Close app", "aerr_close")
        )
    toast = {
        "permission_denied": "Permission denied",
        "not_found": f"{ctx.view.target} not found"
        if ctx.view.tool == "open_app" and ctx.view.target
        else "File not found",
        "rate_limit": f"Too many requests. Try again in {ctx.retry_after} seconds.",
        "connection_reset": "Connection was reset. Check your connection and try again.",
    }[kind]
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    indices = ui_element_indices(screen)
    lines.append(
        _ui(
            max(indices, default=-1) + 1,
            toast,
            "android.widget.Toast",
            None,
            [202, 2050, 878, 2180],
        )
    )
    return "\n".join(lines)
