"""torchvision.io's tensor codecs and torchvision.utils' drawing functions, on tensors; what reads
or writes files, reads datasets, or sets a backend is in NOT_SURVEYED with why."""

from __future__ import annotations

import torch
import torchvision
import torchvision.datasets
import torchvision.io as io
import torchvision.models as M
import torchvision.utils as U

from opsweep import case
from opsweep.case import lazy
from opsweep.toolkit import Built, rand

from opsweep_suites.torchvision._common import image, image_uint8

from torchvision.models.feature_extraction import create_feature_extractor


def _feature_extractor():
    """resnet18 (random weights) cut at two inner nodes: the FX graph module the API builds."""
    return Built(create_feature_extractor, create_feature_extractor(M.resnet18(weights=None),
                                                                    {"layer1": "low", "layer3": "high"}))


_u8 = image_uint8()
_jpeg = io.encode_jpeg(_u8[0], quality=90)
_png = io.encode_png(_u8[0])
_frame = "the encoded bytes are the trace input; a redraw of bytes is no valid file"

CASES = [
    case("create_feature_extractor", "models", lazy(_feature_extractor, surveys=create_feature_extractor),
         [rand(1, 3, 64, 64, seed=75)]),
    case("encode_jpeg", "io", io.encode_jpeg, [_u8[0]], kwargs={"quality": 90}),
    case("encode_png", "io", io.encode_png, [_u8[0]]),
    case("decode_jpeg", "io", io.decode_jpeg, [_jpeg], fresh_inputs=_frame),
    case("decode_png", "io", io.decode_png, [_png], fresh_inputs=_frame),
    case("decode_image", "io", io.decode_image, [_png], fresh_inputs=_frame),
    case("make_grid", "utils", U.make_grid, [rand(4, 3, 16, 16, seed=70)], kwargs={"nrow": 2}),
    case("draw_bounding_boxes", "utils", U.draw_bounding_boxes,
         [_u8[0], torch.tensor([[2.0, 3.0, 20.0, 24.0], [10.0, 8.0, 28.0, 30.0]])],
         fresh_inputs=[image_uint8(seed=71)[0], torch.tensor([[3.0, 4.0, 21.0, 25.0], [11.0, 9.0, 29.0, 31.0]])]),
    case("draw_segmentation_masks", "utils", U.draw_segmentation_masks, [_u8[0], rand(2, 32, 32, seed=72) > 0.5],
         kwargs={"alpha": 0.5}),
    case("draw_keypoints", "utils", U.draw_keypoints, [_u8[0], rand(1, 4, 2, seed=73, low=2.0, high=29.0)]),
    case("flow_to_image", "utils", U.flow_to_image, [rand(1, 2, 16, 16, seed=74, low=-3.0, high=3.0)]),
]

_FILES = "reads or writes files: no tensor graph to capture"
_DATASET = "a dataset: reads (or downloads) files, not an operator on tensors"
_BACKEND = "sets or reads a process-wide backend setting: no tensor in or out"
_NO_TENSOR = "returns Python values (sizes, types, parameters), not tensors"
_FORMAT = "needs an encoded file of its format, which nothing in torchvision can write to make one"
_BUILT = "a model class: its instances are surveyed through the builder functions that make them (list_models)"
NOT_SURVEYED = {f"torchvision.datasets.{n}": _DATASET for n in torchvision.datasets.__all__}
NOT_SURVEYED.update({
    "torchvision.datasets.samplers.DistributedSampler": _DATASET,
    "torchvision.datasets.samplers.RandomClipSampler": _DATASET,
    "torchvision.datasets.samplers.UniformClipSampler": _DATASET,
    "torchvision.io.read_file": _FILES, "torchvision.io.read_image": _FILES, "torchvision.io.write_file": _FILES,
    "torchvision.io.write_jpeg": _FILES, "torchvision.io.write_png": _FILES, "torchvision.utils.save_image": _FILES,
    "torchvision.io.decode_avif": _FORMAT, "torchvision.io.decode_heic": _FORMAT,
    "torchvision.io.decode_gif": _FORMAT, "torchvision.io.decode_webp": _FORMAT,
    "torchvision.set_image_backend": _BACKEND, "torchvision.get_image_backend": _BACKEND,
    "torchvision.set_video_backend": _BACKEND, "torchvision.get_video_backend": _BACKEND,
    "torchvision.disable_beta_transforms_warning": _BACKEND,
    "torchvision.models.get_model": "builds a model by name: surveyed through every name of list_models()",
    "torchvision.models.get_model_builder": _NO_TENSOR,
})
for cls in ("AlexNet", "ConvNeXt", "DenseNet", "EfficientNet", "GoogLeNet", "Inception3", "MNASNet", "MaxVit",
            "MobileNetV2", "MobileNetV3", "RegNet", "ResNet", "ShuffleNetV2", "SqueezeNet", "SwinTransformer", "VGG",
            "VisionTransformer"):
    NOT_SURVEYED[f"torchvision.models.{cls}"] = _BUILT
for mod, classes in {"detection": ("FCOS", "FasterRCNN", "KeypointRCNN", "MaskRCNN", "RetinaNet"),
                     "segmentation": ("DeepLabV3", "FCN", "LRASPP"),
                     "video": ("MViT", "S3D", "SwinTransformer3d", "VideoResNet"),
                     "optical_flow": ("RAFT",),
                     "quantization": ("QuantizableGoogLeNet", "QuantizableInception3", "QuantizableMobileNetV2",
                                      "QuantizableMobileNetV3", "QuantizableResNet", "QuantizableShuffleNetV2")}.items():
    for cls in classes:
        NOT_SURVEYED[f"torchvision.models.{mod}.{cls}"] = _BUILT

_INSIDE = ("a part of the detection models, called by them on their internal structures (ImageList, anchors, "
           "proposals, training targets): surveyed inside every detection model of list_models()")
for name in ("FCOS.compute_loss", "FCOS.eager_outputs", "FCOS.postprocess_detections", "FasterRCNN.eager_outputs",
             "RetinaNet.compute_loss", "RetinaNet.eager_outputs", "RetinaNet.postprocess_detections",
             "anchor_utils.AnchorGenerator", "anchor_utils.AnchorGenerator.generate_anchors",
             "anchor_utils.AnchorGenerator.grid_anchors", "anchor_utils.AnchorGenerator.set_cell_anchors",
             "anchor_utils.DefaultBoxGenerator", "backbone_utils.BackboneWithFPN", "backbone_utils.ExtraFPNBlock",
             "backbone_utils.IntermediateLayerGetter", "backbone_utils.LastLevelMaxPool",
             "backbone_utils.handle_legacy_interface", "backbone_utils.mobilenet_backbone",
             "backbone_utils.resnet_fpn_backbone", "generalized_rcnn.GeneralizedRCNN", "image_list.ImageList",
             "roi_heads.RoIHeads", "roi_heads.RoIHeads.add_gt_proposals", "roi_heads.RoIHeads.assign_targets_to_proposals",
             "roi_heads.RoIHeads.check_targets", "roi_heads.RoIHeads.has_keypoint", "roi_heads.RoIHeads.has_mask",
             "roi_heads.RoIHeads.postprocess_detections", "roi_heads.RoIHeads.select_training_samples",
             "roi_heads.RoIHeads.subsample", "roi_heads.expand_boxes", "roi_heads.expand_masks",
             "roi_heads.expand_masks_tracing_scale", "roi_heads.fastrcnn_loss", "roi_heads.heatmaps_to_keypoints",
             "roi_heads.keypointrcnn_inference", "roi_heads.keypointrcnn_loss", "roi_heads.keypoints_to_heatmap",
             "roi_heads.maskrcnn_inference", "roi_heads.maskrcnn_loss", "roi_heads.paste_mask_in_image",
             "roi_heads.paste_masks_in_image", "roi_heads.project_masks_on_boxes", "rpn.RPNHead",
             "rpn.RegionProposalNetwork", "rpn.RegionProposalNetwork.assign_targets_to_anchors",
             "rpn.RegionProposalNetwork.compute_loss", "rpn.RegionProposalNetwork.filter_proposals",
             "rpn.concat_box_prediction_layers", "rpn.permute_and_flatten", "transform.GeneralizedRCNNTransform",
             "transform.GeneralizedRCNNTransform.batch_images", "transform.GeneralizedRCNNTransform.normalize",
             "transform.GeneralizedRCNNTransform.postprocess", "transform.GeneralizedRCNNTransform.resize",
             "transform.resize_boxes", "transform.resize_keypoints"):
    NOT_SURVEYED[f"torchvision.models.detection.{name}"] = _INSIDE
_CALLED = "a method the module's own forward calls: surveyed through that forward"
_PIL = "works on PIL images (or converts to or from them): no tensor graph to capture"
_API = "part of the transforms' extension API (a base class, a registry, a type test): no computation of its own"
NOT_SURVEYED.update({
    "torchvision.models.GoogLeNet.eager_outputs": _CALLED, "torchvision.models.Inception3.eager_outputs": _CALLED,
    "torchvision.ops.FeaturePyramidNetwork.get_result_from_inner_blocks": _CALLED,
    "torchvision.ops.FeaturePyramidNetwork.get_result_from_layer_blocks": _CALLED,
    "torchvision.datasets.Flowers102.download": _DATASET, "torchvision.datasets.StanfordCars.download": _DATASET,
    "torchvision.datasets.VOCDetection.parse_voc_xml": _DATASET,
    "torchvision.models.feature_extraction.get_graph_node_names": _NO_TENSOR,
    "torchvision.models.quantization.utils.quantize_model": ("quantizes a model in place from calibration data: "
                                                             "the float models it starts from are surveyed"),
    "torchvision.transforms.v2.Lambda": "calls the user's function: what it captures is that function's",
    "torchvision.transforms.v2.PILToTensor": _PIL, "torchvision.transforms.v2.ToPILImage": _PIL,
    "torchvision.transforms.v2.ToTensor": _PIL, "torchvision.transforms.v2.functional.to_tensor": _PIL,
    "torchvision.transforms.v2.Transform": _API, "torchvision.transforms.v2.Transform.make_params": _API,
    "torchvision.transforms.v2.check_type": _API, "torchvision.transforms.v2.functional.register_kernel": _API,
    "torchvision.transforms.v2.functional.is_pure_tensor": _API, "torchvision.tv_tensors.set_return_type": _API,
    "torchvision.tv_tensors.TVTensor": _API, "torchvision.tv_tensors.TVTensor.wrap": _API,
    "torchvision.tv_tensors.BoundingBoxes.wrap": _API, "torchvision.tv_tensors.KeyPoints.wrap": _API,
    "torchvision.tv_tensors.wrap": _API,
})
for name in ("get_dimensions", "get_dimensions_image", "get_dimensions_video", "get_image_num_channels", "get_image_size",
             "get_num_channels_image", "get_num_channels_video", "get_num_frames", "get_num_frames_video", "get_size",
             "get_size_bounding_boxes", "get_size_image", "get_size_keypoints", "get_size_mask", "get_size_video"):
    NOT_SURVEYED[f"torchvision.transforms.v2.functional.{name}"] = _NO_TENSOR
for name in ("get_bounding_boxes", "get_keypoints", "has_all", "has_any", "query_chw", "query_size"):
    NOT_SURVEYED[f"torchvision.transforms.v2.{name}"] = _NO_TENSOR
for cls in ("AutoAugment", "ColorJitter", "ElasticTransform", "RandomCrop", "RandomErasing", "RandomResizedCrop"):
    NOT_SURVEYED[f"torchvision.transforms.{cls}.get_params"] = "samples a transform's parameters (Python numbers): surveyed inside the transform"
