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
- an output of two or more dimensions whose differing rows (slices along dim 0) are eager's same
  rows in another order, each row matching one row of eager's within the tolerances (exactly for
  bool and integer outputs), gets ``output 1: the same rows as eager in another order (2 of 95
  rows along dim 0 moved)``: a detector's rows of equal score sorted the other way round (torch's
  sort is not stable), not other values. Failing that, rows along dim 1 are matched within each
  index of dim 0 (a batch of detections, [B, N, 4]): ``(2 of 40 rows along dim 1 moved)``. A value difference in any output is reported before a
  reordering (the first detail names the worst).

``check_unverified`` (check=False cases, randomness inside the graph): count and shapes equal to
eager, and every value finite, except in an output whose eager values are not all finite either.
An output whose shape itself varies with the seed in eager (a random number of rain drops: [2, N, 2])
may differ from eager's along those dimensions (``free_dims``): a capture that draws from its own
generator (onnxruntime's RandomUniformLike, inductor's RNG) draws another N; its rank and its other
dimensions must still be eager's.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

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


def _structure(expected: Sequence[torch.Tensor], actual: Sequence[torch.Tensor],
               free_dims: Callable[[], Mapping[int, set[int]]] | None = None) -> str | None:
    """None when the outputs have eager's count and shapes; else a one-line detail. With
    ``free_dims``, output i's shape may also differ from eager's along ``free_dims()[i]``; it is
    called (at most once) only when a shape differs, since it may run eager again."""
    if len(expected) != len(actual):
        return f"output count differs: {len(actual)} outputs, eager has {len(expected)}"
    free: Mapping[int, set[int]] | None = None
    for i, (e, a) in enumerate(zip(expected, actual)):
        es, as_ = _shape(e), _shape(a)
        if es == as_:
            continue
        if free is None:
            free = free_dims() if free_dims is not None else {}
        dims = free.get(i, set())
        if len(es) != len(as_) or any(x != y and d not in dims for d, (x, y) in enumerate(zip(es, as_))):
            return f"output {i}: shape {as_}, eager has {es}"
    return None


def seed_varying_dims(shapes: Sequence[Sequence[list[int]]]) -> dict[int, set[int]]:
    """From eager's output shapes under several seeds (one list of shapes per seed), the dimensions
    of each output that take more than one size: {output index: {dim, ...}}. An output whose rank
    or presence varies gets no entry (its structure is not compared loosely)."""
    out: dict[int, set[int]] = {}
    if not shapes:
        return out
    n = min(len(s) for s in shapes)
    for i in range(n):
        ranks = {len(s[i]) for s in shapes}
        if len(ranks) != 1:
            continue
        dims = {d for d in range(ranks.pop()) if len({s[i][d] for s in shapes}) > 1}
        if dims:
            out[i] = dims
    return out


def _exact(dtype: torch.dtype) -> bool:
    return dtype == torch.bool or not (dtype.is_floating_point or dtype.is_complex)


def _real_view(t: torch.Tensor) -> torch.Tensor:
    if t.is_complex():
        return torch.view_as_real(t.resolve_conj().contiguous()).to(torch.float64)
    return t.to(torch.float64)


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _moved_rows(e: torch.Tensor, a: torch.Tensor, same: torch.Tensor, atol: float | None,
                rtol: float) -> tuple[int, int, int] | None:
    """``moved_rows`` on ``e``'s and ``a``'s values as compared here (complex parts side by side,
    integer types of both sides as int64). ``atol`` None: exact comparison."""
    if atol is None:
        if e.is_complex() or a.is_complex():
            ev, av = _real_view(e), _real_view(a)
        elif e.dtype != a.dtype:
            ev, av = e.to(torch.int64), a.to(torch.int64)
        else:
            ev, av = e, a

        def close(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return x == y
    else:
        ev, av = _real_view(e), _real_view(a)

        def close(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)

    return moved_rows(ev, av, same, close)


def moved_rows(ev, av, same, close):
    """(dim, moved, rows) when the slices where the capture's values ``av`` and eager's ``ev``
    differ (``same``: elementwise agreement, of the outputs' shape; the values may have one more
    trailing dimension, complex parts) are eager's own slices in another order, each matching one
    of eager's (``close(x, y)``, elementwise, broadcast) one to one; else None.

    Rows are slices along dim 0 (a detector's [N, 6] boxes); failing that, along dim 1 within
    each index of dim 0 (a batch of detections [B, N, 4]: one image's rows sorted the other way
    round), which ``rows`` counts over the batch. Plain torch: repro.py copies this source."""
    shape = list(same.shape)
    for dim in (0, 1):
        if len(shape) < dim + 2 or shape[dim] < 2:
            continue
        lead = shape[0] if dim == 1 else 1
        n = shape[dim]
        s = same.reshape(lead, n, -1)
        e3, a3 = ev.reshape(lead, n, -1), av.reshape(lead, n, -1)
        moved = 0
        for p in range(lead):
            off = (~s[p]).any(dim=1).nonzero().flatten()
            k = int(off.numel())
            if k == 0:
                continue
            if k < 2 or k * k * max(e3.shape[2], 1) > 50_000_000:  # memory and time of the pairs
                moved = 0
                break
            # every pair of rows: broadcast first (torch 2.9's isclose refuses [k,1,w] against [1,k,w])
            pairs = torch.broadcast_tensors(a3[p][off][:, None, :], e3[p][off][None, :, :])
            match = close(*pairs).all(dim=2)
            if not one_to_one([row.nonzero().flatten().tolist() for row in match]):
                moved = 0
                break
            moved += k
        if moved:
            return dim, moved, lead * n
    return None


def one_to_one(candidates):
    """Whether every row i can be given its own row among candidates[i] (a perfect matching,
    by augmenting paths). Plain Python: repro.py copies its source into the reproducers."""
    owner = [-1] * len(candidates)

    def place(i, seen):
        for j in candidates[i]:
            if not seen[j]:
                seen[j] = True
                if owner[j] < 0 or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, [False] * len(candidates)) for i in range(len(candidates)))


def _reordered(index: int, found: tuple[int, int, int]) -> str:
    dim, moved, rows = found
    return f"output {index}: the same rows as eager in another order ({moved} of {rows} rows along dim {dim} moved)"


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
        moved = _moved_rows(e, a, equal, None, rtol)
        if moved is not None:
            return _reordered(index, moved)
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
    moved = _moved_rows(e, a, close, atol, rtol)
    if moved is not None:
        return _reordered(index, moved)
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
    # a value difference first: a reordering elsewhere must not hide it
    failures.sort(key=lambda d: " in another order (" in d)
    more = f" (and {len(failures) - 1} more outputs differ)" if len(failures) > 1 else ""
    return failures[0] + more


def _all_finite(t: torch.Tensor) -> bool:
    if _exact(t.dtype) or t.numel() == 0:
        return True
    return bool(torch.isfinite(t.detach().cpu()).all())


def check_unverified(expected: Sequence[torch.Tensor], actual: Sequence[Any],
                     free_dims: Callable[[], Mapping[int, set[int]]] | None = None) -> str | None:
    """None when a random case's outputs look right (count, shapes, finite); else a detail.
    ``free_dims()``: per output index, the dimensions along which eager's own shape varies with the
    seed (``seed_varying_dims``); the shapes may differ there. Called only when a shape differs."""
    got = [as_tensor(a) for a in actual]
    problem = _structure(expected, got, free_dims)
    if problem:
        return problem
    for i, (e, a) in enumerate(zip(expected, got)):
        if not _all_finite(a) and _all_finite(e):
            bad = int((~torch.isfinite(a.detach().cpu())).sum())
            return f"output {i}: {bad} of {a.numel()} values are not finite (eager's are)"
    return None
