"""What the torchvision registries share: seeded inputs of each tv_tensor kind, and the wrapper
that hands a dispatcher or a transform class its input as a tv_tensor.

A graph input is a plain tensor; torchvision's dispatchers choose their kernel by the input's
tv_tensor type (Image, Video, Mask, BoundingBoxes with its format and canvas size, KeyPoints), so
``AsTVTensor`` wraps the input inside its forward and returns plain tensors, as a user's model
would around a transform."""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn
from torchvision import tv_tensors

from opsweep.toolkit import rand

H, W = 32, 32
CANVAS = (H, W)


def image(seed: int = 1, channels: int = 3) -> torch.Tensor:
    return rand(1, channels, H, W, seed=seed)


def image_uint8(seed: int = 2) -> torch.Tensor:
    return (rand(1, 3, H, W, seed=seed) * 255).round().to(torch.uint8)


def video(seed: int = 3) -> torch.Tensor:
    return rand(1, 4, 3, H, W, seed=seed)


def mask(seed: int = 4) -> torch.Tensor:
    return (rand(1, H, W, seed=seed) * 3).floor().to(torch.uint8)


def keypoints(seed: int = 5) -> torch.Tensor:
    return rand(5, 2, seed=seed, low=2.0, high=29.0)


# One set of boxes per format, well inside the 32x32 canvas (the rotated formats at 20 degrees).
def boxes(fmt: str) -> torch.Tensor:
    if fmt == "XYXY":
        return torch.tensor([[2.0, 3.0, 20.0, 24.0], [10.0, 8.0, 28.0, 30.0], [5.0, 12.0, 15.0, 19.0]])
    if fmt == "XYWH":
        return torch.tensor([[2.0, 3.0, 18.0, 21.0], [10.0, 8.0, 18.0, 22.0], [5.0, 12.0, 10.0, 7.0]])
    if fmt == "CXCYWH":
        return torch.tensor([[11.0, 13.5, 18.0, 21.0], [19.0, 19.0, 18.0, 22.0], [10.0, 15.5, 10.0, 7.0]])
    if fmt == "XYWHR":
        return torch.tensor([[6.0, 6.0, 12.0, 8.0, 20.0], [14.0, 10.0, 10.0, 9.0, 20.0]])
    if fmt == "CXCYWHR":
        return torch.tensor([[12.0, 12.0, 12.0, 8.0, 20.0], [18.0, 16.0, 10.0, 9.0, 20.0]])
    if fmt == "XYXYXYXY":
        return torch.tensor([[6.0, 6.0, 17.3, 10.1, 14.5, 17.6, 3.3, 13.5],
                             [14.0, 10.0, 23.4, 13.4, 20.3, 21.9, 10.9, 18.5]])
    raise ValueError(fmt)


FORMATS = ("XYXY", "XYWH", "CXCYWH", "XYWHR", "CXCYWHR", "XYXYXYXY")


def as_tv_tensor(x: torch.Tensor, kind: str, fmt: str | None = None) -> Any:
    """``x`` as the tv_tensor ``kind`` (Image, Video, Mask, BoundingBoxes, KeyPoints)."""
    if kind == "Image":
        return tv_tensors.Image(x)
    if kind == "Video":
        return tv_tensors.Video(x)
    if kind == "Mask":
        return tv_tensors.Mask(x)
    if kind == "BoundingBoxes":
        return tv_tensors.BoundingBoxes(x, format=fmt, canvas_size=CANVAS)
    if kind == "KeyPoints":
        return tv_tensors.KeyPoints(x, canvas_size=CANVAS)
    raise ValueError(kind)


def _plain(out: Any) -> Any:
    if isinstance(out, torch.Tensor):
        return out.as_subclass(torch.Tensor)
    if isinstance(out, (tuple, list)):
        return type(out)(_plain(o) for o in out)
    if isinstance(out, dict):
        return {k: _plain(v) for k, v in out.items()}
    return out


class AsTVTensor(nn.Module):
    """``fn(as_tv_tensor(x, kind, fmt), *rest, **kwargs)``, outputs as plain tensors: a dispatcher
    (or a transform) called on the tv_tensor ``kind``, the other inputs passed as they are."""

    def __init__(self, fn: Callable[..., Any], kind: str, fmt: str | None = None, **kwargs: Any):
        super().__init__()
        self.fn = fn
        self.kind = kind
        self.fmt = fmt
        self.kwargs = kwargs
        # what coverage and the page name: the dispatcher, or a transform instance's class (set
        # past nn.Module's attribute hook, which would register a transform as a child twice)
        object.__setattr__(self, "__opsweep_target__", type(fn) if isinstance(fn, nn.Module) else fn)

    def forward(self, x: torch.Tensor, *rest: torch.Tensor) -> Any:
        return _plain(self.fn(as_tv_tensor(x, self.kind, self.fmt), *rest, **self.kwargs))


class ImageList(nn.Module):
    """A detection model's call: ``model(list(images))`` (its input is a list of [C, H, W] images),
    in eval mode its detections (a list of dicts of tensors) as they are."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model
        self.__opsweep_target__ = getattr(model, "__opsweep_target__", type(model))

    def forward(self, images: torch.Tensor) -> Any:
        return self.model(list(images))


class FlowPair(nn.Module):
    """An optical-flow model's call on two frames with a few refinement steps (RAFT's
    ``num_flow_updates``, 12 by default, sets the cost, not what is surveyed): the last flow."""

    def __init__(self, model: nn.Module, num_flow_updates: int = 2):
        super().__init__()
        self.model = model
        self.num_flow_updates = num_flow_updates
        self.__opsweep_target__ = type(model)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.model(a, b, num_flow_updates=self.num_flow_updates)[-1]
