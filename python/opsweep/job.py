"""One job: a case through one path, turned into a job record (docs/formats.md section 3).

Contract of ``run_job`` (never raises for anything the case or torch does):
1. ``case.skip`` set: ``n/a`` at step ``skip``, the reason as detail; nothing runs.
2. A fresh eager reference: a fresh CaseModule (deep copies of the target and kwargs; eval mode
   for check=True cases, the registry's mode for check=False ones), copies of the inputs,
   torch / numpy / random seeded with 0, ``torch.no_grad()``. The library's files of the code this
   call entered, and of the code that built a lazy target, become ``sources``. The eager call (or
   the target's construction) raising: ``n/a`` at ``eager`` with the error kept. No tensor in the
   result: ``n/a`` at ``no-tensor``.
3. The path's probe (paths/), in a private temp dir. An exception escaping it is ``fail`` at the
   step the probe had reached, with its evidence. Probes judge through ``ProbeContext.verify``:
   the captured program on the trace inputs, on fresh inputs, and under several seeds for
   check=False cases, each against eager on the same inputs and seed (``eager_calls``); the
   record's ``checks`` says which of these ran, and why not. A capture that raises on the fresh
   inputs only is ``fail`` at the probe's run step, its detail saying so.
4. ``notes`` starts empty; the worker adds what it observed around the job (a thread-local torch
   state the job left changed and that was restored, or why it poisoned the worker).
5. From the target's construction to the end of the probe ``deps.Recorder``s note the code entered
   (and the code Dynamo traced); with a ``DepsTracker`` the record's ``deps`` lists the library
   functions and modules the result depends on, with their digests (opsweep.deps; null when the
   recording cannot be trusted; empty maps for a skipped case: nothing ran). A lazy target is built
   once per worker: the code its construction entered is kept per case and counted by every job
   of the case.
6. A shared object of inductor's cache (TORCHINDUCTOR_CACHE_DIR) that cannot be loaded because it is
   damaged ("file too short", "invalid ELF header": a compile killed while it wrote the file, by a
   timeout or the memory limit, leaves it half written, and every later job whose graph hashes to
   it would fail) says nothing about the case: the job removes those files and runs once more, and
   its ``notes`` say so. A second failure of the kind stands as measured.
Every text is scrubbed of absolute paths. Timings are seconds rounded to 4 decimals; a stage
that did not run is null; ``total_s`` includes the extra runs of the checks.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import tempfile
import time
from typing import Any

import torch

from opsweep.case import Case, Lazy, construction_files, materialize
from opsweep.case_module import fresh_inputs, make_module
from opsweep.deps import DepsTracker, Recorder, prepare_recording
from opsweep.evidence import evidence, scrub
from opsweep.flatten import describe, flatten
from opsweep.library import Library
from opsweep.paths import PATHS
from opsweep import state
from opsweep.paths.context import Check, ProbeContext, RecordFields
from opsweep.paths.spec import Outcome, PathSpec
from opsweep.randomness import seed_everything


def _seconds(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _run_eager(case: Case, recorder: Recorder) -> tuple[Any, dict[str, Any]]:
    """The eager reference, its module built and called under ``recorder``: the raw result, and
    the state the call updated (opsweep/state.py; name -> value after the call, usually empty)."""
    with recorder:
        module = make_module(case, flat_outputs=False)
        inputs = fresh_inputs(case)
        before = state.snapshot(module)
        seed_everything(0)
        with torch.no_grad():
            raw = module(*inputs)
        return raw, state.updated(module, before)


# id(lazy case) -> (the lazy case, the recorder of its construction): materialize builds a target
# once per worker; every later job of the case depends on that construction all the same.
_CONSTRUCTED: dict[int, tuple[Case, Recorder]] = {}


def _materialize(case: Case) -> tuple[Case, Recorder]:
    """The case ready to run, and the recorder of its target's construction (empty for a case whose
    target is not lazy). A lazy target built outside a job (nobody recorded its construction)
    gives a recorder with a problem: the job's deps are then unknown."""
    recorder = Recorder()
    if not isinstance(case.target, Lazy):
        return case, recorder
    known = _CONSTRUCTED.get(id(case))
    if known is not None and known[0] is case:
        return materialize(case), known[1]
    built_before = bool(construction_files(case))
    try:
        with recorder:
            ready = materialize(case)
    except BaseException as e:  # the construction's failure is the job's finding: keep what it ran
        e.opsweep_recorder = recorder  # type: ignore[attr-defined]
        raise
    if built_before:
        recorder.problem = "the lazy target was built before any job recorded its construction"
    _CONSTRUCTED[id(case)] = (case, recorder)
    return ready, recorder


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
    return sorted({rel for rel in (library.relative(f) for f in files if f[:1] != "<") if rel is not None})


def _files(*recorders: Recorder) -> set[str]:
    return {code.co_filename for r in recorders for code in r.all_codes()}


# Where each field sits in a record: the order records have always been written in (a stored record
# is compared byte for byte). The paths' own fields (PathSpec.record_fields) take the places named
# here; a field a path adds that is not named goes last.
FIELD_ORDER = ("status", "step", "detail", "error", "graph_breaks", "break_reasons", "break_frames", "onnx",
               "outputs", "timings", "sources", "checks", "notes", "deps", "subverdicts", "dynamic")


def new_record() -> dict[str, Any]:
    """A record before the job fills it: the common fields and every path's own fields, each at
    its empty value (a field another path writes stays so), in ``FIELD_ORDER``."""
    record: dict[str, Any] = {
        "status": "",
        "step": "",
        "detail": "",
        "error": None,
        "outputs": None,
        "timings": {"eager_s": None, "capture_s": None, "run_s": None, "total_s": None},
        "sources": [],
        "checks": {},
        "notes": [],
        "deps": None,
    }
    for spec in PATHS.values():
        for name, empty in spec.record_fields.items():
            record.setdefault(name, copy.deepcopy(empty))
    place = {name: i for i, name in enumerate(FIELD_ORDER)}
    return dict(sorted(record.items(), key=lambda item: place.get(item[0], len(place))))


def path_fields(spec: PathSpec) -> RecordFields:
    """The record fields ``spec`` declares, each at its empty value: what its probe fills."""
    return RecordFields({name: copy.deepcopy(empty) for name, empty in spec.record_fields.items()})


def run_job(
    case: Case, path: str, *, library: Library | None, threads: int, tracker: DepsTracker | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """The record of ``case`` through ``path`` (see the module docstring). ``timeout_s``: the
    engine's time limit of the job, counted from now (the sub-verdicts keep out of its end)."""
    clock = JobClock.start(timeout_s)
    record = new_record()
    recorders: list[Recorder] = []
    _run(case, path, record, library, threads, recorders, clock)
    damaged = damaged_cache_files(record)
    if damaged:
        for f in damaged:
            try:
                os.remove(f)
            except OSError:
                pass
        record = new_record()
        recorders = []
        _run(case, path, record, library, threads, recorders, clock)
        record["notes"].append(
            f"ran again after removing {len(damaged)} damaged file(s) of the inductor cache: "
            + ", ".join(sorted("<inductor-cache>/" + os.path.relpath(f, _cache_dir()) for f in damaged)))
    if tracker is not None:
        merged = Recorder()
        for r in recorders:
            merged = merged.merged(r)
        record["deps"] = tracker.end(merged)
    return record


@dataclasses.dataclass(frozen=True)
class JobClock:
    """The engine's time limit of a job and the time.monotonic() at which it ends (None: none)."""

    timeout_s: float | None = None
    deadline: float | None = None

    @staticmethod
    def start(timeout_s: float | None) -> "JobClock":
        if timeout_s is None or not timeout_s > 0:
            return JobClock()
        return JobClock(float(timeout_s), time.monotonic() + float(timeout_s))


# a shared object of the cache that the loader refused as damaged (scrubbed text: <inductor-cache>/...)
_DAMAGED = re.compile(r"<inductor-cache>/([A-Za-z0-9_./-]+?\.so)\b[^\n\"]{0,40}?(?:file too short|invalid ELF header)")


def _cache_dir() -> str:
    return os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")


def damaged_cache_files(record: dict[str, Any]) -> list[str]:
    """The files of inductor's cache that ``record`` says could not be loaded as damaged (and that
    exist: a file already gone is not removed twice); [] without a cache directory."""
    cache = _cache_dir()
    if not os.path.isabs(cache):
        return []
    found = []
    for rel in sorted(set(_DAMAGED.findall(json.dumps(record)))):
        full = os.path.normpath(os.path.join(cache, rel))
        if full.startswith(os.path.normpath(cache) + os.sep) and os.path.isfile(full):
            found.append(full)
    return found


def _run(case: Case, path: str, record: dict[str, Any], library: Library | None, threads: int,
         recorders: list[Recorder], clock: JobClock) -> None:
    """Fills ``record``; every recorder it used is appended to ``recorders``."""
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
        case, built = _materialize(case)  # a lazy target is built now, once per worker
    except (Exception, SystemExit) as e:  # noqa: BLE001 - constructing the target is part of eager
        recorders.append(getattr(e, "opsweep_recorder", Recorder()))
        record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
        record["error"] = evidence(e, library)
        finish("n/a", "eager", f"constructing the target raised {type(e).__name__}")
        return
    recorders.append(built)
    built_files = set(construction_files(case)) | _files(built)
    eager = Recorder()
    recorders.append(eager)
    try:
        raw, updated = _run_eager(case, eager)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the eager failure is the finding
        record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
        record["sources"] = _sources(_files(eager) | built_files, library)
        record["error"] = evidence(e, library)
        finish("n/a", "eager", f"the eager call raised {type(e).__name__}")
        return
    record["timings"]["eager_s"] = _seconds(time.perf_counter() - t0)
    record["sources"] = _sources(_files(eager) | built_files, library)
    probe = Recorder()
    recorders.append(probe)
    held = [raw]
    del raw
    with probe:
        _probe(case, spec, held, record, finish, library, threads, clock, updated)


def _probe(case: Case, spec: PathSpec, held: list[Any], record: dict[str, Any], finish: Any, library: Library | None,
           threads: int, clock: JobClock, updated: dict[str, Any]) -> dict[str, Any]:
    """Everything after the eager reference (``held``: its raw result; ``updated``: the state its
    call updated): flattening it, then the path's probe."""
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
            eager=lambda calls: eager_calls(case, calls),
            timeout_s=clock.timeout_s,
            deadline=clock.deadline,
            fields=path_fields(spec),
            state_expected=updated,
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
    for name, value in ctx.fields.items():
        record[name] = value
    if updated and "state" not in ctx.checks:  # a path that never compared it says so
        ctx.checks["state"] = Check(False, None, spec.state_unchecked or "the path stopped before its state could be compared")
    record["checks"] = {name: check.as_record() for name, check in sorted(ctx.checks.items())}
    record["timings"]["capture_s"] = _seconds(ctx.capture_s)
    record["timings"]["run_s"] = _seconds(ctx.run_s)
    if failure is not None:
        record["error"] = evidence(failure, library)
    elif ctx.side_error is not None:
        record["error"] = evidence(ctx.side_error, library)
    detail = "; ".join(d for d in [outcome.detail, *ctx.notes] if d)
    return finish(outcome.status, outcome.step, detail)
