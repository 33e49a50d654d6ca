"""kornia.contrib below its package, and the public methods of its classes: the model builders'
``build`` staticmethods, the visualisers, ImageStitcher's and FaceDetector's steps (on the arguments
of a real run), VisualPrompter (SAM prompting) with a small random SAM, KMeans.fit, BoxFiltering,
results_from_detections, FaceDetectorResult, the YuNet PriorBox.

Networks are randomly initialised (``pretrained=False``); nothing is downloaded.
"""

from __future__ import annotations

import torch
from torch import nn

import kornia.contrib as KC
import kornia.feature as KF
from kornia.contrib import face_detection as FD
from kornia.contrib import object_detection as OD
from kornia.contrib import visual_prompter as VP
from kornia.models.rt_detr import RTDETRConfig
from kornia.models.sam import SamConfig

from opsweep import case
from opsweep_suites.kornia._breadth import Call, _key, lazy_built, lazy_call, method_function, record_many, replay, seeded
from opsweep_suites.kornia._common import FRESH_OFFSET, Built, batch, img, rand, randn

CASES: list = []
add = CASES.append
G = "contrib"
RI = "random init"


def meth(cls, name):
    return method_function(cls, name)


# ------------------------------------------------------------------------------------------------- builders

add(case("EdgeDetectorBuilder.build[breadth]", G, lazy_built(KC.EdgeDetectorBuilder.build, KC.EdgeDetectorBuilder.build,
                                                            pretrained=False, image_size=64),
         [rand(1, 3, 48, 56, seed=1301)], note=f"{RI}; the staticmethod build(pretrained=False, image_size=64)"))
add(case("SmallSRBuilder.build[breadth]", G, Built(KC.SmallSRBuilder.build, seeded(1302, KC.SmallSRBuilder.build, pretrained=False)),
         [img()], note=f"{RI}; the staticmethod build(pretrained=False)"))
add(case("RRDBNetBuilder.build[breadth]", G, lazy_built(KC.RRDBNetBuilder.build, KC.RRDBNetBuilder.build,
                                                  "RealESRGAN_x4plus_anime_6B", pretrained=False),
         [rand(1, 3, 16, 16, seed=1304)], note=f"{RI}; the staticmethod build('RealESRGAN_x4plus_anime_6B', pretrained=False)"))
_RT_CFG = RTDETRConfig("resnet18d", 4, input_size=64, head_num_queries=20, head_hidden_dim=64, neck_hidden_dim=64,
                       neck_dim_feedforward=128, head_num_decoder_layers=1)
def _det():
    return KC.RTDETRDetectorBuilder.build(config=_RT_CFG, pretrained=False, confidence_threshold=0.0)


add(case("RTDETRDetectorBuilder.build[breadth]", G, lazy_built(KC.RTDETRDetectorBuilder.build, _det), [rand(1, 3, 48, 80, seed=1306)],
         note=f"{RI}; the staticmethod build with a small resnet18d configuration"))
add(case("TinyViT.from_config[breadth]", G, lazy_built(KC.TinyViT.from_config, KC.TinyViT.from_config, "5m", img_size=64,
                                                 num_classes=10, window_sizes=(2, 2, 2, 2)),
         [rand(1, 3, 64, 64, seed=1308)], note=f"{RI}; the classmethod from_config('5m', img_size=64)"))
add(case("visual_prompter.Sam.from_name", G, lazy_built(VP.Sam.from_name, lambda: Call(VP.Sam.from_name, lambda m, x, p, l: m(
    x, [{"points": (p, l)}], False), VP.Sam.from_name("mobile_sam"))),
         [rand(1, 3, 1024, 1024, seed=1310), rand(1, 1, 2, seed=1311, low=100.0, high=900.0), torch.tensor([[1]])],
         note=f"{RI}; from_name('mobile_sam') (a TinyViT encoder), one point prompt"))

# ------------------------------------------------------------------------------------------------- visualisers

add(case("EdgeDetector.visualize", G, lazy_call(meth(KC.EdgeDetector, "visualize"),
                                                lambda: KC.EdgeDetectorBuilder.build(pretrained=False, image_size=64),
                                                lambda m, x, e: m.visualize(x, e, output_type="torch")),
         [rand(1, 3, 32, 40, seed=1312), rand(1, 1, 32, 40, seed=1313)], note="given edge maps drawn as RGB images"))
add(case("ObjectDetector.visualize", G, lazy_call(meth(KC.ObjectDetector, "visualize"), _det,
                                                 lambda m, x, d: m.visualize(x, d, output_type="torch")),
         [rand(1, 3, 64, 64, seed=1314), torch.tensor([[[0.0, 0.9, 5.0, 6.0, 20.0, 18.0], [2.0, 0.5, 30.0, 20.0, 16.0, 24.0]]])],
         note="two given detections (class, score, x, y, w, h) drawn on the image"))
add(case("SuperResolution.visualize", G, lazy_call(meth(KC.SuperResolution, "visualize"), lambda: KC.SmallSRBuilder.build(pretrained=False),
                                                  lambda m, x, s: m.visualize(x, s, output_type="torch")),
         [rand(1, 3, 16, 20, seed=1315), rand(1, 3, 48, 60, seed=1316)], note="a given upscaled image"))

# ------------------------------------------------------------------------------------------------- stitching


def _scene(h=64, w=128, seed=100):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(1, 3, h // 2, w // 2, generator=g)
    x = nn.functional.interpolate(x, size=(h, w), mode="bilinear", align_corners=False)
    return ((x - x.min()) / (x.max() - x.min())).contiguous()


_SCENE = _scene()
_LEFT, _RIGHT = _SCENE[..., :80].contiguous(), _SCENE[..., 40:120].contiguous()
_STITCH = KC.ImageStitcher(KF.LocalFeatureMatcher(KF.SIFTFeatureScaleSpace(256), KF.DescriptorMatcher("smnn", 0.95)),
                           estimator="vanilla").eval()
_GL, _GR = _LEFT.mean(1, keepdim=True), _RIGHT.mean(1, keepdim=True)


def _shifted_views(offset=0):
    """30 left-view keypoints in the overlap and the same points in the right view (a 40-pixel shift, noise)."""
    left = rand(30, 2, seed=1317 + offset, low=42.0, high=78.0)
    return left, left - torch.tensor([40.0, 0.0]) + 0.2 * randn(30, 2, seed=1318 + offset)


_KL, _KR = _shifted_views()
_MASK_PANO = torch.ones(1, 3, 64, 160)
_MASK_PANO[..., 130:] = 0.0
_PANO = rand(1, 3, 64, 160, seed=1320)
# Fresh sets: the views of another scene (a uniform redraw of two views has nothing to match), other
# correspondences of the same shift, another 0/1 blending mask, another panorama with the same coverage (its
# crop, and so the output's shape, follows the mask).
_SCENE_F = _scene(seed=100 + FRESH_OFFSET)  # another scene, seen by the same two overlapping views
_LEFT_F, _RIGHT_F = _SCENE_F[..., :80].contiguous(), _SCENE_F[..., 40:120].contiguous()
_ST_FRESH = {
    "preprocess": (_LEFT_F, _RIGHT_F),
    "on_matcher": (_LEFT_F.mean(1, keepdim=True), _RIGHT_F.mean(1, keepdim=True)),
    "stitch_pair": (_LEFT_F, _RIGHT_F),
    "estimate_transform": (*_shifted_views(FRESH_OFFSET), torch.zeros(30, dtype=torch.long)),
    "blend_image": (_LEFT_F, _RIGHT_F, (rand(1, 3, 64, 80, seed=1319 + FRESH_OFFSET) > 0.5).float()),
    "postprocess": (rand(1, 3, 64, 160, seed=1320 + FRESH_OFFSET), _MASK_PANO.clone()),
}
G_ST = "contrib.stitching"
for _m, _fn, _ins, _note in (
    ("preprocess", lambda a, b: _STITCH.preprocess(a, b), [_LEFT, _RIGHT], "two RGB views to the matcher's grayscale inputs"),
    ("on_matcher", lambda st, a, b: st.on_matcher({"image0": a, "image1": b}), [_GL, _GR], "SIFT + SMNN matching of two views"),
    ("estimate_transform", lambda k1, k2, i: _STITCH.estimate_transform(keypoints0=k1, keypoints1=k2, batch_indexes=i),
     [_KL, _KR, torch.zeros(30, dtype=torch.long)], "30 correspondences of a 40-pixel shift (DLT on all of them)"),
    ("blend_image", lambda a, b, m: _STITCH.blend_image(a, b, m), [_LEFT, _RIGHT, (rand(1, 3, 64, 80, seed=1319) > 0.5).float()],
     "naive blending by a mask"),
    ("postprocess", lambda x, m: _STITCH.postprocess(x, m), [_PANO, _MASK_PANO],
     "a panorama cropped after its last covered column"),
    ("stitch_pair", lambda st, a, b: st.stitch_pair(a, b), [_LEFT, _RIGHT], "two overlapping views stitched"),
):
    # The two steps that call the matcher (a module) hold the stitcher as a registered part of the call, as a user
    # holds it: called from a plain global, torch.export refuses the matcher ("not installed as a submodule").
    _parts = (_STITCH,) if _m in ("on_matcher", "stitch_pair") else ()
    add(case(f"ImageStitcher.{_m}", G_ST, Call(meth(KC.ImageStitcher, _m), _fn, *_parts), _ins,
             fresh_inputs=_ST_FRESH.get(_m),
             note=f"ImageStitcher(SIFT + SMNN matcher, estimator='vanilla'): {_note}"))

# ------------------------------------------------------------------------------------------------- face detection


def _face_detector():
    orig = FD.YuNet
    FD.YuNet = lambda phase, pretrained: orig(phase, False)
    try:
        return seeded(1320, KC.FaceDetector, confidence_threshold=0.01)
    finally:
        FD.YuNet = orig


_FACE = _face_detector()
_FACE_CALLS = record_many([(KC.FaceDetector, "postprocess")], lambda: _FACE(rand(1, 3, 64, 80, seed=1321)))
_module, _inputs = replay(meth(KC.FaceDetector, "postprocess"), meth(KC.FaceDetector, "postprocess"),
                          *_FACE_CALLS[_key((KC.FaceDetector, "postprocess"))])
add(case("FaceDetector.postprocess", G, _module, _inputs, note=f"{RI}; the YuNet outputs of a 64x80 image (threshold 0.01)"))
_ROWS = torch.cat([torch.tensor([[5.0, 6.0, 30.0, 40.0]]), rand(1, 10, seed=1322, low=5.0, high=30.0), torch.tensor([[0.9]])], -1)
add(case("FaceDetectorResult", G, Call(KC.FaceDetectorResult, lambda d: (lambda r: (r.xmin, r.ymin, r.xmax, r.ymax, r.score))(
    KC.FaceDetectorResult(d))), [_ROWS[0]], note="one detection row: its box and score"))
add(case("FaceDetectorResult.get_keypoint", G, Call(meth(KC.FaceDetectorResult, "get_keypoint"),
                                                     lambda d: KC.FaceDetectorResult(d).get_keypoint(FD.FaceKeypoint.NOSE)), [_ROWS[0]]))
add(case("FaceDetectorResult.to", G, Call(meth(KC.FaceDetectorResult, "to"), lambda d: (lambda r: (r.xmin, r.score))(KC.FaceDetectorResult(d).to(dtype=torch.float64))),
         [_ROWS[0]]))
_PRIORS = dict(min_sizes=[[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]], steps=[8, 16, 32, 64], clip=False, image_size=(64, 80))
add(case("face_detection.PriorBox", G, Call(FD.PriorBox, lambda x: FD.PriorBox(**_PRIORS)() + x), [torch.zeros(1)],
         note="YuNet's priors of a 64x80 image (the class kornia.models.yunet defines, re-exported here)")) if FD.PriorBox.__module__ != \
    "kornia.models.yunet.processors" else None

# ------------------------------------------------------------------------------------------------- object detection

_DETS = torch.tensor([[[0.0, 0.9, 5.0, 6.0, 20.0, 18.0], [1.0, 0.2, 30.0, 20.0, 16.0, 24.0], [2.0, 0.6, 10.0, 30.0, 8.0, 9.0]],
                      [[1.0, 0.7, 4.0, 4.0, 10.0, 10.0], [0.0, 0.1, 20.0, 10.0, 12.0, 14.0], [2.0, 0.95, 40.0, 40.0, 6.0, 6.0]]])
add(case("object_detection.BoxFiltering", G, OD.BoxFiltering(0.5), [_DETS], note="confidence 0.5: a list of each image's kept rows"))
add(case("object_detection.BoxFiltering[filter_as_zero,classes]", G, OD.BoxFiltering(filter_as_zero=True),
         [_DETS, torch.tensor(0.3), torch.tensor([0, 2])], note="thresholds given as tensors; filtered rows zeroed"))
add(case("object_detection.results_from_detections", G,
         Call(OD.results_from_detections,
              lambda d: torch.tensor([[r.class_id, r.confidence, *r.bbox.data] for r in OD.results_from_detections(d, "xywh")])),
         [_DETS[0]], note="a (D, 6) tensor into result objects, whose fields are Python numbers (tensor-made for the case: "
         "it reads values into Python)"))

# ------------------------------------------------------------------------------------------------- KMeans, VisualPrompter

add(case("KMeans.fit", G, Call(meth(KC.KMeans, "fit"), lambda x: (lambda km: (km.fit(x), km.cluster_centers)[1])(KC.KMeans(3, None, seed=0))),
         [torch.cat([randn(10, 2, seed=1330) + 4.0, randn(10, 2, seed=1331) - 4.0, randn(10, 2, seed=1332)])], check=False,
         note="the fitted centres of three clusters (the initial centres are drawn at random)"))
_SAMCFG = SamConfig(encoder_embed_dim=32, encoder_depth=1, encoder_num_heads=2, encoder_global_attn_indexes=(0,))


def _vp():
    return VP.VisualPrompter(_SAMCFG)


_VPIMG = rand(3, 64, 80, seed=1334)
add(case("visual_prompter.VisualPrompter", G, lazy_call(VP.VisualPrompter, _vp, lambda v, x, p, l: (v.set_image(x), v.predict(p, l))[1]),
         [_VPIMG, rand(1, 2, 2, seed=1335, low=10.0, high=60.0), torch.tensor([[1, 0]])],
         note=f"{RI}; a 1-block SAM encoder of width 32: set_image then predict with two point prompts"))
add(case("visual_prompter.VisualPrompter.set_image", G,
         lazy_call(meth(VP.VisualPrompter, "set_image"), _vp, lambda v, x: (v.set_image(x), v.image_embeddings)[1]), [_VPIMG],
         note=f"{RI}; the image embeddings it stores"))
add(case("visual_prompter.VisualPrompter.predict", G,
         lazy_call(meth(VP.VisualPrompter, "predict"), _vp, lambda v, x, b: (v.set_image(x), v.predict(boxes=b))[1]),
         [_VPIMG, torch.tensor([[10.0, 8.0, 50.0, 40.0]])], fresh_inputs=(rand(3, 64, 80, seed=1334 + FRESH_OFFSET),
                                                           torch.tensor([[14.0, 6.0, 46.0, 44.0]])),
         note=f"{RI}; a box prompt (x1 < x2, y1 < y2; another box in the fresh set)"))
add(case("visual_prompter.VisualPrompter.preprocess_image", G, lazy_call(meth(VP.VisualPrompter, "preprocess_image"), _vp,
                                                                          lambda v, x: v.preprocess_image(x)), [_VPIMG[None]]))
add(case("visual_prompter.VisualPrompter.preprocess_prompts", G,
         lazy_call(meth(VP.VisualPrompter, "preprocess_prompts"), _vp,
                   lambda v, x, p, l: (v.set_image(x), v.preprocess_prompts(p, l))[1]),
         [_VPIMG, rand(1, 2, 2, seed=1336, low=10.0, high=60.0), torch.tensor([[1, 1]])]))


def _skip(name, target, reason):
    add(case(name, G, target, [], skip=reason))


_skip("EdgeDetector.compile", meth(KC.EdgeDetector, "compile"),
      "wraps the model in torch.compile: compiling is what the compile path itself measures, not an operator")
_skip("visual_prompter.VisualPrompter.compile", meth(VP.VisualPrompter, "compile"),
      "wraps the SAM model in torch.compile: compiling is what the compile path itself measures, not an operator")

_skip("AugmentationAuditReport.to_dict", meth(KC.AugmentationAuditReport, "to_dict"),
      "converts the audit report to JSON-ready Python values (lists of floats, strings): no tensor output")

NOT_SURVEYED: dict = {}
