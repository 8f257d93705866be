#!/usr/bin/env bash
# AgentWorldBench end to end, offline: a tiny synthetic dataset, the embedded offline world as the
# world model under test, and a scripted judge. Runs in a few seconds with no model and no network.
#
#   bash examples/bench/run.sh [OUTPUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-bench-example}"

# the bundled dataset (made with `agentworld bench sample examples/bench/data --episodes 2`)
data="$here/data"
agentworld bench run --data-dir "$data" --output-dir "$out/results" \
  --backend offline --judge-backend "scenario:$here/judge.yaml" \
  --report "$out/results/report.md" --plot "$out/results/scores.png" --reference
# rerunning is free: every record is already done
agentworld bench run --data-dir "$data" --output-dir "$out/results" \
  --backend offline --judge-backend "scenario:$here/judge.yaml" --no-progress > /dev/null
echo "report: $out/results/report.md, plot: $out/results/scores.png"
