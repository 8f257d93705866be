"""``git show``: commits (header and diff), annotated tags (git's tag header, then the commit),
``REV:path`` blobs, several of them in a row, in the format the options name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diffopts import DiffOutput, diff_output, operands, shown_changes
from .pretty import Formatter, Unsupported, show_date
from .repo import GitError, Repo
from .revwalk import parse
from .work import need_repo, pathspec_filter

if TYPE_CHECKING:
    from ...proc import _Proc


def cmd_show(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    output = diff_output(p, args, repo)
    given = operands(args)
    specs = given[given.index("--") + 1 :] if "--" in given else None
    given = given[: given.index("--")] if "--" in given else given
    words = [a for a in given if not a.startswith("-")]
    if (
        specs is None
        and len(words) > 1
        and repo.resolve(words[-1]) is None
        and p.fs.lexists(p.path(words[-1]))
    ):
        k = next(k for k, w in enumerate(words) if repo.resolve(w) is None and ":" not in w)
        words, specs = words[:k], words[k:]
    paths = pathspec_filter(p, repo, specs) if specs else None
    o = parse(p, repo, [a for a in given if a.startswith("-")])
    show = Formatter(repo, o.pretty, p.fs.now(), p.ctx.out.tty)
    entries: list[str] = []  # commits and tags: a blank line between them in the formats of many lines
    out = []
    shown: set[str] = set()
    for target in words or ["HEAD"]:
        if ":" in target:
            out.append(_blob(repo, target))
            continue
        sha = repo.resolve(target)
        if sha is None:
            raise GitError(
                f"ambiguous argument '{target}': unknown revision or path not in the working tree."
            )
        tag = repo.ref(f"refs/tags/{target}")
        pieces = [_tag(show, repo, tag, p.fs.now())] if tag and repo.read_object(tag)[0] == "tag" else []
        if sha not in shown:  # a commit named twice (a tag and HEAD) is shown once, as git does
            shown.add(sha)
            pieces.append(_commit(show, repo, output, sha, paths))
        for piece in pieces:
            out.append(("\n" if entries and o.pretty.separated else "") + piece)
            entries.append(piece)
    p.out("".join(out))
    return 0


def _blob(repo: Repo, target: str) -> str:
    rev, _, path = target.partition(":")
    sha = repo.resolve(rev or "HEAD")
    entries = repo.commit_entries(sha) if sha else {}
    entry = entries.get(path.lstrip("./"))
    if entry is None:
        raise GitError(f"path '{path}' does not exist in '{rev or 'HEAD'}'")
    return repo.blob(entry[1]).decode("utf-8", "surrogateescape")


def _tag(show: Formatter, repo: Repo, tag: str, now: int) -> str:
    """An annotated tag as git shows it: ``tag NAME``, the tagger as the format shows people
    (none in ``oneline``, no date in a user format), then the message as written."""
    body = repo.read_object(tag)[1].decode("utf-8", "surrogateescape")
    header, _, message = body.partition("\n\n")
    fields = dict(line.split(" ", 1) for line in header.split("\n") if " " in line)
    kind = show.pretty.kind
    if kind in ("raw", "email"):
        raise Unsupported(kind)
    out = f"tag {fields.get('tag', '')}\n"
    tagger = fields.get("tagger", "")
    if tagger and kind not in ("oneline", "reference"):
        who, _, when = tagger.rpartition("> ")
        epoch, _, tz = when.partition(" ")
        person = who + ">"
        date = show_date(int(epoch or 0), tz or "+0000", show.pretty.date, now)
        if kind == "fuller":
            out += f"Tagger:     {person}\nTaggerDate: {date}\n"
        else:
            out += f"Tagger: {person}\n" + (f"Date:   {date}\n" if kind == "medium" else "")
    return out + "\n" + message


def _commit(show: Formatter, repo: Repo, output: DiffOutput, sha: str, paths: list[str] | None) -> str:
    commit = repo.commit(sha)
    if len(commit.parents) > 1 and output.shows_any(default_patch=True):
        raise Unsupported("--cc")  # a merge's combined diff
    parent = repo.commit_entries(commit.parents[0]) if commit.parents else {}
    pretty = show.pretty
    text = ""
    if not (pretty.kind == "format" and not pretty.fmt):  # --format= (empty): no header at all
        text = show.entry(commit) + ("\n" if pretty.kind == "format" else "")
    return text + shown_changes(
        repo, parent, repo.commit_entries(sha), output, default_patch=True, lead=pretty.lead, paths=paths
    )
