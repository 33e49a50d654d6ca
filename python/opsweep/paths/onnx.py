"""The ``onnx`` path: torch.onnx.export (dynamo, opset 18) -> onnx.checker -> onnxruntime (CPU).

Steps, in order: ``export`` (torch.onnx.export(dynamo=True, opset_version=18), default
optimisation, in memory), ``checker`` (onnx.checker.check_model with full_check=True), ``ort-load``
(an InferenceSession on the CPUExecutionProvider with the worker's thread count), ``ort-run``
(inputs fed by position), ``compare``. The session is run, and compared with eager, on the
trace inputs, on fresh inputs and (check=False cases) twice more for the randomness check
(``ProbeContext.verify``; onnxruntime has no seed, so two runs must differ where eager's two seeds
do). The record's ``onnx`` object holds the sorted, unique op
types of every node (functions and subgraphs included) and the serialized size in KiB, as soon as
the export succeeded. Timings: capture_s = export + checker + ort-load, run_s = ort-run.

Sub-verdicts (``record["subverdicts"]``, opsweep/runtimes/): once the checker passed, the same
serialized file runs in OpenVINO, tract and the ONNX reference evaluator (each in the worker's
runtime host, with its own time limit), each through the same fidelity checks; every requested
opset besides 18 is one more (converted or re-exported as torch.onnx.export(opset_version=N)
does it, then checker + onnxruntime). They run after the path's own verdict, whatever it was,
and never change it: the path's status is onnxruntime's at opset 18.

Where an export fails: an error raised while torch.onnx translates the exported program (e.g. no
ONNX lowering for an aten operation) has no library frame on its stack. The fx node being
translated is a local of torch.onnx's frames in the traceback (``failing_fx_node``); the eager
call is run once more under a dispatch mode that records the Python stack where it first invokes
that node's operation (``ProbeContext.op_call_stack``), else the node's own ``stack_trace`` (which
non-strict export keeps for ``forward`` frames only) is used. The stack is attached to the
exception (``evidence.attach_stack``) and becomes the record's ``error.frames``.
"""

from __future__ import annotations

import importlib
import re
import tempfile
import time
from typing import Any, Callable, Iterable

from opsweep.case import Case
from opsweep.case_module import fresh_inputs, make_module
from opsweep.evidence import attach_stack, exception_chain
from opsweep.paths.context import ProbeContext
from opsweep.paths.spec import Outcome, PathSpec, Reproducer, SubVerdict, dist_version
from opsweep.runtimes import enabled, opsets
from opsweep.runtimes import versions as runtime_versions
from opsweep.runtimes.verdicts import ExtraVerdicts, graph_input_names

OPSET = opsets.OPSET


def op_types(model: Any) -> list[str]:
    """Sorted unique op types of a ModelProto's nodes, inside functions and subgraphs too."""
    import onnx

    found: set[str] = set()

    def visit(nodes: Iterable[Any]) -> None:
        for node in nodes:
            found.add(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    visit(attr.g.node)
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    for g in attr.graphs:
                        visit(g.node)

    visit(model.graph.node)
    for fn in model.functions:
        visit(fn.node)
    return sorted(found)


def cache_torchlib_ops() -> bool:
    """Compute onnxscript's torchlib op list once per worker instead of once per export.

    torch.onnx.export builds its op registry on every call from
    ``onnxscript._framework_apis.<torch_x>.get_torchlib_ops()``, which re-parses the source of
    ~500 onnxscript functions each time (about half the export time of a small operator). The
    list is static for an installed onnxscript, so the worker memoises it; the registry itself is
    still built fresh per export (torch mutates it). Returns whether the cache is installed; any
    surprise in torch's internals leaves the exporter untouched.
    """
    try:
        from torch.onnx._internal import _lazy_import

        name = getattr(_lazy_import.onnxscript_apis, "_name", None) or getattr(
            _lazy_import.onnxscript_apis, "__name__", None
        )
        module = importlib.import_module(name)
        original: Callable[[], list[Any]] = module.get_torchlib_ops
        if getattr(original, "_opsweep_cached", False):
            return True
        memo: list[tuple[Any, ...]] = []

        def get_torchlib_ops() -> list[Any]:
            if not memo:
                memo.append(tuple(original()))
            return list(memo[0])

        get_torchlib_ops._opsweep_cached = True  # type: ignore[attr-defined]
        module.get_torchlib_ops = get_torchlib_ops
        return True
    except Exception:  # noqa: BLE001 - an optimisation only
        return False


def failing_fx_node(exc: BaseException) -> Any:
    """The torch.fx call_function node torch.onnx was translating when ``exc`` was raised, or None:
    the innermost traceback frame (root cause first) with a local ``node`` that is one."""
    import torch.fx

    for e in reversed(exception_chain(exc)):
        found = None
        tb = e.__traceback__
        while tb is not None:
            node = tb.tb_frame.f_locals.get("node")
            if isinstance(node, torch.fx.Node) and node.op == "call_function":
                found = node
            tb = tb.tb_next
        if found is not None:
            return found
    return None


_STACK_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _node_stack(node: Any) -> list[tuple[str, int]]:
    """The node's recorded ``stack_trace`` as (filename, line) pairs, outermost first."""
    text = node.meta.get("stack_trace") or ""
    return [(m.group(1), int(m.group(2))) for m in _STACK_LINE.finditer(text)]


def locate_failed_node(ctx: ProbeContext, exc: BaseException) -> None:
    """Attach to ``exc`` where the eager call invokes the operation of the node that failed."""
    node = failing_fx_node(exc)
    if node is None:
        return
    ops = [op for op in (node.target, node.meta.get("original_aten")) if op is not None and hasattr(op, "overloadpacket")]
    stack = ctx.op_call_stack(ops) or _node_stack(node)
    if stack:
        attach_stack(exc, stack)


def ort_session(data: bytes, threads: int) -> Any:
    """An onnxruntime session on the CPU provider with the worker's thread count."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def export_model(module: Any, inputs: tuple[Any, ...], workdir: str, opset: int) -> Any:
    """torch.onnx.export(dynamo=True) at ``opset``, default optimisation, in memory: a ModelProto."""
    import torch

    program = torch.onnx.export(
        module, inputs, dynamo=True, opset_version=opset, verbose=False, artifacts_dir=workdir
    )
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
    return program.model_proto


def probe_onnx(ctx: ProbeContext) -> Outcome:
    # The other runtimes and opsets (runtimes/verdicts.py) run after the path's own verdict,
    # whatever it is: they judge the same checked file, or an export of their own.
    def export_at(opset: int) -> Any:
        try:
            return export_model(ctx.module(flat_outputs=True), ctx.inputs(), ctx.workdir, opset)
        except Exception as e:
            locate_failed_node(ctx, e)
            raise

    extra = ExtraVerdicts(ctx, export=export_at, ort_session=ort_session, run_session=run_session)
    try:
        return _probe(ctx, extra)
    finally:
        extra.finish()


def _probe(ctx: ProbeContext, extra: ExtraVerdicts) -> Outcome:
    import onnx

    cache_torchlib_ops()

    ctx.step = "export"
    module = ctx.module(flat_outputs=True)
    inputs = ctx.inputs()
    t0 = time.perf_counter()
    with extra.capture.around_export():
        try:
            model = export_model(module, inputs, ctx.workdir, OPSET)
        except Exception as e:
            locate_failed_node(ctx, e)
            raise
    data = model.SerializeToString()
    ctx.fields["onnx"] = {"op_types": op_types(model), "size_kb": round(len(data) / 1024.0, 1)}

    ctx.step = "checker"
    onnx.checker.check_model(model, full_check=True)
    extra.checked(data, graph_input_names(model))

    ctx.step = "ort-load"
    session = ort_session(data, ctx.threads)
    ctx.capture_s = time.perf_counter() - t0

    feeds_spec = session.get_inputs()
    if len(feeds_spec) != len(inputs):
        ctx.step = "ort-run"
        raise RuntimeError(f"the ONNX graph has {len(feeds_spec)} inputs, the case has {len(inputs)}")

    return ctx.verify(lambda run_inputs: run_session(session, feeds_spec, run_inputs), "ort-run")


def run_session(session: Any, feeds_spec: list[Any], run_inputs: tuple[Any, ...]) -> list[Any]:
    """The session's outputs for tensors fed by position, as arrays that own their memory.

    An output that is a graph input (an identity graph) aliases the feed's buffer in onnxruntime
    1.23 (not in 1.32) without keeping it alive; the feeds die with this call, so an output read
    later would be freed memory and judged a mismatch. Arrays are copied while the feeds live.
    """
    feeds = {spec.name: x.detach().cpu().contiguous().numpy() for spec, x in zip(feeds_spec, run_inputs)}
    return [out.copy() if hasattr(out, "dtype") else out for out in session.run(None, feeds)]


def _env() -> dict[str, Any]:
    return {
        "onnx": dist_version("onnx"),
        "onnxscript": dist_version("onnxscript"),
        "onnxruntime": dist_version("onnxruntime"),
        "opset": OPSET,
        **runtime_versions(),
        "opsets": ",".join(str(n) for n in opsets.requested()),
    }


def _subverdicts() -> tuple[SubVerdict, ...]:
    runtimes = tuple(SubVerdict(r.id, r.title, r.label, "runtime", r.description, r.steps) for r in enabled())
    extra = tuple(
        SubVerdict(opsets.subverdict_id(n), f"opset {n}", f"op{n}", "opset",
                   f"torch.onnx.export(opset_version={n}), onnx.checker, run in onnxruntime",
                   (opsets.conversion_step(n), "checker", "ort-load", "ort-run", "compare"))
        for n in opsets.extra()
    )
    return runtimes + extra


def exported_file(case: Case) -> dict[str, bytes]:
    """``model.onnx``: the file the path's export gives now, for a bug report; none when it does
    not export (the reproducer shows that failure itself)."""
    try:
        with tempfile.TemporaryDirectory(prefix="opsweep-repro-") as workdir:
            model = export_model(make_module(case, flat_outputs=True), fresh_inputs(case), workdir, OPSET)
        return {"model.onnx": model.SerializeToString()}
    except Exception:  # noqa: BLE001
        return {}


# The reproducer: the path's export, checker and onnxruntime session (its own functions), then the
# session run and judged as verify does. onnxruntime runs on one thread here.
REPRO = Reproducer(
    script=f"OPSET = {OPSET}\n" + '''\
import onnx

print(f"capture: torch.onnx.export(module(True), INPUTS, dynamo=True, opset_version={OPSET})")
try:
    model = export_model(module(True), INPUTS, HERE, OPSET)
except Exception as e:
    failed("export", e)
onnx.save(model, os.path.join(HERE, "model.onnx"))
try:
    onnx.checker.check_model(model, full_check=True)
except Exception as e:
    failed("checker", e)
try:
    session = ort_session(model.SerializeToString(), 1)
except Exception as e:
    failed("ort-load", e)
check(lambda xs: run_session(session, session.get_inputs(), xs), "ort-run", "onnxruntime")
print("opsweep-repro: ok: the ONNX model matches eager")
''',
    calls=(export_model, ort_session, run_session),
    needs=("onnx", "onnxscript", "onnxruntime"),
    files=exported_file,
)

PATH = PathSpec(
    id="onnx",
    title="ONNX",
    label="ONNX",
    description=(
        f"torch.onnx.export (dynamo, opset {OPSET}), onnx.checker, run in onnxruntime and compared with eager"
    ),
    steps=("export", "checker", "ort-load", "ort-run", "compare"),
    expected_seconds=4,
    probe=probe_onnx,
    env=_env,
    order=10,
    subverdicts=_subverdicts,
    record_fields={"onnx": None, "subverdicts": {}},
    repro=REPRO,
    uses=("opsweep.runtimes",),
)
