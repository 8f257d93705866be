"""An AndroidWorld-style agent on a simulated phone: only the environment object changes.

Run offline (no emulator, no model): python examples/gui/androidworld_agent.py

The agent uses AndroidWorld's ``AsyncEnv`` calls (``reset``, ``get_state``,
``execute_action(JSONAction)``, ``logical_screen_size``, the controller's probes) and reads
``state.ui_elements``. Point ``AGENTWORLD_BASE_URL`` at Qwen-AgentWorld to let the world model
play the phone.
"""

from __future__ import annotations

from agentworld_plugins.adapters.gui.androidworld import AgentWorldAndroidEnv, JSONAction


def describe(elements: list) -> str:
    return "; ".join(
        f"{i}:{e.text or e.content_description or e.class_name}{' [on]' if e.is_checked else ''}"
        for i, e in enumerate(elements)
    )


def policy(state, memory: dict) -> JSONAction:
    """Open Clock, switch on the 7:00 AM alarm, report done."""
    elements = state.ui_elements
    labels = [(e.text or e.content_description or "") for e in elements]
    if "opened" not in memory:
        memory["opened"] = True
        return JSONAction(action_type="open_app", app_name="Clock")
    for i, element in enumerate(elements):
        if element.content_description == "7:00 AM alarm" and not element.is_checked:
            return JSONAction(action_type="click", index=i)
    if any(label == "7:00 AM alarm" for label in labels):
        return JSONAction(action_type="status", goal_status="complete")
    return JSONAction(action_type="wait")


def main() -> None:
    env = AgentWorldAndroidEnv(
        task="android/clock-set-alarm"
    )  # instead of env_launcher.load_and_setup_env(...)
    state = env.reset(go_home=False)
    print("screen:", env.logical_screen_size, "orientation:", env.controller.get_orientation())
    memory: dict = {}
    for step in range(10):
        action = policy(state, memory)
        if action.action_type == "status":
            print(f"{step + 1:2d}. {action.json_str()}  (agent done)")
            break
        env.execute_action(action)
        state = env.get_state(wait_to_stabilize=True)
        print(f"{step + 1:2d}. {action.json_str():50s} -> {describe(state.ui_elements)[:90]}")
        if env.last_action_error:
            print("    error:", env.last_action_error)
    print("pixels:", state.pixels.shape, "task success:", state.auxiliaries.get("success"))
    env.close()


if __name__ == "__main__":
    main()
