#!/usr/bin/env python3
"""Where an onnx job's exports spend their time: torch.export's capture, and the rest.

    PYTHONPATH=python python3 bench/bench_onnx_split.py [--opset 17,25] [--repeat 2] [--json FILE] [CASE ...]

The onnx path exports at opset 18 (its own verdict) and, for each requested opset above 18, again
as ``torch.onnx.export(opset_version=N)`` does (runtimes/opsets.py). torch.onnx captures the
program with torch.export before it translates it, and the capture does not depend on the opset;
docs/performance.md reads "export the opset-18 capture again at N" as a lever. This bench measures
what it could save: ``run_job`` in one process (like a warm worker), onnx path, each call of
``paths.onnx.export_model`` timed by opset, and inside it each ``torch.export.export`` (the capture
torch.onnx's strategies run). One job per case warms the process, then ``--repeat`` jobs, the
fastest kept. Wall time of this process (the runtime host's work is in the job, not in the exports).

Prints one line per case and the sums; not a timed test (figures go to docs/performance.md by hand).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from _kornia_cases import job_bench_parser, job_bench_setup

SAMPLE = ["warp_affine", "rotate", "RandomAffine[random]", "AugmentationSequential", "gaussian_blur2d",
          "canny[rgb]", "SIFTFeature", "rgb_to_grayscale"]


def main() -> int:
    args = job_bench_parser("case names (default: a sample of the refresh edits' callers)",
                            "jobs per case after its first (the fastest is kept)").parse_args()
    setup = job_bench_setup(args, SAMPLE)
    if setup is None:
        return 2
    by_name, library, requested = setup
    names = list(by_name)
    import torch
    import torch.export

    from opsweep.job import run_job
    from opsweep.paths import onnx as onnx_path

    calls: list[dict[str, Any]] = []  # one per export_model call: opset, seconds, capture seconds
    original_export_model = onnx_path.export_model
    original_capture = torch.export.export

    def capture(*a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original_capture(*a, **k)
        finally:
            if calls:
                calls[-1]["capture_s"] += time.perf_counter() - t0

    def export_model(module: Any, inputs: Any, workdir: str, opset: int) -> Any:
        calls.append({"opset": opset, "capture_s": 0.0})
        t0 = time.perf_counter()
        try:
            return original_export_model(module, inputs, workdir, opset)
        finally:
            calls[-1]["export_s"] = time.perf_counter() - t0

    onnx_path.export_model = export_model
    torch.export.export = capture

    def job(name: str) -> dict[str, Any]:
        calls.clear()
        t0 = time.perf_counter()
        record = run_job(by_name[name], "onnx", library=library, threads=1)
        wall = time.perf_counter() - t0
        by_opset = {c["opset"]: c for c in calls}
        return {"status": record["status"], "job_s": wall,
                "exports": {str(o): {"export_s": round(c["export_s"], 3), "capture_s": round(c["capture_s"], 3)}
                            for o, c in sorted(by_opset.items())}}

    rows: dict[str, Any] = {}
    print(f"{'case':32s} {'status':13s} {'job':>7s} | {'export 18':>9s} {'capture':>8s} | {'export 25':>9s} {'capture':>8s}")
    for name in names:
        job(name)
        kept = min((job(name) for _ in range(args.repeat)), key=lambda r: r["job_s"])
        rows[name] = kept
        e18 = kept["exports"].get("18", {})
        e25 = kept["exports"].get(str(max(requested)), {})
        print(f"{name:32s} {kept['status']:13s} {kept['job_s']:6.2f}s | {e18.get('export_s', 0):8.2f}s "
              f"{e18.get('capture_s', 0):7.2f}s | {e25.get('export_s', 0):8.2f}s {e25.get('capture_s', 0):7.2f}s", flush=True)
    top = str(max(requested))
    total = sum(r["job_s"] for r in rows.values())
    cap_top = sum(r["exports"].get(top, {}).get("capture_s", 0) for r in rows.values())
    exp_top = sum(r["exports"].get(top, {}).get("export_s", 0) for r in rows.values())
    print()
    print(f"{len(rows)} onnx jobs: {total:.2f} s; the opset-{top} export {exp_top:.2f} s ({100 * exp_top / total:.1f}%), "
          f"its capture {cap_top:.2f} s ({100 * cap_top / total:.1f}% of the jobs)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"cases": rows, "jobs_s": round(total, 2), "top_opset": int(top),
                       "top_export_s": round(exp_top, 2), "top_capture_s": round(cap_top, 2)}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
