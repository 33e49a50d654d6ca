"""The quick preset: a representative subset of the bundled kornia survey that runs in minutes.

It takes its cases, unchanged, from the full registries beside it (same names, inputs and
fingerprints), so a quick run's results are valid records of the full survey. The selection spans
the packages and the outcomes a user meets: plain conversions and filters that pass everywhere, a
deterministic augmentation with its [random] twin, geometry with a missing ONNX lowering
(`find_fundamental`, `fit_plane`), an onnxruntime rejection (`solve_cubic`), data-dependent Python
(`equalize_clahe`), losses and metrics. Only the light registries are imported, to keep start-up short.
"""

from __future__ import annotations

import os

from opsweep.case import RegistryError
from opsweep.registry import load_registry_file

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SOURCES = [
    "cases_color.py",
    "cases_filters.py",
    "cases_enhance.py",
    "cases_geometry_transform.py",
    "cases_geometry_camera.py",
    "cases_geometry_misc.py",
    "cases_augmentation.py",
    "cases_misc.py",
]
QUICK = [
    "rgb_to_grayscale",
    "RgbToGrayscale",
    "rgb_to_hsv",
    "gaussian_blur2d",
    "median_blur",
    "sobel",
    "canny",
    "adjust_brightness",
    "equalize",
    "equalize_clahe",
    "opening",
    "histogram",
    "warp_perspective",
    "warp_affine",
    "resize",
    "rotate",
    "undistort_image",
    "rotation_matrix_to_quaternion",
    "find_homography_dlt",
    "find_fundamental",
    "fit_plane",
    "solve_cubic",
    "depth_to_3d",
    "PinholeCamera.project",
    "So3.exp",
    "spatial_softmax2d",
    "RandomAffine",
    "RandomAffine[random]",
    "ColorJiggle",
    "ColorJiggle[random]",
    "AugmentationSequential[mask]",
    "ssim_loss",
    "focal_loss",
    "total_variation",
    "metrics.psnr",
]


def _select():
    by_name = {}
    for source in _SOURCES:
        for c in load_registry_file(os.path.join(_HERE, source)):
            by_name[c.name] = c
    missing = [n for n in QUICK if n not in by_name]
    if missing:
        raise RegistryError(f"presets/quick.py: cases not found in the bundled registries: {', '.join(missing)}")
    return [by_name[n] for n in QUICK]


CASES = _select()
