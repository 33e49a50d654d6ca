"""Comparison of captured outputs with the eager reference.

Contract: ``compare`` and ``check_unverified`` return ``None`` when the outputs pass and otherwise
a one-line detail for the record. Both take flat lists (see flatten.py), eager first.

``compare`` (check=True cases):
- the output count and every shape must be equal;
- bool and integer outputs (on either side) compare exactly;
- complex outputs compare their real and imaginary parts;
- floating outputs: NaN positions must be equal, then NaNs are ignored; equal infinities match;
  the rest must satisfy ``|actual - eager| <= atol + rtol * |eager|`` (torch.isclose). Values are
  compared in float64, so a float16 capture is judged on its own error, not on rounding here.
- the detail names the first failing output, the largest absolute difference and how many
  elements are off: ``output 0: max abs diff 0.0312, 12 of 3840 elements outside atol=0.0002
  rtol=0.001``, plus ``(and N more outputs differ)`` when others fail too.

``check_unverified`` (check=False cases, randomness inside the graph): count and shapes equal to
eager, and every value finite, except in an output whose eager values are not all finite either.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch


def as_tensor(value: Any) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, np.ndarray):
        # np.array keeps a 0-d array 0-d (np.ascontiguousarray would make it shape [1])
        return torch.from_numpy(np.array(value, copy=True, order="C"))
    return torch.as_tensor(value)


def _shape(t: torch.Tensor) -> list[int]:
    return list(t.shape)


def _structure(expected: Sequence[torch.Tensor], actual: Sequence[torch.Tensor]) -> str | None:
    if len(expected) != len(actual):
        return f"output count differs: {len(actual)} outputs, eager has {len(expected)}"
    for i, (e, a) in enumerate(zip(expected, actual)):
        if _shape(e) != _shape(a):
            return f"output {i}: shape {_shape(a)}, eager has {_shape(e)}"
    return None


def _exact(dtype: torch.dtype) -> bool:
    return dtype == torch.bool or not (dtype.is_floating_point or dtype.is_complex)


def _real_view(t: torch.Tensor) -> torch.Tensor:
    if t.is_complex():
        return torch.view_as_real(t.resolve_conj().contiguous()).to(torch.float64)
    return t.to(torch.float64)


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def compare_one(index: int, eager: torch.Tensor, actual: torch.Tensor, atol: float, rtol: float) -> str | None:
    """Detail for one output pair of equal shape, or None."""
    e = eager.detach().cpu()
    a = actual.detach().cpu()
    n = e.numel()
    if n == 0:
        return None
    if _exact(e.dtype) or _exact(a.dtype):
        if e.is_complex() or a.is_complex() or e.is_floating_point() or a.is_floating_point():
            equal = _real_view(e) == _real_view(a)
            if equal.dim() > e.dim():
                equal = equal.all(dim=-1)
        else:
            equal = e.to(torch.int64) == a.to(torch.int64) if e.dtype != a.dtype else e == a
        off = int((~equal).sum())
        if off == 0:
            return None
        return f"output {index}: {off} of {n} elements differ (exact comparison, {str(e.dtype).replace('torch.', '')})"
    e64, a64 = _real_view(e), _real_view(a)
    e_nan, a_nan = torch.isnan(e64), torch.isnan(a64)
    if not torch.equal(e_nan, a_nan):
        return (
            f"output {index}: NaN positions differ ({int(a_nan.sum())} NaN, eager has "
            f"{int(e_nan.sum())}, {int((e_nan ^ a_nan).sum())} positions disagree)"
        )
    close = torch.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
    if e.is_complex():  # an element is off when its real or imaginary part is
        close = close.all(dim=-1)
    off = int((~close).sum())
    if off == 0:
        return None
    diff = (a64 - e64).abs()
    diff = torch.where(torch.isnan(diff), torch.zeros_like(diff), diff)  # NaN pairs and equal infs
    same_inf = torch.isinf(a64) & torch.isinf(e64) & (a64 == e64)
    diff = torch.where(same_inf, torch.zeros_like(diff), diff)
    return (
        f"output {index}: max abs diff {_fmt(float(diff.max()))}, {off} of {n} elements outside "
        f"atol={atol:g} rtol={rtol:g}"
    )


def compare(
    expected: Sequence[torch.Tensor], actual: Sequence[Any], atol: float, rtol: float
) -> str | None:
    """None when ``actual`` matches the eager ``expected``; else a one-line detail."""
    got = [as_tensor(a) for a in actual]
    problem = _structure(expected, got)
    if problem:
        return problem
    failures = []
    for i, (e, a) in enumerate(zip(expected, got)):
        detail = compare_one(i, e, a, atol, rtol)
        if detail:
            failures.append(detail)
    if not failures:
        return None
    more = f" (and {len(failures) - 1} more outputs differ)" if len(failures) > 1 else ""
    return failures[0] + more


def _all_finite(t: torch.Tensor) -> bool:
    if _exact(t.dtype) or t.numel() == 0:
        return True
    return bool(torch.isfinite(t.detach().cpu()).all())


def check_unverified(expected: Sequence[torch.Tensor], actual: Sequence[Any]) -> str | None:
    """None when a random case's outputs look right (count, shapes, finite); else a detail."""
    got = [as_tensor(a) for a in actual]
    problem = _structure(expected, got)
    if problem:
        return problem
    for i, (e, a) in enumerate(zip(expected, got)):
        if not _all_finite(a) and _all_finite(e):
            bad = int((~torch.isfinite(a.detach().cpu())).sum())
            return f"output {i}: {bad} of {a.numel()} values are not finite (eager's are)"
    return None
