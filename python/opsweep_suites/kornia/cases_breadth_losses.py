"""kornia.losses below its package and the public methods of its classes: the Hausdorff losses'
erosion steps, the mutual-information losses' steps and kernels, ``dice.mask_ignore_pixels``.
Methods are probed on the arguments of a real call of the loss (``record_many``)."""

from __future__ import annotations

import torch

import kornia.losses as KL
from kornia.losses import dice as KLD
from kornia.losses import mutual_information as KMI

from opsweep import case
from opsweep_suites.kornia._breadth import Call, _key, method_function, record_many, replay
from opsweep_suites.kornia._common import rand, randint, randn

G = "losses"
CASES = []
add = CASES.append
_HP, _HT = randn(2, 2, 16, 16, seed=1530), randint(0, 2, 2, 1, 16, 16, seed=1531)
_HP5, _HT5 = randn(1, 2, 4, 8, 8, seed=1532), randint(0, 2, 1, 1, 4, 8, 8, seed=1533)
_SIG_T = rand(2, 200, seed=1534)
_SIG_I = (0.7 * _SIG_T + 0.3 * rand(2, 200, seed=1535)).contiguous()
_MASK = torch.ones(200, dtype=torch.bool)
_MASK[:20] = False
_IM_T = rand(2, 12, 12, seed=1536)
_IM_I = (0.7 * _IM_T + 0.3 * rand(2, 12, 12, seed=1537)).contiguous()
_VOL_T = rand(1, 4, 8, 8, seed=1538)
_VOL_I = (0.7 * _VOL_T + 0.3 * rand(1, 4, 8, 8, seed=1539)).contiguous()


def _steps(targets, run, note):
    calls = record_many(targets, run)
    for t in targets:
        cls, name = t
        fn = method_function(cls, name)
        module, inputs = replay(fn, fn, *calls[_key(t)])
        add(case(f"{cls.__name__}.{name}", G, module, inputs, note=note))


_steps([(KL.HausdorffERLoss, "perform_erosion"), (KL.HausdorffERLoss, "max_pool")], lambda: KL.HausdorffERLoss()(_HP, _HT),
       "its arguments in HausdorffERLoss on two 2-class 16x16 predictions")
_steps([(KL.HausdorffERLoss3D, "max_pool")], lambda: KL.HausdorffERLoss3D()(_HP5, _HT5),
       "its arguments in HausdorffERLoss3D on a 2-class 4x8x8 prediction")
_steps([(KL.MILossFromRef, "entropies"), (KL.MILossFromRef, "fix_mask"), (KL.MILossFromRef, "trace_in_ref_mask")],
       lambda: KL.MILossFromRef(_SIG_T, mask=_MASK)(_SIG_I, _MASK), "its arguments in MILossFromRef with masks on two 200-value signals")
_steps([(KL.MILossFromRef2D, "arrange_shape")], lambda: KL.MILossFromRef2D(_IM_T)(_IM_I), "its arguments in MILossFromRef2D")
_steps([(KL.MILossFromRef3D, "arrange_shape")], lambda: KL.MILossFromRef3D(_VOL_T)(_VOL_I), "its arguments in MILossFromRef3D")
_steps([(KL.NMILossFromRef2D, "arrange_shape")], lambda: KL.NMILossFromRef2D(_IM_T)(_IM_I), "its arguments in NMILossFromRef2D")
_steps([(KL.NMILossFromRef3D, "arrange_shape")], lambda: KL.NMILossFromRef3D(_VOL_T)(_VOL_I), "its arguments in NMILossFromRef3D")
for _fn in (KMI.rectangular_kernel, KMI.truncated_gaussian_kernel, KMI.xu_kernel):
    add(case(f"mutual_information.{_fn.__name__}", G, _fn, [randn(200, seed=1540, scale=1.5)], kwargs={"window_radius": 1.0}))
add(case("dice.mask_ignore_pixels", G, KLD.mask_ignore_pixels, [randint(0, 4, 2, 8, 8, seed=1541)], kwargs={"ignore_index": 3},
         note="class 3 ignored"))
add(case("dice.mask_ignore_pixels[none]", G, KLD.mask_ignore_pixels, [randint(0, 4, 2, 8, 8, seed=1541)], kwargs={"ignore_index": None}))
NOT_SURVEYED: dict = {}
