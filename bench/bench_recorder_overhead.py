#!/usr/bin/env python3
"""What recording a job's code costs: the job's CPU time with the recorder's profiler, and without.

    TORCHINDUCTOR_CACHE_DIR=DIR PYTHONPATH=python python3 bench/bench_recorder_overhead.py \\
        [--paths export,onnx,compile] [--opset 17,25] [--repeat 2] [--json FILE] [CASE ...]

A job's record lists the library functions it entered (``deps``): ``opsweep.deps.Recorder`` runs
``cProfile`` (call events only) from the target's construction to the end of the probe, paused
where only torch runs and a profiler would cost most (Dynamo's bytecode interpretation, torch.onnx's
stages after the capture). The rest of torch's Python that a job runs (torch.export's tracing, the
backend's AOTAutograd, the ONNX capture) runs under it. This bench runs ``run_job`` in one process
(like a warm worker) for each case and path: one job to warm the process and inductor's cache, then
``--repeat`` pairs of jobs, one with the real profiler and one with a profiler that records nothing
(same code otherwise), alternating; the fastest of each kind is kept. CPU time of this process
(``time.process_time``), so a loaded machine changes the figures less than wall time would; the
runtime host's own CPU (OpenVINO, tract) is not in it, and not profiled either.

Prints one line per case and path and the sums by path; not a timed test (figures go to
docs/performance.md by hand).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from _kornia_cases import job_bench_parser, job_bench_setup

# Callers of kornia.geometry.transform.imgwarp.warp_affine (bench_refresh's third edit): a plain
# operator, a module, a random augmentation, a container.
SAMPLE = ["warp_affine", "rotate", "RandomAffine[random]", "AugmentationSequential"]


class _Silent:
    """A profiler that records nothing: what a job costs without the recorder's profiler."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def enable(self) -> None:
        pass

    def disable(self) -> None:
        pass

    def getstats(self) -> list[Any]:
        return []


class _SilentModule:
    Profile = _Silent


def main() -> int:
    ap = job_bench_parser("case names (default: a sample of warp_affine's callers)",
                          "pairs of jobs per case and path after the first")
    ap.add_argument("--paths", default="export,onnx,compile")
    args = ap.parse_args()
    setup = job_bench_setup(args, SAMPLE)
    if setup is None:
        return 2
    by_name, library, requested = setup
    names = list(by_name)
    import cProfile

    import opsweep.deps.recorder as recorder
    from opsweep.job import run_job
    paths = [p for p in args.paths.split(",") if p]

    def cpu(name: str, path: str, profiled: bool) -> tuple[float, str]:
        recorder.cProfile = cProfile if profiled else _SilentModule  # type: ignore[assignment]
        try:
            t0 = time.process_time()
            record = run_job(by_name[name], path, library=library, threads=1)
            return time.process_time() - t0, record["status"]
        finally:
            recorder.cProfile = cProfile

    rows = []
    print(f"{'case':32s} {'path':8s} {'status':13s} {'profiled':>9s} {'silent':>8s} {'ratio':>6s}")
    for name in names:
        for path in paths:
            cpu(name, path, True)  # warm: first calls in this process, inductor's cache
            on, off, status = [], [], ""
            for _ in range(args.repeat):
                secs, status = cpu(name, path, True)
                on.append(secs)
                off.append(cpu(name, path, False)[0])
            row = {"case": name, "path": path, "status": status, "profiled_s": round(min(on), 3),
                   "silent_s": round(min(off), 3)}
            rows.append(row)
            print(f"{name:32s} {path:8s} {status:13s} {min(on):8.2f}s {min(off):7.2f}s {min(on) / min(off):6.2f}",
                  flush=True)
    print()
    by_path = {}
    for path in paths:
        on = sum(r["profiled_s"] for r in rows if r["path"] == path)
        off = sum(r["silent_s"] for r in rows if r["path"] == path)
        by_path[path] = {"profiled_s": round(on, 2), "silent_s": round(off, 2), "ratio": round(on / off, 3) if off else None}
        print(f"{path:8s} profiled {on:7.2f}s  silent {off:7.2f}s  ratio {on / off if off else float('nan'):.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "by_path": by_path, "opsets": list(requested)}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
