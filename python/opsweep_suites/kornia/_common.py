"""Helpers of the bundled kornia registries: the public case toolkit (opsweep.toolkit), re-exported
so the registries import one module, and the geometry inputs kornia's cases share (homographies and
pinhole cameras, each with a declared second value for the fresh-input check)."""

from __future__ import annotations

import torch

from opsweep.toolkit.fresh import *  # noqa: F401,F403
from opsweep.toolkit.fresh import FRESH_OFFSET, structured
from opsweep.toolkit.inputs import *  # noqa: F401,F403
from opsweep.toolkit.inputs import rand
from opsweep.toolkit.wrappers import *  # noqa: F401,F403


def identity_homography(batch_size: int = 1) -> torch.Tensor:
    """The identity (no second value is declared: an identity often means "no transform")."""
    return torch.eye(3).expand(batch_size, 3, 3).contiguous()


def _homography(seed: int, batch_size: int) -> torch.Tensor:
    h = torch.eye(3).expand(batch_size, 3, 3) + rand(batch_size, 3, 3, seed=seed, low=-0.05, high=0.05)
    h = h.clone()
    h[:, 2, 2] = 1.0
    h[:, 2, :2] *= 0.01
    return h.contiguous()


def homography(seed: int = 7, batch_size: int = 1) -> torch.Tensor:
    """A mild, well-conditioned homography (identity plus a small perturbation); its second value is
    the one of seed + FRESH_OFFSET."""
    return structured(_homography(seed, batch_size), _homography(seed + FRESH_OFFSET, batch_size))


def _camera(batch_size: int, fx: float, fy: float, cx: float, cy: float) -> torch.Tensor:
    k = torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
    return k.expand(batch_size, 3, 3).contiguous()


def camera_matrix(batch_size: int = 1, fx: float = 40.0, fy: float = 40.0, cx: float = 20.0, cy: float = 16.0) -> torch.Tensor:
    """Pinhole intrinsics; the second value is another camera (focal lengths 10 % and 5 % longer,
    the principal point moved by 1.5 and -1 pixels)."""
    return structured(_camera(batch_size, fx, fy, cx, cy), _camera(batch_size, fx * 1.1, fy * 1.05, cx + 1.5, cy - 1.0))

