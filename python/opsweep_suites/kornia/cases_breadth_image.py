"""kornia.image: the public methods of Image (colour conversions, copies, dtype / device moves,
DLPack and numpy interchange) and ``kornia.image.base.KORNIA_CHECK_IMAGE_LAYOUT``.

Image is rebuilt inside each call from its data tensor (a graph input) and a fixed layout. A numpy
array cannot be a graph input: ``from_numpy`` gets a constant array. File and numpy outputs are
skipped cases with the reason."""

from __future__ import annotations

import numpy as np
import torch

from kornia.image import ChannelsOrder, ColorSpace, Image, ImageLayout, ImageSize, PixelFormat
from kornia.image import base as KIB

from opsweep import case
from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import img, rand

G = "image"
_LAYOUT = ImageLayout(ImageSize(32, 40), 3, ChannelsOrder.CHANNELS_FIRST)
_PF = PixelFormat(ColorSpace.RGB, 32)  # float32 data


def _img(x):
    return Image(x, _PF, _LAYOUT)


def meth(name):
    return method_function(Image, name)


_X = img()[0]
CASES = []
add = CASES.append
for _m, _fn in (("clone", lambda x: _img(x).clone().data), ("float", lambda x: _img(x).float().data),
                ("to", lambda x: _img(x).to(dtype=torch.float64).data), ("to_gray", lambda x: _img(x).to_gray().data),
                ("to_rgb", lambda x: _img(x).to_rgb().data), ("to_bgr", lambda x: _img(x).to_bgr().data)):
    add(case(f"Image.{_m}", G, Call(meth(_m), _fn), [_X], note="an RGB image of 32x40"))
add(case("Image.from_dlpack", G, Call(meth("from_dlpack"), lambda x: Image.from_dlpack(torch.utils.dlpack.to_dlpack(x)).data), [_X],
         note="a DLPack capsule of the input tensor"))
_ARR = (np.random.default_rng(1520).random((32, 40, 3)) * 255).astype(np.uint8)
add(case("Image.from_numpy", G, Call(meth("from_numpy"), lambda x: Image.from_numpy(_ARR).data.float() + x), [torch.zeros(1)],
         note="a constant uint8 HxWx3 array (numpy cannot be a graph input)"))
add(case("image.base.KORNIA_CHECK_IMAGE_LAYOUT", G,
         Call(KIB.KORNIA_CHECK_IMAGE_LAYOUT, lambda x: (KIB.KORNIA_CHECK_IMAGE_LAYOUT(x, _LAYOUT), x)[1]), [_X],
         note="a validator (bool or raise): the case returns its input after the check"))
add(case("Image.to_dlpack", G, meth("to_dlpack"), [], skip="returns a DLPack capsule (an interchange handle): no tensor output"))
add(case("Image.to_numpy", G, meth("to_numpy"), [], skip="converts to a numpy array: no tensor output, nothing to capture"))
add(case("Image.from_file", G, meth("from_file"), [], skip="reads an image file from disk (kornia_rs decoder)"))
NOT_SURVEYED: dict = {}
