"""kornia.tracking: the public methods of HomographyTracker (set_target, track_next_frame,
no_match), with scale-space SIFT matchers (the defaults download learned features' weights)."""

from __future__ import annotations

import torch
from torch import nn

import kornia.feature as KF
from kornia.tracking import HomographyTracker

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import FRESH_OFFSET


def _scene(h=64, w=128, seed=100):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(1, 1, h // 2, w // 2, generator=g)
    x = nn.functional.interpolate(x, size=(h, w), mode="bilinear", align_corners=False)
    return ((x - x.min()) / (x.max() - x.min())).contiguous()


def _matcher():
    return KF.LocalFeatureMatcher(KF.SIFTFeatureScaleSpace(256), KF.DescriptorMatcher("smnn", 0.95)).eval()


_SCENE = _scene()
_TGT = _SCENE[..., 20:100].contiguous()
_FRAME = _SCENE[..., 24:104].contiguous()
# the fresh set of the tracking case: the same crops of another scene (a uniform redraw of the frames has
# nothing to match, and the tracker then has no homography to track from)
_SCENE_F = _scene(seed=100 + FRESH_OFFSET)


def _tracker():
    """The tracker each case's call starts from: a submodule built once, outside the graph, as a user holds it.
    Each call sets its state from the inputs (set_target, then match_initial), so calls do not depend on each other.
    (Built inside the traced call, the capture failed on the construction instead: a module made under export
    cannot be moved with ``.to(device)``, "Couldn't swap Conv1d.weight".)"""
    return HomographyTracker(_matcher(), _matcher(), minimum_inliers_num=10).eval()


def meth(name):
    return method_function(HomographyTracker, name)


G = "tracking"
CASES = [
    case("HomographyTracker.set_target", G,
         Call(meth("set_target"), lambda tr, t: (tr.set_target(t), tr.target_initial_representation)[1], _tracker()),
         [_TGT], note="the target's features it keeps"),
    case("HomographyTracker.track_next_frame", G,
         Call(meth("track_next_frame"),
              lambda tr, t, x, y: (tr.set_target(t), tr.match_initial(x), tr.track_next_frame(y))[2], _tracker()),
         [_TGT, _FRAME, _SCENE[..., 26:106].contiguous()], check=False,
         fresh_inputs=(_SCENE_F[..., 20:100].contiguous(), _SCENE_F[..., 24:104].contiguous(), _SCENE_F[..., 26:106].contiguous()),
         note="set_target, an initial match, then the next frame tracked (RANSAC samples inside the graph)"),
    case("HomographyTracker.no_match", G,
         Call(meth("no_match"), lambda tr, t: (tr.set_target(t), tr.no_match()[0])[1], _tracker()), [_TGT], check=False,
         note="the homography it returns without a match, after set_target: an uninitialised 3x3 tensor (torch.empty, "
         "as documented), so its values are not compared"),
]
NOT_SURVEYED: dict = {}
