"""kornia.feature below its packages: the networks' building blocks (ALIKED, DeDoDe and its DINOv2 /
VGG parts, LoFTR, SOLD2, LightGlue, MKD, DeFMO, DISK), the inner steps of AdaLAM and the matchers,
module-level helpers (``siftdesc.sift_describe``, ``laf.generate_patch_grid_from_normalized_LAF``,
the steerers) and public methods of the feature classes.

Inner steps and building blocks are probed on the arguments a real run gives them: ``record``
runs the public pipeline once (seeded, at registration) and keeps the arguments of the step's first
call; ``replay`` makes every tensor among them a graph input. So each step sees what it sees in
use (seed sets, neighbourhoods, coarse matches), not hand-made shapes.

Networks are randomly initialised (nothing is downloaded). DINOv2's large and giant builders are
probed on the released architecture cut to its first two blocks (``truncated``: built on the meta
device, materialised with random values); torchvision-style VGG builders are built only when the
harness copies the case (``Lazy``), so that no worker holds all of them.

Fresh inputs: a structured input (intrinsics, a relative pose, a 0/1 inlier mask, junctions and the
segments between them, a PCA model) gets a second value of the same kind; the others are redrawn by
the harness.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

import kornia.feature as KF
from kornia.feature import laf as KLAF
from kornia.feature import matching as KFM
from kornia.feature import lightglue as LG
from kornia.feature import lightglue_onnx
from kornia.feature import mkd as MKD
from kornia.feature import siftdesc as SIFT
from kornia.feature import steerers as STEER
from kornia.feature import defmo as DEFMO
from kornia.feature import xfeat as XF
from kornia.feature.adalam import core as AC
from kornia.feature.adalam import ransac as AR
from kornia.feature.adalam import utils as AU
from kornia.feature.aliked import aliked as AL
from kornia.feature.dedode import decoder as DDEC
from kornia.feature.dedode import dedode_models as DDM
from kornia.feature.dedode import descriptor as DDESC
from kornia.feature.dedode import detector as DDET
from kornia.feature.dedode import encoder as DENC
from kornia.feature.dedode import utils as DDU
from kornia.feature.dedode import vgg as DVGG
from kornia.feature.dedode import transformer as DTR
from kornia.feature.dedode.transformer import dinov2 as DINO
from kornia.feature.dedode.transformer import layers as DL
from kornia.feature.dedode.transformer.layers import attention as DLA
from kornia.feature.dedode.transformer.layers import block as DLB
from kornia.feature.dedode.transformer.layers import drop_path as DLDP
from kornia.feature.dedode.transformer.layers import layer_scale as DLLS
from kornia.feature.dedode.transformer.layers import patch_embed as DLPE
from kornia.feature.disk import detector as DISKD
from kornia.feature.disk import disk as DISKN
from kornia.feature.disk import structs as DISKS
from kornia.feature.loftr import backbone as LFB
from kornia.feature.loftr import loftr as LFL
from kornia.feature.loftr.backbone import resnet_fpn as LFR
from kornia.feature.loftr.loftr_module import linear_attention as LFA
from kornia.feature.loftr.loftr_module import transformer as LFT
from kornia.feature.loftr.utils import coarse_matching as LFC
from kornia.feature.loftr.utils import geometry as LFG
from kornia.feature.loftr.utils import supervision as LFS
from kornia.feature.sold2 import backbones as SB
from kornia.feature.sold2 import sold2 as S2
from kornia.feature.sold2 import sold2_detector as SD
from kornia.feature.sold2.structures import BackboneCfg, DetectorCfg, LineDetectorCfg
from kornia.geometry.conversions import axis_angle_to_rotation_matrix as KG_axis_angle

from opsweep_suites.kornia._breadth import (Call, _key, fresh_replay, lazy_built, lazy_call, method_function, record, record_many, replay,
                                                seeded, skipped_cases, truncated)
from opsweep_suites.kornia._common import FRESH_OFFSET, Built, case, detector_image, rand, randint, randn, structured

RI = "random init"
CASES: list = []
add = CASES.append
H, W = 64, 80
DET = detector_image()


def step(name, group, target, calls, *, returns="result", note="", surveyed=None, fresh=None, **kw):
    """A case for ``target`` (a function, or ``(cls, "method")``) on the arguments of its call in a
    real run (``calls``: what ``record_many`` kept of that run). LookupError when it had no call.
    ``fresh(inputs)`` gives the case's own fresh set where an input has structure."""
    if isinstance(target, tuple):
        cls, meth = target
        fn = method_function(cls, meth)
        surveyed = surveyed or (cls if meth == "forward" else fn)
    else:
        fn = target
        surveyed = surveyed or target
    got = calls.get(_key(target))
    if got is None:
        raise LookupError(f"{name}: no call in the recorded run")
    module, inputs = replay(surveyed, fn, got[0], got[1], returns=returns)
    if fresh is not None:
        kw["fresh_inputs"] = fresh(inputs)
    add(case(name, group, module, inputs, note=note or "the arguments of its call in a real run", **kw))


def _part(parent, path, call):
    """Build ``parent()`` and wrap its submodule at ``path`` (dotted) in a Call."""
    model = parent()
    sub = model.get_submodule(path)
    return Call(type(sub), call, sub)


def part(name, group, cls, parent, path, inputs, *, call=None, note="", **kw):
    """A building block of a network, built lazily inside its (randomly initialised) parent, so that
    loading the registry neither builds nor runs the parent; inputs of the shapes the block gets in a
    run of the parent (seeded random values)."""
    target = lazy_built(cls, _part, parent, path, call or _forward)
    add(case(name, group, target, inputs, note=f"{RI}; {note}" if note else RI, **kw))


def _forward(m, *xs):
    return m(*xs)


def blk(name, group, model, inputs, note="", **kw):
    add(case(name, group, model, inputs, note=f"{RI}; {note}" if note else RI, **kw))


def _lafs(n=16, seed=20, h=H, w=W, smin=4.0, smax=8.0, margin=20.0):
    g = torch.Generator().manual_seed(seed)
    cx = torch.rand(1, n, generator=g) * (w - 2 * margin) + margin
    cy = torch.rand(1, n, generator=g) * (h - 2 * margin) + margin
    s = torch.rand(1, n, generator=g) * (smax - smin) + smin
    a = torch.rand(1, n, generator=g) * 2 * math.pi
    A = torch.stack([torch.stack([s * torch.cos(a), -s * torch.sin(a)], -1), torch.stack([s * torch.sin(a), s * torch.cos(a)], -1)], -2)
    return torch.cat([A, torch.stack([cx, cy], -1).unsqueeze(-1)], -1).contiguous()


def _desc_pair(n=40, extra=10, d=128, seed=22, noise=0.02):
    d1 = nn.functional.normalize(randn(n, d, seed=seed), dim=-1)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed + 1))
    d2 = torch.cat([d1[perm] + noise * randn(n, d, seed=seed + 2), randn(extra, d, seed=seed + 3)])
    return d1.contiguous(), nn.functional.normalize(d2, dim=-1).contiguous(), perm


# ------------------------------------------------------------------------------------------------- AdaLAM

G = "feature.adalam"
_D1, _D2, _PERM = _desc_pair()
_L1 = _lafs(40, seed=23)
_L2 = torch.cat([_L1[:, _PERM] + torch.tensor([[0.0, 0.0, 3.0], [0.0, 0.0, 2.0]]), _lafs(10, seed=24)], 1).contiguous()


def _adalam():
    return KF.match_adalam(_D1, _D2, _L1, _L2, hw1=(H, W), hw2=(H, W))


_ADALAM_CALLS = record_many([AC.adalam_core, AC.select_seeds, AC.extract_neighborhood_sets, AC.extract_local_patterns, AR.ransac, AR.group_sum_and_cumsum, AR.sample_padded_inliers, AR.stable_sort_residuals, AU.arange_sequence, AU.batch_2x2_Q, AU.batch_2x2_det, AU.batch_2x2_ellipse, AU.batch_2x2_inv, AU.batch_2x2_invQ, AU.dist_matrix, AU.draw_first_k_couples, AU.orientation_diff, AU.piecewise_arange, AR._select_inliers, (KF.adalam.AdalamFilter, "filter_matches")], _adalam, missing="skip")


for _fn in (AC.adalam_core, AC.select_seeds, AC.extract_neighborhood_sets, AC.extract_local_patterns):
    step(f"adalam.core.{_fn.__name__}", G, _fn, _ADALAM_CALLS, note="the arguments of its call in match_adalam on 40 matching LAFs")


def _other_inliers(inputs):
    """group_sum_and_cumsum's scores are a 0/1 inlier mask: another one of the same density (the group indices kept)."""
    scores, *rest = inputs
    other = (rand(*scores.shape, seed=1150 + FRESH_OFFSET) < float(scores.mean())).to(scores.dtype)
    return (other, *[t.clone() for t in rest])


for _fn, _random in ((AR.ransac, False), (AR.group_sum_and_cumsum, False),
                     (AR.sample_padded_inliers, False), (AR.stable_sort_residuals, False)):
    step(f"adalam.ransac.{_fn.__name__}", G, _fn, _ADALAM_CALLS, check=not _random,
         fresh=_other_inliers if _fn is AR.group_sum_and_cumsum else None,
         note="the arguments of its call in match_adalam")
for _fn, _random in ((AU.arange_sequence, False), (AU.batch_2x2_Q, False), (AU.batch_2x2_det, False), (AU.batch_2x2_ellipse, False),
                     (AU.batch_2x2_inv, False), (AU.batch_2x2_invQ, False), (AU.dist_matrix, False),
                     (AU.draw_first_k_couples, False), (AU.orientation_diff, False), (AU.piecewise_arange, False)):
    try:
        step(f"adalam.utils.{_fn.__name__}", G, _fn, _ADALAM_CALLS, check=not _random,
             note="the arguments of its call in match_adalam" + ("; random indices" if _random else ""))
    except LookupError:
        pass  # not on this run's path: a hand-made case below
# confidence_based_inlier_selection is not on match_adalam's path (ransac's private _select_inliers does the
# same work): its arguments are those of that call (residuals, sample indices, dimensions, offsets)
_SEL, _ = _ADALAM_CALLS[_key(AR._select_inliers)]
_res, _xs, _ys, _ridx, _rdims, _offs, _aff, _cfg, _valid = _SEL
_cm, _ci = replay(AR.confidence_based_inlier_selection,
                  lambda r, i, d, o, c: AR.confidence_based_inlier_selection(r, i, d, o, r.device, c),
                  (_res, _ridx, _rdims, _offs, torch.tensor(float(_cfg["min_confidence"]))), {})
add(case("adalam.ransac.confidence_based_inlier_selection", G, _cm, _ci,
         note="the residuals, indices and offsets of ransac's inlier selection in match_adalam"))
add(case("adalam.utils.random_samples_indices", G, Call(AU.random_samples_indices, lambda r: AU.random_samples_indices(8, r, r.device)),
         [torch.tensor([5, 7, 6])], check=False, note="8 random minimal sets per neighbourhood"))
_M2 = randn(6, 2, 2, seed=25) + 2.0 * torch.eye(2)
_S2 = _M2 @ _M2.transpose(1, 2)
for _fn in (AU.batch_2x2_Q, AU.batch_2x2_det, AU.batch_2x2_inv, AU.batch_2x2_invQ, AU.batch_2x2_ellipse):
    if not any(c.name == f"adalam.utils.{_fn.__name__}" for c in CASES):
        add(case(f"adalam.utils.{_fn.__name__}", G, _fn, [_S2], note="six symmetric positive-definite 2x2 matrices"))
if not any(c.name == "adalam.utils.orientation_diff" for c in CASES):
    add(case("adalam.utils.orientation_diff", G, AU.orientation_diff, [rand(20, seed=26, high=360.0), rand(20, seed=27, high=360.0)]))
if not any(c.name == "adalam.utils.draw_first_k_couples" for c in CASES):
    add(case("adalam.utils.draw_first_k_couples", G, Call(AU.draw_first_k_couples, lambda r: AU.draw_first_k_couples(6, r, r.device)),
             [torch.tensor([3, 5, 4])], note="the first 6 pairs of three neighbourhoods"))
_AF = KF.adalam.AdalamFilter()
_K1 = KF.get_laf_center(_L1).reshape(-1, 2)
_K2 = KF.get_laf_center(_L2).reshape(-1, 2)
step("AdalamFilter.filter_matches", G, (KF.adalam.AdalamFilter, "filter_matches"), _ADALAM_CALLS)
_O1, _O2 = (KF.get_laf_orientation(x).reshape(-1) for x in (_L1, _L2))
_S1, _S2 = (KF.get_laf_scale(x).reshape(-1) for x in (_L1, _L2))
add(case("AdalamFilter.match_and_filter", G,
         Call(method_function(KF.adalam.AdalamFilter, "match_and_filter"),
              lambda k1, k2, d1, d2, o1, o2, s1, s2: _AF.match_and_filter(k1, k2, d1, d2, (H, W), (H, W), o1, o2, s1, s2)),
         [_K1, _K2, _D1, _D2, _O1, _O2, _S1, _S2],
         note="centres, orientations and scales of 40 matching LAFs, default configuration, image sizes given"))

# ------------------------------------------------------------------------------------------------- ALIKED

G = "feature.aliked"


def _aliked_net():
    return KF.ALIKED(max_num_keypoints=64, detection_threshold=0.0).eval()


part("aliked.ConvBlock", G, AL.ConvBlock, _aliked_net, "block1", [rand(1, 3, 64, 96, seed=1001)], note="ALIKED's first block")
part("aliked.ResBlock", G, AL.ResBlock, _aliked_net, "block2", [rand(1, 16, 32, 48, seed=1002)], note="ALIKED's second block")
part("aliked.DKD", G, AL.DKD, _aliked_net, "dkd", [rand(1, 1, 60, 72, seed=1003)],
     note="ALIKED's keypoint detection on a score map (values in [0, 1))")
part("aliked.SDDH", G, AL.SDDH, _aliked_net, "desc_head", [randn(1, 128, 60, 72, seed=1004), rand(64, 2, seed=1005, low=-0.9, high=0.9)],
     call=lambda m, x, k: m(x, [k]), note="ALIKED's descriptor head: 64 keypoints in normalised coordinates")
blk("aliked.DeformableConv2d", G, seeded(1002, AL.DeformableConv2d, 8, 16), [rand(1, 8, 16, 16, seed=1003)])
blk("aliked.DeformableConv2d[mask]", G, seeded(1004, AL.DeformableConv2d, 8, 16, mask=True), [rand(1, 8, 16, 16, seed=1003)],
    note="modulated (DCNv2)")
add(case("aliked.get_conv", G, Built(AL.get_conv, seeded(1005, AL.get_conv, 8, 16)), [rand(1, 8, 16, 16, seed=1006)], note=RI))
add(case("aliked.get_conv[dcn]", G, Built(AL.get_conv, seeded(1005, AL.get_conv, 8, 16, conv_type="dcn")),
         [rand(1, 8, 16, 16, seed=1006)], note=f"{RI}; conv_type='dcn'"))
add(case("aliked.get_patches", G, Call(AL.get_patches, lambda t, c: AL.get_patches(t, c, 5)),
         [randn(4, 16, 20, seed=1007), torch.tensor([[5.0, 6.0], [10.0, 3.0], [14.0, 12.0]])]))
_PAD = AL.InputPadder(60, 72, 16)
_ALI = rand(1, 3, 60, 72, seed=1008)
add(case("aliked.InputPadder", G, Call(AL.InputPadder, lambda x: AL.InputPadder(60, 72, 16).pad(x)), [_ALI],
         note="InputPadder(60, 72, divis_by=16) then pad"))
add(case("aliked.InputPadder.pad", G, Call(AL.InputPadder.pad, lambda x: _PAD.pad(x)), [_ALI]))
add(case("aliked.InputPadder.unpad", G, Call(AL.InputPadder.unpad, lambda x: _PAD.unpad(x)), [rand(1, 3, 64, 80, seed=1008)]))
add(case("ALIKEDFeatures.to", G, Call(KF.ALIKEDFeatures.to, lambda k, d, s: KF.ALIKEDFeatures(k, d, s).to(torch.float64)),
         [rand(10, 2, seed=1009), randn(10, 32, seed=1010), rand(10, seed=1011)], note="a result moved to float64"))

# ------------------------------------------------------------------------------------------------- DeDoDe

G = "feature.dedode"


def _dedode_net():
    return KF.DeDoDe(descriptor_model="B", amp_dtype=torch.float32).eval()


_DDI = rand(1, 3, 28, 42, seed=1021)
part("dedode.ConvRefiner", G, DDEC.ConvRefiner, _dedode_net, "detector.decoder.layers.8", [randn(1, 512, 3, 5, seed=1022)],
     note="the detector's coarsest refiner (DeDoDe, detector L, descriptor B), on VGG features of a 28x42 image")
part("dedode.Decoder", G, DDEC.Decoder, _dedode_net, "detector.decoder", [randn(1, 512, 3, 5, seed=1022)],
     call=lambda m, x: m(x, scale="8"), note="the detector's decoder at scale 8")
part("dedode.VGG19", G, DENC.VGG19, _dedode_net, "detector.encoder", [_DDI], note="the detector's VGG19-BN encoder")
part("dedode.DeDoDeDetector", G, DDET.DeDoDeDetector, _dedode_net, "detector", [_DDI], note="DeDoDe's detector (L)")
part("dedode.DeDoDeDescriptor", G, DDESC.DeDoDeDescriptor, _dedode_net, "descriptor", [_DDI], note="DeDoDe's descriptor (B)")
add(case("dedode.utils.sample_keypoints", G, DDU.sample_keypoints, [rand(1, 28, 42, seed=1023)], kwargs={"num_samples": 32},
         check=False, note="32 keypoints sampled from a score map"))
add(case("dedode.utils.get_grid", G, Call(DDU.get_grid, lambda x: DDU.get_grid(1, 28, 42, x.device) + x), [torch.zeros(1)]))
add(case("dedode.utils.dedode_denormalize_pixel_coordinates", G,
         Call(DDU.dedode_denormalize_pixel_coordinates, lambda k: DDU.dedode_denormalize_pixel_coordinates(k, 28, 42)),
         [rand(1, 32, 2, seed=1024, low=-1.0, high=1.0)]))
_REF = seeded(1023, DDEC.ConvRefiner, 16, 16, 2, hidden_blocks=1, amp=False)
add(case("dedode.ConvRefiner.create_block", G, Call(DDEC.ConvRefiner.create_block, lambda m, x: m.create_block(16, 16)(x), _REF),
         [rand(1, 16, 8, 8, seed=1024)], check=False,
         note="the block create_block(16, 16) builds, applied (a new block per call: initialised from the global RNG)"))
_DDX = rand(1, 3, 28, 42, seed=1025)
for _fn in (DDM.dedode_detector_L, DDM.get_detector):
    add(case(f"dedode.{_fn.__name__}", G, lazy_built(_fn, lambda f=_fn: Call(f, lambda m, x: m(x), f(amp_dtype=torch.float32))),
             [_DDX], note=f"{RI}; the detector's scoremap of a 28x42 image"))
for _fn in (DDM.dedode_descriptor_B, DDM.get_descriptor):
    add(case(f"dedode.{_fn.__name__}", G, lazy_built(_fn, lambda f=_fn: Call(f, lambda m, x: m(x), f(amp_dtype=torch.float32))),
             [_DDX], note=f"{RI}; the dense descriptions of a 28x42 image (descriptor B: VGG19 only)"))

# DINOv2 (the ViT behind DeDoDe's G descriptor)
_VIT = seeded(1030, DINO.DinoVisionTransformer, img_size=28, patch_size=14, embed_dim=32, depth=2, num_heads=2,
              init_values=1.0, block_chunks=0)
_VX = rand(1, 3, 28, 42, seed=1031)
blk("dinov2.DinoVisionTransformer", G, _VIT, [_VX], note="28x42 image, 14-pixel patches, width 32, two blocks")
for _m in ("forward_features", "prepare_tokens_with_masks"):
    add(case(f"dinov2.DinoVisionTransformer.{_m}", G, _VIT, [_VX], method=_m, note=RI))
add(case("dinov2.DinoVisionTransformer.get_intermediate_layers", G,
         Call(DINO.DinoVisionTransformer.get_intermediate_layers, lambda m, x: m.get_intermediate_layers(x, 2, reshape=True,
              return_class_token=True), _VIT), [_VX], note=f"{RI}; both blocks, reshaped, with class tokens"))
add(case("dinov2.DinoVisionTransformer.interpolate_pos_encoding", G,
         Call(DINO.DinoVisionTransformer.interpolate_pos_encoding, lambda m, x: m.interpolate_pos_encoding(x, 42, 28), _VIT),
         [randn(1, 7, 32, seed=1032)], note=f"{RI}; the 2x2 position table resized to 2x3 (tokens of a 28x42 image)"))
add(case("dinov2.DinoVisionTransformer.init_weights", G,
         Call(DINO.DinoVisionTransformer.init_weights, lambda m, x: (m.init_weights(), m(x))[1],
              seeded(1033, DINO.DinoVisionTransformer, img_size=28, patch_size=14, embed_dim=32, depth=1, num_heads=2)),
         [_VX], check=False, note="init_weights re-initialises the network from the global RNG, then it runs"))
_BLK = dict(dim=32, num_heads=2)
_TOK = randn(1, 7, 32, seed=1034)
blk("dinov2.Block", G, seeded(1035, DINO.Block, **_BLK), [_TOK])
blk("dinov2.Block[layer_scale]", G, seeded(1036, DINO.Block, **_BLK, init_values=0.5), [_TOK], note="LayerScale 0.5")
blk("dinov2.BlockChunk", G, seeded(1037, lambda: DINO.BlockChunk([nn.Identity(), DINO.Block(**_BLK)])), [_TOK],
    note="[Identity, Block]")
blk("dinov2.MemEffAttention", G, seeded(1038, DINO.MemEffAttention, 32, 2), [_TOK])
blk("dinov2.Mlp", G, seeded(1039, DINO.Mlp, 32, 64), [_TOK])
blk("dinov2.PatchEmbed", G, seeded(1040, DINO.PatchEmbed, 28, 14, 3, 32), [rand(1, 3, 28, 28, seed=1041)])
blk("dinov2.SwiGLUFFNFused", G, seeded(1042, DINO.SwiGLUFFNFused, 32, 64), [_TOK])
blk("dinov2.layers.SwiGLUFFN", G, seeded(1043, DL.SwiGLUFFN, 32, 64), [_TOK])
blk("dinov2.layers.DINOHead", G, seeded(1044, DL.DINOHead, 32, 16, hidden_dim=32, bottleneck_dim=8), [randn(2, 32, seed=1045)])
blk("dinov2.layers.attention.Attention", G, seeded(1046, DLA.Attention, 32, 2), [_TOK])
blk("dinov2.layers.block.Block", G, seeded(1047, DLB.Block, 32, 2), [_TOK])
blk("dinov2.layers.drop_path.DropPath", G, seeded(1048, DLDP.DropPath, 0.3), [_TOK], note="eval mode: identity")
blk("dinov2.layers.layer_scale.LayerScale", G, seeded(1049, DLLS.LayerScale, 32, 0.1), [_TOK])
add(case("dinov2.layers.drop_path.drop_path", G, DLDP.drop_path, [_TOK], kwargs={"drop_prob": 0.5, "training": True},
         check=False, note="training=True: drops samples at random"))
add(case("dinov2.layers.block.drop_add_residual_stochastic_depth", G,
         Call(DLB.drop_add_residual_stochastic_depth, lambda x: DLB.drop_add_residual_stochastic_depth(x, torch.tanh, 0.5)),
         [randn(4, 7, 32, seed=1050)], check=False, note="residual tanh on a random half of the batch"))
add(case("dinov2.layers.patch_embed.make_2tuple", G, Call(DLPE.make_2tuple, lambda x: x.new_zeros(DLPE.make_2tuple(4)) + x),
         [randn(1, seed=1051)], note="make_2tuple(4) gives the (4, 4) shape of a tensor (it works on sizes, not tensors)"))


def _init_apply(init):
    def fn(m, x):
        with torch.no_grad():
            init(m)
        return m(x)

    return fn


add(case("dinov2.init_weights_vit_timm", G, Call(DINO.init_weights_vit_timm, _init_apply(DINO.init_weights_vit_timm), nn.Linear(32, 16)),
         [_TOK], check=False, note="truncated-normal init of a Linear (global RNG), then the Linear run"))
add(case("dinov2.named_apply", G,
         Call(DINO.named_apply, lambda m, x: DINO.named_apply(DINO.init_weights_vit_timm, m)(x),
              nn.Sequential(nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 8))), [_TOK], check=False,
         note="named_apply(init_weights_vit_timm, an MLP), then the MLP run"))
_VS = dict(img_size=28, block_chunks=0, init_values=1.0)
for _fn in (DINO.vit_small, DINO.vit_base):
    add(case(f"dinov2.{_fn.__name__}", G, lazy_built(_fn, _fn, patch_size=14, **_VS), [_VX],
             note=f"{RI}; the released architecture, 28x42 image"))


def _first_blocks(model):
    model.blocks = model.blocks[:2]


for _fn, _name in ((DINO.vit_giant2, "dinov2.vit_giant2"), (DTR.vit_large, "dinov2.vit_large")):
    add(case(_name, G, lazy_built(_fn, lambda f=_fn: Built(f, truncated(lambda: f(patch_size=14, **_VS), _first_blocks, 1054))),
             [_VX], note="the released width at two of its blocks (built on the meta device, random values): the "
             "whole network has 0.3 / 1.1 billion parameters"))

# torchvision-style VGG (DeDoDe's VGG19 encoder builds on it)
_VGGX = rand(1, 3, 32, 32, seed=1060)
add(case("vgg.VGG", G, lazy_built(DVGG.VGG, lambda: DVGG.VGG(DVGG.make_layers([8, "M", 512, "M"]), num_classes=10)), [_VGGX],
         note=f"{RI}; two conv stages (the last of 512 channels), the 7x7 adaptive pool and torchvision's classifier"))
add(case("vgg.make_layers", G, Built(DVGG.make_layers, seeded(1062, DVGG.make_layers, [8, "M", 16, "M"], batch_norm=True)),
         [_VGGX], note=f"{RI}; [8, M, 16, M] with batch norm"))
for _v in ("vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"):
    _fn = getattr(DVGG, _v)
    add(case(f"vgg.{_v}", G, lazy_built(_fn, _fn, num_classes=10), [_VGGX], note=f"{RI}; 10 classes, 32x32 input"))

# ------------------------------------------------------------------------------------------------- DeFMO / DISK / XFeat

G = "feature.integrated"


def _defmo_net():
    return KF.DeFMO(pretrained=False).eval()


part("defmo.EncoderDeFMO", G, DEFMO.EncoderDeFMO, _defmo_net, "encoder", [rand(1, 6, 32, 32, seed=1071)],
     note="DeFMO's encoder on an image and its background (6 channels)")
part("defmo.RenderingDeFMO", G, DEFMO.RenderingDeFMO, _defmo_net, "rendering", [randn(1, 2048, 2, 2, seed=1072)],
     note="DeFMO's renderer on the encoder's latent")
part("defmo.Bottleneck", G, DEFMO.Bottleneck, _defmo_net, "encoder.net.1.0.0", [randn(1, 64, 16, 16, seed=1073)],
     note="the encoder's first ResNet bottleneck")
blk("defmo.ResNet", G, seeded(1069, DEFMO.ResNet, DEFMO.Bottleneck, [1, 1, 1, 1], num_classes=10), [rand(1, 3, 32, 32, seed=1068)],
    note="one Bottleneck per stage, 10 classes (DeFMO's encoder uses only its stem and first stages)")
add(case("defmo.conv1x1", G, Built(DEFMO.conv1x1, seeded(1072, DEFMO.conv1x1, 8, 16)), [rand(1, 8, 8, 8, seed=1073)], note=RI))
add(case("defmo.conv3x3", G, Built(DEFMO.conv3x3, seeded(1074, DEFMO.conv3x3, 8, 16, 2)), [rand(1, 8, 8, 8, seed=1073)], note=RI))
part("disk.Unet", G, DISKN.Unet, lambda: KF.DISK().eval(), "unet", [rand(1, 3, 64, 64, seed=1076)], note="DISK's U-Net")
_HM = rand(1, 1, 64, 64, seed=1077)
add(case("disk.heatmap_to_keypoints", G, DISKD.heatmap_to_keypoints, [_HM], kwargs={"n": 32},
         note="the 32 strongest local maxima of a 64x64 heatmap"))
add(case("disk.Keypoints.merge_with_descriptors", G,
         Call(method_function(DISKS.Keypoints, "merge_with_descriptors"),
              lambda h, d: DISKD.heatmap_to_keypoints(h, n=32)[0].merge_with_descriptors(d)), [_HM, randn(128, 64, 64, seed=1078)],
         note="the keypoints of a heatmap merged with a dense 128-d descriptor map"))
add(case("DISKFeatures.to", G, Call(KF.DISKFeatures.to, lambda k, d, s: KF.DISKFeatures(k, d, s).to(torch.float64)),
         [rand(10, 2, seed=1077), randn(10, 128, seed=1078), rand(10, seed=1079)], note="a result moved to float64"))
blk("xfeat.BasicLayer", G, seeded(1080, XF.BasicLayer, 8, 16), [rand(1, 8, 16, 16, seed=1081)])
add(case("InterpolateSparse2d.normgrid", G, KF.InterpolateSparse2d(), [rand(1, 20, 2, seed=1082, high=90.0)],
         method="normgrid", kwargs={"H": 64, "W": 96}))
add(case("HardNet8.weights_init", G, Call(KF.HardNet8.weights_init, _init_apply(KF.HardNet8.weights_init), nn.Conv2d(1, 8, 3)),
         [rand(1, 1, 16, 16, seed=1083)], check=False, note="orthogonal init of a convolution (global RNG), then it runs"))

# ------------------------------------------------------------------------------------------------- LightGlue

G = "feature.lightglue"
_LGN = 24
_LGCONF = {k: v for k, v in KF.LightGlue.default_conf.items()}


def _lg_data(seed):
    k0 = rand(1, _LGN, 2, seed=seed, high=60.0)
    k1 = (k0 + randn(1, _LGN, 2, seed=seed + 1)).clamp(0, 60)
    d0 = nn.functional.normalize(randn(1, _LGN, 256, seed=seed + 2), dim=-1)
    d1 = nn.functional.normalize(d0 + 0.05 * randn(1, _LGN, 256, seed=seed + 3), dim=-1)
    size = torch.tensor([[64.0, 64.0]])
    return {"image0": {"keypoints": k0, "descriptors": d0, "image_size": size},
            "image1": {"keypoints": k1, "descriptors": d1, "image_size": size}}


_LGM = seeded(1090, KF.LightGlue, None, n_layers=3, depth_confidence=0.5, width_confidence=0.5, filter_threshold=0.0)
_LGD = _lg_data(1091)


def _lightglue():
    return _LGM(_LGD)


_LIGHTGLUE_CALLS = record_many([(LG.LearnableFourierPositionalEncoding, "forward"), (LG.TransformerLayer, "forward"), (LG.SelfBlock, "forward"), (LG.CrossBlock, "forward"), (LG.Attention, "forward"), (LG.MatchAssignment, "forward"), (LG.TokenConfidence, "forward"), (KF.LightGlue, "check_if_stop"), (KF.LightGlue, "get_pruning_mask"), (LG.MatchAssignment, "get_matchability"), (LG.CrossBlock, "map_"), LG.apply_cached_rotary_emb, LG.rotate_half, LG.normalize_keypoints, LG.sigmoid_log_double_softmax, LG.filter_matches, LG.pad_to_length], _lightglue, missing="skip")


for _target, _nm in ((LG.LearnableFourierPositionalEncoding, "LearnableFourierPositionalEncoding"),
                     (LG.TransformerLayer, "TransformerLayer"), (LG.SelfBlock, "SelfBlock"), (LG.CrossBlock, "CrossBlock"),
                     (LG.Attention, "Attention"), (LG.MatchAssignment, "MatchAssignment"), (LG.TokenConfidence, "TokenConfidence")):
    step(f"lightglue.{_nm}", G, (_target, "forward"), _LIGHTGLUE_CALLS, note=f"{RI}; its call inside LightGlue (3 layers, 24 keypoints)")
for _target, _nm in (((KF.LightGlue, "check_if_stop"), "LightGlue.check_if_stop"), ((KF.LightGlue, "get_pruning_mask"), "LightGlue.get_pruning_mask"),
                     ((LG.MatchAssignment, "get_matchability"), "lightglue.MatchAssignment.get_matchability"),
                     ((LG.CrossBlock, "map_"), "lightglue.CrossBlock.map_")):
    try:
        step(_nm, G, _target, _LIGHTGLUE_CALLS, note=f"{RI}; its call inside LightGlue with depth and width confidence 0.5")
    except LookupError:
        pass
for _fn in (LG.apply_cached_rotary_emb, LG.rotate_half, LG.normalize_keypoints, LG.sigmoid_log_double_softmax, LG.filter_matches,
            LG.pad_to_length):
    try:
        step(f"lightglue.{_fn.__name__}", G, _fn, _LIGHTGLUE_CALLS)
    except LookupError:
        pass
if not any(c.name == "lightglue.pad_to_length" for c in CASES):
    add(case("lightglue.pad_to_length", G, Call(LG.pad_to_length, lambda x: LG.pad_to_length(x, 32)), [randn(1, _LGN, 2, seed=1092)],
             note="24 keypoints padded to 32"))
if not any(c.name == "lightglue.CrossBlock.map_" for c in CASES):
    _CB = seeded(1093, LG.CrossBlock, 32, 2)
    add(case("lightglue.CrossBlock.map_", G, Call(method_function(LG.CrossBlock, "map_"), lambda m, a, b: m.map_(m.to_out, a, b), _CB),
             [randn(1, 5, 32, seed=1094), randn(1, 6, 32, seed=1095)], note=f"{RI}; its output projection mapped over both sides"))
_TL = seeded(1096, LG.TransformerLayer, 32, 2)
_E = [randn(1, 2, 1, 6, 16, seed=s) for s in (1097, 1098)]
_TLA, _ = _LIGHTGLUE_CALLS[_key((LG.TransformerLayer, "forward"))]
_TLM = torch.ones(1, _LGN, 1, dtype=torch.bool)
_TLM0 = _TLM.clone()
_TLM0[:, -4:] = False
_tm, _ti = replay(method_function(LG.TransformerLayer, "masked_forward"), method_function(LG.TransformerLayer, "masked_forward"),
                  (*_TLA, _TLM0, _TLM), {})
add(case("lightglue.TransformerLayer.masked_forward", G, _tm, _ti,
         note=f"{RI}; the first layer's inputs in a LightGlue run, the last 4 keypoints of image 0 masked as padding"))
add(case("lightglue.math_clamp", G, Call(LG.math_clamp, lambda x: torch.as_tensor(LG.math_clamp(x, -0.5, 0.5))), [torch.tensor(0.3)],
         note="a 0-d tensor clamped with Python min / max (it is written for numbers)"))
add(case("lightglue_onnx.normalize_keypoints", G, lightglue_onnx.lightglue.normalize_keypoints,
         [rand(1, 20, 2, seed=1102, high=60.0), torch.tensor([[64.0, 80.0]])]))

# ------------------------------------------------------------------------------------------------- LoFTR

G = "feature.loftr"
_LCFG = copy.deepcopy(LFL.default_cfg)
_LCFG["match_coarse"]["thr"] = 0.0
_LI0 = DET
_LI1 = torch.roll(detector_image(seed=17), shifts=(2, 3), dims=(2, 3)).contiguous()
_LMASK = torch.ones(1, H, W, dtype=torch.bool)
_LMASK[:, :, -16:] = False


def _loftr_net():
    return KF.LoFTR(pretrained=None, config=_LCFG).eval()


_C80 = randn(1, 80, 256, seed=1110)
_LNOTE = "a part of LoFTR (random init) on an input of the shape it gets from two 64x80 images"
for _cls, _path, _ins, _call in (
    (LFB.ResNetFPN_8_2, "backbone", [torch.cat([_LI0, _LI1])], None),
    (LFR.BasicBlock, "backbone.layer1.0", [randn(2, 128, 32, 40, seed=1111)], None),
    (LFL.PositionEncodingSine, "pos_encoding", [randn(2, 256, 8, 10, seed=1112)], None),
    (LFL.LocalFeatureTransformer, "loftr_coarse", [_C80, randn(1, 80, 256, seed=1113)], None),
    (LFT.LoFTREncoderLayer, "loftr_coarse.layers.0", [_C80, randn(1, 80, 256, seed=1113)], None),
    (LFA.LinearAttention, "loftr_coarse.layers.0.attention", [randn(1, 80, 8, 32, seed=s) for s in (1114, 1115, 1116)], None),
):
    part(f"loftr.{_cls.__name__}", G, _cls, _loftr_net, _path, _ins, call=_call, note=_LNOTE)
add(case("LoFTR.extract_features", G, lazy_call(method_function(KF.LoFTR, "extract_features"), _loftr_net,
                                                lambda m, x: m.extract_features(x)), [torch.cat([_LI0, _LI1])], note=RI))

# the matching stages on coarse and fine features of the shapes LoFTR gives them (random values): the
# confidence threshold 0 makes every mutual nearest neighbour of the dual softmax a coarse match
_COARSE = LFL.CoarseMatching(_LCFG["match_coarse"]).eval()
_FINE_PRE = seeded(1117, LFL.FinePreprocess, _LCFG)
_FINE = LFL.FineMatching().eval()
_F0, _F1 = randn(1, 128, 32, 40, seed=1118), randn(1, 128, 32, 40, seed=1119)
_C0, _C1 = _C80, (_C80 + 0.1 * randn(1, 80, 256, seed=1120))


def _loftr_match():
    data = {"bs": 1, "stride_c": 8, "stride_f": 2, "hw0_c": (8, 10), "hw1_c": (8, 10), "hw0_f": (32, 40), "hw1_f": (32, 40)}
    _COARSE(_C0, _C1, data)
    f0, f1 = _FINE_PRE(_F0, _F1, _C0, _C1, data)
    _FINE(f0, f1, data)


_LOFTR_CALLS = record_many([(LFL.CoarseMatching, "forward"), (LFL.FinePreprocess, "forward"), (LFL.FineMatching, "forward"),
                            (LFL.CoarseMatching, "get_coarse_match"), (LFL.FineMatching, "get_fine_match")], _loftr_match)
for _cls in (LFL.CoarseMatching, LFL.FinePreprocess, LFL.FineMatching):
    _inplace = _cls in (LFL.CoarseMatching, LFL.FineMatching)
    step(f"loftr.{_cls.__name__}", G, (_cls, "forward"), _LOFTR_CALLS,
         note="LoFTR's matching stage (coarse threshold 0) on features of the shapes of two 64x80 images"
         + ("; it fills the data dict in place, so the case returns the dict" if _inplace else ""),
         returns="arguments" if _inplace else "result")
step("loftr.CoarseMatching.get_coarse_match", G, (LFL.CoarseMatching, "get_coarse_match"), _LOFTR_CALLS,
     note="its call in the coarse matching stage")
step("loftr.FineMatching.get_fine_match", G, (LFL.FineMatching, "get_fine_match"), _LOFTR_CALLS, returns="arguments",
     note="its call in the fine matching stage; it fills the data dict in place, so the case returns the dict")
add(case("loftr.elu_feature_map", G, LFA.elu_feature_map, [randn(1, 20, 2, 16, seed=1109)]))
_CM = rand(1, 8, 10, 8, 10, seed=1108)
_PM = torch.ones(1, 8, 10, dtype=torch.bool)
_PM[:, :, -2:] = False
add(case("loftr.coarse_matching.mask_border", G, Call(LFC.mask_border, lambda m: (LFC.mask_border(m := m.clone(), 2, 0.0), m)[1]),
         [_CM], note="a copy of an 8x10 x 8x10 confidence matrix with a 2-cell border zeroed (it edits in place)"))
add(case("loftr.coarse_matching.mask_border_with_padding", G,
         Call(LFC.mask_border_with_padding, lambda m, p0, p1: (LFC.mask_border_with_padding(m := m.clone(), 2, 0.0, p0, p1), m)[1]),
         [_CM, _PM, _PM.clone()], note="the same with padding masks (the right 2 columns are padding)"))
add(case("loftr.coarse_matching.compute_max_candidates", G, LFC.compute_max_candidates, [_PM, _PM.clone()]))
blk("loftr.FullAttention", G, LFA.FullAttention(), [randn(1, 20, 2, 16, seed=1111), randn(1, 24, 2, 16, seed=1112),
                                                    randn(1, 24, 2, 16, seed=1113)], note="no parameters")
blk("loftr.LoFTREncoderLayer[full]", G, seeded(1114, LFT.LoFTREncoderLayer, 32, 2, attention=None),
    [randn(1, 20, 32, seed=1115), randn(1, 24, 32, seed=1116)], note="full (softmax) attention")
_C16 = {"block_type": "BasicBlock", "initial_dim": 16, "block_dims": [16, 24, 32, 48], "resolution": (16, 4)}
blk("loftr.ResNetFPN_16_4", G, seeded(1117, LFB.ResNetFPN_16_4, _C16), [DET])
add(case("loftr.build_backbone", G, Built(LFB.build_backbone, seeded(1118, LFB.build_backbone,
         {"backbone_type": "ResNetFPN", "resolution": (8, 2), "resnetfpn": {"initial_dim": 16, "block_dims": [16, 24, 32]}})),
         [DET], note=f"{RI}; ResNetFPN at (8, 2), narrow"))
add(case("loftr.resnet_fpn.conv1x1", G, Built(LFR.conv1x1, seeded(1119, LFR.conv1x1, 8, 16)), [rand(1, 8, 8, 8, seed=1120)], note=RI))
add(case("loftr.resnet_fpn.conv3x3", G, Built(LFR.conv3x3, seeded(1121, LFR.conv3x3, 8, 16, 2)), [rand(1, 8, 8, 8, seed=1120)], note=RI))

# supervision (training targets from depth and relative pose)
_K = structured(torch.tensor([[[40.0, 0.0, 40.0], [0.0, 40.0, 32.0], [0.0, 0.0, 1.0]]]),
                torch.tensor([[[42.0, 0.0, 41.0], [0.0, 41.0, 31.0], [0.0, 0.0, 1.0]]]))


def _relative_pose(second=False):
    t = torch.eye(4).unsqueeze(0).clone()
    if second:
        t[0, :3, :3] = KG_axis_angle(torch.tensor([[0.01, -0.02, 0.015]]))[0]
        t[0, :3, 3] = torch.tensor([-0.08, 0.05, 0.03])
    else:
        t[0, 0, 3] = 0.1
    return t


_T01 = structured(_relative_pose(), _relative_pose(second=True))
_DEPTH = rand(1, H, W, seed=1122, low=2.0, high=4.0)


def _spv_data():
    return {"image0": _LI0, "image1": _LI1, "depth0": _DEPTH, "depth1": _DEPTH.clone(), "T_0to1": _T01,
            "T_1to0": torch.linalg.inv(_T01), "K0": _K, "K1": _K, "dataset_name": ["scannet"]}


add(case("loftr.geometry.warp_kpts", G, LFG.warp_kpts,
         [rand(1, 30, 2, seed=1123, low=2.0, high=60.0), _DEPTH, _DEPTH.clone(), _T01, _K, _K],
         note="30 keypoints warped by a 0.1 translation over a 2..4 depth map"))
add(case("loftr.supervision.mask_pts_at_padded_regions", G, LFS.mask_pts_at_padded_regions,
         [rand(1, 80, 2, seed=1124, high=10.0), _LMASK[:, ::8, ::8].contiguous()]))


_SUP_CFG = {"LOFTR": {"RESOLUTION": (8, 2), "FINE_WINDOW_SIZE": 5}}


def _spvs(fn, fine=False):
    def call(i0, i1, d0, d1, t, k):
        data = {"image0": i0, "image1": i1, "depth0": d0, "depth1": d1, "T_0to1": t, "T_1to0": torch.linalg.inv(t), "K0": k, "K1": k,
                "dataset_name": ["scannet"]}
        LFS.spvs_coarse(data, _SUP_CFG) if fine else None
        if fine:
            data.update({"b_ids": data["spv_b_ids"], "i_ids": data["spv_i_ids"], "j_ids": data["spv_j_ids"],
                         "hw0_i": i0.shape[2:], "hw0_f": (i0.shape[2] // 2, i0.shape[3] // 2)})
        fn(data, _SUP_CFG)
        return {k: v for k, v in data.items() if k.startswith("spv") or k.startswith("expec")}

    return call


for _fn, _fine in ((LFS.compute_supervision_coarse, False), (LFS.spvs_coarse, False), (LFS.compute_supervision_fine, True),
                   (LFS.spvs_fine, True)):
    add(case(f"loftr.supervision.{_fn.__name__}", G, Call(_fn, _spvs(_fn, _fine)), [_LI0, _LI1, _DEPTH, _DEPTH.clone(), _T01, _K],
             note="ScanNet-style targets from depth maps, intrinsics and a relative pose" + ("; coarse targets first" if _fine else "")))

# ------------------------------------------------------------------------------------------------- SOLD2

G = "feature.sold2"
_SCFG = DetectorCfg(backbone_cfg=BackboneCfg(num_stacks=1), max_num_junctions=20,
                    line_detector_cfg=LineDetectorCfg(use_junction_refinement=False))


def _sold2_net():
    return KF.SOLD2(pretrained=False, config=_SCFG).eval()


_SI = DET[..., :64].contiguous()
_F256 = randn(1, 256, 16, 16, seed=1130)
for _cls, _path, _ins in (
    (SB.SOLD2Net, "model", [_SI]), (SB.HourglassBackbone, "model.backbone_net", [_SI]), (SB.HourglassNet, "model.backbone_net.net", [_SI]),
    (SB.Hourglass, "model.backbone_net.net.hg.0", [_F256]), (SB.Bottleneck2D, "model.backbone_net.net.layer1.0", [randn(1, 64, 32, 32, seed=1131)]),
    (SB.MultitaskHead, "model.backbone_net.net.score.0", [_F256]), (SB.PixelShuffleDecoder, "model.heatmap_decoder", [_F256]),
    (SB.SuperpointDecoder, "model.junction_decoder", [_F256]), (SB.SuperpointDescriptor, "model.descriptor_decoder", [_F256]),
):
    part(f"sold2.{_cls.__name__}", G, _cls, _sold2_net, _path, _ins,
         note="a part of SOLD2 (one hourglass stack) on an input of the shape it gets from a 64x64 image")
add(case("sold2.hg", G, lazy_built(SB.hg, SB.hg, SB.HourglassConfig(depth=2, num_stacks=1, num_blocks=1, num_classes=5, input_channels=1,
                                                                    head=SB.MultitaskHead)),
         [_SI], note=f"{RI}; depth 2, one stack"))


def _line_heatmap(junctions, segments, size=64):
    """A heatmap with the given segments (pairs of junction indices) drawn at 1, plus a little noise."""
    heat = 0.05 * rand(size, size, seed=1132)
    for i, j in segments:
        for t in torch.linspace(0, 1, 4 * size):
            y, x = (junctions[i] + t * (junctions[j] - junctions[i])).round().long().tolist()
            heat[y, x] = 1.0
    return heat


_J = torch.tensor([[10.0, 10.0], [10.0, 54.0], [40.0, 10.0], [50.0, 54.0], [20.0, 30.0]])
_JH = _line_heatmap(_J, [(0, 1), (2, 3), (0, 2)])
_LSD = SD.LineSegmentDetectionModule(LineDetectorCfg(use_junction_refinement=False))
_LSD_STEPS = ["detect", "candidate_suppression", "detect_local_max", "refine_heatmap"]
_LSD_CALLS = record_many([(SD.LineSegmentDetectionModule, m) for m in _LSD_STEPS], lambda: _LSD.detect(_J, _JH), missing="skip")
for _m in _LSD_STEPS:
    step(f"sold2.LineSegmentDetectionModule.{_m}", G, (SD.LineSegmentDetectionModule, _m), _LSD_CALLS,
         surveyed=[SD.LineSegmentDetectionModule, method_function(SD.LineSegmentDetectionModule, "detect")] if _m == "detect" else None,
         note="its call in LineSegmentDetectionModule.detect on five junctions and a heatmap with three segments drawn")
add(case("sold2.LineSegmentDetectionModule.refine_heatmap_local", G, _LSD, [_JH], method="refine_heatmap_local",
         note="the heatmap with three segments"))


def _line_map(pairs, n=5):
    """The symmetric 0/1 adjacency of ``n`` junctions with the given segments."""
    lm = torch.zeros(n, n)
    for i, j in pairs:
        lm[i, j] = lm[j, i] = 1.0
    return lm


_LM = _line_map([(0, 1), (2, 3)])
# the second set of the junction cases: five other junctions (in the 64x64 image), two other segments between them
_J_F = torch.tensor([[12.0, 8.0], [14.0, 50.0], [44.0, 12.0], [52.0, 56.0], [24.0, 34.0]])
_LM_F = _line_map([(0, 2), (1, 3)])
_JH_F = _line_heatmap(_J_F, [(0, 2), (1, 3)])
_LSDJ = SD.LineSegmentDetectionModule(LineDetectorCfg(use_junction_refinement=True))
_CH = rand(4, 16, seed=1138, high=62.0)
_CW = rand(4, 16, seed=1139, high=62.0)
add(case("sold2.LineSegmentDetectionModule.detect_bilinear", G, _LSDJ, [_JH, _CH, _CW], method="detect_bilinear",
         note="4 candidate segments of 16 samples on a 64x64 heatmap"))
add(case("sold2.LineSegmentDetectionModule.segments_to_line_map", G, _LSDJ, [_J, torch.stack([_J[[0, 1]], _J[[2, 3]]])],
         method="segments_to_line_map", fresh_inputs=(_J_F, torch.stack([_J_F[[0, 2]], _J_F[[1, 3]]])),
         note="two segments between five junctions"))
add(case("sold2.LineSegmentDetectionModule.refine_junction_perturb", G,
         Call(method_function(SD.LineSegmentDetectionModule, "refine_junction_perturb"),
              lambda j, lm, h: SD.LineSegmentDetectionModule(LineDetectorCfg(use_junction_refinement=True)).refine_junction_perturb(
                  j, lm, h, 64, 64, j.device)), [_J, _LM, _JH],
         fresh_inputs=(_J_F, _LM_F, _JH_F), note="five junctions, two segments, their heatmap"))
add(case("sold2.prob_to_junctions", G, SD.prob_to_junctions, [_JH], kwargs={"dist": 8, "prob_thresh": 0.5, "top_k": 20}))
add(case("sold2.line_map_to_segments", G, SD.line_map_to_segments, [_J, _LM.int()], fresh_inputs=(_J_F, _LM_F.int())))
_SEG = torch.tensor([[[10.0, 10.0], [10.0, 54.0]], [[40.0, 10.0], [50.0, 54.0]], [[20.0, 20.0], [50.0, 20.0]]])
_DESC = randn(1, 128, 16, 16, seed=1133)
_WLM = S2.WunschLineMatcher()


def _wunsch():
    return _WLM(_SEG, _SEG + 1.0, _DESC, _DESC + 0.01 * randn(*_DESC.shape, seed=1134))


_WUNSCH_CALLS = record_many([(S2.WunschLineMatcher, "forward"), (S2.WunschLineMatcher, "sample_line_points"),
                             (S2.WunschLineMatcher, "filter_and_match_lines"), (S2.WunschLineMatcher, "needleman_wunsch"),
                             S2.keypoints_to_grid], _wunsch, missing="skip")
_WNOTE = "its call in WunschLineMatcher on three segments and 128-d dense descriptors of a 64x64 image"
step("sold2.WunschLineMatcher", G, (S2.WunschLineMatcher, "forward"), _WUNSCH_CALLS, note=_WNOTE)
for _m in ("sample_line_points", "filter_and_match_lines", "needleman_wunsch"):
    step(f"sold2.WunschLineMatcher.{_m}", G, (S2.WunschLineMatcher, _m), _WUNSCH_CALLS, note=_WNOTE)
step("sold2.keypoints_to_grid", G, S2.keypoints_to_grid, _WUNSCH_CALLS, note=_WNOTE)
add(case("sold2.batched_linspace", G, S2.batched_linspace, [rand(6, 2, seed=1140), rand(6, 2, seed=1141)],
         kwargs={"step": 5, "dim": -1}))
add(case("SOLD2.adapt_state_dict", G,
         Call(method_function(KF.SOLD2, "adapt_state_dict"), lambda a, b, c, d, e: KF.SOLD2.adapt_state_dict(
             None, {"w_junc": a, "w_heatmap": a, "w_desc": a, "heatmap_decoder.conv_block_lst.2.weight": b,
                    "heatmap_decoder.conv_block_lst.2.bias": c, "descriptor_decoder.weight": d, "other": e})),
         [torch.ones(1), randn(2, 8, 3, 3, seed=1134), randn(2, seed=1135), randn(4, 4, seed=1136), randn(3, seed=1137)],
         note="a checkpoint dict with the keys it renames and drops"))
add(case("SOLD2_detector.adapt_state_dict", G,
         Call(method_function(KF.SOLD2_detector, "adapt_state_dict"), lambda a, b, c, e: KF.SOLD2_detector.adapt_state_dict(
             None, {"w_junc": a, "w_heatmap": a, "w_desc": a, "heatmap_decoder.conv_block_lst.2.weight": b,
                    "heatmap_decoder.conv_block_lst.2.bias": c, "other": e})),
         [torch.ones(1), randn(2, 8, 3, 3, seed=1134), randn(2, seed=1135), randn(3, seed=1137)],
         note="a checkpoint dict with the keys it renames and drops"))

# ------------------------------------------------------------------------------------------------- MKD

G = "feature.mkd"
_MKDD = KF.MKDDescriptor(whitening=None)
_PATCH = rand(6, 1, 32, 32, seed=1140)


def _mkd(patch=_PATCH):
    return _MKDD(patch)


_MKD_T = [(MKD.MKDGradients, "forward"), (MKD.EmbedGradients, "forward"), (MKD.VonMisesKernel, "forward"),
          (MKD.ExplicitSpacialEncoding, "forward"), (MKD.EmbedGradients, "emb_mags")]
_MKD_CALLS = record_many(_MKD_T, _mkd, missing="skip")
# the second run, on other patches: each stage's input is what the previous stage makes of them (magnitudes
# stay non-negative, angles in range), where a uniform redraw of a stacked (magnitude, angle) input is not
_MKD_CALLS_F = record_many(_MKD_T, lambda: _mkd(rand(6, 1, 32, 32, seed=1140 + FRESH_OFFSET)), missing="skip")


def _mkd_fresh(target):
    return lambda inputs: fresh_replay(f"mkd.{target[0].__name__}.{target[1]}", inputs, *_MKD_CALLS_F[_key(target)])


for _cls in (MKD.MKDGradients, MKD.EmbedGradients, MKD.VonMisesKernel, MKD.ExplicitSpacialEncoding):
    step(f"mkd.{_cls.__name__}", G, (_cls, "forward"), _MKD_CALLS, fresh=_mkd_fresh((_cls, "forward")),
         note="its call inside MKDDescriptor(whitening=None)")
try:
    step("mkd.EmbedGradients.emb_mags", G, (MKD.EmbedGradients, "emb_mags"), _MKD_CALLS, fresh=_mkd_fresh((MKD.EmbedGradients, "emb_mags")),
         note="its call inside MKDDescriptor")
except LookupError:
    add(case("mkd.EmbedGradients.emb_mags", G, MKD.EmbedGradients(), [rand(6, 1, 32, 32, seed=1141)], method="emb_mags"))
_ESE = MKD.ExplicitSpacialEncoding()
add(case("mkd.ExplicitSpacialEncoding.get_gmask", G, Call(MKD.ExplicitSpacialEncoding.get_gmask, lambda x: _ESE.get_gmask(1.5) + x),
         [torch.zeros(1)]))
add(case("mkd.ExplicitSpacialEncoding.init_kron", G, Call(MKD.ExplicitSpacialEncoding.init_kron, lambda x: [t + x for t in _ESE.init_kron()]),
         [torch.zeros(1)]))


def _pca(offset=0):
    """A random PCA model: a mean, orthonormal eigenvectors, positive eigenvalues in descending order."""
    return {"mean": randn(64, seed=1142 + offset, scale=0.1), "eigvecs": torch.linalg.qr(randn(64, 64, seed=1143 + offset))[0],
            "eigvals": rand(64, seed=1144 + offset, low=0.1, high=2.0).sort(descending=True).values}


_WHM = {"pca": _pca()}
_WHM_F = _pca(FRESH_OFFSET)
blk("mkd.Whitening", G, MKD.Whitening("pcawt", _WHM, in_dims=64, output_dims=32), [randn(8, 64, seed=1145)],
    note="a random PCA whitening model (orthonormal eigenvectors)")
add(case("mkd.Whitening.load_whitening_parameters", G,
         Call(method_function(MKD.Whitening, "load_whitening_parameters"),
              lambda m, e, v, x: (MKD.Whitening("pcaws", None, 64, 32).load_whitening_parameters({"pca": {"mean": m, "eigvecs": e, "eigvals": v}}), None)[1]
              or MKD.Whitening("pcaws", {"pca": {"mean": m, "eigvecs": e, "eigvals": v}}, 64, 32)(x)),
         [_WHM["pca"]["mean"], _WHM["pca"]["eigvecs"], _WHM["pca"]["eigvals"], randn(8, 64, seed=1145)],
         fresh_inputs=(_WHM_F["mean"], _WHM_F["eigvecs"], _WHM_F["eigvals"], randn(8, 64, seed=1145 + FRESH_OFFSET)),
         note="the parameters loaded (tensors as graph inputs), then the whitening applied. It assigns them with "
              "`.data =`, which torch.export does not trace: the exported program keeps the initial zeros, identity and ones"))


def _simple_kd():
    """A genuine SimpleKD whose constructor would download the trained whitening model: assembled from the same
    stages, with a random PCA whitening model."""
    obj = MKD.SimpleKD.__new__(MKD.SimpleKD)
    nn.Module.__init__(obj)
    obj.patch_size = 32
    from kornia.filters import GaussianBlur2d

    ori = MKD.EmbedGradients(patch_size=32, relative=True)
    ese = MKD.ExplicitSpacialEncoding(kernel_type="polar", fmap_size=32, in_dims=ori.kernel.d)
    n = ese.odims
    model = {"pca": {"mean": randn(n, seed=1146, scale=0.05), "eigvecs": torch.linalg.qr(randn(n, n, seed=1147))[0],
                     "eigvals": rand(n, seed=1148, low=0.1, high=2.0).sort(descending=True).values}}
    obj.features = nn.Sequential(GaussianBlur2d((5, 5), (0.7, 0.7), "replicate"), MKD.MKDGradients(), ori, ese,
                                 MKD.Whitening("pcawt", model, in_dims=n, output_dims=128))
    return obj.eval()


blk("mkd.SimpleKD", G, _simple_kd(), [_PATCH], note="its constructor downloads the whitening model: assembled from the "
    "same stages with a random PCA whitening model")
add(case("mkd.get_grid_dict", G, Call(MKD.get_grid_dict, lambda x: {k: v + x for k, v in MKD.get_grid_dict(16).items()}),
         [torch.zeros(1)]))
add(case("mkd.get_kron_order", G, Call(MKD.get_kron_order, lambda x: MKD.get_kron_order(3, 4) + x), [torch.zeros(1, dtype=torch.long)]))
add(case("mkd.spatial_kernel_embedding", G, Call(MKD.spatial_kernel_embedding, lambda x: MKD.spatial_kernel_embedding(
    "polar", {k: v + x for k, v in MKD.get_grid_dict(16).items()})), [torch.zeros(1)]))
add(case("mkd.spatial_kernel_embedding[cart]", G, Call(MKD.spatial_kernel_embedding, lambda x: MKD.spatial_kernel_embedding(
    "cart", {k: v + x for k, v in MKD.get_grid_dict(16).items()})), [torch.zeros(1)]))

# ------------------------------------------------------------------------------------------------- SIFT, LAF, steerers, detectors

G = "feature.descriptors"
add(case("siftdesc.sift_describe", G, SIFT.sift_describe, [rand(4, 1, 41, 41, seed=1150)]))
add(case("siftdesc.sift_describe[ps=32,no_root]", G, SIFT.sift_describe, [rand(4, 1, 32, 32, seed=1151)],
         kwargs={"patch_size": 32, "rootsift": False}))
add(case("siftdesc.get_sift_pooling_kernel", G, Call(SIFT.get_sift_pooling_kernel, lambda x: SIFT.get_sift_pooling_kernel(9) + x),
         [torch.zeros(1)]))
_SD = KF.SIFTDescriptor(32)
add(case("SIFTDescriptor.get_pooling_kernel", G, Call(KF.SIFTDescriptor.get_pooling_kernel, lambda x: _SD.get_pooling_kernel() + x),
         [torch.zeros(1)]))
add(case("SIFTDescriptor.get_weighting_kernel", G, Call(KF.SIFTDescriptor.get_weighting_kernel, lambda x: _SD.get_weighting_kernel() + x),
         [torch.zeros(1)]))
_DSD = KF.DenseSIFTDescriptor()
add(case("DenseSIFTDescriptor.get_pooling_kernel", G,
         Call(KF.DenseSIFTDescriptor.get_pooling_kernel, lambda x: _DSD.get_pooling_kernel() + x), [torch.zeros(1)]))
add(case("DenseSIFTDescriptor.get_gradient_histograms", G, _DSD, [DET], method="get_gradient_histograms"))
G = "feature.laf"
_LAFN = KF.normalize_laf(_lafs(8, seed=1152), DET)
add(case("laf.generate_patch_grid_from_normalized_LAF", G, KLAF.generate_patch_grid_from_normalized_LAF, [DET, _LAFN],
         kwargs={"PS": 16}))
add(case("laf.KORNIA_CHECK_LAF", G, Call(KF.KORNIA_CHECK_LAF, lambda laf: (KF.KORNIA_CHECK_LAF(laf), laf)[1]), [_lafs(4, seed=1154)],
         note="a validator (bool or raise): the case returns its input after the check"))
add(case("laf.get_laf_pts_to_draw", G, Call(KLAF.get_laf_pts_to_draw, lambda laf: torch.tensor(KLAF.get_laf_pts_to_draw(laf))),
         [_lafs(4, seed=1153)], note="the plotting outline of 4 LAFs as Python lists (tensor-made for the case: it reads values into Python)"))
G = "feature.matching"
_GEN = torch.linalg.matrix_exp(torch.tensor([[0.0, -math.pi / 2], [math.pi / 2, 0.0]]))
_STEER = STEER.DiscreteSteerer(torch.block_diag(*[_GEN] * 4))
add(case("steerers.DiscreteSteerer", G, _STEER, [randn(1, 10, 8, seed=1160)], note="a C4 rotation generator on 8-d descriptors"))
add(case("steerers.DiscreteSteerer.steer_descriptions", G,
         Call(STEER.DiscreteSteerer.steer_descriptions, lambda m, d: m.steer_descriptions(d, 3, normalize=True), _STEER),
         [randn(1, 10, 8, seed=1161)], note="steered three times, normalised"))
add(case("steerers.DiscreteSteerer.create_dedode_default", G,
         Built(STEER.DiscreteSteerer.create_dedode_default, STEER.DiscreteSteerer.create_dedode_default("C4")),
         [randn(1, 10, 256, seed=1162)], note="DeDoDe's default C4 steerer (its generator is computed, not loaded)"))
_DM1, _DM2, _ = _desc_pair(20, 4, d=8, seed=1163)
_DMS = KFM.DescriptorMatcherWithSteerer(_STEER, 4, steer_mode="global", match_mode="mnn")
add(case("matching.DescriptorMatcherWithSteerer", G, _DMS, [_DM1, _DM2], note="global steering over 4 powers, mutual NN"))
add(case("matching.DescriptorMatcherWithSteerer[local,snn]", G, KFM.DescriptorMatcherWithSteerer(_STEER, 4, "local", "snn", 0.9),
         [_DM1, _DM2], note="local steering, ratio test 0.9"))
add(case("matching.DescriptorMatcherWithSteerer.matching_function", G, _DMS, [_DM1, _DM2], method="matching_function"))
G = "feature.detectors"
_KN = seeded(1170, KF.KeyNetDetector, pretrained=False, num_features=32)
add(case("MultiResolutionDetector.detect", G, _KN, [DET], method="detect", note=f"{RI}; KeyNetDetector, 32 features"))
add(case("MultiResolutionDetector.detect_features_on_single_level", G,
         Call(method_function(KF.MultiResolutionDetector, "detect_features_on_single_level"),
              lambda m, x: m.detect_features_on_single_level(x, 16, (1.0, 1.0)), _KN), [DET],
         note=f"{RI}; KeyNetDetector, 16 features on the full-resolution level"))
add(case("MultiResolutionDetector.remove_borders", G, _KN, [rand(1, 1, 32, 40, seed=1171)], method="remove_borders",
         kwargs={"borders": 5}))
_SSD = KF.ScaleSpaceDetector(32)
add(case("ScaleSpaceDetector.detect", G, Call(KF.ScaleSpaceDetector.detect, lambda m, x: m.detect(x, 32), _SSD), [DET]))
_LFM = KF.LocalFeatureMatcher(KF.LocalFeature(KF.ScaleSpaceDetector(32), KF.LAFDescriptor(KF.SIFTDescriptor(32))),
                              KF.DescriptorMatcher("snn", 0.9))
add(case("LocalFeatureMatcher.extract_features", G, _LFM, [DET], method="extract_features",
         note="a ScaleSpaceDetector + SIFT local feature (no learned weights)"))
add(case("LocalFeatureMatcher.no_match_output", G,
         Call(KF.LocalFeatureMatcher.no_match_output, lambda x: {k: v + x for k, v in _LFM.no_match_output(x.device, x.dtype).items()}),
         [torch.zeros(1)]))




def _offline_pretrained(cls, weights, **kwargs):
    """``cls.from_pretrained(**kwargs)`` with its download (the module's ``load_state_dict_from_url``) answered by
    ``weights()``: a state dict of the same architecture at seeded random values. The builder's own code runs
    (configuration, loading, eval mode); nothing is downloaded, and the values are random (as for FaceDetector)."""
    import sys

    module = sys.modules[cls.__module__]
    download = module.load_state_dict_from_url
    module.load_state_dict_from_url = lambda *a, **k: weights()
    try:
        return seeded(1160, cls.from_pretrained, **kwargs)
    finally:
        module.load_state_dict_from_url = download


_PRETRAINED_NOTE = "the builder run offline: its weight download answered by a seeded random state dict of the same architecture"
add(case("feature.ALIKED.from_pretrained", G, lazy_call(method_function(KF.ALIKED, "from_pretrained"), lambda: _offline_pretrained(
    KF.ALIKED, lambda: seeded(1161, KF.ALIKED).state_dict(), model_name="aliked-n16"), lambda m, x: m(x)),
    [rand(1, 3, 64, 64, seed=1162)], note=_PRETRAINED_NOTE))
add(case("feature.DISK.from_pretrained", G, lazy_call(method_function(KF.DISK, "from_pretrained"), lambda: _offline_pretrained(
    KF.DISK, lambda: {"extractor": seeded(1163, KF.DISK).state_dict()}, checkpoint="depth"), lambda m, x: m(x)),
    [rand(1, 3, 64, 64, seed=1164)], note=_PRETRAINED_NOTE))
add(case("feature.XFeat.from_pretrained", G, lazy_call(method_function(KF.XFeat, "from_pretrained"), lambda: _offline_pretrained(
    KF.XFeat, lambda: seeded(1165, KF.XFeat).net.state_dict(), top_k=256, detection_threshold=0.0), lambda m, x: m.detectAndCompute(x)),
    [rand(1, 3, 64, 96, seed=1166)], note=_PRETRAINED_NOTE + "; detectAndCompute (XFeat has no forward), every heatmap maximum counts"))


def _dedode_weights():
    """DeDoDe.from_pretrained downloads twice, the detector's weights then the descriptor's: both from one seeded
    random DeDoDe of the same kinds (detector L, descriptor B)."""
    ref = seeded(1167, KF.DeDoDe, detector_model="L", descriptor_model="B", amp_dtype=torch.float32)
    return iter([ref.detector.state_dict(), ref.descriptor.state_dict()]).__next__


add(case("feature.DeDoDe.from_pretrained", G, lazy_call(method_function(KF.DeDoDe, "from_pretrained"), lambda: _offline_pretrained(
    KF.DeDoDe, _dedode_weights(), detector_weights="L-C4-v2", descriptor_weights="B-upright", amp_dtype=torch.float32),
    lambda m, x: m(x, n=32)), [rand(1, 3, 28, 42, seed=1168)],
    note=_PRETRAINED_NOTE + "; detector L-C4-v2 and descriptor B-upright (VGG, no DINOv2), 32 keypoints"))

_NOT_PROBED = {
    "kornia.feature.mkd.load_whitening_model": "downloads the MKD whitening models",
    "kornia.feature.dedode.dedode_models.dedode_descriptor_G": "its constructor downloads the DINOv2 ViT-L/14 weights",
    "kornia.feature.dedode.encoder.FrozenDINOv2": "its constructor downloads the DINOv2 ViT-L/14 weights",
    "kornia.feature.dedode.encoder.VGG_DINOv2": "its constructor downloads the DINOv2 ViT-L/14 weights",
    "kornia.feature.LoFTR.load_state_dict": "copies a checkpoint into the module's parameters: no tensor computation to capture",
}


for _skipped in skipped_cases(_NOT_PROBED, "feature"):
    add(_skipped)

NOT_SURVEYED: dict = {}
