"""The ``compile`` path: torch.compile (inductor), graph breaks as ``torch._dynamo.explain`` counts them.

Steps: ``compile`` (torch.compile(module, backend=BreakCounter(), fullgraph=False) and its first
call, under no_grad with seed 0; compilation happens inside that call), ``compare``.
- The backend (``BreakCounter``) hands every graph to inductor unchanged and counts the graphs of
  the first call. When that call was one graph and nothing broke (most cases), there is no break
  and explain, whose trace would be the same, is not run. Otherwise the breaks are counted by
  ``torch._dynamo.explain`` (its own trace, eager backend) once the compile is judged, or right
  after a first call that raised: the count every record has had. Until 2026-12-06 explain ran
  first for every case, a second trace that cost about as much as the compile's own once
  inductor's cache holds the graphs (bench/bench_compile_split.py, docs/performance.md).
- A failure of explain alone does not hide the compile result: graph_breaks stays null, the explain
  error is kept as the record's error (when the compile has none), and the note says so. When the
  compiled call raised, the record is that failure: its error, and a detail that is the compile's
  (empty, as every failure's, so the page names the failure by its reason); an explain that raised
  too leaves graph_breaks null and adds no note. Until 2026-12-07 such a record's detail was
  explain's ("graph breaks unknown: explain raised ..."), beside the compile's error.
- Dynamo state is reset before the compile, around explain and after the job, so one case's
  compiled code and guards never leak into the next.
- ``graph_breaks`` is never negative (see ``graph_break_count``); ``break_reasons`` are the first
  line of each reason, scrubbed, deduplicated in order, at most 20; ``break_frames`` is the
  parallel list of where Dynamo broke: for each reason, the library frames of its user stack
  (the first occurrence's, when the text repeats), at most 6, innermost first.
- Statuses: ``ok``; ``ok-breaks`` when graph_breaks > 0 (detail "N graph breaks"); ``mismatch``;
  ``fail``; check=False cases stay ``ok-unverified`` and mention their breaks in the detail.
- Timings: capture_s = the first call (the compile), also when it fails; run_s is null (the
  compared call compiled).
"""

from __future__ import annotations

import os
import time
from typing import Any

from opsweep.evidence import first_line, scrub, stack_frames
from opsweep.flatten import flatten
from opsweep.paths.context import ProbeContext
from opsweep.paths.spec import Outcome, PathSpec, Reproducer

MAX_REASONS = 20
# The record fields of this path (docs/formats.md section 3): how many graph breaks, their reasons
# and where Dynamo broke (null / empty in every other path's records).
RECORD_FIELDS = {"graph_breaks": None, "break_reasons": [], "break_frames": []}


def configure_inductor(threads: int) -> None:
    """Give inductor ``threads`` compile threads (at least one), unless TORCHINDUCTOR_COMPILE_THREADS
    is set: the compile paths call it before they compile."""
    import torch._inductor.config as inductor_config

    # One compile thread per worker thread: no pool of compile subprocesses per worker, which would
    # oversubscribe the machine (workers x threads <= cores). The env var, if set, wins.
    if "TORCHINDUCTOR_COMPILE_THREADS" not in os.environ:
        inductor_config.compile_threads = max(1, threads)


def graph_break_count(reported: int, reasons: int) -> int:
    """The number of graph breaks: never negative.

    explain's ``graph_break_count`` is ``graph_count - 1``: -1 when dynamo captured no graph at all
    (a function without tensor ops), and too low when a break leaves an empty region. The number
    of break reasons counts the break events themselves; the larger of the two wins, floored at 0.
    """
    return max(0, reported, reasons)


def _breaks_text(n: int) -> str:
    return f"{n} graph break{'s' if n != 1 else ''}"


class BreakCounter:
    """A torch.compile backend that counts the graphs Dynamo hands to inductor in the first call and
    keeps their graph-break reasons (as ``torch._dynamo.explain`` collects them: each graph's
    ``compile_subgraph_reason``), then compiles each graph with inductor exactly as
    ``torch.compile(backend="inductor")`` does (``compile_fx``, no config patch). ``stop()`` after
    the first call: graphs compiled by later calls are not counted.

    ``clean()``: the first call was one graph (or none) and nothing broke. Dynamo's trace of a frame
    does not depend on the backend up to its first graph, and with no break no frame is resumed, so
    explain's trace finds the same: no break (its count needs no second trace). Any other first call
    has its breaks counted by explain, as before: after a break, the resumed frames are traced with
    the values the previous graph computed, which inductor and explain's eager backend compute
    apart (a RANSAC loop whose model count depends on them compiles a different number of graphs).
    """

    def __init__(self) -> None:
        from torch._dynamo.backends.registry import lookup_backend

        self.inductor = lookup_backend("inductor")
        self.graphs = 0
        self.reasons: list[Any] = []
        self.counting = True
        self.__name__ = "inductor"  # the backend's name in torch's messages, as torch.compile names inductor

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        if self.counting:
            self.graphs += 1
            reason = getattr(gm, "compile_subgraph_reason", None)
            if reason is not None and getattr(reason, "graph_break", False):
                self.reasons.append(reason)
        return self.inductor(gm, example_inputs)

    def stop(self) -> None:
        self.counting = False

    def clean(self) -> bool:
        return self.graphs <= 1 and not self.reasons


def _record_breaks(ctx: ProbeContext, graph_count: int, break_reasons: Any) -> None:
    """The record's graph_breaks, break_reasons and break_frames (``RECORD_FIELDS``) from a trace's
    graphs and reasons."""
    reasons: list[str] = []
    frames: list[list[str]] = []
    for br in break_reasons:
        text = scrub(first_line(str(getattr(br, "reason", br))))
        if text and text not in reasons:
            reasons.append(text)
            stack = [(f.filename, f.lineno or 0) for f in getattr(br, "user_stack", None) or []]
            frames.append(stack_frames(stack, ctx.library))
    ctx.fields["break_reasons"] = reasons[:MAX_REASONS]
    ctx.fields["break_frames"] = frames[:MAX_REASONS]
    ctx.fields["graph_breaks"] = graph_break_count(graph_count - 1, len(break_reasons))


def _explain(ctx: ProbeContext, compile_raised: bool = False) -> None:
    """Graph breaks by ``torch._dynamo.explain``'s own trace (eager backend, seed 0, a fresh copy of
    the module). A failure of explain alone is kept as a side error: breaks unknown. After a
    compiled call that raised (``compile_raised``), explain's failure leaves the breaks unknown
    (graph_breaks null) and nothing else: the record's error and detail are the compile's."""
    import torch
    import torch._dynamo

    step = ctx.step
    ctx.step = "explain"
    torch._dynamo.reset()
    try:
        torch.manual_seed(0)
        with torch.no_grad():
            explained = torch._dynamo.explain(ctx.module(flat_outputs=False))(*ctx.inputs())
        _record_breaks(ctx, int(explained.graph_break_count) + 1, explained.break_reasons)
    except Exception as e:  # noqa: BLE001 - explain failing alone must not hide the compile's result
        ctx.fields["graph_breaks"] = None
        if not compile_raised:
            ctx.side_error = e
            ctx.notes.append(f"graph breaks unknown: explain raised {type(e).__name__}")
    finally:
        torch._dynamo.reset()
        ctx.step = step


def with_breaks(outcome: Outcome, breaks: int) -> Outcome:
    """A passing outcome's status and detail for ``breaks`` graph breaks (``ok``/``ok-breaks``,
    ``ok-unverified`` naming them); any other outcome as it is."""
    detail = _breaks_text(breaks) if breaks > 0 else ""
    if outcome.status in ("ok", "ok-breaks"):
        return Outcome("ok-breaks" if breaks > 0 else "ok", outcome.step, detail)
    if outcome.status == "ok-unverified":
        return Outcome("ok-unverified", outcome.step, detail)
    return outcome


def probe_compile(ctx: ProbeContext) -> Outcome:
    import torch
    import torch._dynamo

    configure_inductor(ctx.threads)
    counter = BreakCounter()

    def first_call_done() -> tuple[str, str]:
        counter.stop()
        if counter.clean():
            _record_breaks(ctx, counter.graphs, [])
            return "ok", ""
        # explain counts them once the compile is judged (with_breaks): the status already says breaks
        return "ok-breaks", ""

    try:
        ctx.step = "compile"
        torch._dynamo.reset()
        module = ctx.module(flat_outputs=False)
        compiled = torch.compile(module, backend=counter, fullgraph=False)

        def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
            with torch.no_grad():
                return flatten(compiled(*inputs))

        t1 = time.perf_counter()
        try:
            outcome = ctx.verify(run, "compile", ok=first_call_done, state=module)
        except Exception:
            if counter.counting or not counter.clean():  # the first call raised, or broke
                ctx.capture_s = ctx.run_s if ctx.run_s is not None else time.perf_counter() - t1
                ctx.run_s = None
                _explain(ctx, compile_raised=True)
            raise
        finally:
            # the first call compiled: it is capture time, and there is no separate run time
            if ctx.capture_s is None:
                ctx.capture_s = ctx.run_s if ctx.run_s is not None else time.perf_counter() - t1
            ctx.run_s = None
        if counter.clean():
            return outcome
        _explain(ctx)
        return with_breaks(outcome, ctx.fields["graph_breaks"] or 0)
    finally:
        torch._dynamo.reset()


# The reproducer: the compile with the path's own backend (inductor, the first call's graphs
# counted), run and judged as verify does; graph breaks counted as the path counts them, by
# explain when the first call broke.
REPRO = Reproducer(
    script='''\
import torch._dynamo

print("capture: torch.compile(module(False), backend=BreakCounter() (inductor, counting the first call's graphs), "
      "fullgraph=False)")
configure_inductor(1)
counter = BreakCounter()
torch._dynamo.reset()
try:
    target = module(False)
    compiled = torch.compile(target, backend=counter, fullgraph=False)
except Exception as e:
    failed("compile", e)


def run_compiled(xs):
    with torch.no_grad():
        out = flatten(compiled(*xs))
    counter.stop()  # the breaks are the first call's
    return out


check(run_compiled, "compile", "compiled", state=target)
if not counter.clean():
    print("the first call broke the graph: torch._dynamo.explain(module(False))(*INPUTS) counts the breaks")
    torch._dynamo.reset()
    try:
        torch.manual_seed(0)
        with torch.no_grad():
            explained = torch._dynamo.explain(module(False))(*INPUTS)
    except Exception as e:  # as the survey: the breaks are unknown, the compile's verdict stands
        explained = None
        print(f"graph breaks unknown: explain raised {type(e).__name__}: {e}")
    finally:
        torch._dynamo.reset()
    if explained is not None:
        reasons = []
        for br in explained.break_reasons:
            text = first_line(str(getattr(br, "reason", br)))
            if text and text not in reasons:
                reasons.append(text)
        count = graph_break_count(int(explained.graph_break_count), len(explained.break_reasons))
        for text in reasons:
            print(f"  break reason: {text}")
        if count:
            failed(f"graph breaks: {count}: " + "; ".join(reasons[:MAX_REASONS]))
print("opsweep-repro: ok: the compiled module matches eager, no graph break")
''',
    calls=(configure_inductor, BreakCounter, first_line, graph_break_count, ("opsweep.paths.compile", "MAX_REASONS")),
)

PATH = PathSpec(
    id="compile",
    title="torch.compile",
    label="compile",
    description="torch.compile (inductor); graph breaks counted, run and compared with eager",
    steps=("compile", "compare"),
    expected_seconds=20,
    probe=probe_compile,
    order=30,
    record_fields=RECORD_FIELDS,
    repro=REPRO,
)
