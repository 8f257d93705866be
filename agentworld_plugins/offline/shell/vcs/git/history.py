"""git diff, log, show, branch, checkout, switch and rev-parse: commands over commits and refs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .branches import create_branch
from .diffopts import DiffOutput, diff_output, operands, shown_changes
from .graph import ancestors, merge_bases
from .ident import advice
from .mergestate import read_unmerged
from .pretty import Formatter
from .reflog import cmd_reflog, note_switch
from .repo import Commit, Entries, GitError, Repo
from .revwalk import AMBIGUOUS, LogOptions, parse, range_ends, walk
from .text import changed_paths, differs, shown_path
from .work import need_repo, pathspec_filter, status_sets

if TYPE_CHECKING:
    from ...proc import _Proc


def _split_paths(args: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" in args:
        k = args.index("--")
        return args[:k], args[k + 1 :]
    return args, None


def cmd_diff(p: _Proc, args: list[str]) -> int:
    if "--no-index" in args:
        from .noindex import diff_no_index

        return diff_no_index(p, args)
    repo = need_repo(p)
    args, specs = _split_paths(args)
    output = diff_output(p, args, repo)
    args = operands(args)
    cached = any(a in ("--cached", "--staged") for a in args)
    if not cached and read_unmerged(repo):
        return p.not_simulated()  # the combined diff (diff --cc) of paths in conflict
    revs: list[str] = []
    for a in args:
        if a.startswith("-"):
            continue
        pair = _range_ends(repo, a)
        if pair is not None:
            revs.extend(pair)
            continue
        sha = repo.resolve(a)
        if sha is None:
            if p.fs.lexists(p.path(a)) and specs is None:
                specs = [x for x in args if not x.startswith("-") and repo.resolve(x) is None]
                break
            raise GitError(
                f"ambiguous argument '{a}': unknown revision or path not in the working tree.\n"
                "Use '--' to separate paths from revisions, like this:\n"
                "'git <command> [<revision>...] -- [<file>...]'"
            )
        revs.append(sha)
    head, index, work = status_sets(repo)
    old: Entries
    new: Entries
    if len(revs) >= 2:
        old, new = repo.commit_entries(revs[0]), repo.commit_entries(revs[1])
    elif len(revs) == 1:
        old = repo.commit_entries(revs[0])
        new = index if cached else _tracked_work(index, work, old)
        if not cached:
            _store_work_blobs(repo, old, new)
    elif cached:
        old, new = head, index
    else:
        old, new = index, {path: entry for path, entry in work.items() if path in index}
        _store_work_blobs(repo, old, new)
    paths = pathspec_filter(p, repo, specs) if specs else None
    quiet = "--quiet" in args or "--exit-code" in args
    changed = changed_paths(old, new)
    if paths is not None:
        changed = {
            q: k for q, k in changed.items() if any(q == x or q.startswith(x + "/") or not x for x in paths)
        }
    if output.how.by_content:  # what changed only in ignored ways is not a change, and git only
        # looks when it prints the patch (or nothing): with --stat or --name-only alone, no change
        looks = output.wants_patch(default=True) or output.silent or "--quiet" in args
        changed = {
            q: k
            for q, k in changed.items()
            if looks and differs(repo, old, new, q, output.how, output.context)
        }
    if "--quiet" in args:
        return 1 if changed else 0
    p.out(shown_changes(repo, old, new, output, default_patch=True, paths=paths))
    return 1 if quiet and changed else 0


def _range_ends(repo: Repo, word: str) -> tuple[str, str] | None:
    """``A..B`` (A to B) and ``A...B`` (their merge base to B) as ``git diff`` reads them."""
    ends = range_ends(repo, word)
    if ends is None:
        return None
    dots, a, b = ends
    if dots == "...":
        bases = merge_bases(repo, a, b)
        if not bases:
            left, _, right = word.partition("...")
            raise GitError(f"{left}...{right}: no merge base")
        a = bases[0]
    return a, b


def _tracked_work(index: Entries, work: Entries, old: Entries) -> Entries:
    return {path: entry for path, entry in work.items() if path in index or path in old}


def _store_work_blobs(repo: Repo, old: Entries, new: Entries) -> None:
    """Blobs of changed work-tree files, so the diff can read them (git hashes them in memory)."""
    files = repo.worktree()
    for path, entry in new.items():
        if old.get(path) != entry and not repo.has_object(entry[1]):
            repo.write_blob(files[path][1])


def _formatter(p: _Proc, repo: Repo, o: LogOptions) -> Formatter:
    return Formatter(repo, o.pretty, p.fs.now(), p.ctx.out.tty)


def _graph(text: str, bar: str) -> str:
    """A linear history's graph: ``*`` before a commit's first line, ``bar`` before the rest
    (``| `` while the history goes on below, two blanks under a root commit)."""
    lines = text.split("\n")
    ended = not lines[-1]
    if ended:
        lines.pop()
    return "\n".join(["* " + lines[0], *(bar + line for line in lines[1:])]) + ("\n" if ended else "")


def cmd_log(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    if any(a in ("-g", "--walk-reflogs") for a in args):  # the reflog, as `git reflog` shows it
        if "--oneline" not in args:
            return p.not_simulated()
        return cmd_reflog(p, [a for a in args if a not in ("-g", "--walk-reflogs")])
    output = diff_output(p, args, repo)
    o = parse(p, repo, operands(args))
    if o.graph and o.reverse:
        raise GitError("options '--reverse' and '--graph' cannot be used together")
    show = _formatter(p, repo, o)
    commits = walk(repo, o)
    if o.graph and any(len(c.parents) > 1 for c in commits):
        return p.not_simulated()  # the graph of a history with merges
    entries = []
    for c in commits:
        show.mark = "<" if c.sha in o.left else ">"
        entry = _log_entry(repo, show, output, c, None if "--full-diff" in args else o.paths)
        if o.left_right:
            if o.pretty.kind != "oneline":
                return p.not_simulated()
            entry = f"{show.mark} {entry}"
        entries.append(entry)
    pretty = o.pretty
    if o.graph:
        gap = "\n" if pretty.separated else ""
        entries = [
            _graph(text + (gap if k < len(entries) - 1 else ""), "| " if c.parents else "  ")
            for k, (c, text) in enumerate(zip(commits, entries))
        ]
        p.out("".join(entries))
        return 0
    if pretty.kind == "format" and not pretty.terminated:
        p.out("\n".join(entries))
    else:
        p.out(("\n" if pretty.separated else "").join(entries))
    return 0


def _log_entry(repo: Repo, show: Formatter, output: DiffOutput, c: Commit, paths: list[str] | None) -> str:
    """One commit of ``git log``: its entry, then its changes (under ``paths`` only, as git
    limits the diff to the pathspecs unless ``--full-diff``)."""
    pretty = show.pretty
    text = show.entry(c)
    if pretty.kind == "format" and pretty.terminated and pretty.fmt:  # an empty format prints nothing
        text += "\n"
    if output.shows_any(default_patch=False) and len(c.parents) < 2:  # git log shows no merge's diff
        old = repo.commit_entries(c.parents[0]) if c.parents else {}
        text += shown_changes(
            repo, old, repo.commit_entries(c.sha), output, default_patch=False, lead=pretty.lead, paths=paths
        )
    return text


#: git rev-list's usage (printed on stderr, status 129, when no revision is named)
_REV_LIST_USAGE = (
    "usage: git rev-list [<options>] <commit>... [--] [<path>...]\n"
    "\n"
    "  limiting output:\n"
    "    --max-count=<n>\n"
    "    --max-age=<epoch>\n"
    "    --min-age=<epoch>\n"
    "    --sparse\n"
    "    --no-merges\n"
    "    --min-parents=<n>\n"
    "    --no-min-parents\n"
    "    --max-parents=<n>\n"
    "    --no-max-parents\n"
    "    --remove-empty\n"
    "    --all\n"
    "    --branches\n"
    "    --tags\n"
    "    --remotes\n"
    "    --stdin\n"
    "    --exclude-hidden=[receive|uploadpack]\n"
    "    --quiet\n"
    "  ordering output:\n"
    "    --topo-order\n"
    "    --date-order\n"
    "    --reverse\n"
    "  formatting output:\n"
    "    --parents\n"
    "    --children\n"
    "    --objects | --objects-edge\n"
    "    --disk-usage[=human]\n"
    "    --unpacked\n"
    "    --header | --pretty\n"
    "    --[no-]object-names\n"
    "    --abbrev=<n> | --no-abbrev\n"
    "    --abbrev-commit\n"
    "    --left-right\n"
    "    --count\n"
    "  special purpose:\n"
    "    --bisect\n"
    "    --bisect-vars\n"
    "    --bisect-all"
)


def cmd_rev_list(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    o = parse(p, repo, args)
    if not o.named:
        raise GitError(_REV_LIST_USAGE, 129, raw=True)
    commits = walk(repo, o)
    if o.count:
        p.out(f"{len(commits)}\n")
        return 0
    show = _formatter(p, repo, o)
    out = []
    for c in commits:
        ids = " ".join([show._id(c.sha), *(show._id(x) for x in c.parents)]) if o.parents else show._id(c.sha)
        if not o.formatted:
            out.append(ids + "\n")
        elif o.pretty.kind == "oneline":
            out.append(show.entry(c).replace(show._id(c.sha), ids, 1))
        else:
            entry = show.entry(c)
            if o.pretty.kind == "format":
                out.append(f"commit {ids}\n{entry}\n")
            else:
                out.append(entry.replace(show._id(c.sha), ids, 1))
    if o.formatted and o.pretty.separated:
        p.out("\n".join(out))
    else:
        p.out("".join(out))
    return 0


def _switch(p: _Proc, repo: Repo, target: str, sha: str | None, branch: str | None) -> int:
    """Move HEAD (and the index and work tree) to ``sha``; keep local changes that do not clash."""
    head, index, work = status_sets(repo)
    new = repo.commit_entries(sha)
    local = set(changed_paths(head, index)) | {q for q, k in changed_paths(index, work).items() if k != "A"}
    clashes = sorted(q for q in local if head.get(q) != new.get(q))
    if clashes:
        p.ctx.err.write(
            "error: Your local changes to the following files would be overwritten by checkout:\n"
            + "".join(f"\t{q}\n" for q in clashes)
            + "Please commit your changes or stash them before you switch branches.\nAborting\n"
        )
        return 1
    keep = {q: new[q] for q in new if q not in local}
    repo.checkout_entries(keep, {q: head[q] for q in head if q not in local})
    merged = dict(new)
    for q in local:
        if q in index:
            merged[q] = index[q]
        else:
            merged.pop(q, None)
    repo.write_index(merged)
    note_switch(p, repo, repo.head(), sha or "", target)
    repo.point_head(branch, sha)
    return 0


_DETACHED_ADVICE = """\
Note: switching to '{}'.

You are in 'detached HEAD' state. You can look around, make experimental
changes and commit them, and you can discard any commits you make in this
state without impacting any branches by switching back to a branch.

If you want to create a new branch to retain commits you create, you may
do so (now or later) by using -c with the switch command. Example:

  git switch -c <new-branch-name>

Or undo this operation with:

  git switch -

Turn off this advice by setting config variable advice.detachedHead to false

"""


def _leaving(p: _Proc, repo: Repo, old: str | None, new: str | None) -> str:
    """What git says on stderr when HEAD leaves a detached commit: where it was, or the commits
    no branch or tag reaches any more."""
    if repo.branch() is not None or old is None or old == new:
        return ""
    kept = ancestors(repo, [repo.peel(sha) for _, sha in repo.all_refs()] + ([new] if new else []))
    lost = [c for c in walk(repo, LogOptions(include=[old], named=True)) if c.sha not in kept]
    if not lost:
        return f"Previous HEAD position was {old[:7]} {repo.commit(old).subject}\n"
    shown = [f"  {c.sha[:7]} {c.subject}\n" for c in lost[:4]]
    more = len(lost) - 4
    if more == 1:
        shown.append(f"  {lost[-1].sha[:7]} {lost[-1].subject}\n")
    elif more > 1:
        shown.append(f" ... and {more} more.\n")
    n = len(lost)
    text = (
        f"Warning: you are leaving {n} commit{'s' if n != 1 else ''} behind, not connected to\n"
        f"any of your branches:\n\n{''.join(shown)}\n"
    )
    if advice(p, repo, "detachedhead"):
        text += (
            f"If you want to keep {'them' if n != 1 else 'it'} by creating a new branch, this may be a good time\n"
            f"to do so with:\n\n git branch <new-branch-name> {old[:7]}\n\n"
        )
    return text


def cmd_checkout(p: _Proc, args: list[str], switch: bool = False) -> int:
    repo = need_repo(p)
    args, specs = _split_paths(args)
    # bundled short options: -qb name is -q -b name
    args = [x for a in args for x in (["-q", "-" + a[2:]] if a[:2] == "-q" and len(a) == 3 else [a])]
    create = None
    quiet = "-q" in args or "--quiet" in args
    rest = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-b", "-B", "-c", "-C") and i + 1 < len(args):
            create = args[i + 1]
            i += 1
        elif a == "-":  # the branch checked out before
            rest.append("@{-1}")
        elif not a.startswith("-"):
            rest.append(a)
        i += 1
    if create is not None:
        start = rest[0] if rest else "HEAD"
        if repo.head() is None and start == "HEAD":
            repo.point_head(create)
        else:
            if create_branch(repo, create, start) != 0:
                return 1
            status = _switch(p, repo, create, repo.ref(f"refs/heads/{create}"), create)
            if status:
                return status
        if not quiet:
            p.ctx.err.write(f"Switched to a new branch '{create}'\n")
        return 0
    if (
        specs is None
        and rest
        and not switch
        and repo.ref(f"refs/heads/{rest[0]}") is None
        and repo.resolve(rest[0]) is None
    ):
        specs = rest
        rest = []
    if specs is not None:
        return _restore_paths(p, repo, rest[0] if rest else None, specs)
    detach = "--detach" in args or (switch and "-d" in args)
    if not rest and detach:
        rest = ["HEAD"]
    if not rest:
        p.ctx.err.write("fatal: missing branch or commit argument\n" if switch else "")
        return 128 if switch else 0
    target = rest[0]
    back = re.fullmatch(r"@\{-(\d+)\}", target)
    if back:
        previous = repo.previous_branch(int(back.group(1)))
        if previous is None:
            shown = "-" if target == "@{-1}" and "-" in args else target
            if switch:
                raise GitError(f"invalid reference: {target}")
            raise GitError(f"error: pathspec '{shown}' did not match any file(s) known to git", 1)
        target = previous
    old = repo.head()
    if repo.ref(f"refs/heads/{target}") is not None and not detach:
        if target == repo.branch():
            note_switch(p, repo, old, old or "", target)
            p.ctx.err.write(f"Already on '{target}'\n")
            return 0
        leaving = _leaving(p, repo, old, repo.ref(f"refs/heads/{target}"))
        status = _switch(p, repo, target, repo.ref(f"refs/heads/{target}"), target)
        if status == 0 and not quiet:
            p.ctx.err.write(f"{leaving}Switched to branch '{target}'\n")
        return status
    sha = repo.resolve(target)
    if sha is None:
        kind = (
            "invalid reference" if switch else f"pathspec '{target}' did not match any file(s) known to git"
        )
        p.ctx.err.write(f"{'fatal' if switch else 'error'}: {kind}{': ' + target if switch else ''}\n")
        return 128 if switch else 1
    if switch and "--detach" not in args and "-d" not in args:
        raise GitError(
            f"a branch is expected, got commit '{target}'\n"
            "hint: If you want to detach HEAD at the commit, try again with the --detach option."
        )
    attached = repo.branch() is not None
    leaving = _leaving(p, repo, old, sha)
    status = _switch(p, repo, target, sha, None)
    if status == 0 and not quiet:
        note = (
            _DETACHED_ADVICE.format(target)
            if attached and not detach and advice(p, repo, "detachedhead")
            else ""
        )
        p.ctx.err.write(f"{leaving}{note}HEAD is now at {sha[:7]} {repo.commit(sha).subject}\n")
    return status


def _restore_paths(p: _Proc, repo: Repo, rev: str | None, specs: list[str]) -> int:
    index = repo.read_index()
    source = index
    if rev is not None:
        sha = repo.resolve(rev)
        if sha is None:
            raise GitError(f"invalid reference: {rev}")
        source = repo.commit_entries(sha)
    count = 0
    for spec, prefix in zip(specs, pathspec_filter(p, repo, specs)):
        hits = [q for q in source if not prefix or q == prefix or q.startswith(prefix + "/")]
        if not hits:
            p.ctx.err.write(f"error: pathspec '{spec}' did not match any file(s) known to git\n")
            return 1
        for q in hits:
            repo.write_file(q, *source[q])
            if rev is not None:
                index[q] = source[q]
            count += 1
    repo.write_index(index)
    where = "the index" if rev is None else rev
    if p.ctx.err.tty:  # git says it where stderr is a terminal
        p.ctx.err.write(f"Updated {count} path{'s' if count != 1 else ''} from {where}\n")
    return 0


def _full_ref(repo: Repo, name: str) -> str | None:
    """The ref a name stands for (``--symbolic-full-name``), None for a plain commit."""
    if name in ("HEAD", "@"):
        return repo.head_ref() or "HEAD"
    for ref in (name, f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}"):
        if ref.startswith("refs/") and repo.ref(ref):
            return ref
    return None


def cmd_rev_parse(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    short: int | None = None
    mode = ""
    verify = quiet = False
    if "--verify" in args:
        verify = True
        quiet = any(a in ("-q", "--quiet") for a in args)
        names = [a for a in args if not a.startswith("-")]
        if len(names) != 1 or repo.resolve(names[0].split(":")[0]) is None:
            if quiet:
                return 1
            raise GitError("Needed a single revision")
    here = repo.relpath(p.vm.cwd) or ""
    for a in args:
        if a == "--show-toplevel":
            p.out(repo.root + "\n")
        elif a == "--git-dir":
            p.out((".git" if p.vm.cwd == repo.root else repo.gitdir) + "\n")
        elif a == "--absolute-git-dir":
            p.out(repo.gitdir + "\n")
        elif a in ("--is-inside-work-tree", "--is-inside-git-dir", "--is-bare-repository"):
            p.out(("true" if a == "--is-inside-work-tree" else "false") + "\n")
        elif a == "--show-prefix":
            p.out(here + ("/" if here else "") + "\n")
        elif a == "--show-cdup":
            p.out("../" * (here.count("/") + 1) + "\n" if here else "\n")
        elif a.startswith("--short"):
            short = int(a.partition("=")[2] or 7)
        elif a in ("--abbrev-ref", "--symbolic-full-name", "--symbolic"):
            mode = a
        elif a in ("--verify", "-q", "--quiet", "--"):
            continue
        elif a.startswith("-"):
            return p.not_simulated()
        elif not _parse_one(p, repo, a, mode, short, verify):
            return 128
    return 0


def _parse_one(p: _Proc, repo: Repo, a: str, mode: str, short: int | None, verify: bool) -> bool:
    """Print what ``a`` names (False, after git's message, when it names nothing)."""
    ends = range_ends(repo, a) if not verify else None
    if ends is not None:  # B and ^A; for A...B: B, A and ^ their merge bases
        dots, left, right = ends
        bases = merge_bases(repo, left, right) if dots == "..." else [left]
        p.out(f"{right}\n" + (f"{left}\n" if dots == "..." else "") + "".join(f"^{x}\n" for x in bases))
        return True
    if mode == "--symbolic":
        p.out(a + "\n")
        return True
    back = re.fullmatch(r"@\{-(\d+)\}", a)
    previous = repo.previous_branch(int(back.group(1))) if back else None
    if mode == "--abbrev-ref":
        if a in ("HEAD", "@"):
            p.out((repo.branch() or "HEAD") + "\n")
            return True
        name = previous if previous is not None else a
        ref = _full_ref(repo, name)
        if ref is not None:
            p.out(re.sub(r"^refs/(heads|tags)/", "", ref) + "\n")
            return True
    if mode == "--symbolic-full-name":
        ref = _full_ref(repo, previous if previous is not None else a)
        if ref is not None or repo.resolve(a) is not None:
            p.out(f"{ref}\n" if ref else "")
            return True
    rev, colon, path = a.partition(":")
    sha = repo.resolve(rev or "HEAD") if colon else repo.resolve(a)
    if sha is not None and colon:
        entry = repo.commit_entries(sha).get(path.lstrip("./"))
        if entry is None:
            raise GitError(f"path '{path}' does not exist in '{rev or 'HEAD'}'")
        sha = entry[1]
    elif sha is not None and a.endswith("^{tree}"):
        sha = repo.commit(sha).tree
    if sha is None:  # git's message, then the word (its buffered standard output goes last)
        p.ctx.err.write(f"fatal: {AMBIGUOUS.format(a)}\n")
        p.out(a + "\n")
        return False
    p.out((sha[:short] if short else sha) + "\n")
    return True


def cmd_ls_files(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    index = repo.read_index()
    p.out("".join(f"{shown_path(repo, p.vm.cwd, q)}\n" for q in sorted(index)))
    return 0


def cmd_cat_file(p: _Proc, args: list[str]) -> int:
    """git cat-file -t / -s / -p / -e OBJECT."""
    repo = need_repo(p)
    flags = [a for a in args if a.startswith("-")]
    names = [a for a in args if not a.startswith("-")]
    if len(flags) != 1 or len(names) != 1 or flags[0] not in ("-t", "-s", "-p", "-e"):
        p.ctx.err.write("usage: git cat-file (-t | -s | -e | -p) <object>\n")
        return 129
    name = names[0]
    sha = _object_id(repo, name)
    if sha is None:
        if flags[0] == "-e":
            return 1
        raise GitError(f"Not a valid object name {name}")
    kind, body = repo.read_object(sha)
    if flags[0] == "-e":
        return 0
    if flags[0] == "-t":
        p.out(kind + "\n")
    elif flags[0] == "-s":
        p.out(f"{len(body)}\n")
    elif kind == "tree":
        entries = []
        i = 0
        while i < len(body):
            space = body.index(b" ", i)
            nul = body.index(b"\x00", space)
            mode = body[i:space].decode()
            entry = body[nul + 1 : nul + 21].hex()
            what = "tree" if mode == "40000" else "blob"
            entries.append(
                f"{mode.zfill(6)} {what} {entry}\t{body[space + 1 : nul].decode('utf-8', 'replace')}\n"
            )
            i = nul + 21
        p.out("".join(entries))
    else:
        p.out(body.decode("utf-8", "surrogateescape"))
    return 0


def _object_id(repo: Repo, name: str) -> str | None:
    if name.endswith("^{tree}"):
        sha = repo.resolve(name)
        return repo.commit(sha).tree if sha else None
    if ":" in name:
        rev, _, path = name.partition(":")
        sha = repo.resolve(rev or "HEAD")
        entry = repo.commit_entries(sha).get(path.lstrip("./")) if sha else None
        return entry[1] if entry else None
    if re.fullmatch(r"[0-9a-f]{40}", name) and repo.has_object(name):
        return name
    tag = repo.ref(f"refs/tags/{name}")
    if tag is not None and not name.endswith("}"):
        return tag
    return repo.resolve(name)
