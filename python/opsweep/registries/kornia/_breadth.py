"""Helpers of the breadth registries (cases_breadth_*.py): the public names below kornia's packages
that `opsweep coverage` counts at any depth (building blocks of the models, module-level helpers,
public methods of public classes).

* ``Call(target, fn, *parts)`` is a module whose ``forward(*inputs)`` returns ``fn(*parts,
  *inputs)``; ``__opsweep_target__`` names the public API it surveys (a function, a class, or a
  method's function such as ``Boxes.trim``), so coverage and the page's API links name it. The
  ``parts`` (modules) are registered children: their weights belong to the graph and to the case
  fingerprint; ``fn`` is hashed by its code (registry functions are), so editing it re-measures.
* ``seeded(seed, build, *args, **kwargs)`` builds an object (a randomly initialised network) from
  a private RNG state: reproducible from ``seed`` alone, and the global RNG is left untouched.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn


class Call(nn.Module):
    """``forward(*inputs) = fn(*parts, *inputs)``; ``__opsweep_target__`` is the API surveyed."""

    def __init__(self, target: Any, fn: Callable[..., Any], *parts: nn.Module):
        super().__init__()
        self.__opsweep_target__ = target
        self.fn = fn
        self.parts = nn.ModuleList(parts)

    def forward(self, *inputs: Any) -> Any:
        return self.fn(*self.parts, *inputs)


def seeded(seed: int, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)`` under ``torch.manual_seed(seed)`` in a forked RNG state; modules in eval mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        out = build(*args, **kwargs)
    if isinstance(out, nn.Module):
        out.eval()
    return out
