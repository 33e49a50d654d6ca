"""The ``compile`` path: torch._dynamo.explain for graph breaks, then torch.compile (inductor).

Steps: ``explain`` (torch._dynamo.explain(module)(*inputs): graph-break count and reasons),
``compile`` (torch.compile(module, backend="inductor", fullgraph=False) and its first call, under
no_grad with seed 0; compilation happens inside that call), ``compare``.
- Dynamo state is reset before explain, between explain and compile, and after the job, so one
  case's compiled code and guards never leak into the next.
- A failure of explain alone does not hide the compile result: graph_breaks stays null, the explain
  error is kept as the record's error, and compile still runs.
- ``graph_breaks`` is never negative (see ``graph_break_count``); ``break_reasons`` are the first
  line of each reason, scrubbed, deduplicated in order, at most 20; ``break_frames`` is the
  parallel list of where Dynamo broke: for each reason, the library frames of its user stack
  (the first occurrence's, when the text repeats), at most 6, innermost first.
- Statuses: ``ok``; ``ok-breaks`` when graph_breaks > 0 (detail "N graph breaks"); ``mismatch``;
  ``fail``; check=False cases stay ``ok-unverified`` and mention their breaks in the detail.
- Timings: capture_s = explain + compile (first call), also when the compile fails; run_s is null
  (the compared call compiled).
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


def probe_compile(ctx: ProbeContext) -> Outcome:
    import torch
    import torch._dynamo

    _configure_inductor(ctx.threads)
    try:
        ctx.step = "explain"
        t0 = time.perf_counter()
        torch._dynamo.reset()
        try:
            torch.manual_seed(0)
            with torch.no_grad():
                explained = torch._dynamo.explain(ctx.module(flat_outputs=False))(*ctx.inputs())
            reasons: list[str] = []
            frames: list[list[str]] = []
            for br in explained.break_reasons:
                text = scrub(first_line(str(getattr(br, "reason", br))))
                if text and text not in reasons:
                    reasons.append(text)
                    stack = [(f.filename, f.lineno or 0) for f in getattr(br, "user_stack", None) or []]
                    frames.append(stack_frames(stack, ctx.library))
            ctx.break_reasons = reasons[:MAX_REASONS]
            ctx.break_frames = frames[:MAX_REASONS]
            ctx.graph_breaks = graph_break_count(int(explained.graph_break_count), len(explained.break_reasons))
        except Exception as e:  # noqa: BLE001 - explain failing alone must not hide compile
            ctx.side_error = e
            ctx.graph_breaks = None
            ctx.notes.append(f"graph breaks unknown: explain raised {type(e).__name__}")
        finally:
            torch._dynamo.reset()
        explain_s = time.perf_counter() - t0

        ctx.step = "compile"
        compiled = torch.compile(ctx.module(flat_outputs=False), backend="inductor", fullgraph=False)

        def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
            with torch.no_grad():
                return flatten(compiled(*inputs))

        breaks = ctx.graph_breaks or 0
        detail = _breaks_text(breaks) if breaks > 0 else ""
        t1 = time.perf_counter()
        try:
            return ctx.verify(run, "compile", ok_status="ok-breaks" if breaks > 0 else "ok", ok_detail=detail)
        finally:
            # the first call compiled: it is capture time, and there is no separate run time
            ctx.capture_s = explain_s + (ctx.run_s if ctx.run_s is not None else time.perf_counter() - t1)
            ctx.run_s = None
    finally:
        torch._dynamo.reset()


PATH = PathSpec(
    id="compile",
    title="torch.compile",
    label="compile",
    description="torch.compile (inductor); graph breaks counted, run and compared with eager",
    steps=("explain", "compile", "compare"),
    expected_seconds=20,
    probe=probe_compile,
    order=30,
    reproducible=True,
)
