"""Dynamic-shape overrides of the bundled kornia cases, keyed by case name (docs/dynamic-shapes.md).

The defaults (opsweep/shapes.py: batch, and H, W of image-like inputs) suit most cases; these are
the cases where eager rejects the default other shapes, found by running eager at them over every
bundled case. Each entry is one of (shapes.parse_override):
- ``{"only": "batch"}`` / ``{"only": "spatial"}``: that part of the defaults only;
- ``{input index: dims}``: these dimensions;
- ``{"shapes": [[...], [...]]}``: the two other shapes outright;
- a reason string: not probed at other shapes.

Kept apart from the registries on purpose: an override changes only the dynamic-shape paths'
results (this file is in their harness digest, see their ``uses``), so editing one never re-probes
the static paths of a case, as a change to ``case(dynamic=...)`` (part of the case fingerprint)
would. A case's own ``dynamic=`` wins over an entry here.
"""

from __future__ import annotations

BATCH_ONLY = {"only": "batch"}
SPATIAL_ONLY = {"only": "spatial"}

_FIXED_PATCH = "descriptor of fixed-size patches: only the number of patches may vary"
_ONE_IMAGE = "takes one image: only H, W may vary"

DYNAMIC: dict[str, object] = {}


def _all(names: list[str], entry: object) -> None:
    for name in names:
        DYNAMIC[name] = entry


# --- augmentation: parameters (boxes, per-sample tensors) are baked kwargs of the case's batch
_all(
    [
        "RandomCrop", "RandomCrop[resample]", "RandomCrop[padding]", "RandomCrop[pad_if_needed]",
        "RandomCutMixV2", "RandomCutMixV2[num_mix=2]", "RandomMosaic[bbox_xyxy]", "PatchSequential",
        "AdjustBrightness[factor=tensor]", "Affine", "Affine[nearest]", "Affine[reflection]",
        "ImageRegistrator.register", "ImageRegistrator.register[similarity]",
        "ImageRegistrator.warp_src_into_dst", "ImageRegistrator.warp_dst_into_src",
    ],
    SPATIAL_ONLY,
)
_all(["VideoSequential", "VideoSequential[BCTHW]"], "the per-frame parameters are inputs of the case's batch x frames")

# --- colour: the chroma planes are half the luma's size
DYNAMIC["yuv420_to_rgb"] = DYNAMIC["Yuv420ToRgb"] = {
    "shapes": [[(2, 1, 48, 56), (2, 2, 24, 28)], [(3, 1, 64, 72), (3, 2, 32, 36)]]
}
DYNAMIC["yuv422_to_rgb"] = DYNAMIC["Yuv422ToRgb"] = {
    "shapes": [[(2, 1, 48, 56), (2, 2, 48, 28)], [(3, 1, 64, 72), (3, 2, 64, 36)]]
}
DYNAMIC["enhance.normalize[scalar]"] = {0: (0, 2, 3)}  # mean and std are per channel, not per sample

# --- contrib
DYNAMIC["EdgeDetector[list]"] = {0: (1, 2), 1: (1, 2)}  # a list of CxHxW images

# --- feature: detectors take one image; descriptors fixed-size patches; matchers keypoint counts
_all(
    [
        "MultiResolutionDetector", "MultiResolutionDetector[num_features=64,dog]",
        "MultiResolutionDetector[orienter,affine,threshold]", "KeyNetDetector",
        "KeyNetDetector[num_features=64,orinet,affnet]", "SIFTFeature", "SIFTFeature[num_features=128,mask]",
        "SIFTFeature[upright,opencv]", "SIFTFeature[pyramid]", "KeyNetHardNet", "KeyNetHardNet[upright]",
        "KeyNetAffNetHardNet", "KeyNetAffNetHardNet[upright]", "LocalFeatureMatcher",
    ],
    SPATIAL_ONLY,
)
_all(
    [
        "PatchDominantGradientOrientation", "PatchDominantGradientOrientation[ps=19,bins=18]",
        "PatchAffineShapeEstimator", "PatchAffineShapeEstimator[ps=32]", "SIFTDescriptor",
        "SIFTDescriptor[ps=32,no_root]", "SIFTDescriptor[ps=19,bins=4x2]", "MKDDescriptor[whitening=None]",
        "MKDDescriptor[polar,whitening=None]", "MKDDescriptor[cart,ps=41,whitening=None]", "HardNet",
        "HardNet8", "HyNet", "TFeat", "SOSNet",
        "aliked.deform_conv2d", "aliked.deform_conv2d[stride=2,dilation=2]",
    ],
    BATCH_ONLY,
)
# descriptors (N1 x D, N2 x D) and their LAFs (1 x N1 x 2 x 3, 1 x N2 x 2 x 3): the keypoint counts vary
_all(
    [
        "match_adalam", "match_adalam[hw]", "GeometryAwareDescriptorMatcher[adalam]", "LightGlueMatcher",
        "LightGlueMatcher[hw]", "LightGlueMatcher[doghardnet]", "LightGlueMatcher[keynet_affnet_hardnet]",
    ],
    {0: (0,), 1: (0,), 2: (1,), 3: (1,)},
)

# --- geometry.camera: B x N x 2 points with B x K parameters broadcast only at B = 1: vary N
_all(
    [
        "distort_points_affine", "undistort_points_affine", "dx_distort_points_affine",
        "distort_points_kannala_brandt", "undistort_points_kannala_brandt", "dx_distort_points_kannala_brandt",
    ],
    {0: (1,)},
)
DYNAMIC["PinholeCamera.from_parameters"] = "the extrinsics are a baked kwarg of the case's batch"
_all(
    ["DepthWarper", "DepthWarper[nearest]", "DepthWarper[align_corners=False]", "DepthWarper.warp_grid",
     "depth_warp", "depth_warp[align_corners=False]"],
    BATCH_ONLY,  # the warper is built for one height and width
)
DYNAMIC["warp_grid[batch=2]"] = {0: (1, 2), 1: (0,)}  # a 1 x H x W x 2 grid broadcast over B homographies

# --- losses whose reference is a baked kwarg of the input's shape
_all(
    ["MILossFromRef", "MILossFromRef[masks]", "MILossFromRef2D", "MILossFromRef3D", "NMILossFromRef",
     "NMILossFromRef2D", "NMILossFromRef3D"],
    "the reference signal is a baked kwarg of the input's shape",
)

# --- kornia.image / utils: C x H x W images without a batch
_all(
    ["Image[to_gray]", "Image[to_rgb,from_bgr]", "Image[to_rgb,from_gray]", "Image[to_bgr]", "Image[float,uint8]",
     "Image[clone]", "Image[data]", "image_to_string", "print_image", "utils.image_to_string", "utils.print_image"],
    {0: (1, 2)},
)

# --- camera models: a parameter vector (K,) and N points
_all(
    ["PinholeModel[project]", "BrownConradyModel[project]", "Orthographic[project]", "CameraModel[project]",
     "PinholeModel[matrix]", "CameraModel[brown_conrady,project]", "KannalaBrandtK3[project]",
     "CameraModel[kannala_brandt,project]"],
    {1: (0,)},
)
_all(
    ["PinholeModel[unproject]", "BrownConradyModel[unproject]", "Orthographic[unproject]", "CameraModel[unproject]",
     "KannalaBrandtK3[unproject]"],
    {1: (0,), 2: (0,)},
)

# --- models built for one input size (position embeddings, token grids)
_all(
    ["VisionTransformer", "VisionTransformer[batch,patch=4]", "VisionTransformer[backbone]",
     "VisionTransformer.from_config", "TinyViT", "TinyViT[mobile_sam]", "TinyViT.from_config", "SigLip2Model",
     "SigLip2Model[attention_mask]", "SigLip2Model[get_image_features]", "SigLip2Builder.from_config",
     "MoonViT[attention_mask]", "PaliGemma"],
    BATCH_ONLY,
)
# sizes that suit the model's patch grid: multiples of 32 for RT-DETR, of 32 x patch for MobileViT
# (64 for patch 2; patch 4 keeps its size: 256 and 384 would cost minutes), of 28 for Qwen / Kimi
_all(["RTDETR", "RTDETR[hgnetv2_l]"], {"shapes": [[(2, 3, 96, 96)], [(3, 3, 128, 128)]]})
DYNAMIC["RTDETR[resnet50d_m,batch]"] = {"shapes": [[(4, 3, 96, 96)], [(6, 3, 128, 128)]]}
_all(["MobileViT", "MobileViT[xs]"], {"shapes": [[(2, 3, 128, 128)], [(3, 3, 192, 192)]]})
DYNAMIC["MobileViT[s,batch]"] = {"shapes": [[(4, 3, 128, 128)], [(6, 3, 192, 192)]]}
DYNAMIC["MobileViT[patch=4]"] = BATCH_ONLY
_all(["KimiVLModel", "KimiVLBuilder.from_config", "Qwen25VisionTransformer"],
     {"shapes": [[(2, 3, 84, 84)], [(3, 3, 112, 112)]]})
DYNAMIC["Qwen25VisionTransformer[batch,rect]"] = {"shapes": [[(4, 3, 84, 140)], [(6, 3, 112, 168)]]}
_all(["Sam", "Sam[box,mask,single]"], "the image encoder is built for 1024 x 1024 and the prompts for one image")
