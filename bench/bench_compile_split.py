#!/usr/bin/env python3
"""How a compile job's time splits between ``torch._dynamo.explain`` and torch.compile.

    TORCHINDUCTOR_CACHE_DIR=.opsweep/kornia/inductor-cache PYTHONPATH=HARNESS/python \\
        python3 bench/bench_compile_split.py [--threads 1] [--repeat 2] [--json FILE] [CASE ...]

(``--opset`` is accepted, as by the other in-process job benches, and changes nothing here.)

Until 2026-12-06 the compile path traced each case twice: once under ``torch._dynamo.explain``
(graph breaks and their reasons), once more inside torch.compile's first call. The issue that
asked whether the double trace was worth removing measured explain at about 7% of a compile job,
inductor's code generation and C++ compile being the rest: a cold cache. A refresh re-probes
cases whose graphs are mostly in the inductor cache already, so this bench measures the split
there: ``run_job`` directly (one process, like a warm worker), compile path, ``explain`` timed by a
wrapper, and the job's wall time. For each case the first job pays for first calls in this
process (imports, the case's lazy build) and for any graph not in the cache; then --repeat jobs,
the fastest kept.

Run it on the harness to measure (``PYTHONPATH``): a checkout from before 2026-12-06 (explain, then
compile, for every case) or the current one (explain only when torch.compile's first call broke or
raised, after the compile: its column is 0 for a case without breaks). Same cache, same cases, one
after the other: the ratio of the two runs' job seconds is what the change saves per warm compile
job. On cases with breaks (``ImageStitcher``) the explain column is what the second trace still costs.

The job's fidelity check on fresh inputs (``ProbeContext._check_fresh``: the compiled module
called again, same shapes, other values) is timed too, with the graphs Dynamo compiles during it
(``unique_graphs``): a target whose first call changes its own state (kornia's
``AugmentationSequential`` sets ``input_dtype`` on itself) fails a guard on its second call and is
traced and compiled again there, as it would be for a user.

Prints one line per case and the sums; not a timed test (the figures go to docs/performance.md by
hand).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

from _kornia_cases import job_bench_parser, job_bench_setup

# Cases whose eager call enters kornia.geometry.transform.imgwarp.warp_affine (the bench_refresh
# edit): plain operators, augmentation modules, containers and random cases.
SAMPLE = [
    "warp_affine", "warp_affine[bicubic]", "rotate", "translate[border]", "affine", "shear",
    "RandomAffine", "RandomAffine[random]", "RandomRotation[random]", "RandomShear", "Affine[full]",
    "CenterCrop[resample]", "RandomResizedCrop[resample][random]", "AugmentationSequential",
    "AugmentationSequential[crop]", "AugmentationSequential[bbox][random]", "AutoAugment[svhn][random]",
    "TrivialAugment[random]", "PatchSequential[not patchwise]", "VideoSequential",
]


def main() -> int:
    ap = job_bench_parser("case names (default: a sample of warp_affine's callers)",
                          "jobs per case after its first (the fastest is kept)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    setup = job_bench_setup(args, SAMPLE)
    if setup is None:
        return 2
    by_name, library, _ = setup
    names = list(by_name)

    import torch
    import torch._dynamo

    from opsweep.job import run_job

    explain_times: list[float] = []
    original_explain = torch._dynamo.explain

    def timed_explain(fn, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        inner = original_explain(fn, *a, **k)

        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                explain_times.append(time.perf_counter() - t0)

        return call

    torch._dynamo.explain = timed_explain

    import torch._dynamo.utils as dynamo_utils
    from opsweep.paths.base import ProbeContext

    fresh_checks: list[tuple[float, int]] = []  # (seconds, graphs Dynamo compiled during the check)
    original_check_fresh = ProbeContext._check_fresh

    def timed_check_fresh(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        graphs = dynamo_utils.counters["stats"]["unique_graphs"]
        t0 = time.perf_counter()
        try:
            return original_check_fresh(self, *a, **k)
        finally:
            fresh_checks.append((time.perf_counter() - t0, dynamo_utils.counters["stats"]["unique_graphs"] - graphs))

    ProbeContext._check_fresh = timed_check_fresh

    def job(name: str) -> dict:
        explain_times.clear()
        fresh_checks.clear()
        t0 = time.perf_counter()
        record = run_job(by_name[name], "compile", library=library, threads=args.threads)
        wall = time.perf_counter() - t0
        explain = sum(explain_times)
        # the rest of the job: eager reference, torch.compile's first call, the checks' calls
        return {"status": record["status"], "wall": wall, "explain": explain, "rest": wall - explain,
                "explain_ran": len(explain_times), "graph_breaks": record.get("graph_breaks"),
                "fresh": sum(t for t, _ in fresh_checks), "fresh_graphs": sum(g for _, g in fresh_checks)}

    rows: dict[str, dict] = {}
    print(f"{'case':42s} {'status':13s} {'breaks':>6s} {'first job':>9s} | {'job':>7s} {'explain':>8s} {'rest':>8s} {'share':>6s}"
          f" | {'fresh':>7s} {'graphs':>6s}")
    for name in names:
        first = job(name)
        kept = min((job(name) for _ in range(args.repeat)), key=lambda r: r["wall"])
        share = kept["explain"] / kept["wall"] if kept["wall"] else 0.0
        rows[name] = {"first": first, "kept": kept, "explain_share": share}
        print(f"{name:42s} {kept['status']:13s} {str(kept['graph_breaks']):>6s} {first['wall']:8.2f}s | {kept['wall']:6.2f}s "
              f"{kept['explain']:7.2f}s {kept['rest']:7.2f}s {100 * share:5.1f}% | {kept['fresh']:6.2f}s "
              f"{kept['fresh_graphs']:6d}", flush=True)

    kept_rows = [r["kept"] for r in rows.values()]
    total = sum(r["wall"] for r in kept_rows)
    explain = sum(r["explain"] for r in kept_rows)
    rest = sum(r["rest"] for r in kept_rows)
    first_total = sum(r["first"]["wall"] for r in rows.values())
    first_explain = sum(r["first"]["explain"] for r in rows.values())
    fresh = sum(r["fresh"] for r in kept_rows)
    recompiled = [name for name, r in rows.items() if r["kept"]["fresh_graphs"] > 0]
    summary = {
        "cases": len(rows),
        "jobs_s": round(total, 2),
        "explain_s": round(explain, 2),
        "rest_s": round(rest, 2),
        "jobs_that_ran_explain": sum(1 for r in kept_rows if r["explain_ran"]),
        "explain_share_of_jobs": round(explain / total, 3) if total else None,
        "median_case_explain_share": round(statistics.median(r["explain_share"] for r in rows.values()), 3),
        "first_jobs_s": round(first_total, 2),
        "first_jobs_explain_s": round(first_explain, 2),
        "fresh_check_s": round(fresh, 2),
        "fresh_check_share_of_jobs": round(fresh / total, 3) if total else None,
        "compiled_again_on_fresh_inputs": recompiled,
        "inductor_cache": os.environ.get("TORCHINDUCTOR_CACHE_DIR", "(torch's default)"),
        "threads": args.threads,
    }
    print()
    print(f"{summary['cases']} cases, fastest of {args.repeat} jobs each: {total:.2f} s of jobs, explain {explain:.2f} s "
          f"({100 * explain / total:.1f}%, in {summary['jobs_that_ran_explain']} jobs), the rest {rest:.2f} s; median case: "
          f"explain {100 * summary['median_case_explain_share']:.1f}% of its job")
    print(f"first job of each case (imports, lazy build): {first_total:.2f} s, explain {first_explain:.2f} s")
    print(f"the fresh-inputs check: {fresh:.2f} s ({100 * fresh / total:.1f}% of the jobs); compiled again there "
          f"(a guard failed on the second call): {len(recompiled)} of {len(rows)} cases"
          + (f" ({', '.join(recompiled)})" if recompiled else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "cases": rows}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
