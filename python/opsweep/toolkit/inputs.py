"""Seeded input tensors for cases.

Every tensor here is made by a generator seeded at the call, so a case's inputs (and therefore its
fingerprint) never depend on how many tensors were made before it: adding a case elsewhere does not
invalidate stored results. The image helpers use small shapes that keep jobs short (images
1x3x32x40, batches 2x3x32x40, volumes 1x1x8x16x16, textured detector images 1x1x64x80).
"""

from __future__ import annotations

import torch

__all__ = ["batch", "detector_image", "gray", "img", "rand", "randint", "randn", "rgba", "volume"]


def rand(*shape: int, seed: int = 0, low: float = 0.0, high: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    """Uniform values in [low, high), reproducible from `seed` alone."""
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=dtype) * (high - low) + low).contiguous()


def randn(*shape: int, seed: int = 0, scale: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=dtype) * scale).contiguous()


def randint(low: int, high: int, *shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g)


def img(seed: int = 1) -> torch.Tensor:
    """An RGB image, 1x3x32x40, values in [0, 1)."""
    return rand(1, 3, 32, 40, seed=seed)


def batch(seed: int = 2) -> torch.Tensor:
    """A batch of two RGB images, 2x3x32x40."""
    return rand(2, 3, 32, 40, seed=seed)


def gray(seed: int = 3) -> torch.Tensor:
    """A grayscale image, 1x1x32x40."""
    return rand(1, 1, 32, 40, seed=seed)


def rgba(seed: int = 4) -> torch.Tensor:
    return rand(1, 4, 32, 40, seed=seed)


def volume(seed: int = 5) -> torch.Tensor:
    """A volume, 1x1x8x16x16."""
    return rand(1, 1, 8, 16, 16, seed=seed)


def detector_image(seed: int = 6) -> torch.Tensor:
    """A grayscale image with structure (blobs and edges), 1x1x64x80, for detectors and descriptors."""
    y = torch.linspace(-1, 1, 64).view(64, 1)
    x = torch.linspace(-1.25, 1.25, 80).view(1, 80)
    pattern = torch.sin(6 * x) * torch.cos(5 * y) + ((x * x + y * y) < 0.3).float()
    noise = rand(64, 80, seed=seed) * 0.1
    out = (pattern - pattern.min()) / (pattern.max() - pattern.min())
    return (0.9 * out + noise).clamp(0, 1).view(1, 1, 64, 80).contiguous()

