"""What git prints about changes: unified diffs (``diff --git``), stats, paths relative to cwd."""

from __future__ import annotations

import posixpath
import re
import time
from dataclasses import replace

from ...unified import hunk_range, marked
from ...xdiff import DEFAULT, Options, git_hunks, split_lines
from ...xemit import Group, hunk_groups, is_function_line
from .renames import DEFAULT_SCORE, find_renames, rename_name, similarity_index
from .repo import ZERO, Entries, Repo


def changed_paths(old: Entries, new: Entries) -> dict[str, str]:
    """``{path: 'A' | 'M' | 'D'}`` between two sets of entries."""
    out: dict[str, str] = {}
    for path, entry in new.items():
        before = old.get(path)
        if before is None:
            out[path] = "A"
        elif before != entry:
            out[path] = "M"
    for path in old:
        if path not in new:
            out[path] = "D"
    return out


def shown_path(repo: Repo, cwd: str, rel: str) -> str:
    """A work-tree path as git shows it to a user in ``cwd`` (relative, ``../`` where needed)."""
    trailing = "/" if rel.endswith("/") else ""
    shown = posixpath.relpath(posixpath.join(repo.root, rel.rstrip("/")), cwd)
    return shown + trailing


_C_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def quote_path(path: str, space: bool = False) -> str:
    """A path as git prints it (``core.quotePath``): in double quotes, C escapes and octal bytes,
    when it holds a control character, a quote, a backslash or a byte past ASCII (or, for
    ``status --short``, a blank)."""
    data = path.encode("utf-8", "surrogateescape")
    if not any(b < 32 or b >= 127 or b in (34, 92) for b in data) and not (space and b" " in data):
        return path
    body = "".join(_C_ESCAPES.get(b) or (f"\\{b:03o}" if b < 32 or b >= 127 else chr(b)) for b in data)
    return f'"{body}"'


def _text(repo: Repo, sha: str | None) -> bytes:
    return repo.blob(sha) if sha and sha != ZERO else b""


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8000]


def file_diff(
    repo: Repo,
    path: str,
    old: tuple[str, str] | None,
    new: tuple[str, str] | None,
    context: int = 3,
    how: Options = DEFAULT,
) -> str:
    """One file's ``diff --git`` section (empty when nothing changed), ``context`` lines around
    each change (``-U``), the edit script chosen ``how`` git chooses it."""
    if old == new:
        return ""
    head = [f"diff --git a/{path} b/{path}\n"]
    old_sha = old[1] if old else ZERO
    new_sha = new[1] if new else ZERO
    if old is None and new is not None:
        head.append(f"new file mode {new[0]}\n")
        head.append(f"index {old_sha[:7]}..{new_sha[:7]}\n")
    elif new is None and old is not None:
        head.append(f"deleted file mode {old[0]}\n")
        head.append(f"index {old_sha[:7]}..{new_sha[:7]}\n")
    else:
        assert old is not None and new is not None
        if old[0] != new[0]:
            head.append(f"old mode {old[0]}\nnew mode {new[0]}\n")
        if old_sha == new_sha:
            return "".join(head)
        mode = f" {new[0]}" if old[0] == new[0] else ""
        head.append(f"index {old_sha[:7]}..{new_sha[:7]}{mode}\n")
    a, b = _text(repo, old[1] if old else None), _text(repo, new[1] if new else None)
    if _is_binary(a) or _is_binary(b):
        head.append(
            f"Binary files {'a/' + path if old else '/dev/null'} and {'b/' + path if new else '/dev/null'} differ\n"
        )
        return "".join(head)
    old_text, new_text = a.decode("utf-8", "surrogateescape"), b.decode("utf-8", "surrogateescape")
    body = text_patch(
        old_text,
        new_text,
        f"a/{path}" if old else "/dev/null",
        f"b/{path}" if new else "/dev/null",
        context,
        how,
    )
    if not body and old and new and old[0] == new[0]:
        return ""  # only ignored changes: git shows nothing of the file
    return "".join(head) + body


def text_patch(
    old_text: str, new_text: str, from_name: str, to_name: str, context: int = 3, how: Options = DEFAULT
) -> str:
    """The ``---``/``+++`` lines and hunks of two texts, the edit script chosen as git chooses it
    (empty when only ignored changes differ)."""
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    groups = hunk_groups(old_lines, new_lines, git_hunks(old_lines, new_lines, how), context, how)
    if not groups:
        return ""
    return _with_function_context(_patch(old_lines, new_lines, groups, from_name, to_name), old_lines)


def _patch(a: list[str], b: list[str], groups: list[Group], from_name: str, to_name: str) -> str:
    """The ``---``/``+++`` lines and the hunks of ``groups``: unchanged lines shown as ``b`` has
    them (they differ from ``a``'s where whitespace is ignored), changed ones ``-``/``+``."""
    if not groups:
        return ""
    out = [f"--- {from_name}\n", f"+++ {to_name}\n"]
    for s1, e1, s2, e2, changes in groups:
        out.append(f"@@ -{hunk_range(s1, e1)} +{hunk_range(s2, e2)} @@\n")
        shown = s2
        for i1, i2, j1, j2 in changes:
            out += [" " + line for line in b[shown:j1]]
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
            shown = j2
        out += [" " + line for line in b[shown:e2]]
    return marked(out)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+\d+(?:,\d+)? @@$", re.M)


def _with_function_context(body: str, old_lines: list[str]) -> str:
    """Hunk headers with the nearest function line above the hunk, as git's default funcname adds
    (an empty old range ``-N,0`` starts after line N, so line N itself is above it): its first 80
    bytes, less the blanks that end them."""

    def header(m: re.Match[str]) -> str:
        start = int(m.group(1))
        above = start if m.group(2) == ",0" else start - 1
        for line in reversed(old_lines[: max(above, 0)]):
            if is_function_line(line):
                shown = line.encode("utf-8", "surrogateescape")[:80].rstrip(b" \t\n\r")
                return f"{m.group(0)} {shown.decode('utf-8', 'surrogateescape')}"
        return m.group(0)

    return _HUNK.sub(header, body)


def renamed_diff(
    repo: Repo,
    names: tuple[str, str],
    old: tuple[str, str],
    new: tuple[str, str],
    score: int,
    context: int = 3,
    how: Options = DEFAULT,
) -> str:
    """A renamed file's ``diff --git a/OLD b/NEW`` section: its similarity, the two names, and
    the patch between the contents when they differ."""
    src, dst = names
    head = [f"diff --git a/{src} b/{dst}\n"]
    if old[0] != new[0]:
        head.append(f"old mode {old[0]}\nnew mode {new[0]}\n")
    head.append(f"similarity index {similarity_index(score)}%\nrename from {src}\nrename to {dst}\n")
    if old[1] == new[1]:
        return "".join(head)
    head.append(f"index {old[1][:7]}..{new[1][:7]}{' ' + new[0] if old[0] == new[0] else ''}\n")
    a, b = _text(repo, old[1]), _text(repo, new[1])
    if _is_binary(a) or _is_binary(b):
        return "".join(head) + f"Binary files a/{src} and b/{dst} differ\n"
    body = text_patch(
        a.decode("utf-8", "surrogateescape"),
        b.decode("utf-8", "surrogateescape"),
        f"a/{src}",
        f"b/{dst}",
        context,
        how,
    )
    return "".join(head) + body


def limited(entries: Entries, paths: list[str] | None) -> Entries:
    """The entries under ``paths`` (all of them for None)."""
    if paths is None:
        return entries
    return {q: e for q, e in entries.items() if any(_under(q, prefix) for prefix in paths)}


def tree_diff(
    repo: Repo,
    old: Entries,
    new: Entries,
    paths: list[str] | None = None,
    context: int = 3,
    how: Options = DEFAULT,
    renames: int | None = DEFAULT_SCORE,
) -> str:
    """The whole ``git diff`` text between two sets of entries, files in path order (a rename
    where its new name sorts)."""
    old, new = limited(old, paths), limited(new, paths)
    moved = find_renames(repo, old, new, renames)
    sources = {src for src, _ in moved.values()}
    out = []
    for path in sorted((set(old) | set(new)) - sources):
        if path in moved:
            src, score = moved[path]
            out.append(renamed_diff(repo, (src, path), old[src], new[path], score, context, how))
        else:
            out.append(file_diff(repo, path, old.get(path), new.get(path), context, how))
    return "".join(out)


def _under(path: str, prefix: str) -> bool:
    return not prefix or path == prefix or path.startswith(prefix + "/")


def same_mode(old: Entries, new: Entries, path: str) -> bool:
    """Whether ``path`` is in both and keeps its mode."""
    return path in old and path in new and old[path][0] == new[path][0]


def differs(repo: Repo, old: Entries, new: Entries, path: str, how: Options, context: int = 3) -> bool:
    """Whether ``path`` changed from ``old`` to ``new`` in a way ``how`` does not ignore."""
    if not how.by_content or not same_mode(old, new, path):
        return old.get(path) != new.get(path)
    added, removed, binary = _counts(repo, old[path], new[path], how, context)
    return bool(added or removed or binary)


def _counts(
    repo: Repo, old: tuple[str, str] | None, new: tuple[str, str] | None, how: Options, context: int = 3
) -> tuple[int, int, bool]:
    """(lines added, lines removed, binary) as the patch with ``context`` lines shows them (the
    context matters only where blank-line changes may be left out)."""
    a, b = _text(repo, old[1] if old else None), _text(repo, new[1] if new else None)
    if _is_binary(a) or _is_binary(b):
        return 0, 0, True
    left = split_lines(a.decode("utf-8", "surrogateescape"))
    right = split_lines(b.decode("utf-8", "surrogateescape"))
    hunks = git_hunks(left, right, how)
    if how.ignore_blank_lines or how.ignore_regexes:
        plain = replace(how, function_context=False)  # git counts without the function context
        hunks = [change for group in hunk_groups(left, right, hunks, context, plain) for change in group[4]]
    return sum(j2 - j1 for _, _, j1, j2 in hunks), sum(i2 - i1 for i1, i2, _, _ in hunks), False


def summary_line(files: int, added: int, removed: int) -> str:
    parts = [f" {files} file{'s' if files != 1 else ''} changed"]
    if added or not removed:
        parts.append(f"{added} insertion{'s' if added != 1 else ''}(+)")
    if removed or not added:
        parts.append(f"{removed} deletion{'s' if removed != 1 else ''}(-)")
    return ", ".join(parts) + "\n"


def _scale(it: int, width: int, most: int) -> int:
    return 0 if not it else 1 + (it * (width - 1) // most)


def _stat_lines(rows: list[tuple[str, int, int, bool]], width: int = 80) -> list[str]:
    """The ``--stat`` lines, the graph scaled to a terminal of ``width`` columns as git does."""
    most = max((a + d for _, a, d, binary in rows if not binary), default=0)
    number_width = max(len(str(most)), 3 if any(binary for *_, binary in rows) else 0)
    width = max(width, 16 + 6 + number_width)
    graph_width = most
    name_width = max(len(path) for path, *_ in rows)
    if name_width + number_width + 6 + graph_width > width:
        if graph_width > width * 3 // 8 - number_width - 6:
            graph_width = max(6, width * 3 // 8 - number_width - 6)
        if name_width > width - number_width - 6 - graph_width:
            name_width = width - number_width - 6 - graph_width
        else:
            graph_width = width - number_width - 6 - name_width
    out = []
    for path, added, removed, binary in rows:
        shown = path if len(path) <= name_width else "..." + path[len(path) - name_width + 3 :]
        if binary:
            out.append(f" {shown:<{name_width}} | {'Bin':>{number_width}}\n")
            continue
        add, rem = added, removed
        if graph_width <= most:
            total = _scale(add + rem, graph_width, most)
            if total < 2 and add and rem:
                total = 2
            if add < rem:
                add = _scale(add, graph_width, most)
                rem = total - add
            else:
                rem = _scale(rem, graph_width, most)
                add = total - rem
        bars = "+" * add + "-" * rem
        out.append(
            f" {shown:<{name_width}} | {added + removed:>{number_width}}{' ' + bars if bars else ''}\n"
        )
    return out


def diffstat(
    repo: Repo,
    old: Entries,
    new: Entries,
    summary_only: bool = False,
    paths: list[str] | None = None,
    how: Options = DEFAULT,
    kinds: tuple[str, ...] = ("stat",),
    context: int = 3,
    renames: int | None = DEFAULT_SCORE,
) -> str:
    """The stats of ``kinds`` in git's order (``numstat``, ``stat`` with its summary,
    ``shortstat``: the summary alone), counted on the edit script the patch shows;
    ``summary_only`` gives what ``git commit`` prints (the summary and ``create mode``/``delete
    mode`` lines)."""
    old, new = limited(old, paths), limited(new, paths)
    changed = changed_paths(old, new)
    if not changed:
        return ""
    moved = find_renames(repo, old, new, renames)
    for src, _ in moved.values():
        del changed[src]
    rows = []
    total_add = total_del = 0
    for path in sorted(changed):
        before = old[moved[path][0]] if path in moved else old.get(path)
        added, removed, binary = _counts(repo, before, new.get(path), how, context)
        if not (added or removed or binary) and path not in moved and same_mode(old, new, path):
            continue  # only ignored changes: not counted as a changed file
        total_add += added
        total_del += removed
        rows.append((rename_name(moved[path][0], path) if path in moved else path, added, removed, binary))
    if not rows:
        return ""
    summary = summary_line(len(rows), total_add, total_del)
    if not summary_only:
        out = []
        for kind in kinds:
            if kind == "numstat":
                out += [f"{'-' if bin_ else a}\t{'-' if bin_ else d}\t{path}\n" for path, a, d, bin_ in rows]
            else:
                out += [*(_stat_lines(rows) if kind == "stat" else []), summary]
        return "".join(out)
    out = [summary]
    for path in sorted(changed):
        kind = changed[path]
        if path in moved:
            src, score = moved[path]
            out.append(f" rename {rename_name(src, path)} ({similarity_index(score)}%)\n")
            if old[src][0] != new[path][0]:
                out.append(f" mode change {old[src][0]} => {new[path][0]}\n")
        elif kind == "A":
            out.append(f" create mode {new[path][0]} {path}\n")
        elif kind == "D":
            out.append(f" delete mode {old[path][0]} {path}\n")
        elif old[path][0] != new[path][0]:
            out.append(f" mode change {old[path][0]} => {new[path][0]} {path}\n")
    return "".join(out)


def _local(epoch: int, tz: str) -> time.struct_time:
    sign = -1 if tz.startswith("-") else 1
    return time.gmtime(epoch + sign * (int(tz[1:3]) * 3600 + int(tz[3:5]) * 60))


def git_date(epoch: int, tz: str = "+0000") -> str:
    """``Thu Jan 15 09:30:05 2026 +0000`` (git's default date format, in the author's zone)."""
    t = _local(epoch, tz)
    return time.strftime("%a %b ", t) + f"{t.tm_mday} " + time.strftime("%H:%M:%S %Y", t) + f" {tz}"


def iso_date(epoch: int, tz: str = "+0000", strict: bool = False) -> str:
    """``2026-01-15 09:30:05 +0000`` (``%ai``), or strict ISO 8601 ``2026-01-15T09:30:05+00:00``."""
    t = _local(epoch, tz)
    if strict:
        zone = f"{tz[:3]}:{tz[3:]}"
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + zone
    return time.strftime("%Y-%m-%d %H:%M:%S", t) + f" {tz}"
