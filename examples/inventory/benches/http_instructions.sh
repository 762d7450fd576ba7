#!/usr/bin/env bash
# Instructions per HTTP request, user space, mcp-light against a plain rmcp
# server: the `http_add` example (`--light`, `--rmcp`; see
# http_vs_rmcp.sh) runs under valgrind's callgrind, takes WARMUP (default
# 200) unmeasured requests, then REQUESTS (default 2000) sequential ones
# over one kept-alive connection (the same self-contained 2026-07-28
# `tools/call` of `add` as http_vs_rmcp.sh, from http_add.sh), counted between a zero and a
# dump of callgrind's counters. Instructions do not move with the
# machine's load, as requests per second do; they leave out the kernel
# and contention between threads, which callgrind serializes.
#
#   bash examples/inventory/benches/http_instructions.sh
#   REQUESTS=500 HTTP_ADD_BIN=path/to/http_add bash examples/inventory/benches/http_instructions.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
requests=${REQUESTS:-2000}
warmup=${WARMUP:-200}
[[ $requests =~ ^[1-9][0-9]*$ ]] || { echo "http_instructions: REQUESTS must be a positive integer" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+$ ]] || { echo "http_instructions: WARMUP must be a non-negative integer" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "http_instructions: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_control >/dev/null || { echo "http_instructions: callgrind_control (valgrind) is missing" >&2; exit 2; }

# shellcheck source=http_add.sh
source "$(dirname "$0")/http_add.sh"
http_add_bin http_instructions

work=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill -KILL "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Sends N requests of BODY over one kept-alive connection; fails on any
# answer that is not the sum.
cat >"$work/load.py" <<'PY'
import http.client, sys
port, n, body = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
for _ in range(n):
    connection.request("POST", "/mcp", body, headers)
    reply = connection.getresponse()
    answer = reply.read()
    if reply.status != 200 or b'"text":"42"' not in answer:
        sys.exit(f"http_instructions: the server answered {reply.status}: {answer[:300]!r}")
PY

# Instructions per request of `http_add --MODE`.
measure() {
    local mode=$1 port= dump
    valgrind --tool=callgrind --callgrind-out-file="$work/$mode.%p" "$bin" "--$mode" \
        >"$work/$mode.out" 2>"$work/$mode.err" &
    server_pid=$!
    for _ in $(seq 300); do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/$mode.out")
        [[ -n $port ]] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.2
    done
    [[ -n $port ]] || { echo "http_instructions: $mode did not start:" >&2; cat "$work/$mode.err" >&2; exit 1; }
    if ((warmup > 0)); then python3 "$work/load.py" "$port" "$warmup" "$add_call_body"; fi
    callgrind_control -z "$server_pid" >/dev/null
    python3 "$work/load.py" "$port" "$requests" "$add_call_body"
    callgrind_control -d "$server_pid" >/dev/null
    kill -TERM "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    # The dump made after zeroing: the file with the first part number.
    dump=$(ls "$work/$mode".*.1 2>/dev/null | head -1)
    [[ -n $dump ]] || { echo "http_instructions: no callgrind dump for $mode" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$dump"
}

light=$(measure light)
rmcp=$(measure rmcp)
echo
echo "callgrind, $requests sequential requests over one connection, after $warmup unmeasured"
echo
echo "| server | instructions per request | ratio |"
echo "|---|---:|---:|"
awk -v l="$light" -v r="$rmcp" -v n="$requests" 'BEGIN {
    printf "| rmcp `#[tool]`, stateless `StreamableHttpService` in axum | %d | 1.00× |\n", r / n
    printf "| mcp-light `#[mcp_tool]`, `Server::serve_http_with` | %d | %.2f× |\n", l / n, l / r
}'
