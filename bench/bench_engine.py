#!/usr/bin/env python3
"""Engine overhead per job: `opsweep run` over >= 10,000 no-op jobs answered by the fake worker.

    python3 bench/bench_engine.py [--binary build/h2/opsweep] [--cases 3400] [-j 1 2]

For each worker count: one run on a fresh database (every job runs), then the same command again
(every job is current, so it measures only startup: workers' hello + inventory, planning, the
database load). overhead ms/job = (wall_full - wall_startup) / jobs. This is an upper bound on the
engine's own cost: it includes the fake worker's JSON handling and the per-job database commit.
Not a timed test; results go to docs/performance.md by hand.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAKE = os.path.join(ROOT, "tests", "fake_workers", "fake_worker.py")


def timed(cmd, env, cwd):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return wall, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.environ.get("OPSWEEP_BINARY", os.path.join(ROOT, "build", "tests", "opsweep")))
    ap.add_argument("--cases", type=int, default=3400, help="cases; jobs = 3 x cases")
    ap.add_argument("-j", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    env = dict(os.environ, OPSWEEP_WORKER_CMD=f"{sys.executable} {FAKE}")
    with tempfile.TemporaryDirectory(prefix="opsweep-bench-") as tmp:
        reg = os.path.join(tmp, "reg.json")
        with open(reg, "w") as f:
            json.dump({"cases": [{"name": f"noop{i:05d}", "group": "bench", "do": "ok"} for i in range(args.cases)]}, f)
        jobs = 3 * args.cases
        print(f"{jobs} jobs, binary {args.binary}, {os.cpu_count()} CPUs")
        for j in args.j:
            db = os.path.join(tmp, f"j{j}.db")
            cmd = [args.binary, "run", "--cases", reg, "--db", db, "-j", str(j)]
            full, _ = timed(cmd, env, tmp)
            startup, _ = timed(cmd, env, tmp)
            per_job_ms = 1000 * (full - startup) / jobs
            print(f"-j {j}: wall {full:.2f} s, startup {startup:.2f} s, overhead {per_job_ms:.3f} ms/job, "
                  f"{jobs / (full - startup):.0f} jobs/s")


if __name__ == "__main__":
    main()
