"""The server's CPU per write call: the same calls as `load.py` of the
frisian bench folder (its client, its devices), one kept-alive connection,
sequential, with the server's CPU time (utime + stime of its process and
every child, from /proc) read just before the first call and just after
the last. The client's own time is not in the figure, nor is generating the
bodies or the session's handshake.

    write_cpu.py --bench FRISIAN_DIR --target frisian|light --port PORT --pid PID --label LABEL

Prints one JSON line per series: `single` (SINGLES single creates) and
`bulk` (BULKS creates of 60 devices), each after a warm-up of a tenth as
many calls, measured ROUNDS times on the same server: the line gives the
median round (this machine is shared, and one round can catch another
program's burst) and every round's figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

SINGLES = 1000
BULKS = 200
ROUNDS = 3


def cpu_seconds(root: int) -> float:
    """utime + stime of `root` and its descendants, in seconds."""
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(fields[1])
        times[pid] = int(fields[11]) + int(fields[12])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--target", choices=["frisian", "light"], required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--label", required=True)
    a = ap.parse_args()
    sys.path.insert(0, a.bench)
    import load  # the bench folder's client: its connection, its calls
    from devgen import DeviceGen

    if a.target == "light":
        setup = load.Conn(a.port, "/mcp")
        setup.init()
        for slug in load.SITES:
            setup.post({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {
                "name": "site_create", "arguments": {"site": {"name": slug, "slug": slug}}}})
    path = "/mcp" if a.target == "light" else "/mcp/"
    for kind, count in [("single", SINGLES), ("bulk", BULKS)]:
        conn = load.Conn(a.port, path)
        conn.init()
        gen = DeviceGen(f"{a.label}{kind}{int(time.time() * 1000) % 10**8}", seed=7)
        bodies = [{"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                   "params": load.call(a.target, kind, gen, 60)}
                  for _ in range(count // 10 + ROUNDS * count)]
        for body in bodies[: count // 10]:
            conn.post(body)
        errors, rounds = 0, []
        for r in range(ROUNDS):
            start = count // 10 + r * count
            cpu = cpu_seconds(a.pid)
            started = time.perf_counter()
            for body in bodies[start:start + count]:
                status, answer = conn.post(body)
                if (status != 200 or answer is None or "error" in answer
                        or answer["result"].get("isError")):
                    errors += 1
                    if errors == 1:
                        print(f"write_cpu: {a.label} {kind}: {str(answer)[:300]}", file=sys.stderr)
            wall = time.perf_counter() - started
            cpu = cpu_seconds(a.pid) - cpu
            rounds.append((cpu / count * 1000, wall / count * 1000))
        cpu_ms, wall_ms = sorted(rounds)[ROUNDS // 2]
        print(json.dumps({"label": a.label, "series": kind, "calls": count, "errors": errors,
                          "cpu_ms": round(cpu_ms, 4), "wall_ms": round(wall_ms, 4),
                          "rounds_cpu_ms": [round(c, 4) for c, _ in rounds]}), flush=True)


if __name__ == "__main__":
    main()
