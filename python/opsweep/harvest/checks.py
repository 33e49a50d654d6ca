"""The standard every harvested case is held to: the checks of the bundled registries' tests
(python/tests/test_kornia_registries.py, docs/adding-cases.md), run on the case as its registry
loads it.

``check_case(case, on_step)`` returns what the final registry writes for the case:

- ``drop``: a reason when the case cannot be one: its eager call raises when rebuilt from the
  registry, or gives no tensor;
- ``check``: False when its outputs under seeds 1 and 2 differ (randomness in the call: compared
  for count, shape and finiteness only, never reported as a mismatch);
- ``atol`` and ``note``: when its float32 result is not within the default tolerance of its float64
  result (the module and float inputs in double), the tolerance measured: ``TOLERANCE_FACTOR`` times
  the largest error, rounded up to two significant digits, and the note says so;
- ``fresh``: None when the harness's fresh-input sets are valid for the call (floats redrawn in their
  recorded range, or shifted and scaled within it; integer and bool inputs kept: opsweep.fresh_set),
  else the reason the first that is not fails
  (the eager call raises on it, gives non-finite values where the trace inputs did not, or another
  output structure), which the registry writes as ``fresh_inputs="reason"``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

# How far above the measured float32 error a harvested tolerance is set (docs/adding-cases.md:
# "an atol of about 3 times that error").
TOLERANCE_FACTOR = 3.0


def _error(e: BaseException) -> str:
    from opsweep.harvest.worker import scrub_paths

    return scrub_paths(" ".join(f"{type(e).__name__}: {e}".split()))[:200]


def _round_up(x: float) -> float:
    """``x`` rounded up to two significant digits."""
    if x <= 0:
        return 0.0
    exponent = math.floor(math.log10(x)) - 1
    scale = 10.0 ** exponent
    return float(f"{math.ceil(x / scale - 1e-9) * scale:.2g}")


def _outputs(case: Any, inputs: tuple, seed: int, double: bool = False) -> list[torch.Tensor]:
    from opsweep.flatten import flatten
    from opsweep.harvest.harness import make_module, seed_everything

    module = make_module(case, flat_outputs=False)
    xs = [x.detach().clone() for x in inputs]
    if double:
        module = module.double()
        xs = [x.double() if x.is_floating_point() else x for x in xs]
    seed_everything(seed)
    with torch.no_grad():
        return [t.detach().clone() for t in flatten(module(*xs))]


def _finite(ts: list[torch.Tensor]) -> list[bool]:
    return [bool(torch.isfinite(t).all()) if (t.is_floating_point() or t.is_complex()) else True for t in ts]


def check_case(case: Any, on_step: Callable[[int, str], None] = lambda step, what: None) -> dict:
    """The checks above, in order (each step announced, so a hang is pinned to it)."""
    from opsweep.harvest.harness import SET_WORDS, fresh_sets, outputs_equal

    out: dict = {"drop": None, "check": True, "atol": None, "note": "", "fresh": None}
    on_step(0, "eager")
    try:
        reference = _outputs(case, case.inputs, 0)
    except Exception as e:  # noqa: BLE001 - the rebuilt call fails: no case
        out["drop"] = f"the rebuilt call raises: {_error(e)}"
        return out
    if not reference:
        out["drop"] = "the rebuilt call gives no tensor"
        return out

    on_step(1, "deterministic")
    try:
        a, b = (_outputs(case, case.inputs, seed) for seed in (1, 2))
    except Exception as e:  # noqa: BLE001
        out["drop"] = f"the rebuilt call raises under another seed: {_error(e)}"
        return out
    if not outputs_equal(a, b):
        out["check"] = False
        out["note"] = "random: its outputs differ under seeds 1 and 2 (compared for count, shape and finiteness only)"

    if out["check"]:
        on_step(2, "well-posed")
        try:
            single = _outputs(case, case.inputs, 0)
            double = _outputs(case, case.inputs, 0, double=True)
        except Exception:  # noqa: BLE001 - no float64 path: nothing to compare (as the registries' test)
            single, double = [], []
        worst = 0.0
        for x, y in zip(single, double):
            if x.shape != y.shape or not (x.is_floating_point() and y.is_floating_point()) or not x.numel():
                continue
            d = (x.double() - y).abs()
            bad = (d > case.atol + case.rtol * y.abs()) & torch.isfinite(y)
            if bool(bad.any()):
                worst = max(worst, float(d[bad].max()))
        if worst > 0:
            out["atol"] = max(case.atol, _round_up(TOLERANCE_FACTOR * worst))
            out["note"] = (f"atol {out['atol']:g}: its float32 result differs from float64 by up to {worst:.3g} "
                           f"(measured by opsweep harvest; {TOLERANCE_FACTOR:g} times that)")

    on_step(3, "fresh inputs")
    sets, _why = fresh_sets(case)
    for name, fresh in sets:
        words = SET_WORDS.get(name, name)
        try:
            again = _outputs(case, fresh, 0)
        except Exception as e:  # noqa: BLE001
            out["fresh"] = f"the call raises on the fresh input set {words}: {_error(e)}"
            return out
        if len(again) != len(reference) or any(x.shape != y.shape for x, y in zip(again, reference)):
            out["fresh"] = f"its output shapes depend on the input values: the fresh input set {words} gives other shapes"
            return out
        if any(r and not g for r, g in zip(_finite(reference), _finite(again))):
            out["fresh"] = f"the fresh input set {words} gives non-finite outputs: not valid inputs for it"
            return out
    return out
