"""The ``compile-dynamic`` path: torch.compile with default settings, called in turn at three
shapes as a training loop would; recompilations counted with their guard reasons, every call
compared with eager.

Steps: ``no-dynamic-dims``, ``eager-other-shapes`` (n/a, as export-dynamic), ``compile`` (each
call; compilation happens inside it), ``compare``.
- One ``torch.compile(module)`` (inductor, ``dynamic=None``: the first call compiles for its
  static shapes, a call at a new shape recompiles with the changed dimensions dynamic) is called
  at S0 (the case's own shapes), S1 and S2 (opsweep/shapes.py), each under no_grad with seed 0,
  and compared with eager called the same way: the three calls in turn on one module (a target
  that keeps state between calls gets the same history).
  Dynamo state is reset before and after the job.
- Each call's compilations are read from torch._dynamo.utils.get_compilation_metrics(): how many
  frames compiled, and each recompilation's failed guards (every one, not only the first: the
  job switches on what Dynamo's ``recompiles_verbose`` logging does), rewritten to name inputs ``x0[2]``
  ("size of x0[2] == 32" when a dimension was compiled static; "2 <= x0[3] <= 60 at f.py:7 in g"
  when a compiled graph only holds on one side of a threshold).
- Which dimensions recompile at every new size is then asked of the compiled graphs' guards
  (``every_new_size``): the third call's inputs with one group of dimensions grown to a fourth
  size, accepted by none of the frame's cache entries, mean that group recompiles every time.
  Dynamo's reason names only the first size that differs when dimensions were compiled static
  (``size of x0[2] == 48`` for a graph static in H and W). Without that API, the reasons decide.
- Then the checks of ``ProbeContext.verify`` at S0 on the same compiled module
  (paths/dynamic.py ``check_case_shape``): the case's fresh inputs, for check=False cases
  randomness.
- Statuses: ``ok`` (the third call compiled nothing new, or recompiled only because a size crossed
  a threshold: bounded, not every shape; detail says so), ``ok-recompiles`` (the third call
  recompiled because a size is guarded to equal its previous value: every new size recompiles;
  detail "recompiles on every new H: size of x0[2] == 48"), ``ok-unverified`` (check=False
  cases, the detail as above), ``mismatch`` (a call, or verify's checks), ``fail`` (a call
  raised: detail names the shape; later calls are not made), ``n/a`` (also when eager raises
  on the three calls in turn on one module).
- ``record["dynamic"]``: the plan, trace 0, ``recompiles`` (recompilations over the three calls),
  ``guards`` (their reasons, in order), ``specialised`` (dimensions guarded to a size), and per
  shape the call's verdict with ``compiles``, ``recompiles`` and ``reasons``.
- Timings: capture_s = the three calls (they compile); run_s is null.
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any, Iterator

from opsweep import shapes
from opsweep.evidence import scrub
from opsweep.flatten import flatten
from opsweep.paths import dynamic as dyn
from opsweep.paths.compile import configure_inductor
from opsweep.paths.context import ProbeContext
from opsweep.randomness import seed_everything
from opsweep.paths.spec import Outcome, PathSpec, Reproducer

TRACE = 0
MAX_REASONS = 20

_MISMATCH = re.compile(r"tensor '(?:L\[')?inputs(?:'\])?\[(\d+)\]' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
_OTHER_MISMATCH = re.compile(r"tensor '([^']+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
_INPUT_SIZE = re.compile(r"(?:L\[')?inputs(?:'\])?\[(\d+)\]\.size\(\)\[(\d+)\]")
_LOCAL_SIZE = re.compile(r"L\['([A-Za-z_][A-Za-z0-9_]*)'\]\.size\(\)\[(\d+)\]")
_LOCATION = re.compile(r"#\s+([^\s#()]+\.py:\d+ in [A-Za-z_<>][\w<>]*)")


def guard_text(reason: str) -> str:
    """A recompile reason as the page shows it: ``size of x0[2] == 32``, ``2 <= x0[3] <= 60 at
    f.py:7 in g``; the ``0/1:`` frame prefix and dynamo's advice dropped."""
    text = re.sub(r"^\s*\d+/\d+:\s*", "", reason.strip().splitlines()[0] if reason.strip() else "")
    m = _MISMATCH.search(text)
    if m:
        return f"size of x{m.group(1)}[{m.group(2)}] == {m.group(3)}"
    m = _OTHER_MISMATCH.search(text)
    if m:
        return f"size of {m.group(1)}[{m.group(2)}] == {m.group(3)}"
    expr, _, rest = text.partition("  #")
    expr = _INPUT_SIZE.sub(lambda g: f"x{g.group(1)}[{g.group(2)}]", expr.strip())
    expr = _LOCAL_SIZE.sub(lambda g: f"{g.group(1)}[{g.group(2)}]", expr)
    loc = _LOCATION.search(rest)
    return f"{expr} at {loc.group(1)}" if loc else expr  # scrub puts back a path torch cut (evidence.whole_paths)


def guard_texts(reason: str) -> list[str]:
    """Every failed guard of one recompile reason (Dynamo joins them with ``; `` after the
    ``0/1:`` frame prefix), each as ``guard_text`` writes it."""
    first = reason.strip().splitlines()[0] if reason.strip() else ""
    return [guard_text(part) for part in re.split(r"; (?=\S)", first) if part.strip()]  # guard_text drops the prefix


def guard_kind(text: str) -> str:
    """``equality`` (a dimension compiled for one size: every new size recompiles), ``threshold``
    (a range: only crossing it recompiles) or ``other``."""
    expr = text.split(" at ", 1)[0]
    if expr.startswith("size of ") or re.search(r"(?<![<>!=])==(?!=)", expr) or expr.startswith("Eq("):
        return "equality"
    if re.search(r"<=|>=|<|>|!=", expr):
        return "threshold"
    return "other"


_GUARDED_DIM = re.compile(r"\bx(\d+)\[(\d+)\]")


def guarded_dims(plan: shapes.Plan, texts: list[str], previous: Any) -> list[dyn.Finding]:
    """The varied dimensions that equality guards fix, with the guard as why. A guard on an
    input names it (``x0[2]``); a guard on a tensor local to a library frame (after a graph
    break: ``size of input[0] == 4``) is matched by size: the varied dimensions whose size at the
    ``previous`` call's shape equals the guarded one."""
    out: list[dyn.Finding] = []

    def add(i: int, d: int, value: int | None, text: str) -> None:
        if any(v.input == i and v.dim == d for v in plan.dims) and not any(f.input == i and f.dim == d for f in out):
            out.append(dyn.Finding(i, d, plan.name_of(i, d), "constant", value=value, why=text, source="compile"))

    for text in texts:
        if guard_kind(text) != "equality":
            continue
        expr = text.split(" at ", 1)[0]
        m = re.search(r"==\s*(\d+)", expr)
        value = int(m.group(1)) if m else None
        named = list(_GUARDED_DIM.finditer(expr))
        for g in named:
            add(int(g.group(1)), int(g.group(2)), value, text)
        if not named and value is not None and expr.startswith("size of "):
            for v in plan.dims:
                if previous[v.input][v.dim] == value:
                    add(v.input, v.dim, value, text)
    return out


def probe_compile_dynamic(ctx: ProbeContext) -> Outcome:
    import torch
    import torch._dynamo
    from torch._dynamo.utils import clear_compilation_metrics, get_compilation_metrics

    started = dyn.start(ctx, TRACE)
    if isinstance(started, Outcome):
        return started
    plan, refs = started

    configure_inductor(ctx.threads)
    runs = []
    for k in range(len(plan.shapes)):
        r = dyn.ShapeRun(plan.shapes[k], "trace" if k == TRACE else "other")
        r.inputs, r.expected, r.values = refs.at(plan.shapes[k])
        runs.append(r)
    # the compiled module is called at the three shapes in turn: eager is too, on one module, so a
    # target that keeps state between calls is compared with the same history
    ctx.step = "eager-other-shapes"
    try:
        history = ctx.eager([(tuple(x.clone() for x in r.inputs), 0) for r in runs]) if ctx.eager else None
    except Exception as e:  # noqa: BLE001 - eager failing on the sequence of calls is the finding
        if dyn.raised_by_harness(e):
            raise
        ctx.side_error = e
        return Outcome("n/a", "eager-other-shapes",
                       f"eager raises {type(e).__name__} when called at the three shapes in turn on one module")
    if history is not None:
        for r, expected in zip(runs, history):
            r.expected = expected
    per_call: list[dict[str, Any]] = []
    try:
        torch._dynamo.reset()
        clear_compilation_metrics()
        ctx.step = "compile"
        compiled = torch.compile(ctx.module(flat_outputs=False))

        def run(inputs: tuple[torch.Tensor, ...]) -> list[Any]:
            with torch.no_grad():
                return flatten(compiled(*inputs))

        t0 = time.perf_counter()
        with _every_failed_guard():
            for r in runs:
                per_call.append(_call(ctx, r, run, get_compilation_metrics))
                if r.status == "fail":
                    break
        ctx.capture_s = time.perf_counter() - t0
        for r in runs[len(per_call):]:
            r.status, r.detail = "skipped", "an earlier call raised"

        guards = [g for call in per_call for g in call["reasons"]]
        last = per_call[-1]["reasons"] if len(per_call) == len(runs) else []
        fixed = guarded_dims(plan, last, plan.shapes[-2])
        asked = every_new_size(compiled, plan, ctx.case) if len(per_call) == len(runs) and last else None
        if asked is not None:
            fixed = _asked_findings(plan, fixed, asked)
        recompiles = sum(call["recompiles"] for call in per_call)
        dyn.finish_record(ctx, plan, TRACE, runs, fixed, guards[:MAX_REASONS], recompiles=recompiles)
        for entry, call in zip(ctx.fields["dynamic"]["per_shape"], per_call):
            entry.update(call)
        failed = dyn.verdict(ctx, runs, "compile")
        if failed is not None:
            return failed
        status, detail = _supported(plan, fixed, last, recompiles, asked=asked is not None)
        # the checks of ProbeContext.verify at the case's own shape (the first call's), on the same
        # compiled module: after the three calls, the recompile count above is already read
        failed = dyn.check_case_shape(ctx, runs, run, "compile", status, detail)
        return failed if failed is not None else dyn.supported(ctx, status, detail)
    finally:
        torch._dynamo.reset()


def _call(ctx: ProbeContext, r: dyn.ShapeRun, run: Any, get_compilation_metrics: Any) -> dict[str, Any]:
    """One call of the compiled module at ``r``'s shape, judged against eager; what it compiled."""
    seen = len(get_compilation_metrics())
    ctx.step = "compile"
    seed_everything(0)
    try:
        actual = run(tuple(x.clone() for x in r.inputs))
        dyn.judge(ctx, r, actual)
    except Exception as e:  # noqa: BLE001 - a call failing is the finding
        r.status, r.error = "fail", e
        r.detail = f"raised {type(e).__name__}: {scrub(dyn.first_line(e), ctx.library)}"
    metrics = get_compilation_metrics()[seen:]
    recompiled = [m.recompile_reason for m in metrics if m.recompile_reason]
    reasons = [scrub(t, ctx.library) for reason in recompiled for t in guard_texts(reason)]
    return {"compiles": len(metrics), "recompiles": len(recompiled), "reasons": reasons[:MAX_REASONS]}


def every_new_size(compiled: Any, plan: shapes.Plan, case: Any) -> list[list[shapes.VariedDim]] | None:
    """The groups of varied dimensions (those the plan grows together: equal in the case's own
    shape) that recompile at every new size after the three calls: the third call's inputs with
    only that group grown once more (a fourth size, as the plan would make it) are accepted by no
    graph compiled for the case's frame. Only guards are evaluated; nothing runs or compiles.
    Dynamo's recompile reason names only the first size that differs (``size of x0[2] == 48``
    when H and W were both compiled static); this asks each dimension. None when it cannot be
    asked: this torch has no cache-entry API, or no entry accepts the third call's own inputs (the
    guards read more than the frame's arguments)."""
    import torch

    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        module = compiled._orig_mod
        entries = _debug_get_cache_entry_list(type(module).forward.__code__)
    except Exception:  # noqa: BLE001 - a torch without it: the reasons alone decide
        return None
    if not entries:
        return None

    def accepted(shape: Any) -> bool:
        inputs = shapes.inputs_at(case, shape, shapes.RESAMPLED, plan.spatial())
        with torch.no_grad():
            return any(bool(e.guard_manager.check({"self": module, "inputs": inputs})) for e in entries)

    third = plan.shapes[-1]
    try:
        if not accepted(third):
            return None
        groups: dict[int, list[shapes.VariedDim]] = {}
        for v in plan.dims:
            groups.setdefault(plan.shapes[0][v.input][v.dim], []).append(v)
        fourth = shapes.size_map(groups, 3)
        out = []
        for size, dims in groups.items():
            shape = [list(s) for s in third]
            for v in dims:
                shape[v.input][v.dim] = fourth[size]
            if not accepted(tuple(tuple(s) for s in shape)):
                out.append(dims)
        return out
    except Exception:  # noqa: BLE001 - a guard that cannot be evaluated here: the reasons decide
        return None


def _asked_findings(plan: shapes.Plan, fixed: list[dyn.Finding], found: list[list[shapes.VariedDim]]) -> list[dyn.Finding]:
    """The dimensions ``every_new_size`` found (its answer replaces what the third call's guards
    suggest), each with its guard from ``fixed`` when one names it."""
    named = {(f.input, f.dim): f for f in fixed}
    out = []
    third = plan.shapes[-1]
    for dims in found:
        for v in dims:
            f = named.get((v.input, v.dim))
            out.append(f if f is not None else dyn.Finding(
                v.input, v.dim, plan.name_of(v.input, v.dim), "constant", value=third[v.input][v.dim],
                why=f"no compiled graph accepts a new {plan.name_of(v.input, v.dim)} after the three calls",
                source="compile"))
    return out


@contextlib.contextmanager
def _every_failed_guard() -> Iterator[None]:
    """Within it, Dynamo's recompile reasons name every guard that failed, not only the first (a
    function that reads both H and W into Python ints fails both guards; the first alone names H),
    as its ``recompiles_verbose`` logging artifact does, without that artifact's log output. A
    torch without the switch is left as it is."""
    import torch._dynamo.guards as guards

    original = getattr(guards, "is_recompiles_verbose_enabled", None)
    if original is None:
        yield
        return
    guards.is_recompiles_verbose_enabled = lambda: True
    try:
        yield
    finally:
        guards.is_recompiles_verbose_enabled = original


def _supported(plan: shapes.Plan, fixed: list[dyn.Finding], last: list[str], recompiles: int,
               asked: bool = False) -> tuple[str, str]:
    """Status and detail of three calls that all matched eager: ``ok-recompiles`` when a new size
    of some dimension recompiles every time (``fixed``, when ``asked``: ``every_new_size`` said
    so), else from the third call's recompile reasons (``last``): an equality guard."""
    count = f"{recompiles} recompile{'s' if recompiles != 1 else ''}"
    equal = [g for g in last if guard_kind(g) == "equality"]
    if fixed if asked else equal:
        names = shapes.names_text(f.name for f in fixed) or "shape"
        why = "; ".join(equal) or fixed[0].why
        return "ok-recompiles", f"recompiles on every new {names}: {why} ({count})"
    if equal:  # asked: the graph the third call compiled takes a fourth size
        return "ok", (f"{count}; once more at {shapes.shape_text(plan.shapes[-1])}: {equal[0]}, "
                      f"then a new size compiles nothing")
    if last:
        return "ok", (f"{count}; once more at {shapes.shape_text(plan.shapes[-1])}: {last[0]} "
                      f"(a size threshold, not every shape)")
    return "ok", count


# The reproducer: one torch.compile called at each shape the survey ran, in turn, against eager
# called so on one module; every call's recompiles and their guards as the path reads them, and a
# failure when the last call recompiled on a guard that holds one size.
REPRO = Reproducer(
    script='''\
import torch._dynamo
from torch._dynamo.utils import clear_compilation_metrics, get_compilation_metrics

print("capture: torch.compile(module(False)) (default settings), called at each shape in turn")
configure_inductor(1)
expected_all = eager([(s["inputs"], 0) for s in SETS])  # eager called in the same order, on one module
torch._dynamo.reset()
clear_compilation_metrics()
compiled = torch.compile(module(False))


def run_compiled(xs):
    with torch.no_grad():
        return flatten(compiled(*xs))


last_reasons, recompiles = [], 0
with _every_failed_guard():
    for s, expected_here in zip(SETS, expected_all):
        where = shape_text(s["shape"])
        seen = len(get_compilation_metrics())
        try:
            actual = run_on(run_compiled, s["inputs"])
        except Exception as e:
            failed(f"compile at {where}", e)
        metrics = get_compilation_metrics()[seen:]
        recompiled = [m.recompile_reason for m in metrics if m.recompile_reason]
        last_reasons = [text for reason in recompiled for text in guard_texts(reason)]
        recompiles += len(recompiled)
        print(f"at {where}: {len(metrics)} compilation(s), {len(recompiled)} recompile(s)")
        for text in last_reasons:
            print(f"  recompile guard: {text}")
        problem = judge(expected_here, actual, s["inputs"])
        if problem:
            failed(f"mismatch at {where} (compiled vs eager): {problem}")
if SETS and SETS[0]["values"] == "case":
    on_fresh(run_compiled, "compile", "compiled")
every = [text for text in last_reasons if guard_kind(text) == "equality"]
if every:
    failed(f"recompiles on every new shape: {recompiles} recompile(s); the last call's guards: " + "; ".join(every))
print(f"opsweep-repro: ok: the compiled module matches eager at every shape ({recompiles} recompile(s))")
''',
    calls=(configure_inductor, guard_texts, guard_kind, _every_failed_guard),
    at_shapes=True,
)

PATH = PathSpec(
    state_unchecked=dyn.STATE_UNCHECKED,
    id="compile-dynamic",
    title="torch.compile, dynamic shapes",
    label="compile dyn",
    description=(
        "torch.compile (default settings) called at three shapes in turn; recompilations counted, "
        "every call compared with eager"
    ),
    steps=("no-dynamic-dims", "eager-other-shapes", "compile", "compare"),
    expected_seconds=45,
    probe=probe_compile_dynamic,
    order=60,
    group="dynamic shapes",
    record_fields=dyn.RECORD_FIELDS,
    repro=REPRO,
    uses=("opsweep.shapes", "opsweep.paths.dynamic", "opsweep.paths.compile", *shapes.OVERRIDE_MODULES),
)
