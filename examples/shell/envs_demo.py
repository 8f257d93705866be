"""mini-swe-agent's Environment and a Harbor-style environment on one simulated machine.

    python examples/shell/envs_demo.py

In a mini-swe-agent config (``environment_class`` is loaded by dotted path)::

    environment:
      environment_class: agentworld_plugins.adapters.shell.envs.MiniSweEnvironment
      cwd: /testbed
      session: swe-1          # stored in $AGENTWORLD_HOME, so `agentworld shell --session swe-1` can look
"""

from __future__ import annotations

import asyncio

from agentworld_plugins.adapters.shell import MiniSweEnvironment, SimulatedEnvironment, VirtualTerminal

from agentworld_plugins import World

terminal = VirtualTerminal(World(backend="offline"), machine={"cwd": "/testbed", "hostname": "swe"})

mini = MiniSweEnvironment(terminal=terminal, cwd="/testbed")
print(mini.execute({"command": "echo 'x = 1' > mod.py && ls"}))
print(mini.execute({"command": "python3 -c 'import mod'; cat missing"}))


async def harbor() -> None:
    env = SimulatedEnvironment(terminal=terminal)
    await env.start(force_build=False)
    print(await env.exec("cat mod.py", cwd="/testbed"))
    # what Harbor's Terminus-2 sends through exec to drive its tmux pane
    await env.exec("tmux new-session -x 160 -y 40 -d -s main")
    await env.exec("tmux send-keys -t main 'cd /testbed && ls' Enter")
    print((await env.exec("tmux capture-pane -p -t main")).stdout)
    await env.stop(delete=True)


asyncio.run(harbor())
