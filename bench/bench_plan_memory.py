#!/usr/bin/env python3
"""The engine's own peak memory while it plans a run over a large results database
(docs/performance.md, "Planning memory").

    python3 bench/bench_plan_memory.py --db .opsweep/kornia/results.db [--binary build/tests/opsweep]
        [--baseline OTHER_BINARY] [--runs 3] [--json out.json]

Each run is `opsweep run --paths onnx,export,compile --dry-run` on a private copy of the database
(SQLite's backup API: a database another run is writing stays untouched), so the engine loads
every stored result and decides every job, starts one worker for its inventory and index, and
writes nothing. The figure is the engine process's own peak resident size (VmHWM of its
/proc/PID/status, read until it exits), not its worker's. With --baseline, the other binary runs
the same plan in turn (A, B, A, B, ...), so the two are compared on one machine state. Not a
timed test: the output is printed (and written as JSON with --json).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def copy_db(src: str, dst: str) -> tuple[int, int]:
    """A consistent copy of ``src``; (results, bytes of their record text)."""
    with sqlite3.connect(f"file:{src}?mode=ro", uri=True) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    with sqlite3.connect(dst) as b:
        count, size = b.execute("select count(*), coalesce(sum(length(record_json)), 0) from results").fetchone()
    return count, size


def peak_rss_mib(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(peak RSS of the process itself in MiB, wall seconds, its last stderr line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_kib = 0
    status = f"/proc/{proc.pid}/status"
    while proc.poll() is None:
        try:
            with open(status, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    err = proc.stderr.read() if proc.stderr else ""
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip().splitlines()[-1:]}")
    lines = [line for line in err.splitlines() if line.strip()]
    return peak_kib / 1024.0, wall, lines[0] if lines else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the results database to plan over (copied first)")
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "tests", "opsweep"))
    ap.add_argument("--baseline", help="another opsweep binary to compare with")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--paths", default="onnx,export,compile")
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()

    env = dict(os.environ)
    env.setdefault("PYTHONPATH", os.path.join(REPO, "python"))
    env.setdefault("OPSWEEP_PYTHON", sys.executable)
    binaries = {"binary": args.binary}
    if args.baseline:
        binaries["baseline"] = args.baseline
    with tempfile.TemporaryDirectory(prefix="opsweep-plan-memory-") as tmp:
        db = os.path.join(tmp, "results.db")
        count, size = copy_db(args.db, db)
        figures: dict[str, list[float]] = {k: [] for k in binaries}
        walls: dict[str, list[float]] = {k: [] for k in binaries}
        plan_line = ""
        for _ in range(args.runs):
            for label, binary in binaries.items():
                cmd = [binary, "run", "--suite", "kornia", "--paths", args.paths, "--dry-run", "--db", db]
                peak, wall, first = peak_rss_mib(cmd, env)
                figures[label].append(peak)
                walls[label].append(wall)
                plan_line = plan_line or first
    out = {
        "results": count,
        "record_text_mb": round(size / 1e6, 1),
        "plan": plan_line,
        "peak_rss_mib": {k: {"median": round(statistics.median(v), 1), "min": round(min(v), 1), "max": round(max(v), 1)}
                         for k, v in figures.items()},
        "wall_s": {k: round(statistics.median(v), 2) for k, v in walls.items()},
    }
    print(f"{count:,} stored results, {out['record_text_mb']} MB of record text; {plan_line}")
    for label in binaries:
        p = out["peak_rss_mib"][label]
        print(f"{label:>9}: engine peak RSS median {p['median']} MiB (min {p['min']}, max {p['max']}), "
              f"wall {out['wall_s'][label]} s, {args.runs} runs")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
