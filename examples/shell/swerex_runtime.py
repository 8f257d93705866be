"""A SWE-ReX-compatible runtime on 127.0.0.1, called the way SWE-ReX's RemoteRuntime calls it.

python examples/shell/swerex_runtime.py
# or serve it: agentworld shell --session swe-1 swerex --port 8000 --token s3cret
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import uvicorn
from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app

from agentworld_plugins import World

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
server = uvicorn.Server(
    uvicorn.Config(
        swerex_app(VirtualTerminal(World(backend="offline")), token="s3cret"), port=port, log_level="warning"
    )
)
threading.Thread(target=server.run, daemon=True).start()
while not server.started:
    time.sleep(0.05)

with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"X-API-Key": "s3cret"}) as rex:
    print(rex.get("/is_alive").json())
    rex.post("/create_session", json={"session": "default"})
    print(rex.post("/run_in_session", json={"command": "cd /tmp && echo $PWD", "session": "default"}).json())
    print(rex.post("/execute", json={"command": ["ls", "/app"]}).json())
    rex.post("/write_file", json={"path": "/app/patch.diff", "content": "--- a\n+++ b\n"})
    print(rex.post("/read_file", json={"path": "/app/patch.diff"}).json())
server.should_exit = True
