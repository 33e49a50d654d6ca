"""kornia.augmentation below its package and the public methods of its classes: the steps of the
augmentation protocol that the bases define (transform_inputs / masks / boxes / keypoints / classes,
apply_non_transform*, forward_parameters, get_transformation_matrix, inverse ...), the containers'
steps (AugmentationSequential, ImageSequential, PatchSequential) and the per-data-key ops of
``kornia.augmentation.container.ops``, the auto-augment operation builders, the random generators'
samplers, and the helpers of the package's modules.

Steps are probed on the arguments of a real run (``record_many``): an AugmentationSequential over
an image, a mask, boxes, keypoints and labels, forward and inverse, with a geometric, an intensity
and a mix augmentation, so each step sees the parameters it gets in use. A step's recorded
parameters are constants of the case; its data are graph inputs. Steps that sample parameters are
``check=False``.

Fresh inputs: every recorded run is recorded a second time on other data of the same structure
(other images, 0/1 masks, boxes with x1 < x2, keypoints, labels) under another seed that keeps
the structure of the first run (``record_second_run``: the gates' sub-batches keep their sizes, the
parameters are sampled by the augmentation for them), and each step's second call is its fresh set
(``fresh_replay``). Steps given parameters sampled once take
the second data (``structured``) with those parameters.
"""

from __future__ import annotations

import torch
from torch import nn

import kornia.augmentation as K
from kornia.augmentation import base as KB
from kornia.augmentation.auto import autoaugment as AA
from kornia.augmentation.auto import base as AUB
from kornia.augmentation.auto import rand_augment as RA
from kornia.augmentation.auto.operations import policy as POL
from kornia.augmentation.container import base as CB
from kornia.augmentation.container import ops as OPS
from kornia.augmentation.presets import ada as ADA
from kornia.augmentation.random_generator import DistributionWithMapper
from kornia.augmentation.random_generator import utils as RGU
from kornia.augmentation.utils import helpers as AH
from kornia.geometry.boxes import Boxes
from kornia.geometry.keypoints import Keypoints

import importlib

from opsweep_suites.kornia._breadth import Call, _key, fresh_replay, method_function, record_many, record_second_run, replay, seeded
from opsweep_suites.kornia._common import FRESH_OFFSET, batch, case, derived, img, rand, randint, structured, volume

AAOPS = importlib.import_module("kornia.augmentation.auto.autoaugment.ops")
RAOPS = importlib.import_module("kornia.augmentation.auto.rand_augment.ops")

CASES: list = []
add = CASES.append


def meth(cls, name):
    return method_function(cls, name)


# Python numbers, and what they are while a dynamic-shape capture traces (a size read from the input
# is a torch.SymInt then): the wrapper must make both a tensor, else the captured step returns bare
# SymInts, no tensor, and its comparison with eager is about this wrapper (0 outputs against 1).
_NUMBERS = (int, float, bool, torch.SymInt, torch.SymFloat, torch.SymBool)


def _as_tensor(x):
    """Python sizes / indices as a tensor; an iterator as a list (its items flattened by the harness)."""
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (torch.Size, *_NUMBERS)) or (isinstance(x, (list, tuple)) and all(isinstance(v, _NUMBERS) for v in x)):
        return torch.tensor(list(x) if isinstance(x, (list, tuple, torch.Size)) else x)
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_as_tensor(v) for v in x)
    if hasattr(x, "__next__"):
        return [v for v in x]
    return x


# steps whose result is Python bookkeeping (sizes, indices, an iterator): the case returns it as a tensor / list
TENSORIZED = {"autofill_dim", "get_mix_augmentation_indices", "get_random_forward_sequence", "compute_padding",
              "generate_parameters"}


def steps(calls, targets, group, note, *, random=(), surveyed_extra=None, fresh_calls=None):
    """One case per recorded step: ``targets`` are ``(cls, method)``; ``random`` names the steps that sample;
    ``fresh_calls`` the same steps recorded in the second run (their fresh sets)."""
    for cls, name in targets:
        got = calls.get(_key((cls, name)))
        if got is None:
            raise LookupError(f"{cls.__name__}.{name}: no call in the recorded run")
        fn = meth(cls, name)
        surveyed = [cls, fn] if surveyed_extra and cls in surveyed_extra else fn
        post = _as_tensor if name in TENSORIZED else None
        module, inputs = replay(surveyed, fn, *got, post=post)
        fresh = None if fresh_calls is None else fresh_replay(f"{cls.__name__}.{name}", inputs, *fresh_calls[_key((cls, name))])
        add(case(f"{cls.__name__}.{name}", group, module, inputs, check=name not in random, fresh_inputs=fresh, note=note
                 + ("; it samples parameters" if name in random else "")
                 + ("; it returns Python sizes / indices, tensor-made for the case" if post else "")))


# ------------------------------------------------------------------------------------------------- the augmentation protocol

G = "augmentation.protocol"
_IMG = batch()
_MASK = (rand(2, 1, 32, 40, seed=1700) > 0.5).float()
_XY = rand(2, 3, 2, seed=1701) * torch.tensor([25.0, 20.0])
_BOXES = torch.cat([_XY, _XY + rand(2, 3, 2, seed=1702, low=3.0, high=10.0)], -1).contiguous()
_KPTS = (rand(2, 4, 2, seed=1703) * torch.tensor([39.0, 31.0])).contiguous()
_LABELS = randint(0, 5, 2, seed=1704)
# the second data (fresh sets): the same structure, other values
_IMG_F = batch(2 + FRESH_OFFSET)
_MASK_F = (rand(2, 1, 32, 40, seed=1700 + FRESH_OFFSET) > 0.5).float()
_XY_F = rand(2, 3, 2, seed=1701 + FRESH_OFFSET) * torch.tensor([25.0, 20.0])
_BOXES_F = torch.cat([_XY_F, _XY_F + rand(2, 3, 2, seed=1702 + FRESH_OFFSET, low=3.0, high=10.0)], -1).contiguous()
_KPTS_F = (rand(2, 4, 2, seed=1703 + FRESH_OFFSET) * torch.tensor([39.0, 31.0])).contiguous()
for _t, _f in ((_MASK, _MASK_F), (_BOXES, _BOXES_F), (_KPTS, _KPTS_F)):
    structured(_t, _f)
_LABELS_F = randint(0, 5, 2, seed=1704 + FRESH_OFFSET)
_KEYS = ["input", "mask", "bbox_xyxy", "keypoints", "label"]
_SEQ = seeded(1705, K.AugmentationSequential, K.RandomAffine(20.0, (0.1, 0.1), p=0.5), K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0),
              data_keys=_KEYS)


def _protocol(x=_IMG, mask=_MASK, boxes=_BOXES, kpts=_KPTS, labels=_LABELS):
    out = _SEQ(x, mask, boxes, kpts, labels)
    _SEQ.inverse(*out[:4], data_keys=_KEYS[:4])


_BASE2D = [(K.AugmentationBase2D, m) for m in (
    "transform_inputs", "transform_masks", "transform_boxes", "transform_keypoints", "transform_classes", "apply_non_transform",
    "apply_non_transform_box", "apply_non_transform_class", "apply_non_transform_keypoint", "forward_parameters",
    "generate_parameters", "transform_output_tensor")]
_GEO = [(K.GeometricAugmentationBase2D, m) for m in ("compute_inverse_transformation", "get_transformation_matrix", "inverse")]
_RIGID = [(K.RigidAffineAugmentationBase2D, m) for m in ("generate_transformation_matrix", "identity_matrix")]
_SEQM = [(K.AugmentationSequential, m) for m in ("autofill_dim", "transform_masks", "transform_boxes", "transform_keypoints",
                                                 "inverse_masks", "inverse_boxes", "inverse_keypoints", "get_params_by_module",
                                                 "get_children_by_params")]
_IMS = [(K.ImageSequential, "get_mix_augmentation_indices"), (K.ImageSequential, "transform_inputs"),
        (K.container.ImageSequentialBase, "inverse_inputs")]
_OPSM = [(OPS.AugmentationSequentialOps, m) for m in ("transform", "inverse")] + [
    (c, m) for c in (OPS.InputSequentialOps, OPS.MaskSequentialOps, OPS.BoxSequentialOps, OPS.KeypointSequentialOps, OPS.ClassSequentialOps)
    for m in ("transform", "inverse")] + [(OPS.SequentialOpsInterface, m) for m in ("get_instance_module_param", "get_transform_matrix")]
_CALLS = record_many(_BASE2D + _GEO + _RIGID + _SEQM + _IMS + _OPSM, _protocol, missing="skip")
_CALLS_F = record_second_run(_BASE2D + _GEO + _RIGID + _SEQM + _IMS + _OPSM,
                             lambda: _protocol(_IMG_F, _MASK_F, _BOXES_F, _KPTS_F, _LABELS_F), _CALLS)
_NOTE = "its arguments in AugmentationSequential(RandomAffine p=0.5, ColorJitter) over image, mask, boxes, keypoints and labels, forward and inverse"
_present = [t for t in _BASE2D + _GEO + _RIGID + _SEQM + _IMS + _OPSM if _key(t) in _CALLS]
steps(_CALLS, _present, G, _NOTE, random=("forward_parameters", "generate_parameters"),
      surveyed_extra=(OPS.AugmentationSequentialOps, OPS.InputSequentialOps, OPS.MaskSequentialOps, OPS.BoxSequentialOps,
                      OPS.KeypointSequentialOps, OPS.ClassSequentialOps), fresh_calls=_CALLS_F)
MISSING_STEPS = [f"{c.__name__}.{m}" for c, m in _BASE2D + _GEO + _RIGID + _SEQM + _IMS + _OPSM if _key((c, m)) not in _CALLS]

# steps a second run reaches: mask lists, the sequential-module params, random forward order, mixing
_SEQ2 = seeded(1706, K.AugmentationSequential, K.ImageSequential(K.RandomHorizontalFlip(p=1.0), K.RandomVerticalFlip(p=1.0)),
               K.RandomAffine(10.0, p=1.0), data_keys=["input", "mask"], random_apply=1)
_SEQ2B = seeded(1708, K.RandomMixUpV2, p=1.0, data_keys=["input", "label"])


def _protocol2(x=_IMG, mask=_MASK, labels=_LABELS):
    _SEQ2(x, [mask[0], mask[1]])
    _SEQ2B(x, labels)


_T2 = [(OPS.MaskSequentialOps, "transform_list"), (OPS.SequentialOpsInterface, "get_sequential_module_param"),
       (K.ImageSequential, "get_random_forward_sequence")] + [
    (K.MixAugmentationBaseV2, m) for m in ("transform_input", "apply_func")]
_CALLS2 = record_many(_T2, _protocol2, missing="skip")
_CALLS2_F = record_second_run(_T2, lambda: _protocol2(_IMG_F, _MASK_F, _LABELS_F), _CALLS2)
steps(_CALLS2, [t for t in _T2 if _key(t) in _CALLS2], G,
      "its arguments in AugmentationSequential(ImageSequential(flips), RandomAffine, random_apply=1) over an image and a mask list, "
      "or RandomMixUpV2 over an image and labels",
      random=("get_random_forward_sequence",), fresh_calls=_CALLS2_F)
MISSING_STEPS += [f"{c.__name__}.{m}" for c, m in _T2 if _key((c, m)) not in _CALLS2]

# the mix augmentations' own steps
_MIX = seeded(1707, K.RandomMosaic, (32, 40), p=0.5, data_keys=["input", "bbox_xyxy"])
_MIX2 = seeded(1709, K.RandomCutMixV2, p=0.5, data_keys=["input", "label"])
_TM = [(K.MixAugmentationBaseV2, m) for m in ("transform_boxes", "transform_class", "apply_non_transform",
                                              "apply_non_transform_boxes", "apply_non_transform_class")] + [(K.RandomMosaic, "compute_transformation")]


def _mixing(x=_IMG, boxes=_BOXES, x3=(img(10), img(11)), labels=_LABELS):
    _MIX(torch.cat([x, x.flip(-1)]), torch.cat([boxes, boxes + 1.0]))
    _MIX2(torch.cat([x, *x3]), torch.cat([labels, labels]))


_CALLS3 = record_many(_TM, _mixing, missing="skip")
_CALLS3_F = record_second_run(_TM, lambda: _mixing(_IMG_F, _BOXES_F, (img(10 + FRESH_OFFSET), img(11 + FRESH_OFFSET)), _LABELS_F), _CALLS3)
steps(_CALLS3, [t for t in _TM if _key(t) in _CALLS3], G,
      "its arguments in RandomMosaic(p=0.5) over 4 images and their boxes, or RandomCutMixV2(p=0.5) over 4 images and labels",
      fresh_calls=_CALLS3_F)
MISSING_STEPS += [f"{c.__name__}.{m}" for c, m in _TM if _key((c, m)) not in _CALLS3]

# ------------------------------------------------------------------------------------------------- steps with given parameters
# Steps that apply saved parameters (the public way to replay an augmentation on other data): the parameters
# are sampled once here, seeded, and are constants of the case.

_SP = seeded(1710, _SEQ.forward_parameters, _IMG.shape)
_BX = Boxes.from_tensor(_BOXES)
_KP = Keypoints(_KPTS)
_SEQ_NOTE = "AugmentationSequential(RandomAffine p=0.5, ColorJitter) with parameters sampled once (seeded)"
for _m, _fn, _ins in (
    ("transform_masks", lambda m: _SEQ.transform_masks(m, _SP), [_MASK]),
    ("inverse_masks", lambda m: _SEQ.inverse_masks(m, _SP), [_MASK]),
    ("transform_boxes", lambda b: _SEQ.transform_boxes(Boxes.from_tensor(b), _SP).data, [_BOXES]),
    ("inverse_boxes", lambda b: _SEQ.inverse_boxes(Boxes.from_tensor(b), _SP).data, [_BOXES]),
    ("transform_keypoints", lambda k: _SEQ.transform_keypoints(Keypoints(k), _SP).data, [_KPTS]),
    ("inverse_keypoints", lambda k: _SEQ.inverse_keypoints(Keypoints(k), _SP).data, [_KPTS]),
    ("get_params_by_module", lambda x: [p.data for p in _SEQ.get_params_by_module(iter(_SEQ.named_children()))] + [x],
     [torch.zeros(1)]),
    ("get_children_by_params", lambda s, x: [m for _, m in s.get_children_by_params(_SP)][1](x), [_IMG]),
):
    # The child get_children_by_params returns is called as a module: ColorJitter samples anew on
    # every call, so that case is random (as get_children_by_indices' below), and the sequential is a
    # registered part of the call (as a user holds it).
    _random = _m == "get_children_by_params"
    _parts = (_SEQ,) if _random else ()
    add(case(f"AugmentationSequential.{_m}", G, Call(meth(K.AugmentationSequential, _m), _fn, *_parts), _ins, check=not _random,
             note=_SEQ_NOTE + ("; the child at index 1 (ColorJitter) is applied, sampling its own parameters" if _random else "")))
add(case("AugmentationSequential.get_children_by_indices", G,
         Call(meth(K.AugmentationSequential, "get_children_by_indices"),
              lambda x, i: [m for _, m in _SEQ.get_children_by_indices(i)][0](x)), [_IMG, torch.tensor([1])],
         check=False, note="the child at index 1 (ColorJitter), applied"))
_IS = seeded(1711, K.ImageSequential, K.RandomAffine(20.0, p=1.0), K.ColorJitter(0.1, 0.1, p=1.0))
_ISP = seeded(1712, _IS.forward_parameters, _IMG.shape)
add(case("ImageSequential.transform_inputs", G, Call(meth(K.ImageSequential, "transform_inputs"), lambda s, x: s.transform_inputs(x, _ISP), _IS),
         [_IMG], note="ImageSequential(RandomAffine, ColorJitter) with parameters sampled once (seeded)"))
add(case("ImageSequentialBase.inverse_inputs", G, Call(meth(K.container.ImageSequentialBase, "inverse_inputs"),
                                                       lambda x: _IS.inverse_inputs(x, _ISP)), [_IMG],
         note="ImageSequential(RandomAffine, ColorJitter) with parameters sampled once (seeded)"))
add(case("ClassSequentialOps.inverse", G, Call([OPS.ClassSequentialOps, meth(OPS.ClassSequentialOps, "inverse")],
                                               lambda y: OPS.ClassSequentialOps.inverse(y, _SEQ[0], _SP[0])), [_LABELS]))
add(case("SequentialOpsInterface.get_sequential_module_param", G,
         Call(meth(OPS.SequentialOpsInterface, "get_sequential_module_param"),
              lambda x: OPS.SequentialOpsInterface.get_sequential_module_param(
                  seeded(1713, K.AugmentationSequential(_IS).forward_parameters, x.shape)[0])[0].data["translations"]),
         [_IMG], note="the inner parameters of an ImageSequential inside an AugmentationSequential"))
_AFF = seeded(1714, K.RandomAffine, 20.0, p=0.5, keepdim=True)
_PA = seeded(1715, _AFF.forward_parameters, _IMG.shape)
add(case("AugmentationBase2D.transform_classes", G, Call(meth(K.AugmentationBase2D, "transform_classes"),
                                                         lambda y: _AFF.transform_classes(y, _PA, _AFF.flags)), [_LABELS],
         note="RandomAffine(p=0.5) with parameters sampled once"))
add(case("AugmentationBase2D.apply_non_transform_class", G, Call(meth(K.AugmentationBase2D, "apply_non_transform_class"),
                                                                 lambda y: _AFF.apply_non_transform_class(y, _PA, _AFF.flags)), [_LABELS]))
add(case("AugmentationBase2D.transform_output_tensor", G, Call(meth(K.AugmentationBase2D, "transform_output_tensor"),
                                                               lambda x: _AFF.transform_output_tensor(x, (3, 32, 40))), [img()],
         note="keepdim=True: a 1x3x32x40 output back to the 3x32x40 input shape"))
_CM = seeded(1716, K.RandomCutMixV2, p=0.5, data_keys=["input", "label"])
_PC = seeded(1717, _CM.forward_parameters, (4, 3, 32, 40))
_PC["dtype"] = torch.full((), 1, dtype=torch.long)  # what the mix forward adds (kornia.constants.DType of float32)
_IMG4 = torch.cat([_IMG, img(10), img(11)])
_IMG4_F = torch.cat([_IMG_F, img(10 + FRESH_OFFSET), img(11 + FRESH_OFFSET)])
add(case("MixAugmentationBaseV2.apply_func", G, Call(meth(K.MixAugmentationBaseV2, "apply_func"), lambda x: _CM.apply_func(x, _PC, _CM.flags)),
         [_IMG4], note="RandomCutMixV2(p=0.5) with parameters sampled once"))
add(case("MixAugmentationBaseV2.apply_non_transform_class", G,
         Call(meth(K.MixAugmentationBaseV2, "apply_non_transform_class"), lambda y: _CM.apply_non_transform_class(y, _PC, _CM.flags)),
         [torch.cat([_LABELS, _LABELS])]))
add(case("MixAugmentationBaseV2.apply_non_transform_keypoint", G,
         Call(meth(K.MixAugmentationBaseV2, "apply_non_transform_keypoint"), lambda k: _CM.apply_non_transform_keypoint(k, _PC, _CM.flags)),
         [torch.cat([_KPTS, _KPTS])]))
for _m, _ins in (("transform_mask", [derived(lambda m: torch.cat([m, m]), _MASK)]),
                 ("transform_keypoint", [derived(lambda k: torch.cat([k, k]), _KPTS)])):
    add(case(f"MixAugmentationBaseV2.{_m}", G, Call(meth(K.MixAugmentationBaseV2, _m), lambda x, m=_m: getattr(_CM, m)(x, _PC, _CM.flags)),
             _ins, note="expected n/a at eager: no mix augmentation of kornia 0.9.0 supports masks or keypoints, so it raises "
             "NotImplementedError for every public subclass (RandomCutMixV2 here)"))
add(case("MixAugmentationBaseV2.inverse", G, Call(meth(K.MixAugmentationBaseV2, "inverse"), lambda x: _CM.inverse(x)), [_IMG4],
         note="expected n/a at eager: mix augmentations are not invertible, it raises RuntimeError by design"))
add(case("ImageSequential.inverse", G, Call(meth(K.ImageSequential, "inverse"), lambda x: _IS.inverse(x, _ISP)), [_IMG],
         note="ImageSequential(RandomAffine, ColorJitter) with parameters sampled once (seeded)"))
_FLIPS = K.AugmentationSequential(K.RandomHorizontalFlip(p=1.0), K.RandomVerticalFlip(p=1.0))
add(case("AugmentationSequential.get_submodule", G, Call(meth(K.AugmentationSequential, "get_submodule"),
                                                         lambda x: _FLIPS.get_submodule("RandomVerticalFlip_1")(x)), [_IMG],
         note="the second child (a vertical flip) by name, applied"))
add(case("AugmentationSequential.disable_item_features", G,
         Call(meth(K.AugmentationSequential, "disable_item_features"),
              lambda x: (lambda s: (s.disable_item_features(), s(x))[1])(K.AugmentationSequential(K.RandomHorizontalFlip(p=1.0)))),
         [_IMG], note="a flip container with its item features disabled (as for export), then run"))
_MS = seeded(1718, K.AugmentationSequential, K.RandomAffine(20.0, p=1.0), data_keys=["input", "mask"])
_MSP = seeded(1719, _MS.forward_parameters, _IMG.shape)
add(case("MaskSequentialOps.inverse_list", G,
         Call([OPS.MaskSequentialOps, meth(OPS.MaskSequentialOps, "inverse_list")],
              lambda a, b: OPS.MaskSequentialOps.inverse_list([a, b], module=_MS[0], param=_MSP[0])), list(derived(lambda m: (m[0].contiguous(), m[1].contiguous()), _MASK)),
         note="two per-sample masks inverted with a RandomAffine's sampled parameters"))
add(case("AugmentationBase2D.to", G, Call(meth(K.AugmentationBase2D, "to"), lambda x: K.RandomGrayscale(p=1.0).to(torch.float64)(x)),
         [_IMG.double()], note="an augmentation moved to float64, then run"))
add(case("RandomGeneratorBase.to", G, Call(meth(KB.RandomGeneratorBase, "to"),
                                          lambda x: K.random_generator.PlainUniformGenerator((x, "factor", None, None)).to(
                                              dtype=torch.float64)(torch.Size([4]))["factor"]),
         [torch.tensor([0.2, 0.8])], check=False, note="a uniform generator moved to float64, then sampled"))

# ------------------------------------------------------------------------------------------------- containers' own steps

G = "augmentation.container"
_PS = seeded(1720, K.PatchSequential, K.ColorJitter(0.1, 0.1, p=1.0), K.RandomAffine(10.0, p=1.0), grid_size=(2, 2), patchwise_apply=False)
_PSI = rand(1, 3, 30, 38, seed=1721)
_PS_T = [(K.PatchSequential, m) for m in ("compute_padding", "extract_patches", "restore_from_patches", "forward_by_params",
                                          "generate_parameters")]
_PS_CALLS = record_many(_PS_T, lambda: _PS(_PSI), missing="skip")
_PS_CALLS_F = record_second_run(_PS_T, lambda: _PS(rand(1, 3, 30, 38, seed=1721 + FRESH_OFFSET)), _PS_CALLS)
steps(_PS_CALLS, [t for t in _PS_T if _key(t) in _PS_CALLS], G,
      "its arguments in PatchSequential(ColorJitter, RandomAffine, grid 2x2) on a 30x38 image (padded)", random=("generate_parameters",),
      fresh_calls=_PS_CALLS_F)
MISSING_STEPS += [f"{c.__name__}.{m}" for c, m in _PS_T if _key((c, m)) not in _PS_CALLS]
_RC = seeded(1722, K.RandomCrop, (24, 30), padding=2, pad_if_needed=True)
_RC_CALLS = record_many([(K.RandomCrop, "compute_padding"), (K.RandomCrop, "precrop_padding")], lambda: _RC(_IMG))
steps(_RC_CALLS, [(K.RandomCrop, "compute_padding"), (K.RandomCrop, "precrop_padding")], "augmentation.geometric",
      "its arguments in RandomCrop((24, 30), padding=2, pad_if_needed=True)")
_RC3 = seeded(1723, K.RandomCrop3D, (6, 12, 12), padding=1)
_RC3_CALLS = record_many([(K.RandomCrop3D, "precrop_padding")], lambda: _RC3(volume()))
steps(_RC3_CALLS, [(K.RandomCrop3D, "precrop_padding")], "augmentation.geometric", "its arguments in RandomCrop3D((6, 12, 12), padding=1)")
_A3 = seeded(1724, K.RandomAffine3D, 10.0, p=1.0)
_A3_T = [(K.RigidAffineAugmentationBase3D, "generate_transformation_matrix"), (K.AugmentationBase3D, "identity_matrix")]
_A3_CALLS = record_many(_A3_T, lambda: (_A3(volume()), K.RandomAffine3D(10.0, p=0.0)(volume())), missing="skip")
steps(_A3_CALLS, [t for t in _A3_T if _key(t) in _A3_CALLS], "augmentation.geometric", "its arguments in RandomAffine3D on a volume")
MISSING_STEPS += [f"{c.__name__}.{m}" for c, m in _A3_T if _key((c, m)) not in _A3_CALLS]
_TP = seeded(1725, K.RandomTransplantation, p=1.0)
_TP_CALLS = record_many([(K.RandomTransplantation, "params_from_input")],
                        lambda: _TP(_IMG4, (rand(4, 32, 40, seed=1726) > 0.7).float()), missing="skip")
_TP_CALLS_F = record_second_run([(K.RandomTransplantation, "params_from_input")],
                                lambda: _TP(_IMG4_F, (rand(4, 32, 40, seed=1726 + FRESH_OFFSET) > 0.7).float()), _TP_CALLS)
steps(_TP_CALLS, [t for t in [(K.RandomTransplantation, "params_from_input")] if _key(t) in _TP_CALLS], "augmentation.mix",
      "its arguments in RandomTransplantation over 4 images and their masks", random=("params_from_input",), fresh_calls=_TP_CALLS_F)
add(case("TransformMatrixMinIn", G, Call(CB.TransformMatrixMinIn, lambda x: (lambda s: (s(x), s.transform_matrix)[1])(
    K.AugmentationSequential(K.RandomHorizontalFlip(p=1.0), K.RandomVerticalFlip(p=1.0)))), [_IMG],
         note="the transformation matrix an AugmentationSequential (two flips) accumulates through this mixin; "
              "under an export kornia skips it (is_exporting), so the exported program returns None"))
add(case("container.ops.get_geometric_only_param", G,
         Call(OPS.get_geometric_only_param, lambda x: OPS.get_geometric_only_param(_SEQ, _SP)[0].data["translations"] + x),
         [torch.zeros(1)], note="the geometric augmentations' parameters of the sampled set"))
add(case("container.ops.make_input_only_sequential", G,
         Call(OPS.make_input_only_sequential, lambda s, x: OPS.make_input_only_sequential(s)(x, params=_ISP), _IS), [_IMG],
         note="the input-only call of an ImageSequential, with its sampled parameters"))

# ------------------------------------------------------------------------------------------------- auto augment

G = "augmentation.auto"
for _name in ("auto_contrast", "brightness", "color", "contrast", "equalize", "invert", "posterize", "rotate", "sharpness", "shear_x",
              "shear_y", "solarize", "translate_x", "translate_y"):
    _fn = getattr(AAOPS, _name)
    add(case(f"autoaugment.ops.{_name}", G, Call(_fn, lambda x, f=_fn: f(1.0, 5)(x)), [_IMG], check=False,
             note="the operation AutoAugment's policy builds (probability 1, magnitude 5), applied"))
for _name in ("auto_contrast", "brightness", "color", "contrast", "equalize", "invert", "posterize", "rotate", "sharpness", "shear_x",
              "shear_y", "solarize", "solarize_add", "translate_x", "translate_y"):
    _fn = getattr(RAOPS, _name)
    _mags = (-0.3, 0.3) if _name in ("rotate", "shear_x", "shear_y", "translate_x", "translate_y", "solarize_add") else (0.1, 0.9)
    add(case(f"rand_augment.ops.{_name}", G, Call(_fn, lambda x, f=_fn, m=_mags: f(*m)(x)), [_IMG], check=False,
             note=f"the operation RandAugment builds (magnitudes {_mags[0]} .. {_mags[1]}), applied"))
_RAUG = seeded(1730, K.auto.RandAugment, n=2, m=5)
add(case("RandAugment.rand_selector", G, Call(meth(K.auto.RandAugment, "rand_selector"), lambda x: _RAUG.rand_selector(2) + x),
         [torch.zeros(1, dtype=torch.long)], check=False, note="two sub-policy indices drawn without replacement"))
_AAUG = seeded(1731, K.auto.AutoAugment)
add(case("PolicyAugmentBase.compose_policy", G,
         Call(meth(K.auto.PolicyAugmentBase, "compose_policy"), lambda x: _AAUG.compose_policy([[("rotate", 1.0, 5)], [("invert", 1.0, None)]])[1](x)),
         [_IMG], note="a two sub-policy config composed; the second (invert) applied"))
add(case("PolicyAugmentBase.is_intensity_only", G,
         Call(meth(K.auto.PolicyAugmentBase, "is_intensity_only"), lambda x: x * float(_AAUG.is_intensity_only(seeded(1732, _AAUG.forward_parameters, x.shape)))),
         [_IMG], note="a bool (are the sampled sub-policies intensity-only): the case scales its input by it"))
add(case("PolicySequential.validate_operations", G,
         Call(meth(POL.PolicySequential, "validate_operations"),
              lambda x: (POL.PolicySequential(AAOPS.invert(1.0, 0)).validate_operations(AAOPS.invert(1.0, 0)), x)[1]), [_IMG],
         note="a validator (None or raise): the case returns its input"))
add(case("OperationBase.forward_parameters", G,
         Call(meth(AUB.OperationBase, "forward_parameters"), lambda x: AAOPS.rotate(1.0, 5).forward_parameters(x.shape)["degrees"]),
         [_IMG], check=False, note="the parameters an AutoAugment rotate samples"))

# ------------------------------------------------------------------------------------------------- generators, presets, helpers

G = "augmentation.random_generator"
_DWM = DistributionWithMapper(torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0)), map_fn=nn.Sigmoid())
for _m, _fn in (("rsample", lambda x: _DWM.rsample((4,)) + x), ("sample", lambda x: _DWM.sample((4,)) + x),
                ("sample_n", lambda x: _DWM.sample_n(4) + x)):
    add(case(f"DistributionWithMapper.{_m}", G, Call(meth(DistributionWithMapper, _m), _fn), [torch.zeros(1)], check=False,
             note="a standard normal mapped through a sigmoid"))
add(case("random_generator.utils.randperm", G, Call(RGU.randperm, lambda x: RGU.randperm(6) + x), [torch.zeros(1, dtype=torch.long)],
         check=False, note="a permutation of 6 that is not the identity"))
G = "augmentation.presets"
_ADA = ADA.AdaptiveDiscriminatorAugmentation()
add(case("AdaptiveDiscriminatorAugmentation.default_ada_transfroms", G,
         Call(meth(ADA.AdaptiveDiscriminatorAugmentation, "default_ada_transfroms"),
              lambda x: K.ImageSequential(*_ADA.default_ada_transfroms((0.02, 0.3), (0.3, 3.3), 0.0))(x)), [_IMG], check=False,
         note="the default ADA stack, applied"))
G = "augmentation.utils"
add(case("utils.helpers.preprocess_classes", G, AH.preprocess_classes, [_LABELS]))
add(case("utils.helpers.preprocess_keypoints", G, Call(AH.preprocess_keypoints, lambda k: AH.preprocess_keypoints(k).data), [_KPTS],
         note="finding: raises RuntimeError for every BxNx2 tensor in kornia 0.9.0 (it compares shape[1:] with [2]): "
         "expected n/a at eager"))
add(case("utils.helpers.preprocess_keypoints[Keypoints]", G, Call(AH.preprocess_keypoints, lambda k: AH.preprocess_keypoints(Keypoints(k)).data),
         [_KPTS], note="finding: a Keypoints input raises RuntimeError too in kornia 0.9.0 (an inverted isinstance check): "
         "expected n/a at eager"))
add(case("augmentation.base.override_parameters", G,
         Call(KB.override_parameters, lambda a, b: KB.override_parameters({"a": a, "b": b}, {"b": b * 2})), [_A := rand(3, seed=1740), rand(3, seed=1741)],
         note="a parameter dict with one entry overridden"))


add(case("augmentation.utils.deepcopy_dict", G, Call(AH.deepcopy_dict, lambda a, b: AH.deepcopy_dict({"a": a, "b": [b, 2]})),
         [rand(3, seed=1742), rand(2, 2, seed=1743)], note="a parameter dict (tensors cloned, Python values copied)"))


def _skip(name, target, reason):
    add(case(name, "augmentation", target, [], skip=reason))


for _cls in (K.ColorJitter, K.RandomGaussianBlur, K.RandomGaussianIllumination):
    _skip(f"{_cls.__name__}.compile", meth(_cls, "compile"),
          "wraps the augmentation in torch.compile: compiling is what the compile path itself measures, not an operator")

NOT_SURVEYED: dict = {}
