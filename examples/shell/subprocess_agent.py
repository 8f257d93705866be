"""An "agent" that runs commands the way Gemini CLI or mini-swe-agent do: subprocesses of `bash -c`
(PATH) and `subprocess.run(..., shell=True)`. With the shim first on PATH they are simulated.

    python examples/shell/subprocess_agent.py      # offline; installs the shim in a temp folder
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from agentworld_plugins.adapters.shell.daemon import stop
from agentworld_plugins.adapters.shell.shim import install

with tempfile.TemporaryDirectory() as tmp:
    install(os.path.join(tmp, "bin"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env.update(PATH=f"{tmp}/bin:{env['PATH']}", AGENTWORLD_HOME=f"{tmp}/home", AGENTWORLD_SESSION="agent")
    try:
        for command in [
            "ls -la",
            "echo 'def add(a, b): return a + b' > calc.py",
            "grep -n add calc.py",
            "cat nope.txt",
        ]:
            done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True)
            print(f"$ {command}  -> exit {done.returncode}\n{done.stdout}{done.stderr}")
        # shell=True runs /bin/sh, an absolute path: point it at the sh shim explicitly
        sh = shutil.which("sh", path=env["PATH"])
        done = subprocess.run(
            "wc -l calc.py", shell=True, executable=sh, env=env, capture_output=True, text=True
        )
        print(f"$ wc -l calc.py  (shell=True) -> {done.stdout.strip()}")
    finally:
        stop(f"{tmp}/home")
