"""Terminal-Bench's TmuxSession, simulated: a scripted Terminus-style agent loop.

python examples/shell/terminus_tmux.py
"""

from __future__ import annotations

import json

from agentworld_plugins.adapters.shell import TmuxSession, VirtualTerminal

from agentworld_plugins import World

REPLIES = [  # what a Terminus agent's model would answer, one JSON object per turn
    {
        "analysis": "Empty shell.",
        "plan": "Look around.",
        "commands": [{"keystrokes": "ls -la\n", "duration": 0.5}],
    },
    {
        "analysis": "A small project.",
        "plan": "Write a script and run it.",
        "commands": [
            {"keystrokes": "printf 'echo build ok\\n' > build.sh\n", "duration": 0.1},
            {"keystrokes": "bash build.sh\n", "duration": 1.0},
        ],
    },
    {"analysis": "Built.", "plan": "", "commands": [], "task_complete": True},
]

tmux = TmuxSession("agent", terminal=VirtualTerminal(World(backend="offline")))
tmux.start()
print(tmux.get_incremental_output())
for reply in map(json.dumps, REPLIES):
    answer = json.loads(reply)
    if answer.get("task_complete"):
        break
    for command in answer["commands"]:
        tmux.send_keys(command["keystrokes"], min_timeout_sec=command["duration"])
    print(tmux.get_incremental_output(), end="\n\n")
