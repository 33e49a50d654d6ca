#!/usr/bin/env python3
"""Incremental refresh: how many jobs `opsweep run` re-probes after an edit of the library, and how
long it takes (docs/performance.md, "Incremental refresh").

    python3 bench/bench_refresh.py [--binary build/tests/opsweep] --preset quick
    python3 bench/bench_refresh.py [--binary ...] --survey snapshots/kornia/results.jsonl --opset 17,25 --module-edit plan
    python3 bench/bench_refresh.py [--binary ...] --synthetic        # full scale, no survey needed

It works on a copy of kornia's installed sources (put first on PYTHONPATH, so the workers import
the copy) and a results database in a temporary directory:
- ``--preset quick`` builds that database with one full run of the quick preset (105 jobs; its
  wall time is reported as the cost of a full survey of the preset);
- ``--survey FILE`` imports the committed results store instead (`opsweep results import`): the
  2,028 kornia cases, nothing probed to build it.
Then, in order, each step measured with the jobs `opsweep run --dry-run --explain` plans, the jobs
the real run re-probed (the rows the run wrote) and the wall time of that run, with where it went
(the run's summary line; its jobs' own times by path, per worker, and for onnx jobs by part: the
path's own export, each runtime and each opset; the five longest jobs):
1. nothing changed (target: 0 jobs, wall under 30 s);
2. one function body edited (a ``pass`` statement added inside it: behaviour unchanged, tokens changed) in
   kornia/color/gray.py, kornia/filters/gaussian.py and kornia/geometry/transform/imgwarp.py, one
   after the other (target: under 5 minutes each). The bench's inductor cache starts cold unless
   ``--inductor-cache DIR`` seeds it; with ``--again`` each edit is followed by a second edit of the
   same body and a second run, whose compile jobs find the first run's graphs in the cache (what a
   maintainer's next refresh costs). Each re-probed set is checked against an
   independent measurement: the cases whose eager call enters the edited function under a plain
   sys.settrace tracer (no opsweep code involved). Every job of those cases must be re-probed
   (soundness); re-probed jobs outside them are listed (code entered only under capture);
3. a module-level edit (a new constant in kornia/filters/gaussian.py): jobs re-probed and wall;
4. worker start-up: hello, inventory and index of one worker over the same registries, with the
   index cache cold and warm.
``--synthetic`` measures what can be measured at the full scale of the bundled survey without a
survey database: a database of one synthetic, current result per job (bench/instant_worker.py: the
real worker's start-up, then an instant ``ok`` with current deps), then the real ``opsweep run``
over it (nothing changed: jobs re-probed and wall time of start-up, planning 6,084 results and the
database), the size of the text form and the time to export and import it; and, for each edited
function, the cases whose eager call enters it (the plain tracer above) with the time their jobs
took in the committed survey (snapshots/kornia/snapshot.timings.json): an estimate of that edit's
refresh, labelled as one. Results are printed and written as JSON (``--json``). Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON_DIR = os.path.join(ROOT, "python")
REGISTRIES = os.path.join(PYTHON_DIR, "opsweep_suites", "kornia")

# (file in kornia, function qualname): a body edit of each
FUNCTION_EDITS = [
    ("color/gray.py", "rgb_to_grayscale"),
    ("filters/gaussian.py", "gaussian_blur2d"),
    ("geometry/transform/imgwarp.py", "warp_affine"),
]
MODULE_EDIT = ("filters/gaussian.py", "\n_OPSWEEP_BENCH_CONSTANT = 1\n")


def kornia_dir() -> str:
    out = subprocess.run([sys.executable, "-c", "import kornia, os; print(os.path.dirname(kornia.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def env_for(site: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([site, PYTHON_DIR] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return wall, p.stdout + p.stderr


PLAN = re.compile(r"(\d[\d,]*) to run")


def planned(text: str) -> int:
    m = PLAN.search(text)
    if not m:
        sys.exit(f"no plan line in:\n{text[-2000:]}")
    return int(m.group(1).replace(",", ""))


def plan_line(text: str) -> str:
    return next((line for line in text.splitlines() if "to run" in line), "")


def latest_run_rows(db: str) -> list[tuple[str, str, float | None, str]]:
    """The rows the latest run wrote: (case, path, duration_s, record_json)."""
    con = sqlite3.connect(db)
    try:
        (run_id,) = con.execute("SELECT MAX(id) FROM runs").fetchone()
        return con.execute("SELECT case_name, path, duration_s, record_json FROM results WHERE run_id = ?",
                           (run_id,)).fetchall()
    finally:
        con.close()


def where_time_went(rows: list[tuple[str, str, float | None, str]], workers: int) -> dict:
    """Where a run's wall went: its jobs' own times (duration_s) by path, their sum over the workers
    (the wall of a perfect schedule with no start-up), onnx jobs by part (the path's own export,
    checker and session load = capture_s; each sub-verdict's total_s), and the five longest jobs."""
    by_path: dict[str, float] = {}
    onnx_parts: dict[str, float] = {}
    for _, path, secs, record_json in rows:
        by_path[path] = by_path.get(path, 0.0) + (secs or 0.0)
        if path == "onnx":
            record = json.loads(record_json or "{}")
            parts = {"capture": (record.get("timings") or {}).get("capture_s") or 0.0}
            for sub, verdict in (record.get("subverdicts") or {}).items():
                parts[sub] = (verdict.get("timings") or {}).get("total_s") or 0.0
            for k, v in parts.items():
                onnx_parts[k] = onnx_parts.get(k, 0.0) + v
    total = sum(by_path.values())
    longest = sorted(rows, key=lambda r: -(r[2] or 0.0))[:5]
    return {"job_seconds": round(total, 1), "job_seconds_by_path": {k: round(v, 1) for k, v in sorted(by_path.items())},
            "job_seconds_per_worker": round(total / max(workers, 1), 1),
            "onnx_seconds_by_part": {k: round(v, 1) for k, v in sorted(onnx_parts.items())},
            "longest_jobs": [[c, p, round(s or 0.0, 1)] for c, p, s, _ in longest]}


def all_jobs(db: str) -> set[tuple[str, str]]:
    con = sqlite3.connect(db)
    try:
        return set(con.execute("SELECT case_name, path FROM results").fetchall())
    finally:
        con.close()


EAGER_CALLERS = r"""
import json, sys
sys.setrecursionlimit(10000)
registries, targets = json.loads(sys.argv[1])
import torch
from opsweep.registry import load_registries
from opsweep.case_module import make_module, fresh_inputs
from opsweep.randomness import seed_everything
callers = {f"{f}:{q}": [] for f, q in targets}
for lc in load_registries(registries):
    case = lc.case
    if case.skip:
        continue
    try:
        from opsweep.case import materialize
        case = materialize(case)
    except ImportError:
        pass
    except Exception:
        continue
    hit = set()
    def tracer(frame, event, arg):
        code = frame.f_code
        for f, q in targets:
            if code.co_filename.endswith(f) and (code.co_qualname == q or code.co_qualname.startswith(q + ".<locals>")):
                hit.add(f"{f}:{q}")
        return None
    try:
        module = make_module(case, flat_outputs=False)
        inputs = fresh_inputs(case)
        seed_everything(0)
        with torch.no_grad():
            sys.settrace(tracer)
            try:
                module(*inputs)
            finally:
                sys.settrace(None)
    except Exception:
        pass
    for h in hit:
        callers[h].append(case.name)
print(json.dumps(callers))
"""


def eager_callers_of(registries: list[str], env: dict[str, str], targets: list[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """For each (kornia-relative file, qualname): the cases whose eager call enters it, by a plain
    settrace tracer (no opsweep recording involved), in one pass over the registries."""
    arg = json.dumps([registries, [("kornia/" + rel, q) for rel, q in targets]])
    out = subprocess.run([sys.executable, "-c", EAGER_CALLERS, arg], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"eager-callers failed:\n{out.stderr[-3000:]}")
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return {(rel, q): set(found[f"kornia/{rel}:{q}"]) for rel, q in targets}


def eager_callers(registries: list[str], env: dict[str, str], rel: str, qualname: str) -> set[str]:
    return eager_callers_of(registries, env, [(rel, qualname)])[(rel, qualname)]


def edit_function_body(path: str, qualname: str, statement: str = "pass") -> None:
    """Add ``statement`` (a ``pass``) as the first statement of the function's body (after its
    docstring): its tokens change, its behaviour does not. With ``statement=""``, a comment line
    there: that changes nothing a job depends on (a function's digest reads its tokens)."""
    import ast

    with open(path, encoding="utf-8") as f:
        text = f.read()
    tree = ast.parse(text)
    node = next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == qualname.rsplit(".", 1)[-1])
    body = node.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
        and isinstance(body[0].value.value, str)
    lines = text.splitlines(keepends=True)
    if docstring and len(body) > 1:
        at, indent = body[1].lineno - 1, " " * body[1].col_offset
    elif docstring:
        at, indent = body[0].end_lineno, " " * body[0].col_offset
    else:
        at, indent = body[0].lineno - 1, " " * body[0].col_offset
    lines.insert(at, f"{indent}{statement}  # opsweep bench: an edit of this body\n" if statement
                 else f"{indent}# opsweep bench: a comment in this body\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(lines))


def plan_jobs(binary: str, run_args: list[str], env: dict[str, str], work: str) -> tuple[float, str, set[tuple[str, str]]]:
    """A dry run with --explain: (its wall, its plan line, the jobs it plans). --explain prints one
    line a job on stdout: "CASE PATH: why"."""
    t0 = time.perf_counter()
    p = subprocess.run([binary, "run", "--dry-run", "--explain", *run_args], env=env, cwd=work, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): dry run\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    jobs = set()
    for line in p.stdout.splitlines():
        job, sep, _ = line.partition(": ")
        case, _, path = job.rpartition(" ")
        if sep and case:
            jobs.add((case, path))
    return wall, plan_line(p.stderr), jobs


def stored_seconds(db: str, jobs: set[tuple[str, str]]) -> dict[str, float]:
    """The job time the store records for these jobs (the survey's own measurement), per path."""
    con = sqlite3.connect(db)
    try:
        out: dict[str, float] = {}
        for case, path, secs in con.execute("SELECT case_name, path, duration_s FROM results"):
            if (case, path) in jobs:
                out[path] = out.get(path, 0.0) + (secs or 0.0)
        return {k: round(v, 1) for k, v in sorted(out.items())}
    finally:
        con.close()


def measure_step(name: str, binary: str, run_args: list[str], env: dict[str, str], work: str, db: str) -> dict:
    _, dry_line, _ = plan_jobs(binary, run_args, env, work)
    wall, out = run([binary, "run", *run_args], env, work)
    rows = latest_run_rows(db) if planned(out) else []
    jobs = {(case, path) for case, path, _, _ in rows}
    result = {"step": name, "planned": planned(dry_line), "plan_line": dry_line, "re_probed": len(jobs),
              "wall_s": round(wall, 1), "jobs": sorted(jobs)}
    print(f"{name}: {result['planned']} planned, {result['re_probed']} re-probed, wall {wall:.1f} s")
    finish = [line.strip() for line in out.replace("\r", "\n").splitlines() if "jobs ran (" in line][-1:]
    if finish:
        result["finish_line"] = finish[0]  # the run's summary: counts, wall, workers replaced or lost
        print(f"  {finish[0]}")
    if rows:
        workers = int(run_args[run_args.index("-j") + 1]) if "-j" in run_args else 1
        result["where"] = where_time_went(rows, workers)
        w = result["where"]
        print(f"  its jobs' own times: {w['job_seconds']} s ({w['job_seconds_by_path']}), {w['job_seconds_per_worker']} s "
              f"per worker; onnx by part: {w['onnx_seconds_by_part']}; longest: {w['longest_jobs']}")
    print(f"  {result['plan_line'].strip()}")
    return result


def worker_startup(registries: list[str], env: dict[str, str], work: str, cache: str | None) -> dict:
    sys.path.insert(0, os.path.join(PYTHON_DIR, "tests"))
    from harness_helpers import Worker  # noqa: PLC0415

    os.environ["PYTHONPATH"] = env["PYTHONPATH"]
    args = ["--index-cache", cache] if cache else []
    t0 = time.perf_counter()
    w = Worker(registries, os.path.join(work, "startup.log"), extra_args=args, env={"PYTHONPATH": env["PYTHONPATH"]})
    marks = {}
    for kind in ("hello", "inventory", "index"):
        msg = w.receive()
        if not msg or msg.get("type") != kind:
            sys.exit(f"worker start-up: expected {kind}, got {msg!r}\n{w.log()[-2000:]}")
        marks[kind] = round(time.perf_counter() - t0, 2)
    w.send({"type": "shutdown"})
    w.close()
    return marks


def synthetic(args, env, work, db, run_args, registries, results) -> None:
    instant = dict(env, OPSWEEP_WORKER_CMD=f"{sys.executable} {os.path.join(HERE, 'instant_worker.py')}")
    wall, out = run([args.binary, "run", *run_args], instant, work)
    results["synthetic_fill"] = {"wall_s": round(wall, 1), "plan_line": plan_line(out)}
    print(f"synthetic database: {plan_line(out).strip()} in {wall:.1f} s")
    results["jobs_in_db"] = len(all_jobs(db))
    for attempt in ("first", "again"):
        wall, out = run([args.binary, "run", *run_args], env, work)
        print(f"nothing changed ({attempt}): {planned(out)} re-probed, wall {wall:.1f} s ({plan_line(out).strip()})")
        results["steps"].append({"step": f"nothing changed ({attempt})", "planned": planned(out),
                                 "wall_s": round(wall, 1), "plan_line": plan_line(out)})
    text = os.path.join(work, "results.jsonl")
    wall_export, _ = run([args.binary, "results", "export", "--db", db, "-o", text], env, work)
    wall_import, _ = run([args.binary, "results", "import", text, "--db", os.path.join(work, "imported.db")], env, work)
    with open(text, "rb") as f:
        data = f.read()
    import zlib

    results["text_form"] = {"bytes": len(data), "lines": data.count(b"\n"), "zlib_bytes": len(zlib.compress(data, 6)),
                            "export_s": round(wall_export, 1), "import_s": round(wall_import, 1),
                            "db_bytes": os.path.getsize(db)}
    n_lines = data.count(b"\n")
    print(f"text form: {len(data) / 1e6:.1f} MB, {n_lines} lines, {len(zlib.compress(data, 6)) / 1e6:.1f} MB "
          f"compressed; export {wall_export:.1f} s, import {wall_import:.1f} s (synthetic records: sizes of deps "
          "like real ones, the rest smaller)")
    timings = json.load(open(os.path.join(ROOT, "snapshots", "kornia", "snapshot.timings.json")))["records"]
    all_callers = eager_callers_of(registries, env, FUNCTION_EDITS)
    for rel, qualname in FUNCTION_EDITS:
        callers = all_callers[(rel, qualname)]
        seconds = sum((timings.get(c, {}).get(p, {}) or {}).get("duration_s") or 0 for c in callers
                      for p in ("onnx", "export", "compile"))
        estimate = {"step": f"estimate: body of kornia/{rel}:{qualname}", "eager_callers": sorted(callers),
                    "jobs_at_least": 3 * len(callers), "job_seconds_in_survey": round(seconds, 1),
                    "wall_estimate_s": round(seconds / 2, 1)}
        results["steps"].append(estimate)
        print(f"estimate, body of kornia/{rel}:{qualname}: {len(callers)} cases enter it eagerly, >= {3 * len(callers)} "
              f"jobs; their jobs took {seconds:.0f} s in the survey: about {seconds / 2:.0f} s on 2 workers")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.environ.get("OPSWEEP_BINARY", os.path.join(ROOT, "build", "tests", "opsweep")))
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--preset", choices=["quick"], help="build the database with a run of this preset")
    group.add_argument("--survey", help="a committed results store (results.jsonl) to import")
    group.add_argument("--synthetic", action="store_true", help="full scale without a survey (see above)")
    ap.add_argument("-j", default=str(os.cpu_count() or 1))
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--paths", default="onnx,export,compile",
                    help="the paths of every `opsweep run` (default: the three static paths, those of the edits' checks)")
    ap.add_argument("--opset", default=None,
                    help="the --opset of every `opsweep run`: the survey's own (17,25 for the committed kornia survey), "
                         "else every onnx job is planned as stale")
    ap.add_argument("--module-edit", choices=["run", "plan"], default="run",
                    help="plan: measure the module-level edit's plan only (--dry-run; at full scale it is thousands of jobs)")
    ap.add_argument("--inductor-cache", default=None,
                    help="copy this inductor cache (a survey's <db dir>/inductor-cache) beside the bench's database first: "
                         "the refresh of a maintainer who keeps the survey's cache, against the default cold one")
    ap.add_argument("--again", action="store_true",
                    help="after each edit that runs, edit the same body again and run again: the refresh of a "
                         "maintainer's next edit, with the inductor cache the first run warmed")
    ap.add_argument("--startup-timeout", default=None, help="passed to every `opsweep run` (a loaded machine starts workers slowly)")
    ap.add_argument("--run-edits", default=None,
                    help="comma-separated kornia files (e.g. color/gray.py) whose function edit is run; the other edits "
                         "are planned only (dry run: the exact set, checked like a run's, and an estimate of its wall "
                         "from the store's job times). Default: run every edit")
    args = ap.parse_args()
    run_edits = None if args.run_edits is None else set(filter(None, args.run_edits.split(",")))
    # The runs' working directory is a temporary one: relative paths are the caller's.
    args.binary = os.path.abspath(args.binary)
    if args.survey:
        args.survey = os.path.abspath(args.survey)

    work = tempfile.mkdtemp(prefix="opsweep-refresh-")
    try:
        site = os.path.join(work, "site")
        os.makedirs(site)
        shutil.copytree(kornia_dir(), os.path.join(site, "kornia"), ignore=shutil.ignore_patterns("__pycache__"))
        env = env_for(site)
        db = os.path.join(work, "results.db")
        if args.inductor_cache:
            # opsweep run sets TORCHINDUCTOR_CACHE_DIR to <db dir>/inductor-cache
            shutil.copytree(args.inductor_cache, os.path.join(work, "inductor-cache"))
        run_args = ["--suite", "kornia", "--db", db, "-j", args.j, "--paths", args.paths]
        run_args += ["--opset", args.opset] if args.opset else []
        run_args += ["--startup-timeout", args.startup_timeout] if args.startup_timeout else []
        if args.preset:
            run_args += ["--preset", args.preset]
            registries = [os.path.join(REGISTRIES, "presets", f"{args.preset}.py")]
        else:
            registries = sorted(os.path.join(REGISTRIES, f) for f in os.listdir(REGISTRIES) if f.startswith("cases_"))
        # checkout-relative where they are inside it: nothing written names this machine's folders
        rel = lambda path: os.path.relpath(path, ROOT) if path and path.startswith(ROOT + os.sep) else path  # noqa: E731
        results: dict = {"binary": rel(args.binary), "mode": args.preset or rel(args.survey) or "synthetic", "steps": [],
                         "inductor_cache": "seeded from " + rel(os.path.abspath(args.inductor_cache)) if args.inductor_cache
                         else "cold"}
        if args.synthetic:
            synthetic(args, env, work, db, run_args, registries, results)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=2, sort_keys=True)
            return

        if args.preset:
            wall, out = run([args.binary, "run", *run_args], env, work)
            results["full_run"] = {"wall_s": round(wall, 1), "plan_line": plan_line(out)}
            print(f"full run of the preset: wall {wall:.1f} s ({plan_line(out).strip()})")
        else:
            wall, _ = run([args.binary, "results", "import", args.survey, "--db", db], env, work)
            print(f"imported {args.survey} in {wall:.1f} s")
        results["jobs_in_db"] = len(all_jobs(db))

        results["steps"].append(measure_step("nothing changed", args.binary, run_args, env, work, db))
        # a comment line in each of the three bodies at once: a function's digest reads its tokens, so
        # the plan is empty (records measured before index version 4 are re-encoded by the run above)
        originals = {}
        for rel, qualname in FUNCTION_EDITS:
            edited = os.path.join(site, "kornia", rel)
            with open(edited, encoding="utf-8") as f:
                originals[edited] = f.read()
            edit_function_body(edited, qualname, statement="")
        wall, line, jobs = plan_jobs(args.binary, run_args, env, work)
        results["steps"].append({"step": "a comment in each of the three bodies (plan only)", "planned": len(jobs),
                                 "plan_line": line, "dry_run_wall_s": round(wall, 1), "jobs": sorted(jobs)})
        print(f"a comment in each of the three bodies (plan only): {len(jobs)} planned (target 0)\n  {line.strip()}")
        for edited, text in originals.items():
            with open(edited, "w", encoding="utf-8") as f:
                f.write(text)
        for rel, qualname in FUNCTION_EDITS:
            callers = eager_callers(registries, env, rel, qualname)
            edited = os.path.join(site, "kornia", rel)
            with open(edited, encoding="utf-8") as f:
                before = f.read()
            edit_function_body(edited, qualname)
            name = f"body of kornia/{rel}:{qualname}"
            steps = []
            if run_edits is None or rel in run_edits:
                steps.append(measure_step(name, args.binary, run_args, env, work, db))
                if args.again:
                    # a maintainer's next edit of the same body: the same jobs again, and their compile
                    # jobs find the graphs the run before left in the inductor cache (a ``pass`` changes
                    # no graph); checked against the same callers below
                    edit_function_body(edited, qualname)
                    steps.append(measure_step(name + " (again, warm inductor cache)", args.binary, run_args, env, work, db))
            else:
                # plan only: the exact set the run would re-probe (the dry run's per-job lines), and
                # what those jobs cost when the survey measured them (an estimate of the run's wall)
                wall, line, jobs = plan_jobs(args.binary, run_args, env, work)
                secs = stored_seconds(db, jobs)
                steps.append({"step": name + " (plan only)", "planned": len(jobs), "plan_line": line,
                              "dry_run_wall_s": round(wall, 1), "jobs": sorted(jobs), "their_job_seconds_in_survey": secs,
                              "wall_estimate_s_on_2_workers": round(sum(secs.values()) / 2, 1)})
                print(f"{name} (plan only): {len(jobs)} planned; their jobs took {sum(secs.values()):.0f} s in the survey "
                      f"({secs}), about {sum(secs.values()) / 2:.0f} s on 2 workers (an estimate)")
                print(f"  {line.strip()}")
                # its jobs were not re-probed: undo the edit, so the next step plans its own edit alone
                with open(edited, "w", encoding="utf-8") as f:
                    f.write(before)
            must = {(c, p) for c in callers for p in args.paths.split(",")} & all_jobs(db)
            for step in steps:
                step["eager_callers"] = sorted(callers)
                step["missed"] = sorted(must - set(map(tuple, step["jobs"])))
                step["beyond_eager"] = sorted(set(map(tuple, step["jobs"])) - must)
                print(f"  {step['step']}: cases whose eager call enters it: {len(callers)}; their jobs not re-probed: "
                      f"{len(step['missed'])} (must be 0); re-probed beyond them: {len(step['beyond_eager'])}")
                results["steps"].append(step)
        rel, text = MODULE_EDIT
        with open(os.path.join(site, "kornia", rel), "a", encoding="utf-8") as f:
            f.write(text)
        if args.module_edit == "run":
            results["steps"].append(measure_step(f"module level of kornia/{rel}", args.binary, run_args, env, work, db))
        else:
            wall, line, jobs = plan_jobs(args.binary, run_args, env, work)
            results["steps"].append({"step": f"module level of kornia/{rel} (plan only)", "planned": len(jobs),
                                     "plan_line": line, "dry_run_wall_s": round(wall, 1)})
            print(f"module level of kornia/{rel} (plan only): {len(jobs)} planned ({line.strip()})")

        cache = os.path.join(work, "startup-index-cache.json")  # not the runs' own: cold at first
        results["startup_cold_index"] = worker_startup(registries, env, work, cache)
        results["startup_warm_index"] = worker_startup(registries, env, work, cache)
        print(f"worker start-up (s since spawn): cold index {results['startup_cold_index']}, "
              f"warm index {results['startup_warm_index']}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2, sort_keys=True)
    finally:
        if args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
