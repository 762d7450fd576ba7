# Sourced by http_vs_rmcp.sh and http_instructions.sh, which measure the
# `http_add` example (`--light`, `--rmcp`) with the same request.

# The request both send: a self-contained 2026-07-28 `tools/call` of `add`,
# its protocol version and capabilities in its `_meta` (no `initialize`, no
# session).
add_call_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'

# Sets `bin` to the `http_add` binary to measure: HTTP_ADD_BIN when the
# caller sets it, else a release build of the example in the workspace at
# `$repo`. `$1` names the script in its errors.
http_add_bin() {
    bin=${HTTP_ADD_BIN:-}
    if [[ -z $bin ]]; then
        cargo build --release --quiet -p inventory --features bench-tools --example http_add --manifest-path "$repo/Cargo.toml"
        local target
        target=$(cargo metadata --no-deps --format-version 1 --manifest-path "$repo/Cargo.toml" |
            grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
        bin=$target/release/examples/http_add
    fi
    [[ -x $bin ]] || { echo "$1: no $bin after the build" >&2; exit 1; }
}
