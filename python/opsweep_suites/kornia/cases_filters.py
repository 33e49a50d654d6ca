"""kornia.filters: blurs, edges, kernels and the filtering API, each function with its nn.Module twin.

Every operator has its plain form first (the documented defaults, with the smallest realistic required
arguments), then the variants that change the graph: border modes, separable vs. full kernels, sigma or
angle given as a tensor (a graph input, per sample) instead of Python numbers, padding / behaviour modes.

Kernel builders (get_*_kernel*) that accept a tensor (sigma, angle, direction) take it as the graph input.
Builders that take only Python numbers are probed the way a model uses them: called inside forward with
the dtype and device of the input image, returning the kernel (the image supplies nothing else).

Not surveyed:
    (none without a case)
Skipped (a case exists with skip=reason):
    kornia.filters.StableDiffusionDissolving  needs the Stable Diffusion weights from the Hugging Face hub
                                              (diffusers download); nothing to probe offline.
"""

from __future__ import annotations

import torch
from torch import nn

import kornia.filters as KF

from opsweep import case
from opsweep_suites.kornia._common import ByName, batch, detector_image, gray, img, rand, randn, volume

GB = "filters.blur"
GE = "filters.edges"
GK = "filters.kernels"
GO = "filters.other"

NOT_SURVEYED: dict = {}


class _BuildKernel(nn.Module):
    """Calls a kernel builder that takes only Python numbers inside forward, for the dtype and device of
    the input (as a model does) and returns the kernel. The input supplies dtype/device only."""

    def __init__(self, fn, *args, pass_dtype=True, **kwargs):
        super().__init__()
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.pass_dtype = pass_dtype
        self.__opsweep_target__ = fn

    def forward(self, x):
        if self.pass_dtype:
            return self.fn(*self.args, **self.kwargs, device=x.device, dtype=x.dtype)
        return self.fn(*self.args, **self.kwargs).to(x)


class _EdgeAwareWithEps(nn.Module):
    """EdgeAwareBlurPool2D.forward with its optional `epsilon` argument."""

    __opsweep_target__ = KF.EdgeAwareBlurPool2D

    def __init__(self, epsilon: float):
        super().__init__()
        self.m = KF.EdgeAwareBlurPool2D(kernel_size=3)
        self.epsilon = epsilon

    def forward(self, x):
        return self.m(x, epsilon=self.epsilon)


IMG = img()
BATCH = batch()
VOL = volume()
DET = detector_image()
SIGMA_B = torch.tensor([[1.0, 1.5], [2.0, 2.5]])  # per-sample (sigma_y, sigma_x) for a batch of 2
K3 = (torch.ones(1, 3, 3) / 9.0 + randn(1, 3, 3, seed=30, scale=0.02)).contiguous()  # a 3x3 kernel, (1, 3, 3)
K5 = KF.get_gaussian_kernel2d((5, 5), (1.2, 1.2)).contiguous()  # (1, 5, 5)
K35 = randn(1, 3, 5, seed=31).contiguous()  # non-square, asymmetric
K3D = (torch.ones(1, 3, 3, 3) / 27.0 + randn(1, 3, 3, 3, seed=32, scale=0.02)).contiguous()
KX = KF.get_gaussian_kernel1d(5, 1.5).contiguous()  # (1, 5)
KY = KF.get_gaussian_kernel1d(3, 0.8).contiguous()  # (1, 3)

CASES = [
    # ============================== blur ====================================================
    case("box_blur", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (3, 3)}),
    case("box_blur[5x7]", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (5, 7)}),
    case("box_blur[separable=False]", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (3, 3), "separable": False}),
    case("box_blur[border=replicate]", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (3, 3), "border_type": "replicate"}),
    case("box_blur[border=constant]", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (3, 3), "border_type": "constant"}),
    case("box_blur[border=circular]", GB, KF.box_blur, [IMG], kwargs={"kernel_size": (3, 3), "border_type": "circular"}),
    case("BoxBlur", GB, KF.BoxBlur((3, 3)), [IMG]),
    case("BoxBlur[separable=False]", GB, KF.BoxBlur((5, 5), separable=False), [IMG]),
    case("gaussian_blur2d", GB, KF.gaussian_blur2d, [IMG], kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5)}),
    case("gaussian_blur2d[sigma=3,9x9]", GB, KF.gaussian_blur2d, [IMG], kwargs={"kernel_size": (9, 9), "sigma": (3.0, 3.0)}),
    case("gaussian_blur2d[anisotropic]", GB, KF.gaussian_blur2d, [IMG], kwargs={"kernel_size": (3, 7), "sigma": (0.8, 2.0)}),
    case("gaussian_blur2d[separable=False]", GB, KF.gaussian_blur2d, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5), "separable": False}),
    case("gaussian_blur2d[border=replicate]", GB, KF.gaussian_blur2d, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5), "border_type": "replicate"}),
    case("gaussian_blur2d[border=constant]", GB, KF.gaussian_blur2d, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5), "border_type": "constant"}),
    case("gaussian_blur2d[border=circular]", GB, KF.gaussian_blur2d, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5), "border_type": "circular"}),
    case("gaussian_blur2d[sigma=tensor]", GB, ByName(KF.gaussian_blur2d, ["input", "sigma"]), [BATCH, SIGMA_B],
         kwargs={"kernel_size": (5, 5)}, note="per-sample sigma (B, 2) as a graph input"),
    case("gaussian_blur2d[sigma=tensor,separable=False]", GB, ByName(KF.gaussian_blur2d, ["input", "sigma"]),
         [BATCH, SIGMA_B], kwargs={"kernel_size": (5, 5), "separable": False}),
    case("GaussianBlur2d", GB, KF.GaussianBlur2d((5, 5), (1.5, 1.5)), [IMG]),
    case("GaussianBlur2d[sigma=tensor]", GB, KF.GaussianBlur2d((5, 5), torch.tensor([[1.5, 1.5]])), [IMG],
         note="sigma stored as a tensor in the module"),
    case("GaussianBlur2d[separable=False]", GB, KF.GaussianBlur2d((5, 5), (1.5, 1.5), separable=False), [IMG]),
    case("median_blur", GB, KF.median_blur, [IMG], kwargs={"kernel_size": (3, 3)}),
    case("median_blur[5x5]", GB, KF.median_blur, [IMG], kwargs={"kernel_size": (5, 5)}),
    case("median_blur[border=replicate]", GB, KF.median_blur, [IMG], kwargs={"kernel_size": (3, 3), "border_type": "replicate"}),
    case("MedianBlur", GB, KF.MedianBlur((3, 3)), [IMG]),
    case("motion_blur", GB, KF.motion_blur, [IMG], kwargs={"kernel_size": 5, "angle": 35.0, "direction": 0.5}),
    case("motion_blur[mode=bilinear]", GB, KF.motion_blur, [IMG],
         kwargs={"kernel_size": 5, "angle": 35.0, "direction": 0.5, "mode": "bilinear"}),
    case("motion_blur[border=constant]", GB, KF.motion_blur, [IMG],
         kwargs={"kernel_size": 5, "angle": 35.0, "direction": 0.5, "border_type": "constant"}),
    case("motion_blur[angle,direction=tensor]", GB, ByName(KF.motion_blur, ["input", "angle", "direction"]),
         [BATCH, torch.tensor([30.0, 120.0]), torch.tensor([0.5, -0.3])], kwargs={"kernel_size": 5},
         note="per-sample angle and direction as graph inputs"),
    case("MotionBlur", GB, KF.MotionBlur(5, 35.0, 0.5), [IMG]),
    case("motion_blur3d", GB, KF.motion_blur3d, [VOL], kwargs={"kernel_size": 3, "angle": (20.0, 30.0, 40.0), "direction": 0.5}),
    case("motion_blur3d[mode=bilinear]", GB, KF.motion_blur3d, [VOL],
         kwargs={"kernel_size": 3, "angle": (20.0, 30.0, 40.0), "direction": 0.5, "mode": "bilinear"}),
    case("motion_blur3d[angle,direction=tensor]", GB, ByName(KF.motion_blur3d, ["input", "angle", "direction"]),
         [VOL, torch.tensor([[20.0, 30.0, 40.0]]), torch.tensor([0.5])], kwargs={"kernel_size": 3}),
    case("MotionBlur3D", GB, KF.MotionBlur3D(3, (20.0, 30.0, 40.0), 0.5), [VOL]),
    case("blur_pool2d", GB, KF.blur_pool2d, [IMG], kwargs={"kernel_size": 3}),
    case("blur_pool2d[k=5,stride=1]", GB, KF.blur_pool2d, [IMG], kwargs={"kernel_size": 5, "stride": 1}),
    case("BlurPool2D", GB, KF.BlurPool2D(3), [IMG]),
    case("max_blur_pool2d", GB, KF.max_blur_pool2d, [IMG], kwargs={"kernel_size": 3}),
    case("max_blur_pool2d[ceil_mode=True]", GB, KF.max_blur_pool2d, [rand(1, 3, 31, 39, seed=33)],
         kwargs={"kernel_size": 3, "ceil_mode": True}, note="odd-sized image so ceil_mode matters"),
    case("MaxBlurPool2D", GB, KF.MaxBlurPool2D(3), [IMG]),
    case("edge_aware_blur_pool2d", GB, KF.edge_aware_blur_pool2d, [IMG], kwargs={"kernel_size": 3}),
    case("edge_aware_blur_pool2d[k=5,threshold=2]", GB, KF.edge_aware_blur_pool2d, [DET],
         kwargs={"kernel_size": 5, "edge_threshold": 2.0, "edge_dilation_kernel_size": 5}),
    case("EdgeAwareBlurPool2D", GB, KF.EdgeAwareBlurPool2D(3), [IMG]),
    case("EdgeAwareBlurPool2D[epsilon]", GB, _EdgeAwareWithEps(1e-4), [IMG], note="forward(input, epsilon=1e-4)"),
    case("bilateral_blur", GB, KF.bilateral_blur, [IMG], kwargs={"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5)}),
    case("bilateral_blur[color_distance=l2]", GB, KF.bilateral_blur, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5), "color_distance_type": "l2"}),
    case("bilateral_blur[border=constant]", GB, KF.bilateral_blur, [IMG],
         kwargs={"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5), "border_type": "constant"}),
    case("bilateral_blur[sigma=tensor]", GB, ByName(KF.bilateral_blur, ["input", "sigma_color", "sigma_space"]),
         [BATCH, torch.tensor([0.1, 0.2]), SIGMA_B], kwargs={"kernel_size": (5, 5)},
         note="per-sample sigma_color (B,) and sigma_space (B, 2) as graph inputs"),
    case("BilateralBlur", GB, KF.BilateralBlur((5, 5), 0.1, (1.5, 1.5)), [IMG]),
    case("joint_bilateral_blur", GB, KF.joint_bilateral_blur, [IMG, img(34)],
         kwargs={"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5)}),
    case("joint_bilateral_blur[color_distance=l2]", GB, KF.joint_bilateral_blur, [IMG, img(34)],
         kwargs={"kernel_size": (5, 5), "sigma_color": 0.1, "sigma_space": (1.5, 1.5), "color_distance_type": "l2"}),
    case("JointBilateralBlur", GB, KF.JointBilateralBlur((5, 5), 0.1, (1.5, 1.5)), [IMG, img(34)]),
    case("guided_blur", GB, KF.guided_blur, [img(35), IMG], kwargs={"kernel_size": 5, "eps": 0.01}),
    case("guided_blur[gray_guidance]", GB, KF.guided_blur, [gray(), IMG], kwargs={"kernel_size": 5, "eps": 0.01},
         note="1-channel guidance for a 3-channel input"),
    case("guided_blur[subsample=2]", GB, KF.guided_blur, [img(35), IMG], kwargs={"kernel_size": 5, "eps": 0.01, "subsample": 2}),
    case("guided_blur[separable=True]", GB, KF.guided_blur, [img(35), IMG], kwargs={"kernel_size": 5, "eps": 0.01, "separable": True}),
    case("guided_blur[eps=tensor]", GB, ByName(KF.guided_blur, ["guidance", "input", "eps"]),
         [batch(36), BATCH, torch.tensor([0.01, 0.05])], kwargs={"kernel_size": 5}, note="per-sample eps as a graph input"),
    case("GuidedBlur", GB, KF.GuidedBlur(5, 0.01), [img(35), IMG]),
    case("unsharp_mask", GB, KF.unsharp_mask, [IMG], kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5)}),
    case("unsharp_mask[sigma=tensor]", GB, ByName(KF.unsharp_mask, ["input", "sigma"]), [BATCH, SIGMA_B],
         kwargs={"kernel_size": (5, 5)}),
    case("UnsharpMask", GB, KF.UnsharpMask((5, 5), (1.5, 1.5)), [IMG]),
    # ============================== edges ===================================================
    case("sobel", GE, KF.sobel, [IMG]),
    case("sobel[normalized=False]", GE, KF.sobel, [IMG], kwargs={"normalized": False}),
    case("Sobel", GE, KF.Sobel(), [IMG]),
    case("spatial_gradient", GE, KF.spatial_gradient, [IMG]),
    case("spatial_gradient[mode=diff]", GE, KF.spatial_gradient, [IMG], kwargs={"mode": "diff"}),
    case("spatial_gradient[order=2]", GE, KF.spatial_gradient, [IMG], kwargs={"order": 2}),
    case("spatial_gradient[normalized=False]", GE, KF.spatial_gradient, [IMG], kwargs={"normalized": False}),
    case("SpatialGradient", GE, KF.SpatialGradient(), [IMG]),
    case("SpatialGradient[mode=diff,order=2]", GE, KF.SpatialGradient(mode="diff", order=2), [IMG]),
    case("spatial_gradient3d", GE, KF.spatial_gradient3d, [VOL]),
    case("spatial_gradient3d[order=2]", GE, KF.spatial_gradient3d, [VOL], kwargs={"order": 2}),
    case("SpatialGradient3d", GE, KF.SpatialGradient3d(), [VOL]),
    case("laplacian", GE, KF.laplacian, [IMG], kwargs={"kernel_size": 3}),
    case("laplacian[k=5]", GE, KF.laplacian, [IMG], kwargs={"kernel_size": 5}),
    case("laplacian[normalized=False]", GE, KF.laplacian, [IMG], kwargs={"kernel_size": 3, "normalized": False}),
    case("laplacian[border=replicate]", GE, KF.laplacian, [IMG], kwargs={"kernel_size": 3, "border_type": "replicate"}),
    case("Laplacian", GE, KF.Laplacian(3), [IMG]),
    case("canny", GE, KF.canny, [DET]),
    case("canny[rgb]", GE, KF.canny, [IMG], note="3-channel input, converted to gray inside"),
    case("canny[hysteresis=False]", GE, KF.canny, [DET], kwargs={"hysteresis": False}),
    case("canny[thresholds=0.05,0.3]", GE, KF.canny, [DET], kwargs={"low_threshold": 0.05, "high_threshold": 0.3}),
    case("canny[batch]", GE, KF.canny, [BATCH]),
    case("Canny", GE, KF.Canny(), [DET]),
    # ============================== filtering API =============================================
    case("filter2d", GO, KF.filter2d, [IMG, K3]),
    case("filter2d[5x5]", GO, KF.filter2d, [IMG, K5]),
    case("filter2d[3x5]", GO, KF.filter2d, [IMG, K35], note="non-square, asymmetric kernel"),
    case("filter2d[normalized=True]", GO, KF.filter2d, [IMG, K3], kwargs={"normalized": True}),
    case("filter2d[padding=valid]", GO, KF.filter2d, [IMG, K3], kwargs={"padding": "valid"}),
    case("filter2d[behaviour=conv]", GO, KF.filter2d, [IMG, K35], kwargs={"behaviour": "conv"}),
    case("filter2d[border=replicate]", GO, KF.filter2d, [IMG, K3], kwargs={"border_type": "replicate"}),
    case("filter2d[border=constant]", GO, KF.filter2d, [IMG, K3], kwargs={"border_type": "constant"}),
    case("filter2d[border=circular]", GO, KF.filter2d, [IMG, K3], kwargs={"border_type": "circular"}),
    case("filter2d[batch_kernels]", GO, KF.filter2d, [BATCH, randn(2, 3, 3, seed=37)], note="one kernel per sample"),
    case("filter2d_separable", GO, KF.filter2d_separable, [IMG, KX, KY]),
    case("filter2d_separable[padding=valid]", GO, KF.filter2d_separable, [IMG, KX, KY], kwargs={"padding": "valid"}),
    case("filter2d_separable[border=replicate]", GO, KF.filter2d_separable, [IMG, KX, KY], kwargs={"border_type": "replicate"}),
    case("filter3d", GO, KF.filter3d, [VOL, K3D]),
    case("filter3d[normalized=True]", GO, KF.filter3d, [VOL, K3D], kwargs={"normalized": True}),
    case("filter3d[border=reflect]", GO, KF.filter3d, [VOL, K3D], kwargs={"border_type": "reflect"}),
    case("filter3d[behaviour=conv]", GO, KF.filter3d, [VOL, randn(1, 3, 3, 3, seed=38)], kwargs={"behaviour": "conv"}),
    case("fft_conv", GO, KF.fft_conv, [IMG, K5]),
    case("fft_conv[3x5,behaviour=conv]", GO, KF.fft_conv, [IMG, K35], kwargs={"behaviour": "conv"}),
    case("fft_conv[padding=valid]", GO, KF.fft_conv, [IMG, K5], kwargs={"padding": "valid"}),
    case("convolve2d", GO, KF.convolve2d, [IMG, K35]),
    case("convolve2d[padding=valid]", GO, KF.convolve2d, [IMG, K35], kwargs={"padding": "valid"}),
    case("correlate2d", GO, KF.correlate2d, [IMG, K35]),
    case("correlate2d[border=constant]", GO, KF.correlate2d, [IMG, K35], kwargs={"border_type": "constant"}),
    case("convolve3d", GO, KF.convolve3d, [VOL, randn(1, 3, 3, 3, seed=39)]),
    case("correlate3d", GO, KF.correlate3d, [VOL, randn(1, 3, 3, 3, seed=39)]),
    case("in_range", GO, KF.in_range, [IMG], kwargs={"lower": (0.2, 0.3, 0.1), "upper": (0.8, 0.9, 0.7)}),
    case("in_range[return_mask=True]", GO, KF.in_range, [IMG],
         kwargs={"lower": (0.2, 0.3, 0.1), "upper": (0.8, 0.9, 0.7), "return_mask": True}),
    case("in_range[bounds=tensor]", GO, KF.in_range, [BATCH, rand(2, 3, 1, 1, seed=40, high=0.4), rand(2, 3, 1, 1, seed=41, low=0.6)],
         note="per-sample, per-channel bounds (B, C, 1, 1) as graph inputs"),
    case("InRange", GO, KF.InRange((0.2, 0.3, 0.1), (0.8, 0.9, 0.7)), [IMG]),
    case("InRange[return_mask=True]", GO, KF.InRange((0.2, 0.3, 0.1), (0.8, 0.9, 0.7), return_mask=True), [IMG]),
    case("otsu_threshold", GO, KF.otsu_threshold, [DET]),
    case("otsu_threshold[return_mask=True]", GO, KF.otsu_threshold, [DET], kwargs={"return_mask": True}),
    case("otsu_threshold[nbins=64,batch]", GO, KF.otsu_threshold, [BATCH], kwargs={"nbins": 64}),
    case("otsu_threshold[slow_and_differentiable]", GO, KF.otsu_threshold, [DET],
         kwargs={"slow_and_differentiable": True, "nbins": 64}),
    case("OtsuThreshold", GO, KF.OtsuThreshold(), [DET]),
    case("StableDiffusionDissolving", GO, KF.StableDiffusionDissolving, [IMG],
         skip="needs the Stable Diffusion weights from the Hugging Face hub (diffusers download); nothing to probe offline"),
    # ============================== kernels ===================================================
    case("gaussian", GK, ByName(KF.gaussian, ["sigma"]), [torch.tensor([[1.5], [2.0]])], kwargs={"window_size": 5},
         note="per-sample sigma (B, 1) as the graph input"),
    case("gaussian[mean=tensor]", GK, ByName(KF.gaussian, ["sigma", "mean"]),
         [torch.tensor([[1.5], [2.0]]), torch.tensor([[0.5], [-0.5]])], kwargs={"window_size": 5}),
    case("get_gaussian_kernel1d", GK, ByName(KF.get_gaussian_kernel1d, ["sigma"]), [torch.tensor([[1.5], [2.0]])],
         kwargs={"kernel_size": 5}),
    case("get_gaussian_kernel1d[force_even]", GK, ByName(KF.get_gaussian_kernel1d, ["sigma"]), [torch.tensor([[1.5]])],
         kwargs={"kernel_size": 4, "force_even": True}),
    case("get_gaussian_erf_kernel1d", GK, ByName(KF.get_gaussian_erf_kernel1d, ["sigma"]), [torch.tensor([[1.5], [2.0]])],
         kwargs={"kernel_size": 5}),
    case("get_gaussian_discrete_kernel1d", GK, ByName(KF.get_gaussian_discrete_kernel1d, ["sigma"]),
         [torch.tensor([[1.5], [2.0]])], kwargs={"kernel_size": 5}),
    case("get_gaussian_kernel2d", GK, ByName(KF.get_gaussian_kernel2d, ["sigma"]), [SIGMA_B], kwargs={"kernel_size": (5, 5)}),
    case("get_gaussian_kernel2d[3x7]", GK, ByName(KF.get_gaussian_kernel2d, ["sigma"]), [SIGMA_B], kwargs={"kernel_size": (3, 7)}),
    case("get_gaussian_kernel3d", GK, ByName(KF.get_gaussian_kernel3d, ["sigma"]), [torch.tensor([[1.0, 1.5, 1.5]])],
         kwargs={"kernel_size": (3, 5, 5)}),
    case("get_motion_kernel2d", GK, ByName(KF.get_motion_kernel2d, ["angle", "direction"]),
         [torch.tensor([30.0, 120.0]), torch.tensor([0.5, -0.3])], kwargs={"kernel_size": 5}),
    case("get_motion_kernel2d[mode=bilinear]", GK, ByName(KF.get_motion_kernel2d, ["angle", "direction"]),
         [torch.tensor([30.0, 120.0]), torch.tensor([0.5, -0.3])], kwargs={"kernel_size": 5, "mode": "bilinear"}),
    case("get_motion_kernel3d", GK, ByName(KF.get_motion_kernel3d, ["angle", "direction"]),
         [torch.tensor([[20.0, 30.0, 40.0]]), torch.tensor([0.5])], kwargs={"kernel_size": 3}),
    case("get_box_kernel1d", GK, _BuildKernel(KF.get_box_kernel1d, 5), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_box_kernel2d", GK, _BuildKernel(KF.get_box_kernel2d, (3, 5)), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_binary_kernel2d", GK, _BuildKernel(KF.get_binary_kernel2d, (3, 3)), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_diff_kernel2d", GK, _BuildKernel(KF.get_diff_kernel2d), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_sobel_kernel2d", GK, _BuildKernel(KF.get_sobel_kernel2d), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_hanning_kernel1d", GK, _BuildKernel(KF.get_hanning_kernel1d, 7), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_hanning_kernel2d", GK, _BuildKernel(KF.get_hanning_kernel2d, (5, 7)), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_laplacian_kernel1d", GK, _BuildKernel(KF.get_laplacian_kernel1d, 5), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_laplacian_kernel2d", GK, _BuildKernel(KF.get_laplacian_kernel2d, 5), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("laplacian_1d", GK, _BuildKernel(KF.laplacian_1d, 5), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_spatial_gradient_kernel2d", GK, _BuildKernel(KF.get_spatial_gradient_kernel2d, "sobel", 1), [IMG],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_spatial_gradient_kernel2d[diff,order=2]", GK, _BuildKernel(KF.get_spatial_gradient_kernel2d, "diff", 2), [IMG]),
    case("get_spatial_gradient_kernel3d", GK, _BuildKernel(KF.get_spatial_gradient_kernel3d, "diff", 1), [VOL],
         note="no tensor argument: built in forward for the input's dtype/device"),
    case("get_spatial_gradient_kernel3d[order=2]", GK, _BuildKernel(KF.get_spatial_gradient_kernel3d, "diff", 2), [VOL]),
]
