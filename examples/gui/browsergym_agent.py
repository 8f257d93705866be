"""A BrowserGym-style agent on the simulated web: only the environment id changes.

Run offline (no browser, no model): python examples/gui/browsergym_agent.py

The agent is written against BrowserGym's interface: it reads ``obs["axtree_object"]``,
flattens it to ``[bid] role 'name'`` lines (BrowserGym's ``flatten_axtree_to_str`` when
BrowserGym is installed, else ours) and answers with high-level action strings. Point
``AGENTWORLD_BASE_URL`` at Qwen-AgentWorld (vLLM/SGLang) to let the world model play the site.
"""

from __future__ import annotations

import re

import gymnasium as gym

import agentworld_plugins  # noqa: F401  (registers browsergym/agentworld.*)

try:  # the real BrowserGym helper, if you have it
    from browsergym.utils.obs import flatten_axtree_to_str
except ImportError:
    from agentworld_plugins.adapters.gui.browsergym import flatten_axtree as flatten_axtree_to_str


def find(tree: str, role: str, text: str) -> str | None:
    """The bid of the first ``role`` node whose name contains ``text``."""
    for line in tree.splitlines():
        match = re.match(r"\s*\[(\w+)\] (\w+) '(.*?)'", line)
        if match and match.group(2) == role and text.lower() in match.group(3).lower():
            return match.group(1)
    return None


def policy(obs: dict, memory: dict) -> str:
    """A tiny scripted web agent: search, open the cheapest result, report its price."""
    tree = flatten_axtree_to_str(obs["axtree_object"])
    if "searched" not in memory and (box := find(tree, "searchbox", "search")):
        memory["searched"] = True
        return f"fill({box!r}, 'wireless mouse')"
    if "opened_results" not in memory and (link := find(tree, "link", "wireless mice")):
        memory["opened_results"] = True
        return f"click({link!r})"
    prices = [(float(p), i) for i, p in enumerate(re.findall(r"StaticText '\$(\d+\.\d\d)'", tree))]
    if prices and "opened_product" not in memory:
        links = re.findall(r"\[(\w+)\] link '([^']*Mouse[^']*)'", tree)
        cheapest = min(prices)[1]
        memory["opened_product"] = True
        return f"click({links[cheapest][0]!r})"
    if match := re.search(r"Price: \$(\d+\.\d\d)", tree):
        return f"send_msg_to_user('The cheapest wireless mouse costs ${match.group(1)}.')"
    return "scroll(0, 300)"


def main() -> None:
    env = gym.make("browsergym/agentworld.shop-find-mouse", headless=True, wait_for_user_message=False)
    obs, _info = env.reset(seed=0)
    print("goal:", obs["goal"])
    memory: dict = {}
    for step in range(10):
        action = policy(obs, memory)
        obs, reward, terminated, truncated, _info = env.step(action)
        error = f"  error: {obs['last_action_error']}" if obs["last_action_error"] else ""
        print(f"{step + 1:2d}. {action:55s} -> {obs['url']}  reward={reward}{error}")
        if terminated or truncated:
            break
    print("screenshot:", obs["screenshot"].shape, "chat:", obs["chat_messages"][-1]["message"])
    env.close()


if __name__ == "__main__":
    main()
