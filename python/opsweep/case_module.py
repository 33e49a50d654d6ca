"""The case as a module: what every job calls, eagerly and through a capture.

``make_module(case, flat_outputs)`` gives a fresh ``CaseModule`` whose ``forward(*inputs)`` calls
the case's target the way the case says (``target(*inputs, **kwargs)``, or its method), over deep
copies of the target and the kwargs: the eager reference, each capture and each check run their
own copy, so no call sees state another call left. ``fresh_inputs(case)`` gives copies of the
case's (trace) inputs. The reproducers carry this code by its source (opsweep/repro.py), so a
script builds its call exactly as the survey does.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

import torch

from opsweep.case import Case
from opsweep.flatten import flatten


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
    """Copies of the case's (trace) inputs, for one call: no call sees what another did to them."""
    return tuple(x.detach().clone() for x in case.inputs)
