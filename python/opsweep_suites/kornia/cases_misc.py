"""kornia.losses, kornia.metrics, kornia.image, kornia.utils (deprecated shims), kornia.core, kornia.sensors,
kornia.io and kornia.onnx.

Losses get valid targets: class labels (int64) for focal / dice / tversky / lovasz, binary masks for the
Hausdorff losses, probability heatmaps (each summing to one) for the divergence losses, correlated signals
for the mutual-information losses, positive inverse depth for the smoothness loss. Metrics get proper
rotation matrices, flows, disparities with valid masks, and boxes with x2 > x1, y2 > y1.

Callables that are not tensor operators are kept as skipped cases with the reason (they read files,
download, query the machine, or run ONNX Runtime), so the page shows them and says why.

Not surveyed (no case at all): kornia.deprecated (a decorator) and the removed kornia.to_jax / to_numpy /
to_tensorflow, listed with reasons in NOT_SURVEYED below.

Types, not operators (``opsweep coverage`` sets mixins and dataclasses aside under ``not_operators``):
    kornia.core.ImageModuleMixIn   a mixin without forward; surveyed through core.ImageModule.
    kornia.core.ONNXExportMixin    a mixin whose to_onnx() is itself an ONNX exporter writing a file.
    kornia.core.ONNXRuntimeMixin   a mixin that wraps an ONNX Runtime session (numpy in/out).
    kornia.core.ONNXMixin          the two mixins above together.
    kornia.image.ImageSize, ImageLayout, PixelFormat   metadata dataclasses (ints and enums) that
                                   Image cases use; they compute nothing on tensors.

Skipped (a case exists, with skip=reason, so the page lists them):
    kornia.core: check_safetensors, load_safetensors (read files), download_file_from_url,
        download_hf_file, load_state_dict_from_url (network), hf_url (builds a URL string).
    kornia.utils: load_pointcloud_ply, save_pointcloud_ply (files), get_sample_images, CachedDownloader
        (network), get_cuda_device_if_available, get_mps_device_if_available,
        get_cuda_or_mps_device_if_available, is_autocast_enabled, xla_is_available (query the machine or
        torch state, no tensor input), map_location_to_cpu (a torch.load hook).
    kornia.io: load_image, write_image (files), get_sample_images (network).
    kornia.onnx: ONNXSequential, ONNXModule, ONNXLoader, load, add_metadata, io_name_conversion (need .onnx
        models and run ONNX Runtime on numpy, or edit ModelProto objects: not torch operators).

Cases expected to be n/a "no tensor output" (they run, but return no tensor): auc_from_errors (dict of
floats), AverageMeter (.avg is a float), tensor_to_image (numpy), image_to_string (str), print_image
(None), utils.is_mps_tensor_safe (bool), and their utils.* shims. They are tagged "no-tensor-output".

image_to_tensor and ImageToTensor (and their utils.* shims) accept a numpy.ndarray only: kornia refuses a
tensor with TypeError. Their cases pass the tensor to kornia as it is and are n/a at the eager step with
kornia's own error: that is the finding (no tensor graph can contain them). They are tagged "numpy-input".
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

import kornia
import kornia.core as KCORE
import kornia.image as KI
import kornia.io as KIO
import kornia.losses as KL
import kornia.metrics as KMET
import kornia.onnx as KONNX
import kornia.utils as KU
from kornia.geometry.vector import Vector2, Vector3
from kornia.image import ChannelsOrder, ColorSpace, Image, ImageLayout, ImageSize, PixelFormat
from kornia.sensors import camera as KCAM

from opsweep_suites.kornia._common import (
    FRESH_OFFSET, ByName, Forward, batch, case, derived, detector_image, gray, img, rand, randint, randn, structured, twin, volume,
)

# Inputs with structure (0/1 targets, probability heatmaps, rotations and poses, boxes, points inside the
# image, camera parameters) declare a second value of the same kind (``twin``, ``derived``): the
# fresh-input check runs on valid inputs.

GL = "losses"
GMT = "metrics"
GU = "utils"
GI = "image"
GC = "core"
GIO = "io"
GOX = "onnx"
GS = "sensors"

NOT_SURVEYED = {
    "kornia.deprecated": "a decorator that marks functions deprecated; not a tensor operator",
    "kornia.to_jax": "removed in kornia 0.9.0: calling it raises RuntimeError (the transpiler is gone)",
    "kornia.to_numpy": "removed in kornia 0.9.0: calling it raises RuntimeError (the transpiler is gone)",
    "kornia.to_tensorflow": "removed in kornia 0.9.0: calling it raises RuntimeError (the transpiler is gone)",
}


def _numpy_only(api: str) -> str:
    return (f"kornia's {api} accepts a numpy.ndarray only (an isinstance check raises TypeError for a tensor): it "
            "cannot be part of a tensor graph. The (H, W, C) tensor goes straight to kornia, so the record shows "
            "kornia's own refusal at the eager step, not a conversion of the registry's")


_LIST_OF_TENSORS = ("documented for a list of numpy images, and kornia's code takes tensors as they are "
                    "(torch.as_tensor otherwise): the two (H, W, C) tensors are the graph inputs")


def _skip_case(name, group, target, reason):
    """A case for a public callable that cannot be probed; `target` is the public object itself."""
    return case(name, group, target, [img()], skip=reason)


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------
IMG = img()
BATCH = batch()
VOL = volume()
LOGITS = randn(2, 4, 16, 20, seed=70)  # 4-class segmentation logits
LABELS = randint(0, 4, 2, 16, 20, seed=71)  # int64 labels
LABELS_IGN = LABELS.clone()
LABELS_IGN[:, :2, :] = -100  # a band of ignored pixels (ignore_index default)
BIN_LOGITS = randn(2, 1, 16, 20, seed=72)
BIN_LABELS = randint(0, 2, 2, 16, 20, seed=73)
BIN_TARGET = twin(lambda second=False: randint(0, 2, 2, 16, 20, seed=73 + FRESH_OFFSET * second).unsqueeze(1).float().contiguous())  # (B, 1, H, W) in {0, 1}
IMG2 = (IMG + randn(1, 3, 32, 40, seed=74, scale=0.05)).clamp(0, 1).contiguous()  # a noisy copy of IMG
BATCH2 = (BATCH + randn(2, 3, 32, 40, seed=75, scale=0.05)).clamp(0, 1).contiguous()
VOL2 = (VOL + randn(1, 1, 8, 16, 16, seed=76, scale=0.05)).clamp(0, 1).contiguous()
BIG = rand(1, 3, 96, 112, seed=77)  # MS-SSIM needs room for its largest Gaussian (sigma 8)
BIG2 = (BIG + randn(1, 3, 96, 112, seed=78, scale=0.05)).clamp(0, 1).contiguous()


def _heatmaps(seed):
    """(B, N, H, W) heatmaps, each a distribution over H x W (the second value: seed + FRESH_OFFSET)."""
    def build(second=False):
        x = randn(2, 3, 16, 20, seed=seed + FRESH_OFFSET * second)
        return torch.softmax(x.view(2, 3, -1), dim=-1).view(2, 3, 16, 20).contiguous()

    return twin(build)


HEAT1, HEAT2 = _heatmaps(79), _heatmaps(80)
SEG_PRED5 = randn(2, 2, 8, 16, 16, seed=81)  # 3-D segmentation logits
SEG_T5 = randint(0, 2, 2, 1, 8, 16, 16, seed=82)
HD_PRED = randn(2, 2, 32, 32, seed=83)
HD_T = randint(0, 2, 2, 1, 32, 32, seed=84)
SIG_T = rand(2, 500, seed=85)
SIG_I = (0.7 * SIG_T + 0.3 * rand(2, 500, seed=86)).contiguous()  # correlated with SIG_T
IM2D_T = rand(2, 24, 24, seed=87)
IM2D_I = (0.7 * IM2D_T + 0.3 * rand(2, 24, 24, seed=88)).contiguous()
VOL3D_T = rand(2, 6, 12, 12, seed=89)
VOL3D_I = (0.7 * VOL3D_T + 0.3 * rand(2, 6, 12, 12, seed=90)).contiguous()
MASK_N = torch.ones(500, dtype=torch.bool)
MASK_N[:50] = False
MASK_HW = torch.ones(24, 24, dtype=torch.bool)
MASK_HW[:4] = False
IDEPTH = rand(2, 1, 32, 40, seed=91, low=0.1, high=1.0)  # positive inverse depth


def _rot(seed, n):
    """n proper rotation matrices (det +1) from seeded axis-angles (the second value: seed + FRESH_OFFSET)."""
    return twin(lambda second=False: kornia.geometry.conversions.axis_angle_to_rotation_matrix(
        randn(n, 3, seed=seed + FRESH_OFFSET * second, scale=0.6)).contiguous())


R1 = _rot(92, 4)
R2 = derived(lambda a, b: (a @ b).contiguous(), R1, _rot(93, 4))  # R1 composed with another rotation: still proper
T1 = randn(4, 3, 1, seed=94)
T2 = (T1 + randn(4, 3, 1, seed=95, scale=0.1)).contiguous()
P1 = derived(lambda r, t: torch.cat([r, t], dim=-1).contiguous(), R1, T1)  # (4, 3, 4)
P2 = derived(lambda r, t: torch.cat([r, t], dim=-1).contiguous(), R2, T2)
FLOW1 = randn(2, 16, 20, 2, seed=96, scale=2.0)
FLOW2 = (FLOW1 + randn(2, 16, 20, 2, seed=97, scale=0.5)).contiguous()
DISP_T = rand(2, 16, 20, seed=98, low=1.0, high=40.0)
DISP_P = (DISP_T + randn(2, 16, 20, seed=99, scale=2.5)).contiguous()
DISP_MASK = (rand(2, 16, 20, seed=100) > 0.2).contiguous()


def _boxes(seed, n, size=40.0):
    """n boxes (x1, y1, x2, y2), x1 < x2, y1 < y2 (the second value: seed + FRESH_OFFSET)."""
    def build(second=False):
        off = FRESH_OFFSET * second
        xy = rand(n, 2, seed=seed + off, high=size * 0.6)
        wh = rand(n, 2, seed=seed + 1 + off, low=4.0, high=size * 0.4)
        return torch.cat([xy, xy + wh], dim=-1).contiguous()

    return twin(build)


BOX_A = _boxes(101, 5)
BOX_B = derived(lambda a, b: torch.cat([a[:3] + 1.5, b]).contiguous(), BOX_A, _boxes(103, 2))


# line end points and rectangles inside the 40x32 image (the second values: others inside it)
_LINE = (structured(torch.tensor([2.0, 3.0]), torch.tensor([5.0, 1.0])), structured(torch.tensor([35.0, 28.0]), torch.tensor([30.0, 31.0])))
_LINES = (structured(torch.tensor([[2.0, 3.0], [30.0, 1.0]]), torch.tensor([[6.0, 30.0], [38.0, 4.0]])),
          structured(torch.tensor([[35.0, 28.0], [5.0, 30.0]]), torch.tensor([[33.0, 2.0], [1.0, 20.0]])))
_RECTS = structured(torch.tensor([[[2.0, 3.0, 20.0, 25.0]], [[10.0, 5.0, 35.0, 30.0]]]),
                    torch.tensor([[[5.0, 1.0, 30.0, 20.0]], [[3.0, 8.0, 25.0, 31.0]]]))


# ---- wrappers ----------------------------------------------------------------------------------


class _MAP(nn.Module):
    """mean_average_precision over two images: its list-of-tensors arguments are built from tensor inputs."""

    def __init__(self):
        super().__init__()
        self.__opsweep_target__ = KMET.mean_average_precision  # set on the instance: a function class attribute would bind

    def forward(self, pb, pl, ps, gb, gl):
        return KMET.mean_average_precision(
            [pb[0], pb[1]], [pl[0], pl[1]], [ps[0], ps[1]], [gb[0], gb[1]], [gl[0], gl[1]], n_classes=3
        )


class _AverageMeter(nn.Module):
    """AverageMeter as a training loop uses it: two updates, then the running average."""

    __opsweep_target__ = KMET.AverageMeter

    def forward(self, a, b):
        m = KMET.AverageMeter()
        m.update(a, n=2)
        m.update(b, n=1)
        return m.avg


class _ImageMethod(nn.Module):
    """Wraps a (C, H, W) tensor in kornia.image.Image and calls one of its methods (returning an Image, whose
    .data is the output)."""

    __opsweep_target__ = Image

    def __init__(self, method: str, color_space=ColorSpace.RGB, channels_last: bool = False):
        super().__init__()
        self.method = method
        self.color_space = color_space
        self.channels_last = channels_last

    def forward(self, x):
        if self.channels_last:
            h, w, c = x.shape
            order = ChannelsOrder.CHANNELS_LAST
        else:
            c, h, w = x.shape
            order = ChannelsOrder.CHANNELS_FIRST
        im = Image(x, PixelFormat(self.color_space, 8 * x.element_size()), ImageLayout(ImageSize(h, w), c, order))
        if self.method == "data":
            return im.data
        return getattr(im, self.method)()


class _ToyImageModule(KCORE.ImageModule):
    """The smallest ImageModule subclass: forward is rgb_to_grayscale. Surveys ImageModule.__call__ (input
    conversion and output caching around forward)."""

    __opsweep_target__ = KCORE.ImageModule

    def forward(self, x):
        return kornia.color.rgb_to_grayscale(x)


def _features_off(m):
    """The same module with disable_features=True: a plain nn.Module call, no conversions or caching."""
    m.disable_features = True
    return m


class _TensorWrapperOps(nn.Module):
    """TensorWrapper around a tensor, arithmetic through __torch_function__, then unwrapped."""

    __opsweep_target__ = KCORE.TensorWrapper

    def forward(self, x):
        w = KCORE.TensorWrapper(x)
        y = (w * 2.0 + 1.0) / 3.0
        return y.data if isinstance(y, KCORE.TensorWrapper) else y


class _Camera(nn.Module):
    """Builds a kornia.sensors.camera model from a params tensor (a graph input) and projects 3-D points
    (Vector3) or unprojects pixels (Vector2) with depth."""

    def __init__(self, cls, op: str, model_type=None):
        super().__init__()
        self.cls = cls
        self.op = op
        self.model_type = model_type
        self.__opsweep_target__ = cls

    def _model(self, params):
        size = ImageSize(480, 640)
        if self.model_type is not None:
            return self.cls(size, self.model_type, params)
        return self.cls(size, params)

    def forward(self, params, pts, depth=None):
        cam = self._model(params)
        if self.op == "project":
            return cam.project(Vector3(pts)).data
        if self.op == "unproject":
            return cam.unproject(Vector2(pts), depth).data
        if self.op == "matrix":
            return cam.matrix() + 0.0 * pts.sum()
        raise ValueError(self.op)


@dataclasses.dataclass
class _Pair:
    """A dataclass holding two tensors, for dataclass_to_dict / dict_to_dataclass."""

    a: torch.Tensor
    b: torch.Tensor


# camera parameters (fx, fy, cx, cy[, distortion]); the second camera has other focal lengths, centre and lens
PIN = structured(torch.tensor([328.0, 328.0, 320.0, 240.0]), torch.tensor([350.0, 340.0, 316.0, 244.0]))
BC = structured(torch.tensor([328.0, 328.0, 320.0, 240.0, 0.01, -0.002, 0.001, 0.0005, 0.0001, 0.0, 0.0, 0.0]),
                torch.tensor([350.0, 340.0, 316.0, 244.0, -0.008, 0.003, -0.0005, 0.0008, -0.0002, 0.0, 0.0, 0.0]))
KB = structured(torch.tensor([328.0, 328.0, 320.0, 240.0, 0.01, -0.002, 0.001, 0.0005]),
                torch.tensor([350.0, 340.0, 316.0, 244.0, -0.008, 0.003, -0.0005, 0.0008]))
# points in front of the camera (z in [1, 4]); the second value: seeds + FRESH_OFFSET
PTS3 = twin(lambda second=False: torch.cat([rand(8, 2, seed=104 + FRESH_OFFSET * second, low=-0.5, high=0.5),
                                            rand(8, 1, seed=105 + FRESH_OFFSET * second, low=1.0, high=4.0)], dim=-1).contiguous())
PTS2 = torch.cat([rand(8, 1, seed=106, low=20.0, high=620.0), rand(8, 1, seed=107, low=20.0, high=460.0)], dim=-1).contiguous()
DEPTH = rand(8, seed=108, low=1.0, high=4.0)

CAM_CASES = []
for _name, _cls, _params, _mt in [
    ("PinholeModel", KCAM.PinholeModel, PIN, None),
    ("BrownConradyModel", KCAM.BrownConradyModel, BC, None),
    ("KannalaBrandtK3", KCAM.KannalaBrandtK3, KB, None),
    ("Orthographic", KCAM.Orthographic, PIN, None),
    ("CameraModel", KCAM.CameraModel, PIN, KCAM.CameraModelType.PINHOLE),
]:
    CAM_CASES.append(case(f"{_name}[project]", GS, _Camera(_cls, "project", _mt), [_params, PTS3],
                          note="params (a graph input) -> model; project(Vector3 points)"))
    if _name != "Orthographic":
        CAM_CASES.append(case(f"{_name}[unproject]", GS, _Camera(_cls, "unproject", _mt), [_params, PTS2, DEPTH],
                              note="unproject(Vector2 pixels, depth)"))
    else:
        CAM_CASES.append(case(f"{_name}[unproject]", GS, _Camera(_cls, "unproject", _mt), [_params, PTS2 / 100.0, DEPTH],
                              note="unproject(Vector2 points, depth)"))
CAM_CASES.append(case("PinholeModel[matrix]", GS, _Camera(KCAM.PinholeModel, "matrix"), [PIN, PTS3]))
CAM_CASES.append(case("CameraModel[brown_conrady,project]", GS,
                      _Camera(KCAM.CameraModel, "project", KCAM.CameraModelType.BROWN_CONRADY), [BC, PTS3]))
CAM_CASES.append(case("CameraModel[kannala_brandt,project]", GS,
                      _Camera(KCAM.CameraModel, "project", KCAM.CameraModelType.KANNALA_BRANDT_K3), [KB, PTS3]))

W3 = torch.tensor([0.5, 1.0, 2.0, 1.0])  # class weights for the 4-class losses

CASES = [
    # ================================ losses ================================================
    case("binary_focal_loss_with_logits", GL, KL.binary_focal_loss_with_logits, [BIN_LOGITS, BIN_TARGET]),
    case("binary_focal_loss_with_logits[mean]", GL, KL.binary_focal_loss_with_logits, [BIN_LOGITS, BIN_TARGET],
         kwargs={"reduction": "mean"}),
    case("binary_focal_loss_with_logits[pos_weight,weight]", GL, ByName(KL.binary_focal_loss_with_logits,
         ["pred", "target", "pos_weight", "weight"]), [BIN_LOGITS, BIN_TARGET, torch.tensor([2.0]), torch.tensor([0.7])],
         kwargs={"reduction": "sum"}),
    case("binary_focal_loss_with_logits[alpha=None]", GL, KL.binary_focal_loss_with_logits, [BIN_LOGITS, BIN_TARGET],
         kwargs={"alpha": None, "reduction": "mean"}),
    case("BinaryFocalLossWithLogits", GL, KL.BinaryFocalLossWithLogits(alpha=0.25, reduction="mean"), [BIN_LOGITS, BIN_TARGET]),
    case("focal_loss", GL, KL.focal_loss, [LOGITS, LABELS], kwargs={"alpha": 0.5}),
    case("focal_loss[mean]", GL, KL.focal_loss, [LOGITS, LABELS], kwargs={"alpha": 0.5, "reduction": "mean"}),
    case("focal_loss[weight]", GL, ByName(KL.focal_loss, ["pred", "target", "weight"]), [LOGITS, LABELS, W3],
         kwargs={"alpha": 0.5, "reduction": "sum"}),
    case("focal_loss[ignore_index]", GL, KL.focal_loss, [LOGITS, LABELS_IGN], kwargs={"alpha": 0.5, "reduction": "mean"},
         note="some pixels labelled -100 (ignored)"),
    case("FocalLoss", GL, KL.FocalLoss(alpha=0.5, reduction="mean"), [LOGITS, LABELS]),
    case("dice_loss", GL, KL.dice_loss, [LOGITS, LABELS]),
    case("dice_loss[macro]", GL, KL.dice_loss, [LOGITS, LABELS], kwargs={"average": "macro"}),
    case("dice_loss[weight]", GL, ByName(KL.dice_loss, ["pred", "target", "weight"]), [LOGITS, LABELS, W3]),
    case("dice_loss[ignore_index]", GL, KL.dice_loss, [LOGITS, LABELS_IGN]),
    case("DiceLoss", GL, KL.DiceLoss(), [LOGITS, LABELS]),
    case("tversky_loss", GL, KL.tversky_loss, [LOGITS, LABELS], kwargs={"alpha": 0.5, "beta": 0.5}),
    case("tversky_loss[alpha=0.3,beta=0.7]", GL, KL.tversky_loss, [LOGITS, LABELS_IGN], kwargs={"alpha": 0.3, "beta": 0.7}),
    case("TverskyLoss", GL, KL.TverskyLoss(0.5, 0.5), [LOGITS, LABELS]),
    case("lovasz_hinge_loss", GL, KL.lovasz_hinge_loss, [BIN_LOGITS, BIN_LABELS]),
    case("LovaszHingeLoss", GL, KL.LovaszHingeLoss(), [BIN_LOGITS, BIN_LABELS]),
    case("lovasz_softmax_loss", GL, KL.lovasz_softmax_loss, [LOGITS, LABELS]),
    case("lovasz_softmax_loss[weight]", GL, KL.lovasz_softmax_loss, [LOGITS, LABELS, W3]),
    case("LovaszSoftmaxLoss", GL, KL.LovaszSoftmaxLoss(), [LOGITS, LABELS]),
    case("ssim_loss", GL, KL.ssim_loss, [IMG, IMG2], kwargs={"window_size": 5}),
    case("ssim_loss[window=11,none]", GL, KL.ssim_loss, [BATCH, BATCH2], kwargs={"window_size": 11, "reduction": "none"}),
    case("ssim_loss[padding=valid]", GL, KL.ssim_loss, [IMG, IMG2], kwargs={"window_size": 5, "padding": "valid"}),
    case("SSIMLoss", GL, KL.SSIMLoss(5), [IMG, IMG2]),
    case("ssim3d_loss", GL, KL.ssim3d_loss, [VOL, VOL2], kwargs={"window_size": 3}),
    case("ssim3d_loss[padding=valid]", GL, KL.ssim3d_loss, [VOL, VOL2], kwargs={"window_size": 3, "padding": "valid"}),
    case("SSIM3DLoss", GL, KL.SSIM3DLoss(3), [VOL, VOL2]),
    case("MS_SSIMLoss", GL, KL.MS_SSIMLoss(), [BIG, BIG2], note="96x112 images: room for the sigma-8 Gaussian"),
    case("MS_SSIMLoss[reduction=none]", GL, KL.MS_SSIMLoss(reduction="none"), [BIG, BIG2]),
    case("psnr_loss", GL, KL.psnr_loss, [IMG, IMG2], kwargs={"max_val": 1.0}),
    case("PSNRLoss", GL, KL.PSNRLoss(1.0), [IMG, IMG2]),
    case("total_variation", GL, KL.total_variation, [IMG]),
    case("total_variation[mean]", GL, KL.total_variation, [BATCH], kwargs={"reduction": "mean"}),
    case("TotalVariation", GL, KL.TotalVariation(), [IMG]),
    case("charbonnier_loss", GL, KL.charbonnier_loss, [IMG, IMG2]),
    case("charbonnier_loss[mean]", GL, KL.charbonnier_loss, [IMG, IMG2], kwargs={"reduction": "mean"}),
    case("CharbonnierLoss", GL, KL.CharbonnierLoss(), [IMG, IMG2]),
    case("cauchy_loss", GL, KL.cauchy_loss, [IMG, IMG2]),
    case("cauchy_loss[sum]", GL, KL.cauchy_loss, [IMG, IMG2], kwargs={"reduction": "sum"}),
    case("CauchyLoss", GL, KL.CauchyLoss(), [IMG, IMG2]),
    case("geman_mcclure_loss", GL, KL.geman_mcclure_loss, [IMG, IMG2]),
    case("geman_mcclure_loss[mean]", GL, KL.geman_mcclure_loss, [IMG, IMG2], kwargs={"reduction": "mean"}),
    case("GemanMcclureLoss", GL, KL.GemanMcclureLoss(), [IMG, IMG2]),
    case("welsch_loss", GL, KL.welsch_loss, [IMG, IMG2]),
    case("welsch_loss[mean]", GL, KL.welsch_loss, [IMG, IMG2], kwargs={"reduction": "mean"}),
    case("WelschLoss", GL, KL.WelschLoss(), [IMG, IMG2]),
    case("inverse_depth_smoothness_loss", GL, KL.inverse_depth_smoothness_loss, [IDEPTH, BATCH]),
    case("InverseDepthSmoothnessLoss", GL, KL.InverseDepthSmoothnessLoss(), [IDEPTH, BATCH]),
    case("js_div_loss_2d", GL, KL.js_div_loss_2d, [HEAT1, HEAT2]),
    case("js_div_loss_2d[none]", GL, KL.js_div_loss_2d, [HEAT1, HEAT2], kwargs={"reduction": "none"}),
    case("kl_div_loss_2d", GL, KL.kl_div_loss_2d, [HEAT1, HEAT2]),
    case("kl_div_loss_2d[sum]", GL, KL.kl_div_loss_2d, [HEAT1, HEAT2], kwargs={"reduction": "sum"}),
    case("HausdorffERLoss", GL, KL.HausdorffERLoss(), [HD_PRED, HD_T]),
    case("HausdorffERLoss[reduction=none]", GL, KL.HausdorffERLoss(reduction="none"), [HD_PRED, HD_T]),
    case("HausdorffERLoss3D", GL, KL.HausdorffERLoss3D(), [SEG_PRED5, SEG_T5]),
    case("mutual_information_loss", GL, KL.mutual_information_loss, [SIG_I, SIG_T]),
    case("mutual_information_loss[masks]", GL, KL.mutual_information_loss, [SIG_I, SIG_T, MASK_N, MASK_N]),
    case("mutual_information_loss[num_bins=16]", GL, KL.mutual_information_loss, [SIG_I, SIG_T], kwargs={"num_bins": 16}),
    case("mutual_information_loss_2d", GL, KL.mutual_information_loss_2d, [IM2D_I, IM2D_T]),
    case("mutual_information_loss_2d[masks]", GL, KL.mutual_information_loss_2d, [IM2D_I, IM2D_T, MASK_HW, MASK_HW]),
    case("mutual_information_loss_3d", GL, KL.mutual_information_loss_3d, [VOL3D_I, VOL3D_T]),
    case("normalized_mutual_information_loss", GL, KL.normalized_mutual_information_loss, [SIG_I, SIG_T]),
    case("normalized_mutual_information_loss_2d", GL, KL.normalized_mutual_information_loss_2d, [IM2D_I, IM2D_T]),
    case("normalized_mutual_information_loss_3d", GL, KL.normalized_mutual_information_loss_3d, [VOL3D_I, VOL3D_T]),
    case("MILossFromRef", GL, KL.MILossFromRef(SIG_T), [SIG_I]),
    case("MILossFromRef[masks]", GL, KL.MILossFromRef(SIG_T, mask=MASK_N), [SIG_I, MASK_N]),
    case("MILossFromRef2D", GL, KL.MILossFromRef2D(IM2D_T), [IM2D_I]),
    case("MILossFromRef3D", GL, KL.MILossFromRef3D(VOL3D_T), [VOL3D_I]),
    case("NMILossFromRef", GL, KL.NMILossFromRef(SIG_T), [SIG_I]),
    case("NMILossFromRef2D", GL, KL.NMILossFromRef2D(IM2D_T), [IM2D_I]),
    case("NMILossFromRef3D", GL, KL.NMILossFromRef3D(VOL3D_T), [VOL3D_I]),
    case("one_hot", GL, Forward(KL.one_hot, lambda y: KL.one_hot(y, 4, device=y.device, dtype=torch.float32)), [LABELS],
         note="one_hot(labels, 4, device=labels.device, dtype=float32)"),
    case("one_hot[eps]", GL, Forward(KL.one_hot, lambda y: KL.one_hot(y, 4, device=y.device, dtype=torch.float32, eps=1e-6)),
         [LABELS]),
    # ================================ metrics ===============================================
    case("accuracy", GMT, KMET.accuracy, [randn(8, 5, seed=110), randint(0, 5, 8, seed=111)]),
    case("accuracy[topk=1,3]", GMT, KMET.accuracy, [randn(8, 5, seed=110), randint(0, 5, 8, seed=111)], kwargs={"topk": (1, 3)}),
    case("confusion_matrix", GMT, KMET.confusion_matrix, [LABELS.flatten(1).contiguous(), randint(0, 4, 2, 320, seed=112)],
         kwargs={"num_classes": 4}),
    case("confusion_matrix[normalized]", GMT, KMET.confusion_matrix, [LABELS.flatten(1).contiguous(), randint(0, 4, 2, 320, seed=112)],
         kwargs={"num_classes": 4, "normalized": True}),
    case("mean_iou", GMT, KMET.mean_iou, [LABELS.flatten(1).contiguous(), randint(0, 4, 2, 320, seed=112)], kwargs={"num_classes": 4}),
    case("mean_iou_bbox", GMT, KMET.mean_iou_bbox, [BOX_A, BOX_B]),
    case("mean_iou_bbox[xywh]", GMT, KMET.mean_iou_bbox,
         [torch.cat([BOX_A[:, :2], BOX_A[:, 2:] - BOX_A[:, :2]], -1).contiguous(),
          torch.cat([BOX_B[:, :2], BOX_B[:, 2:] - BOX_B[:, :2]], -1).contiguous()], kwargs={"box_format": "xywh"}),
    case("mean_average_precision", GMT, _MAP(),
         [derived(lambda a, b: torch.stack([a[:4], b[:4]]), BOX_A, BOX_B), torch.tensor([[1, 2, 1, 2], [2, 1, 1, 2]]), rand(2, 4, seed=114),
          derived(lambda a, b: torch.stack([a[:4] + 0.5, b[:4] - 0.5]), BOX_A, BOX_B), torch.tensor([[1, 2, 2, 2], [2, 1, 1, 1]])],
         note="two images, 4 predicted and 4 ground-truth boxes each, classes 1-2 (0 is background), some labels wrong"),
    case("aepe", GMT, KMET.aepe, [FLOW1, FLOW2]),
    case("aepe[reduction=none]", GMT, KMET.aepe, [FLOW1, FLOW2], kwargs={"reduction": "none"}),
    case("average_endpoint_error", GMT, KMET.average_endpoint_error, [FLOW1, FLOW2]),
    case("AEPE", GMT, KMET.AEPE(), [FLOW1, FLOW2]),
    case("metrics.psnr", GMT, KMET.psnr, [IMG, IMG2], kwargs={"max_val": 1.0}),
    case("metrics.ssim", GMT, KMET.ssim, [IMG, IMG2], kwargs={"window_size": 5}),
    case("metrics.ssim[window=11,padding=valid]", GMT, KMET.ssim, [BATCH, BATCH2], kwargs={"window_size": 11, "padding": "valid"}),
    case("metrics.SSIM", GMT, KMET.SSIM(5), [IMG, IMG2]),
    case("metrics.ssim3d", GMT, KMET.ssim3d, [VOL, VOL2], kwargs={"window_size": 3}),
    case("metrics.SSIM3D", GMT, KMET.SSIM3D(3), [VOL, VOL2]),
    case("angle_error_mat", GMT, KMET.angle_error_mat, [R1, R2]),
    case("angle_error_vec", GMT, KMET.angle_error_vec, [randn(6, 3, seed=115), randn(6, 3, seed=116)]),
    case("pose_errors", GMT, KMET.pose_errors, [P1, P2]),
    case("pose_errors[fold_translation=False]", GMT, KMET.pose_errors, [P1, P2], kwargs={"fold_translation": False}),
    case("translation_ate", GMT, KMET.translation_ate, [T1.squeeze(-1).contiguous(), T2.squeeze(-1).contiguous()]),
    case("auc_from_errors", GMT, KMET.auc_from_errors, [rand(50, seed=117, high=15.0)],
         tags=("no-tensor-output",), note="returns a dict of Python floats (threshold -> AUC): no tensor output"),
    case("kitti_d1_error", GMT, KMET.kitti_d1_error, [DISP_P, DISP_T]),
    case("kitti_d1_error[valid_mask]", GMT, ByName(KMET.kitti_d1_error, ["input", "target", "valid_mask"]),
         [DISP_P, DISP_T, DISP_MASK]),
    case("mean_absolute_disparity_error", GMT, KMET.mean_absolute_disparity_error, [DISP_P, DISP_T]),
    case("mean_absolute_disparity_error[valid_mask]", GMT, KMET.mean_absolute_disparity_error, [DISP_P, DISP_T, DISP_MASK]),
    case("mean_bad_pixel_error", GMT, KMET.mean_bad_pixel_error, [DISP_P, DISP_T]),
    case("mean_bad_pixel_error[valid_mask]", GMT, ByName(KMET.mean_bad_pixel_error, ["input", "target", "valid_mask"]),
         [DISP_P, DISP_T, DISP_MASK], kwargs={"threshold": 1.0}),
    case("root_mean_squared_disparity_error", GMT, KMET.root_mean_squared_disparity_error, [DISP_P, DISP_T]),
    case("root_mean_squared_disparity_error[valid_mask]", GMT, KMET.root_mean_squared_disparity_error,
         [DISP_P, DISP_T, DISP_MASK]),
    case("AverageMeter", GMT, _AverageMeter(), [torch.tensor(0.5), torch.tensor(0.8)],
         tags=("no-tensor-output",), note="two update() calls, then .avg (a Python float: no tensor output)"),
    # ================================ image =================================================
    case("Image[to_gray]", GI, _ImageMethod("to_gray"), [IMG[0]]),
    case("Image[to_gray,channels_last]", GI, _ImageMethod("to_gray", channels_last=True), [IMG[0].permute(1, 2, 0).contiguous()]),
    case("Image[to_rgb,from_bgr]", GI, _ImageMethod("to_rgb", ColorSpace.BGR), [IMG[0]]),
    case("Image[to_rgb,from_gray]", GI, _ImageMethod("to_rgb", ColorSpace.GRAY), [gray()[0]]),
    case("Image[to_bgr]", GI, _ImageMethod("to_bgr"), [IMG[0]]),
    case("Image[float,uint8]", GI, _ImageMethod("float"), [(IMG[0] * 255).to(torch.uint8)], note="uint8 image to float32"),
    case("Image[clone]", GI, _ImageMethod("clone"), [IMG[0]]),
    case("Image[data]", GI, _ImageMethod("data"), [IMG[0]], note="construct with layout checks, read .data"),
    case("draw_line", GI, KI.draw_line, [IMG[0].clone(), *_LINE, torch.tensor([1.0, 0.0, 0.0])]),
    case("draw_line[batch_of_lines]", GI, KI.draw_line,
         [IMG[0].clone(), *_LINES, torch.tensor([1.0, 0.0, 0.0])]),
    case("draw_rectangle", GI, KI.draw_rectangle, [BATCH.clone(), _RECTS.clone()]),
    case("draw_rectangle[fill,color]", GI, ByName(KI.draw_rectangle, ["image", "rectangle", "color"]),
         [BATCH.clone(), _RECTS.clone(), torch.tensor([0.0, 1.0, 0.0])],
         kwargs={"fill": True}),
    case("draw_rectangle[line_width=3]", GI, ByName(KI.draw_rectangle, ["image", "rectangle", "color"]),
         [BATCH.clone(), _RECTS.clone(), torch.tensor([0.0, 1.0, 0.0])],
         kwargs={"line_width": 3}),
    case("draw_point2d", GI, KI.draw_point2d, [IMG[0].clone(), torch.tensor([[3, 4], [20, 10], [39, 31]]), torch.tensor([1.0, 1.0, 0.0])]),
    case("draw_convex_polygon", GI, KI.draw_convex_polygon,
         [BATCH.clone(), torch.tensor([[[4.0, 4.0], [30.0, 6.0], [20.0, 28.0]], [[10.0, 2.0], [36.0, 12.0], [8.0, 25.0]]]),
          torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])]),
    case("make_grid", GI, KI.make_grid, [rand(4, 3, 16, 20, seed=118)]),
    case("make_grid[n_row=2,padding=0]", GI, KI.make_grid, [rand(4, 3, 16, 20, seed=118)], kwargs={"n_row": 2, "padding": 0}),
    case("perform_keep_shape_image", GI,
         Forward(KI.perform_keep_shape_image, KI.perform_keep_shape_image(lambda x: kornia.filters.box_blur(x, (3, 3)))),
         [rand(2, 2, 3, 16, 20, seed=119)], note="box_blur decorated, on a (2, 2, 3, H, W) input"),
    case("perform_keep_shape_video", GI,
         Forward(KI.perform_keep_shape_video, KI.perform_keep_shape_video(lambda x: kornia.enhance.equalize3d(x))),
         [rand(2, 2, 3, 4, 16, 16, seed=120)], note="equalize3d decorated, on a (2, 2, 3, D, H, W) input"),
    case("image_to_tensor", GI, KI.image_to_tensor, [IMG[0].permute(1, 2, 0).contiguous()], tags=("numpy-input",),
         note=_numpy_only("image_to_tensor")),
    case("ImageToTensor", GI, KI.ImageToTensor(), [IMG[0].permute(1, 2, 0).contiguous()], tags=("numpy-input",),
         note=_numpy_only("ImageToTensor")),
    case("image_list_to_tensor", GI, Forward(KI.image_list_to_tensor, lambda a, b: KI.image_list_to_tensor([a, b])),
         [IMG[0].permute(1, 2, 0).contiguous(), img(121)[0].permute(1, 2, 0).contiguous()],
         note=_LIST_OF_TENSORS),
    case("tensor_to_image", GI, KI.tensor_to_image, [IMG], tags=("no-tensor-output",), note="returns a numpy array: no tensor output"),
    case("image_to_string", GI, KI.image_to_string, [IMG[0]], kwargs={"max_width": 32}, tags=("no-tensor-output",),
         note="renders the image as terminal text (a str): no tensor output"),
    case("print_image", GI, KI.print_image, [IMG[0]], kwargs={"max_width": 32}, tags=("no-tensor-output",),
         note="prints the image to the terminal and returns None: no tensor output"),
    # ================================ core ==================================================
    case("core.ImageModule", GC, _ToyImageModule(), [IMG],
         note="a minimal ImageModule subclass (forward = rgb_to_grayscale): surveys its __call__ conversions"),
    case("core.ImageModule[disable_features]", GC, _features_off(_ToyImageModule()),
         [IMG]),
    case("core.ImageSequential", GC, KCORE.ImageSequential(kornia.color.RgbToGrayscale(), kornia.filters.GaussianBlur2d((5, 5), (1.5, 1.5))),
         [IMG], note="RgbToGrayscale then GaussianBlur2d"),
    case("core.TensorWrapper", GC, _TensorWrapperOps(), [IMG], note="(TensorWrapper(x) * 2 + 1) / 3"),
    case("core.eye_like", GC, Forward(KCORE.eye_like, lambda x: KCORE.eye_like(3, x)), [BATCH]),
    case("core.vec_like", GC, Forward(KCORE.vec_like, lambda x: KCORE.vec_like(3, x)), [BATCH]),
    _skip_case("check_safetensors", GC, KCORE.check_safetensors, "validates a .safetensors file on disk; no tensor input"),
    _skip_case("load_safetensors", GC, KCORE.load_safetensors, "reads a .safetensors file from disk"),
    _skip_case("download_file_from_url", GC, KCORE.download_file_from_url, "downloads a file (network)"),
    _skip_case("download_hf_file", GC, KCORE.download_hf_file, "downloads a file from the Hugging Face hub (network)"),
    _skip_case("hf_url", GC, KCORE.hf_url, "builds a URL string; no tensor computation"),
    _skip_case("load_state_dict_from_url", GC, KCORE.load_state_dict_from_url, "downloads weights (network)"),
    # ================================ utils (deprecated shims) ================================
    case("utils.create_meshgrid", GU, Forward(KU.create_meshgrid, lambda x: KU.create_meshgrid(32, 40, device=x.device, dtype=x.dtype)),
         [IMG], note="deprecated shim of geometry.create_meshgrid; built for the input's dtype/device"),
    case("utils.create_meshgrid[pixels]", GU, Forward(KU.create_meshgrid,
         lambda x: KU.create_meshgrid(32, 40, normalized_coordinates=False, device=x.device, dtype=x.dtype)), [IMG]),
    case("utils.create_meshgrid3d", GU, Forward(KU.create_meshgrid3d, lambda x: KU.create_meshgrid3d(8, 16, 16, device=x.device, dtype=x.dtype)),
         [VOL], note="deprecated shim of geometry.create_meshgrid3d; built for the input's dtype/device"),
    case("utils.draw_line", GU, KU.draw_line, [IMG[0].clone(), *_LINE, torch.tensor([1.0, 0.0, 0.0])]),
    case("utils.draw_rectangle", GU, KU.draw_rectangle, [BATCH.clone(), _RECTS.clone()]),
    case("utils.draw_point2d", GU, KU.draw_point2d, [IMG[0].clone(), torch.tensor([[3, 4], [20, 10], [39, 31]]), torch.tensor([1.0, 1.0, 0.0])]),
    case("utils.draw_convex_polygon", GU, KU.draw_convex_polygon,
         [BATCH.clone(), torch.tensor([[[4.0, 4.0], [30.0, 6.0], [20.0, 28.0]], [[10.0, 2.0], [36.0, 12.0], [8.0, 25.0]]]),
          torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])]),
    case("utils.eye_like", GU, Forward(KU.eye_like, lambda x: KU.eye_like(3, x)), [BATCH]),
    case("utils.vec_like", GU, Forward(KU.vec_like, lambda x: KU.vec_like(3, x)), [BATCH]),
    case("utils.one_hot", GU, Forward(KU.one_hot, lambda y: KU.one_hot(y, 4, device=y.device, dtype=torch.float32)), [LABELS]),
    case("utils.safe_solve_with_mask", GU, KU.safe_solve_with_mask,
         [randn(3, 3, 2, seed=122), (torch.eye(3) * 2 + randn(3, 3, 3, seed=123, scale=0.2)).contiguous()]),
    case("utils.safe_inverse_with_mask", GU, KU.safe_inverse_with_mask, [(torch.eye(3) * 2 + randn(3, 3, 3, seed=124, scale=0.2)).contiguous()]),
    case("utils.torch_meshgrid", GU, Forward(KU.torch_meshgrid, lambda a, b: KU.torch_meshgrid([a, b], indexing="ij")),
         [torch.linspace(0, 1, 5), torch.linspace(0, 1, 7)]),
    case("utils.batched_forward", GU, Forward(KU.batched_forward,
         lambda x: KU.batched_forward(kornia.filters.Sobel(), x, x.device, batch_size=2)), [rand(5, 1, 16, 20, seed=125)],
         note="Sobel over 5 images in chunks of 2"),
    case("utils.is_mps_tensor_safe", GU, KU.is_mps_tensor_safe, [IMG], tags=("no-tensor-output",), note="returns a bool: no tensor output"),
    case("utils.image_to_tensor", GU, KU.image_to_tensor, [IMG[0].permute(1, 2, 0).contiguous()], tags=("numpy-input",),
         note=_numpy_only("utils.image_to_tensor")),
    case("utils.ImageToTensor", GU, KU.ImageToTensor(), [IMG[0].permute(1, 2, 0).contiguous()], tags=("numpy-input",),
         note=_numpy_only("utils.ImageToTensor")),
    case("utils.image_list_to_tensor", GU, Forward(KU.image_list_to_tensor, lambda a, b: KU.image_list_to_tensor([a, b])),
         [IMG[0].permute(1, 2, 0).contiguous(), img(121)[0].permute(1, 2, 0).contiguous()],
         note=_LIST_OF_TENSORS),
    case("utils.tensor_to_image", GU, KU.tensor_to_image, [IMG], tags=("no-tensor-output",), note="returns a numpy array: no tensor output"),
    case("utils.image_to_string", GU, KU.image_to_string, [IMG[0]], kwargs={"max_width": 32}, tags=("no-tensor-output",),
         note="renders the image as terminal text (a str): no tensor output"),
    case("utils.print_image", GU, KU.print_image, [IMG[0]], kwargs={"max_width": 32}, tags=("no-tensor-output",),
         note="prints the image to the terminal and returns None: no tensor output"),
    _skip_case("utils.load_pointcloud_ply", GU, KU.load_pointcloud_ply, "reads a .ply file from disk"),
    _skip_case("utils.save_pointcloud_ply", GU, KU.save_pointcloud_ply, "writes a .ply file to disk"),
    _skip_case("utils.get_sample_images", GU, KU.get_sample_images, "downloads sample images (network)"),
    _skip_case("utils.get_cuda_device_if_available", GU, KU.get_cuda_device_if_available, "queries the machine for a device; no tensor input"),
    _skip_case("utils.get_mps_device_if_available", GU, KU.get_mps_device_if_available, "queries the machine for a device; no tensor input"),
    _skip_case("utils.get_cuda_or_mps_device_if_available", GU, KU.get_cuda_or_mps_device_if_available,
               "queries the machine for a device; no tensor input"),
    _skip_case("utils.is_autocast_enabled", GU, KU.is_autocast_enabled, "reads torch's autocast state; no tensor input"),
    _skip_case("utils.xla_is_available", GU, KU.xla_is_available, "checks whether torch_xla is installed; no tensor input"),
    _skip_case("utils.map_location_to_cpu", GU, KU.map_location_to_cpu, "a torch.load storage hook; not a tensor operator"),
    case("utils.dataclass_to_dict", GU, Forward(KU.dataclass_to_dict, lambda x: KU.dataclass_to_dict(_Pair(x, x * 2.0))), [IMG],
         note="a dataclass of two tensors to a dict (fields deep-copied)"),
    case("utils.dict_to_dataclass", GU, Forward(KU.dict_to_dataclass, lambda x: KU.dict_to_dataclass({"a": x, "b": x + 1.0}, _Pair)),
         [IMG], note="a dict of two tensors to a dataclass"),
    _skip_case("utils.CachedDownloader", GU, KONNX.download.CachedDownloader, "downloads and caches files (network)"),
    # ================================ io ====================================================
    _skip_case("load_image", GIO, KIO.load_image, "reads an image file from disk (kornia_rs decoder)"),
    _skip_case("write_image", GIO, KIO.write_image, "writes an image file to disk (kornia_rs encoder)"),
    _skip_case("get_sample_images", GIO, KIO.get_sample_images, "downloads sample images (network)"),
    # ================================ onnx ==================================================
    _skip_case("ONNXSequential", GOX, KONNX.ONNXSequential,
               "chains ONNX models (.onnx files or hub names) and runs them in ONNX Runtime on numpy; not a torch operator"),
    _skip_case("ONNXModule", GOX, KONNX.ONNXModule,
               "wraps one ONNX model (.onnx file or hub name) in an ONNX Runtime session; not a torch operator"),
    _skip_case("ONNXLoader", GOX, KONNX.ONNXLoader, "loads .onnx files from disk or the hub; not a tensor operator"),
    _skip_case("onnx.load", GOX, KONNX.load, "loads an .onnx model from disk or the hub; not a tensor operator"),
    _skip_case("add_metadata", GOX, KONNX.add_metadata, "edits an onnx.ModelProto's metadata; not a tensor operator"),
    _skip_case("io_name_conversion", GOX, KONNX.io_name_conversion, "renames an onnx.ModelProto's inputs/outputs; not a tensor operator"),
    # ================================ sensors ===============================================
    *CAM_CASES,
]
