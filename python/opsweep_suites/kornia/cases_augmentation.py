"""kornia.augmentation: every augmentation, container and auto-augment policy, probed twice.

Each augmentation has two cases:

* ``Op`` (or ``Op[variant]``), deterministic: the parameters are sampled once, here, with a fixed seed
  (``aug.forward_parameters(shape)`` under a forked RNG), and then fed to the graph as inputs. The
  wrapper (``WithParams``) rebuilds the parameter structure from its inputs and calls
  ``aug(*data, params=params)``, so nothing is sampled inside the graph and the case is compared with
  eager (``check=True``). Containers record a list of ``ParamItem`` (``PatchParamItem`` for
  ``PatchSequential``); their tensors are flattened to inputs the same way and rebuilt in ``forward``.
  Integer shape records (``forward_input_shape``, ``input_size``, ``output_size``, ``padding_size``,
  ``batch_shapes``, ``image_shape``) describe the input the parameters were drawn for, not a sampled
  value: they stay baked into the graph as constants. Every other tensor is a live input.
* ``Op[random]``: the module itself is called, so the parameters are sampled inside the graph
  (``check=False``: values are not compared, only shapes and finiteness).

All augmentations use ``p=1.0`` unless the variant says otherwise, so the transform is applied, and a
batch of two images so that per-sample parameters differ. Augmentations that transform masks, boxes or
keypoints get them as inputs (containers with ``data_keys``, mix augmentations with labels).

Not surveyed:
- ``RandomDissolving``: needs the optional ``diffusers`` package and Stable Diffusion weights downloaded
  from the Hugging Face Hub. Both of its cases are present with that skip reason.
- ``kornia.augmentation.utils``: its ``__all__`` lists 27 underscore-named internal helpers (argument
  validation, shape bookkeeping, samplers; never public, whatever ``__all__`` says, so ``opsweep coverage``
  does not count them) plus ``deepcopy_dict`` and ``override_parameters`` (Python dict helpers, listed with
  reasons in ``NOT_SURVEYED`` at the end of this file). All of them run inside the augmentation cases here.
- ``kornia.augmentation.random_generator.is_exporting``: ``kornia.core.utils.is_exporting`` re-exported;
  it returns a Python bool.

Every other callable has a case: everything in ``kornia.augmentation.__all__``, ``kornia.augmentation.auto``
(``__all__``), ``kornia.augmentation.auto.operations`` (the 19 operations, ``OperationBase`` and
``PolicySequential``), ``kornia.augmentation.container`` and ``kornia.augmentation.random_generator``
(its 35 generators, ``DistributionWithMapper``, ``UniformDistribution``, ``center_crop_generator`` and
``center_crop_generator3d``), plus ``kornia.augmentation.presets.AdaptiveDiscriminatorAugmentation``.
The random generators are probed once each, as ``check=False`` cases: they only sample, and take a
Python batch shape rather than a tensor. The abstract base classes (``AugmentationBase2D``,
``IntensityAugmentationBase2D``, ``GeometricAugmentationBase2D``, ``RigidAffineAugmentationBase2D``,
their 3D twins, ``MixAugmentationBaseV2``, ``PolicyAugmentBase`` and ``ImageSequentialBase``) are probed
through the smallest subclass that kornia's custom-augmentation recipe asks for. In those cases the base
class's own code runs (the gate, input standardisation, parameter replay and blending). Only
``apply_transform``, or the policy, is ours.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

import torch
from torch import nn

import kornia.augmentation as KA
from kornia.augmentation import auto as KAuto
from kornia.augmentation.auto import operations as KOps
from kornia.augmentation.container import ImageSequentialBase
from kornia.augmentation.container.params import ParamItem
from kornia.augmentation import random_generator as KRG
from kornia.augmentation.random_generator import PlainUniformGenerator
from kornia.geometry.transform import warp_affine, warp_affine3d
from kornia.constants import DataKey

from opsweep_suites.kornia._common import (
    FRESH_OFFSET, ModuleCall, WithParams, ParamSlot, batch, case, derived, img, rand, randint, redraw, second_value, split_params, twin,
)
from opsweep.toolkit.fresh import seeded_generator

CASES: list = []

G2I = "augmentation.2d.intensity"
G2G = "augmentation.2d.geometric"
G3 = "augmentation.3d"
GMIX = "augmentation.mix"
GCON = "augmentation.container"
GAUTO = "augmentation.auto"
GBASE = "augmentation.base"

# Integer records of the input shape the parameters were drawn for. They are not sampled values; a graph
# for a fixed input shape bakes them in. Every other tensor in a parameter structure becomes a graph input.
SHAPE_KEYS = frozenset({"forward_input_shape", "input_size", "output_size", "padding_size", "batch_shapes", "image_shape"})

PARAM_SEED = 7  # the seed every deterministic case samples its parameters with (unless a variant needs another)


# ----------------------------------------------------------------------------------------------------------
# seeded inputs
# ----------------------------------------------------------------------------------------------------------


def images(seed: int = 2) -> torch.Tensor:
    """Two RGB images, 2x3x32x40."""
    return batch(seed)


def volumes(seed: int = 21) -> torch.Tensor:
    """Two single-channel volumes, 2x1x8x16x16."""
    return rand(2, 1, 8, 16, 16, seed=seed)


def video(seed: int = 22) -> torch.Tensor:
    """Two clips of four RGB frames, BTCHW 2x4x3x16x20."""
    return rand(2, 4, 3, 16, 20, seed=seed)


def binary_mask(seed: int = 23) -> torch.Tensor:
    """A binary float mask per image, 2x1x32x40: a filled rectangle plus noise, so warps visibly move it
    (the second value: another rectangle and noise, seed + FRESH_OFFSET)."""
    return twin(_binary_mask_of, seed)


def _binary_mask_of(seed: int, second: bool = False) -> torch.Tensor:
    m = (rand(2, 1, 32, 40, seed=seed + FRESH_OFFSET * second) > 0.7).float()
    if second:
        m[:, :, 12:26, 6:24] = 1.0
    else:
        m[:, :, 8:20, 10:30] = 1.0
    return m


def label_mask(seed: int = 24) -> torch.Tensor:
    """An integer segmentation mask per image, 2x32x40, labels {0, 1, 2}, each label present in each image."""
    m = randint(0, 3, 2, 32, 40, seed=seed)
    m[:, :4, :4] = 0
    m[:, 10:20, 10:22] = 1
    m[:, 22:30, 25:38] = 2
    return m


def label_volume_mask(seed: int = 25) -> torch.Tensor:
    """An integer segmentation mask per volume, 2x8x16x16, labels {0, 1, 2}."""
    m = randint(0, 3, 2, 8, 16, 16, seed=seed)
    m[:, 2:6, 3:9, 3:9] = 1
    m[:, 1:5, 10:15, 9:15] = 2
    return m


def class_labels() -> torch.Tensor:
    """Integer class labels of the two images."""
    return torch.tensor([0, 1])


def keypoints(seed: int = 26) -> torch.Tensor:
    """Five (x, y) keypoints per image, 2x5x2, inside the 40x32 image (the second value: seed + FRESH_OFFSET)."""
    return twin(lambda second=False: rand(2, 5, 2, seed=seed + FRESH_OFFSET * second) * torch.tensor([36.0, 28.0]) + 2.0)


def _boxes_xyxy_of(second: bool = False) -> torch.Tensor:
    if second:
        b = torch.tensor([[4.0, 2.0, 22.0, 20.0], [8.0, 9.0, 35.0, 29.0], [17.0, 10.0, 30.0, 24.0]])
    else:
        b = torch.tensor([[2.0, 3.0, 20.0, 25.0], [10.0, 5.0, 38.0, 30.0], [15.0, 12.0, 27.0, 20.0]])
    return torch.stack([b, b.flip(0) + 0.5]).contiguous()


def boxes_xyxy() -> torch.Tensor:
    """Three boxes per image, 2x3x4, (x1, y1, x2, y2) inside the 40x32 image (the second value: other boxes)."""
    return twin(_boxes_xyxy_of)


def boxes_xywh() -> torch.Tensor:
    """The same boxes as (x, y, w, h), 2x3x4."""
    return derived(lambda b: torch.cat([b[..., :2], b[..., 2:] - b[..., :2]], -1).contiguous(), boxes_xyxy())


def _corners(b: torch.Tensor) -> torch.Tensor:
    x1, y1, x2, y2 = b.unbind(-1)
    return torch.stack(
        [torch.stack([x1, y1], -1), torch.stack([x2, y1], -1), torch.stack([x2, y2], -1), torch.stack([x1, y2], -1)], -2
    ).contiguous()


def boxes_corners() -> torch.Tensor:
    """The same boxes as four corners each, 2x3x4x2 (kornia's ``bbox`` data key)."""
    return derived(_corners, boxes_xyxy())


# ----------------------------------------------------------------------------------------------------------
# parameter replay: recorded parameters as graph inputs
# ----------------------------------------------------------------------------------------------------------


def sample_params(
    module: nn.Module,
    shape: Sequence[int],
    seed: int = PARAM_SEED,
    params_fn: Callable[[nn.Module, Sequence[torch.Tensor]], Any] | None = None,
    data: Sequence[torch.Tensor] = (),
) -> Any:
    """``module.forward_parameters(shape)`` (or ``params_fn(module, data)``) under a fixed seed, without
    disturbing the global RNG."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if params_fn is not None:
            return params_fn(module, data)
        return module.forward_parameters(torch.Size(shape))


def _transplant_params(aug: nn.Module, data: Sequence[torch.Tensor]) -> Dict[str, torch.Tensor]:
    """RandomTransplantation draws its label selection from the mask: record that too (params_from_input)."""
    params = aug.forward_parameters(data[0].shape)
    return aug.params_from_input(*data, data_keys=[DataKey.INPUT, DataKey.MASK], params=params)


# Fresh inputs of a replayed case: the recorded parameters are structured (crop boxes, gates, flip
# flags, ordered permutations), so a uniform redraw of them is not a valid parameter set. The fresh set
# is the data as the harness would draw it (declared masks, boxes and keypoints by their second values)
# and the parameters the augmentation itself samples with another seed: the first of seed +
# FRESH_OFFSET + k (k < FRESH_TRIES) whose parameter structure is the recorded one (same chosen
# sub-policies and children, same shapes) and whose gates and flags take the same values (a mixed
# p=0.5 gate stays mixed, an applied batch of one stays applied), so the captured program is asked a
# valid question of the same kind.
FRESH_TRIES = 64


def _same_structure(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, ParamSlot):
        return a.index == b.index
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects without a usable ==
        return repr(a) == repr(b)


def _flag_values(x: torch.Tensor) -> frozenset | None:
    """The values of a gate or flag tensor (bool, or floating with every value 0 or 1); None otherwise."""
    if x.dtype == torch.bool or (x.is_floating_point() and bool(((x == 0) | (x == 1)).all())):
        return frozenset(x.to(torch.float32).unique().tolist())
    return None


def fresh_data(name: str, data: Sequence[torch.Tensor]) -> list:
    """The data of a fresh set: declared inputs by their second values, the rest redrawn like the harness."""
    gen = seeded_generator("fresh:" + name)
    return [v if (v := second_value(x)) is not None else redraw(x, gen) for x in data]


def fresh_replay(
    name: str,
    make: Callable[[], nn.Module],
    shape: Sequence[int] | None,
    seed: int,
    params_fn: Callable[[nn.Module, Sequence[torch.Tensor]], Any] | None,
    data: Sequence[torch.Tensor],
    template: Any,
    tensors: Sequence[torch.Tensor],
) -> tuple | str:
    """The fresh set of the replayed case ``name`` (see FRESH_TRIES), or why there is none."""
    new_data = fresh_data(name, data)
    for k in range(FRESH_TRIES):
        params = sample_params(make(), shape if shape is not None else data[0].shape, seed + FRESH_OFFSET + k, params_fn, new_data)
        t2, tensors2, _ = split_params(params, SHAPE_KEYS)
        if _same_structure(template, t2) and len(tensors2) == len(tensors) and all(
            x.shape == y.shape and x.dtype == y.dtype and _flag_values(x) in (None, _flag_values(y)) for x, y in zip(tensors, tensors2)
        ):
            return (*new_data, *tensors2)
    return f"no other seed samples parameters of the recorded structure in {FRESH_TRIES} tries"


def _param_note(paths: Sequence[str]) -> str:
    if not paths:
        return "no sampled tensor parameters: only the input is live"
    shown = ", ".join(paths[:8]) + (f", ... ({len(paths)} in all)" if len(paths) > 8 else "")
    return f"parameters sampled once (seed {PARAM_SEED}) and fed as inputs: {shown}"


def add_pair(
    name: str,
    group: str,
    make: Callable[[], nn.Module],
    data: Sequence[torch.Tensor],
    *,
    note: str = "",
    seed: int = PARAM_SEED,
    shape: Sequence[int] | None = None,
    call_kwargs: Dict[str, Any] | None = None,
    atol: float = 2e-4,
    rtol: float = 1e-3,
    det: bool = True,
    random: bool = True,
    tags: Sequence[str] = (),
    params_fn: Callable[[nn.Module, Sequence[torch.Tensor]], Any] | None = None,
    fresh_opt_out: str | None = None,
    dynamic: str | None = None,
) -> None:
    """The deterministic case ``name`` and its ``name[random]`` twin for the augmentation ``make()``;
    ``fresh_opt_out`` is the reason the deterministic case has no fresh set (else ``fresh_replay``);
    ``dynamic`` the deterministic case's ``case(dynamic=)`` (its twin samples in the graph)."""
    if det:
        aug = make()
        params = sample_params(aug, shape if shape is not None else data[0].shape, seed, params_fn, data)
        template, tensors, paths = split_params(params, SHAPE_KEYS)
        CASES.append(
            case(
                name,
                group,
                WithParams(aug, template, len(data), type(aug), call_kwargs=call_kwargs),
                [*data, *tensors],
                note="; ".join(x for x in (note, _param_note(paths)) if x),
                atol=atol,
                rtol=rtol,
                tags=tags,
                fresh_inputs=fresh_opt_out or fresh_replay(name, make, shape, seed, params_fn, data, template, tensors),
                dynamic=dynamic,
            )
        )
    if random:
        aug = make()
        target: Any = aug
        if call_kwargs:
            target = ModuleCall(aug, lambda m, *xs: m(*xs, **call_kwargs), type(aug))
        CASES.append(
            case(
                f"{name}[random]",
                group,
                target,
                list(data),
                note="; ".join(x for x in (note, "parameters sampled inside the graph") if x),
                check=False,
                tags=tuple(tags) + ("random",),
            )
        )


# ----------------------------------------------------------------------------------------------------------
# 2D intensity
# ----------------------------------------------------------------------------------------------------------

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)

add_pair("Normalize", G2I, lambda: KA.Normalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)), [images()], note="ImageNet mean/std")
add_pair("Normalize[float]", G2I, lambda: KA.Normalize(mean=0.5, std=0.25), [images()], note="scalar mean/std")
add_pair("Denormalize", G2I, lambda: KA.Denormalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)), [images()], note="ImageNet mean/std")
add_pair("ColorJiggle", G2I, lambda: KA.ColorJiggle(0.3, 0.3, 0.3, 0.1, p=1.0), [images()])
add_pair("ColorJitter", G2I, lambda: KA.ColorJitter(0.3, 0.3, 0.3, 0.1, p=1.0), [images()])
add_pair(
    "ColorJitter[fixed order]",
    G2I,
    lambda: KA.ColorJitter(0.3, 0.3, 0.3, 0.1, p=1.0, order=(0, 1, 2, 3)),
    [images()],
    note="order=(0, 1, 2, 3): brightness, contrast, saturation, hue always in this order",
)
add_pair("ColorJiggle[same_on_batch]", G2I, lambda: KA.ColorJiggle(0.3, 0.3, 0.3, 0.1, same_on_batch=True, p=1.0), [images()])
add_pair("RandomAutoContrast", G2I, lambda: KA.RandomAutoContrast(p=1.0), [images()])
add_pair("RandomBoxBlur", G2I, lambda: KA.RandomBoxBlur((5, 5), p=1.0), [images()])
add_pair("RandomBrightness", G2I, lambda: KA.RandomBrightness((0.6, 1.4), p=1.0), [images()])
add_pair("RandomChannelDropout", G2I, lambda: KA.RandomChannelDropout(p=1.0), [images()])
add_pair("RandomChannelShuffle", G2I, lambda: KA.RandomChannelShuffle(p=1.0), [images()])
add_pair("RandomClahe", G2I, lambda: KA.RandomClahe(clip_limit=(10.0, 40.0), grid_size=(4, 4), p=1.0), [images()])
add_pair(
    "RandomClahe[slow_and_differentiable]",
    G2I,
    lambda: KA.RandomClahe(clip_limit=(10.0, 40.0), grid_size=(4, 4), slow_and_differentiable=True, p=1.0),
    [images()],
)
add_pair("RandomContrast", G2I, lambda: KA.RandomContrast((0.6, 1.4), p=1.0), [images()])
add_pair("RandomEqualize", G2I, lambda: KA.RandomEqualize(p=1.0), [images()])
add_pair("RandomErasing", G2I, lambda: KA.RandomErasing(scale=(0.05, 0.3), ratio=(0.5, 2.0), value=0.5, p=1.0), [images()])
add_pair("RandomGamma", G2I, lambda: KA.RandomGamma((0.5, 1.5), (0.8, 1.2), p=1.0), [images()])
add_pair("RandomGaussianBlur", G2I, lambda: KA.RandomGaussianBlur((5, 5), (0.5, 2.0), p=1.0), [images()])
add_pair(
    "RandomGaussianBlur[separable=False]",
    G2I,
    lambda: KA.RandomGaussianBlur((5, 5), (0.5, 2.0), separable=False, border_type="constant", p=1.0),
    [images()],
    note="full 2D kernel, constant border",
)
add_pair("RandomGaussianIllumination", G2I, lambda: KA.RandomGaussianIllumination(p=1.0), [images()])
add_pair("RandomGaussianNoise", G2I, lambda: KA.RandomGaussianNoise(mean=0.0, std=0.1, p=1.0), [images()])
add_pair("RandomGrayscale", G2I, lambda: KA.RandomGrayscale(p=1.0), [images()])
add_pair("RandomHue", G2I, lambda: KA.RandomHue((-0.3, 0.3), p=1.0), [images()])
add_pair("RandomInvert", G2I, lambda: KA.RandomInvert(p=1.0), [images()])
add_pair("RandomJPEG", G2I, lambda: KA.RandomJPEG(jpeg_quality=(20.0, 80.0), p=1.0), [images()])
add_pair("RandomLinearCornerIllumination", G2I, lambda: KA.RandomLinearCornerIllumination(p=1.0), [images()])
add_pair("RandomLinearIllumination", G2I, lambda: KA.RandomLinearIllumination(p=1.0), [images()])
add_pair("RandomMedianBlur", G2I, lambda: KA.RandomMedianBlur((3, 3), p=1.0), [images()])
add_pair("RandomMotionBlur", G2I, lambda: KA.RandomMotionBlur(5, 35.0, 0.5, p=1.0), [images()])
add_pair(
    "RandomMotionBlur[reflect, bilinear]",
    G2I,
    lambda: KA.RandomMotionBlur((3, 7), 35.0, 0.5, border_type="reflect", resample="bilinear", p=1.0),
    [images()],
    note="kernel size sampled in [3, 7]",
)
add_pair("RandomPlanckianJitter", G2I, lambda: KA.RandomPlanckianJitter(p=1.0), [images()], note="mode='blackbody'")
add_pair("RandomPlanckianJitter[CIED]", G2I, lambda: KA.RandomPlanckianJitter(mode="CIED", p=1.0), [images()])
add_pair("RandomPlasmaBrightness", G2I, lambda: KA.RandomPlasmaBrightness(p=1.0), [images()])
add_pair("RandomPlasmaContrast", G2I, lambda: KA.RandomPlasmaContrast(p=1.0), [images()])
add_pair("RandomPlasmaShadow", G2I, lambda: KA.RandomPlasmaShadow(shade_intensity=(-0.8, -0.2), p=1.0), [images()])
add_pair("RandomPosterize", G2I, lambda: KA.RandomPosterize((1, 5), p=1.0), [images()])
add_pair("RandomRGBShift", G2I, lambda: KA.RandomRGBShift(0.2, 0.2, 0.2, p=1.0), [images()])
add_pair("RandomRain", G2I, lambda: KA.RandomRain(number_of_drops=(20, 40), drop_height=(3, 8), drop_width=(-3, 3), p=1.0), [images()])
add_pair("RandomSaltAndPepperNoise", G2I, lambda: KA.RandomSaltAndPepperNoise(p=1.0), [images()])
add_pair("RandomSaturation", G2I, lambda: KA.RandomSaturation((0.5, 1.5), p=1.0), [images()])
add_pair("RandomSharpness", G2I, lambda: KA.RandomSharpness((0.2, 0.8), p=1.0), [images()])
add_pair("RandomSnow", G2I, lambda: KA.RandomSnow(snow_coefficient=(0.3, 0.6), brightness=(1.5, 2.5), p=1.0), [images()])
add_pair("RandomSolarize", G2I, lambda: KA.RandomSolarize(0.1, 0.1, p=1.0), [images()])
CASES.append(
    case(
        "RandomDissolving",
        G2I,
        KA.RandomDissolving,  # the class itself: constructing it needs diffusers, and the case is skipped
        [images()],
        skip="needs the optional `diffusers` package and Stable Diffusion weights downloaded from the Hugging Face Hub",
    )
)
CASES.append(
    case(
        "RandomDissolving[random]",
        G2I,
        KA.RandomDissolving,
        [images()],
        check=False,
        skip="needs the optional `diffusers` package and Stable Diffusion weights downloaded from the Hugging Face Hub",
    )
)

# probability below 1: the per-sample gate is live (the seed gives one applied and one skipped image)
add_pair("ColorJiggle[p=0.5]", G2I, lambda: KA.ColorJiggle(0.3, 0.3, 0.3, 0.1, p=0.5), [images()], seed=1, note="p=0.5")
add_pair("RandomGaussianBlur[p=0.5]", G2I, lambda: KA.RandomGaussianBlur((5, 5), (0.5, 2.0), p=0.5), [images()], seed=1, note="p=0.5")
add_pair("RandomBrightness[keepdim]", G2I, lambda: KA.RandomBrightness((0.6, 1.4), keepdim=True, p=1.0), [img()], note="a single CHW... image batch of 1, keepdim=True")

# ----------------------------------------------------------------------------------------------------------
# 2D geometric
# ----------------------------------------------------------------------------------------------------------

add_pair("CenterCrop", G2G, lambda: KA.CenterCrop((24, 32)), [images()], note="size (24, 32), cropping_mode='slice'")
add_pair("CenterCrop[resample]", G2G, lambda: KA.CenterCrop((24, 32), cropping_mode="resample"), [images()], note="cropping_mode='resample'")
add_pair("PadTo", G2G, lambda: KA.PadTo((40, 48)), [images()], note="size (40, 48)")
add_pair("PadTo[reflect]", G2G, lambda: KA.PadTo((40, 48), pad_mode="reflect"), [images()])
add_pair("Resize", G2G, lambda: KA.Resize((24, 36)), [images()], note="size (24, 36)")
add_pair("Resize[antialias]", G2G, lambda: KA.Resize((16, 20), antialias=True), [images()], note="downscale with antialias=True")
add_pair("Resize[side=long]", G2G, lambda: KA.Resize(48, side="long", resample="nearest"), [images()], note="int size, side='long', nearest")
add_pair("LongestMaxSize", G2G, lambda: KA.LongestMaxSize(60), [images()], note="max_size=60")
add_pair("SmallestMaxSize", G2G, lambda: KA.SmallestMaxSize(24), [images()], note="max_size=24")
add_pair("RandomAffine", G2G, lambda: KA.RandomAffine(15.0, (0.1, 0.1), (0.8, 1.2), 10.0, p=1.0), [images()])
add_pair(
    "RandomAffine[border, nearest]",
    G2G,
    lambda: KA.RandomAffine(30.0, (0.1, 0.1), (0.8, 1.2, 0.8, 1.2), (-5.0, 5.0, -5.0, 5.0), resample="nearest", padding_mode="border", p=1.0),
    [images()],
    note="anisotropic scale, shear in x and y, border padding, nearest",
)
add_pair("RandomAffine[p=0.5]", G2G, lambda: KA.RandomAffine(15.0, (0.1, 0.1), (0.8, 1.2), 10.0, p=0.5), [images()], seed=1, note="p=0.5")
add_pair("RandomCrop", G2G, lambda: KA.RandomCrop((24, 32)), [images()], note="size (24, 32), cropping_mode='slice'")
add_pair("RandomCrop[resample]", G2G, lambda: KA.RandomCrop((24, 32), cropping_mode="resample"), [images()], note="cropping_mode='resample'")
add_pair("RandomCrop[padding]", G2G, lambda: KA.RandomCrop((32, 40), padding=4, padding_mode="reflect"), [images()], note="padding=4 (reflect), then crop (32, 40)")
# Not at other shapes: the recorded padding_size is the one of a 32x40 image. At 48x56 eager pads by
# it while a capture recomputes the padding from the input shape (kornia's apply_transform under
# is_exporting/is_compiling), so all three dynamic paths differed from eager there, as a static
# export at 48x56 does too: a mismatch of inconsistent inputs, not of the capture.
add_pair("RandomCrop[pad_if_needed]", G2G, lambda: KA.RandomCrop((36, 44), pad_if_needed=True, fill=0.5), [images()],
         note="crop larger than the image",
         dynamic="its recorded parameters (padding_size, crop boxes) are those of the case's image size")
add_pair("RandomCrop[p=0.5]", G2G, lambda: KA.RandomCrop((24, 32), p=0.5), [img()], seed=0, note="p=0.5, batch of 1 (a shape-changing crop cannot mix applied and skipped rows)")
add_pair("RandomElasticTransform", G2G, lambda: KA.RandomElasticTransform((15, 15), (4.0, 4.0), (1.0, 1.0), p=1.0), [images()])
add_pair(
    "RandomFisheye",
    G2G,
    lambda: KA.RandomFisheye(torch.tensor([-0.3, 0.3]), torch.tensor([-0.3, 0.3]), torch.tensor([0.9, 1.0]), p=1.0),
    [images()],
)
add_pair("RandomHorizontalFlip", G2G, lambda: KA.RandomHorizontalFlip(p=1.0), [images()])
add_pair("RandomHorizontalFlip[p=0.5]", G2G, lambda: KA.RandomHorizontalFlip(p=0.5), [images()], seed=1, note="p=0.5")
add_pair("RandomVerticalFlip", G2G, lambda: KA.RandomVerticalFlip(p=1.0), [images()])
add_pair("RandomPerspective", G2G, lambda: KA.RandomPerspective(0.3, p=1.0), [images()])
add_pair(
    "RandomPerspective[area_preserving]",
    G2G,
    lambda: KA.RandomPerspective(0.3, sampling_method="area_preserving", p=1.0),
    [images()],
)
add_pair("RandomResizedCrop", G2G, lambda: KA.RandomResizedCrop((24, 32)), [images()], note="size (24, 32), cropping_mode='slice'")
add_pair(
    "RandomResizedCrop[resample]",
    G2G,
    lambda: KA.RandomResizedCrop((24, 32), scale=(0.3, 1.0), cropping_mode="resample"),
    [images()],
    note="cropping_mode='resample'",
)
add_pair("RandomRotation", G2G, lambda: KA.RandomRotation(30.0, p=1.0), [images()])
add_pair("RandomRotation[nearest]", G2G, lambda: KA.RandomRotation((-45.0, 45.0), resample="nearest", align_corners=False, p=1.0), [images()])
add_pair("RandomRotation90", G2G, lambda: KA.RandomRotation90((1, 3), p=1.0), [images()])
add_pair("RandomShear", G2G, lambda: KA.RandomShear(10.0, p=1.0), [images()])
add_pair("RandomThinPlateSpline", G2G, lambda: KA.RandomThinPlateSpline(p=1.0), [images()])
add_pair("RandomTranslate", G2G, lambda: KA.RandomTranslate((0.1, 0.2), (0.1, 0.2), p=1.0), [images()])

# ----------------------------------------------------------------------------------------------------------
# mix
# ----------------------------------------------------------------------------------------------------------

add_pair("RandomMixUpV2", GMIX, lambda: KA.RandomMixUpV2(p=1.0, data_keys=["input", "class"]), [images(), class_labels()], note="inputs (image, class)")
add_pair("RandomCutMixV2", GMIX, lambda: KA.RandomCutMixV2(p=1.0, data_keys=["input", "class"]), [images(), class_labels()], note="inputs (image, class)")
add_pair(
    "RandomCutMixV2[num_mix=2]",
    GMIX,
    lambda: KA.RandomCutMixV2(num_mix=2, cut_size=(0.3, 0.6), p=1.0, data_keys=["input", "class"]),
    [images(), class_labels()],
    seed=4,
    note="num_mix=2, cut_size (0.3, 0.6); inputs (image, class); seed 4 pairs each image with the other",
)
add_pair("RandomMixUpV2[input only]", GMIX, lambda: KA.RandomMixUpV2(lambda_val=(0.2, 0.8), p=1.0), [images()], note="data_keys=['input'], lambda in [0.2, 0.8]")
add_pair("PatchMix", GMIX, lambda: KA.PatchMix(patch_size=8, p=1.0), [images()], note="patch_size=8")
add_pair("RandomMosaic", GMIX, lambda: KA.RandomMosaic(output_size=(32, 40), p=1.0), [images()], note="output_size (32, 40)")
add_pair(
    "RandomMosaic[bbox_xyxy]",
    GMIX,
    lambda: KA.RandomMosaic(output_size=(32, 40), p=1.0, data_keys=["input", "bbox_xyxy"]),
    [images(), boxes_xyxy()],
    note="inputs (image, boxes xyxy)",
)
add_pair("RandomJigsaw", GMIX, lambda: KA.RandomJigsaw(grid=(2, 2), p=1.0), [images()], note="grid (2, 2)")
add_pair(
    "RandomTransplantation",
    GMIX,
    lambda: KA.RandomTransplantation(p=1.0),
    [images(), label_mask()],
    params_fn=_transplant_params,
    note="inputs (image, integer mask); the label selection (params_from_input) is part of the recorded parameters",
)
add_pair(
    "RandomTransplantation[excluded_labels]",
    GMIX,
    lambda: KA.RandomTransplantation(excluded_labels=[0], p=1.0),
    [images(), label_mask()],
    params_fn=_transplant_params,
    note="background label 0 excluded; inputs (image, integer mask)",
)

# ----------------------------------------------------------------------------------------------------------
# 3D
# ----------------------------------------------------------------------------------------------------------

add_pair("CenterCrop3D", G3, lambda: KA.CenterCrop3D((6, 12, 12)), [volumes()], note="size (6, 12, 12)")
add_pair("RandomAffine3D", G3, lambda: KA.RandomAffine3D(15.0, translate=(0.1, 0.1, 0.1), scale=(0.8, 1.2), shears=5.0, p=1.0), [volumes()])
add_pair("RandomCrop3D", G3, lambda: KA.RandomCrop3D((6, 12, 12), p=1.0), [volumes()], note="size (6, 12, 12)")
add_pair("RandomDepthicalFlip3D", G3, lambda: KA.RandomDepthicalFlip3D(p=1.0), [volumes()])
add_pair("RandomEqualize3D", G3, lambda: KA.RandomEqualize3D(p=1.0), [volumes()])
add_pair("RandomHorizontalFlip3D", G3, lambda: KA.RandomHorizontalFlip3D(p=1.0), [volumes()])
add_pair("RandomVerticalFlip3D", G3, lambda: KA.RandomVerticalFlip3D(p=1.0), [volumes()])
add_pair("RandomMotionBlur3D", G3, lambda: KA.RandomMotionBlur3D(3, 35.0, 0.5, p=1.0), [volumes()])
add_pair("RandomPerspective3D", G3, lambda: KA.RandomPerspective3D(0.3, p=1.0), [volumes()])
add_pair("RandomRotation3D", G3, lambda: KA.RandomRotation3D(15.0, p=1.0), [volumes()])
add_pair(
    "RandomTransplantation3D",
    G3,
    lambda: KA.RandomTransplantation3D(p=1.0),
    [volumes(), label_volume_mask()],
    params_fn=_transplant_params,
    note="inputs (volume, integer mask); the label selection (params_from_input) is part of the recorded parameters",
)

# ----------------------------------------------------------------------------------------------------------
# containers
# ----------------------------------------------------------------------------------------------------------


def _kornia_color_rgb_to_bgr() -> nn.Module:
    import kornia.color

    return kornia.color.RgbToBgr()


def _children() -> list:
    """Three children that each transform every data key: a flip, an intensity change and an affine warp."""
    return [KA.RandomHorizontalFlip(p=1.0), KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, (0.1, 0.1), (0.9, 1.1), p=1.0)]


add_pair(
    "AugmentationSequential",
    GCON,
    lambda: KA.AugmentationSequential(*_children()),
    [images()],
    note="RandomHorizontalFlip + RandomBrightness + RandomAffine; data_keys=['input']",
)
add_pair(
    "AugmentationSequential[mask]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "mask"]),
    [images(), binary_mask()],
    note="data_keys=['input', 'mask']",
)
add_pair(
    "AugmentationSequential[bbox_xyxy]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "bbox_xyxy"]),
    [images(), boxes_xyxy()],
    note="data_keys=['input', 'bbox_xyxy']",
)
add_pair(
    "AugmentationSequential[bbox_xywh]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "bbox_xywh"]),
    [images(), boxes_xywh()],
    note="data_keys=['input', 'bbox_xywh']",
)
add_pair(
    "AugmentationSequential[bbox]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "bbox"]),
    [images(), boxes_corners()],
    note="data_keys=['input', 'bbox'] (four corners per box)",
)
add_pair(
    "AugmentationSequential[keypoints]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "keypoints"]),
    [images(), keypoints()],
    note="data_keys=['input', 'keypoints']",
)
add_pair(
    "AugmentationSequential[all keys]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=["input", "mask", "bbox_xyxy", "keypoints", "class"]),
    [images(), binary_mask(), boxes_xyxy(), keypoints(), class_labels()],
    note="data_keys=['input', 'mask', 'bbox_xyxy', 'keypoints', 'class']",
)
add_pair(
    "AugmentationSequential[crop]",
    GCON,
    lambda: KA.AugmentationSequential(
        KA.RandomResizedCrop((24, 32), scale=(0.5, 1.0), cropping_mode="resample"),
        KA.RandomHorizontalFlip(p=1.0),
        data_keys=["input", "mask", "bbox_xyxy"],
    ),
    [images(), binary_mask(), boxes_xyxy()],
    note="shape-changing child (RandomResizedCrop, resample mode) with mask and boxes",
)
add_pair(
    "AugmentationSequential[ColorJiggle]",
    GCON,
    lambda: KA.AugmentationSequential(KA.ColorJiggle(0.2, 0.2, 0.2, 0.05, p=1.0), KA.RandomAffine(15.0, p=1.0), data_keys=["input", "mask"]),
    [images(), binary_mask()],
    note="ColorJiggle + RandomAffine with a mask",
)
add_pair(
    "AugmentationSequential[p=0.5]",
    GCON,
    lambda: KA.AugmentationSequential(
        KA.RandomHorizontalFlip(p=0.5), KA.RandomBrightness((0.7, 1.3), p=0.5), KA.RandomAffine(15.0, p=0.5), data_keys=["input", "mask"]
    ),
    [images(), binary_mask()],
    seed=1,
    note="children with p=0.5 (per-sample gates live)",
)
add_pair(
    "AugmentationSequential[random_apply]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), KA.RandomGrayscale(p=1.0), random_apply=2),
    [images()],
    note="random_apply=2: two of four children, chosen when the parameters are sampled",
)
add_pair(
    "AugmentationSequential[mix]",
    GCON,
    lambda: KA.AugmentationSequential(KA.RandomAffine(15.0, p=1.0), KA.RandomMixUpV2(p=1.0)),
    [images()],
    note="RandomAffine + RandomMixUpV2 (class labels through a mix child: see AugmentationSequential[mix,label])",
)
add_pair(
    "AugmentationSequential[mix,label]",
    GCON,
    lambda: KA.AugmentationSequential(KA.RandomAffine(15.0, p=1.0), KA.RandomMixUpV2(p=1.0), data_keys=["input", "label"]),
    [images(), class_labels()],
    random=False,
    note="images and their int64 class labels (data_keys input, label) through RandomAffine + RandomMixUpV2, which "
    "takes labels on its own: kornia 0.9.0 raises NotImplementedError for labels through a mix child in a container",
)
add_pair(
    "AugmentationSequential[3d]",
    GCON,
    lambda: KA.AugmentationSequential(KA.RandomAffine3D(15.0, p=1.0), KA.RandomHorizontalFlip3D(p=1.0)),
    [volumes()],
    note="3D children on volumes (masks and inverse: AugmentationSequential[3d,mask], AugmentationSequential.inverse[3d])",
)
add_pair(
    "AugmentationSequential[3d,mask]",
    GCON,
    lambda: KA.AugmentationSequential(KA.RandomAffine3D(15.0, p=1.0), KA.RandomHorizontalFlip3D(p=1.0), data_keys=["input", "mask"]),
    [volumes(), derived(lambda v: (v > 0.5).float(), volumes(31))],
    random=False,
    note="2x1x8x16x16 volumes and binary masks of the same layout (data_keys input, mask): kornia 0.9.0 raises "
    "NotImplementedError for masks through 3D geometric children",
)
add_pair(
    "AugmentationSequential[nested]",
    GCON,
    lambda: KA.AugmentationSequential(
        KA.ImageSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, p=1.0)),
        KA.RandomVerticalFlip(p=1.0),
        data_keys=["input", "keypoints"],
    ),
    [images(), keypoints()],
    note="an ImageSequential nested in an AugmentationSequential, with keypoints",
)


def _dict_call(module: nn.Module, params: Any, image: torch.Tensor, mask: torch.Tensor, boxes: torch.Tensor) -> Any:
    return module({"image": image, "mask": mask, "bbox_xyxy": boxes}, params=params)


def _dict_call_random(module: nn.Module, image: torch.Tensor, mask: torch.Tensor, boxes: torch.Tensor) -> Any:
    return module({"image": image, "mask": mask, "bbox_xyxy": boxes})


def _inverse_call(module: nn.Module, params: Any, image: torch.Tensor, mask: torch.Tensor) -> Any:
    out = module(image, mask, params=params)
    return module.inverse(*out, params=params)


def _inverse_call_random(module: nn.Module, image: torch.Tensor, mask: torch.Tensor) -> Any:
    out = module(image, mask)
    return module.inverse(*out)


def add_call_pair(
    name: str,
    group: str,
    make: Callable[[], nn.Module],
    data: Sequence[torch.Tensor],
    det_call: Callable[..., Any],
    random_call: Callable[..., Any],
    *,
    target: Any,
    note: str = "",
    params_fn: Callable[[nn.Module, Sequence[torch.Tensor]], Any] | None = None,
    seed: int = PARAM_SEED,
) -> None:
    """Like add_pair, for call structures other than ``module(*data, params=...)``."""
    module = make()
    params = sample_params(module, data[0].shape, seed, params_fn, data)
    template, tensors, paths = split_params(params, SHAPE_KEYS)
    CASES.append(
        case(
            name,
            group,
            WithParams(module, template, len(data), target, call=det_call),
            [*data, *tensors],
            note="; ".join(x for x in (note, _param_note(paths)) if x),
            fresh_inputs=fresh_replay(name, make, None, seed, params_fn, data, template, tensors),
        )
    )
    CASES.append(
        case(
            f"{name}[random]",
            group,
            ModuleCall(make(), random_call, target),
            list(data),
            note="; ".join(x for x in (note, "parameters sampled inside the graph") if x),
            check=False,
            tags=("random",),
        )
    )


add_call_pair(
    "AugmentationSequential[dict]",
    GCON,
    lambda: KA.AugmentationSequential(*_children(), data_keys=None),
    [images(), binary_mask(), boxes_xyxy()],
    _dict_call,
    _dict_call_random,
    target=KA.AugmentationSequential,
    note="called with a dict {'image', 'mask', 'bbox_xyxy'}: data keys read from the dict keys",
)
def _inverse_call_volume(module: nn.Module, params: Any, volume: torch.Tensor) -> Any:
    return module.inverse(module(volume, params=params), params=params)


_INV3D = KA.AugmentationSequential(KA.RandomAffine3D(15.0, p=1.0), KA.RandomHorizontalFlip3D(p=1.0))
_INV3D_TEMPLATE, _INV3D_TENSORS, _INV3D_PATHS = split_params(sample_params(_INV3D, volumes().shape), SHAPE_KEYS)
CASES.append(
    case(
        "AugmentationSequential.inverse[3d]",
        GCON,
        WithParams(_INV3D, _INV3D_TEMPLATE, 1, KA.AugmentationSequential.inverse, call=_inverse_call_volume),
        [volumes(), *_INV3D_TENSORS],
        fresh_inputs=fresh_replay(
            "AugmentationSequential.inverse[3d]",
            lambda: KA.AugmentationSequential(KA.RandomAffine3D(15.0, p=1.0), KA.RandomHorizontalFlip3D(p=1.0)),
            None, PARAM_SEED, None, [volumes()], _INV3D_TEMPLATE, _INV3D_TENSORS,
        ),
        note="forward then inverse with the same parameters on 2x1x8x16x16 volumes: kornia 0.9.0 raises "
        "NotImplementedError for the inverse of 3D geometric children (documented); " + _param_note(_INV3D_PATHS),
    )
)
add_call_pair(
    "AugmentationSequential.inverse",
    GCON,
    lambda: KA.AugmentationSequential(KA.RandomAffine(15.0, (0.1, 0.1), (0.9, 1.1), p=1.0), KA.RandomVerticalFlip(p=1.0), data_keys=["input", "mask"]),
    [images(), binary_mask()],
    _inverse_call,
    _inverse_call_random,
    target=KA.AugmentationSequential.inverse,
    note="forward then inverse with the same parameters (image and mask)",
)

add_pair(
    "ImageSequential",
    GCON,
    lambda: KA.ImageSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, p=1.0), KA.RandomHorizontalFlip(p=1.0)),
    [images()],
    note="RandomBrightness + RandomAffine + RandomHorizontalFlip",
)
add_pair(
    "ImageSequential[random_apply]",
    GCON,
    lambda: KA.ImageSequential(
        KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomHorizontalFlip(p=1.0), KA.RandomGrayscale(p=1.0), KA.RandomAffine(15.0, p=1.0), random_apply=2
    ),
    [images()],
    note="random_apply=2: two of four children, chosen when the parameters are sampled",
)
add_pair(
    "ImageSequential[plain modules]",
    GCON,
    lambda: KA.ImageSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), _kornia_color_rgb_to_bgr(), KA.RandomVerticalFlip(p=1.0)),
    [images()],
    note="a non-random kornia module (kornia.color.RgbToBgr) between two augmentations",
)
add_pair(
    "PatchSequential",
    GCON,
    lambda: KA.PatchSequential(
        KA.RandomBrightness((0.7, 1.3), p=1.0),
        KA.RandomHorizontalFlip(p=1.0),
        KA.RandomGrayscale(p=1.0),
        KA.RandomSolarize(0.1, 0.1, p=1.0),
        grid_size=(2, 2),
        patchwise_apply=True,
    ),
    [images()],
    note="grid (2, 2), patchwise_apply=True: one child per patch",
)
add_pair(
    "PatchSequential[not patchwise]",
    GCON,
    lambda: KA.PatchSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, p=1.0), grid_size=(2, 2), patchwise_apply=False),
    [images()],
    note="grid (2, 2), patchwise_apply=False: every child on every patch",
)
add_pair(
    "VideoSequential",
    GCON,
    lambda: KA.VideoSequential(KA.RandomAffine(15.0, p=1.0), KA.RandomBrightness((0.7, 1.3), p=1.0), data_format="BTCHW", same_on_frame=True),
    [video()],
    note="BTCHW 2x4x3x16x20, same_on_frame=True",
)
add_pair(
    "VideoSequential[BCTHW]",
    GCON,
    lambda: KA.VideoSequential(KA.RandomAffine(15.0, p=1.0), KA.RandomBrightness((0.7, 1.3), p=1.0), data_format="BCTHW", same_on_frame=False),
    [video().permute(0, 2, 1, 3, 4).contiguous()],
    note="BCTHW 2x3x4x16x20, same_on_frame=False",
)


def _dispatch_children() -> list:
    return [
        KA.AugmentationSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, p=1.0), data_keys=["input", "mask"]),
        KA.AugmentationSequential(KA.RandomVerticalFlip(p=1.0), KA.RandomRotation(20.0, p=1.0), data_keys=["input", "mask"]),
    ]


def _dispatcher_params(dispatcher: nn.Module, data: Sequence[torch.Tensor]) -> list:
    """One recorded parameter list per child AugmentationSequential (children see data[0], data[2], ...)."""
    shapes = [data[0].shape] * len(dispatcher.augmentations)
    if isinstance(dispatcher, KA.ManyToManyAugmentationDispather):
        shapes = [data[2 * i].shape for i in range(len(dispatcher.augmentations))]
    return [aug.forward_parameters(shape) for aug, shape in zip(dispatcher.augmentations, shapes)]


def _many_to_many(module: nn.Module, params: list, *data: torch.Tensor) -> list:
    # ManyToManyAugmentationDispather.forward has no `params`: replay it child by child, as its forward does.
    bundles = [tuple(data[2 * i : 2 * i + 2]) for i in range(len(module.augmentations))]
    return [aug(*bundle, params=p) for aug, bundle, p in zip(module.augmentations, bundles, params)]


def _many_to_many_random(module: nn.Module, *data: torch.Tensor) -> list:
    return module(*[tuple(data[2 * i : 2 * i + 2]) for i in range(len(module.augmentations))])


def _many_to_one(module: nn.Module, params: list, *data: torch.Tensor) -> list:
    # ManyToOneAugmentationDispather.forward has no `params`: replay it child by child, as its forward does.
    return [aug(*data, params=p) for aug, p in zip(module.augmentations, params)]


def _many_to_one_random(module: nn.Module, *data: torch.Tensor) -> list:
    return module(*data)


add_call_pair(
    "ManyToManyAugmentationDispather",
    GCON,
    lambda: KA.ManyToManyAugmentationDispather(*_dispatch_children()),
    [images(), binary_mask(), images(28), binary_mask(29)],
    _many_to_many,
    _many_to_many_random,
    target=KA.ManyToManyAugmentationDispather,
    params_fn=_dispatcher_params,
    note="two AugmentationSequential(input, mask), each on its own (image, mask); the deterministic case replays "
    "each child with its recorded parameters (the dispatcher's forward takes no `params`)",
)
add_call_pair(
    "ManyToOneAugmentationDispather",
    GCON,
    lambda: KA.ManyToOneAugmentationDispather(*_dispatch_children()),
    [images(), binary_mask()],
    _many_to_one,
    _many_to_one_random,
    target=KA.ManyToOneAugmentationDispather,
    params_fn=_dispatcher_params,
    note="two AugmentationSequential(input, mask) on the same (image, mask); the deterministic case replays each "
    "child with its recorded parameters (the dispatcher's forward takes no `params`)",
)

# ----------------------------------------------------------------------------------------------------------
# auto augment: policies and their operations
# ----------------------------------------------------------------------------------------------------------

# The sub-policy is part of the replayed structure: no seed of PARAM_SEED + FRESH_OFFSET + k, k < 64, samples the
# recorded one with the same gates for these two policies (searched once; not repeated at every registry load).
_AUTO_OPT_OUT = "the sub-policy chosen when the parameters were sampled is part of the replayed graph: no other seed (64 tried) samples the same sub-policy with the same gates"
add_pair("AutoAugment", GAUTO, lambda: KAuto.AutoAugment(), [images()], note="policy='imagenet'; the sub-policy is chosen when the parameters are sampled",
         fresh_opt_out=_AUTO_OPT_OUT)
add_pair("AutoAugment[cifar10]", GAUTO, lambda: KAuto.AutoAugment("cifar10"), [images()], seed=2, note="policy='cifar10'",
         fresh_opt_out=_AUTO_OPT_OUT)
add_pair("AutoAugment[svhn]", GAUTO, lambda: KAuto.AutoAugment("svhn"), [images()], seed=4, note="policy='svhn'")
add_pair("RandAugment", GAUTO, lambda: KAuto.RandAugment(n=2, m=10), [images()], note="n=2, m=10")
add_pair("TrivialAugment", GAUTO, lambda: KAuto.TrivialAugment(), [images()], note="one operation chosen when the parameters are sampled")
add_pair(
    "AugmentationSequential[RandAugment]",
    GAUTO,
    lambda: KA.AugmentationSequential(KAuto.RandAugment(n=2, m=10), data_keys=["input", "mask"]),
    [images(), binary_mask()],
    note="RandAugment inside AugmentationSequential, with a mask",
)
add_pair(
    "PolicySequential",
    GAUTO,
    lambda: KAuto.PolicySequential(KOps.Rotate(20.0, initial_probability=1.0), KOps.Brightness(0.7, initial_probability=1.0)),
    [images()],
    note="Rotate(20) then Brightness(0.7), probability 1",
)

_OPS = [
    ("AutoContrast", lambda: KOps.AutoContrast(initial_probability=1.0)),
    ("Brightness", lambda: KOps.Brightness(0.7, initial_probability=1.0)),
    ("Contrast", lambda: KOps.Contrast(0.7, initial_probability=1.0)),
    ("Equalize", lambda: KOps.Equalize(initial_probability=1.0)),
    ("Gray", lambda: KOps.Gray(initial_probability=1.0)),
    ("HorizontalFlip", lambda: KOps.HorizontalFlip(initial_probability=1.0)),
    ("Hue", lambda: KOps.Hue(0.2, initial_probability=1.0)),
    ("Invert", lambda: KOps.Invert(initial_probability=1.0)),
    ("Posterize", lambda: KOps.Posterize(3.0, initial_probability=1.0)),
    ("Rotate", lambda: KOps.Rotate(20.0, initial_probability=1.0)),
    ("Saturate", lambda: KOps.Saturate(0.6, initial_probability=1.0)),
    ("Sharpness", lambda: KOps.Sharpness(0.8, initial_probability=1.0)),
    ("ShearX", lambda: KOps.ShearX(0.2, initial_probability=1.0)),
    ("ShearY", lambda: KOps.ShearY(0.2, initial_probability=1.0)),
    ("Solarize", lambda: KOps.Solarize(0.4, initial_probability=1.0)),
    ("SolarizeAdd", lambda: KOps.SolarizeAdd(0.2, initial_probability=1.0)),
    ("TranslateX", lambda: KOps.TranslateX(0.2, initial_probability=1.0)),
    ("TranslateY", lambda: KOps.TranslateY(0.2, initial_probability=1.0)),
    ("VerticalFlip", lambda: KOps.VerticalFlip(initial_probability=1.0)),
]
for _name, _make in _OPS:
    # short names like Rotate, Invert, Hue clash with kornia.geometry / kornia.enhance: prefix with the package
    add_pair(f"auto.{_name}", GAUTO, _make, [images()], note=f"kornia.augmentation.auto.operations.{_name}, probability 1")
add_pair(
    "auto.OperationBase",
    GAUTO,
    lambda: KOps.OperationBase(KA.RandomContrast((0.5, 1.5), p=1.0), initial_magnitude=[("contrast_factor", 1.3)]),
    [images()],
    note="OperationBase wrapping RandomContrast with a learnable magnitude 1.3",
)

# ----------------------------------------------------------------------------------------------------------
# base classes, through the smallest subclass kornia's "custom augmentation" recipe asks for: the base's
# own machinery (gate, input standardisation, parameter replay, blending, matrices) is what runs.
# ----------------------------------------------------------------------------------------------------------


def _shift_matrix(params: Dict[str, torch.Tensor], like: torch.Tensor, dims: int) -> torch.Tensor:
    """(B, dims+1, dims+1) translation matrices from the sampled shifts."""
    b = params["shift_0"].shape[0]
    eye = torch.eye(dims + 1, dtype=like.dtype, device=like.device).expand(b, dims + 1, dims + 1)
    shift = torch.stack([params[f"shift_{i}"].to(like) for i in range(dims)], -1)  # (B, dims)
    col = torch.cat([shift, torch.zeros(b, 1, dtype=like.dtype, device=like.device)], -1)  # (B, dims+1)
    onehot = torch.zeros(dims + 1, dtype=like.dtype, device=like.device)
    onehot[dims] = 1.0
    return eye + col[:, :, None] * onehot[None, None, :]


def _shift_generator(dims: int) -> PlainUniformGenerator:
    return PlainUniformGenerator(*[((-3.0, 3.0), f"shift_{i}", None, None) for i in range(dims)])


def _gain_generator() -> PlainUniformGenerator:
    return PlainUniformGenerator(((0.5, 1.5), "gain", None, None))


def _apply_gain(input: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
    return input * params["gain"].to(input).view(-1, *([1] * (input.dim() - 1)))


class _Gain2D(KA.AugmentationBase2D):
    """Custom AugmentationBase2D: multiply each image by a sampled gain."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _gain_generator()

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return _apply_gain(input, params)


class _IntensityGain2D(KA.IntensityAugmentationBase2D):
    """Custom IntensityAugmentationBase2D: multiply each image by a sampled gain."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _gain_generator()

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return _apply_gain(input, params)


class _Shift2D(KA.GeometricAugmentationBase2D):
    """Custom GeometricAugmentationBase2D: translate each image by a sampled shift (warp_affine)."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _shift_generator(2)

    def compute_transformation(self, input, params, flags):  # noqa: ANN001, ANN201
        return _shift_matrix(params, input, 2)

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return warp_affine(input, transform[:, :2, :], (input.shape[-2], input.shape[-1]))

    def inverse_transform(self, input, flags, transform=None, size=None):  # noqa: ANN001, ANN201
        return warp_affine(input, torch.linalg.inv(transform)[:, :2, :], (input.shape[-2], input.shape[-1]))


class _RigidShift2D(KA.RigidAffineAugmentationBase2D):
    """Custom RigidAffineAugmentationBase2D: translate each image by a sampled shift (warp_affine)."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _shift_generator(2)

    def compute_transformation(self, input, params, flags):  # noqa: ANN001, ANN201
        return _shift_matrix(params, input, 2)

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return warp_affine(input, transform[:, :2, :], (input.shape[-2], input.shape[-1]))


class _Gain3D(KA.AugmentationBase3D):
    """Custom AugmentationBase3D: multiply each volume by a sampled gain."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _gain_generator()

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return _apply_gain(input, params)


class _IntensityGain3D(KA.IntensityAugmentationBase3D):
    """Custom IntensityAugmentationBase3D: multiply each volume by a sampled gain."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _gain_generator()

    def compute_transformation(self, input, params, flags):  # noqa: ANN001, ANN201
        # the 3D intensity base leaves this abstract; kornia's own 3D intensity augmentations return the identity
        return self.identity_matrix(input)

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return _apply_gain(input, params)


class _Shift3D(KA.GeometricAugmentationBase3D):
    """Custom GeometricAugmentationBase3D: translate each volume by a sampled shift (warp_affine3d)."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _shift_generator(3)

    def compute_transformation(self, input, params, flags):  # noqa: ANN001, ANN201
        return _shift_matrix(params, input, 3)

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return warp_affine3d(input, transform[:, :3, :], tuple(input.shape[-3:]))


class _RigidShift3D(KA.RigidAffineAugmentationBase3D):
    """Custom RigidAffineAugmentationBase3D: translate each volume by a sampled shift (warp_affine3d)."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=p)
        self._param_generator = _shift_generator(3)

    def compute_transformation(self, input, params, flags):  # noqa: ANN001, ANN201
        return _shift_matrix(params, input, 3)

    def apply_transform(self, input, params, flags, transform=None):  # noqa: ANN001, ANN201
        return warp_affine3d(input, transform[:, :3, :], tuple(input.shape[-3:]))


class _RollBlend(KA.MixAugmentationBaseV2):
    """Custom MixAugmentationBaseV2: blend each image with the next one in the batch by a sampled weight."""

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p=1.0, p_batch=p)
        self._param_generator = PlainUniformGenerator(((0.2, 0.8), "weight", None, None))

    def apply_transform(self, input, params, maybe_flags=None):  # noqa: ANN001, ANN201
        w = params["weight"].to(input).view(-1, 1, 1, 1)
        return (1 - w) * input + w * input.roll(1, 0)


class _AllSubPolicies(KAuto.PolicyAugmentBase):
    """Custom PolicyAugmentBase: every sub-policy, in order, built from kornia's own operations."""

    def __init__(self) -> None:
        super().__init__([[("Rotate", 0.0, 20.0), ("Brightness", 0.5, 1.5)], [("Solarize", 0.3, 0.7)]])

    def compose_subpolicy_sequential(self, subpolicy):  # noqa: ANN001, ANN201
        return KAuto.PolicySequential(*[getattr(KOps, name)(initial_probability=1.0, magnitude_range=(low, high)) for name, low, high in subpolicy])

    def get_forward_sequence(self, params=None):  # noqa: ANN001, ANN201
        if params is None:
            return iter(list(self.named_children()))
        return self.get_children_by_params(params)

    def forward_parameters(self, batch_shape):  # noqa: ANN001, ANN201
        return [ParamItem(name, module.forward_parameters(batch_shape)) for name, module in self.get_forward_sequence()]


class _FixedOrderSequential(ImageSequentialBase):
    """Custom ImageSequentialBase: all children, always in the given order."""

    def identity_matrix(self, input):  # noqa: ANN001, ANN201
        return torch.eye(3, dtype=input.dtype, device=input.device).expand(input.shape[0], 3, 3)

    def get_forward_sequence(self, params=None):  # noqa: ANN001, ANN201
        if params is None:
            return iter(list(self.named_children()))
        return self.get_children_by_params(params)

    def forward_parameters(self, batch_shape):  # noqa: ANN001, ANN201
        return [ParamItem(name, module.forward_parameters(batch_shape)) for name, module in self.get_forward_sequence()]


def add_base_pair(name: str, base: type, make: Callable[[], nn.Module], data: Sequence[torch.Tensor], note: str) -> None:
    """add_pair for a base class probed through a custom subclass: the page links the base class."""
    aug = make()
    params = sample_params(aug, data[0].shape)
    template, tensors, paths = split_params(params, SHAPE_KEYS)
    full_note = f"custom subclass ({note}); " + _param_note(paths)
    CASES.append(case(name, GBASE, WithParams(aug, template, len(data), base), [*data, *tensors], note=full_note,
                      fresh_inputs=fresh_replay(name, make, None, PARAM_SEED, None, data, template, tensors)))
    CASES.append(
        case(
            f"{name}[random]",
            GBASE,
            ModuleCall(make(), lambda m, *xs: m(*xs), base),
            list(data),
            note=f"custom subclass ({note}); parameters sampled inside the graph",
            check=False,
            tags=("random",),
        )
    )


add_base_pair("AugmentationBase2D", KA.AugmentationBase2D, _Gain2D, [images()], "gain in [0.5, 1.5]")
add_base_pair("IntensityAugmentationBase2D", KA.IntensityAugmentationBase2D, _IntensityGain2D, [images()], "gain in [0.5, 1.5]")
add_base_pair("GeometricAugmentationBase2D", KA.GeometricAugmentationBase2D, _Shift2D, [images()], "translation in [-3, 3] px, warp_affine")
add_base_pair("RigidAffineAugmentationBase2D", KA.RigidAffineAugmentationBase2D, _RigidShift2D, [images()], "translation in [-3, 3] px, warp_affine")
add_base_pair("AugmentationBase3D", KA.AugmentationBase3D, _Gain3D, [volumes()], "gain in [0.5, 1.5]")
add_base_pair("IntensityAugmentationBase3D", KA.IntensityAugmentationBase3D, _IntensityGain3D, [volumes()], "gain in [0.5, 1.5]")
add_base_pair("GeometricAugmentationBase3D", KA.GeometricAugmentationBase3D, _Shift3D, [volumes()], "translation in [-3, 3] voxels, warp_affine3d")
add_base_pair("RigidAffineAugmentationBase3D", KA.RigidAffineAugmentationBase3D, _RigidShift3D, [volumes()], "translation in [-3, 3] voxels, warp_affine3d")
add_base_pair("MixAugmentationBaseV2", KA.MixAugmentationBaseV2, _RollBlend, [images()], "blend with the next image by a weight in [0.2, 0.8]")
add_base_pair("PolicyAugmentBase", KAuto.PolicyAugmentBase, _AllSubPolicies, [images()], "two sub-policies of kornia operations, both applied")
add_base_pair(
    "ImageSequentialBase",
    ImageSequentialBase,
    lambda: _FixedOrderSequential(KA.RandomBrightness((0.7, 1.3), p=1.0), KA.RandomAffine(15.0, p=1.0)),
    [images()],
    "RandomBrightness then RandomAffine, fixed order",
)

# ----------------------------------------------------------------------------------------------------------
# presets
# ----------------------------------------------------------------------------------------------------------


def _ada() -> nn.Module:
    from kornia.augmentation.presets.ada import AdaptiveDiscriminatorAugmentation

    return AdaptiveDiscriminatorAugmentation(initial_p=0.8, max_p=0.8)


add_pair(
    "presets.AdaptiveDiscriminatorAugmentation",
    "augmentation.presets",
    _ada,
    [images()],
    note="default augmentation list, p=0.8",
)

# ----------------------------------------------------------------------------------------------------------
# random generators: the parameter samplers behind every augmentation. They take a batch shape (a Python
# tuple, baked in) and no tensor, so the graph has no inputs and its output is random: check=False.
# ----------------------------------------------------------------------------------------------------------

GGEN = "augmentation.random_generator"
IMAGE_SHAPE = (2, 3, 32, 40)
VOLUME_SHAPE = (2, 1, 8, 16, 16)

_GENERATORS = [
    ("AffineGenerator", lambda: KRG.AffineGenerator(15.0, (0.1, 0.1), (0.8, 1.2), 10.0), IMAGE_SHAPE),
    ("AffineGenerator3D", lambda: KRG.AffineGenerator3D(15.0, (0.1, 0.1, 0.1), (0.8, 1.2), 5.0), VOLUME_SHAPE),
    ("ChannelDropoutGenerator", lambda: KRG.ChannelDropoutGenerator(1), IMAGE_SHAPE),
    ("ChannelShuffleGenerator", lambda: KRG.ChannelShuffleGenerator(), IMAGE_SHAPE),
    ("ColorJiggleGenerator", lambda: KRG.ColorJiggleGenerator(0.3, 0.3, 0.3, 0.1), IMAGE_SHAPE),
    ("ColorJitterGenerator", lambda: KRG.ColorJitterGenerator(0.3, 0.3, 0.3, 0.1), IMAGE_SHAPE),
    ("CropGenerator", lambda: KRG.CropGenerator((24, 32)), IMAGE_SHAPE),
    ("CropGenerator3D", lambda: KRG.CropGenerator3D((6, 12, 12)), VOLUME_SHAPE),
    ("CutmixGenerator", lambda: KRG.CutmixGenerator(num_mix=2), IMAGE_SHAPE),
    ("GaussianIlluminationGenerator", lambda: KRG.GaussianIlluminationGenerator((0.01, 0.15), (0.1, 0.9), (0.2, 1.0), (-1.0, 1.0)), IMAGE_SHAPE),
    ("GaussianNoiseGenerator", lambda: KRG.GaussianNoiseGenerator(0.0, 0.1), IMAGE_SHAPE),
    ("JPEGGenerator", lambda: KRG.JPEGGenerator((20.0, 80.0)), IMAGE_SHAPE),
    ("JigsawGenerator", lambda: KRG.JigsawGenerator((2, 2)), IMAGE_SHAPE),
    ("LinearCornerIlluminationGenerator", lambda: KRG.LinearCornerIlluminationGenerator((0.01, 0.2), (-1.0, 1.0)), IMAGE_SHAPE),
    ("LinearIlluminationGenerator", lambda: KRG.LinearIlluminationGenerator((0.01, 0.2), (-1.0, 1.0)), IMAGE_SHAPE),
    ("MixupGenerator", lambda: KRG.MixupGenerator(), IMAGE_SHAPE),
    ("MosaicGenerator", lambda: KRG.MosaicGenerator((32, 40)), IMAGE_SHAPE),
    ("MotionBlurGenerator", lambda: KRG.MotionBlurGenerator(5, 35.0, 0.5), IMAGE_SHAPE),
    ("MotionBlurGenerator3D", lambda: KRG.MotionBlurGenerator3D(3, 35.0, 0.5), VOLUME_SHAPE),
    ("PatchMixGenerator", lambda: KRG.PatchMixGenerator(patch_size=8), IMAGE_SHAPE),
    ("PerspectiveGenerator", lambda: KRG.PerspectiveGenerator(0.3), IMAGE_SHAPE),
    ("PerspectiveGenerator3D", lambda: KRG.PerspectiveGenerator3D(0.3), VOLUME_SHAPE),
    ("PlainUniformGenerator", lambda: KRG.PlainUniformGenerator(((0.5, 1.5), "gain", None, None), ((-1.0, 1.0), "shift", 0.0, (-2.0, 2.0))), IMAGE_SHAPE),
    ("PlanckianJitterGenerator", lambda: KRG.PlanckianJitterGenerator([0.0, 24.0]), IMAGE_SHAPE),
    ("PosterizeGenerator", lambda: KRG.PosterizeGenerator((1.0, 5.0)), IMAGE_SHAPE),
    ("ProbabilityGenerator", lambda: KRG.ProbabilityGenerator(0.5), IMAGE_SHAPE),
    ("RainGenerator", lambda: KRG.RainGenerator((20, 40), (3, 8), (-3, 3)), IMAGE_SHAPE),
    ("RandomGaussianBlurGenerator", lambda: KRG.RandomGaussianBlurGenerator((0.5, 2.0)), IMAGE_SHAPE),
    ("RectangleEraseGenerator", lambda: KRG.RectangleEraseGenerator((0.05, 0.3), (0.5, 2.0)), IMAGE_SHAPE),
    ("ResizeGenerator", lambda: KRG.ResizeGenerator((24, 36)), IMAGE_SHAPE),
    ("ResizedCropGenerator", lambda: KRG.ResizedCropGenerator((24, 32), (0.3, 1.0), (0.75, 1.333)), IMAGE_SHAPE),
    ("RotationGenerator3D", lambda: KRG.RotationGenerator3D(15.0), VOLUME_SHAPE),
    ("SaltAndPepperGenerator", lambda: KRG.SaltAndPepperGenerator((0.01, 0.06), (0.4, 0.6)), IMAGE_SHAPE),
    ("ShearGenerator", lambda: KRG.ShearGenerator(10.0), IMAGE_SHAPE),
    ("TranslateGenerator", lambda: KRG.TranslateGenerator((0.1, 0.2), (0.1, 0.2)), IMAGE_SHAPE),
]
for _name, _make, _shape in _GENERATORS:
    CASES.append(
        case(
            _name,
            GGEN,
            _make(),
            [],
            kwargs={"batch_shape": _shape, "same_on_batch": False},
            note=f"samples the parameters for a batch of shape {_shape}; no tensor input",
            check=False,
            tags=("random",),
        )
    )
class _SampleDistribution(nn.Module):
    """Builds the distribution from its parameter tensors (graph inputs) and calls ``rsample(shape)``.

    The distribution is built inside ``forward`` rather than held as the target: DistributionWithMapper's
    ``__getattr__`` recurses without end on any missing attribute (``hasattr``, ``copy.deepcopy``).
    """

    def __init__(self, build: Callable[[torch.Tensor, torch.Tensor], Any], shape: tuple, target: Any) -> None:
        super().__init__()
        self._build = build
        self._shape = shape
        self.__opsweep_target__ = target

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self._build(a, b).rsample(self._shape)


def _normal_sigmoid(loc: torch.Tensor, scale: torch.Tensor) -> Any:
    return KRG.DistributionWithMapper(torch.distributions.Normal(loc, scale), map_fn=torch.sigmoid)


def _uniform(low: torch.Tensor, high: torch.Tensor) -> Any:
    return KRG.UniformDistribution(low, high)


CASES.append(
    case(
        "DistributionWithMapper",
        GGEN,
        _SampleDistribution(_normal_sigmoid, (2, 5), KRG.DistributionWithMapper),
        [torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.5])],
        note="Normal(loc, scale) mapped through sigmoid, rsample((2, 5)); loc and scale are inputs",
        check=False,
        tags=("random",),
    )
)
CASES.append(
    case(
        "UniformDistribution",
        GGEN,
        _SampleDistribution(_uniform, (2, 5), KRG.UniformDistribution),
        [torch.tensor([-1.0, 0.0]), torch.tensor([1.0, 0.5])],
        note="Uniform(low, high), rsample((2, 5)); low and high are inputs",
        check=False,
        tags=("random",),
    )
)

CASES.append(
    case(
        "center_crop_generator",
        GGEN,
        KRG.center_crop_generator,
        [],
        kwargs={"batch_size": 2, "height": 32, "width": 40, "size": (24, 32)},
        note="deterministic crop boxes for a (24, 32) center crop of 32x40 images; integer arguments only",
    )
)
CASES.append(
    case(
        "center_crop_generator3d",
        GGEN,
        KRG.center_crop_generator3d,
        [],
        kwargs={"batch_size": 2, "depth": 8, "height": 16, "width": 16, "size": (6, 12, 12)},
        note="deterministic crop boxes for a (6, 12, 12) center crop of 8x16x16 volumes; integer arguments only",
    )
)

# ----------------------------------------------------------------------------------------------------------
# deliberately not surveyed (read by opsweep.coverage)
# ----------------------------------------------------------------------------------------------------------

NOT_SURVEYED = {}
NOT_SURVEYED["kornia.augmentation.utils.deepcopy_dict"] = "copies a Python dict of parameters; not a tensor operator"
NOT_SURVEYED["kornia.augmentation.utils.override_parameters"] = "merges Python dicts of parameters; not a tensor operator"
NOT_SURVEYED["kornia.augmentation.random_generator.is_exporting"] = (
    "kornia.core.utils.is_exporting re-exported here: returns a Python bool (is a torch.export/ONNX trace running)"
)
