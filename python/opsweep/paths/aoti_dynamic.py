"""The ``aoti-dynamic`` path: the program exported with the case's varied dimensions dynamic (as
the export-dynamic path exports it), compiled by AOTInductor into one package, loaded, and run at
three shapes against eager at each: does one deployed package serve other batch sizes and
resolutions?

Steps: ``no-dynamic-dims`` and ``eager-other-shapes`` (n/a, as every dynamic-shape path:
docs/dynamic-shapes.md), ``export`` (torch.export.export at S1 with ``Dim.AUTO`` on each varied
dimension, strict=False), ``compile`` (``aoti_compile_and_package`` of that program), ``load``,
``run`` (at S0, S1, S2; a dimension the exporter fixed or limited is held where the program
accepts it, exactly as export-dynamic runs its program), ``compare``.
- What the exporter specialised and why is read from the exported program (paths/dynamic.py
  ``read_findings``): AOTInductor compiles that program and adds no guard of its own, so the
  package accepts what the program accepts; a package that rejects or miscomputes a shape the
  program accepts is this path's finding (compare the export-dynamic column).
- Then, at the case's own shape, the checks of ``ProbeContext.verify``: fresh inputs, and for
  check=False cases randomness.
- Statuses as export-dynamic's: ``ok``, ``ok-static`` ("static in H, W"), ``ok-unverified``,
  ``mismatch``, ``fail``, ``n/a``. ``record["dynamic"]`` as every dynamic path's, and
  ``record["aoti"]`` as the aoti path's (package size, compile time).
- Timings: capture_s = export + compile + load; run_s = the runs.
"""

from __future__ import annotations

import time

from opsweep import shapes
from opsweep.paths import Outcome, PathSpec, ProbeContext, Reproducer
from opsweep.paths import dynamic as dyn
from opsweep.paths.aoti import build_and_load, compile_package, cxx_env, package_runner
from opsweep.paths.compile import configure_inductor

TRACE = 1  # the shape the program is exported and compiled at (S1: no varied dimension of size 0 or 1)


def probe_aoti_dynamic(ctx: ProbeContext) -> Outcome:
    import torch
    from torch.export import Dim

    configure_inductor(ctx.threads)
    started = dyn.start(ctx, TRACE)
    if isinstance(started, Outcome):
        return started
    plan, refs = started

    trace_inputs, _, _ = refs.at(plan.shapes[TRACE])
    ctx.step = "export"
    t0 = time.perf_counter()
    with dyn.guard_recorder(ctx.library) as recorded:
        try:
            program = torch.export.export(
                ctx.module(flat_outputs=True),
                tuple(x.clone() for x in trace_inputs),
                dynamic_shapes=shapes.dynamic_shapes_spec(plan, trace_inputs, Dim.AUTO),
                strict=False,
            )
        except Exception:
            dyn.finish_record(ctx, plan, TRACE, [], [], dyn.recorded_texts(recorded))
            raise
    exported = time.perf_counter()
    found, guards = dyn.read_findings(ctx, program, plan, recorded)
    runs = dyn.plan_runs(refs, TRACE, found)
    dyn.finish_record(ctx, plan, TRACE, runs, found, guards)

    run = build_and_load(ctx, program, t0, exported)

    ctx.run_s = dyn.run_shapes(ctx, runs, run, "run")
    dyn.finish_record(ctx, plan, TRACE, runs, found, guards)
    failed = dyn.verdict(ctx, runs, "run")
    if failed is not None:
        return failed
    text = dyn.summary(found, plan)
    status = "ok-static" if text else "ok"
    failed = dyn.check_case_shape(ctx, runs, run, "run", status, text)
    return failed if failed is not None else dyn.supported(ctx, status, text)


# The reproducer: the export at the trace shape with the varied dimensions Dim.AUTO, the package
# compiled from it, then run at every shape the survey ran it at.
REPRO = Reproducer(
    script='''\
from torch.export import Dim

print(f"capture: torch.export.export(module, inputs at {shape_text(TRACE['shape'])}, dynamic_shapes=<Dim.AUTO on the varied "
      "dimensions>, strict=False)")
try:
    program = torch.export.export(module(True), tuple(TRACE["inputs"]), dynamic_shapes=spec(Dim.AUTO), strict=False)
except Exception as e:
    failed("export", e)
print("range constraints:", {str(k): str(v) for k, v in program.range_constraints.items()})
print("compile: torch._inductor.aoti_compile_and_package(program, package_path='model.pt2')")
try:
    package = compile_package(program, HERE)
except Exception as e:
    failed("compile", e)
try:
    run = package_runner(package)
except Exception as e:
    failed("load", e)
check_shapes(run, "run", "AOTInductor package")
print("opsweep-repro: ok: the AOTInductor package matches eager at every shape it accepts")
''',
    calls=(compile_package, package_runner),
    at_shapes=True,
)

PATH = PathSpec(
    state_unchecked=dyn.STATE_UNCHECKED,
    id="aoti-dynamic",
    title="AOTInductor, dynamic shapes",
    label="AOTI dyn",
    description=(
        "torch.export with batch and H, W dynamic (Dim.AUTO), compiled by AOTInductor into one package; "
        "the package is run at three shapes and compared with eager at each"
    ),
    steps=("no-dynamic-dims", "eager-other-shapes", "export", "compile", "load", "run", "compare"),
    expected_seconds=70,
    probe=probe_aoti_dynamic,
    env=cxx_env,
    order=65,
    group="dynamic shapes",
    record_fields={"aoti": None, **dyn.RECORD_FIELDS},
    repro=REPRO,
    uses=("opsweep.shapes", "opsweep.paths.dynamic", "opsweep.paths.aoti", "opsweep.paths.compile",
          *shapes.OVERRIDE_MODULES),
)
