"""kornia.models: backbones, detectors, segmentation, super-resolution, edge and face models, VLM encoders.

Every network is built from its configuration at random initialisation (nothing is downloaded) and sized so that
one eager call stays well under two seconds: the graph of each case is that of the public class, with fewer or
narrower layers than the released checkpoints where the note says so.

Not surveyed:
    ModelBase                      (kornia.models.base) abstract base class of the model wrappers; no forward.
    DepthEstimation                (case present, skipped) runs Depth Anything through onnxruntime from a
                                   downloaded ONNX file; there is no PyTorch graph and nothing may be downloaded.
    DepthAnythingONNXBuilder       (case present, skipped) downloads that ONNX file.
    EfficientViTConfig, RTDETRConfig, RTDETRModelType, SamConfig, SamModelType, KimiVLConfig,
    KimiVLProjectorConfig, MoonViTConfig, PaliGemmaConfig, Qwen25VisionConfig, SigLip2Config, SigLip2Result
                                   configuration dataclasses, enums and a result container: not callables that
                                   compute anything; each is exercised by the cases that build or return it.

Counting (``opsweep coverage --library kornia``, depth 2: the ``__all__`` of kornia.models and its sub-packages,
de-duplicated by identity): 34 public callables; 22 probed, DepthEstimation and DepthAnythingONNXBuilder skipped
(downloads); the 10 configuration / result dataclasses above are types, which opsweep coverage sets aside
(listed under ``not_operators``). The model classes of the top-level
modules that the tool does not walk (DexiNed, VisionTransformer, MobileViT, SmallSRNet, SmallSRNetWrapper; TinyViT
is counted under kornia.contrib) are probed as well. ModelBase is abstract and the tool does not count it.
"""

from __future__ import annotations

import torch
from torch import nn

from kornia.models import RRDBNet
from kornia.models.depth_estimation import DepthAnythingONNXBuilder, DepthEstimation
from kornia.models.dexined import DexiNed
from kornia.models.efficient_vit import EfficientViT
from kornia.models.efficient_vit.backbone import efficientvit_backbone_b0, efficientvit_backbone_l0
from kornia.models.kimi_vl import (
    KimiVLBuilder,
    KimiVLConfig,
    KimiVLModel,
    KimiVLProjector,
    KimiVLProjectorConfig,
    MoonViT,
    MoonViTConfig,
)
from kornia.models.paligemma import PaliGemma, PaliGemmaConfig
from kornia.models.processors import NaFlex, OutputRangePostProcessor, ResizePostProcessor, ResizePreProcessor
from kornia.models.qwen25 import Qwen25VisionConfig, Qwen25VisionTransformer
from kornia.models.rt_detr import DETRPostProcessor, RTDETR, RTDETRConfig
from kornia.models.sam import Sam, SamConfig
from kornia.models.segmentation import SegmentationModelsBuilder, SemanticSegmentation
from kornia.models.siglip2 import SigLip2Builder, SigLip2Config, SigLip2ImagePreprocessor, SigLip2Model
from kornia.models.siglip2.config import SigLip2TextConfig, SigLip2VisionConfig
from kornia.models.small_sr import SmallSRNet, SmallSRNetWrapper
from kornia.models.smolvlm2 import SmolVLM2
from kornia.models.tiny_vit import TinyViT
from kornia.models.vit import VisionTransformer
from kornia.models.vit_mobile import MobileViT
from kornia.models.yunet import YuNet

from opsweep.case import lazy

NOT_SURVEYED: dict = {}  # the configuration / result dataclasses are types, not operators (not counted)

from ._common import Built, ByName, batch, case, img, rand, randint, randn, structured

# Networks are lazy (``lazy(...)``): built when a job of their case runs, under a seed derived from the case
# name (opsweep.case.construction_seed), so loading this registry builds none of them. Every case here
# compares values (check=True), so the harness runs each in eval mode.

RI = "random init"


IMG64 = rand(1, 3, 64, 64, seed=60)
IMG64B = rand(2, 3, 64, 64, seed=61)

CASES = []
add = CASES.append

# ------------------------------------------------------------------------------------------------- vit

G = "models.vit"
add(case("VisionTransformer", G, lazy(VisionTransformer, image_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=4),
         [rand(1, 3, 32, 32, seed=62)], note=f"{RI}; image_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=4"))
add(case("VisionTransformer[batch,patch=4]", G,
         lazy(VisionTransformer, image_size=32, patch_size=4, embed_dim=48, depth=1, num_heads=3),
         [rand(2, 3, 32, 32, seed=63)], note=f"{RI}; 64 tokens of width 48, one block"))
add(case("VisionTransformer[backbone]", G,
         lazy(lambda: VisionTransformer(image_size=32, patch_size=8, in_channels=3, embed_dim=32, depth=1, num_heads=2,
                               backbone=nn.Conv2d(3, 16, 3, padding=1)), surveys=VisionTransformer),
         [rand(1, 3, 32, 32, seed=64)], note=f"{RI}; a convolutional backbone before the patch embedding"))
add(case("VisionTransformer.from_config", G, lazy(VisionTransformer.from_config, "vit_ti/16", image_size=32, surveys=VisionTransformer),
         [rand(1, 3, 32, 32, seed=65)], note=f"{RI}; from_config('vit_ti/16', image_size=32), the full ViT-Ti depth"))
add(case("MobileViT", "models.mobile_vit", lazy(MobileViT), [IMG64], note=f"{RI}; mode='xxs' on 64x64"))
add(case("MobileViT[xs]", "models.mobile_vit", lazy(MobileViT, mode="xs"), [IMG64], note=f"{RI}; mode='xs'"))
add(case("MobileViT[s,batch]", "models.mobile_vit", lazy(MobileViT, mode="s"), [IMG64B], note=f"{RI}; mode='s'"))
add(case("MobileViT[patch=4]", "models.mobile_vit", lazy(MobileViT, patch_size=(4, 4)), [rand(1, 3, 128, 128, seed=59)],
         note=f"{RI}; mode='xxs', 4x4 patches (the 4x4 feature maps need a 128x128 input)"))
_TV = dict(img_size=64, num_classes=10, embed_dims=(16, 32, 48, 64), depths=(1, 1, 1, 1), num_heads=(1, 2, 3, 4),
           window_sizes=(2, 2, 2, 2))
add(case("TinyViT", "models.tiny_vit", lazy(TinyViT, **_TV), [IMG64],
         note=f"{RI}; img_size=64, 10 classes, one narrow block per stage, 2x2 windows"))
add(case("TinyViT[mobile_sam]", "models.tiny_vit", lazy(TinyViT, **{**_TV, "mobile_sam": True}), [IMG64],
         note=f"{RI}; mobile_sam=True (the SAM image-encoder head)"))
add(case("TinyViT.from_config", "models.tiny_vit",
         lazy(TinyViT.from_config, "5m", img_size=64, num_classes=10, window_sizes=(2, 2, 2, 2), surveys=TinyViT), [IMG64],
         note=f"{RI}; from_config('5m', img_size=64, window_sizes=2)"))
add(case("EfficientViT", "models.efficient_vit", lazy(lambda: EfficientViT(efficientvit_backbone_b0()), surveys=EfficientViT), [IMG64],
         note=f"{RI}; the b0 backbone (EfficientViT.from_config always loads a checkpoint)"))
add(case("EfficientViT[l0]", "models.efficient_vit", lazy(lambda: EfficientViT(efficientvit_backbone_l0()), surveys=EfficientViT), [IMG64],
         note=f"{RI}; the l0 backbone"))

# ------------------------------------------------------------------------------------------------- detection

G = "models.detection"
_RT = dict(num_classes=4, head_num_queries=20, head_hidden_dim=64, neck_hidden_dim=64, neck_dim_feedforward=128,
           head_num_decoder_layers=1)
add(case("RTDETR", G, lazy(lambda: RTDETR.from_config(RTDETRConfig("resnet18d", **_RT)), surveys=RTDETR), [IMG64],
         note=f"{RI}; RTDETR.from_config(resnet18d, 4 classes, 20 queries, hidden 64, one decoder layer)"))
add(case("RTDETR[hgnetv2_l]", G, lazy(lambda: RTDETR.from_config(RTDETRConfig("hgnetv2_l", **_RT)), surveys=RTDETR), [IMG64],
         note=f"{RI}; HGNetV2-L backbone, narrow neck and head"))
add(case("RTDETR[resnet50d_m,batch]", G,
         lazy(lambda: RTDETR.from_config(RTDETRConfig("resnet50d_m", **{**_RT, "head_num_decoder_layers": 3})), surveys=RTDETR), [IMG64B],
         note=f"{RI}; ResNetD-50-M, three decoder layers, predictions of the third"))
_LOGITS = randn(2, 20, 4, seed=66, scale=2.0)
_BOXES = rand(2, 20, 4, seed=67, low=0.1, high=0.5)
_SIZES = torch.tensor([[64, 64], [48, 80]])
add(case("DETRPostProcessor", G, DETRPostProcessor(), [randn(1, 300, 80, seed=68), rand(1, 300, 4, seed=69, low=0.1, high=0.5),
                                                       torch.tensor([[480, 640]])]))
add(case("DETRPostProcessor[threshold,top20]", G, DETRPostProcessor(0.3, num_classes=4, num_top_queries=20),
         [_LOGITS, _BOXES, _SIZES]))
add(case("DETRPostProcessor[filter_as_zero]", G,
         DETRPostProcessor(0.3, num_classes=4, num_top_queries=20, filter_as_zero=True), [_LOGITS, _BOXES, _SIZES]))
add(case("DETRPostProcessor[no_filtering]", G,
         DETRPostProcessor(0.3, num_classes=4, num_top_queries=20, confidence_filtering=False),
         [_LOGITS, _BOXES, _SIZES]))
add(case("YuNet", "models.face_detection", lazy(YuNet, "test", pretrained=False), [IMG64],
         note=f"{RI}; YuNet('test', pretrained=False)"))
add(case("YuNet[train]", "models.face_detection", lazy(YuNet, "train", pretrained=False), [IMG64B],
         note=f"{RI}; the 'train' phase (raw head outputs)"))

# ------------------------------------------------------------------------------------------------- segmentation


class _SamCall(nn.Module):
    __opsweep_target__ = Sam

    def __init__(self, model, multimask_output):
        super().__init__()
        self.model = model
        self.multimask_output = multimask_output

    def forward(self, images, points, labels, boxes=None, masks=None):
        prompt = {"points": (points, labels)}
        if boxes is not None:
            prompt["boxes"] = boxes
        if masks is not None:
            prompt["mask_inputs"] = masks
        return self.model(images, [prompt], self.multimask_output)


def _sam_call(multimask_output):
    """A small SAM at random init (a 1-block ViT encoder of width 32) called with one prompt."""
    sam = Sam.from_config(SamConfig(encoder_embed_dim=32, encoder_depth=1, encoder_num_heads=2,
                                    encoder_global_attn_indexes=(0,)))
    return _SamCall(sam.eval(), multimask_output)



_SAM_IMG = rand(1, 3, 1024, 1024, seed=70)
_PTS = rand(1, 2, 2, seed=71, low=100.0, high=900.0)
_LBL = torch.tensor([[1, 0]])
# a box prompt (x1, y1, x2, y2), x1 < x2, y1 < y2 (the second value: another box, for the fresh-input check)
_SAM_BOX = structured(torch.tensor([[200.0, 150.0, 700.0, 800.0]]), torch.tensor([[300.0, 250.0, 850.0, 700.0]]))
add(case("Sam", "models.segmentation", lazy(_sam_call, True, surveys=Sam), [_SAM_IMG, _PTS, _LBL],
         note=f"{RI}; a 1-block ViT encoder of width 32 (SamConfig with encoder_* fields), 1024x1024 input, "
         "two point prompts, multimask output"))
add(case("Sam[box,mask,single]", "models.segmentation", lazy(_sam_call, False, surveys=Sam),
         [_SAM_IMG, _PTS, _LBL, _SAM_BOX, randn(1, 1, 256, 256, seed=72)],
         note=f"{RI}; point, box and mask prompts, single mask output"))


def _seg_net():
    """A small convolutional segmentation network with a softmax head (random init)."""
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1), nn.Softmax2d())


_PRE = {"input_space": "BGR", "input_range": [0, 1], "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}
add(case("SemanticSegmentation", "models.segmentation",
         lazy(lambda: SemanticSegmentation(_seg_net(), nn.Identity(), nn.Identity()), surveys=SemanticSegmentation), [IMG64],
         note="a small convolutional network with a softmax head, identity pre/post-processing"))
add(case("SegmentationModelsBuilder.build", "models.segmentation",
         lazy(lambda: Built(SegmentationModelsBuilder, SegmentationModelsBuilder.build(_seg_net(), _PRE, name="tiny")),
              surveys=SegmentationModelsBuilder), [IMG64B],
         note="SegmentationModelsBuilder.build with BGR ImageNet preprocessing around a small softmax network"))
add(case("SegmentationModelsBuilder.build[no_preproc]", "models.segmentation",
         lazy(lambda: Built(SegmentationModelsBuilder, SegmentationModelsBuilder.build(_seg_net())),
              surveys=SegmentationModelsBuilder), [IMG64],
         note="no preprocessing parameters"))
add(case("DepthEstimation", "models.depth_estimation", DepthEstimation, [IMG64],
         skip="runs Depth Anything in onnxruntime from a downloaded ONNX file: no PyTorch graph, and nothing may "
         "be downloaded"))
add(case("DepthAnythingONNXBuilder.build", "models.depth_estimation", DepthAnythingONNXBuilder, [IMG64],
         skip="downloads the Depth Anything ONNX model from the Hugging Face hub"))

# ------------------------------------------------------------------------------------------------- edge detection / super-resolution

add(case("DexiNed", "models.edge_detection", lazy(DexiNed, pretrained=False), [IMG64],
         note=f"{RI}; DexiNed(pretrained=False)"))
add(case("DexiNed[odd_size]", "models.edge_detection", lazy(DexiNed, pretrained=False), [rand(1, 3, 40, 56, seed=73)],
         note=f"{RI}; a size the upsampling blocks must crop back to"))
G = "models.super_resolution"
add(case("RRDBNet", G, lazy(RRDBNet, 3, 3, num_feat=16, num_block=2, num_grow_ch=8), [rand(1, 3, 16, 20, seed=74)],
         note=f"{RI}; scale 4, 2 RRDB blocks of 16 features (the released models have 23 of 64)"))
add(case("RRDBNet[scale=2]", G, lazy(RRDBNet, 3, 3, scale=2, num_feat=16, num_block=1, num_grow_ch=8),
         [rand(1, 3, 16, 20, seed=75)], note=f"{RI}; scale 2 (pixel-unshuffled input)"))
add(case("RRDBNet[scale=1]", G, lazy(RRDBNet, 3, 3, scale=1, num_feat=16, num_block=1, num_grow_ch=8),
         [rand(1, 3, 16, 20, seed=76)], note=f"{RI}; scale 1 (pixel-unshuffle by 4)"))
add(case("SmallSRNet", G, lazy(SmallSRNet, 3, pretrained=False), [rand(1, 1, 32, 40, seed=77)],
         note=f"{RI}; the luminance network, upscale 3"))
add(case("SmallSRNet[x2]", G, lazy(SmallSRNet, 2, pretrained=False), [rand(2, 1, 32, 40, seed=78)], note=RI))
add(case("SmallSRNetWrapper", G, lazy(SmallSRNetWrapper, pretrained=False), [img()],
         note=f"{RI}; RGB -> YCbCr, network on Y, bicubic CbCr, back to RGB"))
add(case("SmallSRNetWrapper[x2]", G, lazy(SmallSRNetWrapper, 2, pretrained=False), [batch()], note=RI))

# ------------------------------------------------------------------------------------------------- processors

G = "models.processors"
add(case("ResizePreProcessor", G, ResizePreProcessor(32, 32), [batch()]))
add(case("ResizePreProcessor[bicubic]", G, ResizePreProcessor(48, 24, "bicubic"), [img()]))
add(case("ResizePostProcessor", G, ResizePostProcessor(), [rand(2, 1, 32, 32, seed=79), torch.tensor([[32, 40], [24, 20]])]))
add(case("ResizePostProcessor[nearest]", G, ResizePostProcessor("nearest"),
         [rand(1, 3, 32, 32, seed=80), torch.tensor([[64, 48]])]))
add(case("OutputRangePostProcessor", G, OutputRangePostProcessor(), [randn(2, 3, 32, 40, seed=81)]))
add(case("OutputRangePostProcessor[-1,1]", G, OutputRangePostProcessor(-1.0, 1.0), [randn(2, 3, 32, 40, seed=81, scale=2.0)]))
add(case("NaFlex", G, lazy(lambda: NaFlex(nn.Conv2d(3, 32, 8, stride=8), randn(16, 32, seed=82)), surveys=NaFlex), [rand(1, 3, 32, 32, seed=83)],
         note="a 8x8-patch convolution and a 4x4 position table, same grid"))
add(case("NaFlex[resize_up]", G, lazy(lambda: NaFlex(nn.Conv2d(3, 32, 8, stride=8), randn(16, 32, seed=82)), surveys=NaFlex),
         [rand(1, 3, 48, 64, seed=84)], note="a 6x8 patch grid: the 4x4 table is interpolated up"))
class _Tokens(nn.Module):
    """A patch embedding that returns (B, N, C) tokens, as a ViT's flattened convolution does."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 8, stride=8)

    def forward(self, x):
        return self.conv(x).flatten(2).transpose(1, 2)


add(case("NaFlex[tokens,resize_down]", G, lazy(lambda: NaFlex(_Tokens(), randn(64, 32, seed=85), patch_size=8), surveys=NaFlex),
         [rand(1, 3, 16, 32, seed=86)],
         note="(B, N, C) tokens with patch_size=8: a 2x4 grid, the 8x8 table is downsampled (antialiased)"))

# ------------------------------------------------------------------------------------------------- vision-language encoders

G = "models.vlm"
_SIG_V = SigLip2VisionConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                             intermediate_size=64)
_SIG_T = SigLip2TextConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=16)
_SIG_CFG = SigLip2Config(vision_config=_SIG_V, text_config=_SIG_T, projection_dim=16)
_SIG = lazy(SigLip2Model, _SIG_CFG)
_IDS = randint(1, 100, 2, 8, seed=87)
_SIG_PIX = rand(2, 3, 32, 32, seed=88, low=-1.0, high=1.0)
add(case("SigLip2Model", G, _SIG, [_SIG_PIX, _IDS],
         note=f"{RI}; one-layer vision (32x32, patch 8) and text towers of width 32"))
add(case("SigLip2Model[attention_mask]", G, lazy(lambda: ByName(SigLip2Model(_SIG_CFG).eval(), ("pixel_values", "input_ids", "attention_mask"),
                                 surveys=SigLip2Model), surveys=SigLip2Model),
         [_SIG_PIX, _IDS, torch.tensor([[1] * 8, [1] * 5 + [0] * 3])], note=f"{RI}; text padding mask"))
add(case("SigLip2Model[get_image_features]", G, _SIG, [_SIG_PIX], method="get_image_features", note=RI))
add(case("SigLip2Model[get_text_features]", G, _SIG, [_IDS], method="get_text_features", note=RI))
add(case("SigLip2Builder.from_config", G, lazy(lambda: Built(SigLip2Builder, SigLip2Builder.from_config(_SIG_CFG).eval()), surveys=SigLip2Builder),
         [_SIG_PIX, _IDS],
         note=f"{RI}; the same small configuration through the builder"))
add(case("SigLip2ImagePreprocessor", G, SigLip2ImagePreprocessor(), [rand(2, 3, 64, 80, seed=89, high=255.0)],
         note="uint8-range images resized to 224x224 and normalised"))
add(case("SigLip2ImagePreprocessor.from_config", G, SigLip2ImagePreprocessor.from_config(32, "bicubic"),
         [rand(1, 3, 48, 40, seed=90, high=255.0)]))
_MOON = MoonViTConfig(image_size=56, patch_size=14, init_pos_emb_height=8, init_pos_emb_width=8, hidden_size=32,
                      num_hidden_layers=1, num_attention_heads=2, intermediate_size=64)
_KPROJ = KimiVLProjectorConfig(input_dim=32, hidden_dim=64, output_dim=48)
_KCFG = KimiVLConfig(vision_config=_MOON, projector_config=_KPROJ)
_KIMG = rand(1, 3, 56, 56, seed=91, low=-1.0, high=1.0)
add(case("MoonViT", G, lazy(MoonViT, _MOON), [_KIMG], note=f"{RI}; one layer of width 32, 4x4 patches of 14"))
add(case("MoonViT[attention_mask]", G, lazy(MoonViT, _MOON), [_KIMG, torch.arange(16).lt(12).view(1, 16)],
         note=f"{RI}; a (B, N) patch mask"))
add(case("KimiVLProjector", G, lazy(KimiVLProjector, _KPROJ), [randn(1, 16, 32, seed=92)], kwargs={"h": 4, "w": 4},
         note=f"{RI}; 2x2 patch merge then MLP"))
add(case("KimiVLModel", G, lazy(KimiVLModel, _KCFG), [_KIMG], note=f"{RI}; MoonViT + projector, small configuration"))
add(case("KimiVLBuilder.from_config", G, lazy(lambda: Built(KimiVLBuilder, KimiVLBuilder.from_config(_KCFG).eval()), surveys=KimiVLBuilder), [_KIMG],
         note=f"{RI}; the same configuration through the builder"))
_QCFG = Qwen25VisionConfig(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, window_size=56,
                           fullatt_block_indexes=(1,), out_hidden_size=48)
add(case("Qwen25VisionTransformer", G, lazy(Qwen25VisionTransformer, _QCFG), [rand(1, 3, 56, 56, seed=93)],
         note=f"{RI}; two blocks of width 32 (one windowed, one full attention), 56x56 input"))
add(case("Qwen25VisionTransformer[batch,rect]", G, lazy(Qwen25VisionTransformer, _QCFG), [rand(2, 3, 56, 112, seed=94)],
         note=f"{RI}; two 56x112 images (two windows each)"))
_PCFG = PaliGemmaConfig(vision_config=SigLip2VisionConfig(image_size=32, patch_size=8, hidden_size=32,
                                                          num_hidden_layers=1, num_attention_heads=2,
                                                          intermediate_size=64),
                        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                        num_key_value_heads=1, head_dim=16, max_position_embeddings=64, image_token_index=127)
add(case("PaliGemma", G, lazy(PaliGemma, _PCFG), [randint(1, 120, 1, 6, seed=95), rand(1, 3, 32, 32, seed=96, low=-1, high=1)],
         note=f"{RI}; one vision and one decoder layer of width 32, vocabulary 128"))
add(case("SmolVLM2", G, lazy(SmolVLM2, 32, 32), [randn(1, 10, 32, seed=97), randn(1, 10, 32, seed=98)],
         note=f"{RI}; kornia's placeholder projection"))
