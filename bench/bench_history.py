#!/usr/bin/env python3
"""Time of `opsweep diff` and of rendering the history page, on kornia-sized snapshots.

    python3 bench/bench_history.py [--binary build/tests/opsweep] [--repeat 7] [--base snapshots/kornia/snapshot.json]
                                   [--snapshots DIR/torch-*/snapshot.json ...]

Without --snapshots, three releases are made from the base (the committed kornia survey: 2,028
records x 3 paths): the base itself as torch 2.13.0, and two variants with outcomes flipped
(tests/fixtures/history/variants.py `flipped`: 8% of them for "2.9.1", 5% for "2.15.0"; made-up
statuses, for timing only). With --snapshots, the real matrix snapshots are used instead.

Measures, each as the median of --repeat runs (wall seconds, and the child's CPU seconds, which
other load on the machine disturbs less): `opsweep diff` in each format between two releases, the
single-snapshot page, and the history page of all three (`render ... -o DIR`, all three formats).
Prints a JSON summary; the figures go to docs/performance.md by hand. Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "history"))
import variants  # noqa: E402


def timed(cmd, expect=(0,)):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in expect:
        sys.exit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout


def measure(cmd, repeat, expect=(0,)):
    walls, cpus, out = [], [], ""
    for _ in range(repeat):
        wall, cpu, out = timed(cmd, expect)
        walls.append(wall)
        cpus.append(cpu)
    return {"wall_s": round(statistics.median(walls), 3), "cpu_s": round(statistics.median(cpus), 3),
            "wall_max_s": round(max(walls), 3)}, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.environ.get("OPSWEEP_BINARY", ROOT / "build" / "tests" / "opsweep"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--base", default=variants.KORNIA)
    ap.add_argument("--snapshots", nargs="*", help="real snapshots of one library under several torch releases")
    args = ap.parse_args()
    binary = str(args.binary)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        if args.snapshots:
            snaps = [pathlib.Path(s) for s in args.snapshots]
            made_up = False
        else:
            base = variants.load(args.base)
            snaps = [variants.write(variants.flipped(base, "2.9.1+cu128", "2026-11-20", seed=1, fraction=0.08),
                                    tmp / "torch-2.9.1" / "snapshot.json"),
                     variants.write(base, tmp / "torch-2.13.0" / "snapshot.json"),
                     variants.write(variants.flipped(base, "2.15.0", "2026-12-01", seed=2, fraction=0.05),
                                    tmp / "torch-2.15.0" / "snapshot.json")]
            made_up = True
        records = [len(json.loads(s.read_text())["records"]) for s in snaps]
        result = {"binary": binary, "repeat": args.repeat, "made_up_variants": made_up, "records": records,
                  "snapshot_mb": [round(s.stat().st_size / 1e6, 2) for s in snaps]}
        old, new = snaps[-2], snaps[-1]
        _, _, js = timed([binary, "diff", old, new, "--format", "json"], expect=(0, 1))
        result["diff_counts"] = json.loads(js)["counts"]
        for fmt in ("text", "md", "json"):
            result[f"diff_{fmt}"], out = measure([binary, "diff", old, new, "--format", fmt], args.repeat, expect=(0, 1))
            result[f"diff_{fmt}"]["output_kb"] = round(len(out.encode()) / 1024, 1)
        out_dir = tmp / "page-one"
        result["render_single"], _ = measure([binary, "render", new, "-o", out_dir], args.repeat)
        out_dir = tmp / "page-history"
        result["render_history"], _ = measure([binary, "render", *snaps, "-o", out_dir], args.repeat)
        result["history_html_mb"] = round((out_dir / "index.html").stat().st_size / 1e6, 2)
        result["single_html_mb"] = round((tmp / "page-one" / "index.html").stat().st_size / 1e6, 2)
        print(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
