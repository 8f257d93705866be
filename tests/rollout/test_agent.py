"""The OpenAI-compatible agent policy (a fake server on 127.0.0.1 as the agent's endpoint), the
judge reward, and reward plugins registered through ``register_rewards``."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agentworld_plugins import World, hookimpl
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.rollout import OpenAIPolicy, RewardResult, RolloutSpec, arollout, parse_task


def _call(name: str, arguments: dict, call_id: str = "c1") -> dict:
    return {
        "content": "",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _task(**fields) -> dict:
    return {"id": "t", "instruction": "go", "max_turns": 4, **fields}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _spec(server: FakeWorldModelServer, **extra) -> RolloutSpec:
    return RolloutSpec(
        agent="openai",
        agent_options={"base_urls": [server.url], "model": "agent"},
        world_options={"backend": "offline"},
        retry_backoff=0.0,
        **extra,
    )


async def test_tool_domains_use_native_tool_calling(tmp_path: Path) -> None:
    task = parse_task(
        _task(
            domain="mcp",
            tool_pack="github-issues",
            reward=[{"type": "ledger_item", "resource": "issue", "where": {"labels": "bug"}}],
        ),
        "t",
    )
    with FakeWorldModelServer() as agent:
        agent.enqueue(
            _call("create_issue", {"owner": "a", "repo": "b", "title": "x", "labels": ["bug"]}),
            "Created issue 1.",
        )
        out = tmp_path / "e.jsonl"
        summary = await arollout([task], out, _spec(agent))
        first, second = (r.body for r in agent.chat_requests)
    assert summary.ok == 1
    assert {t["function"]["name"] for t in first["tools"]} >= {"create_issue", "list_issues"}
    assert first["model"] == "agent" and isinstance(first["seed"], int)
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["tool_call_id"] == "c1"
    line = _lines(out)[0]
    assert line["reward"] == 1.0 and line["final_answer"] == "Created issue 1."
    assert line["agent"].startswith("openai(")


async def test_action_text_domains_read_the_fenced_action(tmp_path: Path) -> None:
    task = parse_task(
        _task(domain="terminal", reward=[{"type": "file_contains", "path": "/app/a.txt", "text": "hi"}]), "t"
    )
    action = json.dumps([{"keystrokes": "echo hi > /app/a.txt\n", "duration": 0.1}])
    with FakeWorldModelServer() as agent:
        agent.enqueue(f"I will write it.\n```json\n{action}\n```", "<answer>written</answer>")
        out = tmp_path / "e.jsonl"
        await arollout([task], out, _spec(agent))
        first = agent.chat_requests[0].body
    assert "tools" not in first
    line = _lines(out)[0]
    assert line["reward"] == 1.0 and line["final_answer"] == "written"
    assert [m["role"] for m in line["messages"]] == ["system", "user", "assistant", "user", "assistant"]


async def test_agent_errors_are_retried_then_fail_the_episode_and_a_rerun_plays_it(tmp_path: Path) -> None:
    task = parse_task(_task(domain="mcp", tool_pack="github-issues"), "t")
    out = tmp_path / "e.jsonl"
    with FakeWorldModelServer() as agent:
        agent.enqueue(FakeWorldModelServer.error(503), "done")  # a retry gets through
        assert (await arollout([task], out, _spec(agent))).ok == 1
        out.unlink()
        agent.enqueue(*[FakeWorldModelServer.error(500)] * 2)
        summary = await arollout([task], out, _spec(agent, max_retries=1))
        assert summary.failed == 1
        assert "HTTP 500" in _lines(out)[0]["rollout"]["error"]
        agent.enqueue("done now")
        summary = await arollout([task], out, _spec(agent))
    assert summary.ok == 1 and _lines(out)[0]["final_answer"] == "done now"


async def test_the_judge_reward_asks_an_llm_with_the_rubric(tmp_path: Path) -> None:
    task = parse_task(
        _task(domain="mcp", tool_pack="github-issues", reward=[{"type": "judge", "rubric": "Be polite."}]),
        "t",
    )
    with FakeWorldModelServer() as agent, FakeWorldModelServer() as judge:
        agent.enqueue("Thank you, all done.")
        judge.enqueue("Polite enough.\nSCORE: 7")
        out = tmp_path / "e.jsonl"
        await arollout([task], out, _spec(agent, judge={"base_url": judge.url, "model": "j"}))
        asked = judge.chat_requests[0].body["messages"][-1]["content"]
    assert "Be polite." in asked and "Thank you, all done." in asked
    line = _lines(out)[0]
    assert line["reward"] == pytest.approx(0.7)
    assert line["reward_breakdown"][0]["detail"] == "judge: 7/10"


async def test_reward_plugins_register_checks_by_name(tmp_path: Path) -> None:
    class Brevity:
        @hookimpl
        def register_rewards(self, register):
            async def short_answer(episode, limit=5):
                n = len(episode.final_answer or "")
                return RewardResult(float(n <= limit), f"{n} characters")

            register("short_answer", short_answer)
            register("broken", lambda episode: 1 / 0)

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Brevity())
    task = parse_task(
        _task(
            domain="mcp",
            tool_pack="github-issues",
            reward=[{"type": "short_answer", "limit": 10}, {"type": "broken"}],
        ),
        "t",
        pm.registry,
    )
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"*": [{"answer": "short"}]}))
    out = tmp_path / "e.jsonl"
    with World(backend="offline", plugin_manager=pm, perturbations=[]) as world:
        await arollout([task], out, RolloutSpec(agent=f"scripted:{script}"), world=world)
    line = _lines(out)[0]
    assert line["reward"] == 0.5
    assert line["reward_breakdown"][0]["detail"] == "5 characters"
    assert line["reward_breakdown"][1]["detail"].startswith("error: ZeroDivisionError")


def test_the_openai_policy_needs_a_url() -> None:
    from agentworld_plugins.errors import ConfigError

    with pytest.raises(ConfigError, match="no base URL") as caught:
        OpenAIPolicy([], "m")
    assert "--agent-base-url" in str(caught.value) and "scripted" in str(caught.value)
    with pytest.raises(ConfigError, match="--generator-base-url"):
        OpenAIPolicy([], "m", role="generator")


async def test_without_a_model_the_policy_asks_the_server(tmp_path: Path) -> None:
    task = parse_task(_task(domain="mcp", tool_pack="github-issues"), "t")
    with FakeWorldModelServer(model="served-agent") as agent:
        agent.enqueue("done")
        spec = RolloutSpec(
            agent="openai", agent_options={"base_urls": [agent.url]}, world_options={"backend": "offline"}
        )
        summary = await arollout([task], tmp_path / "e.jsonl", spec)
        body = agent.chat_requests[0].body
    assert summary.ok == 1 and body["model"] == "served-agent"
    assert _lines(tmp_path / "e.jsonl")[0]["agent"].endswith("model=served-agent)")


async def test_a_server_that_names_no_model_stops_the_run(tmp_path: Path) -> None:
    """A server whose /models is not OpenAI's: the run stops at once with the option to pass
    (instead of failing every episode)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from agentworld_plugins.errors import ConfigError

    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        spec = RolloutSpec(
            agent="openai", agent_options={"base_urls": [url]}, world_options={"backend": "offline"}
        )
        task = parse_task(_task(domain="mcp", tool_pack="github-issues"), "t")
        with pytest.raises(ConfigError, match="names no model") as caught:
            await arollout([task], tmp_path / "e.jsonl", spec, group_size=3)
    finally:
        server.shutdown()
        server.server_close()
    assert "--agent-model" in str(caught.value)
    assert not (tmp_path / "e.jsonl").exists() or not (tmp_path / "e.jsonl").read_text().strip()


async def test_a_judge_without_an_endpoint_stops_the_run_before_any_episode(
    tmp_path: Path, monkeypatch
) -> None:
    from agentworld_plugins.errors import ConfigError

    monkeypatch.delenv("AGENTWORLD_JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("AGENTWORLD_JUDGE_MODEL", raising=False)
    task = parse_task(
        _task(domain="mcp", tool_pack="github-issues", reward=[{"type": "judge", "rubric": "Be polite."}]),
        "t",
    )
    with FakeWorldModelServer() as agent:
        with pytest.raises(ConfigError, match=r"task 't': reward\.0: The judge reward has no endpoint"):
            await arollout([task], tmp_path / "e.jsonl", _spec(agent))
        assert agent.chat_requests == []


async def test_a_judge_that_does_not_answer_fails_the_episode_for_the_next_run(tmp_path: Path) -> None:
    """A judge that is down does not score the episode 0: the episode is failed and played again."""
    task = parse_task(
        _task(domain="mcp", tool_pack="github-issues", reward=[{"type": "judge", "rubric": "Be polite."}]),
        "t",
    )
    out = tmp_path / "e.jsonl"
    with FakeWorldModelServer() as agent, FakeWorldModelServer() as judge:
        agent.enqueue("Thank you.")
        judge.enqueue(FakeWorldModelServer.error(500))
        summary = await arollout([task], out, _spec(agent, judge={"base_url": judge.url, "model": "j"}))
        assert summary.failed == 1 and "The judge at" in _lines(out)[0]["rollout"]["error"]
        agent.enqueue("Thank you.")
        judge.enqueue("SCORE: 9")
        summary = await arollout([task], out, _spec(agent, judge={"base_url": judge.url, "model": "j"}))
    assert summary.ok == 1 and _lines(out)[0]["reward"] == pytest.approx(0.9)


async def test_agent_requests_are_spread_over_replicas(tmp_path: Path) -> None:
    task = parse_task(_task(domain="mcp", tool_pack="github-issues"), "t")
    with FakeWorldModelServer() as one, FakeWorldModelServer() as two:
        spec = RolloutSpec(
            agent="openai",
            agent_options={"base_urls": [one.url, two.url], "model": "agent"},
            world_options={"backend": "offline"},
        )
        summary = await arollout([task], tmp_path / "e.jsonl", spec, group_size=6, concurrency=1)
        assert summary.ok == 6
        assert len(one.chat_requests) == len(two.chat_requests) == 3  # one at a time, taking turns
