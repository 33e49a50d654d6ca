"""torchvision.transforms (v1): the tensor functional API and the transform classes, on a plain
image tensor (v1 knows no tv_tensors). The arguments are v2's (cases_v2_functional.OPS): the
same operation at the same values, so v1 and v2 verdicts can be read side by side. What works on
PIL images only, or gives no tensor, is in NOT_SURVEYED with why."""

from __future__ import annotations

import inspect

import torch
import torchvision.transforms as T1
import torchvision.transforms.functional as F1

from opsweep import case

from opsweep_suites.torchvision._common import image, image_uint8
from opsweep_suites.torchvision.cases_v2_functional import OPS

G = "transforms.v1.functional"
GC = "transforms.v1"
V2_NAME = {"hflip": "horizontal_flip", "vflip": "vertical_flip", "elastic_transform": "elastic"}
FUNCTIONS = ["adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
             "adjust_sharpness", "affine", "autocontrast", "center_crop", "crop", "elastic_transform", "equalize",
             "erase", "five_crop", "gaussian_blur", "hflip", "invert", "normalize", "pad", "perspective", "posterize",
             "resize", "resized_crop", "rgb_to_grayscale", "rotate", "solarize", "ten_crop", "vflip"]

CASES = []
for name in FUNCTIONS:
    fn = getattr(F1, name)
    spec = OPS[V2_NAME.get(name, name)]
    params = inspect.signature(fn).parameters
    kw = {k: v for k, v in spec["kw"].items() if k in params}
    extra = list(spec.get("extra", []))
    x = image_uint8() if spec.get("uint8") or name == "equalize" else image()  # v1 equalizes uint8 only
    CASES.append(case(f"v1.{name}", G, fn, [x, *extra], kwargs=kw))
CASES.append(case("v1.convert_image_dtype", G, F1.convert_image_dtype, [image_uint8()], kwargs={"dtype": torch.float32}))

# (name, transform, uint8 input, check)
CLASSES = [
    ("Resize", T1.Resize([24, 20]), False, True),
    ("CenterCrop", T1.CenterCrop(20), False, True),
    ("Pad", T1.Pad([2, 3, 4, 1]), False, True),
    ("FiveCrop", T1.FiveCrop(16), False, True),
    ("TenCrop", T1.TenCrop(16), False, True),
    ("Normalize", T1.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3]), False, True),
    ("Grayscale", T1.Grayscale(), False, True),
    ("ConvertImageDtype", T1.ConvertImageDtype(torch.float32), True, True),
    ("GaussianBlur", T1.GaussianBlur(5, sigma=(1.2, 1.2)), False, True),
    ("LinearTransformation", T1.LinearTransformation(torch.eye(3 * 32 * 32) * 0.5, torch.zeros(3 * 32 * 32)), False, True),
    ("Compose", T1.Compose([T1.Resize([24, 24]), T1.CenterCrop(20)]), False, True),
    ("RandomHorizontalFlip[p=1]", T1.RandomHorizontalFlip(p=1.0), False, True),
    ("RandomVerticalFlip[p=1]", T1.RandomVerticalFlip(p=1.0), False, True),
    ("RandomInvert[p=1]", T1.RandomInvert(p=1.0), False, True),
    ("RandomAutocontrast[p=1]", T1.RandomAutocontrast(p=1.0), False, True),
    ("RandomEqualize[p=1]", T1.RandomEqualize(p=1.0), True, True),
    ("RandomSolarize[p=1]", T1.RandomSolarize(0.6, p=1.0), False, True),
    ("RandomPosterize[p=1]", T1.RandomPosterize(3, p=1.0), True, True),
    ("RandomAdjustSharpness[p=1]", T1.RandomAdjustSharpness(2.0, p=1.0), False, True),
    ("RandomGrayscale[p=1]", T1.RandomGrayscale(p=1.0), False, True),
    ("RandomRotation[fixed]", T1.RandomRotation((30, 30)), False, True),
    ("RandomAffine[fixed]", T1.RandomAffine((15, 15)), False, True),
    ("RandomHorizontalFlip[random]", T1.RandomHorizontalFlip(), False, False),
    ("RandomVerticalFlip[random]", T1.RandomVerticalFlip(), False, False),
    ("RandomCrop[random]", T1.RandomCrop(20), False, False),
    ("RandomResizedCrop[random]", T1.RandomResizedCrop(16), False, False),
    ("RandomRotation[random]", T1.RandomRotation(30), False, False),
    ("RandomAffine[random]", T1.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1)), False, False),
    ("RandomPerspective[random]", T1.RandomPerspective(p=1.0), False, False),
    ("ElasticTransform[random]", T1.ElasticTransform(), False, False),
    ("ColorJitter[random]", T1.ColorJitter(0.3, 0.3, 0.3, 0.1), False, False),
    ("RandomErasing[random]", T1.RandomErasing(p=1.0), False, False),
    ("RandomGrayscale[random]", T1.RandomGrayscale(), False, False),
    ("RandomInvert[random]", T1.RandomInvert(), False, False),
    ("RandomPosterize[random]", T1.RandomPosterize(3), True, False),
    ("RandomSolarize[random]", T1.RandomSolarize(0.6), False, False),
    ("RandomAdjustSharpness[random]", T1.RandomAdjustSharpness(2.0), False, False),
    ("RandomAutocontrast[random]", T1.RandomAutocontrast(), False, False),
    ("RandomEqualize[random]", T1.RandomEqualize(), True, False),
    ("AutoAugment[random]", T1.AutoAugment(), True, False),
    ("RandAugment[random]", T1.RandAugment(), True, False),
    ("TrivialAugmentWide[random]", T1.TrivialAugmentWide(), True, False),
    ("AugMix[random]", T1.AugMix(), True, False),
    ("RandomApply[random]", T1.RandomApply([T1.GaussianBlur(3, sigma=(1.0, 1.0))], p=0.5), False, False),
    ("RandomChoice[random]", T1.RandomChoice([T1.RandomHorizontalFlip(p=1.0), T1.RandomVerticalFlip(p=1.0)]), False, False),
    ("RandomOrder[random]", T1.RandomOrder([T1.Pad(2), T1.CenterCrop(20)]), False, False),
]
for name, transform, u8, check in CLASSES:
    CASES.append(case(f"v1.{name}", GC, transform, [image_uint8() if u8 else image()], check=check))

_PIL = "works on PIL images (or converts to or from them): no tensor graph to capture"
_NO_TENSOR = "returns Python numbers or sizes, not tensors"
NOT_SURVEYED = {
    "torchvision.transforms.functional.to_grayscale": _PIL,
    "torchvision.transforms.functional.pil_to_tensor": _PIL,
    "torchvision.transforms.functional.to_pil_image": _PIL,
    "torchvision.transforms.functional.to_tensor": _PIL,
    "torchvision.transforms.PILToTensor": _PIL,
    "torchvision.transforms.ToPILImage": _PIL,
    "torchvision.transforms.ToTensor": _PIL,
    "torchvision.transforms.functional.get_dimensions": _NO_TENSOR,
    "torchvision.transforms.functional.get_image_num_channels": _NO_TENSOR,
    "torchvision.transforms.functional.get_image_size": _NO_TENSOR,
    "torchvision.transforms.Lambda": "calls the user's function: what it captures is that function's",
}
