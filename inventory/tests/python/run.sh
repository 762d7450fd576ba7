#!/usr/bin/env bash
# Real-client tests: the inventory example driven by the official Python MCP
# SDK over stdio and Streamable HTTP. Creates tests/python/.venv on first use.
set -euo pipefail
cd "$(dirname "$0")/../../.."

venv=inventory/tests/python/.venv
if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r inventory/tests/python/requirements.txt

cargo build -p inventory --bin inventory

"$venv/bin/python" -m pytest -q inventory/tests/python "$@"
