#!/usr/bin/env bash
# The write path's CPU side by side with the Python original, in one run:
# the server's own CPU per call (utime + stime of the server process and
# its children, read from /proc around the measured calls, so the load
# client's cost drops out), for single creates and 60-device bulk creates
# made by the same client (`write_cpu.py`, which drives `load.py` of the
# frisian bench folder), against
#
#   1. frisian-mcp as shipped (Django + DRF under gunicorn, 1 worker,
#      1 thread) and the inventory (release build), each on a SQLite file;
#   2. both on PostgreSQL (frisian-mcp on Django's PostgreSQL backend,
#      `ANCHOR_PG`; the inventory with `--db postgres://…`), each on a
#      database of its own in one cluster this script starts (initdb and
#      pg_ctl from /usr/lib/postgresql/*/bin, on a free port, as the
#      postgres user when run as root). Skipped when PostgreSQL is missing.
#
#   bash examples/inventory/benches/write_cpu.sh [FRISIAN_DIR]
#   INVENTORY_BIN=path/to/inventory bash examples/inventory/benches/write_cpu.sh
#   INVENTORY_BEFORE=path/to/an/earlier/inventory bash examples/inventory/benches/write_cpu.sh
#
# INVENTORY_BEFORE (optional) is measured too, beside the build, in a
# column of its own: a change's effect in the same run.
#
# FRISIAN_DIR is the bench folder (default: ../shared/bench/frisian beside
# the repository). It is copied to a scratch directory; nothing is written
# to it. Needs python3 (venv, pip) and PyPI once. The PostgreSQL server's
# own CPU is in neither side's figure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
source "$repo/examples/inventory/benches/ports.sh"
source_dir=${1:-$repo/../shared/bench/frisian}
[[ -f $source_dir/load.py ]] || { echo "write_cpu: no load.py in $source_dir" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
pids=()
pg_ctl=
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [[ -n $pg_ctl ]]; then as_postgres "$pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

as_postgres() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cp -r "$source_dir" "$work/frisian"
chmod -R u+w "$work/frisian"
bench=$work/frisian
python3 -m venv "$bench/venv"
"$bench/venv/bin/pip" install --quiet --disable-pip-version-check -r "$bench/pip-freeze.txt" -r "$bench/pip-postgres.txt"

if [[ -z ${INVENTORY_BIN:-} ]]; then
    cargo build --release --quiet -p inventory --features postgres --bin inventory --manifest-path "$repo/Cargo.toml"
    INVENTORY_BIN=$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/inventory
fi



# `measure TARGET PORT PID LABEL`: both series, one JSON line each.
measure() {
    "$bench/venv/bin/python" "$repo/examples/inventory/benches/write_cpu.py" --bench "$bench" \
        --target "$1" --port "$2" --pid "$3" --label "$4" | tee -a "$work/results.jsonl" >&2
}

# `frisian LABEL [ANCHOR_PG]`: a fresh database, migrated, served by
# gunicorn as start_servers.sh serves it, measured, stopped.
frisian() {
    local label=$1 pg=${2:-} port
    port=$(free_port)
    (
        cd "$bench/project"
        export ANCHOR_MODE=flat ANCHOR_DB="$work/frisian-$label.sqlite3"
        [[ -z $pg ]] || export ANCHOR_PG=$pg
        ../venv/bin/python manage.py migrate -v0
        exec ../venv/bin/gunicorn anchor.wsgi:application --bind "127.0.0.1:$port" \
            --workers 1 --threads 1 --worker-class gthread --keep-alive 30 --timeout 120 \
            --error-logfile "$work/gunicorn-$label.log" --capture-output
    ) &
    local pid=$!
    pids+=("$pid")
    wait_for_port write_cpu "$port"
    measure frisian "$port" "$pid" "$label"
    kill "$pid"
}

# `inventory LABEL DB [BINARY]`: the inventory on DB, measured, stopped.
inventory() {
    local label=$1 db=$2 binary=${3:-$INVENTORY_BIN} port
    port=$(free_port)
    "$binary" --http "127.0.0.1:$port" --db "$db" 2>"$work/inventory-$label.log" &
    local pid=$!
    pids+=("$pid")
    wait_for_port write_cpu "$port"
    measure light "$port" "$pid" "$label"
    kill "$pid"
}

frisian frisian-sqlite
inventory inventory-sqlite "$work/inventory.db"
if [[ -n ${INVENTORY_BEFORE:-} ]]; then
    inventory before-sqlite "$work/before.db" "$INVENTORY_BEFORE"
fi

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -n $bin && -x $bin/initdb ]]; then
    pg_ctl=$bin/pg_ctl
    pg_port=$(free_port)
    mkdir "$work/pg"
    [[ $(id -u) -ne 0 ]] || chown postgres: "$work/pg"
    as_postgres "$bin/initdb" --auth=trust --username=postgres --encoding=UTF8 -D "$work/pg" >/dev/null
    as_postgres "$pg_ctl" -D "$work/pg" -w -l "$work/pg/log" \
        -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$work/pg" start >/dev/null
    for db in frisian inventory before; do
        "$bin/psql" -q -h 127.0.0.1 -p "$pg_port" -U postgres -c "CREATE DATABASE $db" postgres
    done
    frisian frisian-postgres "postgres://postgres@127.0.0.1:$pg_port/frisian"
    inventory inventory-postgres "postgres://postgres@127.0.0.1:$pg_port/inventory"
    if [[ -n ${INVENTORY_BEFORE:-} ]]; then
        inventory before-postgres "postgres://postgres@127.0.0.1:$pg_port/before" "$INVENTORY_BEFORE"
    fi
else
    echo "write_cpu: PostgreSQL is not installed (apt-get install postgresql); SQLite only" >&2
fi

python3 - "$work/results.jsonl" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["errors"]:
        sys.exit(f"write_cpu: {r['label']} {r['series']} had {r['errors']} errors")
    rows[(r["label"], r["series"])] = r
names = {"single": "single create", "bulk": "60-device bulk create"}
goals = {"single": 40, "bulk": 50}
before = any(label.startswith("before-") for label, _ in rows)
print("| database | per call (server CPU) | frisian-mcp |" + (" inventory before | ratio before |" if before else "")
      + " inventory | ratio | goal |")
print("|---|---|---:|" + ("---:|---:|" if before else "") + "---:|---:|---:|")
for db in ["sqlite", "postgres"]:
    for series in ["single", "bulk"]:
        f, i = rows.get((f"frisian-{db}", series)), rows.get((f"inventory-{db}", series))
        if not (f and i):
            continue
        ratio = f["cpu_ms"] / i["cpu_ms"]
        goal = goals[series]
        met = "met" if ratio >= goal else "not met"
        earlier = ""
        if before:
            b = rows[(f"before-{db}", series)]
            earlier = f" {b['cpu_ms']:.3f} ms | {f['cpu_ms'] / b['cpu_ms']:.1f}× |"
        print(f"| {'SQLite' if db == 'sqlite' else 'PostgreSQL'} | {names[series]} | "
              f"{f['cpu_ms']:.2f} ms |{earlier} {i['cpu_ms']:.3f} ms | **{ratio:.1f}×** | ≥ {goal}×: {met} |")
print("\nserver CPU per call (utime + stime from /proc), one client; the median of three rounds")
PY
