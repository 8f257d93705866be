"""Who made a commit and when: git's identity rules and date parsing.

The name and email of the author (and the committer) come, as in git, from
``GIT_AUTHOR_NAME``/``GIT_AUTHOR_EMAIL`` (``GIT_COMMITTER_*``), then ``author.*`` /
``committer.*`` and ``user.*`` in the config (``-c`` included), then ``EMAIL``. Without an email
git guesses ``user@host`` and refuses a host name without a domain, as the offline machine's
(``agentworld``) is: ``Author identity unknown``, status 128. ``GIT_AUTHOR_DATE`` /
``GIT_COMMITTER_DATE`` set the dates (``@epoch``, ``epoch +hhmm``, ISO 8601, RFC 2822).
"""

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from .configfile import parameters, read_config
from .repo import GitError, Repo

if TYPE_CHECKING:
    from ...proc import _Proc

_UNKNOWN = """{who} identity unknown

*** Please tell me who you are.

Run

  git config --global user.email "you@example.com"
  git config --global user.name "Your Name"

to set your account's default identity.
Omit --global to set the identity only in this repository.

fatal: unable to auto-detect email address (got '{guess}')"""

_MONTHS = {m: k for k, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}  # fmt: skip


def config(p: _Proc, repo: Repo | None) -> dict[str, str]:
    """The config git sees: ~/.gitconfig, the repository's, then ``git -c`` (GIT_CONFIG_PARAMETERS)."""
    values = read_config(p.fs, repo.config_files() if repo else [p.fs.home + "/.gitconfig"])
    for entry in parameters(p.vm.vars.get("GIT_CONFIG_PARAMETERS", "")):
        values[entry.key] = "true" if entry.value is None else entry.value
    return values


def advice(p: _Proc, repo: Repo | None, name: str) -> bool:
    """Whether git gives the hint ``advice.<name>`` (on unless set false)."""
    return config(p, repo).get(f"advice.{name}", "true").lower() not in ("false", "no", "off", "0")


def _offset(text: str) -> int:
    sign = -1 if text[0] == "-" else 1
    digits = text.lstrip("+-").replace(":", "")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:4] or 0) * 60)


def parse_date(text: str) -> tuple[int, str] | None:
    """(epoch seconds, ``+hhmm``) of a date git accepts in GIT_*_DATE; None if not understood."""
    text = text.strip()
    m = re.fullmatch(r"@(\d+) ([-+]\d{4})", text)  # git's "@<epoch> <zone>" (the zone is required)
    if m:
        return int(m.group(1)), m.group(2)
    m = re.fullmatch(r"(\d+)(?:\s+([-+]\d{4}))?", text)  # a bare number is seconds only from 100000000 on
    if m and int(m.group(1)) >= 100000000:
        return int(m.group(1)), m.group(2) or "+0000"
    m = re.fullmatch(
        r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?(?:\.\d+)?)?\s*(Z|[-+]\d\d:?\d\d)?", text
    )
    if m:
        y, mo, d, hh, mm, ss, tz = m.groups()
        zone = "+0000" if tz in (None, "Z") else tz.replace(":", "")
        local = calendar.timegm((int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0)))
        return local - _offset(zone), zone
    m = re.fullmatch(
        r"(?:[A-Za-z]{3},?\s+)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d\d):(\d\d)(?::(\d\d))?\s*([-+]\d{4})?",
        text,
    )
    if m and m.group(2).lower() in _MONTHS:
        d, mon, y, hh, mm, ss, tz = m.groups()
        zone = tz or "+0000"
        local = calendar.timegm((int(y), _MONTHS[mon.lower()], int(d), int(hh), int(mm), int(ss or 0)))
        return local - _offset(zone), zone
    m = re.fullmatch(
        r"[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d\d):(\d\d):(\d\d)\s+(\d{4})(?:\s+([-+]\d{4}))?", text
    )
    if m and m.group(1).lower() in _MONTHS:
        mon, d, hh, mm, ss, y, tz = m.groups()
        zone = tz or "+0000"
        local = calendar.timegm((int(y), _MONTHS[mon.lower()], int(d), int(hh), int(mm), int(ss)))
        return local - _offset(zone), zone
    return None


def person(p: _Proc, repo: Repo | None, role: str = "author") -> str:
    """``Name <email> epoch +hhmm`` of the author (or committer); git's refusal without an email."""
    env = p.vm.vars
    values = config(p, repo)
    upper = role.upper()
    name = env.get(f"GIT_{upper}_NAME") or values.get(f"{role}.name") or values.get("user.name")
    email = (
        env.get(f"GIT_{upper}_EMAIL")
        or values.get(f"{role}.email")
        or values.get("user.email")
        or env.get("EMAIL")
    )
    if email is None:
        host = p.vm.hostname
        if "." not in host:
            raise GitError(
                _UNKNOWN.format(who=role.capitalize(), guess=f"{p.vm.user}@{host}.(none)"), raw=True
            )
        email = f"{p.vm.user}@{host}"
    if name is None:
        name = p.vm.user  # the passwd entry's name (root's is "root")
    if not name.strip():
        raise GitError("empty ident name (for <" + email + ">) not allowed")
    raw_date = env.get(f"GIT_{upper}_DATE")
    when = (p.fs.now(), "+0000")
    if raw_date:
        parsed = parse_date(raw_date)
        if parsed is None:
            raise GitError(f"invalid date format: {raw_date}")
        when = parsed
    return f"{name} <{email}> {when[0]} {when[1]}"


def reflog_ident(p: _Proc, repo: Repo | None) -> str:
    """The committer a reflog line names; where git could not commit for want of an email, the
    reflog still gets the guessed one (git writes it without complaint)."""
    try:
        return person(p, repo, "committer")
    except GitError:
        return f"{p.vm.user} <{p.vm.user}@{p.vm.hostname}.(none)> {p.fs.now()} +0000"
