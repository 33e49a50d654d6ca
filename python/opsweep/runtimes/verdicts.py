"""Sub-verdicts of the onnx path: each runtime on the exported file, each extra opset.

A sub-verdict is judged exactly like the path's own verdict: the captured program runs on the
trace inputs, on fresh inputs and (check=False cases) twice for the randomness check, each
compared with eager on the same inputs (``ProbeContext.verify`` on a *sub-context*: its own step,
checks and timings, the job's eager results shared, so eager runs once per input set for the whole
job). The record of one sub-verdict (docs/formats.md section 3, ``subverdicts``)::

    {"status": "ok" | "ok-unverified" | "mismatch" | "fail" | "timeout" | "crash",
     "step": "" | "load" | "compile" | "run" | "compare"                      (runtimes)
           | "" | "convert" | "export" | "checker" | "ort-load" | "ort-run" | "compare"  (opsets),
     "detail": "...", "error": {"type","message","chain","frames"} | null,
     "checks": {"fresh_inputs": {...}, "randomness": {...}},
     "timings": {"total_s": 0.12}}

Which sub-verdicts a record holds (``ExtraVerdicts``): every runtime once the export and the
checker passed (the one checked file; absent otherwise: there is no file to run); opset N < 18
once the opset-18 translation reached its conversion step (absent otherwise: torch would have
failed the same way before converting); opset N > 18 always (its own export). Nothing here
raises: whatever goes wrong is the sub-verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
import time
from typing import Any, Callable, Iterator

from opsweep.evidence import CHAIN_LIMIT, MESSAGE_LIMIT, bound, evidence, exception_chain, neutralise, scrub
from opsweep.paths.context import ProbeContext, RecordFields
from opsweep.paths.spec import Outcome
from opsweep.runtimes import RuntimeSpec, enabled
from opsweep.runtimes import opsets as _opsets
from opsweep.runtimes.client import Reply, RuntimeHost, shared_host

FRESH_RAISED = "ran on its trace inputs but raised on fresh inputs"
RESERVE_S = 30.0  # of a job's time limit, kept for the record after the sub-verdicts (at most 10% of it)
HOST_KEEP_MIB = 1024  # a runtime host larger than this after a job is closed (the next starts small)
LARGE_MODEL_BYTES = 64 << 20  # from this file size on, memory is handed back between sub-verdicts


def release_memory() -> None:
    """Collect garbage and hand freed heap back to the system (glibc's ``malloc_trim``), so the
    worker's resident size, which the engine's memory limit counts, is what it still holds."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the collection is all there is
        pass


def stop_at(ctx: ProbeContext) -> float | None:
    """The time.monotonic() by which every sub-verdict must have ended (None: no limit): the
    engine's deadline of the job less a reserve for building and sending the record. The path's
    own verdict is known before any sub-verdict starts; a sub-verdict still running at the end of
    the job's time would lose it to the engine's timeout, so it becomes a ``timeout`` of its own."""
    if ctx.deadline is None or ctx.timeout_s is None:
        return None
    return ctx.deadline - min(RESERVE_S, 0.1 * ctx.timeout_s)


def job_time_text(ctx: ProbeContext) -> str:
    return f"the job's time limit of {ctx.timeout_s:g} s"


class OutOfJobTime(BaseException):
    """Raised into a sub-verdict that runs in the worker when the job's time is spent (a
    BaseException: the sub-verdict's own ``except Exception`` must not judge it a failure)."""


@contextlib.contextmanager
def alarm_at(when: float | None) -> Iterator[None]:
    """Raise OutOfJobTime in this (the main) thread at time.monotonic() ``when``; nothing when
    ``when`` is None or this is not the main thread (signals are delivered to the main thread only).
    Python code is interrupted at the next bytecode; a long call into C++ ends first (the engine's
    timeout stays the hard limit)."""
    if when is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise OutOfJobTime()

    left = when - time.monotonic()
    if left <= 0:
        raise OutOfJobTime()
    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, left)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def not_started(ctx: ProbeContext, started: float) -> dict[str, Any]:
    """The sub-verdict of one that did not start: the job's time was spent before its turn."""
    return {
        "status": "timeout",
        "step": "",
        "detail": f"not run: {job_time_text(ctx)} was spent before its turn; the path's own verdict stands",
        "error": None,
        "checks": {},
        "timings": {"total_s": round(time.perf_counter() - started, 4)},
    }


def sub_context(ctx: ProbeContext) -> ProbeContext:
    """A context for one sub-verdict: the job's case, eager reference and caches; its own step,
    checks, timings and findings."""
    return dataclasses.replace(ctx, step="", capture_s=None, run_s=None, side_error=None, notes=[], checks={},
                               fields=RecordFields())


def _record(status: str, step: str, detail: str, error: dict[str, Any] | None, sub: ProbeContext,
            started: float, library: Any) -> dict[str, Any]:
    return {
        "status": status,
        "step": step,
        "detail": scrub(detail, library),
        "error": error,
        "checks": {name: check.as_record() for name, check in sorted(sub.checks.items())},
        "timings": {"total_s": round(time.perf_counter() - started, 4)},
    }


class RuntimeFailed(Exception):
    """A host request that did not answer ``ok`` (raised inside ``verify``'s run callable)."""

    def __init__(self, step: str, reply: Reply):
        super().__init__(reply.detail or (reply.error.get("message") or "runtime error"))
        self.step = step
        self.reply = reply


def _host_error(error: dict[str, Any], library: Any) -> dict[str, Any]:
    return {
        "type": str(error.get("type") or "RuntimeError"),
        "message": scrub(str(error.get("message") or ""), library)[:MESSAGE_LIMIT],
        "chain": bound(scrub(str(error.get("chain") or ""), library), CHAIN_LIMIT),
        "frames": [],
    }


def graph_input_names(model: Any) -> list[str]:
    """The graph inputs of a ModelProto (or its serialized bytes), in order, initializers left out."""
    import onnx

    proto = onnx.load_model_from_string(model) if isinstance(model, (bytes, bytearray)) else model
    initializers = {t.name for t in proto.graph.initializer}
    return [i.name for i in proto.graph.input if i.name not in initializers]


def judge_runtime(ctx: ProbeContext, spec: RuntimeSpec, model: bytes, host: RuntimeHost,
                  input_names: list[str] | None = None) -> dict[str, Any]:
    """The sub-verdict of ``spec`` on the exported ``model`` (serialized ModelProto).

    The host is shared by the worker's jobs. A crash in a host that earlier jobs used may be their
    state's doing, not this model's (OpenVINO segfaulted on a random graph after a test session's
    other models, never alone): the crashed host is gone, so the job is judged once more in a fresh
    one, and that answer is the verdict, with a note when it differs."""
    first = _judge_runtime_once(ctx, spec, model, host, input_names)
    if first["status"] != "crash":
        return first
    second = _judge_runtime_once(ctx, spec, model, host, input_names)
    if second["status"] != "crash":
        second["detail"] = scrub(
            (second["detail"] + "; " if second["detail"] else "")
            + f"a first attempt crashed the shared runtime host ({first['detail']}); this is the answer of a fresh host",
            ctx.library)
    else:
        second["detail"] = scrub(second["detail"] + " (in a fresh runtime host too)", ctx.library)
    return second


def _judge_runtime_once(ctx: ProbeContext, spec: RuntimeSpec, model: bytes, host: RuntimeHost,
                        input_names: list[str] | None) -> dict[str, Any]:
    names = graph_input_names(model) if input_names is None else input_names
    sub = sub_context(ctx)
    started = time.perf_counter()
    own = time.monotonic() + spec.time_limit_s
    job_end = stop_at(ctx)
    deadline = own if job_end is None else min(own, job_end)

    def call(step: str, message: dict[str, Any]) -> Reply:
        sub.step = step
        reply = host.request(message, deadline - time.monotonic())
        if reply.kind != "ok":
            raise RuntimeFailed(step, reply)
        return reply

    def run(inputs: tuple[Any, ...]) -> list[Any]:
        arrays = [x.detach().cpu().contiguous().numpy() for x in inputs]
        return list(call("run", {"op": "run", "inputs": arrays}).value["outputs"])

    try:
        call("load", {"op": "load", "adapter": spec.adapter, "model": model, "input_names": names})
        call("compile", {"op": "compile"})
        outcome = sub.verify(run, "run")
        return _record(outcome.status, outcome.step, outcome.detail, None, sub, started, ctx.library)
    except RuntimeFailed as f:
        kind = f.reply.kind
        if kind == "timeout":
            if deadline < own:  # the job's end came first
                detail = (f"no answer before {job_time_text(ctx)} ran out (step {f.step}, after "
                          f"{time.perf_counter() - started:.0f} s); the runtime host was killed; "
                          "the path's own verdict stands")
            else:
                detail = (f"no answer within the {spec.time_limit_s:g} s time limit of {spec.title} "
                          f"(step {f.step}); the runtime host was killed")
            return _record("timeout", f.step, detail, None, sub, started, ctx.library)
        if kind == "crash":
            return _record("crash", f.step, f"{f.reply.detail} during {f.step}", None, sub, started, ctx.library)
        detail = FRESH_RAISED if getattr(f, "opsweep_fresh_inputs", False) else ""
        return _record("fail", f.step, detail, _host_error(f.reply.error, ctx.library), sub, started, ctx.library)
    except Exception as e:  # noqa: BLE001 - e.g. an output numpy cannot compare: still data
        detail = FRESH_RAISED if getattr(e, "opsweep_fresh_inputs", False) else ""
        return _record("fail", sub.step or "run", detail, evidence(e, ctx.library), sub, started, ctx.library)
    finally:
        if host.alive():
            host.request({"op": "close"}, 10.0)


def judge_opset(ctx: ProbeContext, opset: int, make_model: Callable[[], Any],
                ort_session: Callable[[bytes, int], Any],
                run_session: Callable[[Any, list[Any], tuple[Any, ...]], list[Any]]) -> dict[str, Any]:
    """The sub-verdict of opset ``opset``: ``make_model()`` gives its ModelProto (at the step the
    sub-context says: convert or export), then checker, onnxruntime, fidelity checks. It runs in
    the worker, so the end of the job's time is an alarm (``alarm_at``): a ``timeout`` sub-verdict."""
    sub = sub_context(ctx)
    started = time.perf_counter()
    try:
        with alarm_at(stop_at(ctx)):
            return _judge_opset(ctx, sub, started, opset, make_model, ort_session, run_session)
    except OutOfJobTime:
        return _record("timeout", sub.step,
                       f"no result before {job_time_text(ctx)} ran out (step {sub.step}, after "
                       f"{time.perf_counter() - started:.0f} s); the path's own verdict stands",
                       None, sub, started, ctx.library)


def _judge_opset(ctx: ProbeContext, sub: ProbeContext, started: float, opset: int, make_model: Callable[[], Any],
                 ort_session: Callable[[bytes, int], Any],
                 run_session: Callable[[Any, list[Any], tuple[Any, ...]], list[Any]]) -> dict[str, Any]:
    import onnx

    try:
        sub.step = _opsets.conversion_step(opset)
        model = make_model()
        got = _opsets.model_opset(model)
        if got != opset:
            raise _opsets.ConversionFailed(
                f"torch.onnx.export(opset_version={opset}) returned a model at opset {got}"
            )
        sub.step = "checker"
        onnx.checker.check_model(model, full_check=True)
        sub.step = "ort-load"
        data = model.SerializeToString()
        session = ort_session(data, ctx.threads)
        feeds_spec = session.get_inputs()
        if len(feeds_spec) != len(ctx.case.inputs):
            sub.step = "ort-run"
            raise RuntimeError(f"the ONNX graph has {len(feeds_spec)} inputs, the case has {len(ctx.case.inputs)}")

        def run(inputs: tuple[Any, ...]) -> list[Any]:
            # the path's own call: outputs copied while the feeds live (onnxruntime 1.23 returns an
            # output that is a graph input as a view of the freed feed: SIGSEGV or a wrong mismatch)
            return run_session(session, feeds_spec, inputs)

        outcome: Outcome = sub.verify(run, "ort-run")
        return _noted(_record(outcome.status, outcome.step, outcome.detail, None, sub, started, ctx.library),
                      make_model, ctx)
    except ConversionCrashed as e:  # the conversion killed its process: in torch.onnx.export, the user's
        return _record("crash", sub.step,
                       scrub(f"{e.detail} during {sub.step} (in a fresh runtime host too): the version conversion "
                             f"killed its process, as it would the caller of torch.onnx.export(opset_version="
                             f"{opset}); the path's own verdict stands", ctx.library),
                       None, sub, started, ctx.library)
    except Exception as e:  # noqa: BLE001 - a failure of this opset is its verdict
        if any(isinstance(x, OutOfJobTime) for x in exception_chain(e)):  # wrapped by the exporter
            raise OutOfJobTime() from e
        detail = FRESH_RAISED if getattr(e, "opsweep_fresh_inputs", False) else ""
        error = _conversion_error(e.error, ctx.library) if isinstance(e, ConversionRaised) else evidence(e, ctx.library)
        return _noted(_record("fail", sub.step, detail, error, sub, started, ctx.library), make_model, ctx)


def _noted(record: dict[str, Any], make_model: Any, ctx: ProbeContext) -> dict[str, Any]:
    """The record with the conversion's note (a first attempt that crashed the host) in its detail."""
    note = getattr(make_model, "note", "")
    if note:
        record["detail"] = scrub((record["detail"] + "; " if record["detail"] else "") + note, ctx.library)
    return record


class ConversionRaised(Exception):
    """The conversion raised in the runtime host; ``error`` is the host's (type, message, chain)."""

    def __init__(self, error: dict[str, Any]):
        super().__init__(str(error.get("message") or ""))
        self.error = error


class ConversionCrashed(Exception):
    """The runtime host died converting (twice: a first crash is retried in a fresh host)."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


IN_WORKER_BYTES = 256 << 20  # a captured model this large is converted in the worker (see converted)
CONVERT_LIMIT_S = 600.0  # a conversion's time limit when the job has none


def _conversion_error(error: dict[str, Any], library: Any) -> dict[str, Any]:
    """The record's error object for a conversion that raised in the host: what ``evidence`` gives
    for the same exception in the worker (root cause's type and message, the whole chain; a
    conversion runs no library or registry code, so no frames)."""
    return {
        "type": str(error.get("type") or "RuntimeError"),
        "message": neutralise(scrub(str(error.get("message") or ""), library))[:MESSAGE_LIMIT],
        "chain": bound(neutralise(scrub(str(error.get("chain") or ""), library)), CHAIN_LIMIT),
        "frames": [],
        "registry_frames": [],
        "raised_in": "",
    }


class Conversion:
    """``make_model`` of an opset below 18: ``opsets.convert(captured, opset)`` run in the worker's
    runtime host, not in the worker. Below opset 18, torch 2.9's onnxscript hands the conversion to
    onnx's C API version converter, which can die with SIGSEGV (opsets.convert_serialized).

    A host that dies is asked once more, fresh (a shared host's crash may be its earlier requests'
    doing, as in ``judge_runtime``): dying twice is ConversionCrashed; an answer the second time is
    the verdict, and ``note`` says that the first attempt crashed. A conversion that raises is
    ConversionRaised; one still running at the end of the job's time raises OutOfJobTime (the host
    is killed). A model of ``IN_WORKER_BYTES`` or more is converted in the worker, as before: the
    host would receive a copy of it and convert it within its memory budget, which a large model's
    conversion can exceed."""

    def __init__(self, ctx: ProbeContext, captured: Any, opset: int):
        self.ctx = ctx
        self.captured = captured
        self.opset = opset
        self.note = ""

    def __call__(self) -> Any:
        import onnx

        if self.captured.ByteSize() >= IN_WORKER_BYTES:
            return _opsets.convert(self.captured, self.opset)
        message = {"op": "convert", "model": self.captured.SerializeToString(), "opset": self.opset,
                   "apis": _opsets.apis_name()}
        host = shared_host(self.ctx.threads)
        end = stop_at(self.ctx)
        first = ""
        while True:
            deadline = end if end is not None else time.monotonic() + CONVERT_LIMIT_S
            try:
                reply = host.request(message, deadline - time.monotonic())
            except BaseException:  # the job's alarm in the middle of a request: the host goes with it
                host.kill()
                raise
            if first and reply.kind != "crash":
                self.note = (f"a first attempt crashed the shared runtime host ({first} during convert); "
                             "this is the answer of a fresh host")
            if reply.kind == "ok":
                return onnx.ModelProto.FromString(reply.value["model"])
            if reply.kind == "error":
                raise ConversionRaised(reply.error)
            if reply.kind == "timeout":
                if end is not None:
                    raise OutOfJobTime()
                raise ConversionRaised({"type": "TimeoutError", "chain": "",
                                        "message": f"no converted model within {CONVERT_LIMIT_S:g} s"})
            if first:
                raise ConversionCrashed(reply.detail)
            first = reply.detail or "it died"


class ExtraVerdicts:
    """What the onnx probe does besides onnxruntime at opset 18, in three calls:

        extra = ExtraVerdicts(ctx, export=..., ort_session=..., run_session=...)
        with extra.capture.around_export(): program = torch.onnx.export(...)
        extra.checked(model_bytes)          # after onnx.checker passed
        ...                                 # the path's own onnxruntime verdict
        extra.finish()                      # in a finally: runs the runtimes and the opsets

    ``export(opset)`` re-exports the case at an opset above 18 (the path's own call with another
    ``opset_version``); ``ort_session(bytes, threads)`` is the path's onnxruntime session and
    ``run_session(session, feeds_spec, inputs)`` its call (outputs that own their memory).
    """

    def __init__(self, ctx: ProbeContext, export: Callable[[int], Any],
                 ort_session: Callable[[bytes, int], Any],
                 run_session: Callable[[Any, list[Any], tuple[Any, ...]], list[Any]]):
        self.ctx = ctx
        self.export = export
        self.ort_session = ort_session
        self.run_session = run_session
        self.opsets = _opsets.extra()
        self.capture = _opsets.ConversionCapture(any(n < _opsets.OPSET for n in self.opsets))
        self.model: bytes | None = None
        self.input_names: list[str] | None = None

    def checked(self, model: bytes, input_names: list[str] | None = None) -> None:
        """The checked file's bytes, and its graph inputs when the caller has them (parsing a large
        file again for its input names costs a copy of its weights)."""
        self.model = model
        self.input_names = input_names

    def _late(self) -> dict[str, Any] | None:
        """A ``timeout`` sub-verdict when the job's time for sub-verdicts is spent; else None."""
        end = stop_at(self.ctx)
        if end is not None and time.monotonic() >= end:
            return not_started(self.ctx, time.perf_counter())
        return None

    def finish(self) -> dict[str, dict[str, Any]]:
        """Runs the runtimes, then the opsets. What each stage no longer needs is dropped before the
        next, and returned to the system (``release_memory``): the engine limits the memory of the
        worker's process group, host included, so what the worker keeps from the path's own verdict
        (the file's bytes, the captured pre-conversion model, freed but unreturned heap) is room a
        runtime's budget does not get (client.RuntimeHost.budget) or an opset's export cannot use.
        A host left large by a big model is closed after it: the next job's host starts small."""
        out: dict[str, dict[str, Any]] = {}
        large = self.model is not None and len(self.model) >= LARGE_MODEL_BYTES
        release = release_memory if large else (lambda: None)  # a collection costs; a small file needs none
        try:
            if self.model is not None:
                runtimes = enabled()
                if runtimes:
                    host = shared_host(self.ctx.threads)
                    names = self.input_names if self.input_names is not None else graph_input_names(self.model)
                    release()
                    for spec in runtimes:
                        out[spec.id] = (self._late() or
                                        judge_runtime(self.ctx, spec, self.model, host, names))
                    host.close_if_larger_than(HOST_KEEP_MIB)
            self.model = None
            captured, self.capture.model = self.capture.model, None
            release()
            # the conversions below 18 first (from the captured model), then the copy goes, then the
            # exports above 18 (the record's sub-verdicts are keyed by id: the order is not kept)
            for n in sorted(self.opsets):
                key = _opsets.subverdict_id(n)
                if n < _opsets.OPSET:
                    if captured is not None:
                        out[key] = self._late() or judge_opset(
                            self.ctx, n, Conversion(self.ctx, captured, n), self.ort_session,
                            self.run_session)
                else:
                    if captured is not None:
                        captured = None
                        release()
                    out[key] = self._late() or judge_opset(self.ctx, n, lambda: self.export(n), self.ort_session,
                                                               self.run_session)
                release()
            if any(n < _opsets.OPSET for n in self.opsets):  # the conversions ran in the host
                shared_host(self.ctx.threads).close_if_larger_than(HOST_KEEP_MIB)
        finally:
            # the record's subverdicts (the onnx path's record field), by id
            fields = self.ctx.fields
            if "subverdicts" in fields:
                fields["subverdicts"] = dict(sorted({**fields["subverdicts"], **out}.items()))
        return out
