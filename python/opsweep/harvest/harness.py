"""The harness functions the harvest shares with the jobs (the case as a module, the fresh-input
set, seeding, output equality), imported from where the harness keeps them: the modules of their
own (opsweep.case_module, opsweep.fresh_set) or, before those existed, opsweep.paths.base. The
harvest needs no capture path, so it never imports opsweep.paths when it does not have to."""

from __future__ import annotations

import random

import torch

try:
    from opsweep.case_module import make_module
    from opsweep.fresh_set import SET_WORDS, draw_fresh_inputs, fresh_sets
except ImportError:  # pragma: no cover - an older harness
    from opsweep.paths.base import draw_fresh_inputs, make_module  # type: ignore[no-redef]

    SET_WORDS = {"redrawn": "redrawn in range"}

    def fresh_sets(case):  # type: ignore[no-redef]
        inputs, why = draw_fresh_inputs(case)
        return ([("redrawn", inputs)] if inputs is not None else []), why

__all__ = ["SET_WORDS", "draw_fresh_inputs", "fresh_sets", "make_module", "outputs_equal", "seed_everything"]


def seed_everything(seed: int) -> None:
    """Seed torch, numpy and Python's random together, as a job seeds each call."""
    import numpy as np

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def outputs_equal(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    """Bitwise equality of two flat output lists (NaN equal to NaN), as the registries' test."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.is_floating_point() or x.is_complex():
            if not torch.equal(torch.isnan(x), torch.isnan(y)) or not torch.equal(
                torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)
            ):
                return False
        elif not torch.equal(x, y):
            return False
    return True
