"""The official semantics: extraction of the prediction (property test against a literal reference
written here), judge-answer parsing, and the inference messages of records outside the usual shape."""

from __future__ import annotations

import json
import random

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from agentworld_plugins.bench.judge import read_judgement
from agentworld_plugins.bench.official import (
    NO_OUTPUT,
    clean_marker,
    extract_prediction,
    inference_messages,
    parse_official_judgement,
)
from agentworld_plugins.turns import OBSERVATION_MARKER, parse_output

# -- a literal reference of the official extraction ------------------------------------------------
# Written from the official script's behaviour (eval/lwm_eval_utils/output_parser.py), step by
# step and deliberately naively: every think tag found by a case-insensitive search; opening tags
# paired with the next unpaired closing tag; a leftover closing tag cuts everything before it; a
# leftover opening tag cuts to the next <predicted_observation> or the end; cut characters are
# dropped and the rest is stripped (a text without think tags is returned untouched).


def _positions(low: str, needle: str) -> list[int]:
    found, at = [], low.find(needle)
    while at != -1:
        found.append(at)
        at = low.find(needle, at + 1)
    return found


def reference_remove_thinking(text: str, tag: str) -> str:
    if not text:
        return text
    low = text.lower()
    events = sorted(
        [(p, "open") for p in _positions(low, "<think>")]
        + [(p, "close") for p in _positions(low, "</think>")]
    )
    if not events:
        return text
    paired: set[int] = set()
    spans: list[tuple[int, int]] = []
    for a, (pos, kind) in enumerate(events):
        if a in paired or kind != "open":
            continue
        for b in range(a + 1, len(events)):
            if b not in paired and events[b][1] == "close":
                spans.append((pos, events[b][0] + len("</think>")))
                paired.update((a, b))
                break
    for a, (pos, kind) in enumerate(events):
        if a not in paired and kind == "close":
            spans.append((0, pos + len("</think>")))
            paired.add(a)
    for a, (pos, _) in enumerate(events):
        if a not in paired:
            stop = low.find(f"<{tag.lower()}>", pos)
            spans.append((pos, len(text) if stop == -1 else stop))
            paired.add(a)
    keep = [True] * len(text)
    for start, end in spans:
        for k in range(start, min(end, len(text))):
            keep[k] = False
    return "".join(ch for ch, kept in zip(text, keep) if kept).strip()


def reference_extract(generation: str) -> str:
    if not generation:
        return "No output"
    cleaned = reference_remove_thinking(generation, "predicted_observation")
    low = cleaned.lower()
    start = low.rfind("<predicted_observation>")
    if start == -1:
        return cleaned.strip() if cleaned.strip() else "No output"
    rest = cleaned[start + len("<predicted_observation>") :]
    end = rest.lower().find("</predicted_observation>")
    return (rest if end == -1 else rest[:end]).strip()


def reference_clean_marker(text: str, marker: str) -> str:
    if marker and text.startswith(marker):
        return text[len(marker) :].strip()
    if marker:
        return text.replace(marker, "").strip()
    return text.strip()


# every shape the issue lists: tag case, two tags, empty answers, leading whitespace, a closing tag
# without an opening one, the header in front, elsewhere and in variants, think tags of all kinds
PIECES = [
    "<predicted_observation>",
    "</predicted_observation>",
    "<PREDICTED_OBSERVATION>",
    "</PREDICTED_OBSERVATION>",
    "<Predicted_Observation>",
    "</predicted_Observation>",
    "<think>",
    "</think>",
    "<THINK>",
    "</Think>",
    OBSERVATION_MARKER,
    "**environment observation:**",
    "Environment Observation:",
    "**Environment Observation**",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    "",
    "total 0",
    "$ ls\nfile.txt",
    '{"ok": true}',
    "déjà → vu",
    "<",
    ">",
    "predicted_observation",
]
shapes = st.lists(st.one_of(st.sampled_from(PIECES), st.text("ab <>/\n*", max_size=4)), max_size=12).map(
    "".join
)


@seed(20261201)
@settings(max_examples=3000, database=None, deadline=None)
@given(shapes)
def test_extraction_equals_the_official_on_every_shape(text):
    assert extract_prediction(text) == reference_extract(text)
    assert clean_marker(text, OBSERVATION_MARKER) == reference_clean_marker(text, OBSERVATION_MARKER)
    assert clean_marker(text, "") == reference_clean_marker(text, "")


def test_extraction_agreement_is_total_on_a_seeded_generator():
    rng = random.Random(13)
    outputs = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 10))) for _ in range(20000)]
    agree = sum(extract_prediction(o) == reference_extract(o) for o in outputs)
    assert agree == len(outputs)
    kinds = {
        "two tags": sum(o.lower().count("<predicted_observation>") >= 2 for o in outputs),
        "empty": sum(not o.strip() for o in outputs),
        "stray close": sum(
            "</predicted_observation>" in o.lower() and "<predicted_observation>" not in o.lower()
            for o in outputs
        ),
        "unclosed think": sum(o.lower().count("<think>") > o.lower().count("</think>") for o in outputs),
    }
    assert all(count > 50 for count in kinds.values()), kinds


def test_the_official_quirks_by_example():
    assert extract_prediction("") == NO_OUTPUT and extract_prediction("  \n") == NO_OUTPUT
    assert extract_prediction("<PREDICTED_OBSERVATION> a </PREDICTED_OBSERVATION>") == "a"
    assert (
        extract_prediction("<predicted_observation>a</predicted_observation><predicted_observation>b") == "b"
    )
    assert (
        extract_prediction("<think>plan <predicted_observation>x") == "x"
    )  # unclosed think stops at the tag
    assert extract_prediction("<predicted_observation></predicted_observation>") == ""  # no sentinel here
    assert extract_prediction("out</predicted_observation>") == "out</predicted_observation>"
    marker = OBSERVATION_MARKER
    assert clean_marker(f"{marker}\nx", marker) == "x"
    assert clean_marker(f"  {marker}\nx {marker} y", marker) == "x  y"  # not at the start: removed everywhere
    assert clean_marker("**environment observation:** x", marker) == "**environment observation:** x"


def test_the_agent_facing_parser_keeps_its_friendlier_rules():
    """Documented in docs/bench.md: Observation.text differs from what the judge is shown."""
    assert parse_output("").text == "" and extract_prediction("") == NO_OUTPUT
    aligned = "<predicted_observation>\n  a   b\n  1   2\n</predicted_observation>"
    assert parse_output(aligned).text == "  a   b\n  1   2"  # leading spaces of a table kept
    assert extract_prediction(aligned) == "a   b\n  1   2"
    variant = "**environment observation:**\nx"
    assert parse_output(variant).text == "x" and extract_prediction(variant) == variant


# -- judge answers ----------------------------------------------------------------------------------


def _answer(scores, fence=True):
    body = json.dumps({"strengths": ["s"], "weaknesses": "w", "scores": scores})
    return (
        "Reasoning.\n<final_evaluation>\n"
        + (f"```json\n{body}\n```" if fence else body)
        + "\n</final_evaluation>"
    )


def test_judge_scores_are_read_like_the_official_parser():
    parsed = parse_official_judgement(
        _answer({"format": 3.5, "factuality": 2.5, "consistency": "4/5", "realism": "3.5", "quality": 9})
    )
    assert parsed.success and parsed.scores == {
        "format": 4,
        "factuality": 2,
        "consistency": 4,
        "realism": 0,
        "quality": 5,
    }
    assert parsed.total == (4 + 2 + 4 + 5) / 4 and parsed.strengths == ["s"] and parsed.weaknesses == ["w"]
    parsed = parse_official_judgement(
        _answer({"format": -1, "factuality": {"score": 5}, "Consistency": 5, "realism": True})
    )
    assert parsed.scores == {"format": -1, "factuality": 0, "consistency": 0, "realism": 1, "quality": 0}
    assert parsed.success and parsed.total == 1
    capitalised = parse_official_judgement(_answer({"Format": 5, "Quality": 5}))
    assert capitalised.success and capitalised.total == 0  # judged, yet no score: left out of the means
    assert not parse_official_judgement('{"Scores": {"format": 4}}').success
    assert not parse_official_judgement('{"scores": [4, 4]}').success
    assert not parse_official_judgement("").success and not parse_official_judgement("no json").success
    # repairs and the last-resort scores object
    assert (
        parse_official_judgement("<final_evaluation>{scores: {format: 5,},}</final_evaluation>").scores[
            "format"
        ]
        == 5
    )
    broken = '<final_evaluation>{"note": "a", "scores": {"format": 2, "quality": 3} "x"}</final_evaluation>'
    assert parse_official_judgement(broken).scores["quality"] == 3
    # the last block wins; a think section is ignored
    two = "<think>" + _answer({"format": 1}) + "</think>" + _answer({"format": 5})
    assert parse_official_judgement(two).scores["format"] == 5


def test_the_lenient_parser_is_opt_in_and_labelled():
    text = "<final_evaluation>Format: 4, Factuality: 5</final_evaluation>"
    judgement, parser = read_judgement(text, "official")
    assert not judgement.ok and parser == "official"
    judgement, parser = read_judgement(text, "lenient")
    assert judgement.ok and parser == "lenient" and judgement.scores == {"format": 4, "factuality": 5}
    judgement, parser = read_judgement(_answer({d: 4 for d in ("format", "quality")}), "lenient")
    assert parser == "official" and judgement.total == 4


# -- inference messages -----------------------------------------------------------------------------


def test_records_outside_the_usual_shape():
    record = {
        "task": "mcp",
        "id": "1",
        "turn_idx": 2,
        "prompt": ["p1", "p2"],
        "response": ["r1", "r2"],
        "system_str": "",
    }
    assert inference_messages(record) == [
        {"role": "user", "content": "p1"},
        {"role": "assistant", "content": "r1"},
        {"role": "user", "content": "p2"},
    ]
    record["system_str"] = "S"
    record["current_prompt"] = "other"
    assert inference_messages(record)[0] == {"role": "system", "content": "S"}
    assert inference_messages(record)[-1]["content"] == "p2"  # the turn's own prompt, as officially
    assert inference_messages({**record, "prompt": ["p1"]})[-1]["content"] == "other"


def test_the_report_says_which_parser_scored(tmp_path):
    from agentworld_plugins.bench.report import markdown_report
    from agentworld_plugins.bench.score import score_records

    scores = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 4)
    lines = [
        {
            "task": "os",
            "id": "1",
            "turn_idx": 1,
            "judge": {"status": "ok", "parser": "lenient", "scores": scores},
        },
        {
            "task": "os",
            "id": "2",
            "turn_idx": 1,
            "judge": {"status": "ok", "parser": "official", "scores": scores},
        },
        {"task": "os", "id": "3", "turn_idx": 1, "failed": 0.0, "total_score": 4, **scores},
    ]
    board = score_records(lines)
    assert board.parsers == {"lenient": 1, "official": 2}
    assert "judge answers read by: lenient parser 1, official parser 2" in markdown_report([board])
