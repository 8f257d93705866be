"""The official-style ``eval.py infer`` (a real subprocess, the OpenAI client) against a real
``agentworld serve --backend offline`` process, with official-style records of all seven domains
under the official prompts (Android in three screen notations, search's dict_memory in the
official ``dict`` form): every record is answered, each in its own domain.

"In its own domain" is checked against a local offline session of the record's own domain (named,
not detected), replaying the record's turns: serve's answer must be that session's answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from official_like import write_checkout

from agentworld_plugins import World
from agentworld_plugins.bench.official import extract_prediction
from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.testing import clean_env, serve_process
from agentworld_plugins.turns import context_from_system, extract_action, state_of_turn

_BOX = "BoundingBox(x_min={}, x_max={}, y_min={}, y_max={})"
_SCREENS = {  # the sample's Settings screen (a label, then two switches) in two more notations
    "uielement": "\n".join(
        f"UI element {i}: UIElement(text={text!r}, content_description=None, class_name="
        f"'android.widget.{cls}', bbox=None, bbox_pixels={_BOX.format(0, 1080, 100 * i, 100 * i + 90)}, "
        f"is_checked=False, is_clickable={i > 0}, is_editable=False, package_name='com.android.settings')"
        for i, (text, cls) in enumerate(
            [("Settings", "TextView"), ("Wi-Fi", "Switch"), ("Bluetooth", "Switch")]
        )
    ),
    "attrs": "\n".join(
        [
            "TextView text='Settings' clickable=false bounds=[0,0][1080,90]",
            "Switch text='Wi-Fi' clickable=true checked=false bounds=[0,100][1080,190]",
            "Switch text='Bluetooth' clickable=true checked=false bounds=[0,200][1080,290]",
        ]
    ),
}


def _android_in(notation: str, record: dict[str, Any]) -> dict[str, Any]:
    first = record["prompt"][0]
    state = state_of_turn(first)
    assert state is not None
    prompts = [first.replace(state, _SCREENS[notation]), *record["prompt"][1:]]
    current = prompts[record["turn_idx"] - 1]
    return {**record, "id": f"{record['id']}-{notation}", "prompt": prompts, "current_prompt": current}


def _memory_in_dict_form(record: dict[str, Any]) -> dict[str, Any]:
    call = {"name": "dict_memory", "arguments": {"operation": "add", "dict": {"source": "vllm docs", "n": 3}}}
    prompt = f"### Turn 1\n**Action:**\n```json\n{json.dumps(call)}\n```"
    return {
        **record,
        "id": "search-dict",
        "prompt": [prompt],
        "response": ["Added keys 'source', 'n'."],
        "current_prompt": prompt,
        "turn_idx": 1,
        "total_turns": 1,
    }


def _records() -> list[dict[str, Any]]:
    domains = ("mcp", "search", "terminal", "swe", "android", "web", "os")
    records = [record for domain in domains for record in sample_records(domain, 1)]
    android = [r for r in records if r["task"].endswith("/android")]
    records += [_android_in(n, r) for n in _SCREENS for r in android]
    records.append(_memory_in_dict_form(next(r for r in records if r["task"].endswith("/search"))))
    return records


def _local_answer(record: dict[str, Any]) -> str:
    """The last observation of an offline session of the record's own domain, given its turns."""
    domain = record["task"].split("/")[-1]
    prompts = record["prompt"][: record["turn_idx"]]
    tools = context_from_system(record["system_str"]).get("tools")
    session = World(backend="offline").session(domain, tools=tools, initial_state=state_of_turn(prompts[0]))
    text = ""
    for prompt in prompts:
        action = extract_action(prompt)
        assert action is not None
        text = session.step(action[1]).text
    return text


def test_official_infer_answers_every_record_in_its_own_domain(tmp_path: Path) -> None:
    checkout = write_checkout(tmp_path / "official")
    records = _records()
    notations = {r["id"].rsplit("-", 1)[-1] for r in records if r["task"].endswith("/android")}
    assert {"uielement", "attrs"} <= notations and len({r["task"] for r in records}) == 7
    source = tmp_path / "records.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "infer.jsonl"
    env = {**clean_env(), "HOME": str(tmp_path)}
    with serve_process("--backend", "offline", "--api-key", "k", env=env) as url:
        command = [sys.executable, "eval.py", "infer", "--input", str(source), "--output", str(out)]
        command += ["--base_url", url + "/v1", "--model", "agentworld", "--api_key", "k"]
        done = subprocess.run(
            command,
            cwd=checkout / "eval",
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    assert done.returncode == 0, done.stderr
    answered = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["id"] for a in answered] == [r["id"] for r in records]
    refused = [(a["id"], a.get("error")) for a in answered if not a["gen"]]
    assert refused == []
    wrong = []
    for record, answer in zip(records, answered):
        prediction = extract_prediction(answer["gen"], "predicted_observation")
        if prediction != _local_answer(record):
            wrong.append((record["id"], prediction[:200]))
    assert wrong == []
