#!/bin/sh
# Load test of the character page and API: see perf/loadtest/run.py and docs/PERFORMANCE.md, "Load test".
set -eu
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
exec .venv/bin/python perf/loadtest/run.py "$@"
