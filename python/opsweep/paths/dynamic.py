"""What the dynamic-shape paths share (export-dynamic, onnx-dynamic, compile-dynamic): reading an
exported program's constraint report, running a capture at several shapes against eager, and
turning the per-shape results into one outcome and ``record["dynamic"]`` (docs/formats.md
section 3, docs/dynamic-shapes.md).

Not a path itself (no ``PATH``): each dynamic path lists it in its ``uses``, so its code is in
their harness digests and not in the static paths'.

- ``guard_recorder(library)``: while active, every shape guard and run-time assert torch adds is
  recorded with inputs named ``x0[2]`` and the surveyed library's line that caused it (torch's
  own location is often inside torch, e.g. an op's decomposition).
- ``findings(program, plan, recorded)``: for every varied dimension, whether the exporter fixed
  it to a constant, limited its range, or asserts on it at run time, read from the program's
  ShapeEnv, and why (the recorded guard or assert).
- ``ShapeRun`` / ``run_shapes`` / ``verdict``: a capture run at each shape against eager on the
  same inputs (seed 0); the first failing shape decides, the trace shape first. A mismatch at
  another shape reads ``OTHER_SHAPE_ONLY; at 1x3x32x40: ...``; a failure names the shape and
  keeps the exception as the record's error.
- ``check_case_shape`` / ``supported``: once every shape passed, the capture is checked at the
  case's own shape as ``ProbeContext.verify`` checks a static capture (the same checks, kept in
  ``record["checks"]``): on the case's fresh inputs, and for check=False cases that randomness
  survived capture; a check=False case is ``ok-unverified`` (its values are never compared with
  eager), whatever a dynamic-shape caveat says in the detail.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import time
import traceback
from typing import Any, Callable, Iterator, Sequence

from opsweep import shapes
from opsweep.evidence import scrub
from opsweep.library import Library
from opsweep.paths.context import Check, ProbeContext, Runner
from opsweep.paths.spec import Outcome
from opsweep.randomness import seed_everything

MAX_GUARDS = 20
# The record field the dynamic-shape paths write (docs/formats.md section 3, ``dynamic``; null in
# every other path's records): their PathSpec.record_fields.
RECORD_FIELDS = {"dynamic": None}
# Detail prefix of a capture that matches eager at its trace shape and not at another one; the
# reason rules key on it (rules/dynamic.json).
OTHER_SHAPE_ONLY = "matches eager at its trace shape only"
FIXED = "was fixed"  # "H was fixed at 48 during export: ..." (rules key on it)
LIMITED = "was limited"  # "W was limited to <= 60 during export: ..."


# ---------------------------------------------------------------------------------------------
# Where a guard came from


def _torch_dirs() -> tuple[str, ...]:
    import torch

    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,)


def _opsweep_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _innermost_caller(library: Library | None) -> traceback.FrameSummary | None:
    """The innermost frame of the surveyed library on the current stack; else the innermost one
    outside torch, opsweep and the standard library (a test's function); else None."""
    import sys
    import sysconfig

    skip = (*_torch_dirs(), _opsweep_dir(), os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep)
    frame = sys._getframe(2)
    fallback = None
    while frame is not None:
        name = frame.f_code.co_filename
        if library is not None and library.relative(name) is not None:
            return traceback.FrameSummary(name, frame.f_lineno, frame.f_code.co_name)
        if fallback is None and not name.startswith("<") and not os.path.abspath(name).startswith(skip):
            fallback = traceback.FrameSummary(name, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return fallback


@dataclasses.dataclass
class Recorded:
    """A shape guard or run-time assert torch added while capturing, as the page shows it."""

    kind: str  # "guard" or "assert"
    text: str  # "x0[2] == 48 at lib/f.py:12 in f" (inputs named x<input>[<dim>])
    dims: tuple[tuple[int, int], ...]  # the (input, dim) it constrains


@contextlib.contextmanager
def guard_recorder(library: Library | None) -> Iterator[list[Recorded]]:
    """While active, every shape guard and run-time assert a ShapeEnv adds is recorded with the
    library line that caused it (torch's own location is often inside torch, an op's
    decomposition) and its symbols named after the CaseModule's inputs. The exporters keep only
    some of these in the program (the dynamo ONNX exporter defers guards to run-time asserts and
    then drops them), so they are read here, as they happen. Only observes: ``_log_guard`` is
    called unchanged. Any surprise in torch's internals leaves it untouched (nothing recorded).
    """
    found: list[Recorded] = []
    try:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        original = ShapeEnv._log_guard
    except Exception:  # noqa: BLE001 - the location is a nicety
        yield found
        return

    def _log_guard(self: Any, prefix: str, g: Any, forcing_spec: bool, *args: Any, **kwargs: Any) -> Any:
        try:
            dims = _symbol_dims(self)
            syms = [s for s in g.free_symbols if s in dims]
            if syms:
                caller = _innermost_caller(library)
                where = _where(caller, library) if caller is not None else ""
                text = expression_text(g, {s: f"x{i}[{d}]" for s, (i, d) in dims.items()})
                found.append(Recorded(
                    "assert" if "runtime_assert" in str(prefix) else "guard",
                    scrub(text + (f" at {where}" if where else ""), library),
                    tuple(sorted(dims[s] for s in syms)),
                ))
        except Exception:  # noqa: BLE001
            pass
        return original(self, prefix, g, forcing_spec, *args, **kwargs)

    ShapeEnv._log_guard = _log_guard
    try:
        yield found
    finally:
        ShapeEnv._log_guard = original


def _where(loc: Any, library: Library | None) -> str:
    """``lib/x.py:12 in f`` for a FrameSummary (or its text for a string)."""
    if isinstance(loc, traceback.FrameSummary):
        rel = library.relative(loc.filename) if library is not None else None
        return f"{rel or scrub(loc.filename, library)}:{loc.lineno} in {loc.name}"
    return scrub(str(loc), library) if loc else ""


# ---------------------------------------------------------------------------------------------
# What the exporter specialised


@dataclasses.dataclass
class Finding:
    """One varied dimension the exporter did not keep fully dynamic."""

    input: int
    dim: int
    name: str
    # "constant" (fixed to a size), "range" (limited), "assert" (a run-time assert on it), "guard"
    # (an equality guard recorded while capturing that the final program neither applies nor checks)
    kind: str
    value: int | None = None  # constant: the size it was fixed at
    lower: int | None = None  # range: bounds (None = unbounded)
    upper: int | None = None
    why: str = ""  # the guard or assert and where the library made it
    source: str = "export"  # "export" (the exporter's constraint report) or "onnx-input" (declared)

    def as_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "input": self.input, "dim": self.dim, "name": self.name, "kind": self.kind, "why": self.why,
            "source": self.source,
        }
        if self.kind == "constant":
            out["value"] = self.value
        if self.kind == "range":
            out["range"] = [self.lower, self.upper]
        return out

    def accepts(self, size: int) -> bool:
        if self.kind == "constant":
            return size == self.value
        if self.kind == "range":
            return (self.lower is None or size >= self.lower) and (self.upper is None or size <= self.upper)
        return True

    def limit_text(self) -> str:
        if self.lower is not None and self.upper is not None:
            return f"{self.lower}..{self.upper}"
        if self.upper is not None:
            return f"<= {self.upper}"
        return f">= {self.lower}"

    def phrase(self, why: bool = True) -> str:
        """``H was fixed at 48 during export: x0[2] == 48 at lib/f.py:12 in f`` (without the
        guard when ``why`` is false)."""
        if self.kind == "constant":
            head = f"{self.name} {FIXED} at {self.value} during export"
        elif self.kind == "range":
            head = f"{self.name} {LIMITED} to {self.limit_text()} during export"
        elif self.kind == "guard":
            head = f"{self.name} {FIXED} by a guard during export that the program does not keep"
        elif _is_equality(self.why):
            head = f"{self.name} {FIXED} one size by a run-time assert during export"
        else:
            head = f"{self.name} {LIMITED} a range by a run-time assert during export"
        return f"{head}: {self.why}" if self.why and why else head


_SOURCE = re.compile(r"\[(\d+)\]\.size\(\)\[(\d+)\]$")


def _symbol_dims(shape_env: Any) -> dict[Any, tuple[int, int]]:
    """ShapeEnv symbol -> (input index, dim) of the CaseModule's ``inputs`` it was made for."""
    out = {}
    for sym, sources in getattr(shape_env, "var_to_sources", {}).items():
        for src in sources:
            name = src.name if isinstance(getattr(src, "name", None), str) else str(src)
            m = _SOURCE.search(name)
            if m and "inputs" in name:
                out[sym] = (int(m.group(1)), int(m.group(2)))
                break
    return out


def _relations_as_operators(text: str) -> str:
    """``Eq(a, b)`` -> ``a == b`` and ``Ne(a, b)`` -> ``a != b``, nested operands included."""
    out, i = [], 0
    while True:
        m = re.compile(r"\b(Eq|Ne)\(").search(text, i)
        if m is None:
            out.append(text[i:])
            return "".join(out)
        depth, comma, j = 0, -1, m.end()
        while j < len(text):
            c = text[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0 and comma < 0:
                comma = j
            j += 1
        if j >= len(text) or comma < 0:  # unbalanced: leave the rest as it is
            out.append(text[i:])
            return "".join(out)
        left = _relations_as_operators(text[m.end():comma].strip())
        right = _relations_as_operators(text[comma + 1:j].strip())
        out.append(text[i:m.start()] + f"{left} {'==' if m.group(1) == 'Eq' else '!='} {right}")
        i = j + 1


def expression_text(expr: Any, names: dict[Any, str]) -> str:
    """A sympy relation with symbols named ``x0[2]``: ``x0[2] == 48``, ``x0[3] <= 60``,
    ``floor(x0[2]/16) == 3`` (``Eq`` / ``Ne`` written as operators)."""
    import sympy

    try:
        expr = expr.xreplace({s: sympy.Symbol(n) for s, n in names.items() if s in expr.free_symbols})
    except Exception:  # noqa: BLE001
        pass
    return _relations_as_operators(str(expr))


def user_input_shapes(program: Any) -> list[Sequence[Any]]:
    """The shapes of the exported program's user inputs (ints and SymInts), in input order."""
    nodes = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    out = []
    for name in program.graph_signature.user_inputs:
        val = nodes[name].meta.get("val") if name in nodes else None
        out.append(tuple(val.shape) if val is not None and hasattr(val, "shape") else ())
    return out


def _shape_env(program: Any) -> Any:
    for n in program.graph.nodes:
        if n.op == "placeholder":
            val = n.meta.get("val")
            mode = getattr(val, "fake_mode", None)
            if mode is not None and getattr(mode, "shape_env", None) is not None:
                return mode.shape_env
    return None


def _is_finite(bound: Any) -> bool:
    try:
        return bool(bound.is_finite) and abs(int(bound)) < 2**62
    except Exception:  # noqa: BLE001
        return False


def recorded_texts(recorded: Sequence[Recorded]) -> list[str]:
    """The texts of the recorded guards and asserts, each once, in order, at most MAX_GUARDS."""
    return list(dict.fromkeys(r.text for r in recorded))[:MAX_GUARDS]


def findings(program: Any, plan: shapes.Plan, recorded: Sequence[Recorded] = ()) -> tuple[list[Finding], list[str]]:
    """What the exporter did to each varied dimension, read from the program's ShapeEnv (a
    dimension replaced by a constant, or its range narrowed), explained by the guards and asserts
    ``recorded`` while it captured (``guard_recorder``); plus the texts of those guards."""
    env = _shape_env(program)
    texts = recorded_texts(recorded)
    # what constrains one dimension alone: a relation between two (x1[0] == x0[0]) is not a
    # specialisation, it ties sizes that the shapes keep tied anyway
    about: dict[tuple[int, int], list[Recorded]] = {}
    for r in recorded:
        if len(set(r.dims)) == 1:
            about.setdefault(r.dims[0], []).append(r)

    def why(key: tuple[int, int], want: Callable[[Recorded], bool]) -> str:
        return next((r.text for r in about.get(key, []) if want(r)), "")

    shapes_now = user_input_shapes(program)
    found: list[Finding] = []
    for v in plan.dims:
        key = (v.input, v.dim)
        size = shapes_now[v.input][v.dim] if v.input < len(shapes_now) and v.dim < len(shapes_now[v.input]) else None
        if size is None:
            continue
        expr = getattr(getattr(size, "node", None), "expr", None)
        if expr is not None and env is not None:
            try:
                expr = env.replace(expr)
            except Exception:  # noqa: BLE001
                pass
        if expr is not None and not getattr(expr, "free_symbols", {None}):
            size = int(expr)  # a SymInt that the exporter replaced by a constant
        if isinstance(size, int):
            found.append(Finding(v.input, v.dim, v.name, "constant", value=int(size),
                                 why=why(key, lambda r: _is_equality(r.text))))
            continue
        rng = getattr(env, "var_to_range", {}).get(expr) if env is not None and expr is not None else None
        if rng is not None:
            lower = int(rng.lower) if _is_finite(rng.lower) else None
            upper = int(rng.upper) if _is_finite(rng.upper) else None
            # an upper bound limits the sizes the program accepts; a lower one (a kernel or a
            # padding needs H >= 3) is a requirement eager shares, so it is not a finding
            if upper is not None:
                found.append(Finding(v.input, v.dim, v.name, "range", lower=lower if (lower or 0) > 2 else None,
                                     upper=upper, why=why(key, lambda r: "<" in r.text.split(" at ", 1)[0])))
                continue
        # a lower bound (x0[2] > 2: a kernel needs H >= 3) is a requirement eager shares, as above
        asserted = why(key, lambda r: r.kind == "assert" and not _is_lower_bound(r.text))
        if asserted:
            found.append(Finding(v.input, v.dim, v.name, "assert", why=asserted))
            continue
        guarded = why(key, lambda r: _is_equality(r.text))
        if guarded:  # a guard the exporter recorded, and then neither specialised nor kept
            found.append(Finding(v.input, v.dim, v.name, "guard", why=guarded))
    return found, texts


_LOWER_BOUND = re.compile(r"^(?:x\d+\[\d+\] >=? -?\d+|-?\d+ <=? x\d+\[\d+\])$")


def _is_lower_bound(text: str) -> bool:
    """``x0[2] > 2``, ``x0[3] >= 3``, ``3 <= x0[2]``: a dimension bounded from below by a constant."""
    return bool(_LOWER_BOUND.match(text.split(" at ", 1)[0].strip()))


def _is_equality(text: str) -> bool:
    expr = text.split(" at ", 1)[0]
    return bool(re.search(r"(?<![<>!=])==(?!=)", expr))


def summary(found: Sequence[Finding], plan: shapes.Plan) -> str:
    """``static in H, W``; ``static in batch; W limited to <= 60``; empty when nothing was found."""
    parts = []
    fixed = [f.name for f in found if f.kind == "constant"]
    if fixed:
        every = len({(f.input, f.dim) for f in found if f.kind == "constant"}) == len(plan.dims)
        parts.append(f"static in {shapes.names_text(fixed)}" + (" (every varied dimension)" if every else ""))
    for f in found:
        if f.kind == "range":
            parts.append(f"{f.name} limited to {f.limit_text()}")
    return "; ".join(dict.fromkeys(parts))


def runnable_shape(plan: shapes.Plan, k: int, found: Sequence[Finding], trace: int) -> tuple[tuple[int, ...], ...]:
    """Shape ``k`` as the program accepts it: fixed dimensions, and limited ones whose size would
    fall outside the range, held at their size in the trace shape."""
    hold = []
    for f in found:
        size = plan.shapes[k][f.input][f.dim]
        if f.kind in ("constant", "range") and not f.accepts(size):
            hold.append((f.input, f.dim))
    if not hold:
        return plan.shapes[k]
    # held() holds at shape 0's sizes; hold at the trace shape's by mapping through it
    out = [list(s) for s in plan.shapes[k]]
    groups = {plan.shapes[0][i][d] for i, d in hold}
    for v in plan.dims:
        if plan.shapes[0][v.input][v.dim] in groups:
            out[v.input][v.dim] = plan.shapes[trace][v.input][v.dim]
    return tuple(tuple(s) for s in out)


# ---------------------------------------------------------------------------------------------
# Running at several shapes (shared with onnx-dynamic)


@dataclasses.dataclass
class ShapeRun:
    """One shape a capture is run at: its inputs, eager's outputs there, and the verdict."""

    shape: tuple[tuple[int, ...], ...]
    role: str  # "trace" or "other"
    values: str = ""  # how the inputs were made: "case", "drawn", "resampled"
    inputs: tuple[Any, ...] | None = None
    expected: list[Any] | None = None
    actual: list[Any] | None = None  # the capture's flat outputs there, once it ran
    status: str = ""  # ok / mismatch / fail / skipped
    detail: str = ""
    error: BaseException | None = None

    def as_record(self) -> dict[str, Any]:
        return {
            "shape": [list(s) for s in self.shape], "role": self.role, "values": self.values,
            "status": self.status, "detail": self.detail,
        }


def raised_by_harness(e: BaseException) -> bool:
    """True when the innermost frame of ``e`` is harness code (opsweep, not its case toolkit): the
    call to eager went wrong, not the case."""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    if last is None:
        return False
    path = os.path.abspath(last)
    return path.startswith(_opsweep_dir()) and not path.startswith(os.path.join(_opsweep_dir(), "toolkit") + os.sep)


class References:
    """Inputs and eager's outputs at the shapes of one job, computed once per shape.

    At a shape other than the case's own, inputs are first drawn (``shapes.inputs_at``, values in
    the originals' range); when eager raises on them, they are resampled from the originals
    instead (structure kept); when eager raises on those too, ``at`` raises eager's first error.
    """

    def __init__(self, ctx: ProbeContext, plan: shapes.Plan):
        self.ctx, self.plan = ctx, plan
        self._cache: dict[Any, tuple[tuple[Any, ...], list[Any], str] | BaseException] = {}

    def at(self, shape: Sequence[Sequence[int]]) -> tuple[tuple[Any, ...], list[Any], str]:
        """(inputs, eager's flat outputs, how the values were made: "case", "drawn", "resampled")."""
        key = tuple(tuple(int(v) for v in s) for s in shape)
        if key == self.plan.shapes[0]:
            return self.ctx.inputs(), self.ctx.expected, "case"
        if key not in self._cache:
            self._cache[key] = self._compute(key)
        found = self._cache[key]
        if isinstance(found, BaseException):
            raise found
        inputs, expected, values = found
        return tuple(x.clone() for x in inputs), expected, values

    def _compute(self, shape: Any) -> Any:
        if self.ctx.eager is None:
            return RuntimeError("no eager reference function in this context")
        first: BaseException | None = None
        for values in (shapes.DRAWN, shapes.RESAMPLED):
            inputs = shapes.inputs_at(self.ctx.case, shape, values, self.plan.spatial())
            try:
                return inputs, self.ctx.eager([(tuple(x.clone() for x in inputs), 0)])[0], values
            except Exception as e:  # noqa: BLE001 - eager failing is a finding, kept for the record
                if raised_by_harness(e):
                    raise  # our own bug must not pass for the case's n/a
                first = first or e
        return first


def eager_other_shapes(ctx: ProbeContext, refs: References, trace: int) -> Outcome | None:
    """n/a (step ``eager-other-shapes``) when eager raises at one of the plan's other shapes; the
    record's ``dynamic`` is filled in that case."""
    ctx.step = "eager-other-shapes"
    plan = refs.plan
    for k in (1, 2):
        try:
            refs.at(plan.shapes[k])
        except Exception as e:  # noqa: BLE001 - eager failing at a shape is the finding
            ctx.side_error = e
            finish_record(ctx, plan, trace, [], [], [])
            return Outcome(
                "n/a",
                "eager-other-shapes",
                f"eager raises {type(e).__name__} at {shapes.shape_text(plan.shapes[k])} "
                f"(the default other shapes do not suit this case: it needs a dynamic override)",
            )
    return None


def start(ctx: ProbeContext, trace: int) -> tuple[shapes.Plan, References] | Outcome:
    """How every dynamic path begins: the plan of varied dimensions and the eager references at its
    shapes, or the n/a that ends the job (no dimension varies, eager raises at another shape). The
    record's ``dynamic`` says what was planned from here on, should the capture raise."""
    ctx.step = "no-dynamic-dims"
    plan = shapes.plan_for(ctx.case)
    if not plan.varies:
        return no_dims(ctx, plan)
    refs = References(ctx, plan)
    refused = eager_other_shapes(ctx, refs, trace)
    if refused is not None:
        return refused
    finish_record(ctx, plan, trace, [], [], [])
    return plan, refs


def read_findings(ctx: ProbeContext, program: Any, plan: shapes.Plan,
                  recorded: Sequence[Recorded]) -> tuple[list[Finding], list[str]]:
    """``findings`` of an exported program; a failure to read them is a note, not a failure (the
    runs at other shapes still decide)."""
    try:
        return findings(program, plan, recorded)
    except Exception as e:  # noqa: BLE001
        ctx.notes.append(f"specialisations unknown: reading the constraint report raised {type(e).__name__}")
        return [], []


def plan_runs(refs: References, trace: int, found: Sequence[Finding]) -> list[ShapeRun]:
    """The three shapes an exported program runs at, in the plan's order: the trace shape as
    exported, the others as the program accepts them (``runnable_shape``), each with its inputs
    and eager's outputs; a shape left equal to the trace shape, or where eager raises, is skipped."""
    plan = refs.plan
    runs = []
    for k in range(len(plan.shapes)):
        role = "trace" if k == trace else "other"
        shape = plan.shapes[k] if k == trace else runnable_shape(plan, k, found, trace)
        r = ShapeRun(shape, role)
        if k != trace and shape == plan.shapes[trace]:
            r.status, r.detail = "skipped", "every varied dimension is static in the program"
        else:
            try:
                r.inputs, r.expected, r.values = refs.at(shape)
            except Exception as e:  # noqa: BLE001
                r.status, r.detail = "skipped", f"eager raises {type(e).__name__} at this shape"
        runs.append(r)
    return runs


def run_shapes(ctx: ProbeContext, runs: list[ShapeRun], run: Any, run_step: str) -> float:
    """Run the capture at every shape (skipping those already judged) and judge each against
    eager; exceptions are kept per shape. Returns the seconds spent running."""
    spent = 0.0
    for r in runs:
        if r.status:
            continue
        ctx.step = run_step
        seed_everything(0)
        t0 = time.perf_counter()
        try:
            actual = run(tuple(x.clone() for x in r.inputs))
        except Exception as e:  # noqa: BLE001 - one shape failing does not stop the others
            spent += time.perf_counter() - t0
            r.status, r.error = "fail", e
            r.detail = f"raised {type(e).__name__}: {scrub(first_line(e), ctx.library)}"
            continue
        spent += time.perf_counter() - t0
        judge(ctx, r, actual)
    return spent


def judge(ctx: ProbeContext, r: ShapeRun, actual: list[Any]) -> None:
    """``r``'s verdict on the capture's ``actual`` outputs, by the case's rules (check=False cases:
    output shapes and finite values; ``supported`` makes their outcome ``ok-unverified``)."""
    r.actual = actual
    outcome = ctx.judge_against(r.expected, actual, "ok", "", tuple(r.inputs))
    r.status = "ok" if outcome.status != "mismatch" else "mismatch"
    r.detail = outcome.detail if outcome.status == "mismatch" else ""


def first_line(e: BaseException) -> str:
    """The first line of ``e``'s text, at most 300 characters ("" for an empty message)."""
    text = str(e).strip()
    return (text.splitlines()[0] if text else "")[:300]


def causes_at(plan: shapes.Plan, run: ShapeRun, found: Sequence[Finding], trace: int = 1) -> list[str]:
    """Phrases of the findings on dimensions whose size at ``run`` differs from the trace shape:
    what the capture fixed that explains a failure there ("H was fixed at 48 during export"; the
    guard itself is in ``record["dynamic"]["specialised"]``, the detail stays short)."""
    base = plan.shapes[trace]
    return list(dict.fromkeys(f.phrase(why=False) for f in found if run.shape[f.input][f.dim] != base[f.input][f.dim]))


def verdict(ctx: ProbeContext, runs: Sequence[ShapeRun], run_step: str,
            causes: Callable[[ShapeRun], list[str]] | None = None) -> Outcome | None:
    """The outcome of the first shape that failed (the trace shape first), or None if all passed.

    A failure at another shape names the shape and what the capture fixed there (``causes(run)``):
    "matches eager at its trace shape only; at 1x3x32x40, where H was fixed by a guard during
    export that the program does not keep: output 0: ..."; its exception becomes the record's error.
    """
    ordered = sorted(runs, key=lambda r: r.role != "trace")
    for r in ordered:
        if r.status in ("ok", "skipped"):
            continue
        where = shapes.shape_text(r.shape)
        extra = causes(r) if causes is not None and r.role != "trace" else []
        because = f", where {'; '.join(extra)}" if extra else ""
        if r.role == "trace":
            detail = f"at the trace shape {where}: {r.detail}"
        elif r.status == "mismatch":
            detail = f"{OTHER_SHAPE_ONLY}; at {where}{because}: {r.detail}"
        else:
            detail = f"ran at its trace shape but at {where}{because}: {r.detail}"
        if r.status == "fail":
            ctx.side_error = r.error
            return Outcome("fail", run_step, detail)
        # as ProbeContext.verify: a capture that already differs is not checked any further
        ctx.checks["fresh_inputs"] = Check(False, None, "the capture already differs from eager at a shape")
        if not ctx.case.check:
            ctx.checks["randomness"] = Check(False, None, "the capture already differs from eager at a shape")
        return Outcome("mismatch", "compare", detail)
    return None


# Why a dynamic-shape path does not compare a stateful module's state (``PathSpec.state_unchecked``):
# its captured program runs at several shapes in turn, each updating the state, so its state after
# them is not eager's after one call; the path's static twin compares it.
STATE_UNCHECKED = ("the dynamic-shape paths run the capture at several shapes in turn; the state is compared "
                   "on the static paths")


def check_case_shape(ctx: ProbeContext, runs: Sequence[ShapeRun], run: Runner, run_step: str, ok_status: str,
                     ok_detail: str) -> Outcome | None:
    """After every shape passed: the checks of ``ProbeContext.verify`` at the case's own shape (the
    one the case's fresh input set and seeds are made for), on the capture's run there. The first
    check that fails decides (a mismatch with verify's detail prefixes, or an exception on the
    fresh inputs escaping with ``opsweep_fresh_inputs``); None when they pass or cannot run (then
    ``checks`` says why). ``runs[0]`` is the run at the case's own shape."""
    first = runs[0] if runs else None
    if first is None or first.values != "case" or first.status != "ok" or first.actual is None:
        why = "the capture did not run at the case's own shape"
        if first is not None and (first.values not in ("", "case") or first.status == "skipped"):
            why = "the capture does not accept the case's own shape (a varied dimension is static in it)"
        ctx.checks["fresh_inputs"] = Check(False, None, why)
        if not ctx.case.check:
            ctx.checks["randomness"] = Check(False, None, why)
        return None
    failed = ctx.check_fresh(run, run_step, ok_status, ok_detail)
    if failed is not None:
        return failed
    if not ctx.case.check:
        return ctx.check_randomness(run, run_step, first.actual, ok_detail)
    return None


def supported(ctx: ProbeContext, status: str, detail: str) -> Outcome:
    """The outcome of a capture that passed everywhere: ``status`` (ok, ok-static, ok-recompiles)
    with ``detail``; a check=False case is ``ok-unverified`` (its values were not compared), the
    detail keeping the dynamic-shape caveat."""
    return Outcome(status if ctx.case.check else "ok-unverified", "", detail)


def _cap(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def finish_record(ctx: ProbeContext, plan: shapes.Plan, trace: int, runs: Sequence[ShapeRun], found: Sequence[Finding],
                  guards: Sequence[str], recompiles: int | None = None) -> None:
    """Fill the record's ``dynamic`` (docs/formats.md section 3) in ``ctx.fields``."""
    record = plan.as_record()
    record.update({
        "trace": trace,
        "specialised": [f.as_record() for f in found],
        "guards": [_cap(g, 300) for g in guards],
        "recompiles": recompiles,
        "per_shape": [dict(r.as_record(), detail=_cap(r.detail)) for r in runs],
    })
    ctx.fields["dynamic"] = record


def no_dims(ctx: ProbeContext, plan: shapes.Plan) -> Outcome:
    ctx.fields["dynamic"] = dict(plan.as_record(), trace=0, specialised=[], guards=[], recompiles=None, per_shape=[])
    return Outcome("n/a", "no-dynamic-dims", plan.why)
