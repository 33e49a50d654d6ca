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
- Optional findings go on the context: ``capture_s`` / ``run_s`` timings, ``graph_breaks`` and
  ``break_reasons`` (compile), ``onnx`` (op types and size), ``dynamic`` (the dynamic-shape paths:
  varied dims, shapes, specialisations, recompiles), ``side_error`` (an exception that did
  not stop the job, e.g. a failed explain; recorded as the record's ``error``).
- ``ctx.module(flat_outputs=...)`` gives a fresh ``CaseModule`` (a deep copy of the target, in
  eval mode for check=True cases); ``ctx.inputs()`` fresh copies of the inputs.
"""

from __future__ import annotations

import copy
import dataclasses
import platform
import time
from typing import Any, Callable, Mapping

import torch

from opsweep.case import Case
from opsweep.compare import as_tensor, check_unverified, compare
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


# Seeds of the randomness check: eager and the captured program each run under both.
RANDOM_SEEDS = (1, 2)
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


# A captured program run on a given input set: (inputs, seed) -> flat outputs. The caller seeds
# torch / numpy / random with ``seed`` right before the call (runtimes without an RNG ignore it).
Runner = Callable[[tuple[torch.Tensor, ...]], list[Any]]
# The eager reference on a given input set and seed: flat outputs (job.py provides it).
EagerFn = Callable[[tuple[torch.Tensor, ...], int], list[torch.Tensor]]


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
    onnx: dict[str, Any] | None = None
    side_error: BaseException | None = None
    notes: list[str] = dataclasses.field(default_factory=list)  # extra detail text
    checks: dict[str, Check] = dataclasses.field(default_factory=dict)
    # The dynamic-shape paths' findings (docs/formats.md section 3, ``dynamic``); None elsewhere.
    dynamic: dict[str, Any] | None = None
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

    def eager_on(self, which: str, seed: int) -> list[torch.Tensor] | BaseException:
        """Eager's flat outputs on the ``trace`` or ``fresh`` inputs under ``seed`` (cached);
        the exception when eager raises there."""
        key = (which, seed)
        if key not in self._eager_cache:
            inputs = self.inputs() if which == "trace" else self.fresh_set()[0]
            try:
                if self.eager is None:
                    raise RuntimeError("no eager reference function in this context")
                self._eager_cache[key] = self.eager(inputs, seed)
            except Exception as e:  # noqa: BLE001 - eager failing here is a reason not to check
                self._eager_cache[key] = e
        return self._eager_cache[key]

    def judge(self, actual: list[Any], ok_status: str = "ok", ok_detail: str = "") -> Outcome:
        """Compare ``actual`` (flat, on the trace inputs) with eager by the case's rules."""
        self.step = "compare"
        return self._judge(self.expected, actual, ok_status, ok_detail)

    def _judge(self, expected: list[torch.Tensor], actual: list[Any], ok_status: str, ok_detail: str) -> Outcome:
        if self.case.check:
            problem = compare(expected, actual, self.case.atol, self.case.rtol)
            if problem is None:
                return Outcome(ok_status, "", ok_detail)
            return Outcome("mismatch", "compare", problem)
        problem = check_unverified(expected, actual)
        if problem is None:
            return Outcome("ok-unverified", "", ok_detail)
        return Outcome("mismatch", "compare", problem)

    def verify(self, run: Runner, run_step: str, ok_status: str = "ok", ok_detail: str = "") -> Outcome:
        """Run a captured program and judge it: on the trace inputs, on fresh inputs, and (for
        check=False cases) under two seeds. The first check that fails decides the outcome.

        ``run(inputs)`` calls the captured program; it runs at step ``run_step`` (an exception
        escapes to the job runner as a failure at that step). Every check's result is kept in
        ``checks`` (the record's ``checks``), run or not, with why.
        """
        self.step = run_step
        seed_everything(0)
        t0 = time.perf_counter()
        actual = run(self.inputs())
        self.run_s = time.perf_counter() - t0
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
            frozen = self._check_randomness(run, run_step)
            if frozen is not None:
                return frozen
        return outcome

    def _check_fresh(self, run: Runner, run_step: str, ok_status: str, ok_detail: str) -> Outcome | None:
        inputs, why = self.fresh_set()
        if inputs is None:
            self.checks["fresh_inputs"] = Check(False, None, why)
            return None
        expected = self.eager_on("fresh", 0)
        if isinstance(expected, BaseException):
            self.checks["fresh_inputs"] = Check(
                False, None, f"eager raised {type(expected).__name__} on the fresh inputs"
            )
            return None
        self.step = run_step
        seed_everything(0)
        try:
            actual = run(inputs)
        except Exception as e:  # noqa: BLE001
            self.checks["fresh_inputs"] = Check(True, False, f"raised {type(e).__name__} on fresh inputs")
            e.opsweep_fresh_inputs = True  # type: ignore[attr-defined]
            raise
        outcome = self._judge(expected, actual, ok_status, ok_detail)
        self.step = "compare"
        if outcome.status == "mismatch":
            self.checks["fresh_inputs"] = Check(True, False, outcome.detail)
            return Outcome("mismatch", "compare", f"{FRESH_MISMATCH}: {outcome.detail}")
        self.checks["fresh_inputs"] = Check(True, True, "")
        return None

    def _check_randomness(self, run: Runner, run_step: str) -> Outcome | None:
        a, b = (self.eager_on("trace", s) for s in RANDOM_SEEDS)
        if isinstance(a, BaseException) or isinstance(b, BaseException):
            self.checks["randomness"] = Check(False, None, "eager raised under another seed")
            return None
        if outputs_equal(a, b):
            self.checks["randomness"] = Check(False, None, "eager gives the same outputs under two seeds")
            return None
        self.step = run_step
        got = []
        for seed in RANDOM_SEEDS:
            seed_everything(seed)
            got.append(run(self.inputs()))
        self.step = "compare"
        if outputs_equal([as_tensor(x) for x in got[0]], [as_tensor(x) for x in got[1]]):
            self.checks["randomness"] = Check(True, False, "identical outputs under two seeds")
            return Outcome("mismatch", "compare", RANDOMNESS_FROZEN)
        self.checks["randomness"] = Check(True, True, "")
        return None


# Detail prefixes the reason rules key on (rules/outcomes.json); part of the record format.
FRESH_MISMATCH = "matches eager on its trace inputs only; on fresh inputs"
RANDOMNESS_FROZEN = (
    "randomness frozen at capture: two seeds give identical outputs, eager's differ"
)


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

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "label": self.label}


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
    subverdicts: tuple[SubVerdict, ...] = ()
    uses: tuple[str, ...] = ()  # other harness modules this path runs, e.g. ("opsweep.paths.onnx",)
    module: str = ""  # set by discovery: the module that defines the spec

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
            "subverdicts": [s.describe() for s in self.subverdicts],
            "harness": harness,
        }
