"""The ``onnx-dynamic`` path: the dynamo ONNX export with the case's varied dimensions dynamic,
onnx.checker, then onnxruntime at three shapes, each compared with eager.

Steps: ``no-dynamic-dims``, ``eager-other-shapes`` (n/a, as export-dynamic), ``export``
(torch.onnx.export(dynamo=True, opset 18, dynamic_shapes with ``Dim.DYNAMIC`` on every varied
dimension: what ``dynamic_axes`` becomes), ``checker`` (full check), ``ort-load`` (CPU),
``ort-run``, ``compare``.
- The model is exported at S1 (as export-dynamic) and run at S0, S1 and S2 (opsweep/shapes.py).
- A dimension the ONNX model declares static (a ``dim_value`` on its input) is held at its traced
  size when the model runs at other shapes: the model says so, onnxruntime would refuse other
  sizes, and the verdict is ``ok-static`` ("static in batch"). A dimension it declares dynamic is
  run at every size, whatever the exporter did while tracing: ONNX keeps no guard, so a size fixed
  or limited during export (read from the exported program's constraint report, see
  paths/dynamic.py ``findings``) shows up as a wrong result at another shape, and the detail says
  which dimension was fixed and where ("H was fixed at 48 during export: x0[2] == 48 at ...").
- Then, at the case's own shape when the model accepts it, the checks of ``ProbeContext.verify``
  (paths/dynamic.py ``check_case_shape``): the case's fresh inputs, for check=False cases
  randomness (onnxruntime has no seed: runs must differ where eager's seeds do).
- Statuses: ``ok``, ``ok-static``, ``ok-unverified`` (check=False cases), ``mismatch``, ``fail``
  (at export: e.g. the exporter refuses a dimension marked dynamic, located as the onnx path
  locates it; at ort-run: names the shape), ``n/a``.
- Env: onnx, onnxscript, onnxruntime, opset (not the onnx path's other runtimes: it runs none).
- ``record["onnx"]`` as the onnx path; ``record["dynamic"]`` as export-dynamic, where
  ``specialised`` lists the declared-static dimensions (``source`` "onnx-input") and what the
  exporter fixed or limited while tracing (``source`` "export").
- Timings: capture_s = export + checker + ort-load, run_s = the runs.
"""

from __future__ import annotations

import time
from typing import Any

from opsweep import shapes
from opsweep.paths import dynamic as dyn
from opsweep.paths.context import ProbeContext
from opsweep.paths.spec import Outcome, PathSpec, Reproducer, dist_version
from opsweep.paths.onnx import OPSET, cache_torchlib_ops, locate_failed_node, op_types, ort_session, run_session

TRACE = 1


def declared_static(model: Any, plan: shapes.Plan) -> list[dyn.Finding]:
    """The varied dimensions the ONNX model's inputs declare with a fixed size."""
    inputs = list(model.graph.input)
    out = []
    for v in plan.dims:
        if v.input >= len(inputs):
            continue
        dims = inputs[v.input].type.tensor_type.shape.dim
        if v.dim < len(dims) and dims[v.dim].HasField("dim_value") and not dims[v.dim].dim_param:
            size = int(dims[v.dim].dim_value)
            out.append(dyn.Finding(
                v.input, v.dim, v.name, "constant", value=size,
                why=f"the ONNX input {inputs[v.input].name!r} declares dimension {v.dim} = {size}",
                source="onnx-input",
            ))
    return out


def probe_onnx_dynamic(ctx: ProbeContext) -> Outcome:
    import onnx
    import torch
    from torch.export import Dim

    started = dyn.start(ctx, TRACE)
    if isinstance(started, Outcome):
        return started
    plan, refs = started
    trace_inputs, _, _ = refs.at(plan.shapes[TRACE])

    cache_torchlib_ops()
    ctx.step = "export"
    module = ctx.module(flat_outputs=True)
    t0 = time.perf_counter()
    with dyn.guard_recorder(ctx.library) as recorded:
        try:
            program = torch.onnx.export(
                module,
                tuple(x.clone() for x in trace_inputs),
                dynamo=True,
                opset_version=OPSET,
                dynamic_shapes=shapes.dynamic_shapes_spec(plan, trace_inputs, Dim.DYNAMIC),
                verbose=False,
                artifacts_dir=ctx.workdir,
            )
        except Exception as e:
            # the guards it recorded before it gave up say where the library fixed a size
            dyn.finish_record(ctx, plan, TRACE, [], [], dyn.recorded_texts(recorded))
            locate_failed_node(ctx, e)  # as the onnx path: where eager calls the op that failed
            raise
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
    model = program.model_proto
    data = model.SerializeToString()
    ctx.fields["onnx"] = {"op_types": op_types(model), "size_kb": round(len(data) / 1024.0, 1)}
    traced: list[dyn.Finding] = []
    guards: list[str] = []
    if getattr(program, "exported_program", None) is not None:
        traced, guards = dyn.read_findings(ctx, program.exported_program, plan, recorded)

    ctx.step = "checker"
    onnx.checker.check_model(model, full_check=True)

    ctx.step = "ort-load"
    session = ort_session(data, ctx.threads)
    ctx.capture_s = time.perf_counter() - t0
    feeds_spec = session.get_inputs()
    if len(feeds_spec) != len(trace_inputs):
        ctx.step = "ort-run"
        raise RuntimeError(f"the ONNX graph has {len(feeds_spec)} inputs, the case has {len(trace_inputs)}")

    static = declared_static(model, plan)
    runs = dyn.plan_runs(refs, TRACE, static)

    def run(run_inputs: tuple[Any, ...]) -> list[Any]:
        return run_session(session, feeds_spec, run_inputs)

    ctx.run_s = dyn.run_shapes(ctx, runs, run, "ort-run")
    held = {(f.input, f.dim) for f in static}
    found = static + [f for f in traced if (f.input, f.dim) not in held]
    dyn.finish_record(ctx, plan, TRACE, runs, found, guards)
    failed = dyn.verdict(ctx, runs, "ort-run", causes=lambda r: dyn.causes_at(plan, r, traced))
    if failed is not None:
        return failed
    text = dyn.summary(static, plan)
    status = "ok-static" if text else "ok"
    failed = dyn.check_case_shape(ctx, runs, run, "ort-run", status, text)
    return failed if failed is not None else dyn.supported(ctx, status, text)


def _env() -> dict[str, Any]:
    """What its results depend on beyond the common fields: the exporter and onnxruntime (not the
    onnx path's other runtimes and opsets, which it does not run)."""
    return {
        "onnx": dist_version("onnx"),
        "onnxscript": dist_version("onnxscript"),
        "onnxruntime": dist_version("onnxruntime"),
        "opset": OPSET,
    }


# The reproducer: the export at the trace shape with the varied dimensions Dim.DYNAMIC, the
# checker and the onnx path's session, then the model run at every shape the survey ran it at.
REPRO = Reproducer(
    script=f"OPSET = {OPSET}\n" + '''\
import onnx
from torch.export import Dim

print(f"capture: torch.onnx.export(module, inputs at {shape_text(TRACE['shape'])}, dynamo=True, opset_version={OPSET}, "
      "dynamic_shapes=<Dim.DYNAMIC on the varied dimensions>)")
try:
    program = torch.onnx.export(module(True), tuple(TRACE["inputs"]), dynamo=True, opset_version=OPSET,
                                dynamic_shapes=spec(Dim.DYNAMIC), verbose=False, artifacts_dir=HERE)
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
    model = program.model_proto
except Exception as e:
    failed("export", e)
onnx.save(model, os.path.join(HERE, "model.onnx"))
for value in model.graph.input:
    dims = [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]
    print(f"ONNX input {value.name}: shape {dims}")
try:
    onnx.checker.check_model(model, full_check=True)
except Exception as e:
    failed("checker", e)
try:
    session = ort_session(model.SerializeToString(), 1)
except Exception as e:
    failed("ort-load", e)
check_shapes(lambda xs: run_session(session, session.get_inputs(), xs), "ort-run", "onnxruntime")
print("opsweep-repro: ok: the ONNX model matches eager at every shape it accepts")
''',
    calls=(ort_session, run_session),
    needs=("onnx", "onnxscript", "onnxruntime"),
    at_shapes=True,
)

PATH = PathSpec(
    state_unchecked=dyn.STATE_UNCHECKED,
    id="onnx-dynamic",
    title="ONNX, dynamic shapes",
    label="ONNX dyn",
    description=(
        f"torch.onnx.export (dynamo, opset {OPSET}) with batch and H, W dynamic, onnx.checker, run in "
        "onnxruntime at three shapes and compared with eager at each"
    ),
    steps=("no-dynamic-dims", "eager-other-shapes", "export", "checker", "ort-load", "ort-run", "compare"),
    expected_seconds=6,
    probe=probe_onnx_dynamic,
    env=_env,
    order=50,
    group="dynamic shapes",
    record_fields={"onnx": None, **dyn.RECORD_FIELDS},
    repro=REPRO,
    uses=("opsweep.shapes", "opsweep.paths.dynamic", "opsweep.paths.onnx", *shapes.OVERRIDE_MODULES),
)
