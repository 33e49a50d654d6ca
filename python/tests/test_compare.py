"""Comparison rules (compare.py): shapes, exact dtypes, NaN positions, tolerances, details."""

import math

import numpy as np
import pytest
import torch

from opsweep.compare import check_unverified, compare, seed_varying_dims

torch.set_num_threads(1)


def test_equal_outputs_pass():
    x = torch.randn(3, 4)
    assert compare([x], [x.clone()], 2e-4, 1e-3) is None


def test_count_and_shape_must_match():
    x = torch.randn(3, 4)
    assert "output count differs" in compare([x], [x, x], 2e-4, 1e-3)
    assert compare([x], [x.reshape(4, 3)], 2e-4, 1e-3) == "output 0: shape [4, 3], eager has [3, 4]"


def test_detail_gives_max_diff_and_count():
    e = torch.zeros(3840)
    a = e.clone()
    a[:12] = 0.0312
    assert compare([e], [a], 2e-4, 1e-3) == (
        "output 0: max abs diff 0.0312, 12 of 3840 elements outside atol=0.0002 rtol=0.001"
    )


def test_tolerances_are_atol_plus_rtol():
    e = torch.full((10,), 100.0)
    assert compare([e], [e + 0.09], 2e-4, 1e-3) is None  # 0.09 <= 2e-4 + 0.1
    assert compare([e], [e + 0.2], 2e-4, 1e-3) is not None


def test_bool_and_integer_outputs_are_exact():
    b = torch.tensor([True, False, True])
    assert compare([b], [b.clone()], 1.0, 1.0) is None
    detail = compare([b], [torch.tensor([True, False, False])], 1.0, 1.0)
    assert detail == "output 0: 1 of 3 elements differ (exact comparison, bool)"
    i = torch.tensor([1, 2, 3])
    assert compare([i], [torch.tensor([1, 2, 4])], 10.0, 10.0) is not None  # no tolerance for integers
    assert compare([i], [i.to(torch.int32)], 0, 0) is None  # int32 vs int64 of equal values


def test_nan_positions_must_match_then_are_ignored():
    e = torch.tensor([1.0, float("nan"), 3.0])
    assert compare([e], [torch.tensor([1.0, float("nan"), 3.0])], 2e-4, 1e-3) is None
    detail = compare([e], [torch.tensor([1.0, 2.0, 3.0])], 2e-4, 1e-3)
    assert detail.startswith("output 0: NaN positions differ")


def test_equal_infinities_match_and_unequal_do_not():
    e = torch.tensor([float("inf"), -1.0])
    assert compare([e], [e.clone()], 2e-4, 1e-3) is None
    detail = compare([e], [torch.tensor([1.0, -1.0])], 2e-4, 1e-3)
    assert "max abs diff inf, 1 of 2" in detail


def test_complex_compares_real_and_imag():
    e = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex64)
    assert compare([e], [e.clone()], 2e-4, 1e-3) is None
    a = torch.tensor([1 + 1.5j, 2 - 1j], dtype=torch.complex64)
    assert "1 of 2 elements outside" in compare([e], [a], 2e-4, 1e-3)


def test_numpy_outputs_are_accepted_and_later_failures_counted():
    e1, e2 = torch.ones(2, 2), torch.zeros(3)
    detail = compare([e1, e2], [np.full((2, 2), 2.0, np.float32), np.ones(3, np.float32)], 2e-4, 1e-3)
    assert detail.startswith("output 0:") and detail.endswith("(and 1 more outputs differ)")


def test_unverified_checks_shapes_and_finiteness():
    e = torch.rand(4)
    assert check_unverified([e], [torch.rand(4)]) is None
    assert "shape" in check_unverified([e], [torch.rand(5)])
    bad = torch.tensor([1.0, math.inf, 0.0, float("nan")])
    assert check_unverified([e], [bad]) == "output 0: 2 of 4 values are not finite (eager's are)"
    # an output that is not finite in eager either is not held against the capture
    assert check_unverified([bad], [bad]) is None
    assert check_unverified([e], []) is not None


def test_unverified_shapes_may_differ_only_where_eager_varies_with_the_seed():
    """A random number of points [2, N, 2] (kornia's RainGenerator): eager's N changes with the
    seed, so a capture with its own generator may draw another N; nothing else may differ."""
    shapes = [[[2, n, 2], [2]] for n in (36, 35, 32, 22)]
    free = seed_varying_dims(shapes)
    assert free == {0: {1}}
    e = [torch.rand(2, 36, 2), torch.rand(2)]
    assert check_unverified(e, [torch.rand(2, 28, 2), torch.rand(2)]) == "output 0: shape [2, 28, 2], eager has [2, 36, 2]"
    assert check_unverified(e, [torch.rand(2, 28, 2), torch.rand(2)], lambda: free) is None
    assert check_unverified(e, [torch.rand(3, 28, 2), torch.rand(2)], lambda: free) == "output 0: shape [3, 28, 2], eager has [2, 36, 2]"
    assert check_unverified(e, [torch.rand(2, 28), torch.rand(2)], lambda: free) == "output 0: shape [2, 28], eager has [2, 36, 2]"
    assert check_unverified(e, [torch.rand(2, 36, 2), torch.rand(3)], lambda: free) == "output 1: shape [3], eager has [2]"
    assert check_unverified(e, [torch.rand(2, 28, 2)], lambda: free) == "output count differs: 1 outputs, eager has 2"
    bad = torch.full((2, 28, 2), math.nan)
    assert check_unverified(e, [bad, torch.rand(2)], lambda: free) == "output 0: 112 of 112 values are not finite (eager's are)"
    # free_dims may run eager again under other seeds: only a differing shape asks, and once
    calls = []

    def counted() -> dict[int, set[int]]:
        calls.append(1)
        return {0: {1}, 1: {0}}

    assert check_unverified(e, [torch.rand(2, 36, 2), torch.rand(2)], counted) is None and calls == []
    assert check_unverified(e, [torch.rand(2, 36, 2)], counted) == "output count differs: 1 outputs, eager has 2"
    assert calls == []
    assert check_unverified(e, [torch.rand(2, 30, 2), torch.rand(5)], counted) is None and calls == [1]
    # a rank that varies, or an output some seeds lack, is never compared loosely
    assert seed_varying_dims([[[2, 3]], [[2, 3, 1]]]) == {}
    assert seed_varying_dims([[[2, 3], [1]], [[2, 4]]]) == {0: {1}}
    assert seed_varying_dims([[[2, 3]], [[2, 3]]]) == {} and seed_varying_dims([]) == {}


def test_numpy_outputs_keep_their_rank():
    """onnxruntime returns a scalar loss as a 0-d array: it must stay 0-d (np.ascontiguousarray
    made it shape [1], and every scalar output compared as a shape mismatch)."""
    from opsweep.compare import as_tensor

    assert as_tensor(np.array(1.5, dtype=np.float32)).shape == ()
    assert as_tensor(np.array([1.5], dtype=np.float32)).shape == (1,)
    assert as_tensor(np.zeros((0, 3), dtype=np.float32)).shape == (0, 3)
    assert compare([torch.tensor(1.5)], [np.array(1.5, dtype=np.float32)], 2e-4, 1e-3) is None
    assert compare([torch.tensor([1.5])], [np.array(1.5, dtype=np.float32)], 2e-4, 1e-3) == "output 0: shape [], eager has [1]"
    # a non-contiguous array is copied, not viewed
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    assert torch.equal(as_tensor(a), torch.tensor([[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]))


def test_rows_in_another_order_are_named_as_a_reordering():
    # a detector's rows of equal score, sorted the other way round (FaceDetector under torch.compile)
    e = torch.arange(95 * 15, dtype=torch.float32).reshape(95, 15)
    a = e.clone()
    a[[57, 58]] = e[[58, 57]]
    assert compare([e], [a], 2e-4, 1e-3) == "output 0: the same rows as eager in another order (2 of 95 rows along dim 0 moved)"
    # within the tolerances, each row matching one of eager's
    assert compare([e], [a + 1e-5], 2e-4, 1e-3).endswith("(2 of 95 rows along dim 0 moved)")
    # exact outputs: rows of indices, in another order
    i = torch.arange(12).reshape(4, 3)
    assert compare([i], [i[[0, 2, 1, 3]]], 2e-4, 1e-3) == (
        "output 0: the same rows as eager in another order (2 of 4 rows along dim 0 moved)")
    # three rows in a cycle; higher dimensions: a row is a slice along dim 0
    b = torch.randn(5, 2, 3)
    assert compare([b], [b[[2, 0, 1, 3, 4]]], 2e-4, 1e-3).endswith("(3 of 5 rows along dim 0 moved)")


def test_rows_of_one_image_of_a_batch_in_another_order_are_a_reordering_along_dim_1():
    # RTDETR's batched boxes [B, N, 4] under onnxruntime 1.23: rows 18 and 19 of the second image
    # swapped, their scores 0.74631 and 0.74623 (equal within the tolerances)
    e = torch.rand(2, 20, 4)
    a = e.clone()
    a[1, [18, 19]] = e[1, [19, 18]] + 1e-5
    assert compare([e], [a], 2e-4, 1e-3) == "output 0: the same rows as eager in another order (2 of 40 rows along dim 1 moved)"
    # moves in both images count together; along dim 0 first when the images themselves moved
    a[0, [0, 1, 2]] = e[0, [2, 0, 1]]
    assert compare([e], [a], 2e-4, 1e-3).endswith("(5 of 40 rows along dim 1 moved)")
    assert compare([e], [e[[1, 0]]], 2e-4, 1e-3).endswith("(2 of 2 rows along dim 0 moved)")
    # a row of one image that is another image's row is no reordering within the image
    b = e.clone()
    b[1, 0], b[1, 1] = e[1, 1], e[0, 0]
    assert compare([e], [b], 2e-4, 1e-3).startswith("output 0: max abs diff ")
    # exact outputs too (indices of matches, [B, N, 2])
    i = torch.arange(24).reshape(2, 6, 2)
    j = i.clone()
    j[0, [3, 4]] = i[0, [4, 3]]
    assert compare([i], [j], 2e-4, 1e-3) == "output 0: the same rows as eager in another order (2 of 12 rows along dim 1 moved)"


def test_a_reordering_is_not_claimed_when_a_value_differs():
    e = torch.arange(40, dtype=torch.float32).reshape(10, 4)
    a = e[[1, 0, 2, 3, 4, 5, 6, 7, 8, 9]].clone()
    a[1, 3] += 0.5  # a moved row that is not eager's row
    assert compare([e], [a], 2e-4, 1e-3).startswith("output 0: max abs diff ")
    # two rows that both became the same eager row: no one-to-one matching
    d = e.clone()
    d[1] = e[0]
    d[0] = e[0]
    assert compare([e], [d], 2e-4, 1e-3).startswith("output 0: max abs diff ")
    # one dimension: a permutation of values is not a reordering of rows (an argsort is always one)
    v = torch.arange(6.0)
    assert compare([v], [v.flip(0)], 2e-4, 1e-3).startswith("output 0: max abs diff ")
    # a value difference in another output is named first
    assert compare([e, v], [e[[1, 0, 2, 3, 4, 5, 6, 7, 8, 9]], v + 1], 2e-4, 1e-3) == (
        "output 1: max abs diff 1, 6 of 6 elements outside atol=0.0002 rtol=0.001 (and 1 more outputs differ)")
