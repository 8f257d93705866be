"""``bench judge``: an LLM judge scores each prediction against the ground truth.

Official semantics by default (see :mod:`.official`): the prediction is extracted from the
generation by the official rules; an empty generation is failed and never judged; the judge gets
its domain's system prompt (``prompts/<domain>/judge_system_prompt.txt``, or the official ones
through ``--prompts-dir``) and the user message of :mod:`.judge_template` (history, current turn,
prediction, reference, rubric, answer shape); its answer is read by the official parser, and one
without usable scores is asked again, three attempts in all. The judge answers inside
``<final_evaluation>`` with ``{"strengths", "weaknesses", "scores": {format, factuality,
consistency, realism, quality}}``.

``parser="lenient"`` (``--judge-parser lenient``) adds our recoveries (:func:`parse_judgement`:
repairs, nested objects, capitalised keys, ``name: N`` text) for answers the official parser
cannot use; every judged line says which parser scored it (``judge.parser``).

A judged line keeps our ``judge`` section and carries the official script's fields
(``total_score``, the five dimensions, ``failed``, ``extracted_output``, ``error_message``), so the
official ``score`` reads our files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import pyast
from ..backends import Backend, Completion, Sampling
from ..errors import ConfigError
from ..turns import split_reasoning
from .data import Key, record_domain, record_key
from .jsonscan import json_chars, object_end
from .judge_template import BUNDLED_SOURCE, TEMPLATE_FILE, JudgeTemplate
from .official import extract_prediction, parse_official_judgement
from .runner import JobResult, Resumed, RunOptions, RunSummary, release_connections, retrying, run_jobs
from .score import DIMENSIONS, record_total

JUDGE_PROMPT_FILE = "judge_system_prompt.txt"
_OPEN = "<final_evaluation>"
_CLOSE = "</final_evaluation>"
_MAX_CANDIDATES = 64  # "{" positions tried per text, from the end


# -- messages ---------------------------------------------------------------------------------------


def judge_user_message(
    record: Mapping[str, Any], prediction: str, template: JudgeTemplate | None = None
) -> str:
    """The judge's user message for an extracted ``prediction`` (see :mod:`.judge_template`)."""
    chosen = template or JudgeTemplate.load()
    return chosen.user_message(record, prediction, record_domain(record))


def judge_messages(
    record: Mapping[str, Any], prediction: str, system_prompt: str, template: JudgeTemplate | None = None
) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": judge_user_message(record, prediction, template)},
    ]


class JudgePrompts:
    """The judge system prompt of each domain (bundled, or from ``prompts_dir/<domain>/``) and the
    judge user template: ``prompts_dir/judge_user_template.json``; else, when ``prompts_dir`` is
    the ``prompts/`` folder of an official checkout (or the checkout itself), the template read
    from that checkout's evaluation source (as ``bench import-prompts`` does); else the bundled
    one."""

    def __init__(self, prompts_dir: str | Path | None = None) -> None:
        self.prompts_dir = Path(prompts_dir).expanduser() if prompts_dir else None
        checkout = official_checkout(self.prompts_dir)
        if checkout is not None and self.prompts_dir == checkout:
            self.prompts_dir = checkout / "prompts"  # the checkout itself: its prompts/ folder
        self._cache: dict[str, str] = {}
        self._sources: dict[str, str] = {}
        self.template = JudgeTemplate.load(self.prompts_dir)
        if checkout is not None and self.template.source == BUNDLED_SOURCE:
            from .import_prompts import read_official_template

            data = {
                **read_official_template(checkout),
                "source": f"read from the evaluation source of {checkout}",
            }
            self.template = JudgeTemplate.from_mapping(data, str(checkout))

    @property
    def official_template(self) -> bool:
        """Whether the user template is not ours (imported, or read from a checkout)."""
        return self.template.source != BUNDLED_SOURCE

    def get(self, domain: str) -> str:
        if domain not in self._cache:
            self._cache[domain] = self._load(domain)
        return self._cache[domain]

    def source(self, domain: str) -> str:
        """Where ``domain``'s judge system prompt came from: a file, or ``bundled``."""
        self.get(domain)
        return self._sources[domain]

    def provenance(self, domain: str) -> dict[str, str]:
        """What a judged line records of the prompts its request was built from."""
        return {"system": self.source(domain), "user_template": self.template.source}

    def _load(self, domain: str) -> str:
        from ..plugins import get_plugin_manager

        if self.prompts_dir is not None:
            path = self.prompts_dir / domain / JUDGE_PROMPT_FILE
            if path.is_file():
                self._sources[domain] = str(path)
                return path.read_text(encoding="utf-8")
        registered = get_plugin_manager().registry.domains.get(domain)
        if registered is not None:
            text = registered.template(self.prompts_dir, JUDGE_PROMPT_FILE)
            self._sources[domain] = (
                str(self.prompts_dir / domain / JUDGE_PROMPT_FILE) if self.prompts_dir else "bundled"
            )
            return text
        raise ConfigError(
            f"No judge prompt for domain {domain!r}",
            hint=f"add {domain}/{JUDGE_PROMPT_FILE} to a folder passed as --prompts-dir",
        )


def official_checkout(prompts_dir: Path | None) -> Path | None:
    """The official checkout ``prompts_dir`` belongs to: the folder itself when it holds
    ``prompts/`` and ``eval/``, or its parent when it is such a checkout's ``prompts/``; None when
    ``prompts_dir`` holds its own ``judge_user_template.json`` or is no checkout's."""
    if prompts_dir is None or (prompts_dir / TEMPLATE_FILE).is_file():
        return None
    for root in (prompts_dir, prompts_dir.parent):
        if (
            (root / "prompts").is_dir()
            and (root / "eval").is_dir()
            and (root / "prompts")
            in (
                prompts_dir,
                prompts_dir / "prompts",
            )
        ):
            return root
    return None


# -- parsing ----------------------------------------------------------------------------------------


@dataclass
class Judgement:
    """A parsed judge answer. ``scores`` holds the dimensions found (clamped to 1-5); ``error``
    says why the answer is unusable (None when it is usable)."""

    scores: dict[str, int | float] = field(default_factory=dict)
    strengths: str | None = None
    weaknesses: str | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def total(self) -> float | None:
        return record_total(self.scores)


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][\w-]*)(\s*:)")
_DANGLING_KEY = re.compile(r'([,{])\s*"[^"]*"\s*:?\s*$')
_PY_LITERAL = re.compile(r"\b(True|False|None)\b")
_SMART = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*(?:5|5\.0))?\s*$")
_TEXT_SCORE = re.compile(
    r"""["'*]*\b(format|factuality|consistency|realism|quality)\b["'*]*\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)""",
    re.IGNORECASE,
)


def _loads(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None


def _literal(text: str) -> Any:
    try:
        return pyast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _close_truncated(text: str) -> str:
    """Add the closing quotes and brackets a cut-off object lacks (strings are respected)."""
    stack: list[str] = []
    in_string = False
    for _, ch, in_string in json_chars(text):
        if in_string:
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    body = (text + ('"' if in_string else "")).rstrip()
    body = _DANGLING_KEY.sub(lambda m: m.group(1) if m.group(1) == "{" else "", body).rstrip().rstrip(",")
    return body + "".join(reversed(stack))


def loads_lenient(text: str) -> tuple[Any, list[str]]:
    """Parse a JSON-ish object, repairing what judges commonly get wrong. Returns (value or None,
    the repairs made)."""
    value = _loads(text)
    if value is not None:
        return value, []
    repairs: list[str] = []
    fixed = text.translate(_SMART)
    if fixed != text:
        repairs.append("curly quotes")
    fixed = _LINE_COMMENT.sub("", fixed)
    steps = [
        ("trailing commas", lambda s: _TRAILING_COMMA.sub(r"\1", s)),
        (
            "Python literals",
            lambda s: _PY_LITERAL.sub(lambda m: {"True": "true", "False": "false"}.get(m[1], "null"), s),
        ),
        ("unquoted keys", lambda s: _UNQUOTED_KEY.sub(r'\1"\2"\3', s)),
    ]
    for name, step in steps:
        changed = step(fixed)
        if changed != fixed:
            repairs.append(name)
            fixed = changed
        value = _loads(fixed)
        if value is not None:
            return value, repairs
    value = _literal(text.translate(_SMART))  # a Python dict: single quotes, True/None, trailing commas
    if value is not None:
        return value, [*repairs, "Python syntax"]
    if '"' not in fixed and "'" in fixed:
        value = _loads(fixed.replace("'", '"'))
        if value is not None:
            return value, [*repairs, "single quotes"]
    closed = _close_truncated(fixed)
    if closed != fixed:
        value = _loads(closed)
        if value is not None:
            return value, [*repairs, "closed a truncated object"]
    return None, repairs


def _object_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the object opened at each of the last ``{``s (end: its matching ``}``, or
    the end of the text when it never closes), double-quoted strings respected."""
    starts = [m.start() for m in re.finditer(r"\{", text)][-_MAX_CANDIDATES:]
    spans = []
    for start in starts:
        end = object_end(text, start)
        spans.append((start, len(text) if end is None else end))
    return spans


def _score_value(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = _NUMBER.match(value)
        return float(match.group(1)) if match else None
    if isinstance(value, Mapping):
        for key in ("score", "value", "rating"):
            if key in value:
                return _score_value(value[key])
    return None


def _find_scores(obj: Any) -> Mapping[str, Any] | None:
    """The mapping holding the dimension scores: ``scores``, the object itself, or a nested one."""
    if not isinstance(obj, Mapping):
        return None
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    scores = lowered.get("scores")
    if isinstance(scores, Mapping):
        return {str(k).strip().lower(): v for k, v in scores.items()}
    if any(d in lowered for d in DIMENSIONS):
        return lowered
    for value in obj.values():
        found = _find_scores(value) if isinstance(value, Mapping) else None
        if found is not None:
            return found
    return None


def clamp_scores(raw: Mapping[str, Any], warnings: list[str]) -> dict[str, int | float]:
    """Dimension scores as numbers clamped to 1-5; missing, non-numeric and non-positive ones are
    left out (they do not count in the record's mean)."""
    scores: dict[str, int | float] = {}
    for dim in DIMENSIONS:
        if dim not in raw:
            warnings.append(f"no {dim} score")
            continue
        value = _score_value(raw[dim])
        if value is None or value != value:  # NaN
            warnings.append(f"{dim} score {raw[dim]!r} is not a number: left out")
            continue
        if value <= 0:
            warnings.append(f"{dim} score {value:g} is not positive: left out")
            continue
        clamped = min(max(value, 1.0), 5.0)
        if clamped != value:
            warnings.append(f"{dim} score {value:g} clamped to {clamped:g}")
        scores[dim] = int(clamped) if clamped.is_integer() else round(clamped, 4)
    return scores


def _text_field(obj: Mapping[str, Any], name: str) -> str | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    value = lowered.get(name)
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _from_objects(text: str) -> tuple[Mapping[str, Any], Mapping[str, Any], list[str]] | None:
    """The last (then outermost) object in ``text`` that holds dimension scores."""
    best: tuple[int, int, Mapping[str, Any], Mapping[str, Any], list[str]] | None = None
    for start, end in _object_spans(text):
        if best is not None and end < best[1]:
            continue
        obj, repairs = loads_lenient(text[start:end])
        scores = _find_scores(obj)
        if scores is None or not isinstance(obj, Mapping):
            continue
        if best is None or end > best[1] or (end == best[1] and start < best[0]):
            best = (start, end, obj, scores, repairs)
    return None if best is None else (best[2], best[3], best[4])


def _last_block(text: str) -> str | None:
    start = text.rfind(_OPEN)
    if start < 0:
        return None
    body = text[start + len(_OPEN) :]
    end = body.find(_CLOSE)
    return body if end < 0 else body[:end]


def parse_judgement(content: str | None, reasoning: str | None = None) -> Judgement:
    """Read the judge's scores from its answer. Never raises.

    Looks, in order, in the last ``<final_evaluation>`` block, the answer without its reasoning,
    then the whole answer; in each, at the last JSON object holding the scores (fenced or bare),
    repaired when needed (trailing commas, single quotes, Python literals, unquoted keys, a
    truncated end); as a last resort at ``name: N`` pairs in the text.
    """
    text = content if isinstance(content, str) else ""
    warnings: list[str] = []
    try:
        kept, _, think_warnings = split_reasoning(text)
    except Exception:  # split_reasoning is total today; this keeps the never-raises promise
        kept, think_warnings = text, []
    block = _last_block(kept)
    sources: list[tuple[str, str | None]] = []
    if block is not None:
        sources.append((block, None))
    else:
        warnings.append(f"no {_OPEN} block")
    sources.append(
        (kept, "scores taken from outside the final_evaluation block" if block is not None else None)
    )
    if kept != text:
        sources.append((text, "scores taken from inside the reasoning"))
    for source, note in sources:
        found = _from_objects(source)
        if found is None:
            continue
        obj, raw_scores, repairs = found
        if note:
            warnings.append(note)
        if repairs:
            warnings.append("repaired JSON: " + ", ".join(repairs))
        scores = clamp_scores(raw_scores, warnings)
        if not scores:
            return Judgement(warnings=warnings + think_warnings, error="the judgement holds no usable score")
        return Judgement(
            scores=scores,
            strengths=_text_field(obj, "strengths"),
            weaknesses=_text_field(obj, "weaknesses"),
            warnings=warnings,
        )
    pairs: dict[str, str] = {}
    for match in _TEXT_SCORE.finditer(block if block is not None else kept):
        pairs[match.group(1).lower()] = match.group(2)
    if pairs:
        warnings.append("no JSON object: scores read from 'name: N' text")
        scores = clamp_scores(pairs, warnings)
        if scores:
            return Judgement(scores=scores, warnings=warnings)
    snippet = " ".join(text.split())[-160:]
    return Judgement(
        warnings=warnings + think_warnings,
        error=f"no scores in the judge's answer ({len(text)} chars, ends {snippet!r})"
        if text
        else "empty judge answer",
    )


# -- judging ----------------------------------------------------------------------------------------

_PREDICTION_FIELDS = ("prediction", "predict", "pred", "model_prediction", "output")
#: the judge-answer parsers: the official rules, or those plus our recoveries
PARSERS = ("official", "lenient")
#: what the official script writes on a judged line (fields of ours are kept apart under "judge")
OFFICIAL_JUDGE_FIELDS = (
    "total_score",
    *DIMENSIONS,
    "failed",
    "strengths",
    "weaknesses",
    "extracted_output",
    "judge_raw_output",
    "error_message",
)
NO_GENERATION = "No model generation"
#: judge calls per record in the official script (transport errors and unusable answers together)
OFFICIAL_ATTEMPTS = 3


def generation_of(line: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the world model's generation, why there is none) of a predictions line.

    Read from ``gen`` (the official field, also written by ``bench infer``), else ``infer.raw``
    (older files of ours), else a prediction field of other tools. An inference marked failed has
    none; an empty generation is an empty string (official: failed, never judged).
    """
    infer = line.get("infer")
    if isinstance(infer, Mapping) and infer.get("status") not in (None, "ok"):
        return None, f"inference failed: {infer.get('error') or 'unknown error'}"
    if "gen" in line:
        value = line["gen"]
        return (
            (value, None)
            if isinstance(value, str)
            else ("", None)
            if value is None
            else (None, "gen is not a string")
        )
    if isinstance(infer, Mapping) and isinstance(infer.get("raw"), str):
        return infer["raw"], None
    for name in _PREDICTION_FIELDS:
        value = line.get(name)
        if isinstance(value, str):
            return value, None
    return (
        None,
        f"no generation: the line has none of the fields gen, infer.raw, {', '.join(_PREDICTION_FIELDS)}",
    )


def prediction_of(line: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """Kept for callers of the earlier API: the generation of a predictions line."""
    return generation_of(line)


#: the official ``error_message`` of a record its judge could not score
JUDGE_FAILED = "Judge scoring failed"


def _official_fields(
    judgement: Judgement | None, extracted: str | None, error: str | None, official_error: str
) -> dict[str, Any]:
    """The official script's fields for a judged line, so its ``score`` reads our files."""
    if error is not None or judgement is None or not judgement.ok:
        fields: dict[str, Any] = {"total_score": 0, "failed": 1.0, "error_message": official_error}
        if extracted is not None:
            fields["extracted_output"] = extracted
        return fields
    scores = judgement.scores
    return {
        "total_score": judgement.total or 0,
        **{dim: scores.get(dim, 0) for dim in DIMENSIONS},
        "failed": 0.0,
        "extracted_output": extracted,
    }


def judged_line(
    line: Mapping[str, Any],
    completion: Completion | None,
    judgement: Judgement | None,
    error: str | None,
    *,
    extracted: str | None = None,
    parser: str | None = None,
    attempts: int | None = None,
    official_error: str = JUDGE_FAILED,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The result line: the predictions line (without earlier judge fields) with a ``judge`` section
    and the official script's fields. ``attempts``: the judge's answers this record has had, over
    every run; ``official_error``: the official ``error_message`` of a failure; ``extra``: more
    fields for the ``judge`` section (the prompts the request was built from)."""
    base = {k: v for k, v in line.items() if k not in OFFICIAL_JUDGE_FIELDS and k != "judge"}
    official = _official_fields(judgement, extracted, error, official_error)
    if error is not None or judgement is None or not judgement.ok:
        section: dict[str, Any] = {
            "status": "failed",
            "error": error or (judgement.error if judgement else "no judgement"),
        }
        if completion is not None:
            section["model"] = completion.model
            section["raw"] = completion.text
        if judgement is not None and judgement.warnings:
            section["warnings"] = judgement.warnings
    else:
        assert completion is not None
        section = {
            "status": "ok",
            "model": completion.model,
            "parser": parser or "official",
            "scores": judgement.scores,
            "total": judgement.total,
            "strengths": judgement.strengths,
            "weaknesses": judgement.weaknesses,
            "warnings": judgement.warnings,
            "raw": completion.text,
        }
    if attempts is not None:
        section["attempts"] = attempts
    section.update(extra or {})
    return {**base, "judge": section, **official}


def judge_attempts(line: Mapping[str, Any]) -> int:
    """The judge's answers a judged line records (0 for a line that never reached the judge)."""
    judge = line.get("judge")
    count = judge.get("attempts") if isinstance(judge, Mapping) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def read_judgement(text: str | None, parser: str = "official") -> tuple[Judgement, str]:
    """A judge answer read by the official rules; with ``parser="lenient"``, an answer they cannot
    use (no scores, or none positive) is read again with our recoveries. Returns (judgement, the
    parser that produced it)."""
    official = parse_official_judgement(text)
    if official.success:
        judgement = Judgement(
            scores=dict(official.scores),
            strengths="\n".join(official.strengths) or None,
            weaknesses="\n".join(official.weaknesses) or None,
        )
    else:
        judgement = Judgement(error=official.error)
    if parser == "lenient" and (not official.success or not official.total):
        recovered = parse_judgement(text)
        if recovered.ok:
            return recovered, "lenient"
    return judgement, "official"


async def judge_record(
    line: dict[str, Any],
    backend: Backend,
    prompts: JudgePrompts,
    sampling: Sampling,
    options: RunOptions,
    parser: str = "official",
    spent: int = 0,
) -> JobResult:
    """Judge one predictions line, as the official script does: an empty generation is failed and
    never judged; the prediction is extracted from the generation by the official rules; every
    failed call (an error, or an answer without usable scores) is an attempt, ``1 +
    options.max_retries`` in all, less the ``spent`` answers an earlier run already had."""
    generation, missing = generation_of(line)
    if not generation:
        why = NO_GENERATION if generation is not None else missing
        return JobResult(judged_line(line, None, None, why, official_error=NO_GENERATION), ok=False)
    extracted = extract_prediction(generation)
    domain = record_domain(line)
    try:
        messages = judge_messages(line, extracted, prompts.get(domain), prompts.template)
    except ConfigError:
        raise
    except Exception as exc:
        return JobResult(
            judged_line(line, None, None, f"cannot build the judge messages: {exc}", extracted=extracted),
            ok=False,
        )
    parsed: list[tuple[Judgement, str]] = []  # one per answer; the last belongs to outcome.value

    def check(completion: Completion) -> str | None:
        parsed.append(read_judgement(completion.text, parser))
        return parsed[-1][0].error

    outcome = await retrying(
        lambda: backend.acomplete(messages, sampling),
        max_retries=max(options.max_retries - spent, 0),
        backoff=options.retry_backoff,
        timeout=options.request_timeout,
        check=check,
        retry_all=True,
    )
    completion = outcome.value
    judgement, used = parsed[-1] if completion is not None and parsed else (None, parser)
    attempts = spent + outcome.answered
    extra: dict[str, Any] = {"prompts": prompts.provenance(domain)}
    if outcome.attempts > outcome.answered:
        extra["unanswered"] = outcome.attempts - outcome.answered
    if outcome.error is not None:
        error = outcome.error + (f" (after {outcome.attempts} attempts)" if outcome.attempts > 1 else "")
        line_out = judged_line(
            line, completion, judgement, error, extracted=extracted, attempts=attempts, extra=extra
        )
        return JobResult(line_out, ok=False, unavailable=outcome.unreachable)
    line_out = judged_line(
        line, completion, judgement, None, extracted=extracted, parser=used, attempts=attempts, extra=extra
    )
    return JobResult(line_out, ok=True)


async def judge_lines(
    lines: Sequence[dict[str, Any]],
    backend: Backend,
    output: str | Path,
    *,
    prompts: JudgePrompts | None = None,
    sampling: Sampling | None = None,
    options: RunOptions | None = None,
    on_result: Any = None,
    parser: str = "official",
) -> RunSummary:
    """Judge every predictions line not already judged in ``output`` (resume)."""
    from .infer import default_sampling

    if parser not in PARSERS:
        raise ConfigError(f"Unknown judge parser {parser!r}", hint=f"choose {' or '.join(PARSERS)}")
    chosen_prompts = prompts or JudgePrompts()
    for domain in sorted({record_domain(line) for line in lines}):
        chosen_prompts.get(domain)  # a missing prompt stops the run before any request
    chosen = sampling or default_sampling()
    # three attempts in all by default, as the official script makes
    opts = options or RunOptions(max_retries=OFFICIAL_ATTEMPTS - 1)
    if opts.judge_max_retries is not None:
        opts = replace(opts, max_retries=opts.judge_max_retries)
    budget = opts.max_retries + 1
    spent: dict[Key, int] = {}  # answers that failed lines of an earlier run already had

    def final(judged: dict[str, Any]) -> bool:
        """A failure whose attempts are spent stays: a rerun never asks the judge a 4th time."""
        return judge_attempts(judged) >= budget

    def on_resume(resumed: Resumed) -> None:
        spent.update({key: judge_attempts(old) for key, old in resumed.dropped.items()})

    try:
        return await run_jobs(
            lines,
            lambda line: judge_record(
                line, backend, chosen_prompts, chosen, opts, parser, spent.get(record_key(line), 0)
            ),
            output,
            opts,
            label="judge",
            on_result=on_result,
            final=final,
            on_resume=on_resume,
        )
    finally:
        await release_connections(backend)
