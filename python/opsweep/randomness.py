"""Randomness: seeding a call, and telling a capture that froze eager's randomness.

Every call a job makes (the eager reference, each captured run) is seeded first with
``seed_everything``: torch, numpy and Python's random, what a case's randomness may draw from.
A check=False case (randomness inside the graph) must still draw in its capture: the outputs that
vary with the seed in eager must vary in the capture too (``ProbeContext.check_randomness``,
paths/context.py). This module holds the seeds that check uses and the statistics behind its
verdict: which outputs vary across runs, how often eager repeats its commonest value, and the
bound under which a capture that repeats itself is called frozen (docs/formats.md section 3,
``checks``).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from opsweep.compare import as_tensor

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


def seed_everything(seed: int) -> None:
    """Seed torch, numpy and Python's random together (what a case's randomness may draw from)."""
    import random

    import numpy as np

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


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
