"""One job: a case through one path, turned into a job record (docs/formats.md section 3).

Contract of ``run_job`` (never raises for anything the case or torch does):
1. ``case.skip`` set: ``n/a`` at step ``skip``, the reason as detail; nothing runs.
2. A fresh eager reference: a fresh CaseModule (deep copies of the target and kwargs; eval mode
   for check=True cases, the registry's mode for check=False ones), copies of the inputs,
   torch / numpy / random seeded with 0, ``torch.no_grad()``. Only during this call a ``sys.settrace`` tracer
   records the files of every Python frame entered ('call' events, no line tracing); the library's
   files among them become ``sources``. The eager call raising: ``n/a`` at ``eager`` with the
   error kept. No tensor in the result: ``n/a`` at ``no-tensor``.
3. The path's probe (paths/), in a private temp dir. An exception escaping it is ``fail`` at the
   step the probe had reached, with its evidence. Probes judge through ``ProbeContext.verify``:
   the captured program on the trace inputs, on fresh inputs, and under several seeds for
   check=False cases, each against eager on the same inputs and seed (``eager_calls``); the
   record's ``checks`` says which of these ran, and why not. A capture that raises on the fresh
   inputs only is ``fail`` at the probe's run step, its detail saying so.
4. ``notes`` starts empty; the worker adds what it observed around the job (a thread-local torch
   state the job left changed and that was restored, or why it poisoned the worker).
Every text is scrubbed of absolute paths. Timings are seconds rounded to 4 decimals; a stage
that did not run is null; ``total_s`` includes the extra runs of the checks.
"""

from __future__ import annotations

import sys
import tempfile
import time
from typing import Any

import torch

from opsweep.case import Case, construction_files, materialize
from opsweep.evidence import evidence, scrub
from opsweep.flatten import describe, flatten
from opsweep.library import Library
from opsweep.paths import PATHS
from opsweep.paths.base import Outcome, ProbeContext, fresh_inputs, make_module, seed_everything


def _seconds(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _trace_eager(case: Case) -> tuple[Any, set[str]]:
    """Run the eager reference under the source tracer; returns (raw result, file names)."""
    files: set[str] = set()
    add = files.add

    def tracer(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            add(frame.f_code.co_filename)
        return None

    module = make_module(case, flat_outputs=False)
    inputs = fresh_inputs(case)
    seed_everything(0)
    previous = sys.gettrace()
    try:
        with torch.no_grad():
            sys.settrace(tracer)
            try:
                raw = module(*inputs)
            finally:
                sys.settrace(previous)
    except BaseException as e:  # noqa: BLE001
        e.opsweep_sources = files  # type: ignore[attr-defined]
        raise
    return raw, files


def eager_calls(case: Case, calls: list[tuple[tuple[torch.Tensor, ...], int]]) -> list[list[torch.Tensor]]:
    """The eager reference on other inputs or under other seeds: ``calls`` ((inputs, seed) pairs)
    made in turn on ONE fresh module, each under its seed (torch / numpy / random) and no_grad;
    each call's flat outputs as detached copies. Raises what the case raises."""
    module = make_module(case, flat_outputs=False)
    out = []
    for inputs, seed in calls:
        seed_everything(seed)
        with torch.no_grad():
            raw = module(*inputs)
        out.append([t.detach().clone() for t in flatten(raw)])
    return out


def _sources(files: set[str], library: Library | None) -> list[str]:
    if library is None:
        return []
    return sorted({rel for rel in (library.relative(f) for f in files) if rel is not None})


def new_record() -> dict[str, Any]:
    return {
        "status": "",
        "step": "",
        "detail": "",
        "error": None,
        "graph_breaks": None,
        "break_reasons": [],
        "break_frames": [],
        "onnx": None,
        "outputs": None,
        "timings": {"eager_s": None, "capture_s": None, "run_s": None, "total_s": None},
        "sources": [],
        "checks": {},
        "notes": [],
        "dynamic": None,
    }


def run_job(case: Case, path: str, *, library: Library | None, threads: int) -> dict[str, Any]:
    """The record of ``case`` through ``path`` (see the module docstring)."""
    start = time.perf_counter()
    record = new_record()

    def finish(status: str, step: str, detail: str = "") -> dict[str, Any]:
        record["status"], record["step"], record["detail"] = status, step, scrub(detail, library)
        record["timings"]["total_s"] = _seconds(time.perf_counter() - start)
        return record

    spec = PATHS.get(path)
    if spec is None:
        return finish("fail", "worker", f"unknown path {path!r} (known: {', '.join(PATHS)})")
    if case.skip:
        return finish("n/a", "skip", case.skip)

    t0 = time.perf_counter()
    try:
        case = materialize(case)  # a lazy target is built now, once per worker
    except (Exception, SystemExit) as e:  # noqa: BLE001 - constructing the target is part of eager
        record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
        record["error"] = evidence(e, library)
        return finish("n/a", "eager", f"constructing the target raised {type(e).__name__}")
    built_files = construction_files(case)
    try:
        raw, files = _trace_eager(case)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the eager failure is the finding
        record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
        record["sources"] = _sources(set(getattr(e, "opsweep_sources", set())) | built_files, library)
        record["error"] = evidence(e, library)
        return finish("n/a", "eager", f"the eager call raised {type(e).__name__}")
    try:
        expected = [t.detach().clone() for t in flatten(raw)]
    except Exception as e:  # noqa: BLE001
        record["error"] = evidence(e, library)
        return finish("n/a", "no-tensor", f"the eager result could not be flattened: {type(e).__name__}")
    record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
    record["sources"] = _sources(set(files) | built_files, library)
    if not expected:
        return finish("n/a", "no-tensor", f"the eager result ({type(raw).__name__}) holds no tensor")
    record["outputs"] = describe(expected)
    del raw

    with tempfile.TemporaryDirectory(prefix="opsweep-job-") as workdir:
        ctx = ProbeContext(
            case=case,
            expected=expected,
            threads=threads,
            workdir=workdir,
            library=library,
            eager=lambda calls: eager_calls(case, calls),
        )
        failure: BaseException | None = None
        try:
            outcome = spec.probe(ctx)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - a probe's failure is data
            failure = e
            on_fresh = getattr(e, "opsweep_fresh_inputs", False)
            outcome = Outcome(
                "fail",
                ctx.step or "worker",
                "ran on its trace inputs but raised on fresh inputs" if on_fresh else "",
            )
    record["graph_breaks"] = ctx.graph_breaks
    record["break_reasons"] = list(ctx.break_reasons)
    record["break_frames"] = [list(f) for f in ctx.break_frames]
    record["onnx"] = ctx.onnx
    record["checks"] = {name: check.as_record() for name, check in sorted(ctx.checks.items())}
    record["dynamic"] = ctx.dynamic
    record["timings"]["capture_s"] = _seconds(ctx.capture_s)
    record["timings"]["run_s"] = _seconds(ctx.run_s)
    if failure is not None:
        record["error"] = evidence(failure, library)
    elif ctx.side_error is not None:
        record["error"] = evidence(ctx.side_error, library)
    detail = "; ".join(d for d in [outcome.detail, *ctx.notes] if d)
    return finish(outcome.status, outcome.step, detail)
