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
  ``break_reasons`` (compile), ``onnx`` (op types and size), ``side_error`` (an exception that did
  not stop the job, e.g. a failed explain; recorded as the record's ``error``).
- ``ctx.module(flat_outputs=...)`` gives a fresh ``CaseModule`` (a deep copy of the target, in
  eval mode for check=True cases); ``ctx.inputs()`` fresh copies of the inputs.
"""

from __future__ import annotations

import copy
import dataclasses
import platform
from typing import Any, Callable, Mapping

import torch

from opsweep.case import Case
from opsweep.compare import check_unverified, compare
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


@dataclasses.dataclass
class ProbeContext:
    case: Case
    expected: list[torch.Tensor]  # flattened eager outputs
    threads: int
    workdir: str  # a private temp dir for this job, removed afterwards
    library: Library | None = None
    step: str = ""
    capture_s: float | None = None
    run_s: float | None = None
    graph_breaks: int | None = None
    break_reasons: list[str] = dataclasses.field(default_factory=list)
    onnx: dict[str, Any] | None = None
    side_error: BaseException | None = None
    notes: list[str] = dataclasses.field(default_factory=list)  # extra detail text

    def module(self, flat_outputs: bool) -> CaseModule:
        return make_module(self.case, flat_outputs)

    def inputs(self) -> tuple[torch.Tensor, ...]:
        return fresh_inputs(self.case)

    def judge(self, actual: list[Any], ok_status: str = "ok", ok_detail: str = "") -> Outcome:
        """Compare ``actual`` (flat) with eager by the case's rules."""
        self.step = "compare"
        if self.case.check:
            problem = compare(self.expected, actual, self.case.atol, self.case.rtol)
            if problem is None:
                return Outcome(ok_status, "", ok_detail)
            return Outcome("mismatch", "compare", problem)
        problem = check_unverified(self.expected, actual)
        if problem is None:
            return Outcome("ok-unverified", "", ok_detail)
        return Outcome("mismatch", "compare", problem)


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
