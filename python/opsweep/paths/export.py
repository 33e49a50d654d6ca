"""The ``export`` path: torch.export.export (non-strict), then the exported program is RUN.

Steps: ``export`` (torch.export.export(module, inputs, strict=False)), ``run`` (the exported
program's ``.module()`` called under no_grad: on the trace inputs, on fresh inputs, and under two
seeds for check=False cases; see ``ProbeContext.verify``), ``compare``.
Running the program is what the reference system never did: a capture that silently bakes a
wrong constant is a ``mismatch`` here, not an ``ok``. Timings: capture_s = export, run_s = run.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from opsweep.paths.context import ProbeContext
from opsweep.paths.spec import Outcome, PathSpec, Reproducer


def program_runner(program: Any) -> Callable[[tuple[Any, ...]], list[Any]]:
    """An exported program as a runner: its ``.module()`` called under no_grad, the outputs as a
    list (the export-dynamic path runs its program so too)."""
    import torch

    runnable = program.module()

    def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
        with torch.no_grad():
            out = runnable(*inputs)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    run.module = runnable  # type: ignore[attr-defined]  # what ProbeContext.verify reads the state of
    return run


def probe_export(ctx: ProbeContext) -> Outcome:
    import torch

    ctx.step = "export"
    module = ctx.module(flat_outputs=True)
    t0 = time.perf_counter()
    program = torch.export.export(module, ctx.inputs(), strict=False)
    ctx.capture_s = time.perf_counter() - t0
    run = program_runner(program)
    # the state check reads the module the runner calls (a buffer it mutates is updated there; a
    # plain tensor attribute export lifted as a constant is not)
    return ctx.verify(run, "run", state=run.module)



def exported_state(ctx: ProbeContext, program: Any) -> Callable[[list[str]], dict[str, Any]]:
    """The state check of a path that compiles an exported program (``ProbeContext.verify``'s
    ``state``): the program's module called once on the trace inputs under seed 0, its state under
    the names asked for. A package or an ExecuTorch program applies the buffer mutations of the
    program it was compiled from, and neither runtime lets its state be read: the program is what
    decides whether the update survives (torch.export drops a plain attribute's, keeps a buffer's)."""

    def read_state(names: list[str]) -> dict[str, Any]:
        import torch

        from opsweep.randomness import seed_everything
        from opsweep.state import read

        module = program.module()
        seed_everything(0)
        with torch.no_grad():
            module(*ctx.inputs())
        return read(module, names)

    return read_state

# The reproducer: the same export, then the program run and judged as verify does.
REPRO = Reproducer(
    script='''\
print("capture: torch.export.export(module(True), INPUTS, strict=False)")
try:
    program = torch.export.export(module(True), INPUTS, strict=False)
    run = program_runner(program)
except Exception as e:
    failed("export", e)
check(run, "run", "exported program", state=run.module)
print("opsweep-repro: ok: the exported program matches eager")
''',
    calls=(program_runner,),
)

PATH = PathSpec(
    id="export",
    title="torch.export",
    label="export",
    description="torch.export.export; the exported program is run and compared with eager",
    steps=("export", "run", "compare"),
    expected_seconds=3,
    probe=probe_export,
    order=20,
    repro=REPRO,
)
