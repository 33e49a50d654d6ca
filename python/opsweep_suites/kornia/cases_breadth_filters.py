"""kornia.filters below its package: the kernel builders of ``kornia.filters.kernels`` that the
package does not re-export, ``normalize_kernel2d``, and OtsuThreshold.transform_input."""

from __future__ import annotations

import torch

import kornia.filters as KFL
from kornia.filters import kernels as KK

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import rand

G = "filters.kernels"
CASES = []
add = CASES.append
add(case("kernels.gaussian_discrete", G, Call(KK.gaussian_discrete, lambda s: KK.gaussian_discrete(7, s)), [torch.tensor([[1.5], [2.0]])],
         note="two sigmas as a tensor"))
add(case("kernels.gaussian_discrete_erf", G, Call(KK.gaussian_discrete_erf, lambda s: KK.gaussian_discrete_erf(7, s)),
         [torch.tensor([[1.5], [2.0]])], note="two sigmas as a tensor"))
add(case("kernels.get_pascal_kernel_1d", G, Call(KK.get_pascal_kernel_1d, lambda x: KK.get_pascal_kernel_1d(5, True, dtype=x.dtype) + x),
         [torch.zeros(1)], note="no tensor input: the kernel (a zero input carries the dtype)"))
add(case("kernels.get_pascal_kernel_2d", G, Call(KK.get_pascal_kernel_2d, lambda x: KK.get_pascal_kernel_2d((3, 5), dtype=x.dtype) + x),
         [torch.zeros(1)], note="no tensor input: the kernel (a zero input carries the dtype)"))
for _name in ("get_canny_nms_kernel", "get_diff_kernel2d_2nd_order", "get_diff_kernel3d", "get_diff_kernel3d_2nd_order",
              "get_diff_kernel_3x3", "get_hysteresis_kernel", "get_sobel_kernel2d_2nd_order", "get_sobel_kernel_3x3",
              "get_sobel_kernel_5x5_2nd_order"):
    _fn = getattr(KK, _name)
    add(case(f"kernels.{_name}", G, Call(_fn, lambda x, f=_fn: f(dtype=x.dtype) + x), [torch.zeros(1)],
             note="no tensor input: the kernel (a zero input carries the dtype)"))
add(case("kernels.normalize_kernel2d", G, KK.normalize_kernel2d, [rand(2, 5, 5, seed=1510, low=-1.0, high=1.0)]))
add(case("OtsuThreshold.transform_input", "filters", Call(method_function(KFL.OtsuThreshold, "transform_input"),
                                                        lambda x: KFL.OtsuThreshold().transform_input(x)[0]),
         [rand(2, 3, 16, 20, seed=1511)], note="the flattened input (the original shape is the second result)"))
NOT_SURVEYED: dict = {}
