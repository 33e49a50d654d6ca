"""torchvision.models: every entry of ``torchvision.models.list_models()``, built lazily with
``weights=None`` (and ``weights_backbone=None``: nothing is downloaded), at the smallest input its
weights' metadata declares valid (``meta["min_size"]``, at least 64 pixels a side so a network's
downsampling has something left; the temporal size from ``meta["min_temporal_size"]``).

- classification and quantizable classification (``quantize=False``: the float model the
  quantization API wraps): one image;
- semantic segmentation: one image, the output dict;
- detection, instance segmentation and keypoints: a batch of one image through ``ImageList``
  (the model takes a list), with ``min_size``/``max_size`` set to the image so the model's own
  resizing does not blow a 64-pixel image up to 800;
- video: one clip [1, 3, T, H, W];
- optical flow: two frames through ``FlowPair`` (two refinement steps).
The networks are random (no weights): the survey asks whether the architecture captures, exports
and runs like eager, which does not depend on trained values.

Outputs are compared at atol 1e-3 and rtol 1e-3 (``MODEL_TOLERANCE``), not the default 2e-4 / 1e-3:
a float32 output after tens to a hundred random layers carries that much accumulated rounding
whichever engine computes it (measured: ``deeplabv3_resnet101`` in onnxruntime, 1 of 86,016 elements
off by 6.1e-4; OpenVINO, 10 elements by up to 9.8e-4), while a capture that computes something
else is off by orders of magnitude more."""

from __future__ import annotations

import torchvision.models as M

from opsweep import case
from opsweep.case import lazy
from opsweep.toolkit import Built, rand

from opsweep_suites.torchvision._common import FlowPair, ImageList


def _meta(name: str) -> dict:
    try:
        weights = list(M.get_model_weights(name))
    except Exception:  # noqa: BLE001 - a model without registered weights: defaults below
        return {}
    return dict(weights[0].meta) if weights else {}


def _kind(name: str) -> str:
    module = M.get_model_builder(name).__module__
    for kind in ("detection", "segmentation", "video", "optical_flow", "quantization"):
        if f".{kind}." in module or module.endswith(f".{kind}"):
            return kind
    return "classification"


def _side(meta: dict, floor: int = 64) -> tuple[int, int]:
    h, w = meta.get("min_size", (floor, floor))
    return max(h, floor), max(w, floor)


def _build(name: str, **kwargs):
    """The model of builder ``name`` (weights=None), surveyed under its builder function."""
    return Built(M.get_model_builder(name), M.get_model(name, weights=None, **kwargs))


def _build_detection(name: str, side: int):
    if "ssd" in name:  # SSD and SSDlite resize to their fixed size (300, 320): the image is that size
        model = M.get_model(name, weights=None, weights_backbone=None)
    else:
        model = M.get_model(name, weights=None, weights_backbone=None, min_size=side, max_size=side)
    return Built(M.get_model_builder(name), ImageList(model))


def _build_flow(name: str):
    return Built(M.get_model_builder(name), FlowPair(M.get_model(name, weights=None)))


MODEL_TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}

CASES = []
for i, name in enumerate(M.list_models()):
    builder = M.get_model_builder(name)
    kind = _kind(name)
    meta = _meta(name)
    group = f"models.{kind}"
    seed = 100 + i
    if kind == "classification":
        h, w = _side(meta)
        target = lazy(_build, name, surveys=builder)
        inputs = [rand(1, 3, h, w, seed=seed)]
    elif kind == "quantization":
        h, w = _side(meta)
        target = lazy(_build, name, quantize=False, surveys=builder)
        inputs = [rand(1, 3, h, w, seed=seed)]
    elif kind == "segmentation":
        h, w = _side(meta)
        target = lazy(_build, name, weights_backbone=None, surveys=builder)
        inputs = [rand(1, 3, h, w, seed=seed)]
    elif kind == "detection":
        side = 300 if name.startswith("ssd300") else 320 if "ssd" in name else 128
        target = lazy(_build_detection, name, side, surveys=builder)
        inputs = [rand(1, 3, side, side, seed=seed)]
    elif kind == "video":
        h, w = _side(meta)
        t = meta.get("min_temporal_size", 4)
        target = lazy(_build, name, surveys=builder)
        inputs = [rand(1, 3, max(t, 4), h, w, seed=seed)]
    else:  # optical flow: frames a multiple of 8 and large enough for RAFT's pyramid
        target = lazy(_build_flow, name, surveys=builder)
        inputs = [rand(1, 3, 128, 128, seed=seed), rand(1, 3, 128, 128, seed=seed + 1000)]
    CASES.append(case(name, group, target, inputs, tags=("model",), **MODEL_TOLERANCE))
