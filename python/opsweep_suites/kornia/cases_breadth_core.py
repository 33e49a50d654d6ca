"""kornia.core below its package: TensorWrapper's operators, the KORNIA_CHECK_* validators, the
helpers of kornia.core.utils, and the public methods of the mixins that kornia's modules inherit.

A validator returns a Python bool or raises: its case returns its (tensor) input after the check, so
it measures whether the check can stay inside a captured graph (a shape check should; a check that
reads values cannot). Callables that only convert out of torch (to numpy, to PIL), display, or
export files are skipped cases with the reason.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

import kornia.core as KCORE
from kornia.core import check as CK
from kornia.core import utils as CU
from kornia.core.mixin.image_module import ImageModuleMixIn
from kornia.core.mixin.onnx import ONNXExportMixin
from kornia.core.tensor_wrapper import TensorWrapper

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import img, rand, randint, randn

CASES: list = []
add = CASES.append


def meth(cls, name):
    return method_function(cls, name)


# ------------------------------------------------------------------------------------------------- TensorWrapper

G = "core.tensor_wrapper"
_A = randn(3, 4, seed=1400)
_B = rand(3, 4, seed=1401, low=0.5, high=2.0)
_I = randint(0, 16, 3, 4, seed=1402)
_J = randint(1, 16, 3, 4, seed=1403)


def _u(x):
    return x.unwrap() if isinstance(x, TensorWrapper) else x


for _op, _fn, _ins in (
    ("__abs__", lambda a: abs(TensorWrapper(a)), (_A,)),
    ("__neg__", lambda a: -TensorWrapper(a), (_A,)),
    ("__pos__", lambda a: +TensorWrapper(a), (_A,)),
    ("__invert__", lambda i: ~TensorWrapper(i), (_I,)),
    ("__mul__", lambda a, b: TensorWrapper(a) * TensorWrapper(b), (_A, _B)),
    ("__rmul__", lambda a: 2.0 * TensorWrapper(a), (_A,)),
    ("__sub__", lambda a, b: TensorWrapper(a) - b, (_A, _B)),
    ("__rsub__", lambda a: 1.0 - TensorWrapper(a), (_A,)),
    ("__truediv__", lambda a, b: TensorWrapper(a) / TensorWrapper(b), (_A, _B)),
    ("__rtruediv__", lambda b: 1.0 / TensorWrapper(b), (_B,)),
    ("__floordiv__", lambda a, b: TensorWrapper(a) // b, (_A, _B)),
    ("__mod__", lambda a, b: TensorWrapper(a) % b, (_A, _B)),
    ("__pow__", lambda b: TensorWrapper(b) ** 1.5, (_B,)),
    ("__radd__", lambda a: 1.0 + TensorWrapper(a), (_A,)),
    ("__matmul__", lambda a, b: TensorWrapper(a) @ TensorWrapper(b.T), (_A, _B)),
    ("__rmatmul__", lambda a, b: a @ TensorWrapper(b.T), (_A, _B)),
    ("__and__", lambda i, j: TensorWrapper(i) & TensorWrapper(j), (_I, _J)),
    ("__or__", lambda i, j: TensorWrapper(i) | j, (_I, _J)),
    ("__xor__", lambda i, j: TensorWrapper(i) ^ TensorWrapper(j), (_I, _J)),
    ("__getitem__", lambda a: TensorWrapper(a)[1:, ::2], (_A,)),
    ("unwrap", lambda a: TensorWrapper(a).unwrap(), (_A,)),
):
    add(case(f"TensorWrapper.{_op}", G, Call(meth(TensorWrapper, _op), lambda *x, f=_fn: _u(f(*x))), list(_ins)))

# ------------------------------------------------------------------------------------------------- validators

G = "core.check"
_IMG = img()
_GRAY = rand(1, 1, 32, 40, seed=1404)
_NOTE = "a validator (bool or raise): the case returns its input after the check"


def _chk(name, fn, call, ins, note=_NOTE):
    add(case(f"check.{name}", G, Call(fn, call), ins, note=note))


_chk("KORNIA_CHECK_SHAPE", CK.KORNIA_CHECK_SHAPE, lambda x: (CK.KORNIA_CHECK_SHAPE(x, ["B", "3", "H", "W"]), x)[1], [_IMG])
_chk("KORNIA_CHECK_SIZES", CK.KORNIA_CHECK_SIZES, lambda x: (CK.KORNIA_CHECK_SIZES(x, [None, 3, 32, None]), x)[1], [_IMG])
_chk("KORNIA_CHECK_SAME_SHAPE", CK.KORNIA_CHECK_SAME_SHAPE, lambda x, y: (CK.KORNIA_CHECK_SAME_SHAPE(x, y), x + y)[1], [_IMG, img(5)])
_chk("KORNIA_CHECK_SAME_SIZE", CK.KORNIA_CHECK_SAME_SIZE, lambda x, y: (CK.KORNIA_CHECK_SAME_SIZE(x, y, 0), x)[1], [_IMG, _GRAY])
_chk("KORNIA_CHECK_SAME_DEVICE", CK.KORNIA_CHECK_SAME_DEVICE, lambda x, y: (CK.KORNIA_CHECK_SAME_DEVICE(x, y), x + y)[1], [_IMG, img(5)])
_chk("KORNIA_CHECK_SAME_DEVICES", CK.KORNIA_CHECK_SAME_DEVICES, lambda x, y: (CK.KORNIA_CHECK_SAME_DEVICES([x, y]), x + y)[1],
     [_IMG, img(5)])
_chk("KORNIA_CHECK_IS_TENSOR", CK.KORNIA_CHECK_IS_TENSOR, lambda x: (CK.KORNIA_CHECK_IS_TENSOR(x), x)[1], [_IMG])
_chk("KORNIA_CHECK_IS_LIST_OF_TENSOR", CK.KORNIA_CHECK_IS_LIST_OF_TENSOR, lambda x, y: (CK.KORNIA_CHECK_IS_LIST_OF_TENSOR([x, y]), x)[1],
     [_IMG, _GRAY])
_chk("KORNIA_CHECK_TYPE", CK.KORNIA_CHECK_TYPE, lambda x: (CK.KORNIA_CHECK_TYPE(x, torch.Tensor), x)[1], [_IMG])
_chk("KORNIA_CHECK_IS_COLOR", CK.KORNIA_CHECK_IS_COLOR, lambda x: (CK.KORNIA_CHECK_IS_COLOR(x), x)[1], [_IMG])
_chk("KORNIA_CHECK_IS_GRAY", CK.KORNIA_CHECK_IS_GRAY, lambda x: (CK.KORNIA_CHECK_IS_GRAY(x), x)[1], [_GRAY])
_chk("KORNIA_CHECK_IS_COLOR_OR_GRAY", CK.KORNIA_CHECK_IS_COLOR_OR_GRAY, lambda x: (CK.KORNIA_CHECK_IS_COLOR_OR_GRAY(x), x)[1], [_GRAY])
_chk("KORNIA_CHECK_IS_IMAGE", CK.KORNIA_CHECK_IS_IMAGE, lambda x: (CK.KORNIA_CHECK_IS_IMAGE(x), x)[1], [_IMG],
     note=_NOTE + "; it reads the value range (a data-dependent check)")
_D1, _D2 = randn(5, 8, seed=1405), randn(6, 8, seed=1406)
_chk("KORNIA_CHECK_DM_DESC", CK.KORNIA_CHECK_DM_DESC, lambda a, b, d: (CK.KORNIA_CHECK_DM_DESC(a, b, d), d)[1],
     [_D1, _D2, torch.cdist(_D1, _D2)])
_chk("KORNIA_UNWRAP", CK.KORNIA_UNWRAP, lambda x: CK.KORNIA_UNWRAP(x, torch.Tensor), [_IMG], note="the object, when of the type")

# ------------------------------------------------------------------------------------------------- utils

G = "core.utils"
_SPD = randn(2, 3, 3, seed=1407) @ randn(2, 3, 3, seed=1407).transpose(1, 2) + torch.eye(3)
add(case("core.utils.safe_inverse_with_mask", G, CU.safe_inverse_with_mask, [torch.cat([_SPD, torch.zeros(1, 3, 3)])],
         note="two invertible matrices and a singular one"))
add(case("core.utils.safe_solve_with_mask", G, CU.safe_solve_with_mask, [randn(3, 3, 1, seed=1408), torch.cat([_SPD, torch.zeros(1, 3, 3)])]))
add(case("core.utils.batched_forward", G, Call(CU.batched_forward, lambda m, x: CU.batched_forward(m, x, x.device, 2), nn.Conv2d(3, 4, 3)),
         [rand(5, 3, 16, 16, seed=1409)], note="a convolution over 5 images in chunks of 2"))
add(case("core.utils.register_module_state", G,
         Call(CU.register_module_state, lambda x: (lambda m: (CU.register_module_state(m, "state", x), m.state * 2)[1])(nn.Module())),
         [rand(3, seed=1410)], note="a tensor registered on a fresh module, then read back"))
add(case("core.utils.is_mps_tensor_safe", G, Call(CU.is_mps_tensor_safe, lambda x: x * float(CU.is_mps_tensor_safe(x) is False)), [_IMG],
         note="a bool (False on the CPU): the case scales its input by it"))


@dataclasses.dataclass
class _TwoTensors:
    """A dataclass of two tensors, for dict_to_dataclass / dataclass_to_dict."""

    a: torch.Tensor
    b: torch.Tensor


_TwoTensors.__module__ = "opsweep_suites.kornia.cases_breadth_core"
add(case("core.utils.dataclass_to_dict", G, Call(CU.dataclass_to_dict, lambda a, b: CU.dataclass_to_dict(_TwoTensors(a, b))), [_A, _B]))
add(case("core.utils.dict_to_dataclass", G, Call(CU.dict_to_dataclass, lambda a, b: CU.dict_to_dataclass({"a": a, "b": b}, _TwoTensors)), [_A, _B]))

# ------------------------------------------------------------------------------------------------- mixins

G = "core.mixin"
_IM = KCORE.ImageModule()
add(case("ImageModuleMixIn.to_tensor", G, Call(meth(ImageModuleMixIn, "to_tensor"), lambda x: _IM.to_tensor(x)), [_IMG],
         note="a tensor passes through"))
add(case("ImageModuleMixIn.convert_input_output", G,
         Call(meth(ImageModuleMixIn, "convert_input_output"), lambda x: _IM.convert_input_output()(lambda t: t * 2.0)(x)), [_IMG],
         note="a function decorated to convert its inputs and outputs (tensors stay tensors)"))


def _skip(name, target, reason):
    add(case(name, G, target, [], skip=reason))


_skip("ImageModuleMixIn.to_numpy", meth(ImageModuleMixIn, "to_numpy"), "converts to a numpy array: no tensor output, nothing to capture")
_skip("ImageModuleMixIn.to_pil", meth(ImageModuleMixIn, "to_pil"), "converts to a PIL image: no tensor output, nothing to capture")
_skip("ImageModuleMixIn.show", meth(ImageModuleMixIn, "show"), "displays the last output image (PIL or matplotlib window)")
_skip("ONNXExportMixin.to_onnx", meth(ONNXExportMixin, "to_onnx"), "exports the module to an .onnx file: an exporter, not an operator")

NOT_SURVEYED: dict = {}
