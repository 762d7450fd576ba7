# Sourced by side_by_side.sh and write_cpu.sh: the ports their servers
# listen on.

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# `wait_for_port SCRIPT PORT`: returns once something accepts on PORT, or
# exits naming SCRIPT after ten seconds.
wait_for_port() {
    for _ in $(seq 100); do
        if python3 -c "import socket; socket.create_connection(('127.0.0.1', $2), 0.2)" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    echo "$1: nothing listens on port $2" >&2
    exit 1
}
