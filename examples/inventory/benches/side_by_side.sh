#!/usr/bin/env bash
# Write throughput side by side with the Python original, in one run: the
# same load client (`load.py` of the frisian bench folder: pre-serialized
# JSON-RPC `tools/call` bodies over kept-alive HTTP/1.1, protocol
# 2025-06-18 with a session) against
#
#   1. frisian-mcp as shipped (Django + DRF under gunicorn, 1 worker,
#      1 thread; SQLite with Django's defaults: rollback journal);
#   2. frisian-mcp on SQLite in WAL mode with synchronous = NORMAL, as the
#      inventory runs (for fairness);
#   3. the inventory, release build, SQLite file.
#
# Each with 1 and 4 clients; a Markdown table of calls per second and the
# inventory's ratio to each frisian column comes last.
#
#   bash examples/inventory/benches/side_by_side.sh [FRISIAN_DIR]
#   INVENTORY_BIN=path/to/inventory bash examples/inventory/benches/side_by_side.sh
#
# FRISIAN_DIR is the bench folder (default: ../shared/bench/frisian beside
# the repository). It is copied to a scratch directory; nothing is written
# to it. Needs python3 (venv, pip) and network access to PyPI once.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
source "$repo/examples/inventory/benches/ports.sh"
source_dir=${1:-$repo/../shared/bench/frisian}
[[ -f $source_dir/load.py ]] || { echo "side_by_side: no load.py in $source_dir" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

cp -r "$source_dir" "$work/frisian"
chmod -R u+w "$work/frisian"
bench=$work/frisian
python3 -m venv "$bench/venv"
"$bench/venv/bin/pip" install --quiet --disable-pip-version-check -r "$bench/pip-freeze.txt"

# INVENTORY_BIN set by the caller measures that binary instead.
if [[ -z ${INVENTORY_BIN:-} ]]; then
    cargo build --release --quiet -p inventory --bin inventory --manifest-path "$repo/Cargo.toml"
    INVENTORY_BIN=$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/inventory
fi

# Django's settings for the WAL run: the shipped ones, with SQLite opened
# in WAL mode and synchronous = NORMAL on every connection.
cat >"$bench/project/anchor/settings_wal.py" <<'EOF'
from anchor.settings import *  # noqa: F401,F403

DATABASES["default"]["OPTIONS"] = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
EOF

# `frisian PORT SETTINGS`: a fresh database, migrated, served by gunicorn
# as start_servers.sh serves it (1 worker x 1 thread, gthread, keep-alive).
frisian() {
    local port=$1 settings=$2
    (
        cd "$bench/project"
        export ANCHOR_MODE=flat ANCHOR_DB="$work/frisian-$port.sqlite3" DJANGO_SETTINGS_MODULE=$settings
        ../venv/bin/python manage.py migrate -v0
        exec ../venv/bin/gunicorn anchor.wsgi:application --bind "127.0.0.1:$port" \
            --workers 1 --threads 1 --worker-class gthread --keep-alive 30 --timeout 120 \
            --error-logfile "$work/gunicorn-$port.log" --capture-output
    ) &
    pids+=($!)
    wait_for_port side_by_side "$port"
}

# `load TARGET PORT LABEL`: both series with 1 and with 4 clients, each
# line tagged with LABEL.
load() {
    local target=$1 port=$2 label=$3 clients
    for clients in 1 4; do
        "$bench/venv/bin/python" "$bench/load.py" --target "$target" --port "$port" --clients "$clients" |
            python3 -c 'import json, sys
for line in sys.stdin:
    row = json.loads(line); row["label"] = sys.argv[1]; print(json.dumps(row))' "$label" |
            tee -a "$work/results.jsonl" >&2
    done
}

frisian 8011 anchor.settings
load frisian 8011 frisian
frisian 8013 anchor.settings_wal
load frisian 8013 frisian-wal
"$INVENTORY_BIN" --http 127.0.0.1:8021 --db "$work/inventory.db" 2>"$work/inventory.log" &
pids+=($!)
wait_for_port side_by_side 8021
load light 8021 inventory

python3 - "$work/results.jsonl" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["errors"]:
        sys.exit(f"side_by_side: {r['label']} {r['series']} had {r['errors']} errors: {r['first_error']}")
    rows[(r["label"], r["series"], r["clients"])] = r["calls_per_s"]
names = {"single": "single create", "bulk": "60-device bulk create"}
print("| series | clients | frisian-mcp | frisian-mcp, WAL | inventory | vs frisian | vs frisian, WAL |")
print("|---|---:|---:|---:|---:|---:|---:|")
for series in ["single", "bulk"]:
    for clients in [1, 4]:
        f, w, i = (rows[(label, series, clients)] for label in ["frisian", "frisian-wal", "inventory"])
        print(f"| {names[series]} | {clients} | {f:,.1f} | {w:,.1f} | {i:,.1f} | {i / f:.1f}x | {i / w:.1f}x |")
print("\ncalls per second, one run; the load client's own time is in every figure")
EOF
