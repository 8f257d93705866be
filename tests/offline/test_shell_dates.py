"""``date -d`` read as GNU date reads it: items in any order (ISO, US and month-name dates, times
with am/pm and a zone offset after them), relative items (``+1 month`` moving the calendar date,
``2 days ago``, ``next week``, ``tomorrow``), day names, and its refusals. Each line run by the
host's coreutils and by the offline machine, and compared; fixed dates, so ``now`` does not count."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell.dates import parse_date

RELATIVE_DATES = [
    "TZ=UTC date -d '2024-01-01 + 1 day' +%F; TZ=UTC date -d '2024-01-01 - 2 weeks' +%F",
    "TZ=UTC date -d '2024-01-31 +1 month' +%F",
    "TZ=UTC date -d '2024-01-15 1 day ago' +%F",
    "TZ=UTC date -d '2024-03-10 +2 weeks' +%F; TZ=UTC date -d '2024-03-10 -3 days' +%F",
    "TZ=UTC date -d '2024-02-29 +1 year' +%F; TZ=UTC date -d '2024-01-31 next month' +%F",
    "TZ=UTC date -d '2024-01-31 last month' +%F; TZ=UTC date -d '2024-05-31 -1 month' +%F",
    "TZ=UTC date -d '2024-01-10 10:00 +3 hours' '+%F %T'; TZ=UTC date -d '2024-01-10 +90 minutes' '+%F %T'",
    "TZ=UTC date -d '2024-01-10 tomorrow' +%F; TZ=UTC date -d '2024-01-10 yesterday' +%F",
    "TZ=UTC date -d '2024-01-10 next friday' +%F; TZ=UTC date -d 'friday 2024-01-10' +%F",
    "TZ=UTC date -d '@1700000000 +1 day' +%F",
    "TZ=UTC date -d '2024-01-10 1 month 2 days' +%F; TZ=UTC date -d '2024-01-10 +1 month -1 day' +%F",
    "TZ=UTC date -d '2024-01-10T10:00:00Z' '+%F %T'; TZ=UTC date -d '2024-01-10T10:00+05:30' '+%F %T'; TZ=UTC date -d '2024-01-10 10:00 +0530' '+%F %T'",
    "TZ=UTC date -d '2024-01-10 12:00 UTC' '+%F %T'; TZ=UTC date -d '2024-01-10 3:15pm' '+%F %T'; TZ=UTC date -d '2024-01-10 12:30 am' '+%F %T'",
    "TZ=UTC date -d '12/25/2023' +%F; TZ=UTC date -d '2024-13-01' +%F; TZ=UTC date -d '2024-02-30' +%F",
    "TZ=UTC date -d '2024-01-10 25:00' +%F; TZ=UTC date -d '2024-01-10 garbage' +%F; TZ=UTC date -d '2024-01-10 3 fortnights ago' +%F",
    "TZ=UTC date -d '2024-01-10 next week' +%F; TZ=UTC date -d '2024-01-10 last year' +%F; TZ=UTC date -d '2024-01-10 this month' +%F",
    "TZ=UTC date -d '2024-01-10 -1 day ago' +%F; TZ=UTC date -d '2024-01-10 1 week 2 days ago' +%F; TZ=UTC date -d '2024-01-10 2 hours ago' '+%F %T'",
    "TZ=UTC date -d '2024-01-10 +1 month +1 month' +%F; TZ=UTC date -d '2024-01-10 months' +%F; TZ=UTC date -d '2024-01-10 2024-01-11' +%F",
    "TZ=UTC date -d '2024-03-31 -1 month' +%F; TZ=UTC date -d '2023-03-31 +11 months' +%F; TZ=UTC date -d '2024-01-01 -1 sec' '+%F %T'",
    "TZ=UTC date -d '2024-01-10 10:00:30.5' '+%T'; TZ=UTC date -d '2024-01-10 Wednesday' +%F; TZ=UTC date -d 'Jan 5 2024' +%F",
    "TZ=UTC date -d 'January 5, 2024' +%F; TZ=UTC date -d '5 jan 2024' +%F; TZ=UTC date -d 'Feb 30 2024' +%F",
    "TZ=UTC date -d 'dec 25 2023 10:00' '+%F %T'; TZ=UTC date -d 'sept 1 2024 +1 week' +%F",
]


@pytest.mark.parametrize("command", RELATIVE_DATES)
def test_date_d_reads_as_gnu_date(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_relative_items_without_a_date_move_from_now() -> None:
    now = 1_700_000_000  # Tue 2023-11-14 22:13:20 UTC
    assert parse_date("tomorrow", now) == now + 86400
    assert parse_date("2 hours ago", now) == now - 7200
    assert parse_date("next friday", now) == 1_700_179_200  # Fri 2023-11-17 00:00 UTC
    assert parse_date("last tuesday", now) == 1_699_315_200  # the Tuesday a week before, midnight
    assert parse_date("tuesday", now) == 1_699_920_000  # today, midnight
    assert parse_date("soon", now) is None
