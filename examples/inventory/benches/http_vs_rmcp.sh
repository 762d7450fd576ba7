#!/usr/bin/env bash
# Requests per second of one trivial `tools/call` over Streamable HTTP,
# mcp-light against a plain rmcp server, side by side in one run: the
# `http_add` example (`--light`: an mcp-light `#[mcp_tool]` behind
# `Server::serve_http_with`; `--rmcp`: rmcp's `#[tool]` router behind its
# stateless `StreamableHttpService` in axum), each driven by the same `wrk`
# load (2 threads, 50 kept-alive connections) sending the same
# self-contained 2026-07-28 `tools/call` of `add` with `{"a":2,"b":40}`.
#
#   bash examples/inventory/benches/http_vs_rmcp.sh
#   ROUNDS=2 DURATION=3 bash examples/inventory/benches/http_vs_rmcp.sh
#   HTTP_ADD_BIN=path/to/http_add bash examples/inventory/benches/http_vs_rmcp.sh
#
# ROUNDS (default 6) rounds, each starting every server afresh on a free
# loopback port, the first one alternating from round to round; DURATION
# (default 5) seconds of measured load after WARMUP (default 1) seconds of
# unmeasured load. Prints a Markdown table of requests per second and
# mcp-light's ratio to rmcp, the ratio's range and median, and each
# server's peak resident memory (VmHWM). Fails if any request was answered
# with an error status (wrk counts 4xx and 5xx) or any socket error
# occurred. Installs wrk with apt-get when missing (as root).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${ROUNDS:-6}
duration=${DURATION:-5}
warmup=${WARMUP:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "http_vs_rmcp: ROUNDS must be a positive integer" >&2; exit 2; }
[[ $duration =~ ^[1-9][0-9]*$ ]] || { echo "http_vs_rmcp: DURATION must be a positive integer" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+$ ]] || { echo "http_vs_rmcp: WARMUP must be a non-negative integer" >&2; exit 2; }

if ! command -v wrk >/dev/null; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "http_vs_rmcp: wrk is missing; install it (apt-get install wrk) or run as root" >&2
        exit 2
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi

# shellcheck source=http_add.sh
source "$(dirname "$0")/http_add.sh"
http_add_bin http_vs_rmcp

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        sleep 0.5
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A request of protocol 2026-07-28 carries its version and capabilities in
# its `_meta` and repeats its method and tool name in headers: neither
# server needs an `initialize` or a session for it.
body=$add_call_body
headers=(
    -H 'Content-Type: application/json'
    -H 'Accept: application/json, text/event-stream'
    -H 'MCP-Protocol-Version: 2026-07-28'
    -H 'Mcp-Method: tools/call'
    -H 'Mcp-Name: add'
)
lua=$work/call.lua
cat >"$lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "add"
wrk.body = '$body'

-- One machine-readable line: requests, microseconds, then the errors
-- (connect, read, write, status >= 400, timeout).
function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("RESULT %d %d %d %d %d %d %d\n", summary.requests,
        summary.duration, e.connect, e.read, e.write, e.status, e.timeout))
end
EOF

# Starts `http_add --MODE` on a free port: sets server_pid and port.
start() {
    local mode=$1
    "$bin" "--$mode" >"$work/$mode.out" 2>"$work/$mode.err" &
    server_pid=$!
    port=
    for _ in $(seq 100); do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/$mode.out")
        [[ -n $port ]] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "http_vs_rmcp: $mode did not start listening:" >&2
    cat "$work/$mode.err" >&2
    exit 1
}

# Stops the running server with SIGTERM, as a deployment would.
stop() {
    local mode=$1
    kill -TERM "$server_pid"
    for _ in $(seq 100); do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
        echo "http_vs_rmcp: $mode ignored SIGTERM for 10 s; killed" >&2
        kill -KILL "$server_pid"
    fi
    wait "$server_pid" 2>/dev/null || true
    server_pid=
}

# CPU time the running server has used (user + system), in clock ticks.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$server_pid/stat"
}

# Peak resident memory of the running server, in kB.
peak_kb() {
    awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status"
}

# One load run against the running server: prints its requests per second
# and its number of requests; fails on any error.
load() {
    local mode=$1 seconds=$2 out
    out=$(timeout $((seconds + 30)) wrk -t2 -c50 -d"${seconds}s" -s "$lua" "http://127.0.0.1:$port/mcp") || {
        echo "http_vs_rmcp: wrk failed against $mode:" >&2
        echo "$out" >&2
        exit 1
    }
    local requests micros connect rd wr status timeouts
    read -r _ requests micros connect rd wr status timeouts < <(grep '^RESULT ' <<<"$out") || {
        echo "http_vs_rmcp: no result from wrk against $mode:" >&2
        echo "$out" >&2
        exit 1
    }
    if ((requests == 0 || status + connect + rd + wr + timeouts > 0)); then
        echo "http_vs_rmcp: $mode: $requests requests, $status answered 4xx/5xx," \
            "socket errors: connect $connect, read $rd, write $wr, timeout $timeouts" >&2
        echo "$out" >&2
        exit 1
    fi
    awk -v r="$requests" -v us="$micros" 'BEGIN { printf "%.0f %d\n", r / (us / 1e6), r }'
}

# Each server answers the call with the sum, as a success, before any load.
for mode in light rmcp; do
    start "$mode"
    answer=$(curl -sS --fail --max-time 5 "${headers[@]}" -d "$body" "http://127.0.0.1:$port/mcp") || {
        echo "http_vs_rmcp: $mode refused the call: $answer" >&2
        exit 1
    }
    if ! grep -q '"text":"42"' <<<"$answer" || ! grep -q '"isError":false' <<<"$answer"; then
        echo "http_vs_rmcp: $mode did not answer 42: $answer" >&2
        exit 1
    fi
    echo "$mode answers: $answer" >&2
    stop "$mode"
done

declare -A rps cpu peak=([light]=0 [rmcp]=0)
hz=$(getconf CLK_TCK)
ratios=()
rows=
for round in $(seq "$rounds"); do
    if ((round % 2)); then order=(light rmcp); else order=(rmcp light); fi
    for mode in "${order[@]}"; do
        start "$mode"
        if ((warmup > 0)); then
            load "$mode" "$warmup" >/dev/null
        fi
        ticks=$(cpu_ticks)
        out=$(load "$mode" "$duration")
        read -r rps[$mode] requests <<<"$out"
        cpu_us=$(awk -v t="$(($(cpu_ticks) - ticks))" -v hz="$hz" -v n="$requests" \
            'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
        cpu[$mode]+="$cpu_us "
        kb=$(peak_kb)
        if ((kb > peak[$mode])); then peak[$mode]=$kb; fi
        stop "$mode"
        echo "round $round: $mode ${rps[$mode]} req/s, $cpu_us µs of server CPU per call, VmHWM $kb kB" >&2
    done
    ratio=$(awk -v l="${rps[light]}" -v r="${rps[rmcp]}" 'BEGIN { printf "%.3f", l / r }')
    ratios+=("$ratio")
    rows+="| $round | ${rps[light]} | ${rps[rmcp]} | $ratio |"$'\n'
done

echo
echo "wrk -t2 -c50 -d${duration}s, ${rounds} rounds (first server alternating), $(nproc) cores"
echo
echo "| round | mcp-light req/s | rmcp req/s | ratio |"
echo "|---:|---:|---:|---:|"
printf '%s' "$rows"
echo
# The median of the numbers on stdin, one a line, printed with FORMAT.
median() {
    sort -n | awk -v format="${1:-%.3f}" \
        '{ v[NR] = $1 } END { printf format, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
sorted=$(printf '%s\n' "${ratios[@]}" | sort -n)
echo "ratio (mcp-light / rmcp): min–max $(head -1 <<<"$sorted")–$(tail -1 <<<"$sorted")," \
    "median $(median <<<"$sorted")"
awk -v l="${peak[light]}" -v r="${peak[rmcp]}" \
    'BEGIN { printf "peak resident memory (max VmHWM): mcp-light %.1f MiB, rmcp %.1f MiB\n", l / 1024, r / 1024 }'
# Server CPU per call, less disturbed than requests per second by other
# load on the machine (not immune: caches and clock rate are shared).
# shellcheck disable=SC2086 # the lists are words
echo "server CPU per call (median over rounds): mcp-light $(printf '%s\n' ${cpu[light]} | median %.1f) µs," \
    "rmcp $(printf '%s\n' ${cpu[rmcp]} | median %.1f) µs"
