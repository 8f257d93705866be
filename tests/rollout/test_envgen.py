"""``agentworld envgen``: the offline generator makes valid, distinct environments whose tasks
``rollout run`` plays (and its reference solutions solve) and whose packs ``mcp serve`` accepts;
invalid and near-duplicate environments are caught; an LLM generator is asked again on bad JSON."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from click.testing import CliRunner

from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.rollout import RolloutSpec, load_tasks, rollout
from agentworld_plugins.rollout.envgen import LLMGenerator, OfflineGenerator, agenerate, generate
from agentworld_plugins.rollout.envgen.templates import offline_environment
from agentworld_plugins.rollout.envgen.validate import check_environment, drop_near_duplicates


def test_offline_envgen_feeds_rollout_and_mcp_serve(tmp_path: Path) -> None:
    out = tmp_path / "envs"
    result = CliRunner().invoke(cli, ["envgen", "--n", "6", "-o", str(out), "--seed", "3", "--no-progress"])
    assert result.exit_code == 0, result.output
    packs = sorted((out / "packs").glob("*.json"))
    assert len(packs) == 6
    tasks = load_tasks(out / "tasks.jsonl")
    assert len(tasks) == 12 and len({t.id for t in tasks}) == 12
    registry = get_plugin_manager().registry
    envs = [json.loads(line)["environment"] for line in (out / "environments.jsonl").read_text().splitlines()]
    assert all(check_environment(env, registry) == [] for env in envs)
    assert len({env["name"] for env in envs}) == 6

    episodes = tmp_path / "episodes.jsonl"
    spec = RolloutSpec(agent=f"scripted:{out / 'solutions.json'}", world_options={"backend": "offline"})
    summary = rollout(out / "tasks.jsonl", episodes, spec)
    assert summary.ok == 12
    rewards = [json.loads(line)["reward"] for line in episodes.read_text().splitlines()]
    assert rewards == [1.0] * 12  # every generated task is solvable in the offline world

    listed = CliRunner().invoke(cli, ["mcp", "serve", "--tools", str(packs[0]), "--list"])
    assert listed.exit_code == 0, listed.output
    assert "create_" in listed.output and "list_" in listed.output


async def test_a_generated_pack_is_served_over_mcp(tmp_path: Path) -> None:
    """What ``mcp serve --tools PACK`` serves, driven by a real MCP client (in-process): the pack's
    tools are listed as generated, and the reference solution's call succeeds and is remembered."""
    from agentworld_plugins.adapters.mcp_catalog import load_catalog
    from agentworld_plugins.adapters.mcp_server import FakeMcpServer
    from mcp import Client

    from agentworld_plugins import World

    summary = await agenerate(2, tmp_path, OfflineGenerator(11))
    name = summary.kept[0]
    pack = json.loads((tmp_path / "packs" / f"{name}.json").read_text())
    solution = json.loads((tmp_path / "solutions.json").read_text())[f"{name}-0"]
    call = solution[0]
    with World(backend="offline", perturbations=[]) as world:
        fake = FakeMcpServer(world, load_catalog(tmp_path / "packs" / f"{name}.json"))
        async with Client(fake.server, mode="legacy") as client:
            listed = await client.list_tools()
            created = await client.call_tool(call["tool"], call["arguments"])
            lister = next(t["name"] for t in pack["tools"] if t["name"].startswith("list_"))
            found = await client.call_tool(lister, {})
    assert [t.name for t in listed.tools] == [t["name"] for t in pack["tools"]]
    assert not created.is_error and not found.is_error
    assert call["arguments"]["title"] in found.content[0].text


def test_a_rerun_keeps_what_was_generated(tmp_path: Path) -> None:
    first = generate(4, tmp_path, OfflineGenerator(1))
    again = generate(6, tmp_path, OfflineGenerator(1))
    assert first.run.ok == 4 and again.run.skipped == 4 and again.run.ok == 2
    assert len(again.kept) == 6


def test_validation_names_what_is_wrong() -> None:
    registry = get_plugin_manager().registry
    env = offline_environment(0, 0)
    bad = copy.deepcopy(env)
    bad["tools"][1]["name"] = bad["tools"][0]["name"]
    bad["tools"][2]["name"] = "list things!"
    bad["tools"][3]["inputSchema"] = {"type": "object", "properties": {"id": {"type": 12}}}
    bad["tasks"][0]["reward"][1]["tool"] = "launch_rocket"
    problems = check_environment(bad, registry)
    text = "\n".join(problems)
    assert "is used twice" in text and "'list things!' is not a valid tool name" in text
    assert "tools[3].inputSchema does not compile" in text
    bad = copy.deepcopy(env)
    bad["tasks"][0]["reward"][1]["tool"] = "launch_rocket"
    assert "names tool 'launch_rocket'" in "\n".join(check_environment(bad, registry))


def test_near_duplicates_are_dropped() -> None:
    a, b = offline_environment(0, 0), offline_environment(1, 0)
    twin = copy.deepcopy(a)
    twin["name"] = "another-name"
    kept, dropped = drop_near_duplicates([a, b, twin])
    assert [e["name"] for e in kept] == [a["name"], b["name"]] and dropped == ["another-name"]


def test_an_llm_generator_is_asked_again_until_the_environment_validates(tmp_path: Path) -> None:
    good = offline_environment(5, 9)
    broken = {**good, "tools": [{"name": "bad name", "inputSchema": {"type": "object"}}]}
    with FakeWorldModelServer() as server:
        server.enqueue("I cannot answer in JSON.", f"```json\n{json.dumps(broken)}\n```", json.dumps(good))
        summary = generate(1, tmp_path, LLMGenerator([server.url], "gen", max_retries=3, retry_backoff=0.0))
        prompt = server.chat_requests[0].body["messages"][0]["content"]
    assert summary.run.ok == 1 and summary.kept == [good["name"]]
    assert len(server.chat_requests) == 3
    assert "ledger_item" in prompt


def test_a_generator_without_a_model_uses_the_one_its_server_lists(tmp_path: Path) -> None:
    """``envgen --generator-base-url URL`` alone (the documented command) asks /v1/models."""
    good = offline_environment(2, 4)
    with FakeWorldModelServer(model="served-generator") as server:
        server.enqueue(json.dumps(good))
        result = CliRunner().invoke(
            cli,
            ["envgen", "--n", "1", "-o", str(tmp_path), "--generator-base-url", server.url, "--no-progress"],
        )
        asked = server.chat_requests[0].body
    assert result.exit_code == 0, result.output
    assert asked["model"] == "served-generator"
    assert load_tasks(tmp_path / "tasks.jsonl")[0].id.startswith(good["name"])


def test_a_generator_that_never_answers_fails_the_command(tmp_path: Path) -> None:
    """Every environment failed: exit 1 with the commonest error, naming envgen's own options."""
    with FakeWorldModelServer() as server:
        url = server.url
    args = ["envgen", "--n", "2", "-o", str(tmp_path), "--generator-base-url", url, "--generator-model", "g"]
    result = CliRunner().invoke(cli, [*args, "--max-retries", "0", "--no-progress"])
    assert result.exit_code == 1
    assert "envgen: no environment could be made (2 failed" in result.output
    assert "The generator server at" in result.output and "did not answer" in result.output


def test_a_retry_after_a_rejected_answer_changes_the_request(tmp_path: Path) -> None:
    """A generator server as deterministic as vLLM at a fixed seed (the same request gets the same
    answer) that answers each new prompt badly once: the retry carries the rejected answer, the
    validation error and a new seed, so it is a new request and gets a valid environment."""
    import threading

    lock = threading.Lock()
    answered: dict[str, str] = {}  # request (messages and seed) -> the answer it got
    prompts_seen: set[str] = set()

    def deterministic_once_bad(body: dict) -> str:
        key = json.dumps([body["messages"], body.get("seed")], sort_keys=True)
        prompt = body["messages"][0]["content"]
        with lock:
            if key not in answered:
                if prompt not in prompts_seen:
                    prompts_seen.add(prompt)
                    answered[key] = '{"name": "Not A Valid Name", "tools": []}'
                else:
                    answered[key] = json.dumps(offline_environment(len(answered), 9))
            return answered[key]

    with FakeWorldModelServer(responder=deterministic_once_bad) as server:
        generator = LLMGenerator([server.url], "gen", seed=4, max_retries=2, retry_backoff=0.0)
        summary = generate(3, tmp_path, generator)
        asked = [r.body for r in server.chat_requests]
    assert summary.run.ok == 3 and len(summary.kept) == 3
    assert len(asked) == 6  # one rejected answer and one retry per environment
    for first in (b for b in asked if len(b["messages"]) == 1):
        retry = next(b for b in asked if len(b["messages"]) == 3 and b["messages"][0] == first["messages"][0])
        assert retry["seed"] != first["seed"]
        assert retry["messages"][1] == {
            "role": "assistant",
            "content": '{"name": "Not A Valid Name", "tools": []}',
        }
        feedback = retry["messages"][2]["content"]
        assert feedback.startswith("That answer was rejected: ") and "name" in feedback


def test_the_near_duplicate_filter_is_inside_the_progress_bar(tmp_path: Path, capfd) -> None:
    """The bar counts generation and the filter (2 steps per environment): it reaches 100% when
    the filter is done, under the filter's name, not when generation ends."""
    summary = generate(3, tmp_path / "envs", progress=True)
    assert summary.run.ok == 3
    last = [line for line in capfd.readouterr().err.splitlines() if "/6" in line][-1]
    assert last.startswith("near-duplicates") and "6/6" in last and "100%" in last
