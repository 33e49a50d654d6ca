"""kornia.sensors.camera: the public methods of the camera models (K, matrix, project, unproject,
scale), the distortion transforms (distort / undistort) and projections (project / unproject) of its
modules, and ``camera_model.get_model_from_type``. Every model is rebuilt inside the call from its
parameters (a graph input)."""

from __future__ import annotations

import torch

import kornia.sensors.camera as KCAM
from kornia.geometry.vector import Vector2, Vector3
from kornia.image import ImageSize
from kornia.sensors.camera import camera_model as CM
from kornia.sensors.camera import distortion_model as DM
from kornia.sensors.camera import projection_model as PM

from opsweep_suites.kornia._breadth import Call, method_function
from opsweep_suites.kornia._common import FRESH_OFFSET, case, rand, structured

G = "sensors.camera"
SIZE = ImageSize(480, 640)
# Fresh inputs: a camera's parameter vector mixes focal lengths, a principal point and small distortion
# coefficients, and 3D points lie in front of the camera: each declares a second value of the same kind
# (another camera, other points); a uniform redraw of either is not a camera or not in front of it.
PIN = structured(torch.tensor([328.0, 328.0, 320.0, 240.0]), torch.tensor([331.0, 325.0, 322.5, 238.0]))
BC = structured(torch.tensor([328.0, 328.0, 320.0, 240.0, 0.01, -0.002, 0.001, 0.0005, 0.0001, 0.0, 0.0, 0.0]),
                torch.tensor([331.0, 325.0, 322.5, 238.0, 0.008, -0.001, 0.0012, 0.0004, 0.00008, 0.0, 0.0, 0.0]))
KB = structured(torch.tensor([328.0, 328.0, 320.0, 240.0, 0.01, -0.002, 0.001, 0.0005]),
                torch.tensor([331.0, 325.0, 322.5, 238.0, 0.008, -0.001, 0.0012, 0.0004]))


def _points3(offset=0):
    return torch.cat([rand(8, 2, seed=1600 + offset, low=-0.5, high=0.5), rand(8, 1, seed=1601 + offset, low=1.0, high=4.0)], dim=-1).contiguous()


def _pixels(offset=0):
    return torch.cat([rand(8, 1, seed=1602 + offset, low=20.0, high=620.0), rand(8, 1, seed=1603 + offset, low=20.0, high=460.0)],
                     dim=-1).contiguous()


PTS3 = structured(_points3(), _points3(FRESH_OFFSET))
PTS2 = structured(_pixels(), _pixels(FRESH_OFFSET))
NPTS2 = rand(8, 2, seed=1604, low=-0.4, high=0.4)
DEPTH = rand(8, seed=1605, low=1.0, high=4.0)
CASES = []
add = CASES.append


def meth(cls, name):
    return method_function(cls, name)


_BASE = CM.CameraModelBase
for _m, _fn, _ins in (
    ("K", lambda p: KCAM.BrownConradyModel(SIZE, p).K(), [BC]),
    ("matrix", lambda p: KCAM.BrownConradyModel(SIZE, p).matrix(), [BC]),
    ("project", lambda p, x: KCAM.BrownConradyModel(SIZE, p).project(Vector3(x)).data, [BC, PTS3]),
    ("unproject", lambda p, x, d: KCAM.BrownConradyModel(SIZE, p).unproject(Vector2(x), d).data, [BC, PTS2, DEPTH]),
):
    add(case(f"CameraModelBase.{_m}", G, Call(meth(_BASE, _m), _fn), _ins, note="through a BrownConradyModel (it inherits it)"))
add(case("PinholeModel.matrix", G, Call(meth(KCAM.PinholeModel, "matrix"), lambda p: KCAM.PinholeModel(SIZE, p).matrix()), [PIN]))
add(case("PinholeModel.scale", G, Call(meth(KCAM.PinholeModel, "scale"), lambda p, s: KCAM.PinholeModel(SIZE, p).scale(s).params),
         [PIN, torch.tensor(0.5)]))
add(case("camera_model.get_model_from_type", G,
         Call(CM.get_model_from_type, lambda p, x: CM.get_model_from_type(CM.CameraModelType.KANNALA_BRANDT_K3, SIZE, p).project(
             Vector3(x)).data), [KB, PTS3], note="a Kannala-Brandt model by type, projecting points"))
for _cls, _params in ((DM.AffineTransform, PIN), (DM.BrownConradyTransform, BC), (DM.KannalaBrandtK3Transform, KB)):
    add(case(f"distortion_model.{_cls.__name__}", G, Call(_cls, lambda p, x, c=_cls: c().distort(p, Vector2(x)).data), [_params, NPTS2],
             note="a new transform, distorting normalised points"))
    for _m in ("distort", "undistort"):
        add(case(f"distortion_model.{_cls.__name__}.{_m}", G,
                 Call(meth(_cls, _m), lambda p, x, c=_cls, m=_m: getattr(c(), m)(p, Vector2(x)).data), [_params, NPTS2]))
for _cls in (PM.Z1Projection, PM.OrthographicProjection):
    add(case(f"projection_model.{_cls.__name__}", G, Call(_cls, lambda x, c=_cls: c().project(Vector3(x)).data), [PTS3]))
    add(case(f"projection_model.{_cls.__name__}.project", G, Call(meth(_cls, "project"), lambda x, c=_cls: c().project(Vector3(x)).data),
             [PTS3]))
    add(case(f"projection_model.{_cls.__name__}.unproject", G,
             Call(meth(_cls, "unproject"), lambda x, d, c=_cls: c().unproject(Vector2(x), d).data), [NPTS2, DEPTH]))
NOT_SURVEYED: dict = {}
