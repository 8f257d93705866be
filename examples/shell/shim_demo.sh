#!/usr/bin/env bash
# The bash shim: `bash -c` from PATH is simulated, across processes, in one session.
# Run: bash examples/shell/shim_demo.sh   (offline; nothing it "runs" touches this computer)
#
# Only the agent's environment should have the shim first on PATH: with it there, every
# `#!/usr/bin/env bash` script (some tool launchers are such scripts) is simulated too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export AGENTWORLD_HOME="$(mktemp -d)"
exports="$(agentworld shim env "$AGENTWORLD_HOME/shim" --session demo --state "$here/machine.yaml" 2>/dev/null)"

(
  eval "$exports"
  echo "== bash is now: $(command -v bash)"
  bash -c 'hostname; pwd; ls'
  bash -lc 'echo "print(\"hi\")" > hello.py && cat hello.py'
  sh -c 'cat hello.py; echo "sh says: $0"'
  printf 'cd tests\nls\nwc -l test_api.py\n' | bash
  bash -c 'rm -rf /srv/app && ls /srv; echo "(gone in the simulated machine only)"'
  bash --bogus 2>/dev/null || echo "bash --bogus exited $?"
)

agentworld shim stop >/dev/null
rm -rf "$AGENTWORLD_HOME"
