"""``mcp-server-time``: the current time in an IANA time zone and conversions between zones,
on the offline world's frozen clock (it starts at 2026-01-15 09:30:00 UTC and moves one second
per call), with the host's real time-zone database for the arithmetic.

Facts taken from the server (2026.10.19, ``mcp_server_time/server.py``): results are
``{timezone, datetime, day_of_week, is_dst}`` (``convert_time``: ``{source, target,
time_difference}``), sent as JSON text (two-space indent) and as ``structuredContent``; a zone
must be an exact IANA key; ``time`` is ``HH:MM`` on today's date in the source zone, and a wall
time a clock change skips is refused; ``time_difference`` reads ``+9.0h`` or ``-3.25h``; failures
read ``Error executing tool NAME: ...``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from ....jsontext import dumps_indented
from ...vfs import EPOCH

__all__ = ["TimeTools"]


class _Refused(Exception):
    """A failure the server reports to the client as its tool's error text."""


@cache
def _known() -> frozenset[str]:
    return frozenset(available_timezones())


def _zone(key: str) -> ZoneInfo:
    try:
        zone = ZoneInfo(key)
        if key not in _known():  # a path or a case-folded name that the filesystem found
            raise ZoneInfoNotFoundError(f"No time zone found with key {key}")
    except Exception as exc:
        raise _Refused(f"Invalid timezone: {exc}") from None
    return zone


def _required(arguments: dict[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not value:
        raise _Refused(f"Missing required argument: {name}")
    return str(value)


def _result(key: str, moment: datetime) -> dict[str, Any]:
    return {
        "timezone": key,
        "datetime": moment.isoformat(timespec="seconds"),
        "day_of_week": moment.strftime("%A"),
        "is_dst": bool(moment.dst()),
    }


def _difference(hours: float) -> str:
    if hours.is_integer():
        return f"{hours:+.1f}h"
    return f"{hours:+.2f}".rstrip("0").rstrip(".") + "h"


class TimeTools:
    """The two tools on a frozen clock; ``call`` answers ``(text, structured, is_error)``."""

    def __init__(self) -> None:
        self.ticks = 0

    def now(self, zone: ZoneInfo) -> datetime:
        return datetime.fromtimestamp(EPOCH + self.ticks, tz=timezone.utc).astimezone(zone)

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        self.ticks += 1
        try:
            if name == "get_current_time":
                key = _required(arguments, "timezone")
                result = _result(key, self.now(_zone(key)))
            elif name == "convert_time":
                result = self._convert(arguments)
            else:
                return f"Unknown tool: {name}", None, True
        except _Refused as exc:
            return f"Error executing tool {name}: {exc}", None, True
        return dumps_indented(result, ensure_ascii=False), result, False

    def _convert(self, arguments: dict[str, Any]) -> dict[str, Any]:
        source_key = _required(arguments, "source_timezone")
        target_key = _required(arguments, "target_timezone")
        source_zone, target_zone = _zone(source_key), _zone(target_key)
        try:
            wall = datetime.strptime(str(arguments.get("time", "")), "%H:%M").time()
        except ValueError:
            raise _Refused("Invalid time format. Expected HH:MM [24-hour format]") from None
        today = self.now(source_zone)
        source = datetime(today.year, today.month, today.day, wall.hour, wall.minute, tzinfo=source_zone)
        back = datetime.fromtimestamp(source.timestamp(), source_zone)
        if back.replace(tzinfo=None) != source.replace(tzinfo=None):
            raise _Refused(
                f"Invalid time: {arguments.get('time')} does not exist in {source_key} on "
                f"{source.date().isoformat()} (skipped by a clock change)"
            )
        target = source.astimezone(target_zone)
        hours = (
            (target.utcoffset() or timedelta()) - (source.utcoffset() or timedelta())
        ).total_seconds() / 3600
        return {
            "source": _result(source_key, source),
            "target": _result(target_key, target),
            "time_difference": _difference(hours),
        }
