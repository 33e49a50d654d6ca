"""torchvision.transforms.v2: the transform classes, on an image (and on boxes, a mask or key points
where the class exists for them). A class that samples its parameters is surveyed as ``[random]``
(``check=False``: outputs compared for count, shape and finiteness, randomness checked to survive
the capture); where fixed arguments make it deterministic (p=1, a one-value range) it is also
surveyed compared value by value."""

from __future__ import annotations

import torch
import torchvision.transforms.v2 as T
from torchvision.transforms.v2 import functional as F

from opsweep import case

from opsweep_suites.torchvision._common import AsTVTensor, boxes, image, image_uint8, keypoints, mask, video

G = "transforms.v2"


def on(kind, transform, fmt=None):
    """The transform called on the tv_tensor ``kind``; coverage counts its class."""
    return AsTVTensor(transform, kind, fmt)


_img = image()
_u8 = image_uint8()
_box = boxes("XYXY")

# (name, transform, input kind, check): deterministic forms first, then the random ones
TRANSFORMS = [
    ("Resize", T.Resize([24, 20]), "Image", True),
    ("Resize[BoundingBoxes]", T.Resize([24, 20]), "BoundingBoxes", True),
    ("Resize[Mask]", T.Resize([24, 20]), "Mask", True),
    ("CenterCrop", T.CenterCrop(20), "Image", True),
    ("Pad", T.Pad([2, 3, 4, 1]), "Image", True),
    ("FiveCrop", T.FiveCrop(16), "Image", True),
    ("TenCrop", T.TenCrop(16), "Image", True),
    ("Normalize", T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3]), "Image", True),
    ("Grayscale", T.Grayscale(), "Image", True),
    ("RGB", T.RGB(), "Image", True),
    ("ToDtype", T.ToDtype(torch.float32, scale=True), "Image-uint8", True),
    ("ConvertImageDtype", T.ConvertImageDtype(torch.float32), "Image-uint8", True),
    ("GaussianBlur", T.GaussianBlur(5, sigma=(1.2, 1.2)), "Image", True),
    ("JPEG", T.JPEG(50), "Image-uint8", True),
    ("Identity", T.Identity(), "Image", True),
    ("LinearTransformation", T.LinearTransformation(torch.eye(12) * 0.5, torch.zeros(12)), "Image-small", True),
    ("ClampBoundingBoxes", T.ClampBoundingBoxes(), "BoundingBoxes", True),
    ("ConvertBoundingBoxFormat", T.ConvertBoundingBoxFormat("CXCYWH"), "BoundingBoxes", True),
    ("ClampKeyPoints", T.ClampKeyPoints(), "KeyPoints", True),
    ("UniformTemporalSubsample", T.UniformTemporalSubsample(2), "Video", True),
    ("RandomHorizontalFlip[p=1]", T.RandomHorizontalFlip(p=1.0), "Image", True),
    ("RandomVerticalFlip[p=1]", T.RandomVerticalFlip(p=1.0), "Image", True),
    ("RandomInvert[p=1]", T.RandomInvert(p=1.0), "Image", True),
    ("RandomAutocontrast[p=1]", T.RandomAutocontrast(p=1.0), "Image", True),
    ("RandomEqualize[p=1]", T.RandomEqualize(p=1.0), "Image", True),
    ("RandomSolarize[p=1]", T.RandomSolarize(0.6, p=1.0), "Image", True),
    ("RandomPosterize[p=1]", T.RandomPosterize(3, p=1.0), "Image-uint8", True),
    ("RandomAdjustSharpness[p=1]", T.RandomAdjustSharpness(2.0, p=1.0), "Image", True),
    ("RandomGrayscale[p=1]", T.RandomGrayscale(p=1.0), "Image", True),
    ("RandomRotation[fixed]", T.RandomRotation((30, 30)), "Image", True),
    ("RandomAffine[fixed]", T.RandomAffine((15, 15)), "Image", True),
    ("RandomHorizontalFlip[random]", T.RandomHorizontalFlip(), "Image", False),
    ("RandomVerticalFlip[random]", T.RandomVerticalFlip(), "Image", False),
    ("RandomCrop[random]", T.RandomCrop(20), "Image", False),
    ("RandomResizedCrop[random]", T.RandomResizedCrop(16), "Image", False),
    ("RandomRotation[random]", T.RandomRotation(30), "Image", False),
    ("RandomAffine[random]", T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1)), "Image", False),
    ("RandomAffine[random,BoundingBoxes]", T.RandomAffine(15), "BoundingBoxes", False),
    ("RandomPerspective[random]", T.RandomPerspective(p=1.0), "Image", False),
    ("ElasticTransform[random]", T.ElasticTransform(), "Image", False),
    ("ColorJitter[random]", T.ColorJitter(0.3, 0.3, 0.3, 0.1), "Image", False),
    ("RandomPhotometricDistort[random]", T.RandomPhotometricDistort(), "Image", False),
    ("RandomChannelPermutation[random]", T.RandomChannelPermutation(), "Image", False),
    ("RandomErasing[random]", T.RandomErasing(p=1.0), "Image", False),
    ("GaussianNoise[random]", T.GaussianNoise(), "Image", False),
    ("RandomGrayscale[random]", T.RandomGrayscale(), "Image", False),
    ("RandomInvert[random]", T.RandomInvert(), "Image", False),
    ("RandomPosterize[random]", T.RandomPosterize(3), "Image-uint8", False),
    ("RandomSolarize[random]", T.RandomSolarize(0.6), "Image", False),
    ("RandomAdjustSharpness[random]", T.RandomAdjustSharpness(2.0), "Image", False),
    ("RandomAutocontrast[random]", T.RandomAutocontrast(), "Image", False),
    ("RandomEqualize[random]", T.RandomEqualize(), "Image", False),
    ("RandomZoomOut[random]", T.RandomZoomOut(p=1.0), "Image", False),
    ("RandomResize[random]", T.RandomResize(16, 40), "Image", False),
    ("RandomShortestSize[random]", T.RandomShortestSize([16, 24, 28]), "Image", False),
    ("ScaleJitter[random]", T.ScaleJitter((32, 32)), "Image", False),
    ("AutoAugment[random]", T.AutoAugment(), "Image-uint8", False),
    ("RandAugment[random]", T.RandAugment(), "Image-uint8", False),
    ("TrivialAugmentWide[random]", T.TrivialAugmentWide(), "Image-uint8", False),
    ("AugMix[random]", T.AugMix(), "Image-uint8", False),
    ("ToImage", T.ToImage(), "Image", True),
    ("ToPureTensor", T.ToPureTensor(), "Image", True),
    ("SetClampingMode", T.SetClampingMode("hard"), "BoundingBoxes", True),
    ("SanitizeBoundingBoxes", T.SanitizeBoundingBoxes(labels_getter=None), "BoundingBoxes", True),
    ("SanitizeKeyPoints", T.SanitizeKeyPoints(), "KeyPoints", True),
    ("Compose", T.Compose([T.Resize([24, 24]), T.CenterCrop(20), T.Normalize([0.5] * 3, [0.25] * 3)]), "Image", True),
    ("RandomApply[random]", T.RandomApply([T.GaussianBlur(3, sigma=(1.0, 1.0))], p=0.5), "Image", False),
    ("RandomChoice[random]", T.RandomChoice([T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)]), "Image", False),
    ("RandomOrder[random]", T.RandomOrder([T.Pad(2), T.CenterCrop(20)]), "Image", False),
]


def _input(kind):
    if kind == "Image-uint8":
        return "Image", _u8
    if kind == "Image-small":
        return "Image", image()[:, :, :2, :2].contiguous()
    if kind == "Video":
        return "Video", video()
    if kind == "Mask":
        return "Mask", mask()
    if kind == "BoundingBoxes":
        return "BoundingBoxes", _box
    if kind == "KeyPoints":
        return "KeyPoints", keypoints()
    return "Image", _img


CASES = []
for name, transform, kind, check in TRANSFORMS:
    tv_kind, x = _input(kind)
    CASES.append(case(name, G, on(tv_kind, transform, "XYXY" if tv_kind == "BoundingBoxes" else None), [x],
                      check=check))

# the batch transforms: images and their labels (int64), mixed within the batch
CASES.append(case("CutMix[random]", G, AsTVTensor(T.CutMix(num_classes=3), "Image"),
                  [image(seed=8).expand(4, 3, 32, 32).contiguous() * torch.linspace(0.5, 1.0, 4).view(4, 1, 1, 1),
                   torch.tensor([0, 1, 2, 1])], check=False))
CASES.append(case("MixUp[random]", G, AsTVTensor(T.MixUp(num_classes=3), "Image"),
                  [image(seed=9).expand(4, 3, 32, 32).contiguous() * torch.linspace(0.5, 1.0, 4).view(4, 1, 1, 1),
                   torch.tensor([0, 1, 2, 1])], check=False))
# what the functional API does to a plain tensor or the boxes' bookkeeping
CASES.append(case("convert_image_dtype", "transforms.v2.functional", F.convert_image_dtype, [_u8],
                  kwargs={"dtype": torch.float32}))
CASES.append(case("to_image", "transforms.v2.functional", F.to_image, [_img]))
CASES.append(case("sanitize_bounding_boxes", "transforms.v2.functional", F.sanitize_bounding_boxes,
                  [torch.tensor([[2.0, 3.0, 20.0, 24.0], [10.0, 8.0, 10.5, 30.0], [5.0, 12.0, 15.0, 19.0]])],
                  kwargs={"format": "XYXY", "canvas_size": (32, 32), "min_size": 1.0},
                  fresh_inputs="box validity is the point: a redraw makes boxes with x1 > x2"))
CASES.append(case("sanitize_keypoints", "transforms.v2.functional", F.sanitize_keypoints,
                  [torch.tensor([[2.0, 3.0], [40.0, 8.0], [5.0, 12.0]])], kwargs={"canvas_size": (32, 32)}))
for kind, fmt in (("Image", None), ("Video", None), ("Mask", None), ("BoundingBoxes", "XYXY"), ("KeyPoints", None)):
    from torchvision import tv_tensors as _tv

    x = {"Image": _img, "Video": video(), "Mask": mask(), "BoundingBoxes": _box, "KeyPoints": keypoints()}[kind]
    kw = {"format": fmt, "canvas_size": (32, 32)} if kind == "BoundingBoxes" else (
        {"canvas_size": (32, 32)} if kind == "KeyPoints" else {})
    CASES.append(case(f"tv_tensors.{kind}", "tv_tensors", getattr(_tv, kind), [x], kwargs=kw))
