"""The ``compile`` path: torch.compile (inductor), its graph breaks counted in the same trace.

Steps: ``compile`` (torch.compile(module, backend=BreakCounter(), fullgraph=False) and its first
call, under no_grad with seed 0; compilation happens inside that call), ``compare``.
- Graph breaks are counted as ``torch._dynamo.explain`` counts them (one graph per region, each
  later graph's ``compile_subgraph_reason``), by a backend that then hands each graph to inductor
  unchanged (``BreakCounter``; torch's own ``ExplainWithBackend("inductor")`` does the same): one
  Dynamo trace gives both the verdict and the breaks of the first call. Graphs compiled by later
  calls (a guard failing on fresh inputs) are not counted. Until 2026-12-06 the path ran explain
  first: a second trace, which cost as much as the compile's own once inductor's cache holds the
  graphs (bench/bench_compile_split.py, docs/performance.md).
- A compile whose first call raises never reached the end of its trace: its breaks are then
  counted by ``torch._dynamo.explain`` (its own trace, eager backend), after the failure. A failure
  of explain alone does not hide the compile's: graph_breaks stays null, the note says so.
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
from opsweep.paths.base import Outcome, PathSpec, ProbeContext

MAX_REASONS = 20


def _configure_inductor(threads: int) -> None:
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
    """A torch.compile backend that counts the graphs Dynamo hands to inductor and keeps each one's
    graph-break reason, as ``torch._dynamo.explain`` counts them (its ``_explain_graph_detail``; the
    backend form is torch's own ``ExplainWithBackend("inductor")``), then compiles the graph with
    inductor exactly as ``torch.compile(backend="inductor")`` does (``compile_fx``, no config patch).

    One trace gives both the verdict's compiled code and its graph breaks: explain's separate trace
    cost about as much as the compile's own once inductor's cache holds the graphs (a refresh),
    bench/bench_compile_split.py. ``stop()`` after the first call: later calls that compile again
    (a guard that fails on fresh inputs) are not breaks of the traced call, and explain made one call.
    """

    def __init__(self) -> None:
        from torch._dynamo.backends.registry import lookup_backend

        self.inductor = lookup_backend("inductor")
        self.graphs = 0
        self.reasons: list[Any] = []
        self.counting = True
        self.__name__ = "inductor"  # what torch.compile's wrapper calls this backend in logs

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        if self.counting:
            self.graphs += 1
            reason = getattr(gm, "compile_subgraph_reason", None)
            if reason is not None and getattr(reason, "graph_break", False):
                self.reasons.append(reason)
        return self.inductor(gm, example_inputs)

    def stop(self) -> None:
        self.counting = False


def _record_breaks(ctx: ProbeContext, graph_count: int, break_reasons: Any) -> None:
    """The record's graph_breaks, break_reasons and break_frames from a trace's graphs and reasons."""
    reasons: list[str] = []
    frames: list[list[str]] = []
    for br in break_reasons:
        text = scrub(first_line(str(getattr(br, "reason", br))))
        if text and text not in reasons:
            reasons.append(text)
            stack = [(f.filename, f.lineno or 0) for f in getattr(br, "user_stack", None) or []]
            frames.append(stack_frames(stack, ctx.library))
    ctx.break_reasons = reasons[:MAX_REASONS]
    ctx.break_frames = frames[:MAX_REASONS]
    ctx.graph_breaks = graph_break_count(graph_count - 1, len(break_reasons))


def _explain(ctx: ProbeContext) -> None:
    """Graph breaks by ``torch._dynamo.explain``'s own trace (a compile that failed before its
    first call returned). A failure of explain alone is kept as a side error: breaks unknown."""
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
    except Exception as e:  # noqa: BLE001 - explain failing alone must not hide the compile's own failure
        ctx.side_error = e
        ctx.graph_breaks = None
        ctx.notes.append(f"graph breaks unknown: explain raised {type(e).__name__}")
    finally:
        torch._dynamo.reset()
        ctx.step = step


def probe_compile(ctx: ProbeContext) -> Outcome:
    import torch
    import torch._dynamo

    _configure_inductor(ctx.threads)
    counter = BreakCounter()
    counted = False

    def breaks_counted() -> tuple[str, str]:
        # after the first call, before any other: the verdict's status and detail name its breaks
        nonlocal counted
        counter.stop()
        counted = True
        _record_breaks(ctx, counter.graphs, counter.reasons)
        n = ctx.graph_breaks or 0
        return ("ok-breaks", _breaks_text(n)) if n > 0 else ("ok", "")

    try:
        ctx.step = "compile"
        torch._dynamo.reset()
        compiled = torch.compile(ctx.module(flat_outputs=False), backend=counter, fullgraph=False)

        def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
            with torch.no_grad():
                return flatten(compiled(*inputs))

        t1 = time.perf_counter()
        try:
            return ctx.verify(run, "compile", ok=breaks_counted)
        except Exception:
            if not counted:  # the first call raised: how many breaks its code has, explain says
                ctx.capture_s = time.perf_counter() - t1
                _explain(ctx)
            raise
        finally:
            # the first call compiled: it is capture time, and there is no separate run time
            if ctx.capture_s is None:
                ctx.capture_s = ctx.run_s if ctx.run_s is not None else time.perf_counter() - t1
            ctx.run_s = None
    finally:
        torch._dynamo.reset()


PATH = PathSpec(
    id="compile",
    title="torch.compile",
    label="compile",
    description="torch.compile (inductor); graph breaks counted, run and compared with eager",
    steps=("compile", "compare"),
    expected_seconds=20,
    probe=probe_compile,
    order=30,
    reproducible=True,
)
