"""``@modelcontextprotocol/server-everything``: the protocol demo server's tools, answered in its
content blocks (text, image, embedded resource, resource link, annotations), without waiting.

Facts taken from the server (2026.8.31, ``dist/tools/*.js``): ``echo`` answers "Echo: MESSAGE";
``get-sum`` "The sum of A and B is SUM." (JavaScript's number text); ``get-tiny-image`` a text,
the MCP logo PNG and a text; ``get-annotated-message`` one text with priority/audience
annotations (and the image when asked); ``get-resource-reference`` a text, the embedded
``demo://resource/dynamic/{text,blob}/N`` resource and a text, refusing an id that is not a
positive integer; ``get-resource-links`` an intro and N links (blob for odd ids, text for even,
each described as a "plaintext resource"); ``get-structured-content`` the weather of three cities
as compact JSON text and ``structuredContent``; ``trigger-long-running-operation`` its completion
text (the offline world does not wait: the steps are virtual); the two toggles their started /
stopped texts per session ("session undefined" over stdio); ``gzip-file-as-resource`` a link to
(or the whole) ``demo://resource/session/NAME`` gzip of a ``data:`` URL; an ``http(s)`` URL the
offline world cannot reach is refused with Node's ``fetch failed``; ``get-env`` the environment
of the server's process, here the world machine's; ``simulate-research-query`` needs task
augmentation, which a plain ``tools/call`` lacks.

Resource texts carry the time of the call, as the server's ``toLocaleTimeString()`` writes it,
from the offline clock.
"""

from __future__ import annotations

import base64
import json
import zlib
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import unquote_to_bytes

from ....zod_errors import js_number
from ...vfs import EPOCH
from .tiny_image import MCP_TINY_IMAGE

__all__ = ["EverythingServer"]


class _Refused(Exception):
    pass


def _clock(calls: int) -> str:
    """``new Date().toLocaleTimeString()`` (en-US, UTC) on the offline clock."""
    moment = datetime.fromtimestamp(EPOCH, tz=timezone.utc) + timedelta(seconds=calls)
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment:%M:%S} {'AM' if moment.hour < 12 else 'PM'}"


_WEATHER = {
    "New York": {"temperature": 33, "conditions": "Cloudy", "humidity": 82},
    "Chicago": {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82},
    "Los Angeles": {"temperature": 73, "conditions": "Sunny / Clear", "humidity": 48},
}

_ANNOTATED = {
    "error": ("Error: Operation failed", 1.0, ["user", "assistant"]),
    "success": ("Operation completed successfully", 0.7, ["user"]),
    "debug": ("Debug: Cache hit ratio 0.95, latency 150ms", 0.3, ["assistant"]),
}

_LOGGING_ON = (
    "Started simulated, random-leveled logging for session {} at a 5 second pace. Client's selected "
    "logging level will be respected. If an interval elapses and the message to be sent is below the "
    "selected level, it will not be sent. Thus at higher chosen logging levels, messages should arrive "
    "further apart. "
)
_UPDATES_ON = (
    "Started simulated resource updated notifications for session {} at a 5 second pace. Client will "
    "receive updates for any resources the it is subscribed to."
)


def _text(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": text, **extra}


def _image(**extra: Any) -> dict[str, Any]:
    return {"type": "image", "data": MCP_TINY_IMAGE, "mimeType": "image/png", **extra}


class EverythingServer:
    """The demo server's tools; its state (toggles, session resources, the clock) per world."""

    def __init__(self, env: dict[str, str] | None = None, session: str = "undefined") -> None:
        #: the server process's environment; None: the world machine's, read on the first get-env
        self.env = None if env is None else dict(env)
        self.session = session
        self.calls = 0
        self.logging = False
        self.updates = False
        #: resources the gzip tool registered: uri -> contents
        self.session_resources: dict[str, dict[str, Any]] = {}

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, Any, bool]:
        self.calls += 1
        try:
            return self._call(name, arguments)
        except _Refused as exc:
            return str(exc), None, True

    def _dynamic(self, kind: str, resource_id: int) -> dict[str, Any]:
        uri = f"demo://resource/dynamic/{kind.lower()}/{resource_id}"
        stamp = _clock(self.calls)
        if kind == "Text":
            text = f"Resource {resource_id}: This is a plaintext resource created at {stamp}"
            return {"uri": uri, "mimeType": "text/plain", "text": text}
        blob = f"Resource {resource_id}: This is a base64 blob created at {stamp}".encode()
        return {"uri": uri, "mimeType": "text/plain", "blob": base64.b64encode(blob).decode("ascii")}

    def _call(self, name: str, args: dict[str, Any]) -> tuple[Any, Any, bool]:
        if name == "echo":
            return f"Echo: {args.get('message')}", None, False
        if name == "get-sum":
            a, b = args.get("a", 0), args.get("b", 0)
            return f"The sum of {js_number(a)} and {js_number(b)} is {js_number(a + b)}.", None, False
        if name == "get-tiny-image":
            blocks = [
                _text("Here's the image you requested:"),
                _image(),
                _text("The image above is the MCP logo."),
            ]
            return blocks, None, False
        if name == "get-annotated-message":
            text, priority, audience = _ANNOTATED[str(args.get("messageType"))]
            blocks = [_text(text, annotations={"priority": priority, "audience": audience})]
            if args.get("includeImage"):
                blocks.append(_image(annotations={"priority": 0.5, "audience": ["user"]}))
            return blocks, None, False
        if name == "get-resource-reference":
            return self._reference(args), None, False
        if name == "get-resource-links":
            return self._links(int(args.get("count", 3))), None, False
        if name == "get-structured-content":
            weather = _WEATHER.get(str(args.get("location")))
            return json.dumps(weather, separators=(",", ":")), weather, False
        if name == "trigger-long-running-operation":
            duration, steps = args.get("duration", 10), args.get("steps", 5)
            text = (
                f"Long running operation completed. Duration: {js_number(duration)} seconds, "
                f"Steps: {js_number(steps)}."
            )
            return text, None, False
        if name == "toggle-simulated-logging":
            self.logging = not self.logging
            if self.logging:
                return _LOGGING_ON.format(self.session), None, False
            return f"Stopped simulated logging for session {self.session}", None, False
        if name == "toggle-subscriber-updates":
            self.updates = not self.updates
            if self.updates:
                return _UPDATES_ON.format(self.session), None, False
            return f"Stopped simulated resource updates for session {self.session}", None, False
        if name == "gzip-file-as-resource":
            return self._gzip(args), None, False
        if name == "get-env":
            if self.env is None:  # the offline shell is imported only for the one tool that shows it
                from ...shell import VirtualMachine

                machine = VirtualMachine(interactive=False)
                self.env = {k: v for k, v in machine.vars.items() if k in machine.exported}
            return json.dumps(self.env, indent=2, ensure_ascii=False), None, False
        if name == "simulate-research-query":
            raise _Refused(
                f"MCP error -32601: Tool {name} requires task augmentation (taskSupport: 'required')"
            )
        raise _Refused(f"MCP error -32602: Tool {name} not found")

    def _reference(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        kind = args.get("resourceType", "Text")
        if kind not in ("Text", "Blob"):
            raise _Refused(f"Invalid resourceType: {kind}. Must be Text or Blob.")
        raw = args.get("resourceId", 1)
        number = raw if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None
        if number is None or not float(number).is_integer() or number < 1:
            raise _Refused(f"Invalid resourceId: {js_number(raw) if number is not None else raw}. "
                           "Must be a finite positive integer.")  # fmt: skip
        resource = self._dynamic(kind, int(number))
        return [
            _text(f"Returning resource reference for Resource {int(number)}:"),
            {"type": "resource", "resource": resource},
            _text(f"You can access this resource using the URI: {resource['uri']}"),
        ]

    def _links(self, count: int) -> list[dict[str, Any]]:
        blocks = [_text(f"Here are {count} resource links to resources available in this server:")]
        for number in range(1, count + 1):
            even = number % 2 == 0  # the server names even ids "Text" (its variable says odd)
            resource = self._dynamic("Text" if even else "Blob", number)
            blocks.append(
                {
                    "type": "resource_link",
                    "uri": resource["uri"],
                    "name": f"{'Text' if even else 'Blob'} Resource {number}",
                    "description": f"Resource {number}: plaintext resource",
                    "mimeType": "text/plain",
                }
            )
        return blocks

    def _gzip(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name = str(args.get("name", "README.md.gz"))
        source = str(
            args.get(
                "data",
                "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",
            )
        )
        scheme = source.split(":", 1)[0].lower() if ":" in source else ""
        if scheme not in ("http", "https", "data"):
            raise _Refused(
                f"Error processing file {source}: Unsupported URL protocol for {source}. Only http, "
                "https, and data URLs are supported."
            )
        if scheme != "data":
            raise _Refused("fetch failed")  # the offline world reaches no host
        header, _, payload = source[5:].partition(",")
        data = base64.b64decode(unquote_to_bytes(payload)) if header.endswith(";base64") else (
            unquote_to_bytes(payload))  # fmt: skip
        packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # node's gzipSync: zlib's own gzip header
        blob = base64.b64encode(packer.compress(data) + packer.flush()).decode("ascii")
        uri = f"demo://resource/session/{name}"
        self.session_resources[uri] = {"uri": uri, "mimeType": "application/gzip", "blob": blob}
        if args.get("outputType", "resourceLink") == "resource":
            return [{"type": "resource", "resource": self.session_resources[uri]}]
        return [{"type": "resource_link", "uri": uri, "name": name, "mimeType": "application/gzip"}]
