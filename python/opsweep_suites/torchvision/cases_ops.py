"""torchvision.ops: box operations, NMS, RoI pooling, deformable convolution, losses, and the
layers it exports. Box inputs are valid boxes (x1 < x2, y1 < y2) and declare no drawn second set:
a redraw in range breaks that order, so their fresh set is the boxes shifted by a whole pixel."""

from __future__ import annotations

import torch
import torchvision.ops as ops

from opsweep import case
from opsweep.toolkit import rand, randn

G = "ops"
GL = "ops.layers"

_boxes1 = torch.tensor([[2.0, 3.0, 20.0, 24.0], [10.0, 8.0, 28.0, 30.0], [5.0, 12.0, 15.0, 19.0], [3.0, 4.0, 21.0, 23.0]])
_boxes2 = torch.tensor([[1.0, 2.0, 18.0, 25.0], [12.0, 9.0, 27.0, 31.0], [6.0, 10.0, 16.0, 20.0], [4.0, 4.0, 22.0, 22.0]])
_scores = torch.tensor([0.9, 0.75, 0.6, 0.85])
_idxs = torch.tensor([0, 1, 0, 0])
_feat = rand(1, 4, 16, 16, seed=50)
_rois = torch.tensor([[0.0, 1.0, 2.0, 12.0, 13.0], [0.0, 4.0, 3.0, 15.0, 14.0]])
_ps_feat = rand(1, 8, 16, 16, seed=51)  # 8 channels: 2 x 2 bins x 2 output channels
_masks = (rand(3, 16, 16, seed=52) > 0.6)


def _shifted(*boxes):
    return [b + 1.0 for b in boxes]


BOX_FRESH = "boxes must stay ordered (x1 < x2): a redraw in range breaks that"

CASES = [
    case("nms", G, ops.nms, [_boxes1, _scores], kwargs={"iou_threshold": 0.5}, fresh_inputs=BOX_FRESH),
    case("batched_nms", G, ops.batched_nms, [_boxes1, _scores, _idxs], kwargs={"iou_threshold": 0.5},
         fresh_inputs=BOX_FRESH),
    case("remove_small_boxes", G, ops.remove_small_boxes, [_boxes1], kwargs={"min_size": 12.0},
         fresh_inputs=BOX_FRESH),
    case("clip_boxes_to_image", G, ops.clip_boxes_to_image, [_boxes1 * 1.2], kwargs={"size": (24, 24)},
         fresh_inputs=_shifted(_boxes1 * 1.2)),
    case("box_convert", G, ops.box_convert, [_boxes1], kwargs={"in_fmt": "xyxy", "out_fmt": "cxcywh"},
         fresh_inputs=_shifted(_boxes1)),
    case("box_convert[xywh]", G, ops.box_convert, [_boxes1], kwargs={"in_fmt": "xywh", "out_fmt": "xyxy"},
         fresh_inputs=_shifted(_boxes1)),
    case("box_area", G, ops.box_area, [_boxes1], fresh_inputs=_shifted(_boxes1)),
    case("box_iou", G, ops.box_iou, [_boxes1, _boxes2], fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("generalized_box_iou", G, ops.generalized_box_iou, [_boxes1, _boxes2], fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("distance_box_iou", G, ops.distance_box_iou, [_boxes1, _boxes2], fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("complete_box_iou", G, ops.complete_box_iou, [_boxes1, _boxes2], fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("generalized_box_iou_loss", G, ops.generalized_box_iou_loss, [_boxes1, _boxes2],
         kwargs={"reduction": "mean"}, fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("distance_box_iou_loss", G, ops.distance_box_iou_loss, [_boxes1, _boxes2],
         kwargs={"reduction": "mean"}, fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("complete_box_iou_loss", G, ops.complete_box_iou_loss, [_boxes1, _boxes2],
         kwargs={"reduction": "mean"}, fresh_inputs=_shifted(_boxes1, _boxes2)),
    case("masks_to_boxes", G, ops.masks_to_boxes, [_masks]),
    case("sigmoid_focal_loss", G, ops.sigmoid_focal_loss, [randn(4, 3, seed=53), (rand(4, 3, seed=54) > 0.5).float()],
         kwargs={"reduction": "mean"}),
    case("roi_align", G, ops.roi_align, [_feat, _rois], kwargs={"output_size": (4, 4), "spatial_scale": 1.0,
                                                                 "sampling_ratio": 2, "aligned": True},
         fresh_inputs=[rand(1, 4, 16, 16, seed=55), _rois]),
    case("roi_pool", G, ops.roi_pool, [_feat, _rois], kwargs={"output_size": (4, 4)},
         fresh_inputs=[rand(1, 4, 16, 16, seed=55), _rois]),
    case("ps_roi_align", G, ops.ps_roi_align, [_ps_feat, _rois], kwargs={"output_size": 2, "sampling_ratio": 2},
         fresh_inputs=[rand(1, 8, 16, 16, seed=56), _rois]),
    case("ps_roi_pool", G, ops.ps_roi_pool, [_ps_feat, _rois], kwargs={"output_size": 2},
         fresh_inputs=[rand(1, 8, 16, 16, seed=56), _rois]),
    case("RoIAlign", G, ops.RoIAlign(output_size=(4, 4), spatial_scale=1.0, sampling_ratio=2, aligned=True),
         [_feat, _rois], fresh_inputs=[rand(1, 4, 16, 16, seed=55), _rois]),
    case("RoIPool", G, ops.RoIPool(output_size=(4, 4), spatial_scale=1.0), [_feat, _rois],
         fresh_inputs=[rand(1, 4, 16, 16, seed=55), _rois]),
    case("PSRoIAlign", G, ops.PSRoIAlign(output_size=2, spatial_scale=1.0, sampling_ratio=2), [_ps_feat, _rois],
         fresh_inputs=[rand(1, 8, 16, 16, seed=56), _rois]),
    case("PSRoIPool", G, ops.PSRoIPool(output_size=2, spatial_scale=1.0), [_ps_feat, _rois],
         fresh_inputs=[rand(1, 8, 16, 16, seed=56), _rois]),
    case("deform_conv2d", G, ops.deform_conv2d,
         [_feat, randn(1, 18, 14, 14, seed=57, scale=0.5), randn(5, 4, 3, 3, seed=58, scale=0.2)]),
    case("DeformConv2d", G, ops.DeformConv2d(4, 5, kernel_size=3), [_feat, randn(1, 18, 14, 14, seed=57, scale=0.5)]),
    case("stochastic_depth[eval]", G, ops.stochastic_depth, [_feat], kwargs={"p": 0.3, "mode": "row", "training": False}),
    case("stochastic_depth[random]", G, ops.stochastic_depth, [_feat], kwargs={"p": 0.3, "mode": "row"}, check=False),
    case("StochasticDepth", G, ops.StochasticDepth(p=0.3, mode="batch"), [_feat]),
    case("drop_block2d[random]", G, ops.drop_block2d, [_feat], kwargs={"p": 0.3, "block_size": 3}, check=False),
    case("drop_block3d[random]", G, ops.drop_block3d, [rand(1, 2, 8, 8, 8, seed=59)], kwargs={"p": 0.3, "block_size": 3},
         check=False),
    case("DropBlock2d", G, ops.DropBlock2d(p=0.3, block_size=3), [_feat]),
    case("DropBlock3d", G, ops.DropBlock3d(p=0.3, block_size=3), [rand(1, 2, 8, 8, 8, seed=59)]),
    case("MultiScaleRoIAlign", G, ops.MultiScaleRoIAlign(["feat"], output_size=4, sampling_ratio=2),
         [_feat, _boxes1[:2] / 2], kwargs={}, note="called as (features dict, [boxes], image sizes) by a wrapper",
         skip="takes a dict of feature maps, a list of boxes and a list of image sizes: surveyed inside the detection models"),
    case("FeaturePyramidNetwork", GL, ops.FeaturePyramidNetwork([4, 8], 8), [], skip="takes an OrderedDict of feature maps: surveyed inside the detection models"),
    case("FrozenBatchNorm2d", GL, ops.FrozenBatchNorm2d(4), [_feat]),
    case("Conv2dNormActivation", GL, ops.Conv2dNormActivation(4, 8), [_feat]),
    case("Conv3dNormActivation", GL, ops.Conv3dNormActivation(2, 4), [rand(1, 2, 8, 8, 8, seed=60)]),
    case("SqueezeExcitation", GL, ops.SqueezeExcitation(4, 2), [_feat]),
    case("MLP", GL, ops.MLP(16, [32, 8]), [rand(2, 16, seed=61)]),
    case("Permute", GL, ops.Permute([0, 2, 3, 1]), [_feat]),
]
