"""What every capture path shares: its description (``PathSpec``), the probe signature, its
context, the wrapped callable.

A path is one module of this package that defines ``PATH = PathSpec(...)``; ``paths/__init__.py``
finds every such module, so a new path is one new file. The spec is the only place that says what
the path is: its id, title, short label, description, steps, default expected seconds,
sub-verdicts, the environment fields its results depend on, and the other harness modules it uses.
The worker's ``hello`` carries ``describe()`` of every spec; the engine plans, keys, validates and
renders from those descriptions (stored in the database and the snapshot), never from a table of
its own.

Contract of a probe (``PathSpec.probe``)::

    def probe_xxx(ctx: ProbeContext) -> Outcome

- The job runner (job.py) has already computed the eager reference (``ctx.expected``) and handled
  the n/a cases; a probe only captures, runs and judges.
- Before each stage the probe sets ``ctx.step`` (a step name of docs/formats.md section 1). An
  exception that escapes the probe is data: the runner records status ``fail`` at ``ctx.step``.
- The probe returns an ``Outcome`` (status, step, detail); ``ctx.judge(outputs)`` implements the
  comparison rules for both check=True and check=False cases.
- Optional findings go on the context: ``capture_s`` / ``run_s`` timings, ``graph_breaks``,
  ``break_reasons`` and ``break_frames`` (compile), ``onnx`` (op types and size), ``dynamic`` (the
  dynamic-shape paths: varied dims, shapes, specialisations, recompiles), ``side_error`` (an exception that did
  not stop the job, e.g. a failed explain; recorded as the record's ``error``).
- ``ctx.module(flat_outputs=...)`` gives a fresh ``CaseModule`` (a deep copy of the target, in
  eval mode for check=True cases); ``ctx.inputs()`` fresh copies of the inputs.
"""

from __future__ import annotations

import copy
import dataclasses
import platform
import time
import traceback
from typing import Any, Callable, Mapping

import torch

from opsweep.case import Case
from opsweep.compare import as_tensor, check_unverified, compare, seed_varying_dims
from opsweep.flatten import flatten
from opsweep.library import Library


def _copy(value: Any) -> Any:
    """A deep copy, or the value itself when it cannot be copied (functions, odd objects)."""
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - a non-copyable target is still probed
        return value


class CaseModule(torch.nn.Module):
    """The case as an ``nn.Module`` whose ``forward(*inputs)`` calls the target.

    ``target(*inputs, **kwargs)``, or ``getattr(target, method)(*inputs, **kwargs)``. With
    ``flat_outputs`` the forward returns ``tuple(flatten(result))``: the exporters then produce
    exactly the flatten order, and result objects need not be registered pytrees.
    """

    def __init__(self, target: Any, method: str | None, kwargs: Mapping[str, Any], flat_outputs: bool):
        super().__init__()
        if isinstance(target, torch.nn.Module):
            self.target = target  # registered: its parameters and buffers belong to the graph
        else:
            self.__dict__["target"] = target
        self.__dict__["_opsweep_method"] = method
        self.__dict__["_opsweep_kwargs"] = dict(kwargs)
        self.__dict__["_opsweep_flat"] = flat_outputs

    def forward(self, *inputs: torch.Tensor) -> Any:
        fn = self.target if self._opsweep_method is None else getattr(self.target, self._opsweep_method)
        out = fn(*inputs, **self._opsweep_kwargs)
        return tuple(flatten(out)) if self._opsweep_flat else out


def make_module(case: Case, flat_outputs: bool) -> CaseModule:
    """A fresh CaseModule over deep copies of the target and kwargs.

    check=True cases run in eval mode; check=False ([random]) cases keep the mode the registry set.
    """
    target = _copy(case.target) if not callable(case.target) or isinstance(case.target, torch.nn.Module) or (
        case.method is not None
    ) else case.target
    module = CaseModule(target, case.method, _copy(dict(case.kwargs)), flat_outputs)
    if case.check:
        module.eval()
    else:
        module.training = bool(getattr(target, "training", False))
    return module


def fresh_inputs(case: Case) -> tuple[torch.Tensor, ...]:
    return tuple(x.detach().clone() for x in case.inputs)


@dataclasses.dataclass(frozen=True)
class Outcome:
    status: str
    step: str = ""
    detail: str = ""


# Seeds of the randomness check. Eager runs under them in turn until some output differs (a
# Bernoulli draw over two elements repeats under two seeds one time in four); the captured program
# runs under the same seeds until every output that varies in eager has varied in it too.
RANDOM_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8)
# When an output stays identical under all of RANDOM_SEEDS in the capture, whether that means
# "frozen" depends on how often eager's output changes with the seed: a RANSAC fit that finds the
# same model under most seeds repeats itself in a correctly random capture too. Eager then runs
# under all of MORE_RANDOM_SEEDS, and the capture under as many of them as it takes: the output is
# frozen only when a capture that draws like eager would repeat itself that often with probability
# at most FROZEN_ALPHA (docs/formats.md section 3, ``checks``; ``frozen_bound``).
MORE_RANDOM_SEEDS = tuple(range(1, 33))
FROZEN_ALPHA = 1e-3
# The seed of the generator that draws fresh inputs (per case: mixed with the case name).
FRESH_SEED = 20261201


def seed_everything(seed: int) -> None:
    """Seed torch, numpy and Python's random together (what a case's randomness may draw from)."""
    import random

    import numpy as np

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def _stable_seed(text: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=4).digest(), "little")


def draw_fresh_inputs(case: Case) -> tuple[tuple[torch.Tensor, ...] | None, str]:
    """The second input set of ``case`` and, when there is none, why.

    The case's own set when it gives one; otherwise every floating tensor gets new values drawn
    uniformly in [min, max] of the original (a generator seeded from the case name), integer and
    bool tensors (indices, masks) are kept. Returns (None, reason) when the case opts out or no
    input would change (no floating input, or only constant ones).
    """
    if isinstance(case.fresh_inputs, str):
        return None, case.fresh_inputs
    if case.fresh_inputs is not None:
        return tuple(x.detach().clone() for x in case.fresh_inputs), ""
    gen = torch.Generator().manual_seed(FRESH_SEED ^ _stable_seed(case.name))
    out: list[torch.Tensor] = []
    changed = False
    for x in case.inputs:
        x = x.detach()
        if x.is_floating_point() and x.numel() > 0:
            lo, hi = float(x.min()), float(x.max())
            if lo < hi and all(map(lambda v: v == v and abs(v) != float("inf"), (lo, hi))):
                u = torch.rand(x.shape, generator=gen, dtype=torch.float64)
                out.append((lo + (hi - lo) * u).to(x.dtype))
                changed = True
                continue
        out.append(x.clone())
    if not changed:
        return None, "no floating input with more than one value to vary"
    return tuple(out), ""


@dataclasses.dataclass
class Check:
    """One extra check of a captured program (docs/formats.md section 3, ``checks``)."""

    ran: bool
    passed: bool | None = None
    why: str = ""  # when it did not run: the reason; when it failed: what differed

    def as_record(self) -> dict[str, Any]:
        return {"ran": self.ran, "passed": self.passed, "why": self.why}


# A captured program run on a given input set: inputs -> flat outputs. The caller seeds torch /
# numpy / random right before the call (runtimes without an RNG ignore it).
Runner = Callable[[tuple[torch.Tensor, ...]], list[Any]]
# The eager reference: calls (inputs, seed) made in turn on ONE fresh module, each call's flat
# outputs (job.py ``eager_calls``). One call is the plain reference; several reproduce a history.
EagerFn = Callable[[list[tuple[tuple[torch.Tensor, ...], int]]], list[list[torch.Tensor]]]


@dataclasses.dataclass
class ProbeContext:
    case: Case
    expected: list[torch.Tensor]  # flattened eager outputs on the trace inputs, seed 0
    threads: int
    workdir: str  # a private temp dir for this job, removed afterwards
    library: Library | None = None
    eager: EagerFn | None = None  # the eager reference on other inputs / seeds
    step: str = ""
    capture_s: float | None = None
    run_s: float | None = None
    graph_breaks: int | None = None
    break_reasons: list[str] = dataclasses.field(default_factory=list)
    break_frames: list[list[str]] = dataclasses.field(default_factory=list)  # parallel to break_reasons
    onnx: dict[str, Any] | None = None
    side_error: BaseException | None = None
    notes: list[str] = dataclasses.field(default_factory=list)  # extra detail text
    checks: dict[str, Check] = dataclasses.field(default_factory=dict)
    # sub-verdicts of the record (a runtime, an opset): id -> record (runtimes/verdicts.py)
    subverdicts: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    # The dynamic-shape paths' findings (docs/formats.md section 3, ``dynamic``); None elsewhere.
    dynamic: dict[str, Any] | None = None
    # The engine's time limit of this job (s) and the time.monotonic() at which it kills the worker;
    # None when the job has none. The sub-verdicts stop before it (runtimes/verdicts.py), so the
    # path's own verdict, known by then, is not lost to a slow sub-verdict.
    timeout_s: float | None = None
    deadline: float | None = None
    _fresh: tuple[tuple[torch.Tensor, ...] | None, str] | None = None
    _eager_cache: dict[Any, list[torch.Tensor] | BaseException] = dataclasses.field(default_factory=dict)

    def module(self, flat_outputs: bool) -> CaseModule:
        return make_module(self.case, flat_outputs)

    def inputs(self) -> tuple[torch.Tensor, ...]:
        return fresh_inputs(self.case)

    def fresh_set(self) -> tuple[tuple[torch.Tensor, ...] | None, str]:
        """The fresh input set (drawn once per job) or (None, why there is none)."""
        if self._fresh is None:
            self._fresh = draw_fresh_inputs(self.case)
        inputs, why = self._fresh
        return (tuple(x.clone() for x in inputs) if inputs is not None else None), why

    def _input_set(self, which: str) -> tuple[torch.Tensor, ...]:
        return self.inputs() if which == "trace" else self.fresh_set()[0]  # type: ignore[return-value]

    def eager_on(self, which: str, seed: int) -> list[torch.Tensor] | BaseException:
        """Eager's flat outputs on the ``trace`` or ``fresh`` inputs under ``seed``, each on a fresh
        module (cached); the exception when eager raises there."""
        return self.eager_history([(which, seed)])

    def eager_history(self, calls: list[tuple[str, int]]) -> list[torch.Tensor] | BaseException:
        """Eager's flat outputs of the LAST of ``calls`` ((``trace``/``fresh``, seed) pairs) made in
        turn on one fresh module (cached); the exception when eager raises."""
        key = tuple(calls)
        if key not in self._eager_cache:
            try:
                if self.eager is None:
                    raise RuntimeError("no eager reference function in this context")
                outs = self.eager([(self._input_set(which), seed) for which, seed in calls])
                self._eager_cache[key] = outs[-1]
            except Exception as e:  # noqa: BLE001 - eager failing here is a reason not to check
                self._eager_cache[key] = e
        return self._eager_cache[key]

    def seed_varying_dims(self, which: str | tuple[torch.Tensor, ...]) -> dict[int, set[int]]:
        """The dimensions of each output whose size varies with the seed in eager, on the ``which``
        inputs (as ``_judge``), under seed 0 and MORE_RANDOM_SEEDS (compare.seed_varying_dims).
        Seeds under which eager raises are left out."""
        shapes = []
        for seed in (0, *MORE_RANDOM_SEEDS):
            if isinstance(which, str):
                out = self.eager_on(which, seed)
            else:
                try:
                    if self.eager is None:
                        raise RuntimeError("no eager reference function in this context")
                    out = self.eager([(tuple(x.clone() for x in which), seed)])[-1]
                except Exception as e:  # noqa: BLE001 - a seed eager raises under tells nothing
                    out = e
            if not isinstance(out, BaseException):
                shapes.append([list(as_tensor(x).shape) for x in out])
        return seed_varying_dims(shapes)

    def op_call_stack(self, ops: list[Any]) -> list[tuple[str, int]]:
        """Where the eager call (trace inputs, seed 0) first invokes one of the aten ``ops``
        (OpOverload or OpOverloadPacket): the Python stack at that moment as ``(filename, line)``
        pairs, outermost first; [] when it never does or eager raises. For failures raised while
        a captured graph is translated, when no library frame is on the stack."""
        if self.eager is None or not ops:
            return []
        from torch.utils._python_dispatch import TorchDispatchMode

        packets = {getattr(op, "overloadpacket", op) for op in ops}

        class Recorder(TorchDispatchMode):
            stack: list[tuple[str, int]] | None = None

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                if Recorder.stack is None and getattr(func, "overloadpacket", func) in packets:
                    frames = traceback.StackSummary.extract(traceback.walk_stack(None), lookup_lines=False)
                    Recorder.stack = [(f.filename, f.lineno or 0) for f in reversed(frames)]
                return func(*args, **(kwargs or {}))

        try:
            with Recorder():
                self.eager([(self.inputs(), 0)])
        except Exception:  # noqa: BLE001 - a location is a bonus; eager already ran once
            pass
        return Recorder.stack or []

    def judge(self, actual: list[Any], ok_status: str = "ok", ok_detail: str = "") -> Outcome:
        """Compare ``actual`` (flat, on the trace inputs) with eager by the case's rules."""
        self.step = "compare"
        return self._judge(self.expected, actual, ok_status, ok_detail)

    def _judge(self, expected: list[torch.Tensor], actual: list[Any], ok_status: str, ok_detail: str,
               which: str | tuple[torch.Tensor, ...] = "trace") -> Outcome:
        """``which``: the inputs both sides ran on (``trace``, ``fresh``, or the tensors of another
        input set), for a check=False case's output shapes that vary with the seed."""
        if self.case.check:
            problem = compare(expected, actual, self.case.atol, self.case.rtol)
            if problem is None:
                return Outcome(ok_status, "", ok_detail)
            return Outcome("mismatch", "compare", problem)
        problem = check_unverified(expected, actual, lambda: self.seed_varying_dims(which))
        if problem is None:
            return Outcome("ok-unverified", "", ok_detail)
        return Outcome("mismatch", "compare", problem)

    def verify(self, run: Runner, run_step: str, ok_status: str = "ok", ok_detail: str = "",
               ok: Callable[[], tuple[str, str]] | None = None) -> Outcome:
        """Run a captured program and judge it: on the trace inputs, on fresh inputs, and (for
        check=False cases) under several seeds. The first check that fails decides the outcome.

        ``run(inputs)`` calls the captured program; it runs at step ``run_step`` (an exception
        escapes to the job runner as a failure at that step; raised on the fresh inputs only, it
        carries ``opsweep_fresh_inputs``). Every check's result is kept in ``checks`` (the
        record's ``checks``), run or not, with why. ``run_s`` is the call on the trace inputs.
        ``ok``, when given, is called once after that first call returned and gives the status and
        detail of a pass (``ok_status``, ``ok_detail``): what only the first call can tell (the
        compile path's graph breaks, counted while that call traced).
        """
        self.step = run_step
        seed_everything(0)
        t0 = time.perf_counter()
        actual = run(self.inputs())
        self.run_s = time.perf_counter() - t0
        if ok is not None:
            ok_status, ok_detail = ok()
        outcome = self.judge(actual, ok_status, ok_detail)
        if outcome.status == "mismatch":
            self.checks["fresh_inputs"] = Check(False, None, "the capture already differs on its trace inputs")
            if not self.case.check:
                self.checks["randomness"] = Check(False, None, "the capture already differs on its trace inputs")
            return outcome
        fresh = self._check_fresh(run, run_step, ok_status, ok_detail)
        if fresh is not None:
            return fresh
        if not self.case.check:
            random = self._check_randomness(run, run_step, actual, ok_detail)
            if random is not None:
                return random
        return outcome

    def _check_fresh(self, run: Runner, run_step: str, ok_status: str, ok_detail: str) -> Outcome | None:
        inputs, why = self.fresh_set()
        if inputs is None:
            self.checks["fresh_inputs"] = Check(False, None, why)
            return None
        expected = self.eager_on("fresh", 0)
        if isinstance(expected, BaseException):
            self.checks["fresh_inputs"] = Check(False, None, f"eager raised on the fresh inputs: {_describe(expected)}")
            return None
        self.step = run_step
        seed_everything(0)
        try:
            actual = run(inputs)
        except Exception as e:  # noqa: BLE001
            self.checks["fresh_inputs"] = Check(True, False, f"raised {type(e).__name__} on the fresh inputs")
            e.opsweep_fresh_inputs = True  # type: ignore[attr-defined]
            raise
        outcome = self._judge(expected, actual, ok_status, ok_detail, "fresh")
        self.step = "compare"
        if outcome.status != "mismatch":
            self.checks["fresh_inputs"] = Check(True, True, "")
            return None
        # The captured program has been called before (on the trace inputs), the eager reference
        # was a fresh module: a target that keeps state between calls differs for that reason
        # alone. Eager with the same history (trace inputs, then fresh) decides.
        history = self.eager_history([("trace", 0), ("fresh", 0)])
        if (not isinstance(history, BaseException)
                and self._judge(expected, history, ok_status, "", "fresh").status == "mismatch"):
            if self._judge(history, actual, ok_status, "", "fresh").status != "mismatch":
                self.checks["fresh_inputs"] = Check(
                    True, True, "the target keeps state between calls: matches eager called with the same history"
                )
                return None
        self.checks["fresh_inputs"] = Check(True, False, outcome.detail)
        return Outcome("mismatch", "compare", f"{FRESH_MISMATCH}: {outcome.detail}")

    def _check_randomness(self, run: Runner, run_step: str, actual: list[Any], ok_detail: str) -> Outcome | None:
        """Random cases: the outputs that vary with the seed in eager must vary in the capture."""
        eager_runs: list[list[torch.Tensor]] = []
        varying: set[int] = set()
        for seed in RANDOM_SEEDS:
            out = self.eager_on("trace", seed)
            if isinstance(out, BaseException):
                self.checks["randomness"] = Check(False, None, f"eager raised under seed {seed}: {_describe(out)}")
                return None
            eager_runs.append(out)
            varying = varying_outputs(eager_runs)
            if varying:
                break
        if not varying:
            return self._judge_deterministic(actual, ok_detail, len(RANDOM_SEEDS))
        self.step = run_step
        got: list[list[torch.Tensor]] = []
        for seed in RANDOM_SEEDS:
            seed_everything(seed)
            got.append([as_tensor(x) for x in run(self.inputs())])
            if len(got) >= 2 and varying <= varying_outputs(got):
                break
        self.step = "compare"
        stuck = sorted(varying - varying_outputs(got))
        if not stuck:
            self.checks["randomness"] = Check(True, True, "")
            return None
        return self._judge_stuck(run, run_step, stuck, got)

    def _judge_stuck(self, run: Runner, run_step: str, stuck: list[int], got: list[list[torch.Tensor]]) -> Outcome | None:
        """Outputs that vary in eager but were identical in the capture under every one of
        RANDOM_SEEDS: frozen, unless eager's own output changes too rarely for that to tell."""
        eager_runs: list[list[torch.Tensor]] = []
        for seed in MORE_RANDOM_SEEDS:
            out = self.eager_on("trace", seed)
            if isinstance(out, BaseException):
                self.checks["randomness"] = Check(False, None, f"eager raised under seed {seed}: {_describe(out)}")
                return None
            eager_runs.append(out)
        commonest = {i: commonest_count([r[i] for r in eager_runs if len(r) > i]) for i in stuck}

        def undecided() -> list[int]:
            return [i for i in stuck if frozen_bound(commonest[i], len(eager_runs), len(got)) > FROZEN_ALPHA]

        self.step = run_step
        for seed in MORE_RANDOM_SEEDS[len(got):]:
            if not undecided():
                break
            seed_everything(seed)
            got.append([as_tensor(x) for x in run(self.inputs())])
            stuck = [i for i in stuck if i not in varying_outputs(got)]
            if not stuck:
                break
        self.step = "compare"
        if not stuck:
            self.checks["randomness"] = Check(True, True, "")
            return None
        open_ = undecided()
        if open_:
            worst = max(open_, key=lambda i: commonest[i])
            self.checks["randomness"] = Check(
                False, None,
                f"{_outputs_text(open_)} identical under {len(got)} seeds in the capture, but eager's changes too "
                f"rarely to tell (the same under {commonest[worst]} of {len(eager_runs)} seeds)",
            )
            return None
        which = _outputs_text(stuck)
        self.checks["randomness"] = Check(True, False, f"{which} identical under {len(got)} seeds")
        return Outcome("mismatch", "compare", f"{RANDOMNESS_FROZEN}: {which} identical under {len(got)} seeds, eager's vary")

    def _judge_deterministic(self, actual: list[Any], ok_detail: str, seeds: int) -> Outcome | None:
        """A check=False case whose eager outputs are the same under every seed (no randomness
        reaches them): its values are compared with eager like a check=True case's."""
        if not outputs_equal(self.expected, [as_tensor(x) for x in self.eager_on("trace", RANDOM_SEEDS[0])]):  # type: ignore[list-item]
            self.checks["randomness"] = Check(False, None, "eager's outputs under seed 0 differ from the other seeds'")
            return None
        problem = compare(self.expected, actual, self.case.atol, self.case.rtol)
        why = f"eager gives the same outputs under {seeds + 1} seeds (no randomness reaches them): values compared with eager"
        if problem is None:
            self.checks["randomness"] = Check(False, None, why)
            return None
        self.checks["randomness"] = Check(False, None, why)
        return Outcome("mismatch", "compare", f"{DETERMINISTIC_MISMATCH}: {problem}")


def _describe(e: BaseException) -> str:
    from opsweep.evidence import first_line, scrub

    return scrub(f"{type(e).__name__}: {first_line(str(e), 200)}".rstrip(": "))


def _outputs_text(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"output {indices[0]}"
    return "outputs " + ", ".join(str(i) for i in indices)


def commonest_count(values: list[Any]) -> int:
    """How many of ``values`` are bitwise identical to the most common one of them."""
    groups: list[tuple[Any, int]] = []
    for v in values:
        for k, (first, n) in enumerate(groups):
            if outputs_equal([first], [v]):
                groups[k] = (first, n + 1)
                break
        else:
            groups.append((v, 1))
    return max((n for _, n in groups), default=0)


def frozen_bound(commonest: int, eager_seeds: int, identical: int) -> float:
    """An upper bound on the probability that a capture drawing like eager gives one output
    ``identical`` times in a row, when eager gave its commonest value under ``commonest`` of
    ``eager_seeds`` seeds: the chance of a repeat is at most the commonest value's probability p,
    bounded above at confidence 1 - FROZEN_ALPHA (Clopper-Pearson), so the bound is
    p_upper ** (identical - 1). A randomness check calls an output frozen only below FROZEN_ALPHA."""
    if identical < 2 or eager_seeds < 1:
        return 1.0
    if commonest >= eager_seeds:
        return 1.0
    import math

    def cdf(p: float) -> float:  # P(X <= commonest) for X ~ Binomial(eager_seeds, p)
        return sum(math.comb(eager_seeds, k) * p**k * (1 - p) ** (eager_seeds - k) for k in range(commonest + 1))

    lo, hi = commonest / eager_seeds, 1.0
    for _ in range(60):  # cdf falls as p grows: the p where it equals FROZEN_ALPHA
        mid = (lo + hi) / 2
        if cdf(mid) > FROZEN_ALPHA:
            lo = mid
        else:
            hi = mid
    return hi ** (identical - 1)


def varying_outputs(runs: list[list[Any]]) -> set[int]:
    """Indices of the outputs that are not bitwise identical across ``runs`` (an output missing
    from some run counts as varying)."""
    if not runs:
        return set()
    n = max(len(r) for r in runs)
    out = set()
    for i in range(n):
        if any(len(r) <= i for r in runs):
            out.add(i)
            continue
        first = runs[0][i]
        if not all(outputs_equal([first], [r[i]]) for r in runs[1:]):
            out.add(i)
    return out


# Detail prefixes the reason rules key on (rules/outcomes.json); part of the record format.
FRESH_MISMATCH = "matches eager on its trace inputs only; on fresh inputs"
RANDOMNESS_FROZEN = "randomness frozen at capture"
# A check=False case that draws no randomness reaching its outputs, and differs from eager.
DETERMINISTIC_MISMATCH = "no randomness reaches the outputs (eager's are the same under every seed), and they differ"


def outputs_equal(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    """Bitwise equality of two flat output lists (NaN equal to NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = as_tensor(x), as_tensor(y)
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.is_floating_point() or x.is_complex():
            if not torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)) or not torch.equal(
                torch.isnan(x), torch.isnan(y)
            ):
                return False
        elif not torch.equal(x, y):
            return False
    return True


Probe = Callable[[ProbeContext], Outcome]

# Steps any job can stop at, whatever its path (docs/formats.md section 1): the job runner's, before
# the probe starts, and the engine's (``worker``: crash, timeout, harness error).
COMMON_STEPS = ("skip", "eager", "no-tensor", "worker")

# Environment fields every job depends on, whatever its path (the library's code is keyed apart).
COMMON_ENV = ("python", "torch", "numpy", "device")


def common_env() -> dict[str, Any]:
    """The values of COMMON_ENV, measured in this interpreter."""
    import numpy
    import torch

    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": numpy.__version__, "device": "cpu"}


def dist_version(name: str) -> str:
    """The installed version of distribution ``name``; "" when it is not installed."""
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


@dataclasses.dataclass(frozen=True)
class SubVerdict:
    """A verdict reported inside a path's record beside the path's own (a runtime, an opset)."""

    id: str  # persisted: never renamed or reused
    title: str  # "OpenVINO"
    label: str  # short, for compact marks: "OV"
    # "runtime": the path's own file, run elsewhere (classified by the rules that name it);
    # "opset": the path's own pipeline at another opset (classified by the path's rules too)
    kind: str = "runtime"
    description: str = ""  # one sentence for the page's card
    steps: tuple[str, ...] = ()  # where it can stop, in order (the record's sub-verdict steps)

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "label": self.label, "kind": self.kind,
                "description": self.description, "steps": list(self.steps)}


@dataclasses.dataclass(frozen=True)
class PathSpec:
    """Everything the engine and the page need to know about one path, said once."""

    id: str  # persisted: never renamed or reused
    title: str  # "torch.export"
    label: str  # short, where reasons of several paths merge: "export"
    description: str  # one sentence for the page's legend and cards
    steps: tuple[str, ...]  # where a job of this path can stop, in order (COMMON_STEPS come on top)
    expected_seconds: float  # the scheduler's guess for a job with no earlier duration
    probe: Probe
    # The environment fields (beyond COMMON_ENV) whose values can change this path's results,
    # measured in this interpreter: {"onnxruntime": "1.32.0", ...}. Keys are part of the job key.
    env: Callable[[], dict[str, Any]] = dict
    order: int = 100  # position among the paths: the page's column order, then by id
    # the sub-verdicts its records may hold; a callable when they depend on the worker's options
    # (the onnx path's requested opsets)
    subverdicts: tuple[SubVerdict, ...] | Callable[[], tuple[SubVerdict, ...]] = ()
    uses: tuple[str, ...] = ()  # other harness modules this path runs, e.g. ("opsweep.paths.onnx",)
    group: str = ""  # a heading over the page's columns of the paths that share it ("dynamic shapes")
    # `opsweep repro` can write a standalone script for this path's failures (opsweep/repro.py has
    # its template); the page shows the repro command only for such paths
    reproducible: bool = False
    module: str = ""  # set by discovery: the module that defines the spec

    def subverdict_list(self) -> tuple[SubVerdict, ...]:
        return tuple(self.subverdicts()) if callable(self.subverdicts) else tuple(self.subverdicts)

    def describe(self, harness: str) -> dict[str, Any]:
        """The path as the worker's hello carries it (docs/formats.md section 2)."""
        env_fields = list(COMMON_ENV) + [k for k in self.env() if k not in COMMON_ENV]
        return {
            "id": self.id,
            "title": self.title,
            "label": self.label,
            "description": self.description,
            "steps": list(self.steps),
            "expected_seconds": self.expected_seconds,
            "order": self.order,
            "env": env_fields,
            "subverdicts": [s.describe() for s in self.subverdict_list()],
            "harness": harness,
            **({"group": self.group} if self.group else {}),
            **({"reproducible": True} if self.reproducible else {}),
        }
