"""How ``git log``, ``show`` and ``rev-list`` print a commit: the built-in formats (``oneline``,
``short``, ``medium``, ``full``, ``fuller``, ``reference``, ``raw``, ``email``), ``--format``
placeholders (``%h``, ``%an``, ``%ad``, ``%ar``, ``%d``, ``%C(...)``, ``%<(N)``, ``%+s``, ...),
the ``--date`` modes and the ref names ``--decorate`` adds, as git 2.39 prints them."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from .diffopts import NotSimulated
from .repo import Commit, GitError, Repo
from .text import _local, git_date, iso_date

#: the built-in formats ``--pretty=NAME`` takes (``tformat:``/``format:`` and a text with ``%`` aside)
BUILTIN = ("oneline", "short", "medium", "full", "fuller", "reference", "raw", "email")
#: the ``--date`` modes (each may end in ``-local``: shown in the machine's zone, UTC)
_DATE_MODES = ("default", "relative", "local", "iso", "iso8601", "iso-strict", "iso8601-strict",
               "rfc", "rfc2822", "short", "raw", "unix")  # fmt: skip

_COLORS = {"normal": -1, "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5,
           "cyan": 6, "white": 7, "default": 9}  # fmt: skip
_ATTRIBUTES = {"bold": 1, "dim": 2, "italic": 3, "ul": 4, "blink": 5, "reverse": 7, "strike": 9}


@dataclass
class Pretty:
    """The format asked for: a built-in ``kind``, or ``format`` with the user's text (``fmt``),
    which ends each entry (``tformat:``, a bare text) or only separates them (``format:``)."""

    kind: str = "medium"
    fmt: str = ""
    terminated: bool = True
    abbrev: bool = False
    date: str = "default"
    #: ``short``, ``full``, ``no``, or ``auto`` (decorated when standard output is a terminal)
    decorate: str = "auto"
    color: bool = False

    @property
    def separated(self) -> bool:
        """Whether a blank line goes between two entries (the built-in formats of many lines)."""
        return self.kind not in ("oneline", "reference", "format")

    @property
    def lead(self) -> str:
        """What sets a commit's diff off from its entry: nothing after ``--oneline`` or an empty format."""
        return "" if self.kind == "oneline" or (self.kind == "format" and not self.fmt) else "\n"


def choose(value: str) -> tuple[str, str, bool]:
    """``--pretty=VALUE`` / ``--format=VALUE``: (kind, user format, terminated)."""
    if value.startswith("format:"):
        return "format", value[7:], False
    if value.startswith("tformat:"):
        return "format", value[8:], True
    if value in BUILTIN:
        return value, "", True
    if "%" in value or not value:
        return "format", value, True
    raise GitError(f"invalid --pretty format: {value}")


def check_date_mode(mode: str) -> str:
    if mode.startswith(("format:", "format-local:")) or mode.removesuffix("-local") in _DATE_MODES:
        return mode
    if mode.removesuffix("-local") == "human":
        raise Unsupported(mode)
    raise GitError(f"unknown date format {mode}")


class Unsupported(NotSimulated):
    """A format or option this world does not print (``--date=human``, ``%w()``, ``log -L``);
    the command answers as one the offline world cannot run."""


def show_date(epoch: int, tz: str, mode: str, now: int) -> str:
    """``epoch`` in the zone ``tz`` as ``--date=mode`` shows it."""
    local = mode.endswith("-local") or mode.startswith("format-local:")
    if local:
        tz = "+0000"
        mode = mode.removesuffix("-local").replace("format-local:", "format:", 1)
    if mode.startswith("format:"):
        t = _local(epoch, tz)
        text = mode[7:].replace("%%", "\x00").replace("%z", tz).replace("%Z", "" if not local else "UTC")
        return time.strftime(text, t).replace("\x00", "%")
    if mode == "relative":
        return relative(epoch, now)
    if mode == "local":
        return git_date(epoch, "+0000")[: -len(" +0000")]
    if mode in ("iso", "iso8601"):
        return iso_date(epoch, tz)
    if mode in ("iso-strict", "iso8601-strict"):
        return iso_date(epoch, tz, strict=True)
    if mode in ("rfc", "rfc2822"):
        return rfc_date(epoch, tz)
    if mode == "short":
        return time.strftime("%Y-%m-%d", _local(epoch, tz))
    if mode == "raw":
        return f"{epoch} {tz}"
    if mode == "unix":
        return str(epoch)
    date = git_date(epoch, tz)
    return date[: -len(" +0000")] if local else date


def rfc_date(epoch: int, tz: str) -> str:
    """``Tue, 14 Nov 2023 22:18:20 +0000`` (RFC 2822; the day not padded, as git prints it)."""
    t = _local(epoch, tz)
    return time.strftime("%a, ", t) + f"{t.tm_mday} " + time.strftime("%b %Y %H:%M:%S", t) + f" {tz}"


def _ago(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def relative(epoch: int, now: int) -> str:
    """``3 years, 1 month ago``: git's rounding at each step (seconds, minutes, hours, days,
    weeks under 70 days, months under a year, years and months under five)."""
    if now < epoch:
        return "in the future"
    diff = now - epoch
    if diff < 90:
        return _ago(diff, "second") + " ago"
    diff = (diff + 30) // 60
    if diff < 90:
        return _ago(diff, "minute") + " ago"
    diff = (diff + 30) // 60
    if diff < 36:
        return _ago(diff, "hour") + " ago"
    diff = (diff + 12) // 24
    if diff < 14:
        return _ago(diff, "day") + " ago"
    if diff < 70:
        return _ago((diff + 3) // 7, "week") + " ago"
    if diff < 365:
        return _ago((diff + 15) // 30, "month") + " ago"
    if diff < 1825:
        total = (diff * 12 * 2 + 365) // (365 * 2)
        years, months = divmod(total, 12)
        if months:
            return _ago(years, "year") + ", " + _ago(months, "month") + " ago"
        return _ago(years, "year") + " ago"
    return _ago((diff + 183) // 365, "year") + " ago"


def decorations(repo: Repo, full: bool = False) -> dict[str, list[str]]:
    """Commit id -> the names ``--decorate`` shows there, in git's order: ``HEAD -> branch`` (or
    ``HEAD``) first, then the other refs in the reverse order of their full names."""
    found: dict[str, list[str]] = {}
    for name, sha in reversed(repo.all_refs()):
        shown = name if full else re.sub(r"^refs/(heads|tags|remotes)/", "", name)
        if name.startswith("refs/tags/"):
            shown = "tag: " + shown
        found.setdefault(repo.peel(sha), []).append(shown)
    head = repo.head()
    if head is None:
        return found
    names = found.setdefault(head, [])
    branch = repo.head_ref()
    if branch is None:
        names.insert(0, "HEAD")
    else:
        current = branch if full else branch.removeprefix("refs/heads/")
        if current in names:
            names.remove(current)
        names.insert(0, f"HEAD -> {current}")
    return found


def _color(spec: str) -> str | None:
    """The escape sequence of a ``%C(...)`` color (``bold blue``, ``reset``, ``#ff0000``)."""
    codes: list[str] = []
    colors = 0
    for word in spec.split():
        word = word.lower()
        if word == "reset":
            return "\x1b[m"
        negate = word.startswith("no")
        base = word[2:].lstrip("-") if negate else word
        if base in _ATTRIBUTES:
            code = _ATTRIBUTES[base]
            codes.append(str(code + 20 + (1 if code == 1 else 0)) if negate else str(code))
            continue
        bright = base.startswith("bright")
        name = base[6:] if bright else base
        if name in _COLORS and colors < 2:
            value = _COLORS[name]
            if value >= 0:
                start = (90 if bright else 30) if colors == 0 else (100 if bright else 40)
                codes.append(str(start + value if value != 9 else (39 if colors == 0 else 49)))
            colors += 1
        elif re.fullmatch(r"\d{1,3}", name) and colors < 2 and int(name) < 256:
            codes.append(("38;5;" if colors == 0 else "48;5;") + name)
            colors += 1
        else:
            return None
    return f"\x1b[{';'.join(codes)}m" if codes else ""


_NAMED = {"Cred": "\x1b[31m", "Cgreen": "\x1b[32m", "Cblue": "\x1b[34m", "Creset": "\x1b[m"}


class Formatter:
    """Prints commits of ``repo`` in the format ``pretty`` names."""

    def __init__(self, repo: Repo, pretty: Pretty, now: int, tty: bool) -> None:
        self.repo = repo
        self.pretty = pretty
        self.now = now
        self.decorate = pretty.decorate if pretty.decorate != "auto" else ("short" if tty else "no")
        self._names: dict[str, list[str]] | None = None
        self.mark = ">"

    @property
    def names(self) -> dict[str, list[str]]:
        if self._names is None:
            self._names = decorations(self.repo, full=self.decorate == "full")
        return self._names

    # -- the pieces ------------------------------------------------------------------------------

    def short(self, sha: str) -> str:
        return sha[:7]

    def _id(self, sha: str) -> str:
        return self.short(sha) if self.pretty.abbrev else sha

    def decoration(self, sha: str, bare: bool = False, asked: bool = False) -> str:
        """`` (HEAD -> master, tag: v1)`` where ``--decorate`` (or ``asked``: ``%d``) wants it."""
        if self.decorate == "no" and not asked:
            return ""
        names = self.names.get(sha)
        if not names:
            return ""
        return ", ".join(names) if bare else f" ({', '.join(names)})"

    def date(self, epoch: int, tz: str, mode: str | None = None) -> str:
        return show_date(epoch, tz, mode or self.pretty.date, self.now)

    # -- whole entries ---------------------------------------------------------------------------

    def entry(self, commit: Commit) -> str:
        """One commit as the format prints it (a user format without its terminator)."""
        kind = self.pretty.kind
        if kind == "format":
            return self.expand(commit, self.pretty.fmt)
        if kind == "oneline":
            return f"{self._id(commit.sha)}{self.decoration(commit.sha)} {commit.subject}\n"
        if kind == "reference":
            return (
                f"{self.short(commit.sha)} ({commit.subject}, {self.date(commit.time, commit.tz, 'short')})\n"
            )
        if kind == "email":
            body = _body(commit.message)
            return (
                f"From {commit.sha} Mon Sep 17 00:00:00 2001\nFrom: {commit.author_name} <{commit.author_email}>\n"
                f"Date: {rfc_date(commit.time, commit.tz)}\nSubject: [PATCH] {commit.subject}\n\n"
                + (body + "\n" if body else "")
            )
        head = f"commit {self._id(commit.sha)}{self.decoration(commit.sha)}\n"
        if kind == "raw":
            lines = [f"tree {commit.tree}", *(f"parent {x}" for x in commit.parents)]
            lines += [f"author {commit.author}", f"committer {commit.committer}"]
            return head + "\n".join(lines) + "\n\n" + _indented(commit.message, subject_only=False)
        if len(commit.parents) > 1:
            head += f"Merge: {' '.join(self.short(x) for x in commit.parents)}\n"
        author = f"{commit.author_name} <{commit.author_email}>"
        committer = f"{commit.committer_name} <{commit.committer_email}>"
        if kind == "short":
            return head + f"Author: {author}\n\n" + _indented(commit.message, subject_only=True)
        if kind == "full":
            head += f"Author: {author}\nCommit: {committer}\n"
        elif kind == "fuller":
            head += (
                f"Author:     {author}\nAuthorDate: {self.date(commit.time, commit.tz)}\n"
                f"Commit:     {committer}\nCommitDate: {self.date(commit.commit_time, commit.commit_tz)}\n"
            )
        else:
            head += f"Author: {author}\nDate:   {self.date(commit.time, commit.tz)}\n"
        return head + "\n" + _indented(commit.message, subject_only=False)

    # -- --format ----------------------------------------------------------------------------------

    def expand(self, commit: Commit, fmt: str) -> str:
        """``fmt`` with its placeholders filled in for ``commit``."""
        out: list[str] = []
        i = 0
        pad: tuple[str, int, str] | None = None
        while i < len(fmt):
            k = fmt.find("%", i)
            if k < 0:
                out.append(fmt[i:])
                break
            out.append(fmt[i:k])
            i = k + 1
            magic = fmt[i] if i < len(fmt) and fmt[i] in "+- " else ""
            i += len(magic)
            m = re.match(r"(<|>|><|>>|<<)\((\d+)(?:,(trunc|ltrunc|mtrunc))?\)", fmt[i:])
            if m and not magic:
                pad = (m.group(1), int(m.group(2)), m.group(3) or "")
                i += m.end()
                continue
            value, used = self._placeholder(commit, fmt, i)
            if value is None:
                out.append("%" + magic)
                continue
            i += used
            if pad is not None and not (used and fmt[i - used] == "C"):
                value = _padded(value, *pad)
                pad = None
            if magic == "+" and value:
                value = "\n" + value
            elif magic == " " and value:
                value = " " + value
            elif magic == "-" and not value:
                text = "".join(out).rstrip("\n")
                out = [text]
            out.append(value)
        return "".join(out)

    def _placeholder(self, c: Commit, fmt: str, i: int) -> tuple[str | None, int]:
        """The value of the placeholder at ``fmt[i:]`` and its length (None: not one)."""
        rest = fmt[i:]
        if not rest:
            return None, 0
        if rest.startswith("C("):
            end = rest.find(")")
            if end < 0:
                return None, 0
            spec = rest[2:end]
            forced = spec.startswith("always,")
            spec = spec.removeprefix("always,").removeprefix("auto,")
            if spec == "auto":
                return "", end + 1
            code = _color(spec)
            if code is None:
                return None, 0
            return (code if forced or self.pretty.color else ""), end + 1
        for name, code in _NAMED.items():
            if rest.startswith(name):
                return (code if self.pretty.color else ""), len(name)
        if rest.startswith("x") and re.match(r"x[0-9a-fA-F]{2}", rest):
            return chr(int(rest[1:3], 16)), 3
        if rest.startswith(("w(", "(trailers", "G")) or rest[:2] in (
            "gd",
            "gD",
            "gn",
            "gN",
            "ge",
            "gE",
            "gs",
        ):
            raise Unsupported(rest[:2])
        two = rest[:2]
        if len(two) == 2 and two[0] in "ac":
            value = self._person(c, two[0], two[1])
            if value is not None:
                return value, 2
        simple = {
            "H": c.sha, "h": self.short(c.sha), "T": c.tree, "t": self.short(c.tree),
            "P": " ".join(c.parents), "p": " ".join(self.short(x) for x in c.parents),
            "s": c.subject, "f": _sanitized(c.subject), "b": _body(c.message, keep_end=True),
            "B": _raw_message(c.message), "n": "\n", "%": "%", "e": "", "N": "", "m": self.mark,
            "d": self.decoration(c.sha, asked=True), "D": self.decoration(c.sha, bare=True, asked=True),
        }  # fmt: skip
        if rest[0] in simple:
            return simple[rest[0]], 1
        return None, 0

    def _person(self, c: Commit, who: str, what: str) -> str | None:
        name, email = (c.author_name, c.author_email) if who == "a" else (c.committer_name, c.committer_email)
        epoch, tz = (c.time, c.tz) if who == "a" else (c.commit_time, c.commit_tz)
        dates = {"d": self.pretty.date, "D": "rfc", "r": "relative", "t": "unix", "i": "iso",
                 "I": "iso-strict", "s": "short"}  # fmt: skip
        if what in ("n", "N"):
            return name
        if what in ("e", "E"):
            return email
        if what in ("l", "L"):
            return email.split("@")[0]
        if what in dates:
            return self.date(epoch, tz, dates[what])
        if what == "h":
            raise Unsupported("%ah")
        return None


def _padded(value: str, how: str, width: int, cut: str) -> str:
    if len(value) > width and cut:
        if width < 2:
            return value[:width]
        if cut == "trunc":
            return value[: width - 2] + ".."
        if cut == "ltrunc":
            return ".." + value[len(value) - width + 2 :]
        half = (width - 2) // 2
        return value[:half] + ".." + value[len(value) - (width - 2 - half) :]
    room = max(0, width - len(value))
    if how == "<":
        return value + " " * room
    if how == ">":
        return " " * room + value
    return " " * (room // 2) + value + " " * (room - room // 2)


def _sanitized(subject: str) -> str:
    """``%f``: the subject as a file name (runs of other characters one ``-``, no dots at the ends)."""
    text = re.sub(r"[^A-Za-z0-9._]+", "-", subject)
    text = re.sub(r"\.{2,}", ".", text)
    return text.strip("-.")


def _paragraphs(message: str) -> list[str]:
    return message.rstrip("\n").split("\n")


def _body(message: str, keep_end: bool = False) -> str:
    """The message after its subject paragraph (``%b`` ends with its newline)."""
    lines = message.split("\n")
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    while k < len(lines) and lines[k].strip():
        k += 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    rest = "\n".join(lines[k:]).rstrip("\n")
    if keep_end:
        return rest + "\n" if rest else ""
    return rest


def _raw_message(message: str) -> str:
    text = message.rstrip("\n")
    return text + "\n" if text else ""


def _indented(message: str, subject_only: bool) -> str:
    """The message as the built-in formats show it: each line indented four columns (blank ones
    too), leading and trailing blank lines dropped; ``short`` keeps the subject paragraph."""
    lines = _paragraphs(message)
    while lines and not lines[0].strip():
        lines.pop(0)
    if subject_only and "" in [x.strip() for x in lines]:
        lines = lines[: [x.strip() for x in lines].index("")]
    return "".join(f"    {line}\n" for line in lines)
