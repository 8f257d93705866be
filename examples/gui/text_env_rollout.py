"""Rollouts on the generic ``agentworld/<domain>-v0`` text environments (for RL libraries).

Run offline: python examples/gui/text_env_rollout.py

Every domain has one environment; observations and actions are text. On the offline backend a
rollout is deterministic for a given seed.
"""

from __future__ import annotations

import json

import gymnasium as gym

import agentworld_plugins  # noqa: F401  (registers agentworld/<domain>-v0)

SCRIPTS = {
    "terminal": (
        "terminal/count-python-files",
        [
            [{"keystrokes": "ls src\n", "duration": 0.1}],
            [{"keystrokes": "find src -name '*.py' | wc -l\n", "duration": 0.1}],
        ],
    ),
    "mcp": (
        "mcp/notes-create",
        [
            {"tool_name": "create_note", "arguments": {"title": "Standup", "body": "Ship the GUI envs"}},
            {"tool_name": "list_notes", "arguments": {}},
        ],
    ),
    "web": ("web/newsletter-signup", ["fill('7', 'jane@example.org')", "click('8')", "click('10')"]),
    "os": ("os/gedit-write-note", ["pyautogui.click(1200, 500)", "pyautogui.write('Meeting at 10')", "DONE"]),
}


def main() -> None:
    for domain, (task, actions) in SCRIPTS.items():
        env = gym.make(f"agentworld/{domain}-v0", backend="offline")
        obs, info = env.reset(seed=7, options={"task": task})
        print(f"== {domain}: {info['instruction']}")
        for action in actions:
            text = action if isinstance(action, str) else json.dumps(action)
            obs, reward, terminated, truncated, info = env.step(text)
            print(f"   {text[:60]:60s} reward={reward} terminated={terminated}")
            if terminated or truncated:
                break
        print("   last observation:", obs.splitlines()[-1][:100] if obs else "")
        env.close()


if __name__ == "__main__":
    main()
