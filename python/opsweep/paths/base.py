"""What every capture path shares: the probe signature, its context, the wrapped callable.

Contract of a probe (one per path, registered in ``paths.PATHS``)::

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
