#!/usr/bin/env bash
# The gateway in front of real MCP servers from npm (the reference
# filesystem and memory servers, pinned), driven by the official Python MCP
# client. Installs Node 22 and the servers with npm into a scratch folder
# ($GATEWAY_NPM_DIR, default target/gateway-npm), reused by later runs, and
# the client into mcp-light-gateway/tests/python/.venv. Run from anywhere.
#
# Without npm it says so and stops with success, unless CI=true: there a
# missing npm fails the run.
set -euo pipefail
cd "$(dirname "$0")/../../.."

NODE_MAJOR=22
FILESYSTEM_VERSION=2026.8.31
MEMORY_VERSION=2026.8.31

if ! command -v npm >/dev/null; then
    if [[ ${CI:-} == true ]]; then
        echo "gateway: npm is needed to install Node $NODE_MAJOR and the servers" >&2
        exit 1
    fi
    echo "gateway: SKIPPED: npm is not installed; the real-server tests need it" >&2
    exit 0
fi

CARGO_TARGET_DIR=$(realpath -m "${CARGO_TARGET_DIR:-target}")
scratch=$(realpath -m "${GATEWAY_NPM_DIR:-$CARGO_TARGET_DIR/gateway-npm}")
modules=$scratch/node_modules

installed() {
    local manifest=$modules/$1/package.json
    [[ -f $manifest ]] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

if [[ $(installed node) != "$NODE_MAJOR".* ||
    $(installed @modelcontextprotocol/server-filesystem) != "$FILESYSTEM_VERSION" ||
    $(installed @modelcontextprotocol/server-memory) != "$MEMORY_VERSION" ]]; then
    mkdir -p "$scratch"
    [[ -f $scratch/package.json ]] || echo '{"private": true}' >"$scratch/package.json"
    npm install --prefix "$scratch" --no-audit --no-fund --loglevel=error "node@$NODE_MAJOR" \
        "@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" \
        "@modelcontextprotocol/server-memory@$MEMORY_VERSION" >/dev/null
fi
export GATEWAY_NODE=$modules/node/bin/node
export SERVER_FILESYSTEM=$modules/@modelcontextprotocol/server-filesystem/dist/index.js
export SERVER_MEMORY=$modules/@modelcontextprotocol/server-memory/dist/index.js
for file in "$GATEWAY_NODE" "$SERVER_FILESYSTEM" "$SERVER_MEMORY"; do
    [[ -e $file ]] || { echo "gateway: the npm install left no $file" >&2; exit 1; }
done

venv=mcp-light-gateway/tests/python/.venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
# The same client, pinned, as the inventory's real-client tests.
"$venv/bin/pip" install --quiet --disable-pip-version-check -r examples/inventory/tests/python/requirements.txt

cargo build -p mcp-light-gateway --quiet
export GATEWAY_BIN=${GATEWAY_BIN:-$CARGO_TARGET_DIR/debug/mcp-light-gateway}
"$venv/bin/python" -m pytest -q mcp-light-gateway/tests/python "$@"
