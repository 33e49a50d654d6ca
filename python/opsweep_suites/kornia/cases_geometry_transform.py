"""kornia.geometry.transform (warps, resizes, crops, flips, pyramids, thin-plate splines, elastic
transform, image registration) and kornia.geometry.grid.

Bases, not counted as operators by ``opsweep coverage`` (listed under ``not_operators``):
    kornia.geometry.transform.BaseModel   abstract base of the registration models (its methods are
                                          abstract); surveyed through Homography and Similarity.
    kornia.geometry.transform.BaseWarper  base class of HomographyWarper whose forward only dispatches
                                          to a subclass; surveyed through HomographyWarper.
Everything else public in kornia.geometry.transform and kornia.geometry.grid has at least one case.
"""

from __future__ import annotations

import math

import torch
from torch import nn

import kornia.geometry.transform as T
from kornia.geometry import grid as G
from opsweep_suites.kornia._common import FRESH_OFFSET, Forward, batch, case, derived, gray, img, method_call, rand, second_value, structured, twin

NOT_SURVEYED: dict = {}  # BaseModel and BaseWarper are bases (types, not counted); see the docstring


# ---------------------------------------------------------------------------------------------
# seeded geometric inputs
# ---------------------------------------------------------------------------------------------
# Transforms, boxes, control points and sampling maps are made by helpers whose ``second`` flag makes
# another input of the same kind (another angle, seed, shift): ``twin`` declares it the fresh-input
# value, ``derived`` the one of inputs computed from them, so the fresh-input check runs on valid,
# well-conditioned transforms rather than uniformly redrawn matrix entries.


def _affine(batch_size: int = 1, angle: float = 15.0, scale: float = 0.9, tx: float = 2.0, ty: float = -1.5, cx: float = 19.5, cy: float = 15.5) -> torch.Tensor:
    """A 2x3 rotation-scale-translation about the image centre (pixel coordinates); the second value
    turns the other way (-angle / 2), scales by 1.1 x scale and translates the other way."""
    return twin(lambda second=False: _affine_of(batch_size, -0.5 * angle if second else angle, 1.1 * scale if second else scale,
                                                -tx if second else tx, -ty if second else ty, cx, cy))


def _affine_of(batch_size, angle, scale, tx, ty, cx, cy) -> torch.Tensor:
    out = []
    for b in range(batch_size):
        a = math.radians(angle + 10.0 * b)
        s = scale + 0.05 * b
        c, si = s * math.cos(a), s * math.sin(a)
        out.append([[c, si, (1 - c) * cx - si * cy + tx], [-si, c, si * cx + (1 - c) * cy + ty]])
    return torch.tensor(out, dtype=torch.float32)


def _homography(batch_size: int = 1, seed: int = 11) -> torch.Tensor:
    """A mild projective homography in pixel coordinates for 32x40 images."""
    def build(second=False):
        aff = second_value(_affine(batch_size)) if second else _affine(batch_size)
        h = torch.cat([aff, torch.zeros(batch_size, 1, 3)], 1)
        h[:, 2, 2] = 1.0
        h[:, 2, :2] = rand(batch_size, 2, seed=seed + FRESH_OFFSET * second, low=-4e-4, high=4e-4)
        return h.contiguous()

    return twin(build)


def _norm_homography(batch_size: int = 1, seed: int = 12) -> torch.Tensor:
    """A mild homography in normalized [-1, 1] coordinates."""
    def build(second=False):
        h = torch.eye(3).repeat(batch_size, 1, 1) + rand(batch_size, 3, 3, seed=seed + FRESH_OFFSET * second, low=-0.08, high=0.08)
        h[:, 2, 2] = 1.0
        return h.contiguous()

    return twin(build)


def _affine3d(batch_size: int = 1) -> torch.Tensor:
    """A 3x4 rotation (about z, then x) plus translation for 8x16x16 volumes (voxel coordinates); the
    second value turns about z and x the other way and translates the other way."""
    return twin(_affine3d_of, batch_size)


def _affine3d_of(batch_size: int = 1, second: bool = False) -> torch.Tensor:
    a, b = math.radians(-7.0 if second else 12.0), math.radians(-5.0 if second else 8.0)
    rz = torch.tensor([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    rx = torch.tensor([[1.0, 0.0, 0.0], [0.0, math.cos(b), -math.sin(b)], [0.0, math.sin(b), math.cos(b)]])
    r = 0.95 * rz @ rx
    c = torch.tensor([7.5, 7.5, 3.5])
    t = c - r @ c + torch.tensor([-0.25, 0.5, -0.25] if second else [0.5, -0.5, 0.25])
    m = torch.cat([r, t[:, None]], 1)
    return m.expand(batch_size, 3, 4).contiguous()


def _homography3d(batch_size: int = 1) -> torch.Tensor:
    def build(second=False):
        m = torch.cat([_affine3d_of(batch_size, second), torch.tensor([[[0.0, 0.0, 0.0, 1.0]]]).expand(batch_size, 1, 4)], 1)
        m = m.clone()
        m[:, 3, :3] = torch.tensor([-1e-3, 2e-3, -1e-3] if second else [2e-3, -1e-3, 1e-3])
        return m.contiguous()

    return twin(build)


def _box(x1: float, y1: float, x2: float, y2: float) -> list:
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def _boxes(*bs) -> torch.Tensor:
    """Boxes as four corners each; the second value: every box moved by (+1, +2) pixels (same sizes)."""
    return twin(lambda second=False: torch.tensor([_box(*((b[0] + 1, b[1] + 2, b[2] + 1, b[3] + 2) if second else b)) for b in bs],
                                                  dtype=torch.float32))


def _box3d(x1, y1, z1, x2, y2, z2) -> list:
    face = lambda z: [[x1, y1, z], [x2, y1, z], [x2, y2, z], [x1, y2, z]]  # noqa: E731
    return face(z1) + face(z2)


def _boxes3d(*bs) -> torch.Tensor:
    """3D boxes as eight corners each; the second value: every box moved by (+1, +2, 0) voxels."""
    return twin(lambda second=False: torch.tensor([_box3d(*((b[0] + 1, b[1] + 2, b[2], b[3] + 1, b[4] + 2, b[5]) if second else b))
                                                   for b in bs], dtype=torch.float32))


def _crop_mat(rows: list) -> torch.Tensor:
    """A (1, R, C) crop transform from its rows; the second value: the translation column moved by
    +1.3, -0.7 (and +0.4) pixels (not by halves: nearest sampling would sit on rounding ties)."""
    m = torch.tensor([rows])
    moved = m.clone()
    moved[0, : len(rows[0]) - 1, -1] += torch.tensor([1.3, -0.7, 0.4][: len(rows[0]) - 1])
    return structured(m, moved)


def _affine3d_nearest_of(batch_size: int = 1, second: bool = False) -> torch.Tensor:
    """``_affine3d_of`` moved by a fraction of a voxel: its rotation centre maps the output column x = 8 onto the
    source's x = 7.5, a tie that nearest sampling breaks by float rounding (eager and a capture then pick
    neighbouring voxels). Moved, every sample of both values is at least 2.4e-4 voxel from a tie (1.6e-7 before),
    some 200 times float32's rounding of these coordinates (about 1e-6 at 10 voxels)."""
    return _affine3d_of(batch_size, second) + torch.tensor([0.18, 0.04, -0.28])[:, None] * torch.tensor([0.0, 0.0, 0.0, 1.0])


def _vol(b: int = 1, c: int = 1, seed: int = 5) -> torch.Tensor:
    return rand(b, c, 8, 16, 16, seed=seed)


def _tps_points_of(batch_size: int = 1, second: bool = False):
    src = torch.tensor([[-0.8, -0.8], [0.8, -0.8], [0.8, 0.8], [-0.8, 0.8], [0.0, 0.0], [0.3, -0.4]])
    if second:
        src = src * 0.9 + torch.tensor([0.05, -0.05])
    src = src.expand(batch_size, 6, 2).contiguous()
    dst = (src + rand(batch_size, 6, 2, seed=21 + FRESH_OFFSET * second, low=-0.1, high=0.1)).contiguous()
    return src, dst


def _tps_points(batch_size: int = 1):
    """Thin-plate-spline control points (well spread) and their moved copies."""
    return twin(_tps_points_of, batch_size)


def _tps_params(batch_size: int = 1):
    return derived(lambda src, dst: (dst, *(x.contiguous() for x in T.get_tps_transform(dst, src))), *_tps_points(batch_size))


def _remap_maps(batch_size: int = 1, normalized: bool = False):
    """Sampling maps: a smooth swirl of the pixel grid, mostly inside the 32x40 image (the second value:
    another swirl)."""
    return twin(_remap_maps_of, batch_size, normalized)


def _remap_maps_of(batch_size: int = 1, normalized: bool = False, second: bool = False):
    ys, xs = torch.meshgrid(torch.arange(32.0), torch.arange(40.0), indexing="ij")
    off = FRESH_OFFSET * second
    if second:
        dx = 1.5 * torch.cos(ys / 4.0) + rand(32, 40, seed=31 + off, low=-0.5, high=0.5)
        dy = 2.0 * torch.sin(xs / 7.0) + rand(32, 40, seed=32 + off, low=-0.5, high=0.5)
    else:
        dx = 2.0 * torch.sin(ys / 5.0) + rand(32, 40, seed=31, low=-0.5, high=0.5)
        dy = 1.5 * torch.cos(xs / 6.0) + rand(32, 40, seed=32, low=-0.5, high=0.5)
    mx, my = xs + dx, ys + dy
    if normalized:
        mx, my = mx / 39.0 * 2 - 1, my / 31.0 * 2 - 1
    return mx.expand(batch_size, 32, 40).contiguous(), my.expand(batch_size, 32, 40).contiguous()


def _elastic_noise(batch_size: int = 1, seed: int = 41) -> torch.Tensor:
    return rand(batch_size, 2, 32, 40, seed=seed, low=-1.0, high=1.0)


CASES = []
add = CASES.append
GT = "geometry.transform"

# ---------------------------------------------------------------------------------------------
# warps
# ---------------------------------------------------------------------------------------------
DS = (32, 40)
for nm, kw, ins in [
    ("warp_affine", {"dsize": DS}, (img(), _affine())),
    ("warp_affine[nearest]", {"dsize": DS, "mode": "nearest"}, (img(), _affine())),
    ("warp_affine[bicubic]", {"dsize": DS, "mode": "bicubic"}, (img(), _affine())),
    ("warp_affine[border]", {"dsize": DS, "padding_mode": "border"}, (img(), _affine())),
    ("warp_affine[reflection]", {"dsize": DS, "padding_mode": "reflection"}, (img(), _affine())),
    ("warp_affine[align_corners=False]", {"dsize": DS, "align_corners": False}, (img(), _affine())),
    ("warp_affine[dsize=16x20]", {"dsize": (16, 20)}, (img(), _affine())),
    ("warp_affine[batch=2]", {"dsize": DS}, (batch(), _affine(2))),
    ("warp_perspective", {"dsize": DS}, (img(), _homography())),
    ("warp_perspective[nearest]", {"dsize": DS, "mode": "nearest"}, (img(), _homography())),
    ("warp_perspective[bicubic]", {"dsize": DS, "mode": "bicubic"}, (img(), _homography())),
    ("warp_perspective[border]", {"dsize": DS, "padding_mode": "border"}, (img(), _homography())),
    ("warp_perspective[reflection]", {"dsize": DS, "padding_mode": "reflection"}, (img(), _homography())),
    ("warp_perspective[align_corners=False]", {"dsize": DS, "align_corners": False}, (img(), _homography())),
    ("warp_perspective[dsize=24x24]", {"dsize": (24, 24)}, (img(), _homography())),
    ("warp_perspective[batch=2]", {"dsize": DS}, (batch(), _homography(2))),
]:
    add(case(nm, GT, getattr(T, nm.split("[")[0]), ins, kwargs=kw))

_fill = torch.tensor([0.2, 0.5, 0.8])
add(case("warp_affine[fill]", GT, Forward(T.warp_affine, lambda x, m, f: T.warp_affine(x, m, DS, padding_mode="fill", fill_value=f)),
         (img(), _affine(), _fill.clone()), note="padding_mode='fill' with the fill colour as a graph input"))
add(case("warp_perspective[fill]", GT, Forward(T.warp_perspective, lambda x, m, f: T.warp_perspective(x, m, DS, padding_mode="fill", fill_value=f)),
         (img(), _homography(), _fill.clone()), note="padding_mode='fill' with the fill colour as a graph input"))

DS3 = (8, 16, 16)
for nm, kw, ins in [
    ("warp_affine3d", {"dsize": DS3}, (_vol(), _affine3d())),
    ("warp_affine3d[nearest]", {"dsize": DS3, "flags": "nearest"}, (_vol(), twin(_affine3d_nearest_of, 1))),
    ("warp_affine3d[border]", {"dsize": DS3, "padding_mode": "border"}, (_vol(), _affine3d())),
    ("warp_affine3d[align_corners=False]", {"dsize": DS3, "align_corners": False}, (_vol(), _affine3d())),
    ("warp_affine3d[batch=2]", {"dsize": DS3}, (_vol(2, 2), _affine3d(2))),
    ("warp_perspective3d", {"dsize": DS3}, (_vol(), _homography3d())),
    ("warp_perspective3d[nearest]", {"dsize": DS3, "flags": "nearest"}, (_vol(), _homography3d())),
    ("warp_perspective3d[border]", {"dsize": DS3, "border_mode": "border"}, (_vol(), _homography3d())),
    ("warp_perspective3d[align_corners=True]", {"dsize": DS3, "align_corners": True}, (_vol(), _homography3d())),
    ("warp_perspective3d[batch=2]", {"dsize": DS3}, (_vol(2, 2), _homography3d(2))),
]:
    add(case(nm, GT, getattr(T, nm.split("[")[0]), ins, kwargs=kw))

add(case("warp_grid", GT, T.warp_grid, (G.create_meshgrid(32, 40, False), _homography())))
add(case("warp_grid[batch=2]", GT, T.warp_grid, (G.create_meshgrid(32, 40, True), _norm_homography(2))))
add(case("warp_grid3d", GT, T.warp_grid3d, (G.create_meshgrid3d(8, 16, 16, False), _homography3d())))

for nm, kw, ins in [
    ("homography_warp", {"dsize": DS}, (img(), _norm_homography())),
    ("homography_warp[nearest]", {"dsize": DS, "mode": "nearest"}, (img(), _norm_homography())),
    ("homography_warp[border]", {"dsize": DS, "padding_mode": "border"}, (img(), _norm_homography())),
    ("homography_warp[align_corners=True]", {"dsize": DS, "align_corners": True}, (img(), _norm_homography())),
    ("homography_warp[pixel]", {"dsize": DS, "normalized_homography": False}, (img(), _homography())),
    ("homography_warp[normalized_coordinates=False]", {"dsize": DS, "normalized_coordinates": False, "normalized_homography": False}, (img(), _homography())),
    ("homography_warp[batch=2]", {"dsize": DS}, (batch(), _norm_homography(2))),
    ("homography_warp3d", {"dsize": DS3}, (_vol(), _homography3d())),
    ("homography_warp3d[nearest]", {"dsize": DS3, "mode": "nearest"}, (_vol(), _homography3d())),
    ("homography_warp3d[normalized_coordinates=False]", {"dsize": DS3, "normalized_coordinates": False}, (_vol(), _homography3d())),
]:
    add(case(nm, GT, getattr(T, nm.split("[")[0]), ins, kwargs=kw))

add(case("HomographyWarper", GT, T.HomographyWarper(32, 40), (img(), _norm_homography())))
add(case("HomographyWarper[nearest]", GT, T.HomographyWarper(32, 40, mode="nearest"), (img(), _norm_homography())))
add(case("HomographyWarper[border]", GT, T.HomographyWarper(32, 40, padding_mode="border", align_corners=True), (img(), _norm_homography())))
add(case("HomographyWarper[normalized_coordinates=False]", GT, T.HomographyWarper(32, 40, normalized_coordinates=False), (img(), _homography())))
add(case("HomographyWarper[batch=2]", GT, T.HomographyWarper(32, 40), (batch(), _norm_homography(2))))


def _precomputed_warper(patch, h):
    w = T.HomographyWarper(32, 40)
    w.precompute_warp_grid(h)
    return w(patch)


add(case("HomographyWarper.precompute_warp_grid", GT, method_call(T.HomographyWarper, "precompute_warp_grid", _precomputed_warper), (img(), _norm_homography()),
         method="precompute_warp_grid", note="precompute_warp_grid(H) then forward(patch) with the stored grid"))

for nm, kw, ins in [
    ("remap", {}, (img(), *_remap_maps())),
    ("remap[nearest]", {"mode": "nearest"}, (img(), *_remap_maps())),
    ("remap[bicubic]", {"mode": "bicubic"}, (img(), *_remap_maps())),
    ("remap[border]", {"padding_mode": "border"}, (img(), *_remap_maps())),
    ("remap[reflection]", {"padding_mode": "reflection"}, (img(), *_remap_maps())),
    ("remap[align_corners=True]", {"align_corners": True}, (img(), *_remap_maps())),
    ("remap[normalized_coordinates=True]", {"normalized_coordinates": True}, (img(), *_remap_maps(normalized=True))),
    ("remap[batch=2]", {}, (batch(), *_remap_maps(2))),
]:
    add(case(nm, GT, T.remap, ins, kwargs=kw))

# ---------------------------------------------------------------------------------------------
# transform matrices
# ---------------------------------------------------------------------------------------------
# quadrilaterals (the second values: other convex quadrilaterals)
_quad_src = structured(torch.tensor([[[0.0, 0.0], [39.0, 0.0], [39.0, 31.0], [0.0, 31.0]]]),
                       torch.tensor([[[1.0, 1.0], [38.0, 0.5], [38.5, 30.0], [0.5, 30.5]]]))
_quad_dst = structured(torch.tensor([[[2.0, 1.5], [37.0, -0.5], [38.5, 30.0], [1.0, 29.5]]]),
                       torch.tensor([[[-1.0, 0.5], [38.0, 2.0], [36.5, 31.5], [2.5, 28.0]]]))
add(case("get_perspective_transform", GT, T.get_perspective_transform, (_quad_src.clone(), _quad_dst.clone())))
add(case("get_perspective_transform[batch=2]", GT, T.get_perspective_transform,
         (derived(lambda q: q.repeat(2, 1, 1), _quad_src), derived(lambda q: torch.cat([q, q + rand(1, 4, 2, seed=51, low=-2, high=2)]), _quad_dst))))
_cube = twin(lambda second=False: torch.tensor([[[0.0, 0.0, 0.0], [15.0, 0.0, 0.0], [15.0, 15.0, 0.0], [0.0, 15.0, 0.0],
                                                 [0.0, 0.0, 7.0], [15.0, 0.0, 7.0], [15.0, 15.0, 7.0], [0.0, 15.0, 7.0]]])
                   * (0.9 if second else 1.0) + (0.5 if second else 0.0))  # a box of corners (the second: smaller, moved)
add(case("get_perspective_transform3d", GT, T.get_perspective_transform3d,
         (_cube.clone(), derived(lambda c: (c + rand(1, 8, 3, seed=52, low=-1, high=1)).contiguous(), _cube))))

_c2 = torch.tensor([[19.5, 15.5]])
add(case("get_rotation_matrix2d", GT, T.get_rotation_matrix2d, (_c2.clone(), torch.tensor([30.0]), torch.tensor([[0.9, 0.9]]))))
add(case("get_rotation_matrix2d[batch=2]", GT, T.get_rotation_matrix2d,
         (torch.tensor([[19.5, 15.5], [10.0, 8.0]]), torch.tensor([30.0, -45.0]), torch.tensor([[0.9, 0.9], [1.2, 0.8]]))))
add(case("get_affine_matrix2d", GT, T.get_affine_matrix2d,
         (torch.tensor([[2.0, -1.0]]), _c2.clone(), torch.tensor([[0.9, 1.1]]), torch.tensor([20.0]))))
add(case("get_affine_matrix2d[shear]", GT, T.get_affine_matrix2d,
         (torch.tensor([[2.0, -1.0]]), _c2.clone(), torch.tensor([[0.9, 1.1]]), torch.tensor([20.0]), torch.tensor([0.1]), torch.tensor([-0.2]))))
_c3 = torch.tensor([[7.5, 7.5, 3.5]])
add(case("get_affine_matrix3d", GT, T.get_affine_matrix3d,
         (torch.tensor([[1.0, -1.0, 0.5]]), _c3.clone(), torch.tensor([[0.9, 1.0, 1.1]]), torch.tensor([[10.0, 20.0, -15.0]]))))
add(case("get_affine_matrix3d[shear]", GT, T.get_affine_matrix3d,
         (torch.tensor([[1.0, -1.0, 0.5]]), _c3.clone(), torch.tensor([[0.9, 1.0, 1.1]]), torch.tensor([[10.0, 20.0, -15.0]]),
          torch.tensor([0.1]), torch.tensor([-0.1]), torch.tensor([0.05]), torch.tensor([0.2]), torch.tensor([-0.05]), torch.tensor([0.1]))))
add(case("get_shear_matrix2d", GT, T.get_shear_matrix2d, (_c2.clone(), torch.tensor([0.2]), torch.tensor([-0.1]))))
add(case("get_shear_matrix3d", GT, T.get_shear_matrix3d,
         (_c3.clone(), torch.tensor([0.1]), torch.tensor([-0.1]), torch.tensor([0.05]), torch.tensor([0.2]), torch.tensor([-0.05]), torch.tensor([0.1]))))
add(case("get_translation_matrix2d", GT, T.get_translation_matrix2d, (torch.tensor([[3.0, -2.0], [0.5, 1.5]]),)))
add(case("get_projective_transform", GT, T.get_projective_transform,
         (_c3.clone(), torch.tensor([[10.0, 20.0, -15.0]]), torch.tensor([[0.9, 1.0, 1.1]]))))
add(case("invert_affine_transform", GT, T.invert_affine_transform, (_affine(2),)))
_rz = structured(torch.tensor([[[0.8, -0.6, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]]]),
                 torch.tensor([[[0.96, 0.28, 0.0], [-0.28, 0.96, 0.0], [0.0, 0.0, 1.0]]]))  # rotations about z
add(case("projection_from_Rt", GT, T.projection_from_Rt, (_rz.clone(), torch.tensor([[[0.5], [-0.2], [2.0]]]))))

# ---------------------------------------------------------------------------------------------
# affine helpers: functions and modules
# ---------------------------------------------------------------------------------------------
_ang1, _ang2 = torch.tensor([30.0]), torch.tensor([30.0, -20.0])
for nm, fn, kw, ins in [
    ("rotate", T.rotate, {}, (img(), _ang1.clone())),
    ("rotate[center]", T.rotate, {}, (img(), _ang1.clone(), torch.tensor([[10.0, 12.0]]))),
    ("rotate[nearest]", T.rotate, {"mode": "nearest"}, (img(), _ang1.clone())),
    ("rotate[reflection]", T.rotate, {"padding_mode": "reflection"}, (img(), _ang1.clone())),
    ("rotate[border]", T.rotate, {"padding_mode": "border"}, (img(), _ang1.clone())),
    ("rotate[align_corners=False]", T.rotate, {"align_corners": False}, (img(), _ang1.clone())),
    ("rotate[batch=2]", T.rotate, {}, (batch(), _ang2.clone())),
    ("translate", T.translate, {}, (img(), torch.tensor([[3.5, -2.0]]))),
    ("translate[nearest]", T.translate, {"mode": "nearest"}, (img(), torch.tensor([[3.3, -2.0]]))),  # not 3.5: a half-pixel shift puts every sample on a rounding boundary
    ("translate[border]", T.translate, {"padding_mode": "border"}, (img(), torch.tensor([[3.5, -2.0]]))),
    ("translate[batch=2]", T.translate, {}, (batch(), torch.tensor([[3.5, -2.0], [-1.0, 4.0]]))),
    ("scale", T.scale, {}, (img(), torch.tensor([[0.8, 0.8]]))),
    ("scale[anisotropic]", T.scale, {}, (img(), torch.tensor([[1.2, 0.7]]))),
    ("scale[center]", T.scale, {}, (img(), torch.tensor([[1.2, 1.2]]), torch.tensor([[8.0, 10.0]]))),
    ("scale[nearest]", T.scale, {"mode": "nearest"}, (img(), torch.tensor([[0.8, 0.8]]))),
    ("scale[reflection]", T.scale, {"padding_mode": "reflection"}, (img(), torch.tensor([[0.8, 0.8]]))),
    ("shear", T.shear, {}, (img(), torch.tensor([[0.2, -0.1]]))),
    ("shear[nearest]", T.shear, {"mode": "nearest"}, (img(), torch.tensor([[0.2, -0.1]]))),
    ("shear[reflection]", T.shear, {"padding_mode": "reflection"}, (img(), torch.tensor([[0.2, -0.1]]))),
    ("shear[align_corners=True]", T.shear, {"align_corners": True}, (img(), torch.tensor([[0.2, -0.1]]))),
    ("affine", T.affine, {}, (img(), _affine())),
    ("affine[nearest]", T.affine, {"mode": "nearest"}, (img(), _affine())),
    ("affine[border]", T.affine, {"padding_mode": "border"}, (img(), _affine())),
    ("affine[align_corners=False]", T.affine, {"align_corners": False}, (img(), _affine())),
    ("affine[batch=2]", T.affine, {}, (batch(), _affine(2))),
    ("affine3d", T.affine3d, {}, (_vol(), _affine3d())),
    ("affine3d[nearest]", T.affine3d, {"mode": "nearest"}, (_vol(), _affine3d())),
    ("affine3d[border]", T.affine3d, {"padding_mode": "border"}, (_vol(), _affine3d())),
    ("rotate3d", T.rotate3d, {}, (_vol(), torch.tensor([20.0]), torch.tensor([10.0]), torch.tensor([-15.0]))),
    ("rotate3d[center]", T.rotate3d, {}, (_vol(), torch.tensor([20.0]), torch.tensor([10.0]), torch.tensor([-15.0]), torch.tensor([[6.0, 8.0, 3.0]]))),
    ("rotate3d[nearest]", T.rotate3d, {"mode": "nearest"}, (_vol(), torch.tensor([20.0]), torch.tensor([10.0]), torch.tensor([-15.0]))),
    ("rotate3d[batch=2]", T.rotate3d, {}, (_vol(2), torch.tensor([20.0, -5.0]), torch.tensor([10.0, 0.0]), torch.tensor([-15.0, 30.0]))),
]:
    add(case(nm, GT, fn, ins, kwargs=kw))

add(case("Affine", GT, T.Affine(angle=torch.tensor([25.0])), (img(),)))
add(case("Affine[full]", GT, T.Affine(angle=torch.tensor([25.0]), translation=torch.tensor([[2.0, -3.0]]), scale_factor=torch.tensor([[0.9, 1.1]]),
                                      shear=torch.tensor([[0.1, -0.05]]), center=torch.tensor([[18.0, 14.0]])), (img(),)))
add(case("Affine[nearest]", GT, T.Affine(angle=torch.tensor([25.0]), translation=torch.tensor([[2.0, -3.0]]), mode="nearest"), (img(),)))
add(case("Affine[reflection]", GT, T.Affine(scale_factor=torch.tensor([[0.8, 0.8]]), padding_mode="reflection"), (img(),)))
add(case("geometry.Rotate", GT, T.Rotate(torch.tensor([30.0])), (img(),)))
# 37 degrees, not 30: sin 30 = 0.5 puts nearest-neighbour samples on half-pixel rounding boundaries
add(case("geometry.Rotate[center]", GT, T.Rotate(torch.tensor([37.0]), center=torch.tensor([[10.0, 12.0]]), mode="nearest"), (img(),)))
add(case("Translate", GT, T.Translate(torch.tensor([[3.5, -2.0]])), (img(),)))
add(case("Translate[border]", GT, T.Translate(torch.tensor([[3.5, -2.0]]), padding_mode="border"), (img(),)))
add(case("Scale", GT, T.Scale(torch.tensor([[0.8, 0.8]])), (img(),)))
add(case("Scale[center]", GT, T.Scale(torch.tensor([[1.2, 0.9]]), center=torch.tensor([[8.0, 10.0]])), (img(),)))
add(case("Shear", GT, T.Shear(torch.tensor([[0.2, -0.1]])), (img(),)))
add(case("Shear[nearest]", GT, T.Shear(torch.tensor([[0.2, -0.1]]), mode="nearest", align_corners=False), (img(),)))

# ---------------------------------------------------------------------------------------------
# resize and rescale
# ---------------------------------------------------------------------------------------------
for nm, fn, kw, ins in [
    ("resize", T.resize, {"size": (16, 20)}, (img(),)),
    ("resize[upsample]", T.resize, {"size": (48, 60)}, (img(),)),
    ("resize[int-short-side]", T.resize, {"size": 24}, (img(),)),
    ("resize[int-long-side]", T.resize, {"size": 24, "side": "long"}, (img(),)),
    ("resize[side=vert]", T.resize, {"size": 20, "side": "vert"}, (img(),)),
    ("resize[nearest]", T.resize, {"size": (16, 20), "interpolation": "nearest"}, (img(),)),
    ("resize[bicubic]", T.resize, {"size": (48, 60), "interpolation": "bicubic"}, (img(),)),
    ("resize[area]", T.resize, {"size": (16, 20), "interpolation": "area"}, (img(),)),
    ("resize[antialias]", T.resize, {"size": (12, 15), "antialias": True}, (img(),)),
    ("resize[align_corners=True]", T.resize, {"size": (16, 20), "align_corners": True}, (img(),)),
    ("resize[batch=2]", T.resize, {"size": (16, 20)}, (batch(),)),
    ("resize[3d-input]", T.resize, {"size": (16, 20)}, (img()[0],)),
    ("rescale", T.rescale, {"factor": 0.5}, (img(),)),
    ("rescale[factor=2]", T.rescale, {"factor": 2.0}, (img(),)),
    ("rescale[anisotropic]", T.rescale, {"factor": (0.5, 0.75)}, (img(),)),
    ("rescale[antialias]", T.rescale, {"factor": 0.4, "antialias": True}, (img(),)),
    ("rescale[nearest]", T.rescale, {"factor": 0.5, "interpolation": "nearest"}, (img(),)),
    ("resize_to_be_divisible", T.resize_to_be_divisible, {"divisible_factor": 14}, (img(),)),
    ("resize_to_be_divisible[side=long]", T.resize_to_be_divisible, {"divisible_factor": 14, "side": "long"}, (img(),)),
    ("resize_to_be_divisible[nearest]", T.resize_to_be_divisible, {"divisible_factor": 8, "interpolation": "nearest"}, (img(),)),
]:
    add(case(nm, GT, fn, ins, kwargs=kw))

add(case("geometry.Resize", GT, T.Resize((16, 20)), (img(),)))
add(case("geometry.Resize[int]", GT, T.Resize(24, side="long"), (img(),)))
add(case("geometry.Resize[antialias]", GT, T.Resize((12, 15), antialias=True), (img(),)))
add(case("geometry.Resize[nearest]", GT, T.Resize((48, 60), interpolation="nearest"), (img(),)))
add(case("geometry.Rescale", GT, T.Rescale(0.5), (img(),)))
add(case("geometry.Rescale[factor=2]", GT, T.Rescale(2.0, interpolation="bicubic"), (img(),)))
add(case("geometry.Rescale[antialias]", GT, T.Rescale((0.5, 0.4), antialias=True), (img(),)))

# ---------------------------------------------------------------------------------------------
# flips
# ---------------------------------------------------------------------------------------------
for nm, t in [("hflip", T.hflip), ("vflip", T.vflip), ("rot180", T.rot180), ("Hflip", T.Hflip()), ("Vflip", T.Vflip()), ("Rot180", T.Rot180())]:
    add(case(nm, GT, t, (img(),)))
    add(case(f"{nm}[batch=2]", GT, t, (batch(),)))

# ---------------------------------------------------------------------------------------------
# crops
# ---------------------------------------------------------------------------------------------
# kornia's documented export behaviour (crop_by_indices' docstring), measured as a mismatch: under torch.export and
# torch.onnx.export a box that is not exactly ``size`` pixels is resampled with align_corners=True instead of cropped
# and resized as eager does.
_CROP_NOTES = {"crop_by_indices[resize]": "a 24x18 box to 12x12: under export kornia resamples it with align_corners=True "
               "(as its docstring says), so the values differ from eager's crop-then-resize",
               "crop_by_indices[pad]": "a 24x18 box to 20x26 with shape_compensation='pad': under export kornia resamples "
               "it to 20x26 with align_corners=True whatever shape_compensation says (its docstring), where eager pads"}
_b1 = _boxes((4.0, 3.0, 27.0, 20.0))
_b2 = _boxes((4.0, 3.0, 27.0, 20.0), (10.0, 8.0, 35.0, 28.0))
for nm, fn, kw, ins in [
    ("crop_and_resize", T.crop_and_resize, {"size": (16, 16)}, (img(), _b1.clone())),
    ("crop_and_resize[upsample]", T.crop_and_resize, {"size": (40, 48)}, (img(), _b1.clone())),
    ("crop_and_resize[nearest]", T.crop_and_resize, {"size": (16, 16), "mode": "nearest"}, (img(), _b1.clone())),
    ("crop_and_resize[border]", T.crop_and_resize, {"size": (16, 16), "padding_mode": "border"}, (img(), _boxes((-4.0, -3.0, 27.0, 20.0)))),
    ("crop_and_resize[align_corners=False]", T.crop_and_resize, {"size": (16, 16), "align_corners": False}, (img(), _b1.clone())),
    ("crop_and_resize[batch=2]", T.crop_and_resize, {"size": (16, 16)}, (batch(), _b2.clone())),
    ("crop_by_boxes", T.crop_by_boxes, {}, (img(), _b1.clone(), _boxes((0.0, 0.0, 23.0, 17.0)))),
    ("crop_by_boxes[resize]", T.crop_by_boxes, {}, (img(), _b1.clone(), _boxes((0.0, 0.0, 11.0, 8.0)))),
    ("crop_by_boxes[nearest]", T.crop_by_boxes, {"mode": "nearest"}, (img(), _b1.clone(), _boxes((0.0, 0.0, 23.0, 17.0)))),
    ("crop_by_boxes[batch=2]", T.crop_by_boxes, {}, (batch(), _b2.clone(), _boxes((0.0, 0.0, 15.0, 15.0), (0.0, 0.0, 15.0, 15.0)))),
    ("crop_by_indices", T.crop_by_indices, {"size": (18, 24)}, (img(), _b1.clone())),
    ("crop_by_indices[size=None]", T.crop_by_indices, {}, (img(), _b1.clone())),
    ("crop_by_indices[resize]", T.crop_by_indices, {"size": (12, 12)}, (img(), _b1.clone())),
    ("crop_by_indices[pad]", T.crop_by_indices, {"size": (20, 26), "shape_compensation": "pad"}, (img(), _b1.clone())),
    ("crop_by_indices[batch=2]", T.crop_by_indices, {"size": (16, 16)}, (batch(), _boxes((4.0, 3.0, 19.0, 18.0), (10.0, 8.0, 25.0, 23.0)))),
    ("crop_by_transform_mat", T.crop_by_transform_mat, {"out_size": (18, 24)}, (img(), _crop_mat([[1.0, 0.0, -4.0], [0.0, 1.0, -3.0], [0.0, 0.0, 1.0]]))),
    ("crop_by_transform_mat[scaled]", T.crop_by_transform_mat, {"out_size": (16, 16)}, (img(), _crop_mat([[0.7, 0.05, -2.0], [-0.05, 0.9, -1.0], [0.0, 0.0, 1.0]]))),
    ("crop_by_transform_mat[nearest]", T.crop_by_transform_mat, {"out_size": (18, 24), "mode": "nearest"}, (img(), _crop_mat([[1.0, 0.0, -4.0], [0.0, 1.0, -3.0], [0.0, 0.0, 1.0]]))),
    ("crop_by_transform_mat[border]", T.crop_by_transform_mat, {"out_size": (24, 30), "padding_mode": "border"}, (img(), _crop_mat([[1.0, 0.0, 4.0], [0.0, 1.0, 3.0], [0.0, 0.0, 1.0]]))),
    ("center_crop", T.center_crop, {"size": (16, 20)}, (img(),)),
    ("center_crop[nearest]", T.center_crop, {"size": (16, 20), "mode": "nearest"}, (img(),)),
    ("center_crop[align_corners=False]", T.center_crop, {"size": (15, 21), "align_corners": False}, (img(),)),
    ("center_crop[batch=2]", T.center_crop, {"size": (16, 20)}, (batch(),)),
    ("center_crop3d", T.center_crop3d, {"size": (4, 8, 8)}, (_vol(),)),
    ("center_crop3d[nearest]", T.center_crop3d, {"size": (4, 8, 8), "interpolation": "nearest"}, (_vol(),)),
    ("center_crop3d[batch=2]", T.center_crop3d, {"size": (6, 10, 12)}, (_vol(2, 2),)),
    ("crop_and_resize3d", T.crop_and_resize3d, {"size": (4, 8, 8)}, (_vol(), _boxes3d((2.0, 3.0, 1.0, 11.0, 12.0, 5.0)))),
    ("crop_and_resize3d[nearest]", T.crop_and_resize3d, {"size": (4, 8, 8), "interpolation": "nearest"}, (_vol(), _boxes3d((2.2, 3.1, 1.3, 11.4, 12.2, 5.3)))),  # off the half-voxel boundaries
    ("crop_and_resize3d[align_corners=True]", T.crop_and_resize3d, {"size": (4, 8, 8), "align_corners": True}, (_vol(), _boxes3d((2.0, 3.0, 1.0, 11.0, 12.0, 5.0)))),
    ("crop_and_resize3d[batch=2]", T.crop_and_resize3d, {"size": (4, 8, 8)}, (_vol(2), _boxes3d((2.0, 3.0, 1.0, 11.0, 12.0, 5.0), (0.0, 1.0, 2.0, 9.0, 14.0, 7.0)))),
    ("crop_by_boxes3d", T.crop_by_boxes3d, {}, (_vol(), _boxes3d((2.0, 3.0, 1.0, 11.0, 12.0, 5.0)), _boxes3d((0.0, 0.0, 0.0, 9.0, 9.0, 4.0)))),
    ("crop_by_boxes3d[nearest]", T.crop_by_boxes3d, {"interpolation": "nearest"}, (_vol(), _boxes3d((2.0, 3.0, 1.0, 11.0, 12.0, 5.0)), _boxes3d((0.0, 0.0, 0.0, 4.0, 4.0, 2.0)))),
    ("crop_by_transform_mat3d", T.crop_by_transform_mat3d, {"out_size": (4, 8, 8)},
     (_vol(), _crop_mat([[1.0, 0.0, 0.0, -2.0], [0.0, 1.0, 0.0, -3.0], [0.0, 0.0, 1.0, -1.0], [0.0, 0.0, 0.0, 1.0]]))),
    ("crop_by_transform_mat3d[nearest]", T.crop_by_transform_mat3d, {"out_size": (4, 8, 8), "mode": "nearest"},
     (_vol(), _crop_mat([[0.77, 0.0, 0.0, -2.1], [0.0, 0.77, 0.0, -3.2], [0.0, 0.0, 0.77, -1.3]]))),  # off the half-voxel boundaries
]:
    add(case(nm, GT, fn, ins, kwargs=kw, note=_CROP_NOTES.get(nm, "")))

add(case("CenterCrop2D", GT, T.CenterCrop2D((16, 20)), (img(),)))
add(case("CenterCrop2D[resample]", GT, T.CenterCrop2D((16, 20), cropping_mode="resample"), (img(),)))
add(case("CenterCrop2D[resample-nearest]", GT, T.CenterCrop2D(17, cropping_mode="resample", resample="nearest", align_corners=False), (img(),)))
add(case("CenterCrop2D[batch=2]", GT, T.CenterCrop2D((16, 20)), (batch(),)))

# ---------------------------------------------------------------------------------------------
# elastic transform, thin-plate splines
# ---------------------------------------------------------------------------------------------
for nm, kw in [
    ("elastic_transform2d", {}),
    ("elastic_transform2d[kernel_size=7]", {"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0)}),
    ("elastic_transform2d[nearest]", {"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0), "mode": "nearest"}),
    ("elastic_transform2d[border]", {"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0), "padding_mode": "border"}),
    ("elastic_transform2d[reflection]", {"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0), "padding_mode": "reflection"}),
    ("elastic_transform2d[align_corners=True]", {"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0), "align_corners": True}),
]:
    add(case(nm, GT, T.elastic_transform2d, (img(), _elastic_noise()), kwargs=kw))
add(case("elastic_transform2d[batch=2]", GT, T.elastic_transform2d, (batch(), _elastic_noise(2)), kwargs={"kernel_size": (7, 7), "sigma": (3.0, 3.0), "alpha": (4.0, 4.0)}))
add(case("elastic_transform2d[tensor-params]", GT,
         Forward(T.elastic_transform2d, lambda x, n, s, a: T.elastic_transform2d(x, n, (9, 9), sigma=s, alpha=a)),
         (img(), _elastic_noise(), torch.tensor([4.0, 3.0]), torch.tensor([6.0, 5.0])), note="sigma and alpha as tensors (graph inputs)"))

_tsrc, _tdst = _tps_points()
add(case("get_tps_transform", GT, T.get_tps_transform, (_tsrc, _tdst)))
add(case("get_tps_transform[batch=2]", GT, T.get_tps_transform, _tps_points(2)))
add(case("warp_points_tps", GT, T.warp_points_tps, (rand(1, 10, 2, seed=22, low=-1, high=1), *_tps_params())))
add(case("warp_points_tps[batch=2]", GT, T.warp_points_tps, (rand(2, 10, 2, seed=22, low=-1, high=1), *_tps_params(2))))
add(case("warp_image_tps", GT, T.warp_image_tps, (img(), *_tps_params())))
add(case("warp_image_tps[align_corners=True]", GT, T.warp_image_tps, (img(), *_tps_params()), kwargs={"align_corners": True}))
add(case("warp_image_tps[border]", GT, T.warp_image_tps, (img(), *_tps_params()), kwargs={"padding_mode": "border"}))
add(case("warp_image_tps[batch=2]", GT, T.warp_image_tps, (batch(), *_tps_params(2))))

# ---------------------------------------------------------------------------------------------
# pyramids
# ---------------------------------------------------------------------------------------------
for nm, fn, kw, ins in [
    ("pyrdown", T.pyrdown, {}, (img(),)),
    ("pyrdown[align_corners=True]", T.pyrdown, {"align_corners": True}, (img(),)),
    ("pyrdown[replicate]", T.pyrdown, {"border_type": "replicate"}, (img(),)),
    ("pyrdown[factor=1.5]", T.pyrdown, {"factor": 1.5}, (img(),)),
    ("pyrdown[batch=2]", T.pyrdown, {}, (batch(),)),
    ("pyrup", T.pyrup, {}, (img(),)),
    ("pyrup[align_corners=True]", T.pyrup, {"align_corners": True}, (img(),)),
    ("pyrup[replicate]", T.pyrup, {"border_type": "replicate"}, (img(),)),
    ("pyrup[batch=2]", T.pyrup, {}, (batch(),)),
    ("build_pyramid", T.build_pyramid, {"max_level": 3}, (img(),)),
    ("build_pyramid[align_corners=True]", T.build_pyramid, {"max_level": 3, "align_corners": True}, (img(),)),
    ("build_pyramid[constant]", T.build_pyramid, {"max_level": 2, "border_type": "constant"}, (batch(),)),
    ("build_laplacian_pyramid", T.build_laplacian_pyramid, {"max_level": 3}, (img(),)),
    ("build_laplacian_pyramid[align_corners=True]", T.build_laplacian_pyramid, {"max_level": 3, "align_corners": True}, (img(),)),
    ("build_laplacian_pyramid[replicate]", T.build_laplacian_pyramid, {"max_level": 2, "border_type": "replicate"}, (batch(),)),
]:
    add(case(nm, GT, fn, ins, kwargs=kw))

add(case("PyrDown", GT, T.PyrDown(), (img(),)))
add(case("PyrDown[align_corners=True]", GT, T.PyrDown(align_corners=True, border_type="replicate"), (img(),)))
add(case("PyrUp", GT, T.PyrUp(), (img(),)))
add(case("PyrUp[align_corners=True]", GT, T.PyrUp(align_corners=True, border_type="replicate"), (img(),)))
_sp_img = rand(1, 1, 48, 64, seed=61)
add(case("ScalePyramid", GT, T.ScalePyramid(), (_sp_img,)))
add(case("ScalePyramid[n_levels=2]", GT, T.ScalePyramid(n_levels=2, init_sigma=1.2, min_size=10, extra_levels=1), (_sp_img.clone(),)))
add(case("ScalePyramid[double_image]", GT, T.ScalePyramid(n_levels=3, min_size=20, double_image=True), (gray(),)))
add(case("ScalePyramid[batch=2]", GT, T.ScalePyramid(n_levels=3), (rand(2, 3, 32, 40, seed=62),)))

# ---------------------------------------------------------------------------------------------
# image registration
# ---------------------------------------------------------------------------------------------


def _registrator(model="homography"):
    r = T.ImageRegistrator(model, pyramid_levels=1, num_iterations=2, lr=1e-2)
    return r


_reg_src = gray(71)
_reg_dst = T.warp_perspective(_reg_src, _homography(), DS, align_corners=False)


def _register(src, dst, model="homography"):
    with torch.enable_grad():
        return _registrator(model).register(src, dst)


def _warp_src(src, model="homography"):
    r = _registrator(model)
    return r.warp_src_into_dst(src)


def _warp_dst(dst, model="homography"):
    r = _registrator(model)
    return r.warp_dst_into_src(dst)


_reg_note = "ImageRegistrator(model, pyramid_levels=1, num_iterations=2): an Adam optimisation loop"
add(case("ImageRegistrator.register", GT, method_call(T.ImageRegistrator, "register", _register), (_reg_src, _reg_dst), method="register",
         note=_reg_note + " (gradients inside)"))
add(case("ImageRegistrator.register[similarity]", GT, method_call(T.ImageRegistrator, "register", lambda s, d: _register(s, d, "similarity")),
         (_reg_src.clone(), _reg_dst.clone()), method="register", note=_reg_note + " (gradients inside)"))
add(case("ImageRegistrator.warp_src_into_dst", GT, method_call(T.ImageRegistrator, "warp_src_into_dst", _warp_src), (_reg_src.clone(),),
         method="warp_src_into_dst", note="warp with the model's identity initialisation"))
add(case("ImageRegistrator.warp_dst_into_src", GT, method_call(T.ImageRegistrator, "warp_dst_into_src", _warp_dst), (_reg_dst.clone(),),
         method="warp_dst_into_src", note="warp with the model's identity initialisation"))


def _single_level_loss(src, dst, h):
    return _registrator().get_single_level_loss(src, dst, h)


add(case("ImageRegistrator.get_single_level_loss", GT, method_call(T.ImageRegistrator, "get_single_level_loss", _single_level_loss),
         (_reg_src.clone(), _reg_dst.clone(), _norm_homography()), method="get_single_level_loss"))


class _Model(nn.Module):
    """A registration model with its parameter perturbed, so forward does real work."""

    def __init__(self, cls, **kw):
        super().__init__()
        self.__opsweep_target__ = cls
        self.m = cls(**kw)
        with torch.no_grad():
            for i, p in enumerate(self.m.parameters()):
                p.add_(rand(*p.shape, seed=80 + i, low=-0.05, high=0.05))

    def forward(self):
        return self.m()

    def forward_inverse(self):
        return self.m.forward_inverse()


add(case("Homography.forward", GT, _Model(T.Homography), (), method="forward", note="the model's 3x3 parameter, normalised; no tensor inputs"))
add(case("Homography.forward_inverse", GT, _Model(T.Homography), (), method="forward_inverse", note="inverse of the model's parameter; no tensor inputs"))
add(case("Similarity.forward", GT, _Model(T.Similarity), (), method="forward", note="no tensor inputs"))
add(case("Similarity.forward[rotation=False]", GT, _Model(T.Similarity, rotation=False, scale=True, shift=True), (), method="forward", note="no tensor inputs"))
add(case("Similarity.forward_inverse", GT, _Model(T.Similarity), (), method="forward_inverse", note="no tensor inputs"))

# ---------------------------------------------------------------------------------------------
# kornia.geometry.grid
# ---------------------------------------------------------------------------------------------
GG = "geometry.grid"
add(case("create_meshgrid", GG, G.create_meshgrid, (), kwargs={"height": 32, "width": 40}, note="no tensor inputs: a constant grid"))
add(case("create_meshgrid[normalized_coordinates=False]", GG, G.create_meshgrid, (), kwargs={"height": 32, "width": 40, "normalized_coordinates": False}))
add(case("create_meshgrid[align_corners=False]", GG, G.create_meshgrid, (), kwargs={"height": 32, "width": 40, "align_corners": False}))
add(case("create_meshgrid3d", GG, G.create_meshgrid3d, (), kwargs={"depth": 8, "height": 16, "width": 16}, note="no tensor inputs: a constant grid"))
add(case("create_meshgrid3d[normalized_coordinates=False]", GG, G.create_meshgrid3d, (), kwargs={"depth": 8, "height": 16, "width": 16, "normalized_coordinates": False}))
