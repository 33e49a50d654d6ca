"""kornia.enhance below its package and the public methods of its classes: ZCAWhitening.fit /
inverse_transform and the histogram helpers ``joint_pdf`` / ``marginal_pdf``."""

from __future__ import annotations

import torch

import kornia.enhance as KE
import importlib

KH = importlib.import_module("kornia.enhance.histogram")  # `from kornia.enhance import histogram` is the function

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import rand

G = "enhance"
# 96 images of 48 values: more samples than dimensions, so the covariance ZCA inverts is full rank
# (condition number about 29). With 20 it was singular (about 3e9), the whitening matrix noise of
# size up to 778, and torch.compile's ordinary rounding read as a mismatch of 2.18.
_X = rand(96, 3, 4, 4, seed=1500)
CASES = [
    case("ZCAWhitening.fit", G, Call(method_function(KE.ZCAWhitening, "fit"),
                                     lambda x: (lambda z: (z.mean_vector, z.transform_matrix))(KE.ZCAWhitening().fit(x))), [_X],
         note="the mean and whitening matrix fitted to 96 images of 3x4x4"),
    case("ZCAWhitening.inverse_transform", G,
         Call(method_function(KE.ZCAWhitening, "inverse_transform"),
              lambda x, y: KE.ZCAWhitening(compute_inv=True).fit(x).inverse_transform(y)), [_X, rand(4, 3, 4, 4, seed=1501)],
         note="fitted on 96 images, then inverting the whitening of 4 others"),
    case("histogram.marginal_pdf", G, KH.marginal_pdf, [rand(2, 100, 1, seed=1502), torch.linspace(0, 1, 16), torch.tensor(0.05)],
         note="two signals of 100 values, 16 bins"),
    case("histogram.joint_pdf", G, KH.joint_pdf, [rand(2, 100, 16, seed=1503), rand(2, 100, 16, seed=1504)],
         note="kernel values of two signals (as marginal_pdf gives them)"),
]
NOT_SURVEYED: dict = {}
