"""envgen at scale: 4,000 offline environments differ in their tool sets, 4,000 requests to a
generator model differ in what they ask for, the near-duplicate filter is exact (it gives what
comparing every pair gives), and a run SIGKILLed midway and resumed writes the same files as one
that was never interrupted."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.rollout.envgen import LLMGenerator, prompt_theme
from agentworld_plugins.rollout.envgen.templates import offline_environment
from agentworld_plugins.rollout.envgen.validate import (
    _shingles,
    check_environment,
    drop_near_duplicates,
    similarity,
)


def test_4000_offline_environments_give_over_3000_distinct_tool_sets() -> None:
    envs = [offline_environment(i, 0) for i in range(4000)]
    kept, _ = drop_near_duplicates(envs)
    tool_sets = {json.dumps(env["tools"], sort_keys=True) for env in kept}
    assert len(tool_sets) >= 3000, (len(kept), len(tool_sets))
    registry = get_plugin_manager().registry
    assert [check_environment(env, registry) for env in kept[::40]] == [[]] * len(kept[::40])
    # the same index and seed give the same environment; another seed another set
    assert offline_environment(17, 0) == envs[17] and offline_environment(17, 1) != envs[17]


def test_4000_requests_to_a_generator_ask_for_thousands_of_different_services() -> None:
    registry = get_plugin_manager().registry
    generator = LLMGenerator(["http://127.0.0.1:9/v1"], "gen", seed=3)
    prompts = {generator.messages(i, registry)[0]["content"] for i in range(4000)}
    assert len(prompts) >= 3000
    assert prompt_theme(5, 3) in generator.messages(5, registry)[0]["content"]
    assert prompt_theme(5, 3) != prompt_theme(5, 4)


def test_the_near_duplicate_filter_is_the_all_pairs_one() -> None:
    """Prefix filtering drops exactly what comparing each environment with every kept one drops:
    on 300 environments with planted near-copies (a tool renamed, one more word in the bible)."""
    envs = [offline_environment(i, 2) for i in range(300)]
    for n in range(0, 300, 7):
        twin = copy.deepcopy(envs[n])
        twin["name"] = f"twin-{n}"
        twin["world_bible"] += " Records are kept for seven years."
        twin["tools"][0]["name"] += "_now"
        envs.append(twin)
    kept, dropped = drop_near_duplicates(envs)
    expected_kept: list[dict] = []
    kept_shingles: list[set[str]] = []
    for env in envs:  # the definition: Jaccard similarity with every environment kept so far
        mine = _shingles(env)
        if all(len(mine & other) / len(mine | other) < 0.8 for other in kept_shingles):
            expected_kept.append(env)
            kept_shingles.append(mine)
    assert similarity(envs[0], envs[-1]) < 0.8 or envs[-1]["name"].startswith("twin-")
    assert [e["name"] for e in kept] == [e["name"] for e in expected_kept]
    assert len(dropped) >= 43  # every planted twin at least


def _answer_for(prompt: str) -> str:
    """A deterministic generator: the same prompt always gets the same (valid) environment."""
    index = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) % 100_000
    return json.dumps(offline_environment(index, 3))


def _envgen(out: Path, url: str) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "agentworld_plugins", "envgen", "--n", "10", "-c", "2", "--seed", "5"]
    args += ["-o", str(out), "--generator-base-url", url, "--no-progress"]  # no model: it is asked for
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_killed_and_resumed_run_writes_the_files_of_an_uninterrupted_one(tmp_path: Path) -> None:
    """The first ``-c`` environments are named with the model the server lists (they were
    ``model=?`` before it was found out), so nothing tells a resumed file from a whole one."""
    held = threading.Event()
    answered = [0]
    lock = threading.Lock()

    def generator(body: dict) -> str:
        with lock:
            answered[0] += 1
            n = answered[0]
        if n > 4:
            held.wait(120)  # the run being killed waits here: it is killed after 4 lines
        return _answer_for(body["messages"][0]["content"])

    with FakeWorldModelServer(model="served-generator", responder=generator) as server:
        killed = tmp_path / "killed"
        proc = _envgen(killed, server.url)
        results = killed / "environments.jsonl"
        try:
            while _lines(results) < 4 and proc.poll() is None:
                threading.Event().wait(0.05)  # waiting for the 4th line, not timing anything
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(60)
            held.set()
        assert proc.returncode == -signal.SIGKILL and _lines(results) == 4
        assert b"model=served-generator" in results.read_bytes()
        resumed = _envgen(killed, server.url)
        out, _ = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, out.decode()
        assert b"4 from an earlier run" in out, out.decode()
        whole = _envgen(tmp_path / "whole", server.url)
        out, _ = whole.communicate(timeout=300)
        assert whole.returncode == 0, out.decode()
    for name in ("environments.jsonl", "tasks.jsonl", "solutions.json"):
        assert (killed / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert b"model=?" not in (killed / "environments.jsonl").read_bytes()
    assert _lines(killed / "environments.jsonl") == 10
