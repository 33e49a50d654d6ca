"""kornia.models below its packages: the building blocks of the networks (each a public class of a
public module: SAM's prompt encoder, mask decoder and image encoder, the EfficientViT backbone and
its builders, RT-DETR's encoder / decoder parts, the VLM towers' layers, YuNet's blocks and prior
decoding), module-level helpers, and public methods of the model classes.

Every network is randomly initialised (``seeded``: nothing is downloaded) and small: the graph is the
block's own, at a width and depth chosen so that one eager call stays well under a second.

Left out as skipped cases, each with its reason (``opsweep coverage`` lists them as skipped):
callables that download weights or ONNX files, or that write files or open windows.
"""

from __future__ import annotations

import torch
from torch import nn

from kornia.models import common as KC
from kornia.models import dexined as KDX
from kornia.models import rrdbnet as KRR
from kornia.models import small_sr as KSSR
from kornia.models import tiny_vit as KTV
from kornia.models import vit as KVIT
from kornia.models import vit_mobile as KMV
from kornia.models.efficient_vit import backbone as EVB
from kornia.models.efficient_vit import utils as EVU
from kornia.models.efficient_vit.nn import act as EVACT
from kornia.models.efficient_vit.nn import norm as EVNORM
from kornia.models.efficient_vit.nn import ops as EVOPS
from kornia.models.efficient_vit.utils import list as EVLIST
from kornia.models.kimi_vl import KimiVLBuilder, KimiVLConfig, KimiVLProjectorConfig, MoonViTConfig
from kornia.models.kimi_vl import moonvit as KMOON
from kornia.models.paligemma import PaliGemmaConfig
from kornia.models.paligemma import modeling_paligemma as KPG
from kornia.models.qwen25 import Qwen25VisionConfig
from kornia.models.qwen25 import vision as KQW
from kornia.models.rt_detr import RTDETR
from kornia.models.rt_detr import model as RTM
from kornia.models.rt_detr import post_processor as RTPP
from kornia.models.rt_detr.architecture import hgnetv2 as HG
from kornia.models.rt_detr.architecture import hybrid_encoder as HE
from kornia.models.rt_detr.architecture import resnet_d as RD
from kornia.models.rt_detr.architecture import rtdetr_head as RH
from kornia.models.sam import model as SAMM
from kornia.models.sam.architecture import common as SAMC
from kornia.models.sam.architecture import image_encoder as SAMIE
from kornia.models.sam.architecture import prompt_encoder as SAMPE
from kornia.models.sam.architecture import transformer as SAMT
from kornia.models.depth_estimation import DepthEstimation
from kornia.models.segmentation import SegmentationModelsBuilder, SemanticSegmentation
from kornia.models.siglip2 import SigLip2Builder, SigLip2Config, SigLip2ImagePreprocessor
from kornia.models.siglip2 import attention as SGA
from kornia.models.siglip2 import text_encoder as SGT
from kornia.models.siglip2 import vision_encoder as SGV
from kornia.models.siglip2.config import SigLip2TextConfig, SigLip2VisionConfig
from kornia.models.structures import SegmentationResults
from kornia.models.yunet import model as YUM
from kornia.models.yunet import processors as YUP

from opsweep import case
from opsweep_suites.kornia._breadth import Call, lazy_built, seeded, skipped_cases
from opsweep_suites.kornia._common import Built, rand, randint, randn

RI = "random init"
CASES: list = []
add = CASES.append


def blk(name, group, cls, args, inputs, seed, note="", **kw):
    """A building block called on tensors: ``cls(*args)`` built from ``seed``, in eval mode."""
    if isinstance(args, dict):
        model = seeded(seed, cls, **args)
    else:
        model = seeded(seed, cls, *args)
    add(case(name, group, model, inputs, note=f"{RI}; {note}" if note else RI, **kw))


def built(name, group, builder, make, inputs, seed, note="", lazy=False):
    """A public function that returns a module, surveyed through the module it builds; ``lazy`` for
    large networks (built when the harness copies the target, see ``Lazy``)."""
    target = lazy_built(builder, make) if lazy else Built(builder, seeded(seed, make))
    add(case(name, group, target, inputs, note=f"{RI}; {note}" if note else RI))


X16 = rand(1, 16, 16, 16, seed=700)
X8 = rand(1, 8, 16, 16, seed=701)
TOK = randn(1, 16, 32, seed=702)

# ------------------------------------------------------------------------------------------------- common

G = "models.common"
blk("common.ConvNormAct", G, KC.ConvNormAct, (8, 16, 3), [X8], 710)
blk("common.ConvNormAct[stride=2,silu]", G, KC.ConvNormAct, dict(in_channels=8, out_channels=8, kernel_size=3, stride=2,
    act="silu"), [X8], 711)
blk("common.DropPath", G, KC.DropPath, (0.2,), [X16], 712, note="eval mode: identity")
blk("common.DropPath[train]", G, lambda: KC.DropPath(0.5).train(), (), [X16], 712, check=False,
    note="train mode: samples which rows to drop")
blk("common.LayerNorm2d", G, KC.LayerNorm2d, (16,), [X16], 713)
blk("common.MLP", G, KC.MLP, (32, 64, 8, 3), [TOK], 714)
blk("common.MLP[sigmoid]", G, KC.MLP, dict(input_dim=32, hidden_dim=16, output_dim=4, num_layers=2, sigmoid_output=True),
    [TOK], 715)
add(case("common.window_partition", G, KC.window_partition, [randn(1, 14, 14, 8, seed=716)], kwargs={"window_size": 4},
         note="14x14 padded to 16x16, 16 windows of 4x4"))
add(case("common.window_unpartition", G, KC.window_unpartition, [randn(16, 4, 4, 8, seed=717)],
         kwargs={"window_size": 4, "pad_hw": (16, 16), "hw": (14, 14)}))

# ------------------------------------------------------------------------------------------------- dexined

G = "models.edge_detection"
blk("dexined.CoFusion", G, KDX.CoFusion, (6, 6), [rand(1, 6, 16, 16, seed=720)], 721)
blk("dexined.DoubleConvBlock", G, KDX.DoubleConvBlock, (3, 16, 8), [rand(1, 3, 16, 16, seed=722)], 723)
blk("dexined.SingleConvBlock", G, KDX.SingleConvBlock, (8, 16, 2), [X8], 724)
add(case("dexined.UpConvBlock", G, Call(KDX.UpConvBlock, lambda m, x: m(x, [32, 32]), seeded(725, KDX.UpConvBlock, 8, 1)),
         [X8], note=f"{RI}; up_scale=1, cropped to 32x32"))
add(case("dexined.UpConvBlock.make_deconv_layers", G,
         Call(KDX.UpConvBlock.make_deconv_layers, lambda m, x: nn.Sequential(*m.make_deconv_layers(8, 2))(x),
              seeded(726, KDX.UpConvBlock, 8, 1)), [X8],
         note=f"{RI}; the layers make_deconv_layers(8, up_scale=2) builds, applied (initialised by the global RNG: "
         "a new module per call, so values are not compared)", check=False))
add(case("dexined.DexiNed.get_features", G,
         lazy_built(KDX.DexiNed.get_features, lambda: Call(KDX.DexiNed.get_features, lambda m, x: m.get_features(x),
                                                          KDX.DexiNed(pretrained=False))),
         [rand(1, 3, 32, 32, seed=728)], note=RI))


def _init_then_apply(init):
    def fn(m, x):
        with torch.no_grad():
            m.apply(init)
        return m(x)

    return fn


add(case("dexined.weight_init", G, Call(KDX.weight_init, _init_then_apply(KDX.weight_init), nn.Conv2d(3, 4, 3)),
         [rand(1, 3, 16, 16, seed=729)], check=False,
         note="weight_init applied to a convolution, then the convolution run: the initialisation draws from the global RNG"))
add(case("small_sr.weight_init", "models.super_resolution",
         Call(KSSR.weight_init, _init_then_apply(KSSR.weight_init), nn.Conv2d(1, 4, 3)), [rand(1, 1, 16, 16, seed=730)],
         check=False, note="orthogonal init applied to a convolution, then the convolution run"))
blk("rrdbnet.RRDB", "models.super_resolution", KRR.RRDB, (16, 8), [X16], 731)
blk("rrdbnet.ResidualDenseBlock", "models.super_resolution", KRR.ResidualDenseBlock, (16, 8), [X16], 732)

# ------------------------------------------------------------------------------------------------- efficient_vit

G = "models.efficient_vit"
# A measured ONNX limitation of LiteMLA (hand-checked, no opsweep code on the path): the exporter's optimizer
# (onnxscript 0.7.2, torch.onnx.export's default optimize=True) removes ``+ eps`` (1e-15) from LiteMLA's
# ``out[..., :-1] / (out[..., -1:] + eps)``: its ``x + 0`` rule matches constants within 1e-8 of zero. Where a ReLU
# attention normaliser is exactly 0, the file computes 0/0 = NaN instead of 0.
_LITEMLA_ONNX = ("ONNX: NaN where eager gives 0, because the exporter's optimizer drops LiteMLA's + 1e-15 "
                 "(onnxscript treats it as + 0); torch.onnx.export(..., optimize=False) keeps it")
blk("efficient_vit.ConvLayer", G, EVB.ConvLayer, (8, 16), [X8], 740)
blk("efficient_vit.DSConv", G, EVB.DSConv, (8, 16), [X8], 741)
blk("efficient_vit.MBConv", G, EVB.MBConv, (8, 16), [X8], 742)
blk("efficient_vit.FusedMBConv", G, EVB.FusedMBConv, (8, 16), [X8], 743)
blk("efficient_vit.ResBlock", G, EVB.ResBlock, (8, 16), [X8], 744)
blk("efficient_vit.EfficientViTBlock", G, EVB.EfficientViTBlock, dict(in_channels=16, dim=8), [X16], 745,
    note="in_channels=16, dim=8; " + _LITEMLA_ONNX)
blk("efficient_vit.IdentityLayer", G, EVB.IdentityLayer, (), [X8], 746)
blk("efficient_vit.OpSequential", G, lambda: EVB.OpSequential([nn.Conv2d(8, 8, 3, padding=1), None, nn.ReLU()]), (),
    [X8], 747, note="[Conv2d, None, ReLU]: None entries are dropped")
blk("efficient_vit.ResidualBlock", G, lambda: EVB.ResidualBlock(nn.Conv2d(8, 8, 3, padding=1), EVB.IdentityLayer()), (),
    [X8], 748, note="a convolution plus identity shortcut")
_RB = seeded(749, EVB.ResidualBlock, nn.Conv2d(8, 8, 3, padding=1), EVB.IdentityLayer(), pre_norm=nn.BatchNorm2d(8))
add(case("efficient_vit.ResidualBlock.forward_main", G, _RB, [X8], method="forward_main", note=f"{RI}; with a pre-norm"))
blk("efficient_vit.LiteMLA", G, EVOPS.LiteMLA, dict(in_channels=16, out_channels=16, dim=8), [X16], 750)
add(case("efficient_vit.LiteMLA.relu_linear_att", G, seeded(751, EVOPS.LiteMLA, in_channels=16, out_channels=16, dim=8),
         [rand(1, 48, 8, 8, seed=752)], method="relu_linear_att", note=f"{RI}; a qkv map of 3 x 16 channels"))
blk("efficient_vit.nn.LayerNorm2d", G, EVNORM.LayerNorm2d, (16,), [X16], 753)
built("efficient_vit.build_norm", G, EVNORM.build_norm, lambda: EVNORM.build_norm("bn2d", 16), [X16], 754)
built("efficient_vit.build_norm[ln2d]", G, EVNORM.build_norm, lambda: EVNORM.build_norm("ln2d", 16), [X16], 754)
built("efficient_vit.build_act", G, EVACT.build_act, lambda: EVACT.build_act("hswish"), [randn(1, 8, 4, 4, seed=755)], 755)
built("efficient_vit.build_act[gelu]", G, EVACT.build_act, lambda: EVACT.build_act("gelu"), [randn(1, 8, 4, 4, seed=755)],
      755)
built("efficient_vit.EfficientViTBackbone.build_local_block", G, EVB.EfficientViTBackbone.build_local_block,
      lambda: EVB.EfficientViTBackbone.build_local_block(8, 16, 2, 4.0, "bn2d", "hswish"), [X8], 756)
built("efficient_vit.EfficientViTLargeBackbone.build_local_block", G, EVB.EfficientViTLargeBackbone.build_local_block,
      lambda: EVB.EfficientViTLargeBackbone.build_local_block(1, 8, 16, 2, 4.0, "bn2d", "gelu"), [X8], 757)
IMG64 = rand(1, 3, 64, 64, seed=758)
blk("efficient_vit.EfficientViTBackbone", G, EVB.EfficientViTBackbone, dict(width_list=[8, 16, 24, 32, 48],
    depth_list=[1, 1, 1, 1, 1], dim=8), [IMG64], 759, note="widths 8..48, one block per stage")
blk("efficient_vit.EfficientViTLargeBackbone", G, EVB.EfficientViTLargeBackbone, dict(width_list=[8, 16, 24, 32, 48],
    depth_list=[1, 1, 1, 1, 1], qkv_dim=8), [IMG64], 760, note="widths 8..48, one block per stage; " + _LITEMLA_ONNX)
for _v in ("b0", "b1", "b2", "b3", "l0", "l1", "l2", "l3"):
    _fn = getattr(EVB, f"efficientvit_backbone_{_v}")
    built(f"efficient_vit.efficientvit_backbone_{_v}", G, _fn, _fn, [IMG64], 761,
          note="the released widths and depths" + ("; " + _LITEMLA_ONNX if _v in ("b0", "b1") else ""),
          lazy=_v not in ("b0", "b1"))


class _Cfg:
    def __init__(self, width, depth):
        self.width, self.depth = width, depth


def _kwargs_then_build(x):
    kw = EVB.build_kwargs_from_config({"in_channels": 3, "dim": 8, "unused": 1}, EVB.EfficientViTBackbone)
    return kw


built("efficient_vit.build_kwargs_from_config", G, EVB.build_kwargs_from_config,
      lambda: EVB.EfficientViTBackbone([8, 16, 24, 32, 48], [1, 1, 1, 1, 1],
                                       **EVB.build_kwargs_from_config({"in_channels": 3, "dim": 8, "unused": 1},
                                                                      EVB.EfficientViTBackbone)), [IMG64], 762,
      note="build_kwargs_from_config keeps the keys EfficientViTBackbone accepts; the backbone built with them")
add(case("efficient_vit.val2list", G, Call(EVLIST.val2list, lambda x: torch.stack(EVLIST.val2list(x, 3))),
         [randn(4, seed=763)], note="a tensor repeated into a list of 3, stacked"))
add(case("efficient_vit.val2tuple", G, Call(EVU.val2tuple, lambda x, y: torch.stack(EVU.val2tuple([x, y], 4))),
         [randn(4, seed=764), randn(4, seed=765)], note="[x, y] padded to 4 by repeating the last"))

# ------------------------------------------------------------------------------------------------- kimi_vl / MoonViT

G = "models.vlm"
_MOON = MoonViTConfig(image_size=56, patch_size=14, init_pos_emb_height=8, init_pos_emb_width=8, hidden_size=32,
                      num_hidden_layers=1, num_attention_heads=2, intermediate_size=64)
_ROT = KMOON.MoonViTRotaryEmbedding(16)


def _moon(m, x):
    cos, sin = _ROT(4, 4, x.device)
    return m(x, cos, sin)


add(case("moonvit.MoonViTRotaryEmbedding", G, Call(KMOON.MoonViTRotaryEmbedding, lambda m, x: [t + x for t in m(4, 4, x.device)],
                                                    KMOON.MoonViTRotaryEmbedding(16)), [torch.zeros(1)],
         note="the 4x4-grid tables of a 16-wide head (a zero input carries the device)"))
add(case("moonvit.MoonViTAttention", G, Call(KMOON.MoonViTAttention, _moon, seeded(770, KMOON.MoonViTAttention, _MOON)),
         [TOK], note=f"{RI}; 16 tokens of width 32, rotary tables of a 4x4 grid"))
add(case("moonvit.MoonViTLayer", G, Call(KMOON.MoonViTLayer, _moon, seeded(771, KMOON.MoonViTLayer, _MOON)), [TOK], note=RI))
add(case("moonvit.MoonViTEncoder", G, Call(KMOON.MoonViTEncoder, _moon, seeded(772, KMOON.MoonViTEncoder, _MOON)), [TOK],
         note=RI))
blk("moonvit.MoonViTMLP", G, KMOON.MoonViTMLP, (_MOON,), [TOK], 773)
add(case("moonvit.apply_rotary_pos_emb", G, KMOON.apply_rotary_pos_emb,
         [randn(1, 2, 16, 16, seed=774), *[t.view(1, 1, 16, 8) for t in _ROT(4, 4, torch.device("cpu"))]]))
add(case("KimiVLBuilder.from_config[breadth]", G, Built(KimiVLBuilder.from_config, seeded(775, KimiVLBuilder.from_config,
         KimiVLConfig(vision_config=_MOON, projector_config=KimiVLProjectorConfig(input_dim=32, hidden_dim=64, output_dim=48)))),
         [rand(1, 3, 56, 56, seed=776, low=-1, high=1)],
         note=f"{RI}; the classmethod from_config (the registry's other case wraps the builder class)"))

# ------------------------------------------------------------------------------------------------- paligemma

_PCFG = PaliGemmaConfig(vision_config=SigLip2VisionConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1,
                                                          num_attention_heads=2, intermediate_size=64),
                        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                        num_key_value_heads=1, head_dim=16, max_position_embeddings=64, image_token_index=127)
HID = randn(1, 6, 32, seed=780)
POS = torch.arange(6).view(1, 6)
blk("paligemma.GemmaAttention", G, KPG.GemmaAttention, (_PCFG, 0), [HID, torch.zeros(1, 1, 6, 6), POS], 781,
    note="6 tokens, grouped-query attention (2 heads, 1 key/value head), no mask")
blk("paligemma.GemmaDecoderLayer", G, KPG.GemmaDecoderLayer, (_PCFG, 0), [HID, torch.zeros(1, 1, 6, 6), POS], 782)
blk("paligemma.GemmaMLP", G, KPG.GemmaMLP, (_PCFG,), [HID], 783)
blk("paligemma.GemmaRMSNorm", G, KPG.GemmaRMSNorm, (32,), [HID], 784)
blk("paligemma.GemmaRotaryEmbedding", G, KPG.GemmaRotaryEmbedding, (16,), [HID, POS], 785)
_COS, _SIN = KPG.GemmaRotaryEmbedding(16)(HID, POS)
add(case("paligemma.apply_rotary_pos_emb", G, KPG.apply_rotary_pos_emb,
         [randn(1, 2, 6, 16, seed=786), randn(1, 1, 6, 16, seed=787), _COS, _SIN]))
blk("paligemma.SigLip2VisionModel", G, KPG.SigLip2VisionModel, (_PCFG.vision_config,), [rand(1, 3, 32, 32, seed=788)], 789)

# ------------------------------------------------------------------------------------------------- qwen25

_QCFG = Qwen25VisionConfig(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, window_size=56, out_hidden_size=48)
_QROT = (randn(16, 16, seed=790), randn(16, 16, seed=791))
_QX = randn(1, 16, 32, seed=792)
blk("qwen25.Qwen25RMSNorm", G, KQW.Qwen25RMSNorm, (32,), [_QX], 793)
blk("qwen25.Qwen25VisionAttention", G, KQW.Qwen25VisionAttention, (32, 2), [_QX, *_QROT], 794,
    note="16 tokens, 2 heads of 16, given rotary tables")
blk("qwen25.Qwen25VisionBlock", G, KQW.Qwen25VisionBlock, (_QCFG,), [_QX, *_QROT], 795)
blk("qwen25.Qwen25VisionMLP", G, KQW.Qwen25VisionMLP, (32, 64), [_QX], 796)
blk("qwen25.Qwen25VisionPatchEmbed", G, KQW.Qwen25VisionPatchEmbed, (_QCFG,), [rand(1, 3, 56, 56, seed=797)], 798)
blk("qwen25.Qwen25VisionPatchMerger", G, KQW.Qwen25VisionPatchMerger, (_QCFG,), [_QX], 799)

# ------------------------------------------------------------------------------------------------- siglip2

_SV = SigLip2VisionConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                          intermediate_size=64)
_ST = SigLip2TextConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=16)
IDS = randint(1, 100, 2, 8, seed=800)
TXT = randn(2, 8, 32, seed=801)
PIX = rand(2, 3, 32, 32, seed=802, low=-1, high=1)
blk("siglip2.SigLip2Attention", G, SGA.SigLip2Attention, (32, 2), [TXT], 803)
blk("siglip2.SigLip2TextEmbeddings", G, SGT.SigLip2TextEmbeddings, (_ST,), [IDS], 804)
blk("siglip2.SigLip2TextEncoder", G, SGT.SigLip2TextEncoder, (_ST,), [TXT], 805)
blk("siglip2.SigLip2TextLayer", G, SGT.SigLip2TextLayer, (_ST,), [TXT], 806)
blk("siglip2.SigLip2TextMLP", G, SGT.SigLip2TextMLP, (_ST,), [TXT], 807)
blk("siglip2.SigLip2TextModel", G, SGT.SigLip2TextModel, (_ST,), [IDS], 808)
blk("siglip2.SigLip2MultiheadAttentionPoolingHead", G, SGV.SigLip2MultiheadAttentionPoolingHead, (_SV,), [TXT], 809)
blk("siglip2.SigLip2VisionEmbeddings", G, SGV.SigLip2VisionEmbeddings, (_SV,), [PIX], 810)
blk("siglip2.SigLip2VisionEncoder", G, SGV.SigLip2VisionEncoder, (_SV,), [TXT], 811)
blk("siglip2.SigLip2VisionLayer", G, SGV.SigLip2VisionLayer, (_SV,), [TXT], 812)
blk("siglip2.SigLip2VisionMLP", G, SGV.SigLip2VisionMLP, (_SV,), [TXT], 813)
blk("siglip2.SigLip2VisionModel", G, SGV.SigLip2VisionModel, (_SV,), [PIX], 814)
_SCFG = SigLip2Config(vision_config=_SV, text_config=_ST, projection_dim=16)
built("SigLip2Builder.from_config[breadth]", G, SigLip2Builder.from_config, lambda: SigLip2Builder.from_config(_SCFG),
      [PIX, IDS], 815, note="the classmethod from_config")
built("SigLip2ImagePreprocessor.from_config[breadth]", G, SigLip2ImagePreprocessor.from_config,
      lambda: SigLip2ImagePreprocessor.from_config(32), [rand(1, 3, 48, 40, seed=816, high=255.0)], 816)

# ------------------------------------------------------------------------------------------------- rt_detr

G = "models.detection"
_SC = HG.StageConfig(16, 16, 32, 1, False, False, 3, 2)
blk("rt_detr.hgnetv2.HGBlock", G, HG.HGBlock, (16, _SC, False), [X16], 820)
blk("rt_detr.hgnetv2.HGStage", G, HG.HGStage, (_SC,), [X16], 821)
blk("rt_detr.hgnetv2.HGStage[light,downsample]", G, HG.HGStage, (HG.StageConfig(16, 16, 32, 1, True, True, 5, 2),), [X16], 822)
blk("rt_detr.hgnetv2.LightConvNormAct", G, HG.LightConvNormAct, (16, 32, 3), [X16], 823)
blk("rt_detr.hgnetv2.StemBlock", G, HG.StemBlock, (3, 8, 16), [IMG64], 824)
blk("rt_detr.hybrid_encoder.AIFI", G, HE.AIFI, (16, 2, 32), [X16], 825)
add(case("rt_detr.hybrid_encoder.AIFI.build_2d_sincos_pos_emb", G,
         Call(HE.AIFI.build_2d_sincos_pos_emb, lambda x: HE.AIFI.build_2d_sincos_pos_emb(4, 6, 16) + x), [torch.zeros(1)],
         note="the 4x6-grid table of width 16"))
add(case("rt_detr.hybrid_encoder.AIFI.ffn", G, seeded(826, HE.AIFI, 16, 2, 32), [randn(1, 20, 16, seed=827)], method="ffn",
         note=RI))
_FM = [rand(1, 16, 16, 16, seed=828), rand(1, 16, 8, 8, seed=829), rand(1, 16, 4, 4, seed=830)]
add(case("rt_detr.hybrid_encoder.CCFM", G, Call(HE.CCFM, lambda m, a, b, c: m([a, b, c]), seeded(831, HE.CCFM, 3, 16)), _FM,
         note=f"{RI}; three 16-channel maps"))
blk("rt_detr.hybrid_encoder.CSPRepLayer", G, HE.CSPRepLayer, (16, 16, 1), [X16], 832)
blk("rt_detr.hybrid_encoder.RepVggBlock", G, HE.RepVggBlock, (16, 16), [X16], 833)
blk("rt_detr.hybrid_encoder.TransformerEncoder", G, lambda: HE.TransformerEncoder(
    nn.TransformerEncoderLayer(16, 2, 32, 0.0, batch_first=True), 1), (), [randn(1, 20, 16, seed=834)], 835)
blk("rt_detr.resnet_d.BasicBlockD", G, RD.BasicBlockD, (16, 16, 1, True), [X16], 836)
blk("rt_detr.resnet_d.BasicBlockD[stride=2]", G, RD.BasicBlockD, (16, 32, 2, False), [X16], 837)
blk("rt_detr.resnet_d.BottleneckD", G, RD.BottleneckD, (16, 8, 1, False), [X16], 838,
    note="in 16, width 8 (out 32), projection shortcut")
blk("rt_detr.resnet_d.Block", G, lambda: RD.Block(nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())), (), [X16], 839)
blk("rt_detr.ResNetD", G, RTM.ResNetD, ([1, 1, 1, 1], RD.BasicBlockD), [IMG64], 840)
built("rt_detr.ResNetD.from_config", G, RTM.ResNetD.from_config, lambda: RTM.ResNetD.from_config(18), [IMG64], 841,
      note="ResNet-18-D", lazy=True)
# Built outside the call, as a user holds the stage: built inside it, the capture had to replay the stage's
# random initialisation (torch.export traces the init's draws, which do not reproduce eager's seeded ones).
built("rt_detr.ResNetD.make_stage", G, RTM.ResNetD.make_stage, lambda: RTM.ResNetD.make_stage(16, 16, 2, 1, RD.BasicBlockD)[0],
      [X16], 842, note="the stage make_stage builds, applied")
blk("rt_detr.PPHGNetV2", G, RTM.PPHGNetV2, ([3, 8, 16], [HG.StageConfig(16, 16, 32, 1, False, False, 3, 2),
                                                         HG.StageConfig(32, 16, 48, 1, True, False, 3, 2),
                                                         HG.StageConfig(48, 16, 64, 1, True, True, 5, 2),
                                                         HG.StageConfig(64, 16, 96, 1, True, True, 5, 2)]), [IMG64], 843,
    note="four narrow stages")
built("rt_detr.PPHGNetV2.from_config", G, RTM.PPHGNetV2.from_config, lambda: RTM.PPHGNetV2.from_config("L"), [IMG64], 844,
      note="HGNetV2-L", lazy=True)
_FM3 = [rand(1, 16, 16, 16, seed=845), rand(1, 24, 8, 8, seed=846), rand(1, 32, 4, 4, seed=847)]
add(case("rt_detr.HybridEncoder", G, Call(RTM.HybridEncoder, lambda m, a, b, c: m([a, b, c]),
                                          seeded(848, RTM.HybridEncoder, [16, 24, 32], 16, 32)), _FM3,
         note=f"{RI}; three maps of 16/24/32 channels, hidden 16"))
_HEAD = seeded(849, RTM.RTDETRHead, 4, 16, 10, [16, 16, 16], 1, num_heads=2)
_HFM = [rand(1, 16, 16, 16, seed=850), rand(1, 16, 8, 8, seed=851), rand(1, 16, 4, 4, seed=852)]
add(case("rt_detr.RTDETRHead", G, Call(RTM.RTDETRHead, lambda m, a, b, c: m([a, b, c]), _HEAD), _HFM,
         note=f"{RI}; 4 classes, 10 queries, hidden 16, one decoder layer"))
_MSDA = seeded(853, RH.MultiScaleDeformableAttention, 16, 2, 2, 2)
_SHAPES = [(8, 8), (4, 4)]
add(case("rt_detr.rtdetr_head.MultiScaleDeformableAttention", G,
         Call(RH.MultiScaleDeformableAttention, lambda m, q, r, v: m(q, r, v, _SHAPES), _MSDA),
         [randn(1, 10, 16, seed=854), rand(1, 10, 2, 4, seed=855, low=0.1, high=0.9), randn(1, 80, 16, seed=856)],
         note=f"{RI}; 10 queries over two levels (8x8, 4x4), 2 heads, 2 points"))
_TDL = seeded(857, RH.TransformerDecoderLayer, 16, 2, 0.0, 2, 2)
add(case("rt_detr.rtdetr_head.TransformerDecoderLayer", G,
         Call(RH.TransformerDecoderLayer, lambda m, t, r, mem, pos: m(t, r, mem, _SHAPES, query_pos_embed=pos), _TDL),
         [randn(1, 10, 16, seed=858), rand(1, 10, 2, 4, seed=859, low=0.1, high=0.9), randn(1, 80, 16, seed=860),
          randn(1, 10, 16, seed=861)], note=RI))


def _decoder(m, heads, tgt, ref, mem):
    bbox, score, qpos = heads
    return m(tgt, ref, mem, _SHAPES, [0, 64], bbox, score, qpos)


class _Heads(nn.Module):
    def __init__(self):
        super().__init__()
        from kornia.models.common import MLP

        self.bbox = nn.ModuleList([MLP(16, 16, 4, 3)])
        self.score = nn.ModuleList([nn.Linear(16, 4)])
        self.qpos = MLP(4, 32, 16, 2)

    def __iter__(self):
        return iter((self.bbox, self.score, self.qpos))


_TD = seeded(862, RH.TransformerDecoder, 16, RH.TransformerDecoderLayer(16, 2, 0.0, 2, 2), 1)
add(case("rt_detr.rtdetr_head.TransformerDecoder", G, Call(RH.TransformerDecoder, _decoder, _TD, seeded(863, _Heads)),
         [randn(1, 10, 16, seed=864), randn(1, 10, 4, seed=865), randn(1, 80, 16, seed=866)],
         note=f"{RI}; one layer, box / score / query-position heads as RTDETRHead builds them"))
add(case("rt_detr.post_processor.mod", G, RTPP.mod, [randint(0, 100, 2, 10, seed=867)], kwargs={"b": 7}))
built("RTDETR.from_name", G, RTDETR.from_name, lambda: RTDETR.from_name("rtdetr_r18vd", num_classes=4),
      [rand(1, 3, 128, 128, seed=869)], 868,
      note="rtdetr_r18vd with 4 classes (the full-size neck and head; 128x128 gives the 300 queries enough anchors). "
      "Ill-conditioned at random init: float32 eager itself differs from float64 eager in 8 of its 1,200 box values "
      "(up to 0.006) and 4 of its 1,200 logits (up to 0.44), because the top-k query selection swaps near-tied "
      "queries; a mismatch of this case may be rounding, not the capture (measured 2026-12-01: its ONNX export "
      "differs from float64 in 34 box values and 27 logits)",
      lazy=True)

# ------------------------------------------------------------------------------------------------- sam

G = "models.segmentation"
blk("sam.MLPBlock", G, SAMC.MLPBlock, (32, 64), [TOK], 870)
blk("sam.image_encoder.Attention", G, SAMIE.Attention, dict(dim=32, num_heads=2), [randn(1, 4, 4, 32, seed=871)], 872)
blk("sam.image_encoder.Attention[rel_pos]", G, SAMIE.Attention, dict(dim=32, num_heads=2, use_rel_pos=True,
    rel_pos_zero_init=False, input_size=(4, 4)), [randn(1, 4, 4, 32, seed=871)], 873,
    note="decomposed relative positions (random, not zero)")
blk("sam.image_encoder.Block", G, SAMIE.Block, dict(dim=32, num_heads=2, window_size=2), [randn(1, 4, 4, 32, seed=874)],
    875, note="2x2 windows")
blk("sam.image_encoder.PatchEmbed", G, SAMIE.PatchEmbed, dict(embed_dim=32), [rand(1, 3, 64, 64, seed=876)], 877)
add(case("sam.image_encoder.get_rel_pos", G, Call(SAMIE.get_rel_pos, lambda t: SAMIE.get_rel_pos(4, 4, t)),
         [randn(7, 16, seed=878)]))
add(case("sam.image_encoder.get_rel_pos[interpolate]", G, Call(SAMIE.get_rel_pos, lambda t: SAMIE.get_rel_pos(4, 4, t)),
         [randn(5, 16, seed=878)], note="a table of 5 resized to 7"))
add(case("sam.image_encoder.add_decomposed_rel_pos", G, SAMIE.add_decomposed_rel_pos,
         [randn(2, 16, 16, seed=879), randn(2, 16, 16, seed=880), randn(7, 16, seed=881), randn(7, 16, seed=882)],
         kwargs={"q_size": (4, 4), "k_size": (4, 4)}))
blk("sam.ImageEncoderViT", G, SAMM.ImageEncoderViT, dict(img_size=64, patch_size=16, embed_dim=32, depth=1, num_heads=2,
    out_chans=16, window_size=2, global_attn_indexes=()), [rand(1, 3, 64, 64, seed=883)], 884,
    note="64x64 input, one windowed block of width 32")
blk("sam.LayerNorm", G, SAMM.LayerNorm, (32,), [TOK], 885)
_PE = seeded(886, SAMPE.PositionEmbeddingRandom, 8)
add(case("sam.PositionEmbeddingRandom", G, Call(SAMPE.PositionEmbeddingRandom, lambda m, x: m((4, 6)) + x, _PE),
         [torch.zeros(1)], note=f"{RI}; the encoding of a 4x6 grid"))
add(case("sam.PositionEmbeddingRandom.forward_with_coords", G,
         Call(SAMPE.PositionEmbeddingRandom.forward_with_coords, lambda m, c: m.forward_with_coords(c, (64, 64)), _PE),
         [rand(1, 3, 2, seed=887, high=64.0)], note=RI))
_PROMPT = seeded(888, SAMM.PromptEncoder, 16, (4, 4), (64, 64), 4)
add(case("sam.PromptEncoder", G, Call(SAMM.PromptEncoder, lambda m, p, l, b, k: m((p, l), b, k), _PROMPT),
         [rand(1, 2, 2, seed=889, high=64.0), torch.tensor([[1, 0]]), torch.tensor([[8.0, 8.0, 40.0, 50.0]]),
          randn(1, 1, 16, 16, seed=890)], note=f"{RI}; two points, a box and a mask prompt; embed_dim 16, 4x4 embedding"))
add(case("sam.PromptEncoder[points]", G, Call(SAMM.PromptEncoder, lambda m, p, l: m((p, l), None, None), _PROMPT),
         [rand(1, 2, 2, seed=889, high=64.0), torch.tensor([[1, 1]])], note=f"{RI}; points only (padded)"))
add(case("sam.PromptEncoder.get_dense_pe", G, Call(SAMM.PromptEncoder.get_dense_pe, lambda m, x: m.get_dense_pe() + x, _PROMPT),
         [torch.zeros(1)], note=RI))
_TWT = seeded(891, SAMM.TwoWayTransformer, 1, 16, 2, 32)
_IE, _IPE, _PTE = randn(1, 16, 4, 4, seed=892), randn(1, 16, 4, 4, seed=893), randn(1, 5, 16, seed=894)
blk("sam.TwoWayTransformer", G, SAMM.TwoWayTransformer, (1, 16, 2, 32), [_IE, _IPE, _PTE], 891)
blk("sam.transformer.Attention", G, SAMT.Attention, (16, 2, 2), [_PTE, randn(1, 16, 16, seed=895), randn(1, 16, 16, seed=896)],
    897, note="downsample_rate=2")
blk("sam.transformer.TwoWayAttentionBlock", G, SAMT.TwoWayAttentionBlock, dict(embedding_dim=16, num_heads=2, mlp_dim=32),
    [_PTE, randn(1, 16, 16, seed=895), randn(1, 5, 16, seed=898), randn(1, 16, 16, seed=899)], 900)
_MD = seeded(901, SAMM.MaskDecoder, transformer_dim=16, transformer=SAMM.TwoWayTransformer(1, 16, 2, 32), iou_head_hidden_dim=16)
_SPARSE, _DENSE = randn(1, 3, 16, seed=902), randn(1, 16, 4, 4, seed=903)
add(case("sam.MaskDecoder", G, Call(SAMM.MaskDecoder, lambda m, a, b, c, d: m(a, b, c, d, True), _MD),
         [_IE, _IPE, _SPARSE, _DENSE], note=f"{RI}; width 16, one two-way layer, multimask output"))
add(case("sam.MaskDecoder[single]", G, Call(SAMM.MaskDecoder, lambda m, a, b, c, d: m(a, b, c, d, False), _MD),
         [_IE, _IPE, _SPARSE, _DENSE], note=f"{RI}; single mask output"))
add(case("sam.MaskDecoder.predict_masks", G, _MD, [_IE, _IPE, _SPARSE, _DENSE], method="predict_masks", note=RI))


def _seg_results(logits, scores):
    return SegmentationResults(logits, scores)


add(case("SegmentationResults.original_res_logits", G,
         Call(SegmentationResults.original_res_logits,
              lambda lg, sc: _seg_results(lg, sc).original_res_logits((48, 64), (60, 80), (64, 64))),
         [randn(1, 3, 16, 16, seed=904), rand(1, 3, seed=905)],
         note="low-resolution mask logits to the encoder size, cropped to the input, resized to the original"))
add(case("SegmentationResults.squeeze", G,
         Call(SegmentationResults.squeeze, lambda lg, sc: _seg_results(lg, sc).squeeze(0)),
         [randn(1, 3, 16, 16, seed=906), rand(1, 3, seed=907)]))

# ------------------------------------------------------------------------------------------------- segmentation

_NET = seeded(908, lambda: nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.Softmax2d()))
_SEG = SemanticSegmentation(_NET, nn.Identity(), nn.Identity())
add(case("SemanticSegmentation.get_colormap", G, Call(SemanticSegmentation.get_colormap,
                                                        lambda m, x: m.get_colormap(5, "random", 7) + x, _SEG),
         [torch.zeros(1)], note="random colours from a fixed seed"))
add(case("SemanticSegmentation.visualize_output", G, _SEG, [randn(1, 4, 16, 16, seed=909).softmax(1), rand(4, 3, seed=910)], method="visualize_output",
         fresh_inputs=[randn(1, 4, 16, 16, seed=913).softmax(1), rand(4, 3, seed=914)],
         note="argmax of softmax class scores coloured by a 4-colour table"))
add(case("SemanticSegmentation.visualize", G,
         Call(SemanticSegmentation.visualize, lambda m, x: m.visualize(x, output_type="torch", manual_seed=7), _SEG),
         [rand(1, 3, 16, 16, seed=911)], note="runs the network, colours its argmax"))
built("SegmentationModelsBuilder.get_preprocessing_pipeline", G, SegmentationModelsBuilder.get_preprocessing_pipeline,
      lambda: SegmentationModelsBuilder.get_preprocessing_pipeline(
          {"input_space": "RGB", "input_range": [0, 255], "mean": [0.5, 0.5, 0.5], "std": [0.2, 0.2, 0.2]}),
      [rand(1, 3, 16, 16, seed=912)], 912, note="RGB, 0..255 range, mean/std normalisation")

built("SegmentationModelsBuilder.build[breadth]", G, SegmentationModelsBuilder.build,
      lambda: SegmentationModelsBuilder.build(_NET, {"input_space": "BGR", "input_range": [0, 1], "mean": None, "std": None}),
      [rand(1, 3, 16, 16, seed=915)], 915, note="the staticmethod build, BGR input, no normalisation")


def _identity_onnx():
    """A one-node ONNX graph (y = x), built in memory: DepthEstimation needs a model, and nothing may be downloaded."""
    from onnx import TensorProto, helper

    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["B", 3, "H", "W"]) for n in ("x", "y")]
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity", io[:1], io[1:])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


_DEPTH = DepthEstimation(_identity_onnx())
G = "models.depth_estimation"
add(case("DepthEstimation.resize_back", G, Call(DepthEstimation.resize_back, lambda a, b: _DEPTH.resize_back(a, b)),
         [rand(1, 1, 8, 8, seed=916), rand(1, 3, 16, 20, seed=917)],
         note="a depth map resized to its image (the ONNX model is a one-node identity built in memory)"))
add(case("DepthEstimation.visualize", G,
         Call(DepthEstimation.visualize, lambda im, d: _DEPTH.visualize(im, d, output_type="torch")),
         [rand(1, 3, 16, 20, seed=918), rand(1, 1, 16, 20, seed=919, low=0.1, high=5.0)],
         note="relative depth drawn as an RGB image; the depth map is given, so no ONNX model runs"))
G = "models.vit"
built("VisionTransformer.from_config[breadth]", G, KVIT.VisionTransformer.from_config,
      lambda: KVIT.VisionTransformer.from_config("vit_ti/16", image_size=32), [rand(1, 3, 32, 32, seed=920)], 920,
      note="the classmethod from_config('vit_ti/16', image_size=32)")
G = "models.vlm"
built("SigLip2Builder.from_name", G, SigLip2Builder.from_name, lambda: SigLip2Builder.from_name("google/siglip-base-patch16-224"),
      [rand(1, 3, 224, 224, seed=921, low=-1, high=1), randint(1, 100, 1, 8, seed=922)], 921,
      note="the released SigLIP base architecture, random weights, one 224x224 image and 8 tokens", lazy=True)

# ------------------------------------------------------------------------------------------------- tiny_vit

G = "models.tiny_vit"
blk("tiny_vit.Attention", G, KTV.Attention, dict(dim=32, key_dim=8, num_heads=2, resolution=(4, 4)), [TOK], 920)
add(case("tiny_vit.Attention.build_attention_bias", G,
         Call(KTV.Attention.build_attention_bias, lambda x: [t + x for t in KTV.Attention.build_attention_bias((3, 4))[:1]]),
         [torch.zeros(1)], note="the bias index table of a 3x4 grid"))
blk("tiny_vit.BasicLayer", G, KTV.BasicLayer, dict(dim=16, input_resolution=(4, 4), depth=1, num_heads=2, window_size=2),
    [randn(1, 16, 16, seed=921)], 922)
blk("tiny_vit.ConvBN", G, KTV.ConvBN, (8, 16, 3, 1, 1), [X8], 923)
blk("tiny_vit.ConvLayer", G, KTV.ConvLayer, (16, 1), [X16], 924)
blk("tiny_vit.MBConv", G, KTV.MBConv, (16, 16, 2.0), [X16], 925)
blk("tiny_vit.MLP", G, KTV.MLP, (32, 64, 32), [TOK], 926)
blk("tiny_vit.PatchEmbed", G, KTV.PatchEmbed, (3, 16), [rand(1, 3, 32, 32, seed=927)], 928)
blk("tiny_vit.PatchMerging", G, KTV.PatchMerging, ((8, 8), 16, 32, 2), [randn(1, 64, 16, seed=929)], 930)
blk("tiny_vit.TinyViTBlock", G, KTV.TinyViTBlock, dict(dim=16, input_resolution=(4, 4), num_heads=2, window_size=2),
    [randn(1, 16, 16, seed=931)], 932)

# ------------------------------------------------------------------------------------------------- vit / vit_mobile

G = "models.vit"
V16 = randn(1, 17, 32, seed=940)
blk("vit.FeedForward", G, KVIT.FeedForward, (32, 64, 32), [V16], 941)
blk("vit.MultiHeadAttention", G, KVIT.MultiHeadAttention, (32, 4, 0.0, 0.0), [V16], 942)
blk("vit.PatchEmbedding", G, KVIT.PatchEmbedding, (3, 32, 8, 32), [rand(1, 3, 32, 32, seed=943)], 944)
blk("vit.ResidualAdd", G, lambda: KVIT.ResidualAdd(nn.Linear(32, 32)), (), [V16], 945)
blk("vit.TransformerEncoder", G, KVIT.TransformerEncoder, (32, 2, 4), [V16], 946)
blk("vit.TransformerEncoderBlock", G, KVIT.TransformerEncoderBlock, (32, 4, 0.0, 0.0), [V16], 947)
G = "models.mobile_vit"
MV = randn(1, 4, 16, 32, seed=950)
blk("vit_mobile.Attention", G, KMV.Attention, (32, 2, 8), [MV], 951)
blk("vit_mobile.FeedForward", G, KMV.FeedForward, (32, 64), [MV], 952)
blk("vit_mobile.MV2Block", G, KMV.MV2Block, (16, 16), [X16], 953)
blk("vit_mobile.MV2Block[stride=2]", G, KMV.MV2Block, (16, 24, 2), [X16], 954)
blk("vit_mobile.MobileViTBlock", G, KMV.MobileViTBlock, (32, 1, 16, 3, (2, 2), 64), [X16], 955)
blk("vit_mobile.PreNorm", G, lambda: KMV.PreNorm(32, nn.Linear(32, 32)), (), [MV], 956)
blk("vit_mobile.Transformer", G, KMV.Transformer, (32, 1, 2, 8, 64), [MV], 957)
built("vit_mobile.conv_1x1_bn", G, KMV.conv_1x1_bn, lambda: KMV.conv_1x1_bn(16, 8), [X16], 958)
built("vit_mobile.conv_nxn_bn", G, KMV.conv_nxn_bn, lambda: KMV.conv_nxn_bn(16, 8, 3, 2), [X16], 959)

# ------------------------------------------------------------------------------------------------- yunet

G = "models.face_detection"
blk("yunet.Conv4layerBlock", G, YUM.Conv4layerBlock, (8, 16), [X8], 960)
blk("yunet.ConvDPUnit", G, YUM.ConvDPUnit, (8, 16), [X8], 961)
blk("yunet.ConvDPUnit[no_bn_relu]", G, YUM.ConvDPUnit, (8, 16, False), [X8], 962)
blk("yunet.Conv_head", G, YUM.Conv_head, (3, 8, 16), [rand(1, 3, 32, 32, seed=963)], 964)
add(case("yunet.processors.decode", G, YUP.decode, [randn(20, 14, seed=965, scale=0.1), rand(20, 4, seed=966, low=0.05, high=0.9)],
         kwargs={"variances": [0.1, 0.2]}, note="20 priors: box and 5 landmark offsets"))
_PRIORS = dict(min_sizes=[[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]], steps=[8, 16, 32, 64], clip=False,
               image_size=(64, 80))
add(case("yunet.processors.PriorBox", G, Call(YUP.PriorBox, lambda x: YUP.PriorBox(**_PRIORS)() + x), [torch.zeros(1)],
         note="the priors of a 64x80 image (YuNet's four levels)"))
add(case("yunet.processors.PriorBox.to", G,
         Call(YUP.PriorBox.to, lambda x: YUP.PriorBox(**_PRIORS).to(torch.device("cpu"), torch.float64)() + x),
         [torch.zeros(1, dtype=torch.float64)], note="the priors in float64"))


_NOT_PROBED = {
    "kornia.models.kimi_vl.KimiVLBuilder.from_pretrained_hf": "downloads the Kimi-VL checkpoint from the Hugging Face hub",
    "kornia.models.siglip2.SigLip2Builder.from_pretrained_hf": "downloads a SigLIP2 checkpoint from the Hugging Face hub",
    "kornia.models.qwen25.Qwen25VisionTransformer.from_pretrained": "reads a Qwen2.5-VL checkpoint (safetensors) from disk",
    "kornia.models.rt_detr.RTDETR.from_pretrained": "downloads RT-DETR weights",
    "kornia.models.base.ModelBaseMixin.save": "writes the outputs as image files into a directory",
    "kornia.models.depth_estimation.DepthEstimation.save": "writes depth images into a directory",
    "kornia.models.depth_estimation.DepthAnythingONNXBuilder.build": "downloads the Depth Anything ONNX model",
    "kornia.models.depth_estimation.base.HFONNXComunnityModel": "runs ONNX models in ONNX Runtime on numpy arrays: no "
        "PyTorch graph to capture",
    "kornia.models.depth_estimation.depth_anything.HFONNXComunnityModelLoader": "downloads ONNX models from the "
        "onnx-community hub",
    "kornia.models.depth_estimation.depth_anything.HFONNXComunnityModelLoader.load_preprocessing": "downloads the "
        "preprocessing configuration of an onnx-community model",
}


for _skipped in skipped_cases(_NOT_PROBED, "models"):
    add(_skipped)

NOT_SURVEYED: dict = {}
