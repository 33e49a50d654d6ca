"""kornia.contrib and kornia.tracking (kornia.x does not exist in kornia 0.9.0).

Not surveyed (NOT_SURVEYED below):
    compute_padding            pure Python integer arithmetic on sizes (returns a tuple of ints): no tensor graph.

Types, not operators (``opsweep coverage`` sets them aside and lists them under ``not_operators``):
    AugmentationAuditReport, AugmentationAuditStep, SpatialAudit
                               result dataclasses returned by ``audit`` (probed through the ``audit`` cases).
    SuperResolutionConfig      a configuration dataclass (SuperResolution is probed through its builders).
    FaceKeypoint               an enum.

TinyViT is a re-export of kornia.models.TinyViT: probed under models.tiny_vit (cases_models.py).
FaceDetectorResult (a view over one row of FaceDetector's output) lives in the module kornia.contrib.face_detection,
which is not a package and not in kornia.contrib.__all__, so it is not counted.

Counting (``opsweep coverage --library kornia``, depth 2): kornia.contrib's ``__all__`` has 28 callables: 23 are
probed (TinyViT through cases_models.py), compute_padding is in NOT_SURVEYED and the 4 dataclasses above are types;
kornia.tracking has 1, probed. FaceDetector (exported by ``from .face_detection import *`` but not in ``kornia.contrib.__all__``) is
probed as well.

No case downloads weights: builders get ``pretrained=False``; FaceDetector (whose constructor always asks for the
pretrained YuNet) is built by its own constructor with YuNet's ``pretrained`` forced to False, see ``_face_detector``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

import kornia.augmentation as K
import kornia.contrib as KC
import kornia.contrib.face_detection as _face_detection
import kornia.feature as KF
from kornia.color import rgb_to_grayscale as _gray
from kornia.models.processors import ResizePostProcessor, ResizePreProcessor
from kornia.models.rt_detr import RTDETRConfig
from kornia.tracking import HomographyTracker

from opsweep.case import lazy

NOT_SURVEYED = {
    "kornia.contrib.compute_padding": "integer arithmetic on sizes (returns a tuple of ints): no tensor graph",
}

from ._common import FRESH_OFFSET, Built, ByName, Forward, batch, case, derived, gray, img, rand, randn, structured, twin

# Masks, sorted sample points and the overlapping views of one scene declare a second value of the same
# kind (``twin``, ``derived``): the fresh-input check runs on valid inputs (stitching needs views that overlap).

# Networks are lazy (``lazy(...)``): built when a job of their case runs, under a seed derived from the case
# name (opsweep.case.construction_seed), so loading this registry builds none of them.

CASES = []
add = CASES.append
G = "contrib"


def _scene(h: int = 64, w: int = 128, seed: int = 100) -> torch.Tensor:
    """A textured RGB scene (seeded noise at half resolution, bilinearly upsampled): many stable DoG features
    (the second value: seed + FRESH_OFFSET)."""
    return twin(_scene_of, h, w, seed)


def _scene_of(h: int, w: int, seed: int, second: bool = False) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed + FRESH_OFFSET * second)
    x = torch.rand(1, 3, h // 2, w // 2, generator=g)
    x = torch.nn.functional.interpolate(x, size=(h, w), mode="bilinear", align_corners=False)
    return ((x - x.min()) / (x.max() - x.min())).contiguous()


SCENE = _scene()
LEFT, RIGHT = derived(lambda sc: (sc[..., :80].contiguous(), sc[..., 40:120].contiguous()), SCENE)  # overlap: 40 columns

# ------------------------------------------------------------------------------------------------- connected components / distance transform


def _blobs_mask(h=32, w=40, seed=101):
    """A 0/1 mask of a few blobs (the second value: other blobs)."""
    def build(second=False):
        m = torch.zeros(1, 1, h, w)
        if second:
            for y0, y1, x0, x1 in [(1, 7, 1, 15), (10, 30, 20, 24), (12, 16, 2, 19), (3, 9, 28, 39), (22, 29, 28, 36)]:
                m[..., y0:y1, x0:x1] = 1.0
        else:
            m[..., 2:10, 3:12] = 1.0
            m[..., 14:28, 5:9] = 1.0
            m[..., 18:22, 9:30] = 1.0
            m[..., 4:12, 25:37] = 1.0
            m[..., 26:30, 33:38] = 1.0
        return m.contiguous()

    return twin(build)


MASK = _blobs_mask()
add(case("connected_components", G, KC.connected_components, [MASK]))
add(case("connected_components[iters=20,batch]", G, KC.connected_components,
         [derived(lambda m: torch.cat([m, m.flip(-1)]).contiguous(), MASK)], kwargs={"num_iterations": 20}))
add(case("connected_components_union_find", G, KC.connected_components_union_find, [MASK]))
add(case("connected_components_union_find[batch]", G, KC.connected_components_union_find,
         [derived(lambda m: torch.cat([m, m.flip(-2)]).contiguous(), MASK)]))
add(case("distance_transform", G, KC.distance_transform, [MASK]))
add(case("distance_transform[k=5,h=0.5]", G, KC.distance_transform, [derived(lambda m: torch.cat([m, 1 - m], 1).contiguous(), MASK)],
         kwargs={"kernel_size": 5, "h": 0.5}))
add(case("DistanceTransform", G, KC.DistanceTransform(), [MASK]))
add(case("DistanceTransform[k=5]", G, KC.DistanceTransform(5, 0.5), [derived(lambda m: torch.cat([m, 1 - m]).contiguous(), MASK)]))

# ------------------------------------------------------------------------------------------------- patches

add(case("extract_tensor_patches", G, KC.extract_tensor_patches, [img()], kwargs={"window_size": 8}))
add(case("extract_tensor_patches[stride=8]", G, KC.extract_tensor_patches, [batch()],
         kwargs={"window_size": 8, "stride": 8}))
add(case("extract_tensor_patches[rect,padding]", G, KC.extract_tensor_patches, [img()],
         kwargs={"window_size": (6, 10), "stride": (4, 5), "padding": (1, 2)}))
add(case("extract_tensor_patches[auto_padding]", G, KC.extract_tensor_patches, [img()],
         kwargs={"window_size": 12, "stride": 12, "allow_auto_padding": True}))
add(case("ExtractTensorPatches", G, KC.ExtractTensorPatches(8), [img()]))
add(case("ExtractTensorPatches[stride=8]", G, KC.ExtractTensorPatches(8, 8), [batch()]))
add(case("ExtractTensorPatches[rect,padding]", G, KC.ExtractTensorPatches((6, 10), (4, 5), (1, 2)), [img()]))
_P8 = KC.extract_tensor_patches(batch(), 8, 8)
add(case("combine_tensor_patches", G, KC.combine_tensor_patches, [_P8],
         kwargs={"original_size": (32, 40), "window_size": 8, "stride": 8}))
_P12 = KC.extract_tensor_patches(img(), 12, 12, allow_auto_padding=True)
add(case("combine_tensor_patches[auto_unpadding]", G, KC.combine_tensor_patches, [_P12],
         kwargs={"original_size": (32, 40), "window_size": 12, "stride": 12, "allow_auto_unpadding": True}))
_P_OV = KC.extract_tensor_patches(img(), 8, 4)
add(case("combine_tensor_patches[overlap]", G, KC.combine_tensor_patches, [_P_OV],
         kwargs={"original_size": (32, 40), "window_size": 8, "stride": 4}))
add(case("CombineTensorPatches", G, KC.CombineTensorPatches((32, 40), 8), [_P8],
         note="window 8, stride defaults to the window"))
add(case("CombineTensorPatches[auto_unpadding]", G,
         KC.CombineTensorPatches((32, 40), 12, 12, allow_auto_unpadding=True), [_P12]))

# ------------------------------------------------------------------------------------------------- histogram / interp / diamond-square

add(case("histogram_matching", G, KC.histogram_matching, [rand(3, 32, 40, seed=102), rand(3, 24, 30, seed=103) ** 2]))
add(case("histogram_matching[gray]", G, KC.histogram_matching, [gray()[0, 0], rand(16, 20, seed=104) ** 0.5]))
_XP = structured(torch.linspace(0.0, 1.0, 11), torch.linspace(0.0, 1.0, 11) ** 1.3)  # sample points: sorted
add(case("interp", G, KC.interp, [rand(50, seed=105, low=-0.1, high=1.1), _XP, torch.sin(3 * _XP)]))


def _seeded_rand(shape, device=None, dtype=None):
    """A deterministic stand-in for torch.rand (a fixed pattern of the shape), so values can be compared."""
    n = math.prod(shape)
    return (torch.sin(torch.arange(n, dtype=dtype, device=device) * 12.9898) * 43758.5453).frac().abs().view(shape)


add(case("diamond_square", G, ByName(KC.diamond_square, (), output_size=(1, 1, 33, 33)), [],
         check=False, note="random (torch.rand inside the graph)"))
add(case("diamond_square[tensor_params,random]", G,
         ByName(KC.diamond_square, ("roughness", "random_scale"), output_size=(2, 3, 17, 20)),
         [torch.tensor(0.6), torch.tensor(0.8)], check=False, note="roughness and scale as graph inputs"))
add(case("diamond_square[deterministic,normalized]", G,
         ByName(KC.diamond_square, ("roughness", "random_scale"), output_size=(1, 1, 33, 33), random_fn=_seeded_rand,
                normalize_range=(0.0, 1.0)),
         [torch.tensor(0.5), torch.tensor(1.0)],
         note="a deterministic random_fn (fixed pattern), so the values are compared; normalize_range=(0, 1)"))

# ------------------------------------------------------------------------------------------------- KMeans / Lambda / audit

_PTS = torch.cat([randn(40, 2, seed=106, scale=0.3) + torch.tensor([2.0, 0.0]),
                  randn(40, 2, seed=107, scale=0.3) + torch.tensor([-2.0, 1.0]),
                  randn(40, 2, seed=108, scale=0.3) + torch.tensor([0.0, -2.0])]).contiguous()
_KM = KC.KMeans(3, None, seed=0)
_KM.fit(_PTS)


class _KMeansFit(nn.Module):
    """KMeans.fit on the graph input, returning the fitted centres (fit itself returns None)."""

    __opsweep_target__ = KC.KMeans

    def __init__(self, num_clusters, max_iterations=0, **kw):
        super().__init__()
        self.num_clusters, self.max_iterations, self.kw = num_clusters, max_iterations, kw

    def forward(self, x, centers=None):
        km = KC.KMeans(self.num_clusters, centers, max_iterations=self.max_iterations, seed=0, **self.kw)
        km.fit(x)
        return km.cluster_centers, km.cluster_assignments


add(case("KMeans[fit]", G, _KMeansFit(3), [_PTS], check=False,
         note="random initial centres (seeded generator), then Lloyd iterations to tolerance"))
add(case("KMeans[fit,init_centers,iters=10]", G, _KMeansFit(3, 10),
         [_PTS, torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, -1.0]])],
         note="given initial centres: deterministic; 10 iterations at most"))
add(case("KMeans[predict]", G, _KM, [randn(30, 2, seed=109, scale=2.0)], method="predict",
         note="fitted at registry load on three separated clusters"))
add(case("Lambda", G, KC.Lambda(lambda x: x.flip(-1) * 0.5 + 0.25), [img()], note="a flip and affine map"))
add(case("Lambda[kornia_fn]", G, KC.Lambda(__import__("kornia").color.rgb_to_grayscale), [batch()],
         note="wrapping kornia.color.rgb_to_grayscale"))


class _Audit(nn.Module):
    def __init__(self, seq, data_keys=None):
        super().__init__()
        self.__opsweep_target__ = KC.audit  # an instance attribute: a class attribute would bind as a method
        self.seq, self.data_keys = seq, data_keys

    def forward(self, *args):
        return KC.audit(self.seq, *args, data_keys=self.data_keys)


_AUG = K.AugmentationSequential(K.RandomHorizontalFlip(p=1.0), K.Resize((24, 30)), K.CenterCrop((20, 24)))
add(case("audit", G, _Audit(_AUG), [batch()],
         note="AugmentationSequential(hflip p=1, Resize, CenterCrop): deterministic; outputs and the report tensors"))
_KPTS = torch.stack([rand(2, 6, seed=110, low=2.0, high=38.0), rand(2, 6, seed=111, low=2.0, high=30.0)], -1)
add(case("audit[mask,keypoints]", G,
         _Audit(K.AugmentationSequential(K.RandomVerticalFlip(p=1.0), K.Resize((16, 20))),
                data_keys=["input", "mask", "keypoints"]),
         [batch(), derived(lambda r: (r > 0.5).float(), rand(2, 1, 32, 40, seed=112)), _KPTS.contiguous()],
         note="image, mask and keypoints through a vertical flip and a resize"))
add(case("audit[random]", G,
         _Audit(K.AugmentationSequential(K.RandomAffine(20.0, (0.1, 0.1), p=1.0))), [batch()], check=False,
         note="a random affine sampled inside the graph"))

# ------------------------------------------------------------------------------------------------- model wrappers and builders


def _face_detector(**kw):
    """FaceDetector's constructor always requests the pretrained YuNet; build it with YuNet(pretrained=False)."""
    orig = _face_detection.YuNet
    _face_detection.YuNet = lambda phase, pretrained: orig(phase, False)
    try:
        return KC.FaceDetector(**kw).eval()
    finally:
        _face_detection.YuNet = orig


_FACE_IMG = rand(1, 3, 64, 80, seed=113)
add(case("FaceDetector", G, lazy(_face_detector, surveys=KC.FaceDetector), [_FACE_IMG],
         note="random-init YuNet (its constructor would download the weights), default thresholds"))
add(case("FaceDetector[low_threshold,top_k]", G,
         lazy(_face_detector, top_k=200, confidence_threshold=0.01, keep_top_k=50, surveys=KC.FaceDetector),
         [torch.cat([_FACE_IMG, rand(1, 3, 64, 80, seed=114)]).contiguous()],
         note="random-init YuNet, confidence 0.01 so that NMS gets candidates, batch of 2"))
add(case("FaceDetector[preprocess]", G, lazy(_face_detector, surveys=KC.FaceDetector), [_FACE_IMG], method="preprocess"))

def _edge_detector():
    """EdgeDetectorBuilder.build(pretrained=False, image_size=64): DexiNed at random init."""
    return KC.EdgeDetectorBuilder.build(pretrained=False, image_size=64)


add(case("EdgeDetectorBuilder.build", G, lazy(lambda: Built(KC.EdgeDetectorBuilder, _edge_detector()), surveys=KC.EdgeDetectorBuilder),
         [rand(1, 3, 48, 56, seed=115)],
         note="DexiNed at random init, resized to 64x64 and back"))
class _CatMaps(nn.Module):
    """EdgeDetector on a batch, its maps as one tensor: the eager per-image list concatenated, which
    is the one (B, 1, H, W) tensor kornia documents it returns under an ONNX export instead."""

    def __init__(self, target, m):
        super().__init__()
        self.__opsweep_target__ = target
        self.m = m

    def forward(self, images):
        out = self.m(images)
        return torch.cat(list(out)) if isinstance(out, (list, tuple)) else out


add(case("EdgeDetector", G,
         lazy(lambda: _CatMaps(KC.EdgeDetector, KC.EdgeDetector(_edge_detector().model, ResizePreProcessor(48, 48, "bicubic"),
                                                                ResizePostProcessor("bicubic"))),
              surveys=KC.EdgeDetector),
         [rand(2, 3, 40, 56, seed=116)],
         note="the random-init DexiNed network with bicubic 48x48 resizing, batch of 2. Under an ONNX export "
              "EdgeDetector returns one (B, 1, H, W) tensor, by design (its docstring), where eager returns a list "
              "of (1, 1, H, W) maps: the case concatenates the eager list, so both are compared value by value"))
class _ListCall(nn.Module):
    """Calls a model wrapper with a list of (3, H, W) images."""

    def __init__(self, target, m):
        super().__init__()
        self.__opsweep_target__ = target
        self.m = m

    def forward(self, *images):
        return self.m(list(images))


add(case("EdgeDetector[list]", G, lazy(lambda: _ListCall(KC.EdgeDetector, _edge_detector()), surveys=KC.EdgeDetector),
         [rand(3, 40, 48, seed=117), rand(3, 64, 56, seed=118)],
         note="a list of two differently sized images, each resized to 64x64 and back"))

_RT_CFG = RTDETRConfig("resnet18d", 4, input_size=64, head_num_queries=20, head_hidden_dim=64, neck_hidden_dim=64,
                       neck_dim_feedforward=128, head_num_decoder_layers=1)


def _rt_detr(**kw):
    """A small RT-DETR at random init, through RTDETRDetectorBuilder.build."""
    return KC.RTDETRDetectorBuilder.build(config=_RT_CFG, pretrained=False, **kw)


add(case("RTDETRDetectorBuilder.build", G,
         lazy(lambda: Built(KC.RTDETRDetectorBuilder, _rt_detr(confidence_threshold=0.0)), surveys=KC.RTDETRDetectorBuilder),
         [rand(1, 3, 48, 80, seed=119)],
         note="a small random-init RT-DETR (resnet18d, 4 classes, 20 queries), input resized to 64x64"))
add(case("ObjectDetector", G, lazy(_rt_detr, confidence_threshold=0.0, surveys=KC.ObjectDetector), [rand(2, 3, 64, 64, seed=120)],
         note="the random-init RT-DETR above, batch of 2"))
add(case("ObjectDetector[filtering]", G,
         lazy(_rt_detr, confidence_threshold=0.5, confidence_filtering=True, surveys=KC.ObjectDetector),
         [rand(1, 3, 64, 64, seed=121)],
         note="confidence 0.5 with filtering"))
# from_config is a documented placeholder on these two wrappers (it raises NotImplementedError whatever the
# config): recorded at the eager step.
add(case("ObjectDetector.from_config", G,
         Forward(KC.ObjectDetector, lambda x: KC.ObjectDetector.from_config(_RT_CFG)(x)), [rand(1, 3, 64, 64, seed=125)],
         note="from_config(RTDETRConfig) (the configuration its builder takes), then the image: kornia 0.9.0 raises "
         "NotImplementedError (a documented placeholder; RTDETRDetectorBuilder.build is the way in)"))
add(case("EdgeDetector.from_config", G,
         Forward(KC.EdgeDetector, lambda x: KC.EdgeDetector.from_config({"pretrained": False, "image_size": 64})(x)),
         [rand(1, 3, 48, 56, seed=126)],
         note="from_config with EdgeDetectorBuilder.build's arguments as the configuration (its signature takes any "
         "object), then the image: kornia 0.9.0 raises NotImplementedError (a documented placeholder)"))
add(case("SmallSRBuilder.build", G,
         lazy(lambda: Built(KC.SmallSRBuilder, KC.SmallSRBuilder.build(pretrained=False)), surveys=KC.SmallSRBuilder), [img()],
         note="random-init SmallSRNet; the pre-processor resizes to 224x224, output 672x672"))
add(case("SmallSRBuilder.build[x2]", G,
         lazy(lambda: Built(KC.SmallSRBuilder, KC.SmallSRBuilder.build(pretrained=False, upscale_factor=2)),
              surveys=KC.SmallSRBuilder), [batch()],
         note="random init, upscale 2"))
add(case("RRDBNetBuilder.build", G,
         lazy(lambda: Built(KC.RRDBNetBuilder, KC.RRDBNetBuilder.build("RealESRGAN_x4plus_anime_6B", pretrained=False)),
              surveys=KC.RRDBNetBuilder),
         [rand(1, 3, 16, 20, seed=122)], note="random init; the 6-block anime variant (23 blocks is beyond the time budget)"))
add(case("RRDBNetBuilder.build[x2plus]", G,
         lazy(lambda: Built(KC.RRDBNetBuilder, KC.RRDBNetBuilder.build("RealESRGAN_x2plus", pretrained=False)),
              surveys=KC.RRDBNetBuilder),
         [rand(1, 3, 8, 12, seed=123)], note="random init; 23 blocks at scale 2 on an 8x12 image"))
add(case("SuperResolution", G,
         lazy(lambda: KC.SuperResolution(__import__("kornia").models.RRDBNet(3, 3, num_feat=16, num_block=1, num_grow_ch=8).eval(),
                                         nn.Identity(), nn.Identity()), surveys=KC.SuperResolution), [rand(1, 3, 16, 20, seed=124)],
         note="a 1-block random-init RRDBNet, no pre/post-processing"))

# ------------------------------------------------------------------------------------------------- stitching / tracking


def _sift_matcher(n=256, th=0.95):
    """Scale-space SIFT with SMNN matching: about 25 correct matches between the overlapping views below."""
    return KF.LocalFeatureMatcher(KF.SIFTFeatureScaleSpace(n), KF.DescriptorMatcher("smnn", th)).eval()


add(case("ImageStitcher", G, KC.ImageStitcher(_sift_matcher()).eval(), [LEFT, RIGHT], check=False,
         note="scale-space SIFT + SMNN matcher (LoFTR's weights would be downloaded); RANSAC samples inside the graph"))
add(case("ImageStitcher[vanilla]", G, KC.ImageStitcher(_sift_matcher(), estimator="vanilla").eval(), [LEFT, RIGHT],
         note="scale-space SIFT + SMNN matcher; DLT on all matches, deterministic"))
add(case("ImageStitcher[three,vanilla]", G, KC.ImageStitcher(_sift_matcher(), estimator="vanilla").eval(),
         list(derived(lambda sc: (sc[..., :64].contiguous(), sc[..., 32:96].contiguous(), sc[..., 64:128].contiguous()), SCENE)),
         note="three overlapping views"))


class _Tracker(nn.Module):
    """A HomographyTracker with its target set; forward tracks one frame."""

    __opsweep_target__ = HomographyTracker

    def __init__(self, target, minimum_inliers_num=10):
        super().__init__()
        self.t = HomographyTracker(_sift_matcher(), _sift_matcher(), minimum_inliers_num=minimum_inliers_num).eval()
        self.t.set_target(target)

    def forward(self, x):
        self.t.reset_tracking()
        return self.t(x)

    def match_initial(self, x):
        return self.t.match_initial(x)


_TGT = _gray(SCENE[..., 20:100]).contiguous()  # the tracker's target, set at construction
# a frame of the same scene, 4 columns on (the second value: 4 columns back, still tracking the target)
_FRAME = structured(_gray(SCENE[..., 24:104]).contiguous(), _gray(SCENE[..., 16:96]).contiguous())
add(case("HomographyTracker", "tracking", lazy(_Tracker, _TGT), [_FRAME], check=False,
         note="scale-space SIFT + SMNN matchers for both stages (the defaults download GFTTAffNetHardNet and LoFTR weights); "
         "RANSAC samples inside the graph"))
add(case("HomographyTracker[match_initial]", "tracking", lazy(_Tracker, _TGT), [_FRAME], method="match_initial", check=False,
         note="the initial (full) matching stage alone; RANSAC samples inside the graph"))
