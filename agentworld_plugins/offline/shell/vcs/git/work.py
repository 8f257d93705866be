"""git init, status, add, rm, commit, reset, restore and config: the work-tree commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....vfs import FsError
from . import mergestate
from .ident import advice, config, person, reflog_ident
from .renames import find_renames
from .repo import Entries, GitError, Repo
from .text import changed_paths, diffstat, git_date, quote_path, shown_path, tree_diff

if TYPE_CHECKING:
    from ...proc import _Proc


def need_repo(p: _Proc) -> Repo:
    """The repository the current directory is in; git's fatal error where there is none."""
    repo = Repo.discover(p.fs, p.vm.cwd)
    if repo is None:
        raise GitError("not a git repository (or any of the parent directories): .git")
    return repo


_BRANCH_HINT = "".join(
    f"hint: {line}\n"
    for line in (
        "Using 'master' as the name for the initial branch. This default branch name",
        "is subject to change. To configure the initial branch name to use in all",
        "of your new repositories, which will suppress this warning, call:",
        "",
        "\tgit config --global init.defaultBranch <name>",
        "",
        "Names commonly chosen instead of 'master' are 'main', 'trunk' and",
        "'development'. The just-created branch can be renamed via this command:",
        "",
        "\tgit branch -m <name>",
    )
)


def cmd_init(p: _Proc, args: list[str]) -> int:

    quiet = "-q" in args or "--quiet" in args
    branch = None
    operands = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-b", "--initial-branch") and i + 1 < len(args):
            branch = args[i + 1]
            i += 1
        elif a.startswith("--initial-branch="):
            branch = a.split("=", 1)[1]
        elif not a.startswith("-"):
            operands.append(a)
        i += 1
    root = p.path(operands[0]) if operands else p.vm.cwd
    try:
        p.fs.mkdir(root, parents=True)
    except FsError as exc:
        raise GitError(f"cannot mkdir {operands[0]}: {exc.strerror}") from None
    configured = config(p, None).get("init.defaultbranch")
    repo, existed = Repo.init(p.fs, root, branch or configured)
    if not quiet:
        if not existed and branch is None and configured is None:
            p.ctx.err.write(_BRANCH_HINT)
        word = "Reinitialized existing" if existed else "Initialized empty"
        p.out(f"{word} Git repository in {repo.gitdir}/\n")
    return 0


def status_sets(repo: Repo) -> tuple[Entries, Entries, Entries]:
    """(HEAD's tree, the index, the work tree hashed)."""
    return repo.commit_entries(repo.head()), repo.read_index(), repo.hashed_worktree()


def untracked_paths(index: Entries, work: Entries) -> list[str]:
    """Untracked files, a folder holding no tracked file shown once as ``folder/``."""
    tracked_dirs = set()
    for path in index:
        parts = path.split("/")[:-1]
        for k in range(1, len(parts) + 1):
            tracked_dirs.add("/".join(parts[:k]))
    shown: set[str] = set()
    for path in work:
        if path in index:
            continue
        parts = path.split("/")
        entry = path
        for k in range(1, len(parts)):
            folder = "/".join(parts[:k])
            if folder not in tracked_dirs:
                entry = folder + "/"
                break
        shown.add(entry)
    return sorted(shown)


def _rel(p: _Proc, repo: Repo, path: str, space: bool = False) -> str:
    return quote_path(shown_path(repo, p.vm.cwd, path), space)


def cmd_status(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    head_sha = repo.head()
    head, index, work = status_sets(repo)
    staged = changed_paths(head, index)
    renames = staged_renames(repo, staged, head, index)
    unstaged = {path: kind for path, kind in changed_paths(index, work).items() if kind != "A"}
    mode = next(
        (
            a.partition("=")[2] if a.startswith("--") else a[2:]
            for a in args
            if a.startswith(("-u", "--untracked-files"))
        ),
        "normal",
    )
    if mode not in ("no", "normal", "all", ""):
        raise GitError(f"Invalid untracked files mode '{mode}'")
    if mode == "all" or mode == "":
        untracked = sorted(q for q in work if q not in index)
    else:
        untracked = untracked_paths(index, work) if mode != "no" else []
    if "--" in args:  # pathspecs: only what lies under them
        prefixes = pathspec_filter(p, repo, args[args.index("--") + 1 :])

        def inside(q: str) -> bool:
            return any(under(q.rstrip("/"), x) or (x.startswith(q) and q.endswith("/")) for x in prefixes)

        staged = {q: k for q, k in staged.items() if inside(q)}
        unstaged = {q: k for q, k in unstaged.items() if inside(q)}
        untracked = [q for q in untracked if inside(q)]
    ignored: list[str] = []
    if any(a in ("--ignored", "--ignored=traditional") for a in args):
        repo.worktree(ignored)
    elif any(a.startswith("--ignored=") and a != "--ignored=no" for a in args):
        return p.not_simulated()  # --ignored=matching lists another set
    unmerged = mergestate.read_unmerged(repo)
    for path in unmerged:
        staged.pop(path, None)
        unstaged.pop(path, None)
    short = any(a in ("-s", "--short", "-sb", "-bs") or a.startswith("--porcelain") for a in args)
    if short:
        lines = []
        if any(a in ("-b", "--branch", "-sb", "-bs") for a in args):
            branch = repo.branch()
            if head_sha is None:
                lines.append(f"## No commits yet on {branch}\n")
            else:
                lines.append(f"## {branch}\n" if branch else "## HEAD (no branch)\n")
        for path in sorted(set(staged) | set(unstaged) | set(unmerged)):
            shown = _rel(p, repo, path, space=True)
            if path in renames:
                shown = f"{_rel(p, repo, renames[path], space=True)} -> {shown}"
            code = _SHORT_UNMERGED.get(unmerged.get(path, ""))
            lines.append(f"{code or staged.get(path, ' ') + unstaged.get(path, ' ')} {shown}\n")
        lines.extend(f"?? {_rel(p, repo, path, space=True)}\n" for path in untracked)
        lines.extend(f"!! {_rel(p, repo, path, space=True)}\n" for path in sorted(ignored))
        p.out("".join(lines))
        return 0
    p.out(long_status(p, repo, head_sha, staged, unstaged, untracked, renames, unmerged, sorted(ignored)))
    if any(a in ("-v", "--verbose") for a in args):  # what would be committed, as a patch
        p.out(tree_diff(repo, head, index))
    elif any(a in ("-vv",) for a in args):
        return p.not_simulated()
    return 0


_SHORT_UNMERGED = {"both modified": "UU", "both added": "AA", "deleted by them": "UD", "deleted by us": "DU"}


def staged_renames(repo: Repo, staged: dict[str, str], head: Entries, index: Entries) -> dict[str, str]:
    """Staged renames (a path gone and one added, found as git's diff finds them): ``{new: old}``;
    ``staged`` then says ``R`` for the new path and no longer lists the old one."""
    renames = {}
    for new, (old, _) in sorted(find_renames(repo, head, index).items()):
        renames[new] = old
        staged[new] = "R"
        del staged[old]
    return renames


def long_status(
    p: _Proc,
    repo: Repo,
    head_sha: str | None,
    staged: dict[str, str],
    unstaged: dict[str, str],
    untracked: list[str],
    renames: dict[str, str] | None = None,
    unmerged: dict[str, str] | None = None,
    ignored: list[str] | None = None,
) -> str:
    names = {"A": "new file", "M": "modified", "D": "deleted", "R": "renamed"}
    renames = renames or {}
    unmerged = unmerged or {}
    branch = repo.branch()
    out = [f"On branch {branch}\n" if branch else f"HEAD detached at {(head_sha or '')[:7]}\n"]
    if head_sha is None:
        out.append("\nNo commits yet\n\n")
    out.append(mergestate.status_note(repo, bool(unmerged)))
    if staged:
        hint = "git rm --cached <file>..." if head_sha is None else "git restore --staged <file>..."
        waiting = mergestate.in_progress(repo) in ("merge", "cherry-pick")
        out.append("Changes to be committed:\n" + ("" if waiting else f'  (use "{hint}" to unstage)\n'))
        out.extend(
            f"\t{names[kind] + ':':<12}"
            + (f"{_rel(p, repo, renames[path])} -> " if path in renames else "")
            + f"{_rel(p, repo, path)}\n"
            for path, kind in sorted(staged.items())
        )
        out.append("\n")
    if unstaged:
        verb = "add/rm" if "D" in unstaged.values() else "add"
        out.append(
            f'Changes not staged for commit:\n  (use "git {verb} <file>..." to update what will be committed)\n'
            '  (use "git restore <file>..." to discard changes in working directory)\n'
        )
        out.extend(
            f"\t{names[kind] + ':':<12}{_rel(p, repo, path)}\n" for path, kind in sorted(unstaged.items())
        )
        out.append("\n")
    if unmerged:
        restore = '  (use "git restore --staged <file>..." to unstage)\n'
        hint = restore if mergestate.in_progress(repo) == "revert" else ""
        out.append(f'Unmerged paths:\n{hint}  (use "git add <file>..." to mark resolution)\n')
        out.extend(f"\t{word + ':':<17}{_rel(p, repo, path)}\n" for path, word in sorted(unmerged.items()))
        out.append("\n")
    if untracked:
        out.append('Untracked files:\n  (use "git add <file>..." to include in what will be committed)\n')
        out.extend(f"\t{_rel(p, repo, path)}\n" for path in untracked)
        out.append("\n")
    if ignored:
        out.append('Ignored files:\n  (use "git add -f <file>..." to include in what will be committed)\n')
        out.extend(f"\t{_rel(p, repo, path)}\n" for path in ignored)
        out.append("\n")
    if staged:
        pass
    elif unstaged or unmerged:
        out.append('no changes added to commit (use "git add" and/or "git commit -a")\n')
    elif untracked:
        out.append('nothing added to commit but untracked files present (use "git add" to track)\n')
    elif head_sha is None:
        out.append('nothing to commit (create/copy files and use "git add" to track)\n')
    else:
        out.append("nothing to commit, working tree clean\n")
    return "".join(out)


def pathspec_filter(p: _Proc, repo: Repo, specs: list[str]) -> list[str]:
    """Pathspecs as paths relative to the work tree root ("" for the whole tree)."""
    out = []
    for spec in specs:
        rel = repo.relpath(p.path(spec))
        if rel is None:
            raise GitError(f"{spec}: '{spec}' is outside repository at '{repo.root}'")
        out.append(rel)
    return out


def under(path: str, prefix: str) -> bool:
    return not prefix or path == prefix or path.startswith(prefix + "/")


def cmd_add(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    everything = any(a in ("-A", "--all") for a in args)
    update = any(a in ("-u", "--update") for a in args)
    specs = [a for a in args if not a.startswith("-")]
    if not specs and not everything and not update:
        p.ctx.err.write("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n")
        return 0
    prefixes = pathspec_filter(p, repo, specs) if specs else [""]
    index = repo.read_index()
    work = repo.worktree(force=any(a in ("-f", "--force") for a in args))
    for spec, prefix in zip(specs or ["."], prefixes):
        matched = [path for path in work if under(path, prefix)]
        gone = [path for path in index if under(path, prefix) and path not in work]
        if not matched and not gone and spec != ".":
            if p.fs.lexists(p.path(spec)):
                p.ctx.err.write(
                    "The following paths are ignored by one of your .gitignore files:\n"
                    f"{spec}\nhint: Use -f if you really want to add them.\n"
                    + (
                        'hint: Turn this message off by running\nhint: "git config advice.addIgnoredFile false"\n'
                        if advice(p, repo, "addignoredfile")
                        else ""
                    )
                )
                return 1
            raise GitError(f"pathspec '{spec}' did not match any files")
        for path in matched:
            if update and path not in index:
                continue
            mode, data = work[path]
            index[path] = (mode, repo.write_blob(data))
        for path in gone:
            del index[path]
        mergestate.resolved(repo, [q for q in (*matched, *gone)])
    repo.write_index(index)
    return 0


def cmd_rm(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    cached = "--cached" in args
    recursive = "-r" in args
    quiet = "-q" in args or "--quiet" in args
    specs = [a for a in args if not a.startswith("-")]
    index = repo.read_index()
    for spec, prefix in zip(specs, pathspec_filter(p, repo, specs)):
        hits = [path for path in index if under(path, prefix)]
        if not hits:
            raise GitError(f"pathspec '{spec}' did not match any files")
        if any(path != prefix for path in hits) and not recursive:
            raise GitError(f"not removing '{spec}' recursively without -r")
        mergestate.resolved(repo, hits)
        for path in sorted(hits):
            del index[path]
            if not quiet:
                p.out(f"rm '{path}'\n")
            if not cached:
                try:
                    p.fs.remove(repo.abspath(path))
                except FsError:
                    pass
    repo.write_index(index)
    return 0


def cmd_commit(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    messages: list[str] = []
    all_tracked = allow_empty = quiet = amend = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-m", "--message") and i + 1 < len(args):
            messages.append(args[i + 1])
            i += 1
        elif a.startswith("--message="):
            messages.append(a.split("=", 1)[1])
        elif a in ("-a", "--all"):
            all_tracked = True
        elif len(a) > 2 and a[0] == "-" and a[1] != "-" and set(a[1:].split("m")[0]) <= set("aqvsn"):
            flags, has_m, value = a[1:].partition("m")  # bundled short options: -am msg, -qam msg
            all_tracked = all_tracked or "a" in flags
            quiet = quiet or "q" in flags
            if has_m:
                if value:
                    messages.append(value)
                elif i + 1 < len(args):
                    messages.append(args[i + 1])
                    i += 1
        elif a == "--allow-empty":
            allow_empty = True
        elif a in ("-q", "--quiet"):
            quiet = True
        elif a == "--amend":
            amend = True
        i += 1
    head_sha = repo.head()
    index = repo.read_index()
    if all_tracked:
        files = repo.worktree()
        for path in list(index):
            if path in files:
                mode, data = files[path]
                index[path] = (mode, repo.write_blob(data))
            else:
                del index[path]
        repo.write_index(index)
        mergestate.resolved(repo, list(files))
    parents = [head_sha] if head_sha else []
    waiting = mergestate.in_progress(repo)
    if waiting is not None:
        if mergestate.read_unmerged(repo):
            p.out("".join(f"U\t{q}\n" for q in sorted(mergestate.read_unmerged(repo))))
            raise GitError(
                "error: Committing is not possible because you have unmerged files.\n"
                + mergestate.UNMERGED_REFUSAL
            )
        if waiting == "merge":
            parents.append((mergestate.state_file(repo, "MERGE_HEAD") or "").strip())
        if not messages and "--no-edit" in args:
            messages = [(mergestate.state_file(repo, "MERGE_MSG") or "").strip("\n")]
    if amend:
        if head_sha is None:
            raise GitError("You have nothing to amend.")
        old = repo.commit(head_sha)
        parents = old.parents
        if not messages:
            messages = [old.message.rstrip("\n")]
    base = repo.commit_entries(parents[0] if parents else None)
    if not amend and not allow_empty and waiting != "merge" and not changed_paths(base, index):
        work = repo.hashed_worktree()
        unstaged = {path: kind for path, kind in changed_paths(index, work).items() if kind != "A"}
        p.out(long_status(p, repo, head_sha, {}, unstaged, untracked_paths(index, work)))
        return 1
    if not messages or not any(m.strip() for m in messages):
        p.ctx.err.write("Aborting commit due to empty commit message.\n")
        return 1
    message = "\n\n".join(m.strip("\n") for m in messages) + "\n"
    author = person(p, repo, "author")
    committer = person(p, repo, "committer")
    if amend and "--reset-author" not in args and repo.head():
        author = repo.commit(repo.head() or "").author
    if waiting == "cherry-pick":
        author = repo.commit((mergestate.state_file(repo, "CHERRY_PICK_HEAD") or "").strip()).author
    sha = repo.write_commit(repo.write_tree(index), parents, author, message, committer)
    kind = " (initial)" if not parents else " (amend)" if amend else f" ({waiting})" if waiting else ""
    repo.set_head(sha, f"commit{kind}: {message.split(chr(10))[0]}", committer)
    mergestate.clear(repo)
    if not quiet:
        branch = repo.branch() or "detached HEAD"
        root = " (root-commit)" if not parents else ""
        p.out(f"[{branch}{root} {sha[:7]}] {message.split(chr(10))[0]}\n")
        p.out(commit_summary(repo, sha, base, index, picked=waiting == "cherry-pick"))
    return 0


def commit_summary(repo: Repo, sha: str, base: Entries, entries: Entries, picked: bool = False) -> str:
    """What ``git commit`` prints under ``[branch id] subject``: `` Author:`` when the author is
    not the committer, `` Date:`` when the author came from a cherry-picked commit, and the
    change summary (none for a merge)."""
    made = repo.commit(sha)
    out = ""
    if (made.author_name, made.author_email) != (made.committer_name, made.committer_email):
        out = f" Author: {made.author_name} <{made.author_email}>\n"
    if picked:
        out += f" Date: {git_date(made.time, made.tz)}\n"
    if len(made.parents) > 1:
        return out
    return out + diffstat(repo, base, entries, summary_only=True)


def cmd_reset(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    mode = "mixed"
    rest = []
    for a in args:
        if a in ("--hard", "--soft", "--mixed"):
            mode = a[2:]
        elif a not in ("-q", "--quiet", "--"):
            rest.append(a)
    target = repo.head()
    named = "HEAD"
    if rest and repo.resolve(rest[0]) is not None:
        named = rest[0]
        target = repo.resolve(rest.pop(0))
    entries = repo.commit_entries(target)
    index = repo.read_index()
    if rest:  # git reset <paths>: unstage them
        for prefix in pathspec_filter(p, repo, rest):
            for path in [q for q in index if under(q, prefix)]:
                del index[path]
            for path, entry in entries.items():
                if under(path, prefix):
                    index[path] = entry
        repo.write_index(index)
        return 0
    if target is None:
        repo.write_index({})
        return 0
    if mode != "soft":
        mergestate.clear(repo)
    if mode == "hard":
        repo.checkout_entries(entries, {**index, **repo.read_index()})
    if mode != "soft":
        repo.write_index(entries)
    repo.set_head(target, f"reset: moving to {named}", reflog_ident(p, repo))
    if any(a in ("-q", "--quiet") for a in args):
        return 0
    if mode == "hard":
        p.out(f"HEAD is now at {target[:7]} {repo.commit(target).subject}\n")
    elif mode == "mixed":
        changed = changed_paths(entries, repo.hashed_worktree())
        lines = [f"{kind}\t{path}\n" for path, kind in sorted(changed.items()) if kind != "A"]
        if lines:
            p.out("Unstaged changes after reset:\n" + "".join(lines))
    return 0


def cmd_restore(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    staged = "--staged" in args or "-S" in args
    worktree = "--worktree" in args or "-W" in args or not staged
    source = None
    specs = []
    for a in args:
        if a.startswith("--source="):
            source = a.split("=", 1)[1]
        elif not a.startswith("-"):
            specs.append(a)
    if not specs:
        raise GitError("you must specify path(s) to restore")
    index = repo.read_index()
    head = repo.commit_entries(repo.head())
    origin = repo.commit_entries(repo.resolve(source)) if source else None
    for spec, prefix in zip(specs, pathspec_filter(p, repo, specs)):
        known = [q for q in {**index, **head} if under(q, prefix)]
        if not known:
            p.ctx.err.write(f"error: pathspec '{spec}' did not match any file(s) known to git\n")
            return 1
        for path in known:
            if staged:
                if path in (origin or head):
                    index[path] = (origin or head)[path]
                else:
                    index.pop(path, None)
            if worktree:
                entry = (origin or index).get(path)
                if entry is not None:
                    repo.write_file(path, *entry)
    repo.write_index(index)
    return 0
