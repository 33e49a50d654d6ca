"""kornia.enhance (intensity adjustments, histograms, normalisation, ZCA, JPEG) and kornia.morphology.

Each adjustment has its plain form (a Python factor baked in), a per-sample factor given as a tensor
(a graph input: the form augmentation pipelines use) where the API accepts one, and its nn.Module twin.
Every morphology operator has its plain default form (3x3 flat kernel of ones, geodesic border, engine
"auto"), then structuring element, border, origin and engine variants.

Not surveyed:
    kornia.enhance.ThresholdType  an enum; surveyed as the `type` argument of threshold / Threshold.

threshold / Threshold with THRESH_OTSU raise NotImplementedError in kornia 0.9.0 whatever the input: their
cases (valid inputs) record that at the eager step. Otsu thresholding is surveyed as filters.otsu_threshold.
"""

from __future__ import annotations

import math

import torch
from torch import nn

import kornia.color as KC
import kornia.enhance as KE
import kornia.morphology as KM
from kornia.enhance import ThresholdType

from opsweep_suites.kornia._common import ByName, batch, case, detector_image, gray, img, rand, randn, structured, twin, volume

GE = "enhance"
GM = "morphology"

NOT_SURVEYED: dict = {}  # ThresholdType is an enum (a type, not counted); surveyed as threshold's `type` argument


class _ZCAFitted(nn.Module):
    """ZCAWhitening fitted once (at registry build time) on a seeded data matrix; forward whitens new data,
    or with `inverse=True` maps whitened data back (inverse_transform)."""

    __opsweep_target__ = KE.ZCAWhitening

    def __init__(self, fit_data, inverse=False, **kw):
        super().__init__()
        self.zca = KE.ZCAWhitening(compute_inv=inverse, **kw).fit(fit_data)
        self.inverse = inverse

    def forward(self, x, include_fit: bool = False):
        if self.inverse:
            return self.zca.inverse_transform(x)
        return self.zca(x, include_fit=include_fit)


IMG = img()
BATCH = batch()
VOL = volume()
HSV = KC.rgb_to_hsv(img(50)).contiguous()
RGB255 = (img(56) * 255.0).contiguous()
DATA = randn(64, 12, seed=51)  # 64 samples of 12 features, for ZCA
DATA_T = randn(64, 12, seed=52)
F2 = torch.tensor([0.3, 0.7])  # a per-sample factor for the batch of two
KER = torch.ones(3, 3)
# a 0/1 structuring element (the second value: the diagonal cross)
KER_CROSS = structured(torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]),
                       torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]))
SE = (randn(3, 3, seed=53, scale=0.1)).contiguous()
# a binary shape image with holes and specks (the second value: another detector image, thresholded alike)
BINARY = twin(lambda second=False: (detector_image(6 + 10_000 * second) > 0.55).float().contiguous())


_IMG_B = img(10_001)  # another image, for the fresh sets of reconstruction
_RECON_FRESH = ((_IMG_B * 0.5).contiguous(), _IMG_B)
KER_CROSS_B = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])


def _morph(op: str, fn):
    n = op
    return [
        case(n, GM, fn, [IMG, KER], note="3x3 flat kernel of ones, geodesic border, engine auto"),
        case(f"{n}[binary]", GM, fn, [BINARY, KER]),
        case(f"{n}[cross]", GM, fn, [IMG, KER_CROSS], note="cross-shaped 3x3 kernel"),
        case(f"{n}[5x5]", GM, fn, [IMG, torch.ones(5, 5)]),
        case(f"{n}[structuring_element]", GM, fn, [IMG, KER, SE], note="non-flat (grayscale) structuring element"),
        case(f"{n}[border=constant]", GM, fn, [IMG, KER], kwargs={"border_type": "constant", "border_value": 0.5}),
        case(f"{n}[border=reflect]", GM, fn, [IMG, KER], kwargs={"border_type": "reflect"}),
        case(f"{n}[origin]", GM, fn, [IMG, KER], kwargs={"origin": [0, 0]}),
        case(f"{n}[engine=unfold]", GM, fn, [IMG, KER], kwargs={"engine": "unfold"}),
        case(f"{n}[engine=convolution]", GM, fn, [IMG, KER], kwargs={"engine": "convolution"}),
        case(f"{n}[engine=shift]", GM, fn, [IMG, KER], kwargs={"engine": "shift"}),
    ]


def _threshold_cases():
    out = [
        case("threshold", GE, KE.threshold, [IMG], kwargs={"thresh": 0.5, "maxval": 1.0},
             note="THRESH_BINARY"),
    ]
    for t in ThresholdType:
        if t in (ThresholdType.THRESH_BINARY, ThresholdType.THRESH_OTSU):
            continue  # THRESH_BINARY is the plain form above; THRESH_OTSU has its own cases below
        out.append(case(f"threshold[{t.name}]", GE, KE.threshold, [IMG], kwargs={"thresh": 0.5, "maxval": 1.0, "type": t}))
    # THRESH_OTSU is a member of the public ThresholdType, alone or OR-ed with a fixed type as in OpenCV; kornia
    # 0.9.0 raises NotImplementedError for it (documented): recorded at the eager step.
    out.append(case("threshold[THRESH_OTSU]", GE, KE.threshold, [IMG],
                    kwargs={"thresh": 0.5, "maxval": 1.0, "type": ThresholdType.THRESH_OTSU},
                    note=_OTSU_NOTE.format("type=ThresholdType.THRESH_OTSU")))
    out.append(case("threshold[THRESH_TRUNC|THRESH_OTSU]", GE, KE.threshold, [IMG],
                    kwargs={"thresh": 0.5, "maxval": 1.0,
                            "type": int(ThresholdType.THRESH_TRUNC) | int(ThresholdType.THRESH_OTSU)},
                    note=_OTSU_NOTE.format("type=THRESH_TRUNC | THRESH_OTSU (the OpenCV idiom; the signature takes an int)")))
    out.append(case("threshold[thresh=tensor]", GE, KE.threshold, [BATCH, torch.tensor([0.3, 0.6]).view(2, 1, 1, 1)],
                    kwargs={"maxval": 1.0}, note="per-sample threshold as a graph input"))
    out.append(case("Threshold", GE, KE.Threshold(0.5, 1.0), [IMG]))
    out.append(case("Threshold[TRUNC]", GE, KE.Threshold(0.5, 1.0, ThresholdType.THRESH_TRUNC), [IMG]))
    out.append(case("Threshold[OTSU]", GE, KE.Threshold(0.5, 1.0, ThresholdType.THRESH_OTSU), [IMG],
                    note=_OTSU_NOTE.format("Threshold(0.5, 1.0, ThresholdType.THRESH_OTSU); its forward")))
    return out


_OTSU_NOTE = ("{} on a valid 1x3x32x40 image in [0, 1] (thresh 0.5, which Otsu would replace, maxval 1.0): "
              "kornia 0.9.0 raises NotImplementedError (documented under Raises); filters.otsu_threshold is "
              "kornia's Otsu")


CASES = [
    # --- brightness / contrast / gamma -------------------------------------------------------
    case("adjust_brightness", GE, KE.adjust_brightness, [IMG], kwargs={"factor": 0.2}),
    case("adjust_brightness[factor=tensor]", GE, KE.adjust_brightness, [BATCH, F2], note="per-sample factor"),
    case("adjust_brightness[clip_output=False]", GE, KE.adjust_brightness, [IMG], kwargs={"factor": 0.2, "clip_output": False}),
    case("AdjustBrightness", GE, KE.AdjustBrightness(0.2), [IMG]),
    case("AdjustBrightness[factor=tensor]", GE, KE.AdjustBrightness(F2), [BATCH]),
    case("adjust_brightness_accumulative", GE, KE.adjust_brightness_accumulative, [IMG], kwargs={"factor": 0.2}),
    case("adjust_brightness_accumulative[factor=tensor]", GE, KE.adjust_brightness_accumulative, [BATCH, F2]),
    case("AdjustBrightnessAccumulative", GE, KE.AdjustBrightnessAccumulative(0.2), [IMG]),
    case("adjust_contrast", GE, KE.adjust_contrast, [IMG], kwargs={"factor": 0.5}),
    case("adjust_contrast[factor=tensor]", GE, KE.adjust_contrast, [BATCH, torch.tensor([0.5, 1.5])]),
    case("adjust_contrast[clip_output=False]", GE, KE.adjust_contrast, [IMG], kwargs={"factor": 1.5, "clip_output": False}),
    case("AdjustContrast", GE, KE.AdjustContrast(0.5), [IMG]),
    case("adjust_contrast_with_mean_subtraction", GE, KE.adjust_contrast_with_mean_subtraction, [IMG], kwargs={"factor": 0.5}),
    case("adjust_contrast_with_mean_subtraction[factor=tensor]", GE, KE.adjust_contrast_with_mean_subtraction,
         [BATCH, torch.tensor([0.5, 1.5])]),
    case("AdjustContrastWithMeanSubtraction", GE, KE.AdjustContrastWithMeanSubtraction(0.5), [IMG]),
    case("adjust_gamma", GE, KE.adjust_gamma, [IMG], kwargs={"gamma": 2.2}),
    case("adjust_gamma[gain=2]", GE, KE.adjust_gamma, [IMG], kwargs={"gamma": 0.5, "gain": 2.0}),
    case("adjust_gamma[gamma,gain=tensor]", GE, KE.adjust_gamma, [BATCH, torch.tensor([0.5, 2.2]), torch.tensor([1.0, 1.5])]),
    case("AdjustGamma", GE, KE.AdjustGamma(2.2), [IMG]),
    case("adjust_log", GE, KE.adjust_log, [IMG]),
    case("adjust_log[inv,gain=2]", GE, KE.adjust_log, [IMG], kwargs={"gain": 2.0, "inv": True}),
    case("adjust_log[clip_output=False]", GE, KE.adjust_log, [IMG], kwargs={"gain": 2.0, "clip_output": False}),
    case("AdjustLog", GE, KE.AdjustLog(), [IMG]),
    case("adjust_sigmoid", GE, KE.adjust_sigmoid, [IMG]),
    case("adjust_sigmoid[inv]", GE, KE.adjust_sigmoid, [IMG], kwargs={"cutoff": 0.4, "gain": 5.0, "inv": True}),
    case("AdjustSigmoid", GE, KE.AdjustSigmoid(), [IMG]),
    # --- hue / saturation --------------------------------------------------------------------
    case("adjust_hue", GE, KE.adjust_hue, [IMG], kwargs={"factor": 0.5}),
    case("adjust_hue[factor=tensor]", GE, KE.adjust_hue, [BATCH, torch.tensor([-1.0, 2.0])], note="per-sample hue shift (radians)"),
    case("AdjustHue", GE, KE.AdjustHue(0.5), [IMG]),
    case("adjust_hue_raw", GE, KE.adjust_hue_raw, [HSV], kwargs={"factor": 0.5}, note="input in HSV"),
    case("adjust_hue_raw[factor=tensor]", GE, KE.adjust_hue_raw, [HSV, torch.tensor([-1.0])]),
    case("adjust_saturation", GE, KE.adjust_saturation, [IMG], kwargs={"factor": 2.0}),
    case("adjust_saturation[factor=tensor]", GE, KE.adjust_saturation, [BATCH, torch.tensor([0.5, 2.0])]),
    case("AdjustSaturation", GE, KE.AdjustSaturation(2.0), [IMG]),
    case("adjust_saturation_raw", GE, KE.adjust_saturation_raw, [HSV], kwargs={"factor": 2.0}, note="input in HSV"),
    case("adjust_saturation_raw[factor=tensor]", GE, KE.adjust_saturation_raw, [HSV, torch.tensor([0.5])]),
    case("adjust_saturation_with_gray_subtraction", GE, KE.adjust_saturation_with_gray_subtraction, [IMG], kwargs={"factor": 2.0}),
    case("adjust_saturation_with_gray_subtraction[factor=tensor]", GE, KE.adjust_saturation_with_gray_subtraction,
         [BATCH, torch.tensor([0.5, 2.0])]),
    case("AdjustSaturationWithGraySubtraction", GE, KE.AdjustSaturationWithGraySubtraction(2.0), [IMG]),
    # --- blending, inversion, posterize, sharpness, solarize, shifts -----------------------------
    case("add_weighted", GE, ByName(KE.add_weighted, ["src1", "src2"]), [IMG, img(54)],
         kwargs={"alpha": 0.6, "beta": 0.4, "gamma": 0.1}),
    case("add_weighted[weights=tensor]", GE, KE.add_weighted,
         [BATCH, torch.tensor([0.6, 0.3]).view(2, 1, 1, 1), batch(55), torch.tensor([0.4, 0.7]).view(2, 1, 1, 1),
          torch.tensor([0.1, 0.0]).view(2, 1, 1, 1)], note="alpha, beta, gamma as per-sample graph inputs"),
    case("AddWeighted", GE, KE.AddWeighted(0.6, 0.4, 0.1), [IMG, img(54)]),
    case("invert", GE, KE.invert, [IMG]),
    case("invert[max_val=tensor]", GE, KE.invert, [RGB255, torch.tensor(255.0)]),
    case("Invert", GE, KE.Invert(), [IMG]),
    case("posterize", GE, KE.posterize, [IMG], kwargs={"bits": 3}),
    case("posterize[bits=tensor]", GE, KE.posterize, [BATCH, torch.tensor([2, 5])], note="per-sample bits"),
    case("sharpness", GE, KE.sharpness, [IMG], kwargs={"factor": 0.5}),
    case("sharpness[factor=tensor]", GE, KE.sharpness, [BATCH, torch.tensor([0.5, 1.5])]),
    case("solarize", GE, KE.solarize, [IMG]),
    case("solarize[additions]", GE, KE.solarize, [IMG], kwargs={"thresholds": 0.4, "additions": 0.1}),
    case("solarize[tensor]", GE, KE.solarize, [BATCH, torch.tensor([0.3, 0.6]), torch.tensor([0.1, -0.1])],
         note="per-sample thresholds and additions"),
    case("shift_rgb", GE, KE.shift_rgb, [BATCH, torch.tensor([0.1, -0.1]), torch.tensor([0.0, 0.2]), torch.tensor([-0.2, 0.05])]),
    *_threshold_cases(),
    # --- equalisation and histograms -----------------------------------------------------------
    case("equalize", GE, KE.equalize, [IMG]),
    case("equalize[batch]", GE, KE.equalize, [BATCH]),
    case("equalize3d", GE, KE.equalize3d, [rand(1, 3, 4, 16, 16, seed=57)]),
    case("equalize_clahe", GE, KE.equalize_clahe, [IMG]),
    case("equalize_clahe[clip=2,grid=4x4]", GE, KE.equalize_clahe, [IMG], kwargs={"clip_limit": 2.0, "grid_size": (4, 4)}),
    case("equalize_clahe[slow_and_differentiable]", GE, KE.equalize_clahe, [IMG], kwargs={"slow_and_differentiable": True}),
    case("histogram", GE, KE.histogram, [rand(2, 100, seed=58), torch.linspace(0, 1, 16), torch.tensor(0.9)]),
    case("histogram2d", GE, KE.histogram2d,
         [rand(2, 100, seed=59), rand(2, 100, seed=60), torch.linspace(0, 1, 16), torch.tensor(0.9)]),
    case("image_histogram2d", GE, KE.image_histogram2d, [(IMG * 255.0).contiguous()]),
    case("image_histogram2d[unit,64bins,pdf]", GE, KE.image_histogram2d, [IMG],
         kwargs={"min": 0.0, "max": 1.0, "n_bins": 64, "return_pdf": True}),
    case("image_histogram2d[kernel=gaussian]", GE, KE.image_histogram2d, [IMG],
         kwargs={"min": 0.0, "max": 1.0, "n_bins": 32, "kernel": "gaussian"}),
    case("image_histogram2d[kernel=uniform]", GE, KE.image_histogram2d, [IMG],
         kwargs={"min": 0.0, "max": 1.0, "n_bins": 32, "kernel": "uniform"}),
    case("image_histogram2d[kernel=epanechnikov]", GE, KE.image_histogram2d, [IMG],
         kwargs={"min": 0.0, "max": 1.0, "n_bins": 32, "kernel": "epanechnikov"}),
    case("image_histogram2d[centers=tensor]", GE, ByName(KE.image_histogram2d, ["image", "centers"]),
         [IMG, torch.linspace(0.0, 1.0, 32)], kwargs={"min": 0.0, "max": 1.0, "n_bins": 32, "bandwidth": 1.0 / 31}),
    # --- integral images ---------------------------------------------------------------------
    case("integral_image", GE, KE.integral_image, [IMG]),
    case("IntegralImage", GE, KE.IntegralImage(), [IMG]),
    case("integral_tensor", GE, KE.integral_tensor, [IMG]),
    case("integral_tensor[dim=(-1,)]", GE, KE.integral_tensor, [IMG], kwargs={"dim": (-1,)}),
    case("IntegralTensor", GE, KE.IntegralTensor(), [IMG]),
    # --- normalisation -------------------------------------------------------------------------
    case("enhance.normalize", GE, KE.normalize, [IMG, torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])]),
    case("enhance.normalize[scalar]", GE, KE.normalize, [IMG, torch.tensor([0.5]), torch.tensor([0.25])]),
    case("enhance.Normalize", GE, KE.Normalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225])), [IMG]),
    case("enhance.Normalize[float]", GE, KE.Normalize(mean=0.5, std=0.25), [IMG]),
    case("enhance.denormalize", GE, KE.denormalize, [IMG, torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])]),
    case("enhance.denormalize[float]", GE, KE.denormalize, [IMG], kwargs={"mean": 0.5, "std": 0.25}),
    case("enhance.Denormalize", GE, KE.Denormalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225])), [IMG]),
    case("normalize_min_max", GE, KE.normalize_min_max, [randn(1, 3, 32, 40, seed=61)]),
    case("normalize_min_max[-1,1]", GE, KE.normalize_min_max, [randn(1, 3, 32, 40, seed=61)], kwargs={"min_val": -1.0, "max_val": 1.0}),
    case("enhance.Rescale", GE, KE.Rescale(1.0 / 255.0), [RGB255]),
    case("enhance.Rescale[factor=tensor]", GE, KE.Rescale(torch.tensor(1.0 / 255.0)), [RGB255]),
    # --- ZCA whitening -------------------------------------------------------------------------
    case("zca_mean", GE, KE.zca_mean, [DATA]),
    case("zca_mean[return_inverse]", GE, KE.zca_mean, [DATA], kwargs={"return_inverse": True}),
    case("zca_mean[dim=1,biased]", GE, KE.zca_mean, [DATA.t().contiguous()], kwargs={"dim": 1, "unbiased": False}),
    case("zca_whiten", GE, KE.zca_whiten, [DATA]),
    case("linear_transform", GE, KE.linear_transform,
         [DATA_T, *(t.contiguous() for t in KE.zca_mean(DATA)[:2])], note="transform and mean from zca_mean of seeded data"),
    case("ZCAWhitening", GE, _ZCAFitted(DATA), [DATA_T], note="fitted at build time on seeded data; forward whitens"),
    case("ZCAWhitening[include_fit]", GE, KE.ZCAWhitening(), [DATA], kwargs={"include_fit": True},
         note="fits inside forward (include_fit=True) then whitens"),
    case("ZCAWhitening[inverse_transform]", GE, _ZCAFitted(DATA, inverse=True), [DATA_T]),
    # --- JPEG ------------------------------------------------------------------------------------
    case("jpeg_codec_differentiable", GE, KE.jpeg_codec_differentiable, [IMG, torch.tensor([50.0])]),
    case("jpeg_codec_differentiable[batch]", GE, KE.jpeg_codec_differentiable, [BATCH, torch.tensor([20.0, 90.0])],
         note="per-sample JPEG quality"),
    case("JPEGCodecDifferentiable", GE, KE.JPEGCodecDifferentiable(), [IMG, torch.tensor([50.0])]),
    # --- morphology ------------------------------------------------------------------------------
    *_morph("dilation", KM.dilation),
    *_morph("erosion", KM.erosion),
    *_morph("opening", KM.opening),
    *_morph("closing", KM.closing),
    *_morph("gradient", KM.gradient),
    *_morph("top_hat", KM.top_hat),
    *_morph("bottom_hat", KM.bottom_hat),
    # the marker is below the mask (above it for erosion): the fresh sets keep that, on another image
    case("reconstruction", GM, KM.reconstruction, [(IMG * 0.5).contiguous(), IMG],
         note="default 3x3 kernel, runs until convergence (data-dependent loop)", fresh_inputs=_RECON_FRESH),
    case("reconstruction[num_iters=8]", GM, KM.reconstruction, [(IMG * 0.5).contiguous(), IMG], kwargs={"num_iters": 8},
         note="fixed step count: no data-dependent exit", fresh_inputs=_RECON_FRESH),
    case("reconstruction[erosion]", GM, KM.reconstruction, [(IMG + 0.3).contiguous(), IMG], kwargs={"method": "erosion"},
         fresh_inputs=((_IMG_B + 0.3).contiguous(), _IMG_B)),
    case("reconstruction[kernel=cross]", GM, KM.reconstruction, [(IMG * 0.5).contiguous(), IMG, KER_CROSS],
         fresh_inputs=(*_RECON_FRESH, KER_CROSS_B)),
]
