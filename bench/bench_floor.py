#!/usr/bin/env python3
"""The least a refresh's jobs can cost: the torch calls each job's verdict needs, and nothing else.

    TORCHINDUCTOR_CACHE_DIR=<a warm cache> PYTHONPATH=python python3 bench/bench_floor.py \
        --jobs-from docs/bench/refresh-amd-s28.json --step warp_affine [-j 2] [--json FILE]
    PYTHONPATH=python python3 bench/bench_floor.py CASE[:PATH] ...

A refresh re-probes the jobs whose cases ran the edited code; each of those jobs must at least make
the calls its verdict is made of. This bench makes only those calls, with no opsweep code around
them (no recorder, no checks, no sub-verdict runtimes, no worker protocol), in ``-j`` processes fed
from one queue like the engine's workers, one torch thread and one inductor compile thread each:

- every case: its eager call once (every verdict compares with it; when it raises, the case's jobs
  end there, as they do in the harness);
- ``onnx``: ``torch.onnx.export(dynamo=True)`` at opset 18 and an onnxruntime session run on the
  case's inputs, then the same at each ``--opset`` above 18 (the survey's opset sub-verdicts); not
  OpenVINO, tract, the reference evaluator or opsets below 18, which the survey runs too. The onnx
  path's memo of onnxscript's op list (``paths.onnx.cache_torchlib_ops``) is on, as in a worker:
  it is a cache, and without it torch.onnx.export would cost more than the harness's own export;
- ``export``: ``torch.export.export(strict=False)`` and one run of the exported program;
- ``compile``: ``torch._dynamo.reset()``, ``torch.compile`` (inductor) and its first call; not the
  fresh-inputs or randomness checks, nor ``explain`` for jobs with breaks;
- ``aoti``: ``torch.export.export(strict=False)``, ``torch._inductor.aoti_compile_and_package`` into
  a scratch folder, ``aoti_load_package`` and one run;
- ``executorch``: ``torch.export.export(strict=False)``, ``to_edge_transform_and_lower`` with the
  XNNPACK partitioner, ``.to_executorch()``, and a load and run in ``executorch.runtime``.

Cases named without a path get the three capture paths; name ``CASE:aoti`` or
``CASE:executorch`` for the deployment paths.

So its wall time is a floor under any refresh of those jobs on this machine: what a harness that did
nothing of its own would take. A call that raises is timed to the raise (the job pays that too).
Inductor's FX-graph cache hits and misses are counted, so a floor measured cold is not mistaken for a
warm one. Prints a line per case and the sums; not a timed test (figures go to docs/performance.md by
hand).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue as queue_module
import re
import shutil
import sys
import tempfile
import time
from typing import Any

from _kornia_cases import ROOT
from opsweep.evidence import scrub

PATHS = ("onnx", "export", "compile", "aoti", "executorch")


def parse_jobs(args: argparse.Namespace) -> tuple[dict[str, list[str]], str] | str:
    """``{case: [path, ...]}`` in first-seen order, from the command line or a refresh bench's JSON,
    and the name of the step they came from (or ""); or the reason they cannot be read."""
    jobs: dict[str, list[str]] = {}
    step_name = ""
    if args.jobs_from:
        try:
            with open(args.jobs_from, encoding="utf-8") as f:
                steps = json.load(f)["steps"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            return f"{args.jobs_from}: not a refresh bench's JSON ({e})"
        chosen = [s for s in steps if args.step in s.get("step", "") and s.get("jobs")]
        if not chosen:
            return f"{args.jobs_from}: no step with jobs matches {args.step!r}"
        for case, path in chosen[-1]["jobs"]:
            jobs.setdefault(case, []).append(path)
        step_name = chosen[-1]["step"]
    for item in args.jobs:
        # CASE:PATH when what follows the last colon reads like a path's name (checked below)
        case, _, path = item.rpartition(":") if re.fullmatch(r"[a-z][a-z-]*", item.rsplit(":", 1)[-1]) and ":" in item \
            else (item, "", "")
        for p in [path] if path else list(PATHS[:3]):
            jobs.setdefault(case, []).append(p)
    if not jobs:
        return "no jobs: name cases (CASE or CASE:PATH) or --jobs-from a refresh bench's JSON"
    unknown = sorted({p for ps in jobs.values() for p in ps} - set(PATHS))
    if unknown:
        return f"unknown paths: {', '.join(unknown)} (this bench knows {', '.join(PATHS)})"
    return jobs, step_name


def _timed(fn: Any) -> tuple[float, str | None, Any]:
    """(seconds, the error's first line or None, the value) of ``fn()``."""
    t0 = time.perf_counter()
    try:
        value = fn()
        return time.perf_counter() - t0, None, value
    except Exception as e:  # noqa: BLE001 - a failing call is part of the job's cost
        seconds = time.perf_counter() - t0
        text = scrub(str(e)).strip()
        return seconds, f"{type(e).__name__}: {text.splitlines()[0][:120] if text else ''}", None


def _get(queue: Any, parent: int) -> Any:
    """The next item of ``queue``; exits this process when the bench that started it is gone (killed)."""
    while True:
        try:
            return queue.get(timeout=2)
        except queue_module.Empty:
            if os.getppid() != parent:
                os._exit(1)


def worker(index: int, opsets: list[int], queue: Any, results: Any, parent: int, torch_log: str) -> None:
    """One process: load the registries, then run the floor of each case taken from ``queue``. What
    torch and the library print (failed captures print whole graphs) goes to ``torch_log``."""
    t0 = time.perf_counter()
    sys.stdout.flush()
    sink = os.open(torch_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    os.close(sink)
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    import torch

    torch.set_num_threads(1)
    logging.getLogger("torch").setLevel(logging.ERROR)
    import torch._dynamo
    import torch.export
    from torch._dynamo.utils import counters

    from _kornia_cases import kornia_cases
    from opsweep.case import materialize
    from opsweep.case_module import fresh_inputs, make_module
    from opsweep.paths.compile import configure_inductor
    from opsweep.paths.onnx import cache_torchlib_ops, ort_session
    from opsweep.randomness import seed_everything

    configure_inductor(1)  # one inductor compile thread, as the compile path sets it in a worker
    cache_torchlib_ops()  # the onnx path's memo of onnxscript's op list: a cache, not a check

    names = _get(queue, parent)
    every = kornia_cases()
    missing = [n for n in names if n not in every]
    if missing:
        results.put({"worker": index, "error": f"not cases of the bundled kornia registries: {', '.join(missing)}"})
        return
    by_name = {n: every[n] for n in names}
    results.put({"worker": index, "ready_s": time.perf_counter() - t0})

    def ort_run(program: Any, inputs: tuple[Any, ...]) -> Any:
        session = ort_session(program.model_proto.SerializeToString(), 1)  # the onnx path's session
        feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
        return session.run(None, feeds)

    while True:
        item = _get(queue, parent)
        if item is None:
            return
        name, paths = item
        row: dict[str, Any] = {"case": name, "worker": index, "parts": {}, "errors": {}}
        start = time.perf_counter()
        built_s, error, case = _timed(lambda: materialize(by_name[name]))
        row["parts"]["build"] = built_s
        if case is None:
            row["errors"]["build"] = error
            row["total_s"] = time.perf_counter() - start
            results.put(row)
            continue

        def part(key: str, fn: Any) -> Any:
            seconds, err, value = _timed(fn)
            row["parts"][key] = row["parts"].get(key, 0.0) + seconds
            if err:
                row["errors"][key] = err
            return value

        def eager() -> Any:
            seed_everything(0)
            with torch.no_grad():
                return make_module(case, flat_outputs=False)(*fresh_inputs(case))

        part("eager", eager)
        # a case whose eager call raises has no reference: its jobs end there (n/a), in the harness too
        for path in paths if "eager" not in row["errors"] else ():
            if path == "onnx":
                for opset in opsets:
                    def export_at(opset: int = opset) -> Any:
                        seed_everything(0)
                        return torch.onnx.export(make_module(case, flat_outputs=True), fresh_inputs(case), dynamo=True,
                                                 opset_version=opset, verbose=False)
                    program = part(f"onnx export {opset}", export_at)
                    if program is not None:
                        part(f"onnx run {opset}", lambda program=program: ort_run(program, fresh_inputs(case)))
            elif path == "export":
                def capture() -> Any:
                    seed_everything(0)
                    return torch.export.export(make_module(case, flat_outputs=True), fresh_inputs(case), strict=False)
                program = part("export capture", capture)
                if program is not None:
                    part("export run", lambda program=program: program.module()(*fresh_inputs(case)))
            elif path == "compile":
                hits, misses = counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"]

                def compiled_call() -> Any:
                    torch._dynamo.reset()
                    seed_everything(0)
                    compiled = torch.compile(make_module(case, flat_outputs=False))
                    with torch.no_grad():
                        return compiled(*fresh_inputs(case))
                part("compile", compiled_call)
                torch._dynamo.reset()
                row["fx_cache"] = [counters["inductor"]["fxgraph_cache_hit"] - hits,
                                   counters["inductor"]["fxgraph_cache_miss"] - misses]
            elif path == "aoti":
                def aoti_export() -> Any:
                    seed_everything(0)
                    return torch.export.export(make_module(case, flat_outputs=True), fresh_inputs(case), strict=False)
                program = part("aoti export", aoti_export)
                folder = tempfile.mkdtemp(prefix="floor-aoti-")
                package = None if program is None else part("aoti compile", lambda: torch._inductor.aoti_compile_and_package(
                    program, package_path=os.path.join(folder, "model.pt2")))
                runner = None if package is None else part("aoti load", lambda: torch._inductor.aoti_load_package(package))
                if runner is not None:
                    part("aoti run", lambda: runner(*fresh_inputs(case)))
                shutil.rmtree(folder, ignore_errors=True)
            elif path == "executorch":
                from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
                from executorch.exir import to_edge_transform_and_lower
                from executorch.runtime import Runtime

                def et_export() -> Any:
                    seed_everything(0)
                    return torch.export.export(make_module(case, flat_outputs=True), fresh_inputs(case), strict=False)
                program = part("executorch export", et_export)
                lowered = None if program is None else part(
                    "executorch lower", lambda: to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]))
                buffer = None if lowered is None else part("executorch serialise", lambda: lowered.to_executorch().buffer)

                def et_run() -> Any:
                    method = Runtime.get().load_program(buffer).load_method("forward")
                    return method.execute([x.contiguous() for x in fresh_inputs(case)])
                if buffer is not None:
                    part("executorch load and run", et_run)
        row["total_s"] = time.perf_counter() - start
        results.put(row)


def floor_of_job(row: dict[str, Any], path: str, paths: list[str]) -> float:
    """The floor of one job: its path's calls, and its share of the case's build and eager call
    (made once per case here, once per job in the harness: a job cannot do with less)."""
    own = sum(v for k, v in row["parts"].items() if k == path or k.startswith(path + " "))
    return own + (row["parts"].get("build", 0.0) + row["parts"].get("eager", 0.0)) / max(len(paths), 1)


def harness_over_floor(results_text: str, rows: list[dict[str, Any]],
                       jobs: dict[str, list[str]]) -> dict[str, tuple[float, float, int]]:
    """path -> (the harness's summed job durations, the floor's, jobs) over the jobs both measured."""
    measured: dict[tuple[str, str], float] = {}
    with open(results_text, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if "result" in r and r.get("duration_s") is not None:
                measured[(r["result"], r["path"])] = float(r["duration_s"])
    out: dict[str, tuple[float, float, int]] = {}
    for row in rows:
        paths = jobs[row["case"]]
        for path in paths:
            if (row["case"], path) not in measured:
                continue
            h, fl, n = out.get(path, (0.0, 0.0, 0))
            out[path] = (h + measured[(row["case"], path)], fl + floor_of_job(row, path, paths), n + 1)
    return dict(sorted(out.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jobs", nargs="*", help="CASE (its three paths) or CASE:PATH")
    ap.add_argument("--jobs-from", default="", help="a bench_refresh.py JSON: the jobs of one of its steps")
    ap.add_argument("--step", default="", help="with --jobs-from: the last step whose name contains this")
    ap.add_argument("-j", "--workers", type=int, default=2, help="processes, as opsweep run -j (default 2)")
    ap.add_argument("--opset", default="25",
                    help="the onnx path's other opsets, as opsweep run --opset; those below 18 (converted, not "
                         "exported, in the survey) add no call (default 25)")
    ap.add_argument("--durations-from", default=os.path.join(ROOT, "snapshots", "kornia", "snapshot.timings.json"),
                    help="a snapshot's timings: the longest cases go first, as opsweep run --durations-from")
    ap.add_argument("--harness-from", default="",
                    help="a results text (opsweep results export) holding the same jobs as measured by the harness: "
                         "prints harness / floor per path")
    ap.add_argument("--json", default="", help="also write the figures to this file")
    ap.add_argument("--torch-log", default=os.devnull,
                    help="where the processes' own output goes: torch's warnings and failure reports (default: nowhere)")
    args = ap.parse_args()
    if args.workers < 1:
        print("-j must be at least 1", file=sys.stderr)
        return 2
    try:
        given = {int(o) for o in args.opset.split(",") if o.strip()}
    except ValueError:
        print(f"--opset: not a list of numbers: {args.opset!r}", file=sys.stderr)
        return 2
    # below 18 the survey converts the opset-18 export (no export of its own), so the floor has no call
    opsets = [18] + sorted(o for o in given if o > 18)
    parsed = parse_jobs(args)
    if isinstance(parsed, str):
        print(parsed, file=sys.stderr)
        return 2
    jobs, step_name = parsed
    durations: dict[str, float] = {}
    if args.durations_from and os.path.exists(args.durations_from):
        with open(args.durations_from, encoding="utf-8") as f:
            timings = json.load(f)
        cases = timings.get("records", {}) if isinstance(timings, dict) else {}
        for name, paths in jobs.items():
            by_path = cases.get(name) or {}
            durations[name] = sum(float((by_path.get(p) or {}).get("duration_s") or 0) for p in paths)
    order = sorted(jobs, key=lambda n: -durations.get(n, 0.0))

    ctx = mp.get_context("spawn")
    queue, results = ctx.Queue(), ctx.Queue()
    wall0 = time.perf_counter()
    procs = [ctx.Process(target=worker, args=(i, opsets, queue, results, os.getpid(), args.torch_log))
             for i in range(args.workers)]
    for p in procs:
        p.start()
    for _ in procs:
        queue.put(order)
    for name in order:
        queue.put((name, jobs[name]))
    for _ in procs:
        queue.put(None)
    ready: list[float] = []
    rows: list[dict[str, Any]] = []
    njobs = sum(len(p) for p in jobs.values())
    print(f"floor of {njobs} jobs ({len(jobs)} cases) in {args.workers} processes, opsets {opsets}"
          + (f"; {step_name}" if step_name else ""), flush=True)
    while len(rows) < len(jobs):
        try:
            msg = results.get(timeout=5)
        except queue_module.Empty:
            dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
            if dead:
                print(f"a bench process died (exit code {dead[0]}) with cases left; its output is in --torch-log",
                      file=sys.stderr)
                for p in procs:
                    p.kill()
                return 2
            continue
        if "error" in msg:
            print(f"worker {msg['worker']}: {msg['error']}", file=sys.stderr)
            for p in procs:
                p.kill()
            return 2
        if "ready_s" in msg:
            ready.append(time.perf_counter() - wall0)
            continue
        rows.append(msg)
        errs = "; ".join(f"{k}: {v}" for k, v in msg["errors"].items())
        elapsed = time.perf_counter() - wall0
        print(f"[{len(rows)}/{len(jobs)} {elapsed:6.0f}s] {msg['case']:44s} {msg['total_s']:7.2f}s "
              f"{' '.join(jobs[msg['case']])}{'  fx ' + str(msg['fx_cache']) if 'fx_cache' in msg else ''}"
              f"{'  raised: ' + errs if errs else ''}", flush=True)
    wall = time.perf_counter() - wall0
    for p in procs:
        p.join()
    parts: dict[str, float] = {}
    for r in rows:
        for k, v in r["parts"].items():
            parts[k] = parts.get(k, 0.0) + v
    by_path = {"eager and build": parts.get("eager", 0.0) + parts.get("build", 0.0),
               "onnx": sum(v for k, v in parts.items() if k.startswith("onnx")),
               "export": sum(v for k, v in parts.items() if k.startswith("export")),
               "compile": parts.get("compile", 0.0),
               "aoti": sum(v for k, v in parts.items() if k.startswith("aoti")),
               "executorch": sum(v for k, v in parts.items() if k.startswith("executorch"))}
    job_s = sum(r["total_s"] for r in rows)
    hits = sum(r.get("fx_cache", [0, 0])[0] for r in rows)
    misses = sum(r.get("fx_cache", [0, 0])[1] for r in rows)
    first_ready = min(ready) if ready else 0.0
    print(f"\nwall {wall:.1f} s ({wall / 60:.1f} min), of which start-up until the first process was ready "
          f"{first_ready:.1f} s; calls {job_s:.1f} s ({job_s / args.workers:.1f} s per process)")
    print("by path: " + ", ".join(f"{k} {v:.1f} s" for k, v in by_path.items()))
    print("by call: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(parts.items())))
    print(f"inductor FX-graph cache: {hits} hits, {misses} misses")
    ratios = harness_over_floor(args.harness_from, rows, jobs) if args.harness_from else {}
    for path, (harness_s, floor_s, n) in ratios.items():
        print(f"harness / floor, {path}: {harness_s:.1f} s / {floor_s:.1f} s = {harness_s / max(floor_s, 1e-9):.2f}x ({n} jobs)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"step": step_name, "workers": args.workers, "opsets": opsets, "jobs": njobs,
                       "cases": len(jobs), "wall_s": round(wall, 1), "ready_s": [round(r, 1) for r in ready],
                       "calls_s": round(job_s, 1), "by_path_s": {k: round(v, 1) for k, v in by_path.items()},
                       "by_call_s": {k: round(v, 1) for k, v in sorted(parts.items())},
                       "fx_cache": {"hits": hits, "misses": misses},
                       "harness_over_floor": {p: {"harness_s": round(h, 1), "floor_s": round(f, 1), "jobs": n,
                                                  "ratio": round(h / max(f, 1e-9), 2)}
                                              for p, (h, f, n) in ratios.items()},
                       "inductor_cache": scrub(os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")),
                       "rows": [{**r, "parts": {k: round(v, 3) for k, v in r["parts"].items()},
                                 "total_s": round(r["total_s"], 3)} for r in rows]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
