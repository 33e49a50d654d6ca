"""kornia.metrics: the public methods of its classes (AverageMeter.update)."""

from __future__ import annotations

import kornia.metrics as KM

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import rand


def _meter(a, b):
    m = KM.AverageMeter()
    m.update(a, 2)
    m.update(b, 3)
    return m.sum, m.avg


CASES = [
    case("AverageMeter.update", "metrics", Call(method_function(KM.AverageMeter, "update"), _meter),
         [rand((), seed=1550), rand((), seed=1551)], note="two 0-d tensor values with weights 2 and 3: the running sum and mean"),
]
NOT_SURVEYED: dict = {}
