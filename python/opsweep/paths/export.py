"""The ``export`` path: torch.export.export (non-strict), then the exported program is RUN.

Steps: ``export`` (torch.export.export(module, inputs, strict=False)), ``run`` (the exported
program's ``.module()`` called under no_grad: on the trace inputs, on fresh inputs, and under two
seeds for check=False cases; see ``ProbeContext.verify``), ``compare``.
Running the program is what the reference system never did: a capture that silently bakes a
wrong constant is a ``mismatch`` here, not an ``ok``. Timings: capture_s = export, run_s = run.
"""

from __future__ import annotations

import time
from typing import Any

from opsweep.paths.base import Outcome, PathSpec, ProbeContext


def probe_export(ctx: ProbeContext) -> Outcome:
    import torch

    ctx.step = "export"
    module = ctx.module(flat_outputs=True)
    t0 = time.perf_counter()
    program = torch.export.export(module, ctx.inputs(), strict=False)
    ctx.capture_s = time.perf_counter() - t0

    runnable = program.module()

    def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
        with torch.no_grad():
            out = runnable(*inputs)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    return ctx.verify(run, "run")


PATH = PathSpec(
    id="export",
    title="torch.export",
    label="export",
    description="torch.export.export; the exported program is run and compared with eager",
    steps=("export", "run", "compare"),
    expected_seconds=3,
    probe=probe_export,
    order=20,
    reproducible=True,
)
