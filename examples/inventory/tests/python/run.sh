#!/usr/bin/env bash
# Real-client tests: the inventory server driven by the official Python MCP
# SDK over stdio and Streamable HTTP. Run from anywhere; creates
# examples/inventory/tests/python/.venv on first use.
set -euo pipefail
cd "$(dirname "$0")/../../../.."

venv=examples/inventory/tests/python/.venv
if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r examples/inventory/tests/python/requirements.txt

# The binary cargo just built, wherever the target directory is
# (CARGO_TARGET_DIR included), with the deployment features the tests use
# (PostgreSQL, Redis, OAuth, the usage report, the Prometheus and OTLP
# exporters, JSON logs); INVENTORY_BIN set by the caller wins.
built=$(cargo build -p inventory --bin inventory \
    --features postgres,redis,oauth,usage,metrics,otlp,json-logs \
    --message-format=json-render-diagnostics |
    "$venv/bin/python" -c 'import json, sys
print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')
export INVENTORY_BIN=${INVENTORY_BIN:-$built}

"$venv/bin/python" -m pytest -q examples/inventory/tests/python "$@"
