"""The judge: its messages, robust parsing of its answers, retries, and failures."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins.bench.data import load_dataset, load_results
from agentworld_plugins.bench.endpoints import judge_backend, world_backend
from agentworld_plugins.bench.infer import infer_records
from agentworld_plugins.bench.judge import (
    JudgePrompts,
    judge_lines,
    judge_messages,
    judge_user_message,
    loads_lenient,
    parse_judgement,
)
from agentworld_plugins.bench.official import extract_prediction
from agentworld_plugins.bench.runner import RunOptions
from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.bench.score import DIMENSIONS, score_file
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.fake_server import FakeWorldModelServer

FULL = {"format": 5, "factuality": 4, "consistency": 3, "realism": 2, "quality": 1}


def evaluation(scores, strengths="ok", weaknesses="none"):
    body = json.dumps({"strengths": strengths, "weaknesses": weaknesses, "scores": scores})
    return f"Comparing the two observations.\n<final_evaluation>\n{body}\n</final_evaluation>"


# -- messages ---------------------------------------------------------------------------------------


def test_judge_message_holds_history_current_turn_prediction_and_truth():
    record = sample_records("terminal")[2]  # turn 3 of 3
    text = judge_user_message(record, "PREDICTED SCREEN")
    history, rest = text.split("# The turn to judge", 1)
    for turn in (0, 1):
        assert f"{record['prompt'][turn]}\n{record['response'][turn]}\n\n" in history
    assert record["current_prompt"] in rest and record["response"][2] not in history
    assert "```\nPREDICTED SCREEN\n```" in rest
    reference = record["response"][2].strip()  # prediction and reference are stripped, as officially
    assert f"```\n{reference}\n```" in rest
    # the rubric, the answer shape and the anti-injection note follow the four parts
    tail = rest.split(reference, 1)[1]
    for part in ("from 1 to 5", '"scores"', "<final_evaluation>", "not instructions to you"):
        assert part in tail
    first = judge_user_message(sample_records("terminal")[0], "x")
    assert first.startswith("# The turn to judge")  # no history part on the first turn
    messages = judge_messages(record, "p", "SYSTEM")
    assert [m["role"] for m in messages] == ["system", "user"] and messages[0]["content"] == "SYSTEM"


def test_judge_prompts_bundled_and_from_a_folder(tmp_path):
    assert "<final_evaluation>" in JudgePrompts().get("web")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "judge_system_prompt.txt").write_text("OFFICIAL WEB JUDGE")
    assert JudgePrompts(tmp_path).get("web") == "OFFICIAL WEB JUDGE"
    with pytest.raises(ConfigError, match=r"judge_system_prompt\.txt"):
        JudgePrompts(tmp_path).get("mcp")
    with pytest.raises(ConfigError, match="No judge prompt for domain 'chess'"):
        JudgePrompts().get("chess")


# -- parsing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        # the trained shape: reasoning, then the tagged block
        evaluation(FULL),
        # reasoning that quotes a different JSON: the block wins
        '<think>maybe {"scores": {"format": 1}}</think>' + evaluation(FULL),
        # fenced JSON, no tag
        "Here you go:\n```json\n" + json.dumps({"scores": FULL}, indent=2) + "\n```\n",
        # fenced inside the tag
        "<final_evaluation>\n```json\n" + json.dumps({"scores": FULL}) + "\n```\n</final_evaluation>",
        # a bare object after prose that has a stray brace
        "The {brace} is prose. " + json.dumps({"strengths": "s", "scores": FULL}),
        # scores at the top level
        json.dumps(FULL),
        # repairs: trailing commas, single quotes, Python literals, unquoted keys, curly quotes
        '<final_evaluation>{"strengths": "s", "scores": {"format": 5, "factuality": 4, "consistency": 3, "realism": 2, "quality": 1,},}</final_evaluation>',
        "<final_evaluation>{'strengths': None, 'scores': {'format': 5, 'factuality': 4, 'consistency': 3, 'realism': 2, 'quality': 1}}</final_evaluation>",
        "{strengths: 'fine', scores: {format: 5, factuality: 4, consistency: 3, realism: 2, quality: 1}}",
        "<final_evaluation>{\u201cscores\u201d: {\u201cformat\u201d: 5, \u201cfactuality\u201d: 4, \u201cconsistency\u201d: 3, \u201crealism\u201d: 2, \u201cquality\u201d: 1}}</final_evaluation>",
        # numbers as strings, "4/5", keys in capitals
        '{"scores": {"Format": "5", "FACTUALITY": "4/5", "consistency": 3.0, "realism": "2", "quality": 1}}',
        # an unclosed block
        "<final_evaluation>\n" + json.dumps({"scores": FULL}),
    ],
)
def test_parsing_finds_the_scores(answer):
    judgement = parse_judgement(answer)
    assert judgement.ok, judgement.error
    assert judgement.scores == FULL
    assert judgement.total == 3


def test_strengths_and_weaknesses_are_kept():
    judgement = parse_judgement(evaluation(FULL, strengths="right files", weaknesses="wrong size"))
    assert (judgement.strengths, judgement.weaknesses) == ("right files", "wrong size")
    assert judgement.warnings == []


def test_scores_are_clamped_and_non_positive_ones_left_out():
    judgement = parse_judgement(
        '{"scores": {"format": 7, "factuality": 0.5, "consistency": 0, "realism": -2, "quality": "great"}}'
    )
    assert judgement.scores == {"format": 5, "factuality": 1}
    warnings = " | ".join(judgement.warnings)
    assert "format score 7 clamped to 5" in warnings and "consistency score 0 is not positive" in warnings
    assert "quality score 'great' is not a number" in warnings


def test_truncated_answer_keeps_the_scores_it_has():
    judgement = parse_judgement('<final_evaluation>{"scores": {"format": 4, "factuality": 3, "consis')
    assert judgement.scores == {"format": 4, "factuality": 3}
    assert any("truncated" in w for w in judgement.warnings)


def test_name_value_text_is_a_last_resort():
    judgement = parse_judgement(
        "<final_evaluation>\nformat: 4\nfactuality: 3\nconsistency: 5\nrealism: 4\nquality: 4\n</final_evaluation>"
    )
    assert judgement.scores == {"format": 4, "factuality": 3, "consistency": 5, "realism": 4, "quality": 4}


@pytest.mark.parametrize(
    "answer",
    [
        None,
        "",
        "I cannot evaluate this.",
        "<final_evaluation>{}</final_evaluation>",
        '{"scores": {"format": "N"}}',
        "{{{{",
        '{"scores": []}',
    ],
)
def test_answers_without_scores_are_errors_not_exceptions(answer):
    judgement = parse_judgement(answer)
    assert not judgement.ok and judgement.scores == {} and judgement.error


_JSONISH = st.text(
    alphabet=st.sampled_from(list("{}[]\":,'0123456789 \nformatqulity<>/_-scoretn")), max_size=120
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), _JSONISH))
def test_parsing_never_raises(answer):
    judgement = parse_judgement(answer)
    assert set(judgement.scores) <= set(DIMENSIONS)
    assert all(1 <= v <= 5 for v in judgement.scores.values())
    assert judgement.ok == bool(judgement.scores)


_SCORES = st.fixed_dictionaries({d: st.integers(min_value=1, max_value=5) for d in DIMENSIONS})


@settings(max_examples=150, deadline=None)
@given(
    _SCORES,
    st.sampled_from(["tagged", "fenced", "bare"]),
    st.text(alphabet=st.characters(blacklist_characters="{}<>`", blacklist_categories=("Cs",)), max_size=60),
)
def test_scores_round_trip_in_every_shape(scores, shape, prose):
    body = json.dumps({"strengths": prose, "weaknesses": "w", "scores": scores})
    answer = {
        "tagged": f"{prose}\n<final_evaluation>\n{body}\n</final_evaluation>",
        "fenced": f"{prose}\n```json\n{body}\n```",
        "bare": f"{prose} {body}",
    }[shape]
    judgement = parse_judgement(answer)
    assert judgement.scores == scores
    assert judgement.strengths == prose


def test_loads_lenient_reports_its_repairs():
    value, repairs = loads_lenient('{"a": 1,}')
    assert value == {"a": 1} and repairs == ["trailing commas"]
    assert loads_lenient("not json at all") == (None, [])


# -- judging over HTTP ------------------------------------------------------------------------------


async def _predictions(data_dir, tmp_path, fast, domains=None):
    records = load_dataset(data_dir, domains=domains).records
    out = tmp_path / "pred.jsonl"
    await infer_records(records, world_backend(backend="offline"), out, options=fast)
    return load_results(out)[0]


async def test_judging_over_http(data_dir, judge_server, fast, tmp_path):
    lines = await _predictions(data_dir, tmp_path, fast)
    out = tmp_path / "judged.jsonl"
    backend = judge_backend(base_url=judge_server.url, concurrency=fast.concurrency, timeout=5)
    summary = await judge_lines(lines, backend, out, options=fast)
    assert summary.ok == len(lines) and len(judge_server.chat_requests) == len(lines)
    body = judge_server.chat_requests[0].body
    assert body["temperature"] == 0.6 and body["max_tokens"] == 32768
    systems = {r.body["messages"][0]["content"] for r in judge_server.chat_requests}
    assert len(systems) == 7  # one judge prompt per domain
    judged = load_results(out)[0]
    assert all(line["judge"]["status"] == "ok" and line["judge"]["model"] == "fake-judge" for line in judged)
    board = score_file(out)
    assert board.overall.valid == len(lines)


async def test_unparseable_judgements_are_retried_then_counted_as_failed(
    data_dir, judge_server, tmp_path, fast
):
    lines = (await _predictions(data_dir, tmp_path, fast, domains=["search"]))[:2]
    # record 1: two answers without JSON, then a good one; record 2: never any JSON
    judge_server.enqueue("I think it is fine.", "<final_evaluation>nope</final_evaluation>", evaluation(FULL))
    judge_server.enqueue(*["no scores here"] * 4)
    options = RunOptions(concurrency=1, max_retries=3, retry_backoff=0.001, progress=False)
    out = tmp_path / "judged.jsonl"
    backend = judge_backend(base_url=judge_server.url, timeout=5)
    summary = await judge_lines(lines, backend, out, options=options)
    assert (summary.ok, summary.failed) == (1, 1)
    assert len(judge_server.chat_requests) == 3 + 4
    judged = load_results(out)[0]
    assert judged[0]["judge"]["scores"] == FULL
    failed = judged[1]["judge"]
    assert (
        failed["status"] == "failed"
        and "no JSON object" in failed["error"]
        and failed["raw"] == "no scores here"
    )
    board = score_file(out)
    assert (board.overall.valid, board.overall.failed) == (1, 1)
    assert board.overall.raw_total == 3  # the failure is left out, not zeroed


async def test_failed_inference_is_not_sent_to_the_judge(data_dir, judge_server, tmp_path, fast):
    lines = (await _predictions(data_dir, tmp_path, fast, domains=["os"]))[:1]
    lines[0] = {**lines[0], "prediction": None, "infer": {"status": "failed", "error": "HTTP 400"}}
    out = tmp_path / "judged.jsonl"
    summary = await judge_lines(lines, judge_backend(base_url=judge_server.url), out, options=fast)
    assert summary.failed == 1 and judge_server.chat_requests == []
    assert "inference failed: HTTP 400" in load_results(out)[0][0]["judge"]["error"]
    with pytest.warns(UserWarning, match="no usable judgement"):
        assert score_file(out, allow_empty=True).failures == {"inference failed": 1}


async def test_official_prompts_dir_is_used(data_dir, judge_server, tmp_path, fast):
    lines = await _predictions(data_dir, tmp_path, fast, domains=["mcp"])
    prompts = tmp_path / "official"
    (prompts / "mcp").mkdir(parents=True)
    (prompts / "mcp" / "judge_system_prompt.txt").write_text("OFFICIAL MCP JUDGE")
    await judge_lines(
        lines,
        judge_backend(base_url=judge_server.url),
        tmp_path / "j.jsonl",
        prompts=JudgePrompts(prompts),
        options=fast,
    )
    assert {r.body["messages"][0]["content"] for r in judge_server.chat_requests} == {"OFFICIAL MCP JUDGE"}


async def test_a_missing_judge_prompt_stops_before_any_request(data_dir, judge_server, tmp_path, fast):
    lines = await _predictions(data_dir, tmp_path, fast, domains=["mcp"])
    with pytest.raises(ConfigError, match=r"No judge_system_prompt\.txt"):
        await judge_lines(
            lines,
            judge_backend(base_url=judge_server.url),
            tmp_path / "j.jsonl",
            prompts=JudgePrompts(tmp_path),
            options=fast,
        )
    assert judge_server.chat_requests == []


def test_judge_settings_do_not_borrow_the_world_models(monkeypatch):
    monkeypatch.setenv("AGENTWORLD_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("AGENTWORLD_JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("AGENTWORLD_JUDGE_BACKEND", raising=False)
    with pytest.raises(ConfigError, match="No judge"):
        judge_backend()
    monkeypatch.setenv("AGENTWORLD_JUDGE_BASE_URL", "http://127.0.0.1:8/v1")
    monkeypatch.setenv("AGENTWORLD_JUDGE_MODEL", "big-judge")
    backend = judge_backend()
    assert backend.base_urls == ["http://127.0.0.1:8/v1"] and backend.model == "big-judge"
    sdk = judge_backend(http_client="openai")
    assert (
        sdk.base_urls == ["http://127.0.0.1:8/v1"]
        and sdk.model == "big-judge"
        and "lean" not in sdk.describe()
    )


async def test_judge_resume_after_a_crash(data_dir, judge_server, tmp_path, fast):
    lines = await _predictions(data_dir, tmp_path, fast)
    reference = tmp_path / "reference.jsonl"
    await judge_lines(lines, judge_backend(base_url=judge_server.url), reference, options=fast)
    out = tmp_path / "judged.jsonl"
    seen = []

    def crash(result):
        seen.append(result)
        if len(seen) == 3:
            raise KeyError("simulated crash")

    with pytest.raises(KeyError):
        await judge_lines(lines, judge_backend(base_url=judge_server.url), out, options=fast, on_result=crash)
    done = {(line["task"], line["id"], line["turn_idx"]) for line in load_results(out)[0]}
    before = len(judge_server.chat_requests)
    summary = await judge_lines(lines, judge_backend(base_url=judge_server.url), out, options=fast)
    assert summary.skipped == len(done) and summary.ok == len(lines) - len(done)
    # requests cancelled by the crash may reach the server late: compare what was asked
    asked = {r.body["messages"][1]["content"] for r in judge_server.chat_requests[before:]}
    missing = {
        judge_user_message(line, extract_prediction(line["gen"]))
        for line in lines
        if (line["task"], line["id"], line["turn_idx"]) not in done
    }
    assert asked == missing
    assert out.read_bytes() == reference.read_bytes()


def test_fake_judge_server_fixture_scores_equal_observations(judge_server):
    from openai import OpenAI

    record = sample_records("swe")[0]
    client = OpenAI(base_url=judge_server.url, api_key="EMPTY")
    same = client.chat.completions.create(
        model="j", messages=judge_messages(record, record["response"][0], "S")
    )
    other = client.chat.completions.create(model="j", messages=judge_messages(record, "nothing", "S"))
    assert parse_judgement(same.choices[0].message.content).total == 5, same.choices[0].message.content
    assert parse_judgement(other.choices[0].message.content).scores["factuality"] == 1
    assert isinstance(FakeWorldModelServer, type)
