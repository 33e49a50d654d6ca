#!/usr/bin/env python3
"""Extra time of the onnx path's other runtimes (OpenVINO, tract, onnx.reference) per job.

    PYTHONPATH=python python3 bench/bench_runtimes.py [--threads 1] [--repeat 2] [--json FILE] [--opsets 17,25] [CASE ...]

Runs ``run_job`` directly (one process, like a warm worker) on a sample of bundled kornia cases,
onnx path, each case without the extra runtimes and with them: after one warm-up job of the case
(its first job pays for first calls), --repeat jobs of each kind, alternating, the fastest of each
kind kept; before all of it one warm-up job of each kind (torch.onnx's first export and the
runtime host's start are paid once per worker, not per job). Prints one line per case (seconds without / with, each runtime's own seconds) and the
medians, the ratio of the medians, the median per-case ratio and the ratio of the sums. Not a
timed test; the figures go to docs/runtimes.md by hand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from _kornia_cases import named_cases

# Varied on purpose: every package of the survey, small and large graphs, convolutions (slow in the
# reference evaluator), random cases, and two that fail at export (no file: nothing extra runs).
SAMPLE = [
    "RandomPlanckianJitter[random]", "RandomRotation3D", "NormalsToRgb255", "rgba_to_rgb[background=tuple]",
    "extract_tensor_patches[auto_padding]", "core.ImageModule", "AdjustLog", "AdjustBrightness[factor=tensor]",
    "DISK", "LAFAffineShapeEstimator", "spatial_gradient[normalized=False]", "bilateral_blur", "remap[border]",
    "draw_rectangle[line_width=3]", "geman_mcclure_loss", "TotalVariation", "confusion_matrix", "MobileViT",
    "erosion[5x5]", "CameraModel[brown_conrady,project]", "utils.create_meshgrid3d", "gaussian_blur2d",
    "ColorJiggleGenerator", "crop_by_boxes[resize]", "RainGenerator",
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", help="case names (default: the built-in sample)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2, help="jobs of each kind per case (the fastest is kept)")
    ap.add_argument("--json", default="", help="also write every case's sub-verdicts to this file")
    ap.add_argument("--opsets", default="", help="also request these opsets in the jobs with sub-verdicts (e.g. 17,25)")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from opsweep import runtimes
    from opsweep.job import run_job
    from opsweep.library import load_library

    names = args.cases or SAMPLE
    by_name = named_cases(names)
    if by_name is None:
        return 2
    library = load_library("kornia")
    everything = runtimes.RUNTIMES

    from opsweep.runtimes import opsets

    chosen = (opsets.OPSET,)
    if args.opsets:
        parsed, problem = opsets.parse_opsets(args.opsets)
        if parsed is None:
            print(problem, file=sys.stderr)
            return 2
        chosen = parsed

    def job(name: str, with_runtimes: bool) -> dict:
        runtimes.set_enabled(everything if with_runtimes else ())
        opsets.set_requested(chosen if with_runtimes else (opsets.OPSET,))
        t0 = time.perf_counter()
        record = run_job(by_name[name], "onnx", library=library, threads=args.threads)
        record["_wall"] = time.perf_counter() - t0
        return record

    job(names[0], False)  # warm-up: first export, torchlib cache
    job(names[0], True)  # warm-up: the runtime host starts and imports the runtimes
    rows = []
    dumped: dict = {}
    for i, name in enumerate(names):
        # The first job of a case pays for first calls (tracing caches, lazy imports of the library):
        # one warm-up job, then both kinds alternately, the fastest of each kind kept.
        job(name, False)
        runs: dict[bool, list[dict]] = {False: [], True: []}
        for r in range(args.repeat):
            for flag in ((False, True) if (i + r) % 2 == 0 else (True, False)):
                runs[flag].append(job(name, flag))
        base = min(runs[False], key=lambda rec: rec["_wall"])
        full = min(runs[True], key=lambda rec: rec["_wall"])
        subs = full["subverdicts"]
        per = {k: v["timings"]["total_s"] for k, v in subs.items()}
        rows.append((name, base["_wall"], full["_wall"], base["status"], per,
                     {k: v["status"] for k, v in subs.items()}))
        dumped[name] = subs
        print(f"{name:42s} {base['status']:13s} {base['_wall']:7.2f} s -> {full['_wall']:7.2f} s  "
              + "  ".join(f"{k} {per[k]:.2f}s {subs[k]['status']}" for k in sorted(per)), flush=True)
    without = [r[1] for r in rows]
    with_ = [r[2] for r in rows]
    ratios = [b / a for a, b in zip(without, with_)]
    # Wall times of two runs of one job differ by far more than the runtimes cost on a shared
    # machine (the export alone varies by 2x), so the extra time is also measured directly: the
    # sub-verdicts' own seconds, against the job without them (the mean of the fastest run without
    # and the fastest run with, less its sub-verdicts).
    extra = [sum(r[4].values()) for r in rows]
    base = [(a + (b - e)) / 2 for a, b, e in zip(without, with_, extra)]
    shares = [e / b for e, b in zip(extra, base)]
    print()
    print(f"cases: {len(rows)}")
    print(f"wall: median without {statistics.median(without):.3f} s, with {statistics.median(with_):.3f} s, "
          f"ratio of medians {statistics.median(with_) / statistics.median(without):.3f}, median per-case ratio "
          f"{statistics.median(ratios):.3f}, ratio of sums {sum(with_) / sum(without):.3f}")
    print(f"sub-verdicts' own time: median {statistics.median(extra):.3f} s per job, median share of the job "
          f"{100 * statistics.median(shares):.1f}%, max {100 * max(shares):.1f}% ({rows[shares.index(max(shares))][0]}), "
          f"sum {sum(extra):.2f} s over {sum(base):.2f} s = {100 * sum(extra) / sum(base):.1f}%")
    for rid in [s.id for s in everything] + [opsets.subverdict_id(n) for n in chosen if n != opsets.OPSET]:
        vals = [r[4][rid] for r in rows if rid in r[4]]
        if vals:
            print(f"  {rid}: median {statistics.median(vals):.3f} s, max {max(vals):.2f} s over {len(vals)} files")
    if args.json:
        import json

        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(dumped, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
