"""The fresh input set: the second input set every captured program is checked on.

A capture that baked in a value of its trace inputs (a threshold, a size, a branch taken) matches
eager on those inputs only; run on other values of the same shapes, it shows (docs/formats.md
section 3, ``checks.fresh_inputs``). ``draw_fresh_inputs(case)`` gives that set: the case's own
declaration (opsweep.toolkit.fresh) when it has one, else values drawn from the trace inputs'
range. The same case always gets the same set (a generator seeded from its name), so a result
stays reproducible and ``opsweep repro`` saves the very set the survey checked.
"""

from __future__ import annotations

import hashlib

import torch

from opsweep.case import Case

# The seed of the generator that draws fresh inputs (per case: mixed with the case name).
FRESH_SEED = 20261201


def _stable_seed(text: str) -> int:
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
