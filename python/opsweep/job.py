"""One job: a case through one path, turned into a job record (docs/formats.md section 3).

Contract of ``run_job`` (never raises for anything the case or torch does):
1. ``case.skip`` set: ``n/a`` at step ``skip``, the reason as detail; nothing runs.
2. A fresh eager reference: a fresh CaseModule (deep copies of the target and kwargs; eval mode
   for check=True cases, the registry's mode for check=False ones), copies of the inputs,
   torch / numpy / random seeded with 0, ``torch.no_grad()``. The library's files of the code this
   call entered become ``sources``. The eager call raising: ``n/a`` at ``eager`` with the error
   kept. No tensor in the result: ``n/a`` at ``no-tensor``.
3. The path's probe (paths/), in a private temp dir. An exception escaping it is ``fail`` at the
   step the probe had reached, with its evidence. Probes judge through ``ProbeContext.verify``:
   the captured program on the trace inputs, on fresh inputs, and under two seeds for check=False
   cases, each against eager on the same inputs and seed (``eager_outputs``); the record's
   ``checks`` says which of these ran, and why not.
From the eager reference to the end of the probe a ``deps.Recorder`` notes the code entered (and
the code Dynamo traced); with a ``DepsTracker`` the record's ``deps`` lists the library functions
and modules the result depends on, with their digests (deps.py; null when the recording cannot be
trusted, and for a skipped case ``{}`` of each: nothing ran).
Every text is scrubbed of absolute paths. Timings are seconds rounded to 4 decimals; a stage
that did not run is null.
"""

from __future__ import annotations

import tempfile
import time
from typing import Any

import torch

from opsweep.case import Case
from opsweep.deps import DepsTracker, Recorder, prepare_recording
from opsweep.evidence import evidence, scrub
from opsweep.flatten import describe, flatten
from opsweep.library import Library
from opsweep.paths import PATHS
from opsweep.paths.base import Outcome, ProbeContext, fresh_inputs, make_module, seed_everything


def _seconds(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _run_eager(case: Case, recorder: Recorder) -> Any:
    """The eager reference, its module built and called under ``recorder``; the raw result."""
    with recorder:
        module = make_module(case, flat_outputs=False)
        inputs = fresh_inputs(case)
        seed_everything(0)
        with torch.no_grad():
            return module(*inputs)


def eager_outputs(case: Case, inputs: tuple[torch.Tensor, ...], seed: int) -> list[torch.Tensor]:
    """The eager reference on other inputs or under another seed: a fresh module, the seed set for
    torch / numpy / random, no_grad; flat, detached copies. Raises what the case raises."""
    module = make_module(case, flat_outputs=False)
    seed_everything(seed)
    with torch.no_grad():
        raw = module(*inputs)
    return [t.detach().clone() for t in flatten(raw)]


def _sources(recorder: Recorder, library: Library | None) -> list[str]:
    """The library files of the code the recorder saw (sorted)."""
    if library is None:
        return []
    files = {code.co_filename for code in recorder.all_codes()}
    return sorted({rel for rel in (library.relative(f) for f in files if f[:1] != "<") if rel is not None})


def new_record() -> dict[str, Any]:
    return {
        "status": "",
        "step": "",
        "detail": "",
        "error": None,
        "graph_breaks": None,
        "break_reasons": [],
        "onnx": None,
        "outputs": None,
        "timings": {"eager_s": None, "capture_s": None, "run_s": None, "total_s": None},
        "sources": [],
        "checks": {},
        "deps": None,
    }


def run_job(
    case: Case, path: str, *, library: Library | None, threads: int, tracker: DepsTracker | None = None
) -> dict[str, Any]:
    """The record of ``case`` through ``path`` (see the module docstring)."""
    record = new_record()
    eager_recorder, probe_recorder = Recorder(), Recorder()
    _run(case, path, record, library, threads, eager_recorder, probe_recorder)
    if tracker is not None:
        record["deps"] = tracker.end(eager_recorder.merged(probe_recorder))
    return record


def _run(case: Case, path: str, record: dict[str, Any], library: Library | None, threads: int,
         eager_recorder: Recorder, probe_recorder: Recorder) -> None:
    start = time.perf_counter()

    def finish(status: str, step: str, detail: str = "") -> dict[str, Any]:
        record["status"], record["step"], record["detail"] = status, step, scrub(detail, library)
        record["timings"]["total_s"] = _seconds(time.perf_counter() - start)
        return record

    spec = PATHS.get(path)
    if spec is None:
        finish("fail", "worker", f"unknown path {path!r} (known: {', '.join(PATHS)})")
        return
    if case.skip:
        finish("n/a", "skip", case.skip)
        return

    prepare_recording()  # imports torch._dynamo once per worker: not the eager call's time
    t0 = time.perf_counter()
    try:
        raw = _run_eager(case, eager_recorder)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the eager failure is the finding
        record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
        record["sources"] = _sources(eager_recorder, library)
        record["error"] = evidence(e, library)
        finish("n/a", "eager", f"the eager call raised {type(e).__name__}")
        return
    record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
    record["sources"] = _sources(eager_recorder, library)
    held = [raw]
    del raw
    with probe_recorder:
        _probe(case, spec, held, record, finish, library, threads)


def _probe(case: Case, spec: Any, held: list[Any], record: dict[str, Any], finish: Any, library: Library | None,
           threads: int) -> dict[str, Any]:
    """Everything after the eager reference (``held``: its raw result): flattening it, then the
    path's probe."""
    raw = held.pop()
    try:
        expected = [t.detach().clone() for t in flatten(raw)]
    except Exception as e:  # noqa: BLE001
        record["error"] = evidence(e, library)
        return finish("n/a", "no-tensor", f"the eager result could not be flattened: {type(e).__name__}")
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
            eager=lambda inputs, seed: eager_outputs(case, inputs, seed),
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
    record["onnx"] = ctx.onnx
    record["checks"] = {name: check.as_record() for name, check in sorted(ctx.checks.items())}
    record["timings"]["capture_s"] = _seconds(ctx.capture_s)
    record["timings"]["run_s"] = _seconds(ctx.run_s)
    if failure is not None:
        record["error"] = evidence(failure, library)
    elif ctx.side_error is not None:
        record["error"] = evidence(ctx.side_error, library)
    detail = "; ".join(d for d in [outcome.detail, *ctx.notes] if d)
    return finish(outcome.status, outcome.step, detail)
