"""kornia.geometry: camera, calibration, depth, epipolar, homography and ransac.

Inputs are built from one small synthetic scene: two pinhole cameras (K = fx 40, fy 40, cx 20, cy 16)
looking at a random 3D point cloud 3-6 units in front of them, so that correspondences, fundamental
and essential matrices, projections and depths are all mutually consistent; homography correspondences
are made by mapping random image points through a known homography.

Not surveyed:
    (none: every public callable of kornia.geometry.camera, .calibration, .depth, .epipolar,
    .homography and .ransac has at least one case)
"""

from __future__ import annotations

import math

import torch

import kornia.geometry.calibration as KCal
import kornia.geometry.camera as KCam
import kornia.geometry.depth as KD
import kornia.geometry.epipolar as KE
import kornia.geometry.homography as KH
from kornia.geometry.ransac import RANSAC
from opsweep_suites.kornia._common import (
    FRESH_OFFSET, Forward, batch, camera_matrix, case, derived, img, keep, method_call, rand, randn, second_value, structured, twin,
)

NOT_SURVEYED: dict = {}


# ---------------------------------------------------------------------------------------------
# the synthetic scene
# ---------------------------------------------------------------------------------------------


def _rot(ax: float, ay: float, az: float) -> torch.Tensor:
    """Rotation matrix from Euler angles in degrees (Rz @ Ry @ Rx)."""
    a, b, c = (math.radians(v) for v in (ax, ay, az))
    rx = torch.tensor([[1.0, 0.0, 0.0], [0.0, math.cos(a), -math.sin(a)], [0.0, math.sin(a), math.cos(a)]])
    ry = torch.tensor([[math.cos(b), 0.0, math.sin(b)], [0.0, 1.0, 0.0], [-math.sin(b), 0.0, math.cos(b)]])
    rz = torch.tensor([[math.cos(c), -math.sin(c), 0.0], [math.sin(c), math.cos(c), 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry @ rx


def _skew(t: torch.Tensor) -> torch.Tensor:
    x, y, z = t.tolist()
    return torch.tensor([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


# Every input with structure (cameras, poses, essential and fundamental matrices, projections,
# correspondences of one scene, point clouds in front of the camera, distortion coefficients) is
# built by a helper with a ``second`` flag: the second scene (other camera, other motions, other
# cloud) gives the fresh-input value of each such tensor (``twin``; ``derived`` for the inputs
# computed from them), so the fresh-input check runs on a valid, mutually consistent second scene.
_KS = {False: camera_matrix()[0], True: second_value(camera_matrix())[0]}
_K = structured(_KS[False], _KS[True])
# camera 1 and the two motions of camera 2 (batch elements 0 and 1), in the first and second scene.
# The second motions are ones whose essential matrix decomposes stably (decompose_essential_matrix's
# SVD can swap its two rotations under a 1e-6 perturbation for some motions, e.g. the first POSE2B).
_POSE1 = {False: (torch.eye(3), torch.zeros(3)), True: (torch.eye(3), torch.zeros(3))}  # the world frame in both scenes
_POSE2 = {False: (_rot(2.0, -6.0, 3.0), torch.tensor([-0.6, 0.05, 0.1])), True: (_rot(3.0, -4.0, 2.5), torch.tensor([-0.5, 0.08, 0.12]))}
_POSE2B = {False: (_rot(-3.0, 5.0, -2.0), torch.tensor([0.5, -0.1, 0.05])), True: (_rot(2.5, -3.0, 4.0), torch.tensor([-0.4, 0.12, 0.08]))}
_R1, _t1 = keep(torch.eye(3)), keep(torch.zeros(3))
_R2, _t2 = twin(lambda second=False: _POSE2[second])
_R2b, _t2b = twin(lambda second=False: _POSE2B[second])


def _cloud(n: int = 24, seed: int = 100, second: bool = False) -> torch.Tensor:
    p = rand(n, 3, seed=seed + FRESH_OFFSET * second)
    return torch.stack([p[:, 0] * 2.0 - 1.0, p[:, 1] * 1.6 - 0.8, 3.0 + 3.0 * p[:, 2]], -1)


def _proj(X: torch.Tensor, R: torch.Tensor, t: torch.Tensor, K: torch.Tensor = _K) -> torch.Tensor:
    xc = X @ R.T + t
    uv = xc @ K.T
    return uv[:, :2] / uv[:, 2:]


def _scene_pair(n: int = 24, batch_size: int = 1, noise: float = 0.0, second: bool = False):
    K, off = _KS[second], FRESH_OFFSET * second
    X = _cloud(n, second=second)
    (r1, t1), (r2, t2), (r2b, t2b) = _POSE1[second], _POSE2[second], _POSE2B[second]
    p1, p2 = _proj(X, r1, t1, K), _proj(X, r2, t2, K)
    if batch_size == 2:
        Xb = _cloud(n, seed=101, second=second)
        p1 = torch.stack([p1, _proj(Xb, r1, t1, K)])
        p2 = torch.stack([p2, _proj(Xb, r2b, t2b, K)])
    else:
        p1, p2 = p1[None], p2[None]
    if noise:
        p2 = p2 + randn(*p2.shape, seed=102 + off, scale=noise)
    return p1.contiguous(), p2.contiguous()


def _scene(n: int = 24, batch_size: int = 1, noise: float = 0.0):
    """Correspondences (B, N, 2) in pixels between camera 1 (identity) and camera 2 (the second scene's
    are their fresh-input values)."""
    return twin(_scene_pair, n, batch_size, noise)


def _E_of(batch_size: int = 1, second: bool = False) -> torch.Tensor:
    """Essential matrices of camera 2 relative to camera 1 (identity in the first scene)."""
    out = []
    for (r2, t2) in [_POSE2[second], _POSE2B[second]][:batch_size]:
        r1, t1 = _POSE1[second]
        r, t = r2 @ r1.T, t2 - r2 @ r1.T @ t1
        out.append(_skew(t) @ r)
    return torch.stack(out).contiguous()


def _F_of(batch_size: int = 1, second: bool = False) -> torch.Tensor:
    Ki = torch.inverse(_KS[second])
    f = torch.stack([Ki.T @ e @ Ki for e in _E_of(batch_size, second)])
    return (f / f[:, 2:3, 2:3]).contiguous()


def _E(batch_size: int = 1) -> torch.Tensor:
    return twin(_E_of, batch_size)


def _F(batch_size: int = 1) -> torch.Tensor:
    return twin(_F_of, batch_size)


def _Ks(batch_size: int = 1) -> torch.Tensor:
    return twin(lambda second=False: _KS[second].expand(batch_size, 3, 3).contiguous())


def _P(R: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return derived(lambda k, r, tt: (k @ torch.cat([r, tt[:, None]], 1))[None].contiguous(), _K, R, t)


def _normalized(p: torch.Tensor) -> torch.Tensor:
    """Pixels to calibrated (normalized) image coordinates."""
    return derived(lambda x, k: ((x - k[:2, 2]) / k[0, 0]).contiguous(), p, _K)


def _K4(batch_size: int = 1) -> torch.Tensor:
    def build(second=False):
        k = torch.eye(4)
        k[:3, :3] = _KS[second]
        return k.expand(batch_size, 4, 4).contiguous()

    return twin(build)


def _Rt4(R: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    def build(r, tt):
        m = torch.eye(4)
        m[:3, :3], m[:3, 3] = r, tt
        return m[None].contiguous()

    return derived(build, R, t)


def _motion(angles: tuple, t: tuple) -> torch.Tensor:
    """A rigid motion (1, 4, 4) from Euler angles (degrees) and a translation; its second value turns
    the other way (angles negated and reversed) and moves the other way (t mirrored, 80 %)."""
    def build(second=False):
        r = _rot(*[-a for a in reversed(angles)]) if second else _rot(*angles)
        tt = torch.tensor([-0.8 * v for v in t]) if second else torch.tensor(t)
        m = torch.eye(4)
        m[:3, :3], m[:3, 3] = r, tt
        return m[None].contiguous()

    return twin(build)


def _head(x: torch.Tensor, n: int) -> torch.Tensor:
    """The first n points of each batch element (declared with the same slice of the second value)."""
    return derived(lambda t: t[:, :n].contiguous(), x)


def _hw(batch_size: int = 1):
    return torch.full((batch_size,), 32.0), torch.full((batch_size,), 40.0)


def _depth_of(batch_size: int = 1, seed: int = 110, second: bool = False) -> torch.Tensor:
    y = torch.linspace(0, 1, 32).view(32, 1)
    x = torch.linspace(0, 1, 40).view(1, 40)
    if second:  # another smooth surface, 2.2-4.2 units
        base = 2.2 + 0.5 * x + 0.9 * y + 0.25 * torch.cos(5 * x) * torch.sin(3 * y)
    else:
        base = 2.5 + 0.8 * x + 0.4 * y + 0.2 * torch.sin(6 * x) * torch.cos(4 * y)
    return (base + rand(batch_size, 1, 32, 40, seed=seed + FRESH_OFFSET * second, high=0.05)).contiguous()


def _depth(batch_size: int = 1, seed: int = 110) -> torch.Tensor:
    """A smooth positive depth map (B, 1, 32, 40), 2-4 units, with a little texture."""
    return twin(_depth_of, batch_size, seed)


def _pixels_of(n: int = 20, batch_size: int = 1, seed: int = 120, second: bool = False) -> torch.Tensor:
    p = rand(batch_size, n, 2, seed=seed + FRESH_OFFSET * second)
    return torch.stack([p[..., 0] * 39.0, p[..., 1] * 31.0], -1).contiguous()


def _pixels(n: int = 20, batch_size: int = 1, seed: int = 120) -> torch.Tensor:
    """Pixel positions inside the 40x32 image."""
    return twin(_pixels_of, n, batch_size, seed)


def _world(n: int = 20, batch_size: int = 1, seed: int = 121) -> torch.Tensor:
    """Points 3-6 units in front of the camera."""
    return twin(lambda second=False: torch.stack([_cloud(n, seed + b, second) for b in range(batch_size)]).contiguous())


# homography correspondences
def _H_of(batch_size: int = 1, second: bool = False) -> torch.Tensor:
    hs = []
    for b in range(batch_size):
        if second:
            a = math.radians(-6.0 - 5.0 * b)
            h = [[0.97 * math.cos(a), -math.sin(a), -2.0 + b], [math.sin(a), 1.04 * math.cos(a), 1.5], [-3e-4, 2e-4 * (b + 1), 1.0]]
        else:
            a = math.radians(8.0 + 7.0 * b)
            h = [[1.05 * math.cos(a), -math.sin(a), 3.0 + b], [math.sin(a), 0.95 * math.cos(a), -2.0], [2e-4, -3e-4 * (b + 1), 1.0]]
        hs.append(torch.tensor(h))
    return torch.stack(hs).contiguous()


def _H(batch_size: int = 1) -> torch.Tensor:
    return twin(_H_of, batch_size)


def _apply_h(h: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    ph = torch.cat([p, torch.ones_like(p[..., :1])], -1) @ h.transpose(-1, -2)
    return ph[..., :2] / ph[..., 2:]


def _hpairs_of(n: int = 20, batch_size: int = 1, noise: float = 0.0, seed: int = 130, second: bool = False):
    off = FRESH_OFFSET * second
    p1 = _pixels_of(n, batch_size, seed, second)
    p2 = _apply_h(_H_of(batch_size, second), p1)
    if noise:
        p2 = p2 + randn(*p2.shape, seed=seed + 1 + off, scale=noise)
    return p1, p2.contiguous()


def _hpairs(n: int = 20, batch_size: int = 1, noise: float = 0.0, seed: int = 130):
    """Correspondences through the homography _H (the second scene's through its second value)."""
    return twin(_hpairs_of, n, batch_size, noise, seed)


def _segments_of(n: int = 10, batch_size: int = 1, seed: int = 140, second: bool = False):
    a = _pixels_of(n, batch_size, seed, second)
    b = _pixels_of(n, batch_size, seed + 1, second)
    h = _H_of(batch_size, second)
    ls1 = torch.stack([a, b], -2)  # (B, N, 2, 2)
    ls2 = torch.stack([_apply_h(h, a), _apply_h(h, b)], -2)
    return ls1.contiguous(), ls2.contiguous()


def _segments(n: int = 10, batch_size: int = 1, seed: int = 140):
    return twin(_segments_of, n, batch_size, seed)


def _dist_of(n: int, second: bool = False) -> torch.Tensor:
    d = torch.tensor([-0.12, 0.03, 1e-3, -5e-4, -2e-3, 0.01, -0.005, 0.002, 1e-3, -1e-3, 5e-4, -5e-4, 0.01, -0.02])
    if second:  # a milder lens of the same kind
        d = d * torch.tensor([0.8, 1.2, -0.7, 1.5, 0.5, -0.6, 0.8, 1.1, -0.9, 0.7, 1.2, -0.8, 0.6, 0.9])
    return d[:n][None].contiguous()


def _dist(n: int) -> torch.Tensor:
    """OpenCV distortion coefficients (k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4, taux, tauy), first n."""
    return twin(_dist_of, n)


CASES = []
add = CASES.append

# ---------------------------------------------------------------------------------------------
# camera: projections and distortion models
# ---------------------------------------------------------------------------------------------
GC = "geometry.camera"
_X = _world(20)
_pz1 = derived(lambda x: (x[..., :2] / x[..., 2:]).contiguous(), _X)
# camera parameters (fx, fy, cx, cy[, k1..k4]): the second camera has other focal lengths, centre and lens
_kb = structured(torch.tensor([[40.0, 40.0, 20.0, 16.0, 0.05, -0.01, 0.002, -1e-4]]),
                 torch.tensor([[44.0, 42.0, 21.5, 15.0, 0.03, 0.008, -0.001, 2e-4]]))
_aff = structured(torch.tensor([[40.0, 41.0, 20.0, 16.0]]), torch.tensor([[44.0, 42.0, 21.5, 15.0]]))
for nm, fn, kw, ins in [
    ("project_points", KCam.project_points, {}, (_X, _Ks())),
    ("project_points[batch=2]", KCam.project_points, {}, (_world(20, 2), _Ks(2))),
    ("unproject_points", KCam.unproject_points, {}, (_pixels(), rand(1, 20, 1, seed=122, low=2.0, high=5.0), _Ks())),
    ("unproject_points[normalize=True]", KCam.unproject_points, {"normalize": True}, (_pixels(), rand(1, 20, 1, seed=122, low=2.0, high=5.0), _Ks())),
    ("project_points_z1", KCam.project_points_z1, {}, (_X,)),
    ("unproject_points_z1", KCam.unproject_points_z1, {}, (_pz1,)),
    ("unproject_points_z1[extension]", KCam.unproject_points_z1, {}, (_pz1, rand(1, 20, 1, seed=123, low=2.0, high=5.0))),
    ("dx_project_points_z1", KCam.dx_project_points_z1, {}, (_X,)),
    ("project_points_orthographic", KCam.project_points_orthographic, {}, (_X,)),
    ("unproject_points_orthographic", KCam.unproject_points_orthographic, {}, (_pz1, rand(1, 20, 1, seed=123, low=2.0, high=5.0))),
    ("dx_project_points_orthographic", KCam.dx_project_points_orthographic, {}, (_X,)),
    ("distort_points_affine", KCam.distort_points_affine, {}, (_pz1, _aff)),
    ("undistort_points_affine", KCam.undistort_points_affine, {}, (_pixels(), _aff)),
    ("dx_distort_points_affine", KCam.dx_distort_points_affine, {}, (_pz1, _aff)),
    ("distort_points_kannala_brandt", KCam.distort_points_kannala_brandt, {}, (_pz1, _kb)),
    ("undistort_points_kannala_brandt", KCam.undistort_points_kannala_brandt, {}, (_pixels(), _kb)),
    ("dx_distort_points_kannala_brandt", KCam.dx_distort_points_kannala_brandt, {}, (_pz1, _kb)),
]:
    add(case(nm, GC, fn, ins, kwargs=kw))

# cam2pixel / pixel2cam on a dense grid
def _grid_of(second: bool = False) -> torch.Tensor:
    """Homogeneous pixel coordinates (1, 32, 40, 3); the second grid is offset by half a pixel."""
    xy = torch.stack(torch.meshgrid(torch.arange(40.0), torch.arange(32.0), indexing="xy"), -1) + 0.5 * second
    return torch.cat([xy, torch.ones(32, 40, 1)], -1)[None].contiguous()


_grid_h = twin(_grid_of)
_Kinv4 = derived(torch.inverse, _K4())
_cam_pts = derived(lambda d, g, ki: (d.permute(0, 2, 3, 1) * (g @ ki[0, :3, :3].T)).contiguous(), _depth(), _grid_h, _Kinv4)
add(case("pixel2cam", GC, KCam.pixel2cam, (_depth(), _Kinv4, _grid_h)))
add(case("cam2pixel", GC, KCam.cam2pixel, (_cam_pts, derived(lambda k, e: (k @ e).contiguous(), _K4(), _Rt4(_R2, _t2)))))

# PinholeCamera: its tensors are graph inputs; each method is a case
_Pin = KCam.PinholeCamera
_ext2 = _Rt4(_R2, _t2)
_pin_in = (_K4(), _ext2, *_hw())
_pin_in2 = (_K4(2), derived(lambda a, b: torch.cat([a, b]), _ext2, _Rt4(_R2b, _t2b)), *_hw(2))
add(case("PinholeCamera.project", GC, method_call(_Pin, "project", lambda k, e, h, w, x: _Pin(k, e, h, w).project(x)), (*_pin_in, _X),
         method="project", note="PinholeCamera(intrinsics, extrinsics, height, width).project(points)"))
add(case("PinholeCamera.project[batch=2]", GC, method_call(_Pin, "project", lambda k, e, h, w, x: _Pin(k, e, h, w).project(x)), (*_pin_in2, _world(20, 2)),
         method="project"))
add(case("PinholeCamera.unproject", GC, method_call(_Pin, "unproject", lambda k, e, h, w, p, d: _Pin(k, e, h, w).unproject(p, d)),
         (*_pin_in, _pixels(), rand(1, 20, 1, seed=122, low=2.0, high=5.0)), method="unproject"))
add(case("PinholeCamera.intrinsics_inverse", GC, method_call(_Pin, "intrinsics_inverse", lambda k, e, h, w: _Pin(k, e, h, w).intrinsics_inverse()),
         _pin_in2, method="intrinsics_inverse"))
add(case("PinholeCamera.scale", GC, method_call(_Pin, "scale", lambda k, e, h, w, s: (lambda c: (c.intrinsics, c.height, c.width))(_Pin(k, e, h, w).scale(s))),
         (*_pin_in2, torch.tensor([0.5, 2.0])), method="scale", note="returns the scaled camera's intrinsics, height and width"))
add(case("PinholeCamera.scale_", GC, method_call(_Pin, "scale_", lambda k, e, h, w, s: (lambda c: (c.intrinsics, c.height, c.width))(_Pin(k, e, h, w).scale_(s))),
         (*_pin_in2, torch.tensor([0.5, 2.0])), method="scale_", note="in-place scale of a camera built inside the graph"))
add(case("PinholeCamera.camera_matrix", GC, method_call(_Pin, "camera_matrix", lambda k, e, h, w: _Pin(k, e, h, w).camera_matrix), _pin_in2,
         method="camera_matrix", note="property"))
add(case("PinholeCamera.rt_matrix", GC, method_call(_Pin, "rt_matrix", lambda k, e, h, w: _Pin(k, e, h, w).rt_matrix), _pin_in2,
         method="rt_matrix", note="property"))
add(case("PinholeCamera.rotation_matrix", GC, method_call(_Pin, "rotation_matrix", lambda k, e, h, w: _Pin(k, e, h, w).rotation_matrix), _pin_in2,
         method="rotation_matrix", note="property"))
add(case("PinholeCamera.translation_vector", GC, method_call(_Pin, "translation_vector", lambda k, e, h, w: _Pin(k, e, h, w).translation_vector), _pin_in2,
         method="translation_vector", note="property"))
add(case("PinholeCamera.from_parameters", GC,
         method_call(_Pin, "from_parameters", lambda fx, fy, cx, cy, tx, ty, tz: (lambda c: (c.intrinsics, c.extrinsics))(
             _Pin.from_parameters(fx, fy, cx, cy, 32, 40, tx, ty, tz, 2, None, torch.float32))),
         (torch.tensor([40.0, 50.0]), torch.tensor([40.0, 52.0]), torch.tensor([20.0, 19.5]), torch.tensor([16.0, 15.5]),
          torch.tensor([0.1, -0.2]), torch.tensor([0.0, 0.3]), torch.tensor([1.0, 2.0])), method="from_parameters",
         note="classmethod; returns the built camera's intrinsics and extrinsics"))

# StereoCamera
def _stereo_of(second: bool = False):
    """Rectified left and right projections K[I|0] and K[I|-b]: the right one shifted by the baseline
    (0.5 units; the second rig: the second camera, baseline 0.4)."""
    k = _KS[second]
    left = torch.cat([k, torch.zeros(3, 1)], 1)[None].contiguous()
    right = left.clone()
    right[0, 0, 3] = -(0.4 if second else 0.5) * k[0, 0]
    return left, right


_PL, _PR = twin(_stereo_of)
_disp = rand(1, 32, 40, 1, seed=150, low=2.0, high=12.0)
_Stereo = KCam.StereoCamera
add(case("StereoCamera.reproject_disparity_to_3D", GC,
         method_call(_Stereo, "reproject_disparity_to_3D", lambda l, r, d: _Stereo(l, r).reproject_disparity_to_3D(d)), (_PL, _PR, _disp),
         method="reproject_disparity_to_3D"))
add(case("StereoCamera.reproject_disparity_to_3D[return_mask]", GC,
         method_call(_Stereo, "reproject_disparity_to_3D", lambda l, r, d: _Stereo(l, r).reproject_disparity_to_3D(d, return_mask=True)),
         (_PL.clone(), _PR.clone(), _disp.clone()), method="reproject_disparity_to_3D"))
add(case("StereoCamera.reproject_disparity_to_3D[batch=2]", GC,
         method_call(_Stereo, "reproject_disparity_to_3D", lambda l, r, d: _Stereo(l, r).reproject_disparity_to_3D(d)),
         (*derived(lambda a, b: (a.repeat(2, 1, 1), b.repeat(2, 1, 1)), _PL, _PR), rand(2, 32, 40, 1, seed=151, low=2.0, high=12.0)), method="reproject_disparity_to_3D"))
add(case("StereoCamera.Q", GC, method_call(_Stereo, "Q", lambda l, r: _Stereo(l, r).Q), (_PL.clone(), _PR.clone()), method="Q",
         note="property: the disparity-to-depth matrix"))

# ---------------------------------------------------------------------------------------------
# calibration
# ---------------------------------------------------------------------------------------------
GK = "geometry.calibration"
for n in (4, 5, 8, 12, 14):
    sfx = "" if n == 5 else f"[dist={n}]"
    add(case(f"undistort_points{sfx}", GK, KCal.undistort_points, (_pixels(), _Ks(), _dist(n))))
    add(case(f"distort_points{sfx}", GK, KCal.distort_points, (_pixels(), _Ks(), _dist(n))))
_newK = structured(torch.tensor([[[36.0, 0.0, 19.0], [0.0, 36.0, 15.5], [0.0, 0.0, 1.0]]]),
                   torch.tensor([[[39.0, 0.0, 20.5], [0.0, 38.0, 14.5], [0.0, 0.0, 1.0]]]))
add(case("undistort_points[new_K]", GK, KCal.undistort_points, (_pixels(), _Ks(), _dist(5), _newK)))
add(case("undistort_points[num_iters=10]", GK, KCal.undistort_points, (_pixels(), _Ks(), _dist(5)), kwargs={"num_iters": 10}))
add(case("undistort_points[batch=2]", GK, KCal.undistort_points, (_pixels(20, 2), _Ks(2), derived(lambda d: d.repeat(2, 1), _dist(5)))))
add(case("distort_points[new_K]", GK, KCal.distort_points, (_pixels(), _Ks(), _dist(5), _newK)))
add(case("undistort_image", GK, KCal.undistort_image, (img(), _Ks(), _dist(5))))
add(case("undistort_image[dist=8]", GK, KCal.undistort_image, (img(), _Ks(), _dist(8))))
add(case("undistort_image[dist=14]", GK, KCal.undistort_image, (img(), _Ks(), _dist(14))))
add(case("undistort_image[batch=2]", GK, KCal.undistort_image, (batch(), _Ks(2), derived(lambda d: d.repeat(2, 1), _dist(5)))))
add(case("tilt_projection", GK, KCal.tilt_projection, (torch.tensor([0.02, -0.01]), torch.tensor([-0.03, 0.015]))))
add(case("tilt_projection[return_inverse]", GK, KCal.tilt_projection, (torch.tensor([0.02, -0.01]), torch.tensor([-0.03, 0.015])), kwargs={"return_inverse": True}))
_wpts = _world(12, 1, 160)
_ipts = derived(lambda w, r, t, k: _proj(w[0], r, t, k)[None].contiguous(), _wpts, _R2, _t2, _K)
add(case("solve_pnp_dlt", GK, KCal.solve_pnp_dlt, (_wpts, _ipts, _Ks())))
add(case("solve_pnp_dlt[weights]", GK, KCal.solve_pnp_dlt, (_wpts, _ipts, _Ks(), rand(1, 12, seed=161, low=0.5, high=1.0))))
add(case("solve_pnp_dlt[batch=2]", GK, KCal.solve_pnp_dlt,
         (*derived(lambda w, w2, r, t, rb, tb, k: (torch.cat([w, w2]), torch.cat([_proj(w[0], r, t, k)[None], _proj(w2[0], rb, tb, k)[None]])),
                   _wpts, _world(12, 1, 162), _R2, _t2, _R2b, _t2b, _K), _Ks(2))))

# ---------------------------------------------------------------------------------------------
# depth
# ---------------------------------------------------------------------------------------------
GD = "geometry.depth"
for nm, fn, kw, ins in [
    ("depth_to_3d", KD.depth_to_3d, {}, (_depth(), _Ks())),
    ("depth_to_3d[normalize_points]", KD.depth_to_3d, {"normalize_points": True}, (_depth(), _Ks())),
    ("depth_to_3d[batch=2]", KD.depth_to_3d, {}, (_depth(2), _Ks(2))),
    ("depth_to_3d_v2", KD.depth_to_3d_v2, {}, (derived(lambda d: d[:, 0].contiguous(), _depth()), _Ks())),
    ("depth_to_3d_v2[normalize_points]", KD.depth_to_3d_v2, {"normalize_points": True}, (derived(lambda d: d[:, 0].contiguous(), _depth()), _Ks())),
    ("depth_to_normals", KD.depth_to_normals, {}, (_depth(), _Ks())),
    ("depth_to_normals[normalize_points]", KD.depth_to_normals, {"normalize_points": True}, (_depth(), _Ks())),
    ("depth_to_normals[batch=2]", KD.depth_to_normals, {}, (_depth(2), _Ks(2))),
    ("depth_from_plane_equation", KD.depth_from_plane_equation, {},
     (torch.tensor([[0.1, -0.2, 0.97]]), torch.tensor([[3.0]]), _pixels(), _Ks())),
    ("depth_from_disparity", KD.depth_from_disparity, {"baseline": 0.5, "focal": 40.0}, (rand(1, 1, 32, 40, seed=150, low=2.0, high=12.0),)),
    ("warp_frame_depth", KD.warp_frame_depth, {}, (img(), _depth(), _motion((1.0, -2.0, 1.0), (0.05, 0.0, 0.02)), _Ks())),
    ("warp_frame_depth[normalize_points]", KD.warp_frame_depth, {"normalize_points": True},
     (img(), _depth(), _motion((1.0, -2.0, 1.0), (0.05, 0.0, 0.02)), _Ks())),
    ("warp_frame_depth[batch=2]", KD.warp_frame_depth, {},
     (batch(), _depth(2), derived(lambda a, b: torch.cat([a, b]), _motion((1.0, -2.0, 1.0), (0.05, 0.0, 0.02)), _motion((-1.0, 1.0, 0.5), (-0.05, 0.02, 0.0))), _Ks(2))),
]:
    add(case(nm, GD, fn, ins, kwargs=kw))
add(case("depth_to_3d_v2[xyz_grid]", GD, Forward(KD.depth_to_3d_v2, lambda d, k, g: KD.depth_to_3d_v2(d, k, xyz_grid=g)),
         (derived(lambda d: d[:, 0].contiguous(), _depth()), _Ks(), derived(lambda k: KD.unproject_meshgrid(32, 40, k), _Ks())), note="precomputed ray grid (from unproject_meshgrid) as a graph input"))
add(case("unproject_meshgrid", GD, Forward(KD.unproject_meshgrid, lambda k: KD.unproject_meshgrid(32, 40, k)), (_Ks(),)))
add(case("unproject_meshgrid[normalize_points]", GD, Forward(KD.unproject_meshgrid, lambda k: KD.unproject_meshgrid(32, 40, k, normalize_points=True)), (_Ks(),)))
add(case("depth_from_disparity[tensor-params]", GD, KD.depth_from_disparity,
         (rand(2, 1, 32, 40, seed=152, low=2.0, high=12.0), torch.tensor([0.5, 0.3]), torch.tensor([40.0, 45.0])),
         note="per-sample baseline and focal as graph inputs"))


def _cams(k, e_dst, e_src, h, w):
    return _Pin(k, e_dst, h, w), _Pin(k, e_src, h, w)


_e_dst = _Rt4(torch.eye(3), torch.zeros(3))
_e_src = _motion((0.5, -1.0, 0.5), (0.05, 0.0, 0.0))
_dw_in = (_K4(), _e_dst, _e_src, *_hw())
_depth_planes = torch.full((1, 1, 32, 40), 3.0)


def _depth_warper(k, ed, es, h, w, d, patch, **kw):
    dst, src = _cams(k, ed, es, h, w)
    dw = KD.DepthWarper(dst, 32, 40, **kw)
    dw.compute_projection_matrix(src)
    return dw(d, patch)


add(case("DepthWarper", GD, Forward(KD.DepthWarper, _depth_warper), (*_dw_in, _depth(), img()),
         note="DepthWarper(pinhole_dst, 32, 40).compute_projection_matrix(pinhole_src)(depth_src, patch_dst); cameras built from graph inputs"))
add(case("DepthWarper[nearest]", GD, Forward(KD.DepthWarper, lambda *a: _depth_warper(*a, mode="nearest", padding_mode="border")), (*_dw_in, _depth(), img())))
add(case("DepthWarper[align_corners=False]", GD, Forward(KD.DepthWarper, lambda *a: _depth_warper(*a, align_corners=False)), (*_dw_in, _depth(), img())))


def _dw_grid(k, ed, es, h, w, d):
    dst, src = _cams(k, ed, es, h, w)
    dw = KD.DepthWarper(dst, 32, 40)
    dw.compute_projection_matrix(src)
    return dw.warp_grid(d)


def _dw_step(k, ed, es, h, w):
    dst, src = _cams(k, ed, es, h, w)
    dw = KD.DepthWarper(dst, 32, 40)
    dw.compute_projection_matrix(src)
    return dw.compute_subpixel_step()


add(case("DepthWarper.warp_grid", GD, method_call(KD.DepthWarper, "warp_grid", _dw_grid), (*_dw_in, _depth()), method="warp_grid"))
add(case("DepthWarper.compute_subpixel_step", GD, method_call(KD.DepthWarper, "compute_subpixel_step", _dw_step), _dw_in, method="compute_subpixel_step"))
add(case("depth_warp", GD, Forward(KD.depth_warp, lambda k, ed, es, h, w, d, p: KD.depth_warp(*_cams(k, ed, es, h, w), d, p, 32, 40)),
         (*_dw_in, _depth(), img()), note="cameras built from graph inputs"))
add(case("depth_warp[align_corners=False]", GD,
         Forward(KD.depth_warp, lambda k, ed, es, h, w, d, p: KD.depth_warp(*_cams(k, ed, es, h, w), d, p, 32, 40, align_corners=False)),
         (*_dw_in, _depth(), img())))

# ---------------------------------------------------------------------------------------------
# epipolar
# ---------------------------------------------------------------------------------------------
GE = "geometry.epipolar"
_p1, _p2 = _scene()
_p1b, _p2b = _scene(batch_size=2)
_p1n, _p2n = _scene(noise=0.3)
_w = rand(1, 24, seed=170, low=0.5, high=1.0)
_t1c, _t2c = (derived(lambda t: t[None, :, None].contiguous(), x) for x in (_t1, _t2))
_R1c, _R2c = (derived(lambda r: r[None].contiguous(), x) for x in (_R1, _R2))

for nm, fn, kw, ins in [
    ("find_fundamental", KE.find_fundamental, {}, (_p1, _p2)),
    ("find_fundamental[weights]", KE.find_fundamental, {}, (_p1n, _p2n, _w)),
    ("find_fundamental[batch=2]", KE.find_fundamental, {}, (_p1b, _p2b)),
    ("find_fundamental[7POINT]", KE.find_fundamental, {"method": "7POINT"}, (_head(_p1, 7), _head(_p2, 7))),
    ("find_fundamental[7POINT][batch=2]", KE.find_fundamental, {"method": "7POINT"}, (_head(_p1b, 7), _head(_p2b, 7))),
    ("compute_correspond_epilines", KE.compute_correspond_epilines, {}, (_p1, _F())),
    ("compute_correspond_epilines[homogeneous]", KE.compute_correspond_epilines, {},
     (derived(lambda p: torch.cat([p, torch.ones(1, 24, 1)], -1), _p1), _F())),
    ("compute_correspond_epilines[batch=2]", KE.compute_correspond_epilines, {}, (_p1b, _F(2))),
    ("get_perpendicular", KE.get_perpendicular, {}, (derived(KE.compute_correspond_epilines, _p1, _F()), _p2n)),
    ("get_closest_point_on_epipolar_line", KE.get_closest_point_on_epipolar_line, {}, (_p1, _p2n, _F())),
    ("fundamental_from_essential", KE.fundamental_from_essential, {}, (_E(), _Ks(), _Ks())),
    ("fundamental_from_essential[batch=2]", KE.fundamental_from_essential, {}, (_E(2), _Ks(2), _Ks(2))),
    ("essential_from_fundamental", KE.essential_from_fundamental, {}, (_F(), _Ks(), _Ks())),
    ("fundamental_from_projections", KE.fundamental_from_projections, {}, (_P(_R1, _t1), _P(_R2, _t2))),
    ("essential_from_Rt", KE.essential_from_Rt, {}, (_R1c, _t1c, _R2c, _t2c)),
    ("relative_camera_motion", KE.relative_camera_motion, {}, (_R2c, _t2c, derived(lambda r: r[None].contiguous(), _R2b), derived(lambda t: t[None, :, None].contiguous(), _t2b))),
    ("decompose_essential_matrix", KE.decompose_essential_matrix, {}, (_E(),)),
    ("decompose_essential_matrix[batch=2]", KE.decompose_essential_matrix, {}, (_E(2),)),
    ("decompose_essential_matrix_no_svd", KE.decompose_essential_matrix_no_svd, {}, (_E(),)),
    ("decompose_essential_matrix_no_svd[batch=2]", KE.decompose_essential_matrix_no_svd, {}, (_E(2),)),
    ("motion_from_essential", KE.motion_from_essential, {}, (_E(),)),
    ("motion_from_essential_choose_solution", KE.motion_from_essential_choose_solution, {}, (_E(), _Ks(), _Ks(), _p1, _p2)),
    ("motion_from_essential_choose_solution[mask]", KE.motion_from_essential_choose_solution, {},
     (_E(), _Ks(), _Ks(), _p1, _p2, torch.arange(24)[None] % 3 != 0)),
    ("motion_from_essential_choose_solution[batch=2]", KE.motion_from_essential_choose_solution, {}, (_E(2), _Ks(2), _Ks(2), _p1b, _p2b)),
    ("project_to_essential", KE.project_to_essential, {}, (derived(lambda e: (e + randn(1, 3, 3, seed=171, scale=0.01)).contiguous(), _E()),)),
    ("normalize_points", KE.normalize_points, {}, (_p1,)),
    ("normalize_transformation", KE.normalize_transformation, {}, (derived(lambda f: f * 3.0, _F()),)),
    ("projection_from_KRt", KE.projection_from_KRt, {}, (_Ks(), _R2c, _t2c)),
    ("KRt_from_projection", KE.KRt_from_projection, {}, (_P(_R2, _t2),)),
    ("depth_from_point", KE.depth_from_point, {}, (_R2c, _t2c, _X)),
    ("projections_from_fundamental", KE.projections_from_fundamental, {}, (_F(2),)),
    ("scale_intrinsics", KE.scale_intrinsics, {"scale_factor": 0.5}, (_Ks(),)),
    ("scale_intrinsics[tensor]", KE.scale_intrinsics, {}, (_Ks(2), torch.tensor([0.5, 2.0]))),
    ("cross_product_matrix", KE.cross_product_matrix, {}, (randn(4, 3, seed=172),)),
    ("triangulate_points", KE.triangulate_points, {}, (_P(_R1, _t1), _P(_R2, _t2), _p1, _p2)),
    ("triangulate_points[svd]", KE.triangulate_points, {"solver": "svd"}, (_P(_R1, _t1), _P(_R2, _t2), _p1, _p2)),
    ("triangulate_points[cofactor]", KE.triangulate_points, {"solver": "cofactor"}, (_P(_R1, _t1), _P(_R2, _t2), _p1, _p2)),
    ("triangulate_points[noisy]", KE.triangulate_points, {}, (_P(_R1, _t1), _P(_R2, _t2), _p1n, _p2n)),
    ("sampson_epipolar_distance", KE.sampson_epipolar_distance, {}, (_p1n, _p2n, _F())),
    ("sampson_epipolar_distance[squared=False]", KE.sampson_epipolar_distance, {"squared": False}, (_p1n, _p2n, _F())),
    ("sampson_epipolar_distance[manual]", KE.sampson_epipolar_distance, {"use_matmul_at_less_than_points": 0}, (_p1n, _p2n, _F())),
    ("sampson_epipolar_distance[batch=2]", KE.sampson_epipolar_distance, {}, (_p1b, _p2b, _F(2))),
    ("symmetrical_epipolar_distance", KE.symmetrical_epipolar_distance, {}, (_p1n, _p2n, _F())),
    ("symmetrical_epipolar_distance[squared=False]", KE.symmetrical_epipolar_distance, {"squared": False}, (_p1n, _p2n, _F())),
    ("left_to_right_epipolar_distance", KE.left_to_right_epipolar_distance, {}, (_p1n, _p2n, _F())),
    ("right_to_left_epipolar_distance", KE.right_to_left_epipolar_distance, {}, (_p1n, _p2n, _F())),
]:
    add(case(nm, GE, fn, ins, kwargs=kw))

_ess_note = "returns ten candidate slots; slots of complex roots are NaN by design (NaN positions are compared, then ignored)"
for nm, ins in [
    ("find_essential", (_normalized(_head(_p1, 5)), _normalized(_head(_p2, 5)))),
    ("find_essential[N=24]", (_normalized(_p1), _normalized(_p2))),
    ("find_essential[weights]", (_normalized(_p1n), _normalized(_p2n), _w)),
    ("find_essential[batch=2]", (_normalized(_head(_p1b, 5)), _normalized(_head(_p2b, 5)))),
]:
    add(case(nm, GE, KE.find_essential, ins, note=_ess_note, tags=("nan-by-design",)))
add(case("normalize_points[weights]", GE, Forward(KE.normalize_points, lambda p, w: KE.normalize_points(p, weights=w)), (_p1, _w)))
add(case("intrinsics_like", GE, Forward(KE.intrinsics_like, lambda x: KE.intrinsics_like(40.0, x)), (img(),)))
add(case("random_intrinsics", GE, KE.random_intrinsics, (torch.tensor(20.0), torch.tensor(60.0)), check=False,
         note="samples the intrinsics inside the graph"))
add(case("generate_scene", GE, KE.generate_scene, (), kwargs={"num_views": 3, "num_points": 20}, check=False,
         note="samples a random scene inside the graph; no tensor inputs"))

# ---------------------------------------------------------------------------------------------
# homography
# ---------------------------------------------------------------------------------------------
GH = "geometry.homography"
_h1, _h2 = _hpairs()
_h1n, _h2n = _hpairs(noise=0.5)
_h1b, _h2b = _hpairs(batch_size=2)
_hw_ = rand(1, 20, seed=180, low=0.5, high=1.0)
_ls1, _ls2 = _segments()
for nm, fn, kw, ins in [
    ("find_homography_dlt", KH.find_homography_dlt, {}, (_h1, _h2)),
    ("find_homography_dlt[svd]", KH.find_homography_dlt, {"solver": "svd"}, (_h1, _h2)),
    ("find_homography_dlt[weights]", KH.find_homography_dlt, {}, (_h1n, _h2n, _hw_)),
    ("find_homography_dlt[N=4]", KH.find_homography_dlt, {}, (_head(_h1, 4), _head(_h2, 4))),
    ("find_homography_dlt[batch=2]", KH.find_homography_dlt, {}, (_h1b, _h2b)),
    ("find_homography_dlt_iterated", KH.find_homography_dlt_iterated, {}, (_h1n, _h2n, _hw_)),
    ("find_homography_dlt_iterated[n_iter=2]", KH.find_homography_dlt_iterated, {"n_iter": 2, "soft_inl_th": 1.0}, (_h1n, _h2n, _hw_)),
    ("find_homography_lines_dlt", KH.find_homography_lines_dlt, {}, (_ls1, _ls2)),
    ("find_homography_lines_dlt[weights]", KH.find_homography_lines_dlt, {}, (_ls1, _ls2, rand(1, 10, seed=181, low=0.5, high=1.0))),
    ("find_homography_lines_dlt_iterated", KH.find_homography_lines_dlt_iterated, {}, (_ls1, _ls2, rand(1, 10, seed=181, low=0.5, high=1.0))),
    ("line_segment_transfer_error_one_way", KH.line_segment_transfer_error_one_way, {}, (_ls1, _ls2, _H())),
    ("line_segment_transfer_error_one_way[squared]", KH.line_segment_transfer_error_one_way, {"squared": True}, (_ls1, _ls2, _H())),
    ("oneway_transfer_error", KH.oneway_transfer_error, {}, (_h1n, _h2n, _H())),
    ("oneway_transfer_error[squared=False]", KH.oneway_transfer_error, {"squared": False}, (_h1n, _h2n, _H())),
    ("symmetric_transfer_error", KH.symmetric_transfer_error, {}, (_h1n, _h2n, _H())),
    ("symmetric_transfer_error[squared=False]", KH.symmetric_transfer_error, {"squared": False}, (_h1n, _h2n, _H())),
    ("sampson_homography_distance", KH.sampson_homography_distance, {}, (_h1n, _h2n, _H())),
    ("sampson_homography_distance[squared=False]", KH.sampson_homography_distance, {"squared": False}, (_h1n, _h2n, _H())),
    ("sample_is_valid_for_homography", KH.sample_is_valid_for_homography, {}, (_head(_h1b, 4), _head(_h2b, 4))),
]:
    add(case(nm, GH, fn, ins, kwargs=kw))

# ---------------------------------------------------------------------------------------------
# RANSAC (seeded; hypotheses are sampled inside the graph, so values are not compared)
# ---------------------------------------------------------------------------------------------
GR = "geometry.ransac"


def _with_outliers(p1, p2, k: int = 6, seed: int = 190):
    """Batch element 0 of two correspondence sets, the first k of p2 replaced by random pixels (declared
    with the same on the second values)."""
    def build(a, b, o):
        b = b[0].clone()
        b[:k] = o[0]
        return a[0].contiguous(), b.contiguous()

    return derived(build, p1, p2, _pixels(k, 1, seed))


_A2 = (torch.tensor([[0.95, 0.1], [-0.1, 1.05]]), torch.tensor([2.0, -1.0]))
_rh = _with_outliers(*_hpairs(40, noise=0.3, seed=191))
_rf = _with_outliers(*_scene(40, noise=0.3))
_re = tuple(_normalized(x) for x in _rf)
_ra = _with_outliers(_pixels(40, 1, 193), derived(lambda p: (p @ _A2[0].T + _A2[1]).contiguous(), _pixels(40, 1, 193)))
_rl = derived(lambda a, b: (a[0].contiguous(), b[0].contiguous()), *_segments(20, 1, 194))
_ransac_note = "RANSAC(seed=0): hypotheses sampled inside the graph"
for nm, kw, ins in [
    ("RANSAC", {}, _rh),
    ("RANSAC[homography][lm]", {"local_optimization": "lm"}, _rh),
    ("RANSAC[homography][prosac]", {"prosac_sampling": True}, _rh),
    ("RANSAC[affine]", {"model_type": "affine"}, _ra),
    ("RANSAC[fundamental]", {"model_type": "fundamental", "inl_th": 1.0}, _rf),
    ("RANSAC[fundamental_8pt]", {"model_type": "fundamental_8pt", "inl_th": 1.0}, _rf),
    ("RANSAC[fundamental_7pt][degensac]", {"model_type": "fundamental_7pt", "inl_th": 1.0, "local_optimization": "lm", "degensac": True}, _rf),
    ("RANSAC[essential]", {"model_type": "essential", "inl_th": 1e-2}, _re),
    ("RANSAC[homography_from_linesegments]", {"model_type": "homography_from_linesegments"}, _rl),
]:
    add(case(nm, GR, RANSAC(**{"max_iter": 5, "seed": 0, **kw}), ins, check=False, note=_ransac_note))
add(case("RANSAC[weights]", GR, RANSAC(max_iter=5, seed=0), (*_rh, rand(40, seed=195, low=0.2, high=1.0)), check=False, note=_ransac_note))
