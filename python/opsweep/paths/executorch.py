"""The ``executorch`` path: the exported program lowered to ExecuTorch with the XNNPACK partitioner,
serialised, loaded and run in the ExecuTorch runtime, and compared with eager.

Steps, in order: ``export`` (torch.export.export(module, inputs, strict=False), as the export path),
``edge`` (``executorch.exir.to_edge_transform_and_lower``: the program converted to the Edge
dialect, whose verifier rejects what ExecuTorch cannot express), ``lower`` (the same call's
partitioning: ``XnnpackPartitioner`` picks the parts XNNPACK can run and they are compiled into
its delegate blobs; the step starts when the partitioner is first asked for partitions),
``serialise`` (``.to_executorch()``: memory planning and the flatbuffer program), ``load``
(``executorch.runtime``: the program and its ``forward`` method loaded, every operator resolved to
a kernel: an operator with no portable kernel fails here), ``run`` (the method executed on the
trace inputs, on fresh inputs and, for check=False cases, under several seeds: ``ProbeContext.verify``),
``compare``.

What XNNPACK took (``record["executorch"]``, docs/formats.md section 3), once lowering passed: the
operators inside XNNPACK's delegated subgraphs (``delegated_ops``) and those left in the program,
which the runtime runs on its portable kernels (``portable_ops``; ``portable``: how many of each
operator, e.g. ``{"aten.convolution.default": 2}``), ``subgraphs``, ``delegated_share``
(delegated / both, null for a program without operators), the flags ``not_delegated`` (XNNPACK
took none of its operators) and ``partly_delegated`` (some stayed on portable kernels), and after
serialisation the program's size (``program_kb``); ``seconds`` holds each step's time. The page
shows the share beside the verdict and offers "runs, but not delegated" (``PathSpec.facts``).

Dynamic shapes: none. The program is lowered at the case's shape. XNNPACK's delegate accepts a
dynamic dimension only with an upper bound (and the Edge program's memory plan is sized for it),
so a survey at other shapes would measure the bounds we chose, not the library: the
dynamic-shape question is answered for AOTInductor (``aoti-dynamic``) and torch.export
(``export-dynamic``). docs/deployment.md says so for users.

The runtime's thread pool is set to the worker's thread count before each job. The runtime has no
RNG seed of its own: a check=False case's randomness check runs it under several seeds like any
capture, and a program that draws the same numbers every call is frozen.
Timings: capture_s = export + edge + lower + serialise + load; run_s = the run on the trace inputs.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from opsweep.paths import Outcome, PathSpec, ProbeContext, Reproducer
from opsweep.paths.export import exported_state
from opsweep.paths.facts import Fact
from opsweep.paths.spec import dist_version

# Operators of the top-level graph that are plumbing, not computation: the delegate call itself and
# the tuple indexing of its outputs.
_PLUMBING = ("executorch_call_delegate", "getitem")


def op_name(target: Any) -> str:
    """An operator's name as ATen spells it: ``aten.convolution.default`` (Edge and ATen overloads
    alike), else the target's own name."""
    schema = getattr(target, "_schema", None)
    if schema is not None:
        overload = schema.overload_name or "default"
        return f"{schema.name.replace('::', '.')}.{overload}"
    return getattr(target, "__name__", None) or str(target)


def delegation(graph_module: Any) -> dict[str, Any]:
    """What the XNNPACK partitioner took of a lowered Edge program's graph: the operators inside its
    delegated subgraphs, those left to the runtime's portable kernels (by name), and the share."""
    from collections import Counter

    from executorch.exir.lowered_backend_module import LoweredBackendModule

    delegated = 0
    subgraphs = 0
    portable: Counter[str] = Counter()
    for node in graph_module.graph.nodes:
        if node.op == "get_attr":
            lowered = getattr(graph_module, str(node.target), None)
            if isinstance(lowered, LoweredBackendModule):
                subgraphs += 1
                delegated += sum(1 for n in lowered.original_module.graph.nodes
                                 if n.op == "call_function" and getattr(n.target, "__name__", "") not in _PLUMBING)
        elif node.op == "call_function" and getattr(node.target, "__name__", "") not in _PLUMBING:
            portable[op_name(node.target)] += 1
    left = sum(portable.values())
    return {
        "delegated_ops": delegated,
        "portable_ops": left,
        "portable": dict(sorted(portable.items())),
        "subgraphs": subgraphs,
        "delegated_share": round(delegated / (delegated + left), 4) if delegated + left else None,
        "not_delegated": delegated == 0 and left > 0,
        "partly_delegated": delegated > 0 and left > 0,
    }


def runtime_runner(buffer: bytes) -> Callable[[tuple[Any, ...]], list[Any]]:
    """A serialised ExecuTorch program loaded in ``executorch.runtime``: its ``forward`` method as a
    runner (inputs by position, outputs as a list of tensors that own their memory)."""
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(buffer)
    method = program.load_method("forward")

    def run(inputs: tuple[Any, ...]) -> list[Any]:
        outputs = method.execute([x.contiguous() for x in inputs])
        return [x.clone() if hasattr(x, "clone") else x for x in outputs]

    return run


def _set_threads(threads: int) -> None:
    """The runtime's thread pool (XNNPACK's) at the worker's thread count (workers x threads <= cores)."""
    try:
        from executorch.extension.pybindings import portable_lib

        if portable_lib._threadpool_get_thread_count() != threads:
            portable_lib._unsafe_reset_threadpool(max(1, threads))
    except Exception:  # noqa: BLE001 - an older runtime without the call keeps its default pool
        pass


def probe_executorch(ctx: ProbeContext) -> Outcome:
    import torch

    # Imported before the clock starts (the first job of a worker pays it, tens of seconds); an
    # installation without executorch fails at the path's first step of its own.
    ctx.step = "edge"
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ctx.step = "export"
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    program = torch.export.export(ctx.module(flat_outputs=True), ctx.inputs(), strict=False)
    seconds["export"] = time.perf_counter() - t0

    ctx.step = "edge"

    class Partitioner(XnnpackPartitioner):
        """XNNPACK's partitioner, unchanged; the step is ``lower`` from its first partition call."""

        def partition(self, exported_program: Any) -> Any:
            if ctx.step == "edge":
                seconds["edge"] = time.perf_counter() - t1
                ctx.step = "lower"
            return super().partition(exported_program)

    t1 = time.perf_counter()
    lowered = to_edge_transform_and_lower(program, partitioner=[Partitioner()])
    seconds["lower"] = time.perf_counter() - t1 - seconds.get("edge", 0.0)
    info = delegation(lowered.exported_program().graph_module)
    record: dict[str, Any] = {**info, "program_kb": None, "seconds": seconds}
    ctx.fields["executorch"] = record

    ctx.step = "serialise"
    t2 = time.perf_counter()
    buffer = lowered.to_executorch().buffer
    seconds["serialise"] = time.perf_counter() - t2
    record["program_kb"] = round(len(buffer) / 1024.0, 1)

    ctx.step = "load"
    _set_threads(ctx.threads)
    t3 = time.perf_counter()
    run = runtime_runner(buffer)
    seconds["load"] = time.perf_counter() - t3
    ctx.capture_s = time.perf_counter() - t0
    for step in seconds:
        seconds[step] = round(seconds[step], 3)
    return ctx.verify(run, "run", state=exported_state(ctx, program))


# The reproducer: the same export, lowering and serialisation, the program loaded and run in the
# runtime and judged as verify does; it prints what XNNPACK took.
REPRO = Reproducer(
    script='''\
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower

print("capture: torch.export.export(module(True), INPUTS, strict=False)")
try:
    program = torch.export.export(module(True), INPUTS, strict=False)
except Exception as e:
    failed("export", e)
print("lower: executorch.exir.to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])")
try:
    lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
except Exception as e:
    failed("edge or lower", e)
info = delegation(lowered.exported_program().graph_module)
print(f"XNNPACK took {info['delegated_ops']} operators in {info['subgraphs']} subgraphs; "
      f"{info['portable_ops']} stay on portable kernels: {info['portable']}")
try:
    buffer = lowered.to_executorch().buffer
except Exception as e:
    failed("serialise", e)
with open(os.path.join(HERE, "model.pte"), "wb") as f:
    f.write(buffer)
print(f"program: {len(buffer) / 1024.0:.1f} KiB, written to model.pte")
try:
    run = runtime_runner(buffer)
except Exception as e:
    failed("load", e)
check(run, "run", "ExecuTorch program", state=state_after_call(program.module))
print("opsweep-repro: ok: the ExecuTorch program matches eager")
''',
    calls=(delegation, runtime_runner),
    needs=("executorch",),
)

PATH = PathSpec(
    id="executorch",
    title="ExecuTorch (XNNPACK)",
    label="ExecuTorch",
    description=(
        "torch.export, lowered with the XNNPACK partitioner (to_edge_transform_and_lower), serialised, "
        "run in the ExecuTorch runtime and compared with eager; static shapes only (XNNPACK takes dynamic "
        "dimensions only with upper bounds)"
    ),
    steps=("export", "edge", "lower", "serialise", "load", "run", "compare"),
    expected_seconds=15,
    probe=probe_executorch,
    env=lambda: {"executorch": dist_version("executorch")},
    order=80,
    group="deployment targets",
    record_fields={"executorch": None},
    facts=(
        Fact("delegated", "share of the operators XNNPACK runs", "share", "executorch.delegated_share",
             label="XNNPACK", cell=True),
        Fact("portable", "operators on portable kernels", "counts", "executorch.portable"),
        Fact("program_kb", "program size", "kb", "executorch.program_kb"),
        Fact("not_delegated", "runs, but not delegated to XNNPACK", "flag", "executorch.not_delegated"),
        Fact("partly_delegated", "runs, partly on portable kernels", "flag", "executorch.partly_delegated"),
    ),
    repro=REPRO,
    uses=("opsweep.paths.export",),
)
