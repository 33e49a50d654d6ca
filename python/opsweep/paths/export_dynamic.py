"""The ``export-dynamic`` path: torch.export.export with the case's varied dimensions marked
dynamic, then the program is run at three shapes and compared with eager at each.

Steps: ``no-dynamic-dims`` (n/a: no dimension may vary, or the case opts out), ``eager-other-shapes``
(n/a: eager raises at another shape, so the case needs an override; docs/dynamic-shapes.md),
``export``, ``run``, ``compare``.
- Shapes (opsweep/shapes.py): S0 is the case's own, S1 and S2 are larger in every varied dimension.
  The program is exported at S1 (``Dim.AUTO`` on each varied dimension, strict=False): a sample of
  size 0 or 1 would be specialised by torch.export whatever the code does, and S1 has none.
  It is then run at S0 and S2 (and S1 itself), each against eager on the same inputs.
- The exporter may keep a dimension dynamic, fix it to a constant (``int(x.shape[2])``, a loop over
  ``x.unbind(0)``) or limit its range (a branch ``if x.shape[-1] > 60``). ``findings`` reads that
  from the program's ShapeEnv (its constraint report: replacements, guards, ranges, runtime
  asserts), with the library line that caused it (``guard_locations``). A fixed dimension is held
  at its traced size when the program runs at other shapes, as is a limited one whose other size
  falls outside the range: specialised dimensions are not a failure of the program, they are
  part of its verdict.
- Then, at the case's own shape, the checks of ``ProbeContext.verify`` (paths/dynamic.py
  ``check_case_shape``): the case's fresh inputs, and for check=False cases randomness.
- Statuses: ``ok`` (every varied dimension stayed dynamic, every shape matches), ``ok-static``
  (some were fixed or limited; every shape it accepts matches; detail "static in H, W" /
  "W limited to <= 60"), ``ok-unverified`` (check=False cases, the detail as ok-static's),
  ``mismatch`` (at the trace shape, or at another shape: detail ``OTHER_SHAPE_ONLY; at
  1x3x32x40: ...``; on fresh inputs or frozen randomness: verify's details), ``fail`` (export
  raised, or the program raised at a shape: detail names the shape, the exception is the
  record's error), ``n/a``.
- ``record["dynamic"]`` (docs/formats.md section 3): the plan, the trace shape index (1), what the
  exporter specialised and why, the shape guards, and a verdict per shape.
- Timings: capture_s = export, run_s = the runs.
"""

from __future__ import annotations

import time

from opsweep import shapes
from opsweep.paths import dynamic as dyn
from opsweep.paths.context import ProbeContext
from opsweep.paths.export import program_runner
from opsweep.paths.spec import Outcome, PathSpec, Reproducer

TRACE = 1  # the shape the program is exported at (S1: no varied dimension of size 0 or 1)


def probe_export_dynamic(ctx: ProbeContext) -> Outcome:
    import torch
    from torch.export import Dim

    started = dyn.start(ctx, TRACE)
    if isinstance(started, Outcome):
        return started
    plan, refs = started

    trace_inputs, _, _ = refs.at(plan.shapes[TRACE])
    ctx.step = "export"
    module = ctx.module(flat_outputs=True)
    t0 = time.perf_counter()
    with dyn.guard_recorder(ctx.library) as recorded:
        try:
            program = torch.export.export(
                module,
                tuple(x.clone() for x in trace_inputs),
                dynamic_shapes=shapes.dynamic_shapes_spec(plan, trace_inputs, Dim.AUTO),
                strict=False,
            )
        except Exception:
            # the guards it recorded before it gave up say where the library fixed a size
            dyn.finish_record(ctx, plan, TRACE, [], [], dyn.recorded_texts(recorded))
            raise
    ctx.capture_s = time.perf_counter() - t0
    found, guards = dyn.read_findings(ctx, program, plan, recorded)
    runs = dyn.plan_runs(refs, TRACE, found)
    run = program_runner(program)
    ctx.run_s = dyn.run_shapes(ctx, runs, run, "run")
    dyn.finish_record(ctx, plan, TRACE, runs, found, guards)
    failed = dyn.verdict(ctx, runs, "run")
    if failed is not None:
        return failed
    text = dyn.summary(found, plan)
    status = "ok-static" if text else "ok"
    failed = dyn.check_case_shape(ctx, runs, run, "run", status, text)
    return failed if failed is not None else dyn.supported(ctx, status, text)


# The reproducer: the export at the trace shape with the varied dimensions Dim.AUTO, then the
# program run at every shape the survey ran it at.
REPRO = Reproducer(
    script='''\
from torch.export import Dim

print(f"capture: torch.export.export(module, inputs at {shape_text(TRACE['shape'])}, dynamic_shapes=<Dim.AUTO on the varied "
      "dimensions>, strict=False)")
try:
    program = torch.export.export(module(True), tuple(TRACE["inputs"]), dynamic_shapes=spec(Dim.AUTO), strict=False)
    run = program_runner(program)
except Exception as e:
    failed("export", e)
placeholders = [n for n in program.graph.nodes if n.op == "placeholder" and n.name in program.graph_signature.user_inputs]
for i, node in enumerate(placeholders):
    print(f"program input x{i}: shape {list(node.meta['val'].shape)}")
print("range constraints:", {str(k): str(v) for k, v in program.range_constraints.items()})
check_shapes(run, "run", "exported program")
print("opsweep-repro: ok: the exported program matches eager at every shape it accepts")
''',
    calls=(program_runner,),
    at_shapes=True,
)

PATH = PathSpec(
    state_unchecked=dyn.STATE_UNCHECKED,
    id="export-dynamic",
    title="torch.export, dynamic shapes",
    label="export dyn",
    description=(
        "torch.export.export with batch and H, W dynamic (Dim.AUTO); the program is run at three "
        "shapes and compared with eager at each"
    ),
    steps=("no-dynamic-dims", "eager-other-shapes", "export", "run", "compare"),
    expected_seconds=5,
    probe=probe_export_dynamic,
    order=40,
    group="dynamic shapes",
    record_fields=dyn.RECORD_FIELDS,
    repro=REPRO,
    uses=("opsweep.shapes", "opsweep.paths.dynamic", "opsweep.paths.export", *shapes.OVERRIDE_MODULES),
)
