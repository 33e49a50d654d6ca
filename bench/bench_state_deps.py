#!/usr/bin/env python3
"""Hidden dependencies through module state (docs/formats.md 3.1 item 3; docs/performance.md,
"Module state: readers only"): how many library functions a job's ``record.deps`` lists once earlier
jobs in the same worker filled kornia's module-level caches, under this checkout's harness and under
another one (an older commit's ``python/``, for the rule before 2026-12-05).

    python3 bench/bench_state_deps.py                        # this checkout's harness
    python3 bench/bench_state_deps.py --harness /tmp/old/python --json out.json
    python3 bench/bench_state_deps.py --compare OLD.json NEW.json   # the table for the docs

One process, the worker's own loading (every bundled kornia registry) and ``run_job``, jobs in a
fixed order: ``utils.create_meshgrid`` (export) in a fresh worker; the two jobs that fill caches
(``JPEGCodecDifferentiable`` fills the DCT and quantisation caches of kornia/enhance/jpeg.py,
``RANSAC[homography][prosac]`` the lru_cache of kornia/geometry/ransac.py), each followed by
``utils.create_meshgrid`` again; then a fixed sample of cases (every Nth by name, export path):
how many of them list ``kornia/filters/gaussian.py:gaussian_blur2d`` (the JPEG codec blurs its
chroma, so the old rule handed it to every later job whose import closure held jpeg.py), and how
many of those entered it themselves (a plain ``sys.settrace`` tracer over the eager call, no
opsweep code involved). Not a timed test: it counts.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = "kornia/filters/gaussian.py:gaussian_blur2d"
PROBE = "utils.create_meshgrid"
FILLERS = [("JPEGCodecDifferentiable", "export"), ("RANSAC[homography][prosac]", "onnx")]


def eager_enters(case, qualname: str, filename_end: str) -> bool:
    """Whether the case's eager call enters the function (a plain tracer, no opsweep code)."""
    from opsweep.job import make_module, seed_everything
    from opsweep.case import materialize
    import torch

    hit = []

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_name == qualname and frame.f_code.co_filename.endswith(filename_end):
            hit.append(1)
        return None

    ready = materialize(case)
    module = make_module(ready, flat_outputs=False)
    seed_everything(0)
    sys.settrace(tracer)
    try:
        with torch.no_grad():
            module(*ready.inputs)
    except Exception:  # noqa: BLE001 - a case whose eager call fails enters what it entered
        pass
    finally:
        sys.settrace(None)
    return bool(hit)


def measure(harness: str, every: int) -> dict:
    sys.path.insert(0, harness)
    import argparse as ap

    from opsweep import job, worker
    from opsweep.deps import filesystem_now_ns

    registries = sorted(glob.glob(os.path.join(harness, "opsweep", "registries", "kornia", "cases_*.py")))
    t0 = time.perf_counter()
    loaded = worker.load(ap.Namespace(registry=registries, opsets=None, library=None, index_cache=None),
                         filesystem_now_ns())
    load_s = time.perf_counter() - t0
    cases = {lc.case.name: lc.case for lc in loaded.cases}

    def run(name: str, path: str) -> dict:
        r = job.run_job(cases[name], path, library=loaded.library, threads=1, tracker=loaded.tracker)
        fns = sorted((r.get("deps") or {}).get("functions") or {})
        return {"case": name, "path": path, "status": r["status"], "functions": len(fns),
                "lists_target": TARGET in fns, "deps_known": r.get("deps") is not None}

    sequence = [run(PROBE, "export")]
    for name, path in FILLERS:
        sequence.append(run(name, path))
        sequence.append(run(PROBE, "export"))
    names = sorted(n for n in cases if n != PROBE and n not in dict(FILLERS))
    sample = names[::every]
    rows = []
    for name in sample:
        row = run(name, "export")
        row["eager_enters"] = eager_enters(cases[name], "gaussian_blur2d", "filters/gaussian.py")
        rows.append(row)
    return {"harness": harness, "load_s": round(load_s, 1), "sequence": sequence, "sample_every": every,
            "sample": rows,
            "sample_listing_target": sum(r["lists_target"] for r in rows),
            "sample_entering_target": sum(r["eager_enters"] for r in rows),
            "sample_listing_without_entering": sorted(r["case"] for r in rows if r["lists_target"] and not r["eager_enters"]),
            "sample_entering_not_listing": sorted(r["case"] for r in rows if r["eager_enters"] and not r["lists_target"]),
            "sample_mean_functions": round(sum(r["functions"] for r in rows) / max(1, len(rows)), 1)}


def compare(old_path: str, new_path: str) -> str:
    old, new = (json.load(open(p)) for p in (old_path, new_path))
    out = ["| step (one worker, in order) | functions listed, old rule | new rule |", "| --- | ---: | ---: |"]
    for a, b in zip(old["sequence"], new["sequence"]):
        out.append(f"| `{a['case']}` ({a['path']}) | {a['functions']} | {b['functions']} |")
    n = len(new["sample"])
    out.append("")
    out.append(f"Sample of {n} cases (every {new['sample_every']}th by name, export, after the two fillers):")
    out.append("")
    out.append("| | old rule | new rule |")
    out.append("| --- | ---: | ---: |")
    out.append(f"| records listing `gaussian_blur2d` | {old['sample_listing_target']} | {new['sample_listing_target']} |")
    out.append(f"| of which the eager call enters it (plain tracer) | {old['sample_entering_target']} | {new['sample_entering_target']} |")
    out.append(f"| listing it without entering it | {len(old['sample_listing_without_entering'])} | {len(new['sample_listing_without_entering'])} |")
    out.append(f"| entering it without listing it (unsound) | {len(old['sample_entering_not_listing'])} | {len(new['sample_entering_not_listing'])} |")
    out.append(f"| functions per record, mean | {old['sample_mean_functions']} | {new['sample_mean_functions']} |")
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--harness", default=os.path.join(ROOT, "python"), help="the python/ folder of the harness to measure")
    p.add_argument("--every", type=int, default=40, help="sample every Nth case by name (default 40)")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="print the table of two --json results")
    a = p.parse_args()
    if a.compare:
        print(compare(*a.compare))
        return 0
    res = measure(os.path.abspath(a.harness), a.every)
    text = json.dumps(res, indent=1)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    print(json.dumps({k: v for k, v in res.items() if k != "sample"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
