#!/usr/bin/env bash
# A user's first build, side by side: the seven-tool fleet server written on
# rmcp alone (examples/fleet-rmcp) and the same server moved to mcp-light by
# its attributes (examples/fleet), each copied out of the workspace as a
# user's own crate and built cold (debug, an empty target directory) one
# after the other, with the registry warm. The mcp-light server is built
# twice: with mcp-light's default features (stdio), and with
# `features = ["http"]` as well, what a server on Streamable HTTP adds.
# Prints a Markdown table: the wall time of each build, the crates it
# compiled, and each build's time over rmcp's.
#
#   bash examples/fleet/first-build.sh            # one round
#   ROUNDS=3 bash examples/fleet/first-build.sh   # the median of three
#
# Run it on a quiet machine: every other build running beside it is in the
# figures. The crates are resolved against the workspace's Cargo.lock, so
# every round builds the same versions.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
rounds=${ROUNDS:-1}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# `user_crate NAME FROM MCP_LIGHT`: a crate named NAME in the scratch
# folder with FROM's sources (`src/`), its dependencies FROM's (versions
# pinned by the workspace's lockfile), and mcp-light, when MCP_LIGHT names
# its features (`default`, or features added to them), from this checkout.
user_crate() {
    local name=$1 from=$2 mcp_light=$3 dir=$scratch/$1
    mkdir -p "$dir"
    cp -r "$root/$from/src" "$dir/src"
    cp "$root/Cargo.lock" "$dir/Cargo.lock"
    {
        printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\n\n' "$name"
        printf '[[bin]]\nname = "%s"\npath = "src/main.rs"\n\n' "$name"
        printf '[lib]\nname = "%s"\npath = "src/lib.rs"\n\n' "$(basename "$from" | tr - _)"
        printf '[dependencies]\n'
        printf 'rmcp = { version = "=%s", features = ["macros", "transport-io"] }\n' "$(version rmcp)"
        printf 'serde = { version = "1", features = ["derive"] }\n'
        printf 'serde_json = "1"\n'
        printf 'schemars = "1"\n'
        printf 'tokio = { version = "1", features = ["rt-multi-thread", "macros", "io-std"] }\n'
        case $mcp_light in
            none) ;;
            default) printf 'mcp-light = { path = "%s/mcp-light" }\n' "$root" ;;
            *) printf 'mcp-light = { path = "%s/mcp-light", features = [%s] }\n' "$root" "$mcp_light" ;;
        esac
        printf '\n[workspace]\n'
    } >"$dir/Cargo.toml"
}

# The version of the package NAME the workspace's lockfile pins.
version() {
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' \
        "$root/Cargo.lock"
}

# `build NAME`: builds the crate NAME cold; prints `SECONDS CRATES`.
build() {
    local dir=$scratch/$1 target=$scratch/target-$1 start end crates
    rm -rf "$target"
    start=$(date +%s.%N)
    crates=$(cd "$dir" && CARGO_TARGET_DIR=$target cargo build --quiet --message-format=json 2>/dev/null |
        grep -c '"reason":"compiler-artifact"')
    end=$(date +%s.%N)
    awk -v start="$start" -v end="$end" -v crates="$crates" 'BEGIN { printf "%.1f %s\n", end - start, crates }'
}

user_crate fleet-rmcp examples/fleet-rmcp none
user_crate fleet-default examples/fleet default
user_crate fleet-http examples/fleet '"http"'
# The registry warm: every crate downloaded before anything is timed.
for crate in fleet-rmcp fleet-default fleet-http; do
    (cd "$scratch/$crate" && cargo fetch --quiet)
done

declare -A times crates
for _ in $(seq "$rounds"); do
    for crate in fleet-rmcp fleet-default fleet-http; do
        read -r seconds count < <(build "$crate")
        times[$crate]+="$seconds "
        crates[$crate]=$count
    done
done

# The median of a list of numbers.
median() {
    tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

rmcp=$(median "${times[fleet-rmcp]}")
echo "| the fleet server on | cold build | crates compiled | vs rmcp alone |"
echo "|---|---:|---:|---:|"
for crate in fleet-rmcp fleet-default fleet-http; do
    case $crate in
        fleet-rmcp) label="rmcp alone" ;;
        fleet-default) label="mcp-light, default features (stdio)" ;;
        fleet-http) label='mcp-light, `features = ["http"]` (stdio and Streamable HTTP)' ;;
    esac
    seconds=$(median "${times[$crate]}")
    awk -v label="$label" -v seconds="$seconds" -v crates="${crates[$crate]}" -v rmcp="$rmcp" \
        'BEGIN { printf "| %s | %.0f s | %s | %.2f× |\n", label, seconds, crates, seconds / rmcp }'
done
echo
echo "($rounds round(s), the median; $(nproc) cores; rustc $(rustc --version | cut -d' ' -f2))"
