"""The engine under ``bench infer`` and ``bench judge``: many requests at once, nothing lost.

Items are worked on by ``concurrency`` asyncio workers. Each result is appended to the output JSONL
and flushed the moment it is ready, so a crash, a Ctrl-C or a SIGKILL loses only what was in
flight. Rerunning the same command resumes: the records already done (by domain, id and turn) are
skipped, failed ones are tried again, and a line torn by a kill is dropped. A second run on the
same output file is refused while the first holds it (:mod:`.lock`). When every item is
done the file is rewritten in input order, so an interrupted-and-resumed run ends with the same
file as an uninterrupted one.

Transport errors (connection refused, timeouts, HTTP 429/5xx, bodies that are not JSON) are
retried with exponential backoff, and so are answers a ``check`` rejects (a judgement with no
scores). When several records in a row end with the server unreachable (no answer at all:
connection refused or dropped, timeouts), the run stops with a message instead of turning the
rest of the benchmark into failures. A record the server keeps answering with an HTTP 5xx or a
body that is not JSON is written failed and the run goes on, as the official script does.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..errors import AgentWorldError, BackendError, BackendUnavailableError
from ..files import MAX_LINE_CHARS, open_private
from ..limits import loads_limited
from ..redaction import redact_record
from .data import Key, dump_line, key_text, record_key
from .lock import OutputLock, real_output

T = TypeVar("T")

_TRANSIENT_HTTP = re.compile(r"\bHTTP (429|5\d\d)\b")


@dataclass
class RunOptions:
    """How a bench step runs: parallelism, retries, timeouts, and what counts as done."""

    concurrency: int = 32
    max_retries: int = 3
    retry_backoff: float = 0.5
    request_timeout: float = 600.0
    #: draw a progress bar on stderr; None (the default): only when stderr is a terminal
    progress: bool | None = None
    redo_failed: bool = True
    #: this many records in a row ending with the server unreachable stop the run
    unavailable_limit: int = 5
    #: for OpenAI-compatible servers: "lean" (bench's asyncio client) or "openai" (the SDK)
    http_client: str = "lean"
    #: the judge's retries when they differ from ``max_retries`` (the CLI: 2, three attempts in all)
    judge_max_retries: int | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise AgentWorldError(
                f"concurrency {self.concurrency} must be at least 1", hint="pass --concurrency 1 or more"
            )
        if self.max_retries < 0:
            raise AgentWorldError(
                f"max_retries {self.max_retries} must be 0 or more", hint="pass --max-retries 0 or more"
            )
        if self.request_timeout <= 0:
            raise AgentWorldError(
                f"request timeout {self.request_timeout} must be positive",
                hint="pass --request-timeout SECONDS",
            )


# -- errors and retries -----------------------------------------------------------------------------


def is_transient(exc: BaseException) -> bool:
    """Whether trying again could help: the server was unreachable, slow, overloaded or garbled."""
    if isinstance(exc, (BackendUnavailableError, asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    if isinstance(exc, BackendError):
        text = exc.message
        return bool(_TRANSIENT_HTTP.search(text)) or "not JSON" in text or "without choices" in text
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency
        return False
    transient = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
    return isinstance(exc, transient)


def is_unreachable(exc: BaseException) -> bool:
    """Whether the request never got an answer: connection refused or dropped, a timeout. An HTTP
    error status or a body that is not JSON is an answer (the server is up; this record fails)."""
    if isinstance(exc, (BackendUnavailableError, asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency
        return False
    return isinstance(exc, openai.APIConnectionError)


def describe_error(exc: BaseException) -> str:
    """One line for an error: our messages as they are, others with their type."""
    if isinstance(exc, AgentWorldError):
        return exc.message
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "no answer before the request timeout"
    return f"{type(exc).__name__}: {exc}".strip()


@dataclass
class Outcome(Generic[T]):
    """What came of a call after its retries: the value (also for a rejected last answer), the
    error of the last attempt, whether that error was transient (``unavailable``) and whether it
    was the server not answering at all (``unreachable``), how many attempts were made, and how
    many of them the server answered (``answered``: a value, an HTTP error status, a garbled body)."""

    value: T | None
    error: str | None = None
    unavailable: bool = False
    attempts: int = 1
    unreachable: bool = False
    answered: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None


def backoff_delay(attempt: int, base: float) -> float:
    """``base * 2**attempt`` plus up to a quarter of it at random (so retries do not march in step)."""
    delay = base * (2**attempt)
    return delay + random.uniform(0, delay / 4) if delay > 0 else 0.0


async def _with_timeout(awaitable: Awaitable[T], timeout: float | None) -> T:
    """``await`` with a deadline; ``asyncio.timeout`` (3.11+) spares the task ``wait_for`` makes."""
    if not timeout:
        return await awaitable
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            return await awaitable
    return await asyncio.wait_for(awaitable, timeout)  # pragma: no cover - Python 3.10


async def retrying(
    call: Callable[[], Awaitable[T]],
    *,
    max_retries: int,
    backoff: float,
    timeout: float | None,
    check: Callable[[T], str | None] | None = None,
    retry_all: bool = False,
) -> Outcome[T]:
    """Call ``call()`` until it succeeds and ``check`` accepts the value, at most ``1 + max_retries``
    times. Transient errors and rejected values are retried after a backoff; other errors end it
    at once, unless ``retry_all`` (the judge: every failed call is an attempt, as officially).
    Never raises an ``Exception`` (cancellation still propagates)."""
    value: T | None = None
    error: str | None = None
    unavailable = unreachable = False
    answered = 0
    for attempt in range(max_retries + 1):
        try:
            value = await _with_timeout(call(), timeout)
        except Exception as exc:
            error = describe_error(exc)
            unavailable = is_transient(exc)
            unreachable = is_unreachable(exc)
            answered += not unreachable
            if not unavailable and not retry_all:
                return Outcome(None, error, False, attempt + 1, False, answered)
        else:
            answered += 1
            error = check(value) if check is not None else None
            unavailable = unreachable = False
            if error is None:
                return Outcome(value, None, False, attempt + 1, False, answered)
        if attempt < max_retries:
            await asyncio.sleep(backoff_delay(attempt, backoff))
    return Outcome(value, error, unavailable, max_retries + 1, unreachable, answered)


# -- the results file -------------------------------------------------------------------------------


@dataclass
class JobResult:
    """One finished item: the JSON line to write, whether it succeeded, and whether it failed
    because the server could not be reached."""

    line: dict[str, Any]
    ok: bool
    unavailable: bool = False


@dataclass
class Resumed:
    """What was found in an output file before a run."""

    done: set[Key] = field(default_factory=set)
    redo: int = 0  # failed lines dropped to be tried again
    dropped: dict[Key, dict[str, Any]] = field(default_factory=dict)  # the last of each, by key
    torn: int = 0  # lines that were not JSON (a kill mid-write)
    repeated: int = 0


class ResultsFile:
    """An append-only JSONL of results keyed by (domain, id, turn), safe to resume.

    It remembers where each line lies, so putting the finished file in input order is a copy of
    byte ranges, not a second parse of every line.
    """

    def __init__(self, path: str | Path, is_done: Callable[[dict[str, Any]], bool]) -> None:
        self.path = real_output(path)  # through a symlink: the target is written, the link stays
        self.is_done = is_done
        self._fh: Any = None
        self._index: dict[Key, tuple[int, int]] = {}  # key -> (offset, length) of its line
        self._size = 0

    @staticmethod
    def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
        """(offset, line with its newline) for every line of ``data``; the last may lack one."""
        pos = 0
        while pos < len(data):
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end + 1
            yield pos, data[pos:end]
            pos = end

    def prepare(self) -> Resumed:
        """Read what an earlier run left; drop torn, repeated and not-done lines (rewriting the
        file atomically when anything is dropped) and return the keys already done."""
        found = Resumed()
        self._index, self._size = {}, 0
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return found
        data = self.path.read_bytes()
        kept: dict[Key, tuple[int, bytes]] = {}
        clean = True
        for offset, raw in self._lines(data):
            if not raw.strip():
                clean = False
                continue
            try:
                value = loads_limited(raw, max_chars=MAX_LINE_CHARS)
                key = record_key(value) if isinstance(value, dict) else None
            except (ValueError, TypeError):  # LimitError and UnicodeDecodeError are ValueErrors
                key = None
            if key is None:
                found.torn += 1
                clean = False
                continue
            if not self.is_done(value):
                found.redo += 1
                found.dropped[key] = value
                clean = False
                continue
            if key in kept:
                found.repeated += 1
                clean = False
                del kept[key]  # keep the newest, at its place
            if not raw.endswith(b"\n"):
                raw += b"\n"
                clean = False
            kept[key] = (offset, raw)
        if clean:
            self._index = {key: (offset, len(raw)) for key, (offset, raw) in kept.items()}
            self._size = len(data)
        else:
            self._rewrite([raw for _, raw in kept.values()])
            offset = 0
            for key, (_, raw) in kept.items():
                self._index[key] = (offset, len(raw))
                offset += len(raw)
            self._size = offset
        found.done = set(kept)
        return found

    def _rewrite(self, lines: Iterable[bytes]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open_private(tmp, "wb") as fh:
            fh.writelines(lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def append(self, line: dict[str, Any]) -> None:
        """Write one result line and flush it to the operating system at once."""
        if self._fh is None:
            self._size = self.path.stat().st_size if self.path.exists() else 0
            self._fh = open_private(self.path, "ab")
        data = dump_line(redact_record(line)).encode("utf-8")
        self._fh.write(data)
        self._fh.flush()
        self._index[record_key(line)] = (self._size, len(data))
        self._size += len(data)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def finalize(self, order: Sequence[Key]) -> None:
        """Rewrite the file with the lines of ``order`` first, in that order, then any others in
        the order they were written (results of records no longer asked for are kept)."""
        self.close()
        data = self.path.read_bytes()
        if len(data) != self._size:  # changed behind our back: find the lines again
            self.prepare()
            data = self.path.read_bytes()
        spans = dict(self._index)
        ordered = [spans.pop(key) for key in order if key in spans]
        rest = sorted(spans.values())
        self._rewrite(data[offset : offset + length] for offset, length in [*ordered, *rest])


# -- running ----------------------------------------------------------------------------------------


@dataclass
class RunSummary:
    """What a run did. ``failed`` records are in the file (marked failed) and are retried on the
    next run; ``left`` were never started because the run stopped."""

    label: str
    output: Path
    total: int = 0
    skipped: int = 0
    ok: int = 0
    failed: int = 0
    left: int = 0
    dropped_torn: int = 0
    elapsed_s: float = 0.0
    stopped: str | None = None
    errors: dict[str, int] = field(default_factory=dict)
    final: int = 0  # failed for good (the judge's attempts spent): a rerun keeps them

    @property
    def rate(self) -> float:
        finished = self.ok + self.failed
        return finished / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def line(self) -> str:
        parts = [f"{self.label}: {self.ok + self.skipped}/{self.total} done"]
        if self.skipped:
            parts.append(f"{self.skipped} from an earlier run")
        if self.failed:
            again = self.failed - self.final
            parts.append(
                f"{self.failed} failed"
                + (f" ({self.final} for good: their attempts are spent)" if self.final else "")
                + (
                    f" (rerun the same command to retry {'them' if not self.final else again})"
                    if again
                    else ""
                )
            )
        if self.left:
            parts.append(f"{self.left} not started")
        parts.append(f"{self.rate:.1f}/s over {self.elapsed_s:.1f}s")
        return ", ".join(parts) + f" -> {self.output}"


class _Progress:
    """A rich progress bar on stderr with rate and ETA; silent when disabled."""

    def __init__(self, label: str, total: int, completed: int, enabled: bool) -> None:
        self.enabled = enabled
        self.label = label
        self.failed = 0
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.started = time.perf_counter()
        self.task = self.progress.add_task(self._description(), total=total, completed=completed, rate="")
        self.progress.start()

    def _description(self) -> str:
        return f"{self.label}" + (f" ({self.failed} failed)" if self.failed else "")

    def advance(self, ok: bool, finished: int) -> None:
        if not ok:
            self.failed += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.started
        rate = f"{finished / elapsed:.1f}/s" if elapsed > 0 else ""
        self.progress.update(self.task, advance=1, description=self._description(), rate=rate)

    def tick(self, label: str) -> None:
        """One step of a phase after the jobs (``label`` names it on the bar)."""
        if self.enabled:
            self.progress.update(self.task, advance=1, description=label)

    def stop(self) -> None:
        if self.enabled:
            self.progress.stop()


@dataclass
class Phase:
    """Work that follows the jobs inside the same progress bar: ``steps`` more steps, done by
    ``run(tick)``, which calls ``tick()`` once per step (the bar reaches 100% when it is done)."""

    label: str
    steps: int
    run: Callable[[Callable[[], None]], Any]


async def run_jobs(
    items: Sequence[dict[str, Any]],
    work: Callable[[dict[str, Any]], Awaitable[JobResult]],
    output: str | Path,
    options: RunOptions,
    *,
    label: str,
    on_result: Callable[[JobResult], None] | None = None,
    final: Callable[[dict[str, Any]], bool] | None = None,
    on_resume: Callable[[Resumed], None] | None = None,
    then: Phase | None = None,
) -> RunSummary:
    """Run ``work`` on every item not already done in ``output``, ``options.concurrency`` at a time,
    appending each result as it finishes. ``work`` turns its own failures into a failed
    :class:`JobResult`; an exception from ``work`` or ``on_result`` stops the run (what was
    written stays).

    A failed line for which ``final(line)`` holds is done for good (the judge: its attempts are
    spent); ``on_resume`` sees what the file held (the failed lines dropped to be redone) before
    any work starts. ``then`` runs after a complete run, inside the same progress bar."""

    def is_done(line: dict[str, Any]) -> bool:
        status = _status(line, label)
        if status == "failed":
            return not options.redo_failed or (final is not None and final(line))
        return status == "ok"

    results = ResultsFile(output, is_done)
    lock = OutputLock(results.path, f"bench {label}")
    lock.acquire()  # a second writer on the same file is refused before it reads anything
    try:
        return await _run_locked(items, work, results, options, label, on_result, on_resume, final, then)
    finally:
        lock.release()


async def _run_locked(
    items: Sequence[dict[str, Any]],
    work: Callable[[dict[str, Any]], Awaitable[JobResult]],
    results: ResultsFile,
    options: RunOptions,
    label: str,
    on_result: Callable[[JobResult], None] | None,
    on_resume: Callable[[Resumed], None] | None = None,
    final: Callable[[dict[str, Any]], bool] | None = None,
    then: Phase | None = None,
) -> RunSummary:
    resumed = results.prepare()
    if on_resume is not None:
        on_resume(resumed)
    unique: dict[Key, dict[str, Any]] = {}
    for item in items:  # a key given twice is worked on once
        unique.setdefault(record_key(item), item)
    items = list(unique.values())
    order = list(unique)
    todo = [item for item, key in zip(items, order) if key not in resumed.done]
    summary = RunSummary(label, results.path, total=len(items), skipped=len(items) - len(todo))
    summary.dropped_torn = resumed.torn
    if resumed.torn:
        print(f"{label}: dropped {resumed.torn} torn line(s) from {results.path}", file=sys.stderr)
    wanted = sys.stderr.isatty() if options.progress is None else options.progress
    extra = then.steps if then is not None else 0
    bar = _Progress(label, len(items) + extra, summary.skipped, wanted and bool(todo))
    pending = iter(todo)
    streak = 0
    started = time.perf_counter()

    crashed = False

    async def worker() -> None:
        nonlocal streak, crashed
        while summary.stopped is None and not crashed:
            item = next(pending, None)
            if item is None:
                return
            try:
                result = await work(item)
            except Exception:
                crashed = True  # no new items; the run stops and what is in flight is dropped
                raise
            results.append(result.line)
            if result.ok:
                summary.ok += 1
                streak = 0
            else:
                summary.failed += 1
                summary.final += final is not None and final(result.line)
                error = _error_of(result.line, label) or "unknown error"
                summary.errors[error] = summary.errors.get(error, 0) + 1
                streak = streak + 1 if result.unavailable else 0
                if streak >= options.unavailable_limit and summary.stopped is None:
                    summary.stopped = (
                        f"{streak} records in a row failed with the server unreachable (last: {error})"
                    )
            bar.advance(result.ok, summary.ok + summary.failed)
            if on_result is not None:
                try:
                    on_result(result)
                except Exception:
                    crashed = True
                    raise

    workers = [asyncio.create_task(worker()) for _ in range(min(options.concurrency, max(len(todo), 1)))]
    finished = False
    try:
        done, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        # a stop leaves the other workers finishing what they hold
        await asyncio.gather(*workers)
        finished = True
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        if not finished:
            bar.stop()
        results.close()
        summary.elapsed_s = time.perf_counter() - started
    summary.left = len(items) - summary.skipped - summary.ok - summary.failed
    try:
        if summary.stopped is None and summary.left == 0:
            results.finalize(order)
            if then is not None:
                phase_label = then.label
                then.run(lambda: bar.tick(phase_label))
    finally:
        bar.stop()
    return summary


def _status(line: dict[str, Any], label: str) -> str | None:
    part = line.get(label)
    return part.get("status") if isinstance(part, dict) else None


def _error_of(line: dict[str, Any], label: str) -> str | None:
    part = line.get(label)
    return part.get("error") if isinstance(part, dict) else None


async def release_connections(backend: Any) -> None:
    """Close a backend's idle connections while the event loop still runs (lean client)."""
    closer = getattr(backend, "aclose_idle", None)
    if closer is not None:
        await closer()


def run_sync(coro: Awaitable[T]) -> T:
    """Run a bench coroutine from synchronous code (the CLI)."""
    return asyncio.run(coro)  # type: ignore[arg-type]


def check_stopped(summary: RunSummary, hint_command: str = "the same command") -> None:
    """Raise a one-line error when the run stopped early (what was done is kept)."""
    if summary.stopped is not None:
        raise AgentWorldError(
            f"{summary.label} stopped: {summary.stopped}; {summary.ok + summary.skipped}/{summary.total} "
            f"records are done and kept in {summary.output}",
            hint=f"check the server, then rerun {hint_command} to finish the rest",
        )


def error_tally(summary: RunSummary, limit: int = 5) -> list[str]:
    """The commonest failure messages, most frequent first."""
    ranked = sorted(summary.errors.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"{count} x {message}" for message, count in ranked[:limit]]


__all__ = [
    "JobResult",
    "Outcome",
    "ResultsFile",
    "RunOptions",
    "RunSummary",
    "backoff_delay",
    "check_stopped",
    "describe_error",
    "error_tally",
    "is_transient",
    "is_unreachable",
    "key_text",
    "retrying",
    "run_jobs",
]
