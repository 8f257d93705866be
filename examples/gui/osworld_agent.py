"""An OSWorld-style agent on a simulated Ubuntu desktop: only the environment object changes.

Run offline (no VM, no model): python examples/gui/osworld_agent.py

The loop is OSWorld's ``lib_run_single``: ``reset(task_config)``, ``step(action, pause)`` with
pyautogui code, ``evaluate()``. The agent reads the accessibility tree the way OSWorld's agents
do (``linearize_accessibility_tree``). Point ``AGENTWORLD_BASE_URL`` at Qwen-AgentWorld to let
the world model play the desktop.
"""

from __future__ import annotations

from agentworld_plugins.adapters.gui.osworld import DesktopEnv, linearize_accessibility_tree
from agentworld_plugins.adapters.gui.task import load_task


def center(table: str, tag: str, name: str) -> tuple[int, int] | None:
    for line in table.splitlines()[1:]:
        cells = line.split("\t")
        if cells[0] == tag and cells[1].startswith(name):
            x, y = (int(v) for v in cells[5].strip("()").split(", "))
            w, h = (int(v) for v in cells[6].strip("()").split(", "))
            return x + w // 2, y + h // 2
    return None


def policy(obs: dict, memory: dict) -> str:
    table = linearize_accessibility_tree(obs["accessibility_tree"], platform="ubuntu")
    if "clicked" not in memory and (point := center(table, "text", "Untitled Document")):
        memory["clicked"] = True
        return f"pyautogui.click({point[0]}, {point[1]})"
    if "typed" not in memory:
        memory["typed"] = True
        return "pyautogui.write('Meeting at 10')"
    return "DONE"


def main() -> None:
    env = DesktopEnv(action_space="pyautogui", screen_size=(1920, 1080), require_a11y_tree=True)
    task_config = load_task("os/gedit-write-note").model_dump(exclude_none=True)  # an OSWorld task config
    obs = env.reset(task_config=task_config)
    print("instruction:", obs["instruction"])
    memory: dict = {}
    for step in range(10):
        action = policy(obs, memory)
        obs, _reward, done, info = env.step(action, pause=0.5)
        print(f"{step + 1:2d}. {action:40s} done={done} {info.get('action_error') or ''}")
        if done:
            break
    print("screenshot PNG bytes:", len(obs["screenshot"]), "score:", env.evaluate())
    env.close()


if __name__ == "__main__":
    main()
