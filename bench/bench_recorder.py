#!/usr/bin/env python3
"""What the dependency recorder costs a job: the same jobs through ``opsweep run`` with the frame
hook (deps/native.py, the default) and with cProfile (``OPSWEEP_RECORDER=cprofile``, the fallback
and the recorder opsweep used before the hook).

    PYTHONPATH=python python3 bench/bench_recorder.py --jobs-from docs/bench/refresh-amd-s28.json \
        --step rgb_to_grayscale [--paths export,compile,onnx] [--limit N] [-j 2] [--json FILE] \
        [--results-out FILE] [--inductor-cache DIR]

Each mechanism surveys the step's cases on the chosen paths into a database of its own, both
sharing one inductor cache. A first run (cProfile) fills that cache and is not counted; then the
frame hook and cProfile run once each, warm, one after the other. Prints, per path, the jobs' summed
``total_s`` under each mechanism and their ratio, and checks that both recorded the same deps,
sources and verdict for every job (they must: the mechanism is not part of a result). Not a timed
test; figures go to docs/performance.md by hand. ``--opset 18`` keeps the onnx jobs to the path's
own verdict (the other opsets record nothing different).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MECHANISMS = {"frame hook": {}, "cProfile": {"OPSWEEP_RECORDER": "cprofile"}}


def step_cases(path: str, step: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        steps = json.load(f)["steps"]
    chosen = [s for s in steps if step in s.get("step", "") and s.get("jobs")]
    if not chosen:
        sys.exit(f"bench_recorder: {path}: no step with jobs matches {step!r}")
    cases: list[str] = []
    for case, _ in chosen[-1]["jobs"]:
        if case not in cases:
            cases.append(case)
    return cases


def survey(binary: str, folder: str, cases: list[str], paths: str, jobs: int, env_extra: dict[str, str]) -> tuple[float, list[dict[str, Any]]]:
    """Wall seconds of one ``opsweep run`` into ``folder``/results.db, and its records."""
    db = os.path.join(folder, "results.db")
    only = [arg for c in cases for arg in ("--only", c)]
    command = [binary, "run", "--suite", "kornia", "--db", db, "--paths", paths, "--opset", "18", "-j", str(jobs),
               "--exact", *only]
    env = {**os.environ, **env_extra}
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench_recorder: {' '.join(command[:3])} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    out = os.path.join(folder, "results.jsonl")
    subprocess.run([binary, "results", "export", "--db", db, "-o", out], check=True, capture_output=True)
    with open(out, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return wall, records


def by_job(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(case, path) -> record, its deps resolved from the results text's shared entries."""
    entries = {r["entry"]: (r["name"], r["value"]) for r in records if "entry" in r}
    depsets = {r["depset"]: r["entries"] for r in records if "depset" in r}

    def resolve(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("@") and value[1:] in depsets:
            return dict(sorted(entries[e] for e in depsets[value[1:]]))
        return value

    out = {}
    for r in records:
        if "result" in r and "record" in r:
            record = dict(r["record"])
            if isinstance(record.get("deps"), dict):
                record["deps"] = {k: resolve(v) for k, v in record["deps"].items()}
            out[(r["result"], r["path"])] = record
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs-from", required=True, help="a refresh bench's JSON (docs/bench/refresh-*.json)")
    parser.add_argument("--step", required=True, help="a substring of the step whose jobs to run")
    parser.add_argument("--paths", default="export,compile,onnx")
    parser.add_argument("--limit", type=int, default=0, help="only the step's first N cases")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--results-out", help="keep the frame hook's results text here (for bench_floor.py --harness-from)")
    parser.add_argument("--inductor-cache", help="the inductor cache to use and keep (default: a scratch one, removed); "
                                                 "give bench_floor.py the same as TORCHINDUCTOR_CACHE_DIR to compare warm with warm")
    parser.add_argument("--binary", default=os.environ.get("OPSWEEP_BINARY", os.path.join(ROOT, "build", "tests", "opsweep")))
    args = parser.parse_args()
    cases = step_cases(args.jobs_from, args.step)
    if args.limit > 0:
        cases = cases[:args.limit]
    scratch = tempfile.mkdtemp(prefix="bench-recorder-")
    cache = os.path.abspath(args.inductor_cache) if args.inductor_cache else os.path.join(scratch, "inductor-cache")
    os.makedirs(cache, exist_ok=True)
    folders = {}
    for name in ("warm-up", *MECHANISMS):
        folder = os.path.join(scratch, name.replace(" ", "-"))
        os.makedirs(folder)
        os.symlink(cache, os.path.join(folder, "inductor-cache"))  # the engine puts it beside the db
        folders[name] = folder
    print(f"{len(cases)} cases of step {args.step!r}, paths {args.paths}, -j {args.jobs}", flush=True)
    survey(args.binary, folders["warm-up"], cases, args.paths, args.jobs, MECHANISMS["cProfile"])
    results: dict[str, Any] = {}
    for name, env_extra in MECHANISMS.items():
        wall, records = survey(args.binary, folders[name], cases, args.paths, args.jobs, env_extra)
        results[name] = {"wall_s": wall, "jobs": by_job(records)}
        print(f"{name}: {len(records)} records in {wall:.1f} s", flush=True)
    hook, prof = results["frame hook"]["jobs"], results["cProfile"]["jobs"]
    differ = [k for k in sorted(hook) if k not in prof or any(
        hook[k].get(f) != prof[k].get(f) for f in ("status", "step", "deps", "sources"))]
    per_path: dict[str, dict[str, float]] = {}
    for (case, path), rec in hook.items():
        if (case, path) not in prof:
            continue
        row = per_path.setdefault(path, {"jobs": 0, "frame hook": 0.0, "cProfile": 0.0})
        row["jobs"] += 1
        row["frame hook"] += rec["timings"]["total_s"] or 0.0
        row["cProfile"] += prof[(case, path)]["timings"]["total_s"] or 0.0
    print(f"\n| path | jobs | frame hook | cProfile | frame hook / cProfile |\n| --- | ---: | ---: | ---: | ---: |")
    for path, row in sorted(per_path.items()):
        print(f"| {path} | {row['jobs']} | {row['frame hook']:.1f} s | {row['cProfile']:.1f} s | "
              f"{row['frame hook'] / max(row['cProfile'], 1e-9):.2f}x |")
    print(f"\nwall: frame hook {results['frame hook']['wall_s']:.1f} s, cProfile {results['cProfile']['wall_s']:.1f} s")
    print(f"jobs whose status, step, deps or sources differ between the mechanisms: {len(differ)}")
    for k in differ[:20]:
        print(f"  {k[0]} {k[1]}: {hook[k].get('status')}/{prof.get(k, {}).get('status')}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"step": args.step, "cases": len(cases), "paths": args.paths, "workers": args.jobs,
                       "per_path": per_path, "wall_s": {n: r["wall_s"] for n, r in results.items()},
                       "differ": [list(k) for k in differ]}, f, indent=1)
            f.write("\n")
    if args.results_out:
        shutil.copyfile(os.path.join(folders["frame hook"], "results.jsonl"), args.results_out)
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
