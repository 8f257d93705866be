"""A SWE-ReX-compatible runtime on 127.0.0.1, called the way SWE-ReX's RemoteRuntime calls it.

python examples/shell/swerex_runtime.py
# or serve it: agentworld shell --session swe-1 swerex --port 8000 --token s3cret
"""

from __future__ import annotations

import httpx
from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app

from agentworld_plugins import World
from agentworld_plugins.http_guard import serving

app = swerex_app(VirtualTerminal(World(backend="offline")), token="s3cret")
with serving(app) as base, httpx.Client(base_url=base, headers={"X-API-Key": "s3cret"}) as rex:
    print(rex.get("/is_alive").json())
    rex.post("/create_session", json={"session": "default"})
    print(rex.post("/run_in_session", json={"command": "cd /tmp && echo $PWD", "session": "default"}).json())
    print(rex.post("/execute", json={"command": ["ls", "/app"]}).json())
    rex.post("/write_file", json={"path": "/app/patch.diff", "content": "--- a\n+++ b\n"})
    print(rex.post("/read_file", json={"path": "/app/patch.diff"}).json())
