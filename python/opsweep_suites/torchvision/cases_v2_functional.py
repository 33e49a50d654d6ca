"""torchvision.transforms.v2.functional: every kernel for each input type it takes, and every
dispatcher on each tv_tensor it dispatches for.

One table (OPS) gives each operation's arguments once; the kernels are found by name
(``<op>_image``, ``_video``, ``_mask``, ``_bounding_boxes``, ``_keypoints``) and get the
arguments their signature takes, plus ``format`` and ``canvas_size`` for boxes and key points.
Bounding-box kernels and dispatchers are surveyed in every format (axis-aligned and rotated).
Tensor arguments (erase's value, elastic's displacement) are graph inputs like the image."""

from __future__ import annotations

import inspect

import torch
import torchvision.transforms.v2.functional as F
from torchvision import tv_tensors

from opsweep import case
from opsweep.toolkit import rand

from opsweep_suites.torchvision._common import (CANVAS, FORMATS, AsTVTensor, boxes, image, image_uint8, keypoints,
                                                mask, video)

G = "transforms.v2.functional"
_QUAD = [[0, 0], [31, 0], [31, 31], [0, 31]]
_QUAD2 = [[2, 1], [29, 3], [30, 28], [1, 30]]
_DISPLACEMENT = rand(1, 32, 32, 2, seed=40, low=-0.05, high=0.05)

# op -> (its arguments, the extra tensor inputs, which input kinds its dispatcher takes, uint8 images)
OPS: dict[str, dict] = {
    "resize": {"kw": {"size": [24, 20]}},
    "rotate": {"kw": {"angle": 30.0}},
    "affine": {"kw": {"angle": 15.0, "translate": [2.0, 3.0], "scale": 0.9, "shear": [5.0, 0.0]}},
    "perspective": {"kw": {"startpoints": _QUAD, "endpoints": _QUAD2}},
    "elastic": {"kw": {}, "extra": [_DISPLACEMENT], "extra_names": ["displacement"]},
    "crop": {"kw": {"top": 4, "left": 2, "height": 20, "width": 24}},
    "center_crop": {"kw": {"output_size": [20, 20]}},
    "resized_crop": {"kw": {"top": 2, "left": 3, "height": 20, "width": 22, "size": [16, 16]}},
    "pad": {"kw": {"padding": [2, 3, 4, 1]}},
    "horizontal_flip": {"kw": {}},
    "vertical_flip": {"kw": {}},
    "five_crop": {"kw": {"size": [16, 16]}},
    "ten_crop": {"kw": {"size": [16, 16]}},
    "adjust_brightness": {"kw": {"brightness_factor": 1.3}},
    "adjust_contrast": {"kw": {"contrast_factor": 0.7}},
    "adjust_gamma": {"kw": {"gamma": 1.5}},
    "adjust_hue": {"kw": {"hue_factor": 0.1}},
    "adjust_saturation": {"kw": {"saturation_factor": 1.4}},
    "adjust_sharpness": {"kw": {"sharpness_factor": 2.0}},
    "autocontrast": {"kw": {}},
    "equalize": {"kw": {}},
    "invert": {"kw": {}},
    "permute_channels": {"kw": {"permutation": [2, 0, 1]}},
    "posterize": {"kw": {"bits": 3}, "uint8": True},
    "solarize": {"kw": {"threshold": 0.6}},
    "rgb_to_grayscale": {"kw": {"num_output_channels": 1}},
    "grayscale_to_rgb": {"kw": {}, "channels": 1},
    "erase": {"kw": {"i": 2, "j": 3, "h": 10, "w": 8, "v": torch.tensor(0.25)}},
    "jpeg": {"kw": {"quality": 50}, "uint8": True},
    "gaussian_blur": {"kw": {"kernel_size": [5, 5], "sigma": [1.2, 1.2]}},
    "gaussian_noise": {"kw": {"mean": 0.0, "sigma": 0.1}, "random": True},
    "normalize": {"kw": {"mean": [0.5, 0.4, 0.3], "std": [0.2, 0.25, 0.3]}},
    "to_dtype": {"kw": {"dtype": torch.float32, "scale": True}, "uint8": True},
    "uniform_temporal_subsample": {"kw": {"num_samples": 2}},
    "clamp_bounding_boxes": {"kw": {"clamping_mode": "soft"}},
    "clamp_keypoints": {"kw": {}},
    "convert_bounding_box_format": {"kw": {}},
}
KINDS = {"image": "Image", "video": "Video", "mask": "Mask", "bounding_boxes": "BoundingBoxes", "keypoints": "KeyPoints"}


def _input(kind: str, spec: dict, fmt: str | None = None) -> torch.Tensor:
    if kind == "image":
        if spec.get("uint8"):
            return image_uint8()
        return image(channels=spec.get("channels", 3))
    if kind == "video":
        return (video() * 255).round().to(torch.uint8) if spec.get("uint8") else video()
    if kind == "mask":
        return mask()
    if kind == "keypoints":
        return keypoints()
    return boxes(fmt or "XYXY")


def _kernel_kwargs(fn, spec: dict, kind: str, fmt: str | None) -> dict:
    """The op's arguments that ``fn``'s signature takes, with format and canvas_size."""
    params = inspect.signature(fn).parameters
    kw = {k: v for k, v in spec["kw"].items() if k in params}
    if "canvas_size" in params:
        kw["canvas_size"] = CANVAS
    if "format" in params and kind == "bounding_boxes":
        kw["format"] = getattr(tv_tensors.BoundingBoxFormat, fmt or "XYXY")
    if "old_format" in params:  # to another format of the same family (rotated formats convert among themselves)
        kw["old_format"] = getattr(tv_tensors.BoundingBoxFormat, fmt or "XYXY")
        other = {"XYXY": "CXCYWH", "XYWH": "XYXY", "CXCYWH": "XYXY", "XYWHR": "CXCYWHR", "CXCYWHR": "XYXYXYXY",
                 "XYXYXYXY": "XYWHR"}[fmt or "XYXY"]
        kw["new_format"] = getattr(tv_tensors.BoundingBoxFormat, other)
    return kw


def _tensor_args(fn, spec: dict) -> tuple[list, dict]:
    """The op's extra tensors: graph inputs where the kernel takes them right after its input,
    else (a boxes or key-points kernel, whose format and canvas come first) baked by name."""
    extra = list(spec.get("extra", []))
    names = spec.get("extra_names", [])
    params = list(inspect.signature(fn).parameters)
    if not extra or params[1:1 + len(names)] == names:
        return extra, {}
    return [], dict(zip(names, extra))


CASES = []
for op, spec in OPS.items():
    extra = list(spec.get("extra", []))
    check = not spec.get("random", False)
    suffix = "[random]" if not check else ""
    dispatcher = getattr(F, op, None)
    # the kernels, one per input kind (boxes in every format)
    for kind, tv_kind in KINDS.items():
        kernel = getattr(F, f"{op}_{kind}", None)
        if kernel is None and kind == "bounding_boxes" and op in ("clamp_bounding_boxes", "convert_bounding_box_format"):
            kernel = dispatcher  # these act on boxes only: the function is the kernel
        if kernel is None and kind == "keypoints" and op == "clamp_keypoints":
            kernel = dispatcher
        if kernel is None:
            continue
        for fmt in (FORMATS if kind == "bounding_boxes" else (None,)):
            name = f"{op}_{kind}" if kernel is not dispatcher else op
            name += f"[{fmt}]" if fmt and fmt != "XYXY" else ""
            live, baked = _tensor_args(kernel, spec)
            CASES.append(case(name + suffix, G, kernel, [_input(kind, spec, fmt), *live],
                              kwargs={**_kernel_kwargs(kernel, spec, kind, fmt), **baked}, check=check))
    # the dispatcher on each tv_tensor it has a kernel for, and on a plain tensor
    if dispatcher is None or op in ("clamp_bounding_boxes", "convert_bounding_box_format", "clamp_keypoints"):
        continue
    kw = dict(spec["kw"])
    for kind, tv_kind in KINDS.items():
        if getattr(F, f"{op}_{kind}", None) is None:
            continue
        for fmt in (FORMATS if kind == "bounding_boxes" else (None,)):
            name = f"{op}[{tv_kind}{'-' + fmt if fmt else ''}]" + suffix
            CASES.append(case(name, G, AsTVTensor(dispatcher, tv_kind, fmt, **kw),
                              [_input(kind, spec, fmt), *extra], check=check))
    if getattr(F, f"{op}_image", None) is not None:
        CASES.append(case(f"{op}{suffix}", G, dispatcher, [_input("image", spec), *extra], kwargs=kw, check=check))
