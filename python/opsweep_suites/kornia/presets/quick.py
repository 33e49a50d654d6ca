"""The quick preset: a representative subset of the bundled kornia survey, the first page in minutes.

It takes its cases, unchanged, from the full registries beside it (same names, inputs and
fingerprints), so a quick run's results are valid records of the full survey. Fourteen cases span
the packages and the outcomes a user meets, each cheap to probe (the committed survey's job times
chose among candidates of the same outcome): conversions, filters and warps that pass everywhere
or fail only in another runtime or opset (`rgb_to_grayscale`, `gaussian_blur2d`, `equalize`,
`warp_affine`, `resize`, `depth_to_3d`, `So3.exp`), a missing ONNX lowering (`fit_plane`), an
onnxruntime rejection (`solve_cubic`), data-dependent Python (`ColorJiggle`, whose ONNX and
torch.export captures fail and whose compilation breaks the graph, and `equalize_clahe`, dynamic in
its sizes only), an augmentation with its [random] twin (`ColorJiggle[random]`), a loss and a
metric. `scripts/quickstart.sh` runs it through the three static paths, and with `--dynamic`
through the dynamic-shape paths too.
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
    "gaussian_blur2d",
    "equalize",
    "equalize_clahe",
    "warp_affine",
    "resize",
    "fit_plane",
    "solve_cubic",
    "depth_to_3d",
    "So3.exp",
    "ColorJiggle",
    "ColorJiggle[random]",
    "focal_loss",
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
