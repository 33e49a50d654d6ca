"""kornia.color: every conversion function and its nn.Module twin, colormaps, Bayer (raw) images.

Inputs of the inverse conversions (hsv_to_rgb, lab_to_rgb, ...) are made by the forward conversion of a
seeded RGB image, so every value lies in the range the inverse expects (hue in [0, 2*pi], L in [0, 100],
...). YUV 4:2:0 / 4:2:2 and Bayer images use the 32x40 size, which is even in both directions.

Types, not operators (``opsweep coverage`` sets them aside and lists them under ``not_operators``):
    kornia.color.CFA           an enum (Bayer pattern); surveyed as the `cfa` argument of raw_to_rgb & co.
    kornia.color.ColorMapType  an enum (palette name); surveyed as the `base` of ColorMap / apply_colormap.
    kornia.color.RGBColor      a NamedTuple of three floats (a palette entry); no tensor computation.
"""

from __future__ import annotations

import torch
from torch import nn

import kornia.color as KC
from kornia.color import CFA, ColorMap, ColorMapType

from opsweep import case
from opsweep_suites.kornia._common import Positional, batch, gray, img, rand, rgba

G = "color"

NOT_SURVEYED: dict = {}


class _ColorMapColors(nn.Module):
    """Builds a ColorMap for the input's dtype and device, as a model does in forward, and returns its
    palette (3, num_colors). The image only supplies dtype and device."""

    __opsweep_target__ = ColorMap

    def __init__(self, base, num_colors: int = 64):
        super().__init__()
        self.base = base
        self.num_colors = num_colors

    def forward(self, x):
        return ColorMap(base=self.base, num_colors=self.num_colors, device=x.device, dtype=x.dtype).colors


def _conv(fn, x):
    """A valid input for an inverse conversion: fn applied to a seeded image (deterministic)."""
    with torch.no_grad():
        return fn(x).contiguous()


# Inputs for the inverse conversions, each made by the forward conversion.
HSV = _conv(KC.rgb_to_hsv, img(11))
HLS = _conv(KC.rgb_to_hls, img(12))
LAB = _conv(KC.rgb_to_lab, img(13))
LUV = _conv(KC.rgb_to_luv, img(14))
XYZ = _conv(KC.rgb_to_xyz, img(15))
YCBCR = _conv(KC.rgb_to_ycbcr, img(16))
YUV = _conv(KC.rgb_to_yuv, img(17))
Y420, UV420 = (t.contiguous() for t in KC.rgb_to_yuv420(img(18)))
Y422, UV422 = (t.contiguous() for t in KC.rgb_to_yuv422(img(19)))
RAW = _conv(lambda x: KC.rgb_to_raw(x, CFA.BG), img(20))  # 1x1x32x40 Bayer mosaic
RGB255 = (img(21) * 255.0).contiguous()
NORMALS = (rand(1, 3, 32, 40, seed=22) * 2.0 - 1.0).contiguous()
GRAY_U8 = (rand(1, 3, 32, 40, seed=23) * 255).to(torch.uint8)

CASES = [
    # --- grayscale ---------------------------------------------------------------------------
    case("rgb_to_grayscale", G, KC.rgb_to_grayscale, [img()]),
    case("rgb_to_grayscale[batch]", G, KC.rgb_to_grayscale, [batch()]),
    case("rgb_to_grayscale[rgb_weights=tensor]", G, KC.rgb_to_grayscale,
         [img(), torch.tensor([0.2126, 0.7152, 0.0722])], note="custom channel weights as a graph input"),
    case("rgb_to_grayscale[uint8]", G, KC.rgb_to_grayscale, [GRAY_U8], note="integer image path"),
    case("RgbToGrayscale", G, KC.RgbToGrayscale(), [img()]),
    case("RgbToGrayscale[rgb_weights]", G, KC.RgbToGrayscale(rgb_weights=torch.tensor([0.2126, 0.7152, 0.0722])), [img()]),
    case("bgr_to_grayscale", G, KC.bgr_to_grayscale, [img()]),
    case("BgrToGrayscale", G, KC.BgrToGrayscale(), [img()]),
    case("grayscale_to_rgb", G, KC.grayscale_to_rgb, [gray()]),
    case("GrayscaleToRgb", G, KC.GrayscaleToRgb(), [gray()]),
    case("rgb_to_y", G, KC.rgb_to_y, [img()]),
    # --- channel order, alpha, 0-255 ---------------------------------------------------------
    case("rgb_to_bgr", G, KC.rgb_to_bgr, [img()]),
    case("RgbToBgr", G, KC.RgbToBgr(), [img()]),
    case("bgr_to_rgb", G, KC.bgr_to_rgb, [img()]),
    case("BgrToRgb", G, KC.BgrToRgb(), [img()]),
    case("rgb_to_rgba", G, KC.rgb_to_rgba, [img()], kwargs={"alpha_val": 1.0}),
    case("rgb_to_rgba[alpha=tensor]", G, KC.rgb_to_rgba, [img(), rand(1, 1, 32, 40, seed=24)],
         note="per-pixel alpha as a graph input"),
    case("RgbToRgba", G, KC.RgbToRgba(1.0), [img()]),
    case("bgr_to_rgba", G, KC.bgr_to_rgba, [img()], kwargs={"alpha_val": 1.0}),
    case("bgr_to_rgba[alpha=tensor]", G, KC.bgr_to_rgba, [img(), rand(1, 1, 32, 40, seed=25)]),
    case("BgrToRgba", G, KC.BgrToRgba(1.0), [img()]),
    case("rgba_to_rgb", G, KC.rgba_to_rgb, [rgba()]),
    case("rgba_to_rgb[background=tensor]", G, KC.rgba_to_rgb, [rgba(), torch.tensor([0.0, 0.0, 1.0]).view(1, 3, 1, 1)],
         note="background colour as a graph input"),
    case("rgba_to_rgb[background=tuple]", G, KC.rgba_to_rgb, [rgba()], kwargs={"background_color": (0.0, 0.0, 1.0)}),
    case("RgbaToRgb", G, KC.RgbaToRgb(), [rgba()]),
    case("rgba_to_bgr", G, KC.rgba_to_bgr, [rgba()]),
    case("RgbaToBgr", G, KC.RgbaToBgr(), [rgba()]),
    case("rgb_to_rgb255", G, KC.rgb_to_rgb255, [img()]),
    case("RgbToRgb255", G, KC.RgbToRgb255(), [img()]),
    case("rgb255_to_rgb", G, KC.rgb255_to_rgb, [RGB255]),
    case("Rgb255ToRgb", G, KC.Rgb255ToRgb(), [RGB255]),
    case("rgb255_to_normals", G, KC.rgb255_to_normals, [RGB255]),
    case("Rgb255ToNormals", G, KC.Rgb255ToNormals(), [RGB255]),
    case("normals_to_rgb255", G, KC.normals_to_rgb255, [NORMALS]),
    case("NormalsToRgb255", G, KC.NormalsToRgb255(), [NORMALS]),
    case("rgb_to_linear_rgb", G, KC.rgb_to_linear_rgb, [img()]),
    case("RgbToLinearRgb", G, KC.RgbToLinearRgb(), [img()]),
    case("linear_rgb_to_rgb", G, KC.linear_rgb_to_rgb, [img(26)]),
    case("LinearRgbToRgb", G, KC.LinearRgbToRgb(), [img(26)]),
    # --- HSV / HLS -------------------------------------------------------------------------------
    case("rgb_to_hsv", G, KC.rgb_to_hsv, [img()]),
    case("rgb_to_hsv[batch]", G, KC.rgb_to_hsv, [batch()]),
    case("RgbToHsv", G, KC.RgbToHsv(), [img()]),
    case("hsv_to_rgb", G, KC.hsv_to_rgb, [HSV]),
    case("HsvToRgb", G, KC.HsvToRgb(), [HSV]),
    case("rgb_to_hls", G, KC.rgb_to_hls, [img()]),
    case("RgbToHls", G, KC.RgbToHls(), [img()]),
    case("hls_to_rgb", G, KC.hls_to_rgb, [HLS]),
    case("HlsToRgb", G, KC.HlsToRgb(), [HLS]),
    # --- Lab / Luv / XYZ -------------------------------------------------------------------------
    case("rgb_to_lab", G, KC.rgb_to_lab, [img()]),
    case("RgbToLab", G, KC.RgbToLab(), [img()]),
    case("lab_to_rgb", G, KC.lab_to_rgb, [LAB], atol=1e-3),
    case("lab_to_rgb[clip=False]", G, KC.lab_to_rgb, [LAB], kwargs={"clip": False}, atol=1e-3),
    case("LabToRgb", G, KC.LabToRgb(), [LAB], atol=1e-3),
    case("rgb_to_luv", G, KC.rgb_to_luv, [img()], atol=1e-3),
    case("RgbToLuv", G, KC.RgbToLuv(), [img()], atol=1e-3),
    case("luv_to_rgb", G, KC.luv_to_rgb, [LUV], atol=1e-3),
    case("LuvToRgb", G, KC.LuvToRgb(), [LUV], atol=1e-3),
    case("rgb_to_xyz", G, KC.rgb_to_xyz, [img()]),
    case("RgbToXyz", G, KC.RgbToXyz(), [img()]),
    case("xyz_to_rgb", G, KC.xyz_to_rgb, [XYZ]),
    case("XyzToRgb", G, KC.XyzToRgb(), [XYZ]),
    # --- YCbCr / YUV ---------------------------------------------------------------------------
    case("rgb_to_ycbcr", G, KC.rgb_to_ycbcr, [img()]),
    case("RgbToYcbcr", G, KC.RgbToYcbcr(), [img()]),
    case("ycbcr_to_rgb", G, KC.ycbcr_to_rgb, [YCBCR]),
    case("YcbcrToRgb", G, KC.YcbcrToRgb(), [YCBCR]),
    case("rgb_to_yuv", G, KC.rgb_to_yuv, [img()]),
    case("RgbToYuv", G, KC.RgbToYuv(), [img()]),
    case("yuv_to_rgb", G, KC.yuv_to_rgb, [YUV]),
    case("YuvToRgb", G, KC.YuvToRgb(), [YUV]),
    case("rgb_to_yuv420", G, KC.rgb_to_yuv420, [img()]),
    case("RgbToYuv420", G, KC.RgbToYuv420(), [img()]),
    case("yuv420_to_rgb", G, KC.yuv420_to_rgb, [Y420, UV420]),
    case("Yuv420ToRgb", G, KC.Yuv420ToRgb(), [Y420, UV420]),
    case("rgb_to_yuv422", G, KC.rgb_to_yuv422, [img()]),
    case("RgbToYuv422", G, KC.RgbToYuv422(), [img()]),
    case("yuv422_to_rgb", G, KC.yuv422_to_rgb, [Y422, UV422]),
    case("Yuv422ToRgb", G, KC.Yuv422ToRgb(), [Y422, UV422]),
    # --- Bayer (raw) ---------------------------------------------------------------------------
    case("raw_to_rgb", G, KC.raw_to_rgb, [RAW], kwargs={"cfa": CFA.BG}),
    case("raw_to_rgb[cfa=GB]", G, KC.raw_to_rgb, [RAW], kwargs={"cfa": CFA.GB}),
    case("raw_to_rgb[cfa=RG]", G, KC.raw_to_rgb, [RAW], kwargs={"cfa": CFA.RG}),
    case("raw_to_rgb[cfa=GR]", G, KC.raw_to_rgb, [RAW], kwargs={"cfa": CFA.GR}),
    case("RawToRgb", G, KC.RawToRgb(CFA.BG), [RAW]),
    case("raw_to_rgb_2x2_downscaled", G, KC.raw_to_rgb_2x2_downscaled, [RAW], kwargs={"cfa": CFA.BG}),
    case("raw_to_rgb_2x2_downscaled[cfa=GR]", G, KC.raw_to_rgb_2x2_downscaled, [RAW], kwargs={"cfa": CFA.GR}),
    case("RawToRgb2x2Downscaled", G, KC.RawToRgb2x2Downscaled(CFA.BG), [RAW]),
    case("rgb_to_raw", G, KC.rgb_to_raw, [img()], kwargs={"cfa": CFA.BG}),
    case("rgb_to_raw[cfa=RG]", G, KC.rgb_to_raw, [img()], kwargs={"cfa": CFA.RG}),
    case("RgbToRaw", G, KC.RgbToRaw(CFA.BG), [img()]),
    # --- sepia -------------------------------------------------------------------------------------
    case("sepia", G, KC.sepia, [img()]),
    case("sepia[rescale=False]", G, KC.sepia, [img()], kwargs={"rescale": False}),
    case("Sepia", G, KC.Sepia(), [img()]),
    # --- colormaps -----------------------------------------------------------------------------
    case("apply_colormap", G, Positional(KC.apply_colormap, colormap=ColorMap(base=ColorMapType.autumn)), [gray()],
         note="ColorMap(base=ColorMapType.autumn), 64 colours"),
    case("apply_colormap[jet]", G, Positional(KC.apply_colormap, colormap=ColorMap(base=ColorMapType.jet)), [gray()]),
    case("apply_colormap[viridis,num_colors=256]", G,
         Positional(KC.apply_colormap, colormap=ColorMap(base=ColorMapType.viridis, num_colors=256)), [gray()]),
    case("apply_colormap[batch,3ch]", G, Positional(KC.apply_colormap, colormap=ColorMap(base=ColorMapType.turbo)), [batch()],
         note="each input channel becomes three output channels"),
    case("apply_colormap[uint8]", G, Positional(KC.apply_colormap, colormap=ColorMap(base=ColorMapType.autumn)),
         [(gray(27) * 255).to(torch.uint8)], note="integer image in [0, 255]"),
    case("ApplyColorMap", G, KC.ApplyColorMap(ColorMap(base=ColorMapType.autumn)), [gray()]),
    case("ApplyColorMap[hsv]", G, KC.ApplyColorMap(ColorMap(base="hsv", num_colors=32)), [gray()]),
    case("ColorMap", G, _ColorMapColors(ColorMapType.autumn), [gray()],
         note="builds the palette inside forward for the input's dtype/device; output is the (3, 64) palette"),
    case("ColorMap[seismic,num_colors=16]", G, _ColorMapColors(ColorMapType.seismic, 16), [gray()]),
]
