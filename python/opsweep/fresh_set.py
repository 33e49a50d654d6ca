"""The fresh input sets: the other input sets every captured program is checked on.

A capture that baked in a value of its trace inputs (a threshold, a size, a branch taken, a
statistic such as their mean) matches eager on those inputs only; run on other values of the same
shapes, it shows (docs/formats.md section 3, ``checks.fresh_inputs``). ``fresh_sets(case)`` gives
those sets: the case's own declaration (opsweep.toolkit.fresh) when it has one, else two sets made
from the trace inputs:

- ``redrawn``: every floating input's values drawn anew, uniformly in [min, max] of the original.
  It changes each element (a capture that baked in an order, an index or a branch shows), but its
  statistics are the original's: a mean, a range or a quantile baked into the capture still fits.
- ``shifted``: every floating input mapped onto part of its own range, x -> lo + w/10 + (x - lo)/2
  (w = max - min): its minimum, maximum, mean and spread all move, its structure (order, edges,
  which elements are equal) stays. A capture that baked in a statistic of the inputs shows here.

Integer and bool tensors (indices, masks, labels) are kept in both. The same case always gets the
same sets (a generator seeded from its name), so a result stays reproducible and ``opsweep repro``
saves the very sets the survey checked.

``perturbed(inputs, case_name)`` is the guard against blaming a capture for an input set eager
itself cannot answer stably: the set with every floating input moved by a few units in the last
place. When eager's own outputs on the set and on its perturbed copy differ beyond the case's
tolerance, the set is ill-conditioned for the call (float32 rounding alone changes the answer) and
a capture that differs there is not judged on it.
"""

from __future__ import annotations

import hashlib

import torch

from opsweep.case import Case

# The seed of the generator that draws fresh inputs (per case: mixed with the case name).
FRESH_SEED = 20261201
# The default sets, in the order they are checked, with the words a record uses for them.
SET_WORDS = {
    "redrawn": "redrawn in range",
    "shifted": "shifted and scaled",
    "declared": "the case's own set",
}
# The relative size of the perturbation of ``perturbed``: 8 units of float32's last place.
PERTURB_RELATIVE = 8 * torch.finfo(torch.float32).eps

FreshSet = tuple[str, tuple[torch.Tensor, ...]]


def _stable_seed(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=4).digest(), "little")


def _range(x: torch.Tensor) -> tuple[float, float] | None:
    """(min, max) of a floating tensor that has more than one finite value to vary, else None."""
    if not (x.is_floating_point() and x.numel() > 0):
        return None
    lo, hi = float(x.min()), float(x.max())
    if lo < hi and all(v == v and abs(v) != float("inf") for v in (lo, hi)):
        return lo, hi
    return None


def fresh_sets(case: Case) -> tuple[list[FreshSet], str]:
    """The fresh input sets of ``case`` (name, tensors), in the order they are checked, and, when
    there are none, why.

    The case's own set (``declared``) when it gives one; otherwise ``redrawn`` and ``shifted``
    (module docstring). Returns ([], reason) when the case opts out or no input would change (no
    floating input, or only constant ones).
    """
    if isinstance(case.fresh_inputs, str):
        return [], case.fresh_inputs
    if case.fresh_inputs is not None:
        return [("declared", tuple(x.detach().clone() for x in case.fresh_inputs))], ""
    gen = torch.Generator().manual_seed(FRESH_SEED ^ _stable_seed(case.name))
    redrawn: list[torch.Tensor] = []
    shifted: list[torch.Tensor] = []
    changed = False
    for x in case.inputs:
        x = x.detach()
        bounds = _range(x)
        if bounds is None:
            redrawn.append(x.clone())
            shifted.append(x.clone())
            continue
        lo, hi = bounds
        u = torch.rand(x.shape, generator=gen, dtype=torch.float64)
        redrawn.append((lo + (hi - lo) * u).to(x.dtype))
        shifted.append((lo + (hi - lo) / 10 + (x.double() - lo) / 2).to(x.dtype))
        changed = True
    if not changed:
        return [], "no floating input with more than one value to vary"
    return [("redrawn", tuple(redrawn)), ("shifted", tuple(shifted))], ""


def draw_fresh_inputs(case: Case) -> tuple[tuple[torch.Tensor, ...] | None, str]:
    """The first fresh input set of ``case`` (``fresh_sets``) or (None, why there is none)."""
    sets, why = fresh_sets(case)
    return (sets[0][1], "") if sets else (None, why)


def set_words(names: list[str]) -> str:
    """How a record names the sets that ran: ``2 sets: redrawn in range, shifted and scaled``."""
    words = [SET_WORDS.get(n, n) for n in names]
    if len(words) == 1:
        return f"1 set: {words[0]}"
    return f"{len(words)} sets: " + ", ".join(words)


def perturbed(inputs: tuple[torch.Tensor, ...], case_name: str) -> tuple[torch.Tensor, ...]:
    """``inputs`` with every floating tensor multiplied by (1 + e), e uniform in
    [-PERTURB_RELATIVE, PERTURB_RELATIVE] per element (seeded from the case name); the rest kept."""
    gen = torch.Generator().manual_seed(FRESH_SEED ^ _stable_seed("perturbed:" + case_name))
    out = []
    for x in inputs:
        if x.is_floating_point() and x.numel() > 0:
            e = (torch.rand(x.shape, generator=gen, dtype=torch.float64) * 2 - 1) * PERTURB_RELATIVE
            out.append((x.double() * (1 + e)).to(x.dtype))
        else:
            out.append(x.clone())
    return tuple(out)
