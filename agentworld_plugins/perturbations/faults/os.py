"""Desktop faults: GNOME dialogs and browser error pages in the accessibility table."""

from __future__ import annotations

import re

from ...domains.formats.os import OS_HEADER
from .core import HTTP_STATUS, FaultContext


def _os_row(tag: str, name: str, text: str, position: tuple[int, int], size: tuple[int, int]) -> str:
    return f"{tag}\t{name}\t{text}\t\t\t({position[0]}, {position[1]})\t({size[0]}, {size[1]})"


def _message_dialog(title: str, message: str) -> list[str]:
    """GNOME's one-button error dialog: the title, the message and OK."""
    return [
        _os_row("alert", title, "", (660, 420), (600, 180)),
        _os_row("label", message, "", (690, 470), (540, 40)),
        _os_row("push-button", "OK", "", (1110, 540), (120, 40)),
    ]


def os_error(kind: str, ctx: FaultContext) -> str:
    table = ctx.previous.strip("\n") if ctx.previous.strip() else OS_HEADER
    frame = re.search(r"^frame\t([^\t]+)", table, re.MULTILINE)
    app = frame.group(1) if frame else "Files"
    name = (ctx.view.target or "").rstrip("/").rsplit("/", 1)[-1] or "Documents"
    if kind == "timeout":
        rows = [
            _os_row("alert", f"“{app}” is not responding.", "", (660, 420), (600, 200)),
            _os_row(
                "label",
                "You may choose to wait a short while for it to continue or force the application to quit entirely.",
                "",
                (690, 470),
                (540, 40),
            ),
            _os_row("push-button", "Force Quit", "", (690, 560), (260, 40)),
            _os_row("push-button", "Wait", "", (970, 560), (260, 40)),
        ]
    elif kind == "permission_denied":
        rows = _message_dialog(
            f"Could not open “{name}”.",
            f"You do not have the permissions necessary to view the contents of “{name}”.",
        )
    elif kind == "not_found":
        rows = _message_dialog(f"Could not find “{name}”.", "Please check the spelling and try again.")
    elif kind == "connection_reset":
        rows = [
            _os_row(
                "document-web",
                "This site can\u2019t be reached",
                "",
                (70, 120),
                (1850, 960),
            ),
            _os_row("heading", "This site can\u2019t be reached", "", (400, 300), (800, 40)),
            _os_row("label", "The connection was reset.", "", (400, 360), (800, 24)),
            _os_row("label", "ERR_CONNECTION_RESET", "", (400, 420), (800, 20)),
            _os_row("push-button", "Reload", "", (400, 480), (100, 36)),
        ]
    else:
        code, reason = HTTP_STATUS[kind]
        rows = [
            _os_row("document-web", f"{code} {reason}", "", (70, 120), (1850, 960)),
            _os_row("heading", f"{code} {reason}", "", (860, 140), (200, 40)),
            _os_row("label", "nginx", "", (930, 200), (60, 20)),
        ]
    return "\n".join([table, *rows])
