"""kornia.feature: detectors, descriptors, matchers, LAF utilities, integrated pipelines.

Not surveyed (also listed in NOT_SURVEYED below, read by ``opsweep coverage``):
    KORNIA_CHECK_LAF      a validation helper that returns a Python bool (or raises); no tensor graph.
    adalam.get_adalam_default_config
                          returns a configuration dict; no tensors.
Types, not operators (dataclasses; ``opsweep coverage`` sets them aside under ``not_operators``):
    ALIKEDFeatures        a plain result container (keypoints, descriptors, scores) that ALIKED returns; it
                          computes nothing. Its tensors are compared through the ALIKED cases.
    DISKFeatures          the same for DISK; compared through the DISK cases.
    OnnxLightGlue         (case present, skipped) runs a pre-exported ONNX file that it downloads; there is no
                          PyTorch graph to capture and nothing may be downloaded.

Counting (``opsweep coverage --library kornia``, depth 2: the ``__all__`` of kornia.feature and of its
sub-packages, de-duplicated by identity): 91 public operators; 88 have probed cases, OnnxLightGlue a skipped case,
and the 2 functions above are listed in NOT_SURVEYED (neither computes a tensor). Every operator has its default form
first (where that form downloads weights or runs past the time budget, the note says what differs).

No case downloads weights. Networks are built with ``pretrained=False`` (random initialisation; the graph
is the same as with trained weights). Classes whose constructors always download (the integrated
``*HardNet`` pipelines, ``LightGlueMatcher``, the ``LAFDescriptor`` / ``MKDDescriptor`` defaults) are built
as genuine instances of the public class with the same sub-modules at random initialisation, see
``_assemble``; the note of each such case says so.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

import kornia.feature as KF
from kornia.feature.adalam import AdalamFilter, get_adalam_default_config
from kornia.feature.aliked import deform_conv2d
from kornia.feature.integrated import _DoGSingleMagnitude
from kornia.feature.loftr.loftr import default_cfg as LOFTR_DEFAULT_CFG
from kornia.feature.sold2.structures import BackboneCfg, DetectorCfg, LineDetectorCfg
from kornia.geometry.subpix import ConvQuadInterp3d
from kornia.geometry.transform import ScalePyramid

from opsweep.case import lazy

NOT_SURVEYED = {
    "kornia.feature.KORNIA_CHECK_LAF": "a validation helper returning a Python bool (or raising): no tensor output",
    "kornia.feature.adalam.get_adalam_default_config": "returns AdaLAM's default configuration dict: no tensors",
}

from ._common import (
    FRESH_OFFSET, Assembled, ByName, Positional, case, derived, detector_image, homography, img, keep, rand, randn, twin,
)

# LAFs, ellipses and 0/1 masks are made by helpers that declare a second value of the same kind (another seed):
# the fresh-input check runs on valid LAFs (``twin``, ``derived`` for the inputs computed from them).

# Networks are lazy (``lazy(...)``): built when a job of their case runs, under a seed derived from the case
# name (opsweep.case.construction_seed), so loading this registry builds none of them.

H, W = 64, 80  # detector image size

# ------------------------------------------------------------------------------------------------- helpers


def _assemble(cls, init_base, *args, **kwargs):
    """A genuine instance of ``cls`` whose constructor would download weights: build it through the base class
    initialiser with the same sub-modules at random initialisation."""
    obj = cls.__new__(cls)
    init_base(obj, *args, **kwargs)
    return obj.eval()


def _lafs(n: int = 16, seed: int = 20, batch_size: int = 1, h: int = H, w: int = W, smin: float = 4.0,
          smax: float = 8.0, margin: float = 20.0, aniso: bool = False) -> torch.Tensor:
    """LAFs whose whole support (3 x scale around the centre) lies inside an h x w image (the second value:
    the same with seed + FRESH_OFFSET)."""
    return twin(_lafs_of, n, seed, batch_size, h, w, smin, smax, margin, aniso)


def _lafs_of(n, seed, batch_size, h, w, smin, smax, margin, aniso, second=False) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed + FRESH_OFFSET * second)
    cx = torch.rand(batch_size, n, generator=g) * (w - 2 * margin) + margin
    cy = torch.rand(batch_size, n, generator=g) * (h - 2 * margin) + margin
    s = torch.rand(batch_size, n, generator=g) * (smax - smin) + smin
    a = torch.rand(batch_size, n, generator=g) * 2 * math.pi
    sx = s * (1.0 + 0.3 * torch.rand(batch_size, n, generator=g)) if aniso else s
    sy = s / (1.0 + 0.3 * torch.rand(batch_size, n, generator=g)) if aniso else s
    cos, sin = torch.cos(a), torch.sin(a)
    A = torch.stack([torch.stack([sx * cos, -sy * sin], -1), torch.stack([sx * sin, sy * cos], -1)], -2)
    return torch.cat([A, torch.stack([cx, cy], -1).unsqueeze(-1)], -1).contiguous()


def _patches(n: int = 8, ps: int = 32, seed: int = 21) -> torch.Tensor:
    """n grayscale patches with structure, cropped from the detector image (resampled to ps x ps)."""
    im = detector_image()
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        y = int(torch.randint(0, H - 32, (1,), generator=g))
        x = int(torch.randint(0, W - 32, (1,), generator=g))
        crop = im[:, :, y:y + 32, x:x + 32]
        if ps != 32:
            crop = torch.nn.functional.interpolate(crop, size=(ps, ps), mode="bilinear", align_corners=False)
        out.append(crop)
    return torch.cat(out).contiguous()


def _desc_pair(n: int = 24, extra: int = 8, d: int = 128, seed: int = 22, noise: float = 0.02):
    """desc1 (n, d) unit vectors; desc2 = desc1 permuted plus small noise, plus `extra` distractors; and the
    permutation (desc2[i] matches desc1[perm[i]] for i < n)."""
    d1 = torch.nn.functional.normalize(randn(n, d, seed=seed), dim=-1)
    g = torch.Generator().manual_seed(seed + 1)
    perm = torch.randperm(n, generator=g)
    d2 = d1[perm] + noise * randn(n, d, seed=seed + 2)
    d2 = torch.cat([d2, randn(extra, d, seed=seed + 3)])
    d2 = torch.nn.functional.normalize(d2, dim=-1)
    return d1.contiguous(), d2.contiguous(), perm


def _laf_pair(n: int = 24, extra: int = 8, seed: int = 23, perm=None, shift=(3.0, 2.0)):
    """LAFs for the matcher cases: lafs2 = lafs1 permuted like the descriptors and shifted (a consistent
    geometric transform), plus LAFs for the distractor descriptors."""
    def build(l1, distractors):
        l2 = l1[:, perm].clone()
        l2[..., 0, 2] += shift[0]
        l2[..., 1, 2] += shift[1]
        return l1.contiguous(), torch.cat([l2, distractors], 1).contiguous()

    return derived(build, _lafs(n, seed=seed), _lafs(extra, seed=seed + 1))


def _gauss_stack(x: torch.Tensor, sigmas=(1.0, 1.26, 1.59, 2.0, 2.52)) -> torch.Tensor:
    """(B, C, D, H, W) stack of Gaussian blurs of x, the input of the DoG / scale-space responses."""
    from kornia.filters import gaussian_blur2d

    levels = [gaussian_blur2d(x, (2 * math.ceil(3 * s) + 1,) * 2, (s, s)) for s in sigmas]
    return torch.stack(levels, 2).contiguous()


def _mask(seed: int, p: float) -> torch.Tensor:
    """A 0/1 float mask (1, 1, H, W), about (1 - p) of it ones (the second value: seed + FRESH_OFFSET)."""
    return twin(lambda second=False: (rand(1, 1, H, W, seed=seed + FRESH_OFFSET * second) > p).float())


DET = detector_image()  # 1x1x64x80
# The fresh input set of the detector + HardNet pipelines: the same structure with other noise, on
# which every feature slot they ask for is still a real keypoint (seeds 25, 26 and 54 of 7..59 are).
# The default fresh set (uniform noise in DET's range) leaves 1 to 3 padding slots in 4 of them, and
# a padding slot's constant patch comes out of HardNet's per-patch normalisation as rounding noise,
# so compiled and eager differed there (by up to 0.29) while every real keypoint matched.
DET_FRESH = detector_image(seed=25)
DET2 = torch.cat([detector_image(), detector_image(seed=16).flip(-1)], 0).contiguous()  # 2x1x64x80
DET_RGB = DET.expand(1, 3, H, W).contiguous() * torch.tensor([1.0, 0.9, 0.8]).view(1, 3, 1, 1)
LAFS = _lafs(16, seed=20)
LAFS_B2 = _lafs(12, seed=24, batch_size=2)
STACK = _gauss_stack(DET)
SIGMAS_STACK = torch.tensor([[1.0, 1.26, 1.59, 2.0, 2.52]])
D1, D2, PERM = _desc_pair()
L1, L2 = _laf_pair(perm=PERM)
# AdaLAM needs more correspondences than its minimum inlier counts
D1A, D2A, PERMA = _desc_pair(n=120, extra=20, seed=30, noise=0.01)
L1A, L2A = _laf_pair(n=120, extra=20, seed=31, perm=PERMA)

CASES = []
add = CASES.append

# ------------------------------------------------------------------------------------------------- responses

G_DET = "feature.detectors"
add(case("harris_response", G_DET, KF.harris_response, [DET]))
add(case("harris_response[k=0.06,diff]", G_DET, KF.harris_response, [DET], kwargs={"k": 0.06, "grads_mode": "diff"}))
add(case("harris_response[sigmas]", G_DET,
         ByName(KF.harris_response, ("input", "sigmas")), [DET2, torch.tensor([1.0, 2.0])]))
add(case("gftt_response", G_DET, KF.gftt_response, [DET]))
add(case("gftt_response[diff]", G_DET, KF.gftt_response, [DET], kwargs={"grads_mode": "diff"}))
add(case("gftt_response[sigmas]", G_DET,
         ByName(KF.gftt_response, ("input", "sigmas")), [DET2, torch.tensor([1.0, 2.0])]))
add(case("hessian_response", G_DET, KF.hessian_response, [DET]))
add(case("hessian_response[diff]", G_DET, KF.hessian_response, [DET], kwargs={"grads_mode": "diff"}))
add(case("hessian_response[sigmas]", G_DET,
         ByName(KF.hessian_response, ("input", "sigmas")), [DET2, torch.tensor([1.0, 2.0])]))
add(case("dog_response", G_DET, KF.dog_response, [STACK]))
add(case("dog_response_single", G_DET, KF.dog_response_single, [DET]))
add(case("dog_response_single[sigma=2,3.2]", G_DET, KF.dog_response_single, [DET], kwargs={"sigma1": 2.0, "sigma2": 3.2}))
add(case("CornerHarris", G_DET, KF.CornerHarris(0.04), [DET]))
add(case("CornerHarris[k=tensor,diff]", G_DET, KF.CornerHarris(torch.tensor(0.05), grads_mode="diff"), [DET]))
add(case("CornerHarris[sigmas]", G_DET, KF.CornerHarris(0.04), [DET2, torch.tensor([1.0, 2.0])]))
add(case("CornerGFTT", G_DET, KF.CornerGFTT(), [DET]))
add(case("CornerGFTT[sigmas]", G_DET, KF.CornerGFTT(), [DET2, torch.tensor([1.0, 2.0])]))
add(case("BlobHessian", G_DET, KF.BlobHessian(), [DET]))
add(case("BlobHessian[diff]", G_DET, KF.BlobHessian("diff"), [DET]))
add(case("BlobHessian[sigmas]", G_DET, KF.BlobHessian(), [DET2, torch.tensor([1.0, 2.0])]))
add(case("BlobDoG", G_DET, KF.BlobDoG(), [STACK]))
add(case("BlobDoG[sigmas]", G_DET, KF.BlobDoG(), [STACK, SIGMAS_STACK]))
add(case("BlobDoGSingle", G_DET, KF.BlobDoGSingle(), [DET]))
add(case("BlobDoGSingle[sigma=2,3.2]", G_DET, KF.BlobDoGSingle(2.0, 3.2), [DET]))

# ------------------------------------------------------------------------------------------------- detectors

add(case("ScaleSpaceDetector", G_DET, KF.ScaleSpaceDetector(), [DET]))
add(case("ScaleSpaceDetector[num_features=64]", G_DET, KF.ScaleSpaceDetector(64), [DET2]))
add(case("ScaleSpaceDetector[mask]", G_DET, KF.ScaleSpaceDetector(64),
         [DET, _mask(25, 0.2)]))
add(case("ScaleSpaceDetector[dog,subpix,minima]", G_DET,
         KF.ScaleSpaceDetector(64, resp_module=KF.BlobDoG(), subpix_module=ConvQuadInterp3d(),
                               scale_pyr_module=ScalePyramid(3, 1.6, 32, double_image=True),
                               scale_space_response=True, minima_are_also_good=True), [DET]))
add(case("ScaleSpaceDetector[harris,orienter,affine]", G_DET,
         KF.ScaleSpaceDetector(32, resp_module=KF.CornerHarris(0.04), ori_module=KF.LAFOrienter(19),
                               aff_module=KF.LAFAffineShapeEstimator(19)), [DET]))
add(case("MultiResolutionDetector", G_DET, KF.MultiResolutionDetector(KF.BlobHessian()), [DET]))
add(case("MultiResolutionDetector[num_features=64,dog]", G_DET,
         KF.MultiResolutionDetector(_DoGSingleMagnitude(), 64), [DET]))
add(case("MultiResolutionDetector[orienter,affine,threshold]", G_DET,
         KF.MultiResolutionDetector(KF.CornerGFTT(), 64, ori_module=KF.LAFOrienter(19),
                                    aff_module=KF.LAFAffineShapeEstimator(19), score_threshold=1e-6), [DET]))
add(case("KeyNet", G_DET, lazy(KF.KeyNet, pretrained=False), [DET], note="random init (pretrained=False)"))
add(case("KeyNetDetector", G_DET, lazy(KF.KeyNetDetector, pretrained=False), [DET], note="random init (pretrained=False)"))
add(case("KeyNetDetector[num_features=64,orinet,affnet]", G_DET,
         lazy(lambda: KF.KeyNetDetector(False, num_features=64,
                                        ori_module=KF.LAFOrienter(angle_detector=KF.OriNet(False)),
                                        aff_module=KF.LAFAffNetShapeEstimator(False, preserve_orientation=False)),
              surveys=KF.KeyNetDetector),
         [DET], note="random init (pretrained=False)"))

# ------------------------------------------------------------------------------------------------- orientation / affine shape

G_LAF = "feature.laf"
G_DSC = "feature.descriptors"
add(case("PassLAF", G_LAF, KF.PassLAF(), [LAFS, DET]))
add(case("PatchDominantGradientOrientation", G_LAF, KF.PatchDominantGradientOrientation(), [_patches(8, 32)]))
add(case("PatchDominantGradientOrientation[ps=19,bins=18]", G_LAF,
         KF.PatchDominantGradientOrientation(19, 18), [_patches(8, 19)]))
add(case("OriNet", G_LAF, lazy(KF.OriNet, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("LAFOrienter", G_LAF, KF.LAFOrienter(), [LAFS, DET]))
add(case("LAFOrienter[ps=19]", G_LAF, KF.LAFOrienter(19), [LAFS_B2, DET2]))
add(case("LAFOrienter[orinet]", G_LAF, lazy(lambda: KF.LAFOrienter(32, angle_detector=KF.OriNet(False)), surveys=KF.LAFOrienter), [LAFS, DET],
         note="random init OriNet (pretrained=False)"))
add(case("PatchAffineShapeEstimator", G_LAF, KF.PatchAffineShapeEstimator(), [_patches(8, 19)]))
add(case("PatchAffineShapeEstimator[ps=32]", G_LAF, KF.PatchAffineShapeEstimator(32), [_patches(8, 32)]))
add(case("LAFAffineShapeEstimator", G_LAF, KF.LAFAffineShapeEstimator(), [LAFS, DET]))
add(case("LAFAffineShapeEstimator[ps=19,no_preserve]", G_LAF,
         KF.LAFAffineShapeEstimator(19, preserve_orientation=False), [LAFS_B2, DET2]))
add(case("LAFAffNetShapeEstimator", G_LAF, lazy(KF.LAFAffNetShapeEstimator, pretrained=False), [LAFS, DET],
         note="random init (pretrained=False)"))
add(case("LAFAffNetShapeEstimator[no_preserve]", G_LAF,
         lazy(KF.LAFAffNetShapeEstimator, False, preserve_orientation=False), [LAFS_B2, DET2],
         note="random init (pretrained=False)"))

# ------------------------------------------------------------------------------------------------- descriptors

add(case("SIFTDescriptor", G_DSC, KF.SIFTDescriptor(), [_patches(8, 41)]))
add(case("SIFTDescriptor[ps=32,no_root]", G_DSC, KF.SIFTDescriptor(32, rootsift=False), [_patches(8, 32)]))
add(case("SIFTDescriptor[ps=19,bins=4x2]", G_DSC, KF.SIFTDescriptor(19, num_ang_bins=4, num_spatial_bins=2),
         [_patches(8, 19)]))
add(case("DenseSIFTDescriptor", G_DSC, KF.DenseSIFTDescriptor(), [DET]))
add(case("DenseSIFTDescriptor[stride=2,no_root]", G_DSC, KF.DenseSIFTDescriptor(stride=2, rootsift=False), [DET2]))
add(case("SIFTDescriptorFromPyramid", G_DSC, KF.SIFTDescriptorFromPyramid(), [DET, LAFS]))
add(case("SIFTDescriptorFromPyramid[orient_and_describe]", G_DSC, KF.SIFTDescriptorFromPyramid(), [DET, LAFS],
         method="orient_and_describe"))
add(case("SIFTDescriptorFromPyramid[no_root,batch]", G_DSC, KF.SIFTDescriptorFromPyramid(rootsift=False),
         [DET2, LAFS_B2]))
add(case("convert_sift_descriptor_layout", G_DSC, KF.convert_sift_descriptor_layout,
         [rand(8, 128, seed=26)], kwargs={"source": "kornia", "target": "opencv"}))
add(case("convert_sift_descriptor_layout[opencv->kornia]", G_DSC, KF.convert_sift_descriptor_layout,
         [rand(2, 8, 128, seed=27)], kwargs={"source": "opencv", "target": "kornia"}))
add(case("MKDDescriptor", G_DSC, KF.MKDDescriptor,
         [_patches(8, 32)], skip="the default whitening='pcawt' downloads a pretrained whitening model; the "
         "variants below build the same descriptor with whitening=None"))
add(case("MKDDescriptor[whitening=None]", G_DSC, KF.MKDDescriptor(whitening=None), [_patches(8, 32)]))
add(case("MKDDescriptor[polar,whitening=None]", G_DSC, KF.MKDDescriptor(kernel_type="polar", whitening=None),
         [_patches(8, 32)]))
add(case("MKDDescriptor[cart,ps=41,whitening=None]", G_DSC,
         KF.MKDDescriptor(patch_size=41, kernel_type="cart", whitening=None), [_patches(8, 41)]))
add(case("HardNet", G_DSC, lazy(KF.HardNet, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("HardNet8", G_DSC, lazy(KF.HardNet8, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("HyNet", G_DSC, lazy(KF.HyNet, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("TFeat", G_DSC, lazy(KF.TFeat, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("SOSNet", G_DSC, lazy(KF.SOSNet, pretrained=False), [_patches(8, 32)], note="random init (pretrained=False)"))
add(case("FilterResponseNorm2d", G_DSC, KF.FilterResponseNorm2d(16), [randn(2, 16, 8, 8, seed=28)]))
add(case("FilterResponseNorm2d[learnable_eps]", G_DSC,
         KF.FilterResponseNorm2d(16, is_eps_leanable=True), [randn(2, 16, 8, 8, seed=28)]))
add(case("TLU", G_DSC, KF.TLU(16), [randn(2, 16, 8, 8, seed=29)]))
add(case("LAFDescriptor", G_DSC, lazy(lambda: KF.LAFDescriptor(KF.HardNet(False)), surveys=KF.LAFDescriptor), [DET, LAFS],
         note="the default descriptor is a pretrained HardNet; here HardNet(pretrained=False), same graph"))
add(case("LAFDescriptor[sift,ps=41]", G_DSC, KF.LAFDescriptor(KF.SIFTDescriptor(41), patch_size=41), [DET, LAFS]))
add(case("LAFDescriptor[rgb,batch]", G_DSC, KF.LAFDescriptor(KF.SIFTDescriptor(32), patch_size=32),
         [DET_RGB.expand(2, 3, H, W).contiguous(), LAFS_B2]))
add(case("get_laf_descriptors", G_DSC,
         lazy(lambda: Positional(KF.get_laf_descriptors, patch_descriptor=KF.HardNet(False).eval()),
              surveys=KF.get_laf_descriptors), [DET, LAFS],
         note="patch_descriptor=HardNet(pretrained=False), baked in"))
add(case("get_laf_descriptors[sift,ps=41,rgb]", G_DSC, KF.get_laf_descriptors, [DET_RGB, LAFS],
         kwargs={"patch_descriptor": KF.SIFTDescriptor(41), "patch_size": 41}))

# ------------------------------------------------------------------------------------------------- LAF utilities

SCALES = rand(1, 16, 1, 1, seed=32, low=3.0, high=8.0)
ORIS = rand(1, 16, 1, seed=33, low=0.0, high=360.0)
XY = torch.stack([rand(1, 16, seed=34, low=20.0, high=W - 20.0), rand(1, 16, seed=35, low=20.0, high=H - 20.0)], -1)
ANGLES = rand(1, 16, 1, seed=36, low=-90.0, high=90.0)


def _ellipses(n=16, seed=37):
    """Ellipses (x, y, a, b, c) with a x^2 + 2 b x y + c y^2 positive definite (the second value: seed + FRESH_OFFSET)."""
    return twin(_ellipses_of, n, seed)


def _ellipses_of(n, seed, second=False):
    seed = seed + FRESH_OFFSET * second
    c = torch.stack([rand(1, n, seed=seed, low=20.0, high=W - 20.0), rand(1, n, seed=seed + 1, low=20.0, high=H - 20.0)], -1)
    a = rand(1, n, 1, seed=seed + 2, low=0.02, high=0.06)
    cc = rand(1, n, 1, seed=seed + 3, low=0.02, high=0.06)
    b = rand(1, n, 1, seed=seed + 4, low=-0.5, high=0.5) * torch.sqrt(a * cc)
    return torch.cat([c, a, b, cc], -1).contiguous()


add(case("laf_from_center_scale_ori", G_LAF, KF.laf_from_center_scale_ori, [XY]))
add(case("laf_from_center_scale_ori[scale,ori]", G_LAF, KF.laf_from_center_scale_ori, [XY, SCALES, ORIS]))
add(case("get_laf_scale", G_LAF, KF.get_laf_scale, [LAFS]))
add(case("get_laf_center", G_LAF, KF.get_laf_center, [LAFS]))
add(case("get_laf_orientation", G_LAF, KF.get_laf_orientation, [LAFS]))
add(case("rotate_laf", G_LAF, KF.rotate_laf, [LAFS, ANGLES]))
add(case("set_laf_orientation", G_LAF, KF.set_laf_orientation, [LAFS, ANGLES]))
add(case("scale_laf", G_LAF, KF.scale_laf, [LAFS], kwargs={"scale_coef": 2.0}))
add(case("scale_laf[tensor]", G_LAF, KF.scale_laf, [LAFS, rand(1, 16, 1, 1, seed=38, low=0.5, high=2.0)]))
add(case("make_upright", G_LAF, KF.make_upright, [_lafs(16, seed=39, aniso=True)]))
add(case("ellipse_to_laf", G_LAF, KF.ellipse_to_laf, [_ellipses()]))
add(case("laf_to_boundary_points", G_LAF, KF.laf_to_boundary_points, [LAFS]))
add(case("laf_to_boundary_points[n_pts=8]", G_LAF, KF.laf_to_boundary_points, [LAFS_B2], kwargs={"n_pts": 8}))
add(case("normalize_laf", G_LAF, KF.normalize_laf, [LAFS, DET]))
add(case("denormalize_laf", G_LAF, KF.denormalize_laf, [derived(KF.normalize_laf, LAFS, DET), DET]))
add(case("laf_is_inside_image", G_LAF, KF.laf_is_inside_image, [LAFS, DET]))
add(case("laf_is_inside_image[border=4,partly_outside]", G_LAF, KF.laf_is_inside_image,
         [_lafs(16, seed=40, margin=2.0, smin=4.0, smax=10.0), DET], kwargs={"border": 4}))
add(case("laf_is_valid", G_LAF, KF.laf_is_valid, [LAFS]))
add(case("laf_is_filled", G_LAF, KF.laf_is_filled,
         [derived(lambda l: torch.cat([l[:, :12], torch.zeros(1, 4, 2, 3)], 1).contiguous(), LAFS)]))
add(case("laf_to_three_points", G_LAF, KF.laf_to_three_points, [LAFS]))
add(case("laf_from_three_points", G_LAF, KF.laf_from_three_points, [derived(KF.laf_to_three_points, LAFS)]))
add(case("perspective_transform_lafs", G_LAF, KF.perspective_transform_lafs, [homography(), LAFS]))
add(case("perspective_transform_lafs[batch]", G_LAF, KF.perspective_transform_lafs,
         [homography(seed=41, batch_size=2), LAFS_B2]))
add(case("extract_patches_from_pyramid", G_LAF, KF.extract_patches_from_pyramid, [DET, LAFS]))
add(case("extract_patches_from_pyramid[ps=19,large]", G_LAF, KF.extract_patches_from_pyramid,
         [DET2, _lafs(12, seed=42, batch_size=2, smin=8.0, smax=12.0, margin=28.0)], kwargs={"PS": 19}))
add(case("extract_patches_from_pyramid[normalized]", G_LAF, KF.extract_patches_from_pyramid,
         [img(), derived(KF.normalize_laf, _lafs(8, seed=43, h=32, w=40, smin=2.0, smax=4.0, margin=10.0), img())],
         kwargs={"PS": 16, "normalize_lafs_before_extraction": False}))
add(case("extract_patches_simple", G_LAF, KF.extract_patches_simple, [DET, LAFS]))
add(case("extract_patches_simple[ps=19,batch]", G_LAF, KF.extract_patches_simple, [DET2, LAFS_B2], kwargs={"PS": 19}))

# ------------------------------------------------------------------------------------------------- matching

G_M = "feature.matching"
add(case("match_nn", G_M, KF.match_nn, [D1, D2]))
add(case("match_nn[dm]", G_M, KF.match_nn, [D1, D2, torch.cdist(D1, D2)]))
add(case("match_mnn", G_M, KF.match_mnn, [D1, D2]))
add(case("match_mnn[dm]", G_M, KF.match_mnn, [D1, D2, torch.cdist(D1, D2)]))
add(case("match_snn", G_M, KF.match_snn, [D1, D2]))
add(case("match_snn[th=0.95]", G_M, KF.match_snn, [D1, D2], kwargs={"th": 0.95}))
add(case("match_smnn", G_M, KF.match_smnn, [D1, D2]))
add(case("match_smnn[th=0.8]", G_M, KF.match_smnn, [D1, D2], kwargs={"th": 0.8}))
_D1B = torch.stack([D1, _desc_pair(seed=44)[0]])
_D2B = torch.stack([D2, torch.cat([_desc_pair(seed=44)[0].flip(0), _desc_pair(seed=45)[0][:8]])])
add(case("match_smnn_batched", G_M, KF.match_smnn_batched, [_D1B, _D2B], atol=2e-3,
         note="atol 2e-3: eager's own float32 error on these distances, against float64, is 7.2e-4"))
add(case("match_smnn_batched[masks]", G_M,
         ByName(KF.match_smnn_batched, ("desc1", "desc2", "mask1", "mask2"), th=0.9),
         [_D1B, _D2B, torch.arange(24).lt(20).expand(2, 24).contiguous(), torch.ones(2, 32, dtype=torch.bool)]))
add(case("match_fginn", G_M, KF.match_fginn, [D1, D2, L1, L2]))
add(case("match_fginn[mutual,th=0.9]", G_M, KF.match_fginn, [D1, D2, L1, L2],
         kwargs={"th": 0.9, "spatial_th": 5.0, "mutual": True}))
add(case("match_adalam", G_M, KF.match_adalam, [D1A, D2A, L1A, L2A]))
_ADALAM_ARGS = list(derived(lambda l1, l2, d1, d2: [
    KF.get_laf_center(l1).reshape(-1, 2), KF.get_laf_center(l2).reshape(-1, 2), d1, d2,
    KF.get_laf_orientation(l1).reshape(-1), KF.get_laf_orientation(l2).reshape(-1),
    KF.get_laf_scale(l1).reshape(-1), KF.get_laf_scale(l2).reshape(-1)], L1A, L2A, D1A, D2A))
_ADALAM_NAMES = ("k1", "k2", "d1", "d2", "o1", "o2", "s1", "s2")
add(case("AdalamFilter[match_and_filter]", G_M,
         ByName(AdalamFilter().match_and_filter, _ADALAM_NAMES, surveys=AdalamFilter, return_dist=True),
         _ADALAM_ARGS, note="keypoints, orientations and scales of the AdaLAM LAFs, default configuration"))
add(case("AdalamFilter[match_and_filter,hw,no_mnn]", G_M,
         ByName(AdalamFilter({**get_adalam_default_config(), "force_seed_mnn": False, "min_inliers": 4}).match_and_filter,
                _ADALAM_NAMES, surveys=AdalamFilter, im1shape=(H, W), im2shape=(H, W)),
         _ADALAM_ARGS, note="custom configuration, image sizes given"))
add(case("match_adalam[hw]", G_M, KF.match_adalam, [D1A, D2A, L1A, L2A], kwargs={"hw1": (H, W), "hw2": (H, W)}))
for mode in ("snn", "nn", "mnn", "smnn"):
    nm = "DescriptorMatcher" if mode == "snn" else f"DescriptorMatcher[{mode}]"
    th = 0.8 if mode in ("snn", "smnn") else 0.0
    add(case(nm, G_M, KF.DescriptorMatcher(mode, th) if mode != "snn" else KF.DescriptorMatcher(), [D1, D2]))
add(case("GeometryAwareDescriptorMatcher", G_M, KF.GeometryAwareDescriptorMatcher(), [D1, D2, L1, L2]))
add(case("GeometryAwareDescriptorMatcher[adalam]", G_M, KF.GeometryAwareDescriptorMatcher("adalam"),
         [D1A, D2A, L1A, L2A]))


# LightGlue: random init (features=None downloads nothing). Inputs are the keypoints/descriptors of two images.
def _lg_build(kpts0, desc0, kpts1, desc1, size0, size1, scales0=None, oris0=None, scales1=None, oris1=None,
              lafs0=None, lafs1=None):
    d0 = {"keypoints": kpts0, "descriptors": desc0, "image_size": size0}
    d1 = {"keypoints": kpts1, "descriptors": desc1, "image_size": size1}
    if scales0 is not None:
        d0.update(scales=scales0, oris=oris0)
        d1.update(scales=scales1, oris=oris1)
    if lafs0 is not None:
        d0["lafs"], d1["lafs"] = lafs0, lafs1
    return ({"image0": d0, "image1": d1},), {}


def _lightglue(conf_name=None, **conf):
    if conf_name is not None:
        base = {k: v for k, v in KF.LightGlue.features[conf_name].items() if k != "weights"}
        base.update(conf)
        conf = base
    conf.setdefault("flash", False)
    return KF.LightGlue(None, **conf).eval()


def _lightglue_call(names, assemble, conf_name=None, **conf):
    """LightGlue (random init) called with the dict of two images' features assembled from the named tensors."""
    return Assembled(_lightglue(conf_name, **conf), names, assemble, surveys=KF.LightGlue)


_K0 = derived(KF.get_laf_center, L1)
_K1 = derived(KF.get_laf_center, L2)
_SIZE = keep(torch.tensor([[float(W), float(H)]]))  # the image size (W, H) stays the image size
_LG_NAMES = ("kpts0", "desc0", "kpts1", "desc1", "size0", "size1")
add(case("LightGlue", G_M, lazy(_lightglue_call, _LG_NAMES, _lg_build, n_layers=3, surveys=KF.LightGlue),
         [_K0, torch.cat([D1, D1], -1)[None], _K1, torch.cat([D2, D2], -1)[None], _SIZE, _SIZE],
         note="LightGlue(None, n_layers=3): random init, 256-d descriptors"))
add(case("LightGlue[disk]", G_M, lazy(_lightglue_call, _LG_NAMES, _lg_build, "disk", surveys=KF.LightGlue),
         [_K0, D1[None], _K1, D2[None], _SIZE, _SIZE],
         note="the 'disk' configuration at random init, default filter_threshold 0.1 (few or no pairs of a random-init "
         "matcher pass it: the match list may be empty)"))
add(case("LightGlue[sift,scale_ori]", G_M,
         lazy(_lightglue_call, _LG_NAMES + ("scales0", "oris0", "scales1", "oris1"), _lg_build, "sift", n_layers=3,
              surveys=KF.LightGlue),
         [_K0, D1[None], _K1, D2[None], _SIZE, _SIZE,
          *derived(lambda l1, l2: (KF.get_laf_scale(l1)[..., 0, 0] / 6, KF.get_laf_orientation(l1)[..., 0] * math.pi / 180,
                                   KF.get_laf_scale(l2)[..., 0, 0] / 6, KF.get_laf_orientation(l2)[..., 0] * math.pi / 180), L1, L2)],
         note="the 'sift' configuration (add_scale_ori) at random init, 3 layers"))
def _lg_laf_build(kpts0, desc0, kpts1, desc1, size0, size1, lafs0, lafs1):
    return _lg_build(kpts0, desc0, kpts1, desc1, size0, size1, lafs0=lafs0, lafs1=lafs1)


add(case("LightGlue[keynet_affnet_hardnet,laf]", G_M,
         lazy(_lightglue_call, _LG_NAMES + ("lafs0", "lafs1"), _lg_laf_build, "keynet_affnet_hardnet", n_layers=3,
              surveys=KF.LightGlue),
         [_K0, D1[None], _K1, D2[None], _SIZE, _SIZE, L1, L2],
         note="the 'keynet_affnet_hardnet' configuration (add_laf) at random init, 3 layers"))
add(case("LightGlue[xfeat,filter_threshold=0]", G_M,
         lazy(_lightglue_call, _LG_NAMES, _lg_build, "xfeat", filter_threshold=0.0, surveys=KF.LightGlue),
         [_K0, D1[None, :, :64].contiguous(), _K1, D2[None, :, :64].contiguous(), _SIZE, _SIZE],
         note="the 'xfeat' configuration (input projection 64->96) at random init"))


def _lightglue_matcher(feature_name):
    m = KF.LightGlueMatcher.__new__(KF.LightGlueMatcher)
    KF.GeometryAwareDescriptorMatcher.__init__(m, feature_name)
    m.feature_name, m.params = feature_name, {}
    m.matcher = _lightglue(feature_name, n_layers=3, filter_threshold=0.0)
    return m.eval()


add(case("LightGlueMatcher", G_M, lazy(_lightglue_matcher, "disk", surveys=KF.LightGlueMatcher), [D1, D2, L1, L2],
         note="its constructor downloads weights: built as a LightGlueMatcher('disk') around a random-init "
         "LightGlue of the 'disk' configuration (3 layers, filter_threshold=0)"))
add(case("LightGlueMatcher[hw]", G_M, lazy(_lightglue_matcher, "disk", surveys=KF.LightGlueMatcher), [D1, D2, L1, L2],
         kwargs={"hw1": (H, W), "hw2": (H, W)}, note="as LightGlueMatcher, with the image sizes given"))
add(case("LightGlueMatcher[doghardnet]", G_M, lazy(_lightglue_matcher, "doghardnet", surveys=KF.LightGlueMatcher), [D1, D2, L1, L2],
         note="the 'doghardnet' configuration (scale and orientation from the LAFs) at random init"))
add(case("LightGlueMatcher[keynet_affnet_hardnet]", G_M,
         lazy(_lightglue_matcher, "keynet_affnet_hardnet", surveys=KF.LightGlueMatcher),
         [D1, D2, L1, L2], note="the 'keynet_affnet_hardnet' configuration (LAF axes) at random init"))
add(case("OnnxLightGlue", G_M, KF.OnnxLightGlue, [D1, D2],
         skip="runs a pre-exported LightGlue ONNX model that it downloads (or reads from a file); it has no "
         "PyTorch graph to capture and nothing may be downloaded"))

# ------------------------------------------------------------------------------------------------- dense matchers / learned features


class _LoFTRCall(nn.Module):
    __opsweep_target__ = KF.LoFTR

    def __init__(self):
        super().__init__()
        # At random init no coarse match reaches the default confidence 0.2, and the fine stage would see nothing:
        # with thr=0 every mutual nearest neighbour of the dual softmax is a coarse match.
        cfg = copy.deepcopy(LOFTR_DEFAULT_CFG)
        cfg["match_coarse"]["thr"] = 0.0
        self.m = KF.LoFTR(pretrained=None, config=cfg).eval()

    def forward(self, image0, image1, mask0=None, mask1=None):
        data = {"image0": image0, "image1": image1}
        if mask0 is not None:
            data.update(mask0=mask0, mask1=mask1)
        return self.m(data)


_L0 = detector_image()
_L1 = torch.roll(detector_image(seed=17), shifts=(2, 3), dims=(2, 3)).contiguous()
add(case("LoFTR", G_M, lazy(_LoFTRCall), [_L0, _L1], note="LoFTR(pretrained=None): random init; coarse threshold 0 so that the fine stage gets matches"))
_MASK = torch.ones(1, H, W, dtype=torch.bool)
_MASK[:, :, -16:] = False  # the right 16 columns are padding
add(case("LoFTR[mask]", G_M, lazy(_LoFTRCall), [_L0, _L1, _MASK.contiguous(), _MASK.contiguous()],
         note="LoFTR(pretrained=None), coarse threshold 0, with padding masks (the right 16 columns)"))

G_INT = "feature.integrated"
_DEDODE = lazy(KF.DeDoDe, descriptor_model="B", amp_dtype=torch.float32)
_IMG56 = rand(1, 3, 28, 42, seed=46)
add(case("DeDoDe", G_INT, KF.DeDoDe,
         [_IMG56], skip="the default descriptor 'G' downloads the DINOv2 ViT-L backbone in its constructor; the "
         "variants build DeDoDe(descriptor_model='B'), which downloads nothing"))
add(case("DeDoDe[B]", G_INT, _DEDODE, [_IMG56], kwargs={"n": 32},
         note="DeDoDe(descriptor_model='B', amp_dtype=float32): random init, 32 keypoints on a 28x42 image"))
add(case("DeDoDe[B,detect]", G_INT, _DEDODE, [_IMG56], kwargs={"n": 32}, method="detect",
         note="random init"))
add(case("DeDoDe[B,describe]", G_INT, _DEDODE, [_IMG56, rand(1, 32, 2, seed=47, low=-0.9, high=0.9)],
         method="describe", note="random init, keypoints in normalized coordinates"))
add(case("DeDoDe[B,pad]", G_INT, _DEDODE, [rand(1, 3, 30, 40, seed=48)], kwargs={"n": 32},
         note="random init; a size not divisible by 14 is padded"))
_DISK = lazy(KF.DISK)
add(case("DISK", G_INT, _DISK, [rand(1, 3, 64, 64, seed=49)], note="DISK(): random init"))
add(case("DISK[n=64,pad]", G_INT, _DISK, [rand(2, 3, 60, 72, seed=50)],
         kwargs={"n": 64, "pad_if_not_divisible": True}, note="random init"))
add(case("DISK[heatmap_and_dense_descriptors]", G_INT, _DISK, [rand(1, 3, 64, 64, seed=49)],
         method="heatmap_and_dense_descriptors", note="random init"))
# The default hourglass backbone (2 stacks) and 500 junctions with junction refinement take far longer than the
# probe's time budget at random init (every junction candidate fires); one stack and 20 junctions keep each op.
_SOLD2_CFG = DetectorCfg(backbone_cfg=BackboneCfg(num_stacks=1), max_num_junctions=20,
                         line_detector_cfg=LineDetectorCfg(use_junction_refinement=False))
_SOLD2_NOTE = "pretrained=False (random init); one hourglass stack, at most 20 junctions, no junction refinement"
_SOLD_IMG = DET[..., :64].contiguous()  # the hourglass needs sides divisible by 64
_SOLD2D = lazy(KF.SOLD2_detector, pretrained=False, config=_SOLD2_CFG)
add(case("SOLD2_detector", G_INT, _SOLD2D, [_SOLD_IMG], note=_SOLD2_NOTE))
_SOLD2 = lazy(KF.SOLD2, pretrained=False, config=_SOLD2_CFG)
add(case("SOLD2", G_INT, _SOLD2, [_SOLD_IMG], note=_SOLD2_NOTE))
# a dense descriptor map shaped like SOLD2's (1, 128, H/4, W/4), smooth and unit-norm per pixel (seeded)
_sold_desc = torch.nn.functional.normalize(
    torch.nn.functional.interpolate(randn(1, 128, 4, 4, seed=71), size=(16, 16), mode="bilinear", align_corners=False),
    dim=1).contiguous()
_SEG1 = torch.tensor([[[10.0, 10.0], [10.0, 54.0]], [[40.0, 10.0], [50.0, 54.0]], [[20.0, 20.0], [50.0, 20.0]]])
add(case("SOLD2[match]", G_INT, _SOLD2, [_SEG1, _SEG1 + 1.0, _sold_desc, _sold_desc + 0.01 * randn(*_sold_desc.shape, seed=51)],
         method="match", note="line matching on seeded smooth unit-norm descriptor maps (the second one perturbed)"))
add(case("aliked.deform_conv2d", G_INT, deform_conv2d,
         [randn(1, 4, 12, 12, seed=60), randn(1, 18, 10, 10, seed=61, scale=0.8), randn(6, 4, 3, 3, seed=62, scale=0.3)],
         note="3x3 kernel, fractional offsets, no padding"))
add(case("aliked.deform_conv2d[bias,padding,mask]", G_INT,
         ByName(deform_conv2d, ("input", "offset", "weight", "bias", "mask"), padding=(1, 1)),
         [randn(2, 4, 12, 12, seed=63), randn(2, 18, 12, 12, seed=64, scale=0.8), randn(6, 4, 3, 3, seed=65, scale=0.3),
          randn(6, seed=66), rand(2, 9, 12, 12, seed=67)], note="DCNv2: modulation mask, bias, padding 1"))
add(case("aliked.deform_conv2d[stride=2,dilation=2]", G_INT, deform_conv2d,
         [randn(1, 4, 16, 16, seed=68), randn(1, 18, 6, 6, seed=69, scale=0.8), randn(6, 4, 3, 3, seed=70, scale=0.3)],
         kwargs={"stride": (2, 2), "dilation": (2, 2)}))
_ALIKED = lazy(KF.ALIKED)
add(case("ALIKED", G_INT, _ALIKED, [rand(1, 3, 64, 64, seed=52)], note="ALIKED(): random init"))
add(case("ALIKED[max=64,batch,gray]", G_INT, lazy(KF.ALIKED, max_num_keypoints=64, detection_threshold=0.0),
         [rand(2, 1, 64, 64, seed=53)], note="random init, top-64 keypoints"))
add(case("ALIKED[forward_laf]", G_INT, _ALIKED, [rand(1, 3, 64, 64, seed=52)], method="forward_laf",
         note="random init"))
add(case("ALIKED[extract_dense_map]", G_INT, _ALIKED, [rand(1, 3, 64, 64, seed=52)], method="extract_dense_map",
         note="random init"))
_XFEAT = lazy(KF.XFeat, top_k=256, detection_threshold=0.0)
_XI1 = rand(1, 3, 64, 96, seed=54)
_XI2 = torch.roll(_XI1, shifts=(8, 8), dims=(2, 3)).contiguous()  # one coarse (1/8) cell
add(case("XFeat[detectAndCompute]", G_INT, _XFEAT, [_XI1], method="detectAndCompute",
         note="XFeat(top_k=256, detection_threshold=0): random init, so every heatmap maximum counts (XFeat has no forward)"))


class _XFeatDenseInOrder(nn.Module):
    """XFeat whose detectAndComputeDense returns its keypoints (with their descriptors and scales) sorted by
    position, then scale. XFeat orders them by score, and at random init many scores tie: eager and a capture
    then return the same keypoints in different orders among the ties (measured: the same set, 7 rows
    permuted under torch.compile, and another permutation on the next compile), which is no difference to a
    user of the keypoint set."""

    __opsweep_target__ = KF.XFeat

    def __init__(self, **kwargs):
        super().__init__()
        self.m = KF.XFeat(**kwargs)

    def detectAndComputeDense(self, x):  # noqa: N802 (kornia's name)
        out = self.m.detectAndComputeDense(x)
        kp = out["keypoints"].double()
        order = torch.argsort(kp[..., 0] * 1e4 + kp[..., 1] * 10 + out["scales"].double(), dim=1)
        return {"keypoints": torch.gather(out["keypoints"], 1, order[..., None].expand(-1, -1, 2)),
                "descriptors": torch.gather(out["descriptors"], 1, order[..., None].expand(-1, -1, out["descriptors"].shape[-1])),
                "scales": torch.gather(out["scales"], 1, order)}


add(case("XFeat[detectAndComputeDense]", G_INT, lazy(_XFeatDenseInOrder, top_k=256, detection_threshold=0.0), [_XI1],
         method="detectAndComputeDense",
         note="random init; the keypoints sorted by position (XFeat orders them by score, and at random init many "
              "scores tie, so eager and a capture list the same keypoints in different orders)"))
add(case("XFeat[match_xfeat]", G_INT, _XFEAT, [_XI1, _XI2], method="match_xfeat", note="random init"))
def _confident_xfeat():
    """XFeat at random init with its fine matcher made confident, so refined matches pass its fixed 0.25 threshold."""
    m = KF.XFeat(top_k=256, detection_threshold=0.0).eval()
    with torch.no_grad():
        [x for x in m.net.fine_matcher.modules() if isinstance(x, nn.Linear)][-1].weight.mul_(1000.0)
    return m


_XFEAT_STAR = lazy(_confident_xfeat, surveys=KF.XFeat)
add(case("XFeat[match_xfeat_star]", G_INT, _XFEAT_STAR, [_XI1, _XI2], method="match_xfeat_star",
         note="random init, last fine-matcher layer scaled by 1000 so that refinements pass the fixed 0.25 confidence"))
add(case("XFeatModel", G_INT, lazy(KF.XFeatModel), [rand(1, 1, 64, 96, seed=55)], note="random init"))
add(case("InterpolateSparse2d", G_INT, KF.InterpolateSparse2d(), [randn(1, 8, 8, 12, seed=56),
                                                                  rand(1, 20, 2, seed=57, low=0.0, high=90.0)],
         kwargs={"H": 64, "W": 96}))
add(case("InterpolateSparse2d[bilinear]", G_INT, KF.InterpolateSparse2d("bilinear"),
         [randn(1, 8, 8, 12, seed=56), rand(1, 20, 2, seed=57, low=0.0, high=90.0)], kwargs={"H": 64, "W": 96}))
add(case("DeFMO", G_INT, lazy(KF.DeFMO, pretrained=False), [rand(1, 6, 32, 32, seed=58)],
         note="DeFMO(pretrained=False): random init"))

# ------------------------------------------------------------------------------------------------- integrated pipelines

_SIFT = KF.SIFTFeature(num_features=128).eval()
add(case("SIFTFeature", G_INT, KF.SIFTFeature(256).eval(), [DET],
         note="num_features=256: the default 8000 pads the output to 8000 described slots, far past the time budget"))
add(case("SIFTFeature[num_features=128,mask]", G_INT, _SIFT, [DET, _mask(59, 0.1)]))
add(case("SIFTFeature[upright,opencv]", G_INT,
         KF.SIFTFeature(128, upright=True, descriptor_layout="opencv").eval(), [DET]))
add(case("SIFTFeature[pyramid]", G_INT, KF.SIFTFeature(128, descriptor_backend="pyramid").eval(), [DET]))
add(case("SIFTFeatureScaleSpace", G_INT, KF.SIFTFeatureScaleSpace(256).eval(), [DET],
         note="num_features=256: the default 8000 pads the output to 8000 described slots, far past the time budget"))
add(case("SIFTFeatureScaleSpace[pyramid]", G_INT,
         KF.SIFTFeatureScaleSpace(128, descriptor_backend="pyramid").eval(), [DET2]))
add(case("SIFTFeatureScaleSpace[upright,no_root]", G_INT,
         KF.SIFTFeatureScaleSpace(128, upright=True, rootsift=False).eval(), [DET]))
add(case("LocalFeature", G_INT,
         KF.LocalFeature(KF.ScaleSpaceDetector(64), KF.LAFDescriptor(KF.SIFTDescriptor(32))).eval(), [DET]))
add(case("LocalFeature[scaling_coef=2,hardnet]", G_INT,
         lazy(lambda: KF.LocalFeature(KF.ScaleSpaceDetector(4, resp_module=KF.CornerGFTT()),
                                      KF.LAFDescriptor(KF.HardNet(False)), 2.0), surveys=KF.LocalFeature), [DET],
         fresh_inputs=[DET_FRESH],
         # Only the batch varies: the default other image sizes resample DET (nearest index), and at
         # 80x96 the detector finds no corner in it (0 to 3 of 4 slots for every seed 6..59), so the
         # comparison there would be between HardNet's normalisations of constant padding patches.
         dynamic={0: (0,)},
         note="random-init HardNet; 4 features, all real corners (more would leave padding slots, whose constant "
         "patches HardNet's per-patch normalisation turns into noise); at other shapes only the batch varies, "
         "since the resampled image at the next sizes has no corner the detector keeps"))


def _ss_detector(num_features, resp, upright, aff, dog=False):
    if dog:
        return KF.ScaleSpaceDetector(num_features, resp_module=KF.BlobDoG(), subpix_module=ConvQuadInterp3d(),
                                     scale_pyr_module=ScalePyramid(3, 1.6, 32, double_image=True),
                                     ori_module=KF.PassLAF() if upright else KF.LAFOrienter(19), aff_module=aff,
                                     scale_space_response=True, minima_are_also_good=True, mr_size=6.0)
    return KF.ScaleSpaceDetector(num_features, resp_module=resp,
                                 scale_pyr_module=ScalePyramid(3, 1.6, 32, double_image=True, extra_levels=2),
                                 ori_module=KF.PassLAF() if upright else KF.LAFOrienter(19), aff_module=aff,
                                 scale_space_response=False, minima_are_also_good=False, mr_size=6.0)


def _affnet():
    return KF.LAFAffNetShapeEstimator(False, preserve_orientation=False).eval()


def _hardnet_desc():
    return KF.LAFDescriptor(KF.HardNet(False), patch_size=32, grayscale_descriptor=True)


def _keynet_det(num_features, upright, aff):
    ori = KF.PassLAF() if upright else KF.LAFOrienter(angle_detector=KF.OriNet(False))
    return _firing(KF.KeyNetDetector(False, num_features=num_features, ori_module=ori, aff_module=aff))


def _firing(det):
    """KeyNet's last layer is conv + ReLU. A random draw can make that conv negative on every pixel of DET:
    every response is 0, the detector finds nothing and the descriptors describe padding. Such a draw is
    negated (another draw from the same symmetric initialisation; the graph is unchanged), so it fires."""
    training = det.model.training
    with torch.no_grad():
        det.model.eval()  # as the cases run it (batch norm on its running statistics)
        if not bool((det.model(DET) > 0).any()):
            det.model.last_conv[0].weight.neg_()
            det.model.last_conv[0].bias.neg_()
    det.model.train(training)
    return det


_NOTE_ASM = ("its constructor downloads pretrained weights: a genuine {} instance assembled with the same detector "
             "and descriptor modules at random initialisation (pretrained=False)")
_INTEGRATED = {
    "GFTTAffNetHardNet": lambda n, up: (_ss_detector(n, KF.CornerGFTT(), up, _affnet()), _hardnet_desc(), 1.0),
    "HesAffNetHardNet": lambda n, up: (_ss_detector(n, KF.BlobHessian(), up, _affnet()), _hardnet_desc(), 1.0),
    "DoGHardNet": lambda n, up: (_ss_detector(n, None, up, None, dog=True), _hardnet_desc(), 2.0),
    "DoGAffNetHardNet": lambda n, up: (_ss_detector(n, None, up, _affnet(), dog=True), _hardnet_desc(), 2.0),
    "KeyNetHardNet": lambda n, up: (_keynet_det(n, up, None), _hardnet_desc(), 1.0),
    "KeyNetAffNetHardNet": lambda n, up: (_keynet_det(n, up, _affnet()), _hardnet_desc(), 1.0),
}
# Feature counts: on DET these detectors find 12 (KeyNet+AffNet) to 42 (Hessian) keypoints. Asking for more
# fills the rest with padding slots whose patches are constant, and HardNet's per-patch normalisation
# ((x - mean) / (std + eps)) turns a constant patch into rounding noise: 1e-6 of input noise moves 89% of
# such descriptors by up to 0.28. So the cases ask for 8 (6 upright) and every slot is a real keypoint
# (the scale-space detectors share the count out over octaves: asking for 12 gives only 10 real ones).
_EXTRA_NOTE = {
    "KeyNetHardNet": "; KeyNet's last conv negated when its random draw would not fire on the image (see _firing)",
    "KeyNetAffNetHardNet": "; KeyNet's last conv negated when its random draw would not fire on the image (see _firing)",
}


def _integrated(name, num_features, upright):
    """The integrated pipeline ``name`` assembled at random init (see _NOTE_ASM)."""
    return _assemble(getattr(KF, name), KF.LocalFeature.__init__, *_INTEGRATED[name](num_features, upright))


for _name in _INTEGRATED:
    _cls = getattr(KF, _name)
    _extra = _EXTRA_NOTE.get(_name, "")
    add(case(_name, G_INT, lazy(_integrated, _name, 8, False, surveys=_cls), [DET], fresh_inputs=[DET_FRESH],
             note=_NOTE_ASM.format(_name) + "; 8 features, all real keypoints" + _extra))
    add(case(f"{_name}[upright]", G_INT, lazy(_integrated, _name, 6, True, surveys=_cls), [DET], fresh_inputs=[DET_FRESH],
             note=_NOTE_ASM.format(_name) + "; upright, 6 features, all real keypoints" + _extra))


class _LFMCall(nn.Module):
    __opsweep_target__ = KF.LocalFeatureMatcher

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, image0, image1, lafs0=None, descriptors0=None, lafs1=None, descriptors1=None):
        data = {"image0": image0, "image1": image1}
        if lafs0 is not None:
            data.update(lafs0=lafs0, descriptors0=descriptors0, lafs1=lafs1, descriptors1=descriptors1)
        return self.m(data)


_MI0 = detector_image()
_MI1 = torch.roll(detector_image(seed=18), shifts=(1, 2), dims=(2, 3)).contiguous()
add(case("LocalFeatureMatcher", G_INT,
         _LFMCall(KF.LocalFeatureMatcher(KF.SIFTFeature(128), KF.DescriptorMatcher("smnn", 0.95))), [_MI0, _MI1],
         note="SIFTFeature(128) with DescriptorMatcher('smnn', 0.95)"))
add(case("LocalFeatureMatcher[gftt_affnet_hardnet,snn]", G_INT,
         lazy(lambda: _LFMCall(KF.LocalFeatureMatcher(_integrated("GFTTAffNetHardNet", 128, False),
                                                      KF.DescriptorMatcher("snn", 0.9))),
              surveys=KF.LocalFeatureMatcher), [_MI0, _MI1],
         note="GFTTAffNetHardNet at random init (see its case) with DescriptorMatcher('snn', 0.9)"))
add(case("LocalFeatureMatcher[precomputed]", G_INT,
         _LFMCall(KF.LocalFeatureMatcher(KF.SIFTFeature(128), KF.DescriptorMatcher("mnn"))),
         [_MI0, _MI1, L1, D1[None], L2, D2[None]], note="pre-extracted LAFs and descriptors"))
