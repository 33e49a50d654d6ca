"""kornia.geometry: conversions, linalg, liegroup (So2, So3, Se2, Se3), quaternion, vector, line, plane,
pose, boxes, keypoints, bbox, subpix, solvers and pointcloud.

Classes whose state is tensors (Quaternion, the Lie groups, vectors, Boxes,
Keypoints, lines, planes, poses) are probed method by method: each case rebuilds the object from tensor
graph inputs and calls one method (`method=`), and returns the resulting object's tensors.

Not surveyed:
    (none without a case; these have a case marked skip, with the reason:)
    kornia.geometry.load_pointcloud_ply, load_pointcloud_ply_binary, save_pointcloud_ply,
    save_pointcloud_ply_binary: read or write files on disk, not tensor operators.
    kornia.geometry.validate_bbox, validate_bbox3d: return a Python bool (an input check), not a tensor.

Not implemented in kornia 0.9.0 (it raises NotImplementedError whatever the input): Boxes.trim,
Boxes.translate(method="fast"), Keypoints3D.transform_keypoints / transform_keypoints_ / pad / unpad,
Keypoints.to_tensor / Keypoints3D.to_tensor with as_padded_sequence=True, and building Keypoints or
Keypoints3D from a list of tensors (which the constructor's signature accepts). They have ordinary cases with valid
inputs, recorded n/a at the eager step with kornia's error, so the page shows them.
"""

from __future__ import annotations

import math

import torch

import kornia.geometry.bbox as KB
import kornia.geometry.conversions as KC
import kornia.geometry.linalg as KL
import kornia.geometry.solvers as KS
import kornia.geometry.subpix as KSP
from kornia.geometry import pointcloud as KPC
from kornia.geometry.boxes import Boxes, Boxes3D, VideoBoxes
from kornia.geometry.keypoints import Keypoints, Keypoints3D
from kornia.geometry.liegroup import Se2, Se3, So2, So3
from kornia.geometry.line import ParametrizedLine, fit_line
from kornia.geometry.plane import Hyperplane, fit_plane
from kornia.geometry.pose import NamedPose
from kornia.geometry.quaternion import Quaternion
from kornia.geometry.vector import Scalar, Vector2, Vector3
from opsweep_suites.kornia._common import (
    FRESH_OFFSET, Forward, case, derived, detector_image, method_call, rand, randn, structured, twin,
)

NOT_SURVEYED: dict = {}


def _out(x):
    """The tensors of a kornia geometry object (its parameters), so every case returns plain tensors."""
    if isinstance(x, (tuple, list)):
        return tuple(_out(v) for v in x)
    if isinstance(x, So2):
        return torch.view_as_real(x.z)
    if isinstance(x, So3):
        return x.q.data
    if isinstance(x, (Se2, Se3)):
        return (_out(x.rotation), _out(x.translation))
    if isinstance(x, NamedPose):
        return _out(x.pose)
    if isinstance(x, ParametrizedLine):
        return (x.origin, x.direction)
    if isinstance(x, Hyperplane):
        return (_out(x.normal), _out(x.offset))
    if isinstance(x, (Quaternion, Vector2, Vector3, Scalar, Boxes, Boxes3D, Keypoints, Keypoints3D)):
        return x.data
    return x


def _forward_tensors(target, fn):
    """Forward(target, fn) returning the tensors of the kornia geometry object fn makes (_out)."""
    return Forward(target, fn, outputs=_out)


def _method_tensors(cls, meth, fn):
    """method_call(cls, meth, fn) returning the tensors of the kornia geometry object fn makes (_out)."""
    return method_call(cls, meth, fn, outputs=_out)


# ---------------------------------------------------------------------------------------------
# seeded inputs
# ---------------------------------------------------------------------------------------------


# Inputs with structure (unit quaternions, rotations, rigid transforms, unit complex numbers, boxes,
# homographies, intrinsics) are made by helpers whose ``second`` flag draws the same kind of input
# with seed + FRESH_OFFSET (or other parameters): ``twin`` declares that the fresh-input value, and
# ``derived`` the one of inputs computed from them, so the fresh-input check runs on valid inputs.


def _quat_of(b: int = 4, seed: int = 200, second: bool = False) -> torch.Tensor:
    q = randn(b, 4, seed=seed + FRESH_OFFSET * second)
    q = q / q.norm(dim=-1, keepdim=True)
    return (q * torch.sign(q[:, :1])).contiguous()


def _quat(b: int = 4, seed: int = 200) -> torch.Tensor:
    """Unit quaternions (w, x, y, z) with w > 0."""
    return twin(_quat_of, b, seed)


def _aa_of(b: int = 4, seed: int = 201, max_angle: float = 2.5, second: bool = False) -> torch.Tensor:
    v = randn(b, 3, seed=seed + FRESH_OFFSET * second)
    v = v / v.norm(dim=-1, keepdim=True)
    return (v * rand(b, 1, seed=seed + 1 + FRESH_OFFSET * second, low=0.2, high=max_angle)).contiguous()


def _aa(b: int = 4, seed: int = 201, max_angle: float = 2.5) -> torch.Tensor:
    """Axis-angle vectors with angles in (0.2, max_angle)."""
    return twin(_aa_of, b, seed, max_angle)


def _R(b: int = 4, seed: int = 201) -> torch.Tensor:
    return derived(lambda aa: KC.axis_angle_to_rotation_matrix(aa).contiguous(), _aa(b, seed))


def _t(b: int = 4, seed: int = 202, d: int = 3) -> torch.Tensor:
    return randn(b, d, seed=seed).contiguous()


def _Rt4_of(b: int = 4, seed: int = 203, second: bool = False) -> torch.Tensor:
    m = torch.eye(4).repeat(b, 1, 1)
    m[:, :3, :3] = KC.axis_angle_to_rotation_matrix(_aa_of(b, seed, second=second))
    m[:, :3, 3] = _t(b, seed + 1 + FRESH_OFFSET * second)
    return m.contiguous()


def _Rt4(b: int = 4, seed: int = 203) -> torch.Tensor:
    """Rigid transforms (B, 4, 4)."""
    return twin(_Rt4_of, b, seed)


def _Rt3_of(b: int = 4, seed: int = 205, second: bool = False) -> torch.Tensor:
    off = FRESH_OFFSET * second
    a = rand(b, seed=seed + off, low=-math.pi, high=math.pi)
    m = torch.eye(3).repeat(b, 1, 1)
    m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1] = a.cos(), -a.sin(), a.sin(), a.cos()
    m[:, :2, 2] = randn(b, 2, seed=seed + 1 + off)
    return m.contiguous()


def _Rt3(b: int = 4, seed: int = 205) -> torch.Tensor:
    """Rigid 2D transforms (B, 3, 3)."""
    return twin(_Rt3_of, b, seed)


def _angles(b: int = 4, seed: int = 206) -> torch.Tensor:
    return rand(b, seed=seed, low=-2.5, high=2.5)


def _z(b: int = 4, seed: int = 207) -> torch.Tensor:
    """(B, 2) real and imaginary parts of unit complex numbers (So2 state)."""
    return derived(lambda a: torch.stack([a.cos(), a.sin()], -1).contiguous(), _angles(b, seed))


def _so2(z):
    return So2(torch.complex(z[..., 0], z[..., 1]))


def _so3(q):
    return So3(Quaternion(q))


def _se2(z, t):
    return Se2(_so2(z), t)


def _se3(q, t):
    return Se3(Quaternion(q), t)


def _pts(b: int = 4, n: int = 10, d: int = 3, seed: int = 208) -> torch.Tensor:
    return randn(b, n, d, seed=seed).contiguous()


CASES = []
add = CASES.append

# ---------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------
GV = "geometry.conversions"
_q, _aa4, _R4 = _quat(), _aa(), _R()
_pix = torch.stack([rand(2, 10, seed=210) * 39, rand(2, 10, seed=211) * 31], -1).contiguous()
_pix3 = torch.stack([rand(2, 10, seed=212) * 15, rand(2, 10, seed=213) * 15, rand(2, 10, seed=214) * 7], -1).contiguous()
_K = structured(torch.tensor([[[40.0, 0.0, 20.0], [0.0, 40.0, 16.0], [0.0, 0.0, 1.0]]]),
                torch.tensor([[[44.0, 0.0, 21.5], [0.0, 42.0, 15.0], [0.0, 0.0, 1.0]]]))
_H = structured(torch.tensor([[[1.05, -0.1, 3.0], [0.08, 0.95, -2.0], [2e-4, -3e-4, 1.0]]]),
                torch.tensor([[[0.97, 0.12, -2.0], [-0.06, 1.04, 1.5], [-3e-4, 2e-4, 1.0]]]))


def _H3_of(second: bool = False) -> torch.Tensor:
    h = torch.eye(4)[None].clone()
    h[0, :3, :3] = KC.axis_angle_to_rotation_matrix(_aa_of(1, 215, second=second))
    h[0, :3, 3] = torch.tensor([-0.5, 0.8, -0.3] if second else [1.0, -0.5, 0.5])
    return h


_H3 = twin(_H3_of)
_roll, _pitch, _yaw = rand(4, seed=216, low=-1.5, high=1.5), rand(4, seed=217, low=-1.2, high=1.2), rand(4, seed=218, low=-3.0, high=3.0)
for nm, fn, kw, ins in [
    ("axis_angle_to_quaternion", KC.axis_angle_to_quaternion, {}, (_aa4,)),
    ("axis_angle_to_rotation_matrix", KC.axis_angle_to_rotation_matrix, {}, (_aa4,)),
    ("axis_angle_to_rotation_matrix[small-angle]", KC.axis_angle_to_rotation_matrix, {}, (_aa4 * 1e-4,)),
    ("angle_axis_to_quaternion", KC.angle_axis_to_quaternion, {}, (_aa4,)),
    ("angle_axis_to_rotation_matrix", KC.angle_axis_to_rotation_matrix, {}, (_aa4,)),
    ("quaternion_to_axis_angle", KC.quaternion_to_axis_angle, {}, (_q,)),
    ("quaternion_to_angle_axis", KC.quaternion_to_angle_axis, {}, (_q,)),
    ("quaternion_to_rotation_matrix", KC.quaternion_to_rotation_matrix, {}, (_q,)),
    ("quaternion_to_rotation_matrix[batch=2x4]", KC.quaternion_to_rotation_matrix, {}, (derived(lambda q: q.view(2, 4, 4), _quat(8, 219)),)),
    ("rotation_matrix_to_axis_angle", KC.rotation_matrix_to_axis_angle, {}, (_R4,)),
    ("rotation_matrix_to_angle_axis", KC.rotation_matrix_to_angle_axis, {}, (_R4,)),
    ("rotation_matrix_to_quaternion", KC.rotation_matrix_to_quaternion, {}, (_R4,)),
    ("rotation_matrix_to_quaternion[near-pi]", KC.rotation_matrix_to_quaternion, {}, (derived(lambda aa: KC.axis_angle_to_rotation_matrix(torch.nn.functional.normalize(aa, dim=-1) * 3.1), _aa(4, 221)),)),
    ("normalize_quaternion", KC.normalize_quaternion, {}, (randn(4, 4, seed=222),)),
    ("quaternion_exp_to_log", KC.quaternion_exp_to_log, {}, (_q,)),
    ("quaternion_log_to_exp", KC.quaternion_log_to_exp, {}, (_aa4 * 0.5,)),
    ("quaternion_from_euler", KC.quaternion_from_euler, {}, (_roll, _pitch, _yaw)),
    ("euler_from_quaternion", KC.euler_from_quaternion, {}, derived(lambda q: tuple(q.unbind(-1)), _q)),
    ("angle_to_rotation_matrix", KC.angle_to_rotation_matrix, {}, (rand(2, 3, seed=223, low=-180, high=180),)),
    ("deg2rad", KC.deg2rad, {}, (rand(2, 5, seed=224, low=-360, high=360),)),
    ("rad2deg", KC.rad2deg, {}, (rand(2, 5, seed=225, low=-6, high=6),)),
    ("cart2pol", KC.cart2pol, {}, (randn(2, 10, seed=226), randn(2, 10, seed=227))),
    ("pol2cart", KC.pol2cart, {}, (rand(2, 10, seed=228, low=0.1, high=3), rand(2, 10, seed=229, low=-3, high=3))),
    ("convert_points_to_homogeneous", KC.convert_points_to_homogeneous, {}, (_pix,)),
    ("convert_points_to_homogeneous[3d]", KC.convert_points_to_homogeneous, {}, (_pts(2, 10, 3),)),
    ("convert_points_from_homogeneous", KC.convert_points_from_homogeneous, {}, (torch.cat([_pix, rand(2, 10, 1, seed=230, low=0.5, high=2)], -1),)),
    ("convert_points_from_homogeneous[4d]", KC.convert_points_from_homogeneous, {}, (torch.cat([_pts(2, 10, 3), rand(2, 10, 1, seed=231, low=0.5, high=2)], -1),)),
    ("convert_affinematrix_to_homography", KC.convert_affinematrix_to_homography, {}, (derived(lambda h: h[:, :2].contiguous(), _H),)),
    ("convert_affinematrix_to_homography3d", KC.convert_affinematrix_to_homography3d, {}, (derived(lambda h: h[:, :3].contiguous(), _H3),)),
    ("normalize_pixel_coordinates", KC.normalize_pixel_coordinates, {"height": 32, "width": 40}, (_pix,)),
    ("denormalize_pixel_coordinates", KC.denormalize_pixel_coordinates, {"height": 32, "width": 40}, (rand(2, 10, 2, seed=232, low=-1, high=1),)),
    ("normalize_pixel_coordinates3d", KC.normalize_pixel_coordinates3d, {"depth": 8, "height": 16, "width": 16}, (_pix3,)),
    ("denormalize_pixel_coordinates3d", KC.denormalize_pixel_coordinates3d, {"depth": 8, "height": 16, "width": 16}, (rand(2, 10, 3, seed=233, low=-1, high=1),)),
    ("normalize_points_with_intrinsics", KC.normalize_points_with_intrinsics, {}, (_pix[:1], _K)),
    ("denormalize_points_with_intrinsics", KC.denormalize_points_with_intrinsics, {}, (rand(1, 10, 2, seed=234, low=-0.5, high=0.5), _K)),
    ("normalize_homography", KC.normalize_homography, {"dsize_src": (32, 40), "dsize_dst": (32, 40)}, (_H,)),
    ("normalize_homography[align_corners=False]", KC.normalize_homography, {"dsize_src": (32, 40), "dsize_dst": (16, 20), "align_corners": False}, (_H,)),
    ("denormalize_homography", KC.denormalize_homography, {"dsize_src": (32, 40), "dsize_dst": (32, 40)}, (derived(KC.normalize_homography, _H, (32, 40), (32, 40)),)),
    ("denormalize_homography[align_corners=False]", KC.denormalize_homography, {"dsize_src": (32, 40), "dsize_dst": (16, 20), "align_corners": False},
     (derived(KC.normalize_homography, _H, (32, 40), (32, 40)),)),
    ("normalize_homography3d", KC.normalize_homography3d, {"dsize_src": (8, 16, 16), "dsize_dst": (8, 16, 16)}, (_H3,)),
    ("denormalize_homography3d", KC.denormalize_homography3d, {"dsize_src": (8, 16, 16), "dsize_dst": (8, 16, 16)}, (derived(KC.normalize_homography3d, _H3, (8, 16, 16), (8, 16, 16)),)),
    ("Rt_to_matrix4x4", KC.Rt_to_matrix4x4, {}, (_R4, _t(4)[..., None].contiguous())),
    ("matrix4x4_to_Rt", KC.matrix4x4_to_Rt, {}, (_Rt4(),)),
    ("vector_to_skew_symmetric_matrix", KC.vector_to_skew_symmetric_matrix, {}, (_t(4),)),
    ("camtoworld_to_worldtocam_Rt", KC.camtoworld_to_worldtocam_Rt, {}, (_R4, _t(4)[..., None].contiguous())),
    ("worldtocam_to_camtoworld_Rt", KC.worldtocam_to_camtoworld_Rt, {}, (_R4, _t(4)[..., None].contiguous())),
    ("camtoworld_graphics_to_vision_Rt", KC.camtoworld_graphics_to_vision_Rt, {}, (_R4, _t(4)[..., None].contiguous())),
    ("camtoworld_vision_to_graphics_Rt", KC.camtoworld_vision_to_graphics_Rt, {}, (_R4, _t(4)[..., None].contiguous())),
    ("camtoworld_graphics_to_vision_4x4", KC.camtoworld_graphics_to_vision_4x4, {}, (_Rt4(),)),
    ("camtoworld_vision_to_graphics_4x4", KC.camtoworld_vision_to_graphics_4x4, {}, (_Rt4(),)),
    ("ARKitQTVecs_to_ColmapQTVecs", KC.ARKitQTVecs_to_ColmapQTVecs, {}, (_q, _t(4)[..., None].contiguous())),
    ("ColmapQTVecs_to_ARKitQTVecs", KC.ColmapQTVecs_to_ARKitQTVecs, {}, (_q, _t(4)[..., None].contiguous())),
]:
    add(case(nm, GV, fn, ins, kwargs=kw))
add(case("rotation_matrix_to_axis_angle[check_rotation]", GV, KC.rotation_matrix_to_axis_angle, (_R4,), kwargs={"check_rotation": True},
         note="validates the input is a rotation (reads tensor values)"))
add(case("rotation_matrix_to_quaternion[check_rotation]", GV, KC.rotation_matrix_to_quaternion, (_R4,), kwargs={"check_rotation": True},
         note="validates the input is a rotation (reads tensor values)"))
add(case("camtoworld_to_worldtocam_Rt[check_rotation]", GV, KC.camtoworld_to_worldtocam_Rt, (_R4, _t(4)[..., None].contiguous()), kwargs={"check_rotation": True}))
add(case("normal_transform_pixel", GV, KC.normal_transform_pixel, (), kwargs={"height": 32, "width": 40}, note="no tensor inputs: a constant matrix"))
add(case("normal_transform_pixel[align_corners=False]", GV, KC.normal_transform_pixel, (), kwargs={"height": 32, "width": 40, "align_corners": False}))
add(case("normal_transform_pixel3d", GV, KC.normal_transform_pixel3d, (), kwargs={"depth": 8, "height": 16, "width": 16}, note="no tensor inputs: a constant matrix"))

# ---------------------------------------------------------------------------------------------
# linalg
# ---------------------------------------------------------------------------------------------
GL = "geometry.linalg"
for nm, fn, kw, ins in [
    ("compose_transformations", KL.compose_transformations, {}, (_Rt4(), _Rt4(4, 240))),
    ("inverse_transformation", KL.inverse_transformation, {}, (_Rt4(),)),
    ("relative_transformation", KL.relative_transformation, {}, (_Rt4(), _Rt4(4, 240))),
    ("transform_points", KL.transform_points, {}, (_Rt4(2), _pts(2, 10, 3))),
    ("transform_points[2d]", KL.transform_points, {}, (_Rt3(2), _pts(2, 10, 2))),
    ("transform_points[homography]", KL.transform_points, {}, (_H, _pix[:1])),
    ("point_line_distance", KL.point_line_distance, {}, (_pts(2, 10, 2), randn(2, 10, 3, seed=241))),
    ("point_line_distance[homogeneous]", KL.point_line_distance, {}, (torch.cat([_pts(2, 10, 2), torch.ones(2, 10, 1)], -1), randn(2, 10, 3, seed=241))),
    ("batched_dot_product", KL.batched_dot_product, {}, (_pts(2, 10, 3), _pts(2, 10, 3, 242))),
    ("batched_dot_product[keepdim]", KL.batched_dot_product, {"keepdim": True}, (_pts(2, 10, 3), _pts(2, 10, 3, 242))),
    ("batched_squared_norm", KL.batched_squared_norm, {}, (_pts(2, 10, 3),)),
    ("squared_norm", KL.squared_norm, {}, (_pts(2, 10, 3),)),
    ("euclidean_distance", KL.euclidean_distance, {}, (_pts(2, 10, 3), _pts(2, 10, 3, 242))),
    ("euclidean_distance[keepdim]", KL.euclidean_distance, {"keepdim": True}, (_pts(2, 10, 3), _pts(2, 10, 3, 242))),
]:
    add(case(nm, GL, fn, ins, kwargs=kw))

# ---------------------------------------------------------------------------------------------
# liegroup
# ---------------------------------------------------------------------------------------------
GLG = "geometry.liegroup"
_zz, _th = _z(), _angles()
_t2, _t3 = _t(4, 250, 2), _t(4, 251, 3)
_v3 = _t(4, 252, 3) * 0.3 + _aa4 * 0.5
_v6 = torch.cat([_t3, _aa4], -1).contiguous()
_v3se2 = torch.cat([_t2, _th[:, None]], -1).contiguous()


def _liegroup_methods():
    out = []
    # So2
    out += [
        ("So2.exp", So2, "exp", lambda th: So2.exp(th), (_th,)),
        ("So2.log", So2, "log", lambda z: _so2(z).log(), (_zz,)),
        ("So2.hat", So2, "hat", lambda th: So2.hat(th), (_th,)),
        ("So2.vee", So2, "vee", lambda m: So2.vee(m), (derived(So2.hat, _th),)),
        ("So2.matrix", So2, "matrix", lambda z: _so2(z).matrix(), (_zz,)),
        ("So2.from_matrix", So2, "from_matrix", lambda m: So2.from_matrix(m), (derived(lambda z: _so2(z).matrix().detach(), _zz),)),
        ("So2.inverse", So2, "inverse", lambda z: _so2(z).inverse(), (_zz,)),
        ("So2.adjoint", So2, "adjoint", lambda z: _so2(z).adjoint(), (_zz,)),
        ("So2.__mul__", So2, "__mul__", lambda a, b: _so2(a) * _so2(b), (_zz, _z(4, 260))),
        ("So2.__mul__[points]", So2, "__mul__", lambda a, p: _so2(a) * p, (_zz, _t2)),
    ]
    # So3
    out += [
        ("So3.exp", So3, "exp", lambda v: So3.exp(v), (_v3,)),
        ("So3.exp[small-angle]", So3, "exp", lambda v: So3.exp(v), (_v3 * 1e-5,)),
        ("So3.log", So3, "log", lambda q: _so3(q).log(), (_q,)),
        ("So3.hat", So3, "hat", lambda v: So3.hat(v), (_v3,)),
        ("So3.vee", So3, "vee", lambda m: So3.vee(m), (derived(So3.hat, _v3),)),
        ("So3.matrix", So3, "matrix", lambda q: _so3(q).matrix(), (_q,)),
        ("So3.from_matrix", So3, "from_matrix", lambda m: So3.from_matrix(m), (_R4,)),
        ("So3.from_wxyz", So3, "from_wxyz", lambda q: So3.from_wxyz(q), (_q,)),
        ("So3.inverse", So3, "inverse", lambda q: _so3(q).inverse(), (_q,)),
        ("So3.adjoint", So3, "adjoint", lambda q: _so3(q).adjoint(), (_q,)),
        ("So3.rot_x", So3, "rot_x", lambda x: So3.rot_x(x), (_th,)),
        ("So3.rot_y", So3, "rot_y", lambda x: So3.rot_y(x), (_th,)),
        ("So3.rot_z", So3, "rot_z", lambda x: So3.rot_z(x), (_th,)),
        ("So3.right_jacobian", So3, "right_jacobian", lambda v: So3.right_jacobian(v), (_v3,)),
        ("So3.Jr", So3, "Jr", lambda v: So3.Jr(v), (_v3,)),
        ("So3.left_jacobian", So3, "left_jacobian", lambda v: So3.left_jacobian(v), (_v3,)),
        ("So3.Jl", So3, "Jl", lambda v: So3.Jl(v), (_v3,)),
        ("So3.__mul__", So3, "__mul__", lambda a, b: _so3(a) * _so3(b), (_q, _quat(4, 261))),
        ("So3.__mul__[points]", So3, "__mul__", lambda a, p: _so3(a) * p, (_q, _t3)),
    ]
    # Se2
    out += [
        ("Se2.exp", Se2, "exp", lambda v: Se2.exp(v), (_v3se2,)),
        ("Se2.log", Se2, "log", lambda z, t: _se2(z, t).log(), (_zz, _t2)),
        ("Se2.hat", Se2, "hat", lambda v: Se2.hat(v), (_v3se2,)),
        ("Se2.vee", Se2, "vee", lambda m: Se2.vee(m), (derived(Se2.hat, _v3se2),)),
        ("Se2.matrix", Se2, "matrix", lambda z, t: _se2(z, t).matrix(), (_zz, _t2)),
        ("Se2.from_matrix", Se2, "from_matrix", lambda m: Se2.from_matrix(m), (_Rt3(),)),
        ("Se2.inverse", Se2, "inverse", lambda z, t: _se2(z, t).inverse(), (_zz, _t2)),
        ("Se2.adjoint", Se2, "adjoint", lambda z, t: _se2(z, t).adjoint(), (_zz, _t2)),
        ("Se2.trans", Se2, "trans", lambda x, y: Se2.trans(x, y), (_t2[:, 0].contiguous(), _t2[:, 1].contiguous())),
        ("Se2.trans_x", Se2, "trans_x", lambda x: Se2.trans_x(x), (_t2[:, 0].contiguous(),)),
        ("Se2.trans_y", Se2, "trans_y", lambda y: Se2.trans_y(y), (_t2[:, 1].contiguous(),)),
        ("Se2.__mul__", Se2, "__mul__", lambda z, t, z2, t2: _se2(z, t) * _se2(z2, t2), (_zz, _t2, _z(4, 262), _t(4, 263, 2))),
        ("Se2.__mul__[points]", Se2, "__mul__", lambda z, t, p: _se2(z, t) * p, (_zz, _t2, _t(4, 264, 2))),
    ]
    # Se3
    out += [
        ("Se3.exp", Se3, "exp", lambda v: Se3.exp(v), (_v6,)),
        ("Se3.log", Se3, "log", lambda q, t: _se3(q, t).log(), (_q, _t3)),
        ("Se3.hat", Se3, "hat", lambda v: Se3.hat(v), (_v6,)),
        ("Se3.vee", Se3, "vee", lambda m: Se3.vee(m), (derived(Se3.hat, _v6),)),
        ("Se3.matrix", Se3, "matrix", lambda q, t: _se3(q, t).matrix(), (_q, _t3)),
        ("Se3.from_matrix", Se3, "from_matrix", lambda m: Se3.from_matrix(m), (_Rt4(),)),
        ("Se3.from_qxyz", Se3, "from_qxyz", lambda v: Se3.from_qxyz(v), (derived(lambda q, t: torch.cat([q, t], -1), _q, _t3),)),
        ("Se3.inverse", Se3, "inverse", lambda q, t: _se3(q, t).inverse(), (_q, _t3)),
        ("Se3.adjoint", Se3, "adjoint", lambda q, t: _se3(q, t).adjoint(), (_q, _t3)),
        ("Se3.rot_x", Se3, "rot_x", lambda x: Se3.rot_x(x), (_th,)),
        ("Se3.rot_y", Se3, "rot_y", lambda x: Se3.rot_y(x), (_th,)),
        ("Se3.rot_z", Se3, "rot_z", lambda x: Se3.rot_z(x), (_th,)),
        ("Se3.trans", Se3, "trans", lambda x, y, z: Se3.trans(x, y, z), tuple(_t3.unbind(-1))),
        ("Se3.trans_x", Se3, "trans_x", lambda x: Se3.trans_x(x), (_t3[:, 0].contiguous(),)),
        ("Se3.trans_y", Se3, "trans_y", lambda x: Se3.trans_y(x), (_t3[:, 1].contiguous(),)),
        ("Se3.trans_z", Se3, "trans_z", lambda x: Se3.trans_z(x), (_t3[:, 2].contiguous(),)),
        ("Se3.__mul__", Se3, "__mul__", lambda q, t, q2, t2: _se3(q, t) * _se3(q2, t2), (_q, _t3, _quat(4, 265), _t(4, 266))),
        ("Se3.__mul__[points]", Se3, "__mul__", lambda q, t, p: _se3(q, t) * p, (_q, _t3, _t(4, 267))),
    ]
    return out


for nm, cls, meth, fn, ins in _liegroup_methods():
    add(case(nm, GLG, _method_tensors(cls, meth, fn), ins, method=meth))

for cls in (So2, So3, Se2, Se3):
    add(case(f"{cls.__name__}.identity", GLG, _method_tensors(cls, "identity", lambda c=cls: c.identity(4)), (), method="identity",
             note="identity(batch_size=4); no tensor inputs"))
    add(case(f"{cls.__name__}.random", GLG, _method_tensors(cls, "random", lambda c=cls: c.random(4)), (), method="random", check=False,
             note="random(batch_size=4): sampled inside the graph; no tensor inputs"))

# ---------------------------------------------------------------------------------------------
# Quaternion
# ---------------------------------------------------------------------------------------------
GQ = "geometry.quaternion"
_Q = Quaternion
_q2 = _quat(4, 270)
for nm, meth, fn, ins in [
    ("Quaternion.matrix", "matrix", lambda q: _Q(q).matrix(), (_q,)),
    ("Quaternion.from_matrix", "from_matrix", lambda m: _Q.from_matrix(m), (_R4,)),
    ("Quaternion.from_euler", "from_euler", lambda r, p, y: _Q.from_euler(r, p, y), (_roll, _pitch, _yaw)),
    ("Quaternion.to_euler", "to_euler", lambda q: _Q(q).to_euler(), (_q,)),
    ("Quaternion.from_axis_angle", "from_axis_angle", lambda v: _Q.from_axis_angle(v), (_aa4,)),
    ("Quaternion.to_axis_angle", "to_axis_angle", lambda q: _Q(q).to_axis_angle(), (_q,)),
    ("Quaternion.slerp", "slerp", lambda a, b: _Q(a).slerp(_Q(b), 0.3), (_q, _q2)),
    ("Quaternion.slerp[tensor-t]", "slerp", lambda a, b, t: _Q(a).slerp(_Q(b), t), (_q, _q2, rand(4, 1, seed=271))),
    ("Quaternion.norm", "norm", lambda q: _Q(q).norm(), (randn(4, 4, seed=272),)),
    ("Quaternion.normalize", "normalize", lambda q: _Q(q).normalize(), (randn(4, 4, seed=272),)),
    ("Quaternion.conj", "conj", lambda q: _Q(q).conj(), (_q,)),
    ("Quaternion.inv", "inv", lambda q: _Q(q).inv(), (randn(4, 4, seed=272),)),
    ("Quaternion.squared_norm", "squared_norm", lambda q: _Q(q).squared_norm(), (randn(4, 4, seed=272),)),
    ("Quaternion.polar_angle", "polar_angle", lambda q: _Q(q).polar_angle, (_q,)),
    ("Quaternion.__mul__", "__mul__", lambda a, b: _Q(a) * _Q(b), (_q, _q2)),
    ("Quaternion.__add__", "__add__", lambda a, b: _Q(a) + _Q(b), (_q, _q2)),
    ("Quaternion.__sub__", "__sub__", lambda a, b: _Q(a) - _Q(b), (_q, _q2)),
    ("Quaternion.__neg__", "__neg__", lambda a: -_Q(a), (_q,)),
    ("Quaternion.__truediv__", "__truediv__", lambda a, b: _Q(a) / _Q(b), (_q, _q2)),
    ("Quaternion.__pow__", "__pow__", lambda a: _Q(a) ** 0.5, (_q,)),
]:
    add(case(nm, GQ, _method_tensors(_Q, meth, fn), ins, method=meth))
add(case("Quaternion.identity", GQ, _method_tensors(_Q, "identity", lambda: _Q.identity(4)), (), method="identity", note="no tensor inputs"))
add(case("Quaternion.from_coeffs", GQ, _method_tensors(_Q, "from_coeffs", lambda: _Q.from_coeffs(0.9, 0.1, -0.3, 0.2)), (), method="from_coeffs",
         note="Python coefficients; no tensor inputs"))
add(case("Quaternion.random", GQ, _method_tensors(_Q, "random", lambda: _Q.random(4)), (), method="random", check=False,
         note="random(batch_size=4): sampled inside the graph; no tensor inputs"))

# ---------------------------------------------------------------------------------------------
# vector, line, plane, pose
# ---------------------------------------------------------------------------------------------
GVec = "geometry.vector"
for cls, d in ((Vector2, 2), (Vector3, 3)):
    n = cls.__name__
    a, b = _t(4, 280, d), _t(4, 281, d)
    add(case(f"{n}.normalized", GVec, _method_tensors(cls, "normalized", lambda x, c=cls: c(x).normalized()), (a,), method="normalized"))
    add(case(f"{n}.dot", GVec, _method_tensors(cls, "dot", lambda x, y, c=cls: c(x).dot(c(y))), (a, b), method="dot"))
    add(case(f"{n}.squared_norm", GVec, _method_tensors(cls, "squared_norm", lambda x, c=cls: c(x).squared_norm()), (a,), method="squared_norm"))
    add(case(f"{n}.__add__", GVec, _method_tensors(cls, "__add__", lambda x, y, c=cls: c(x) + c(y)), (a, b), method="__add__", note="tensor arithmetic on the wrapper"))
    add(case(f"{n}.random", GVec, _method_tensors(cls, "random", lambda c=cls: c.random((4,))), (), method="random", check=False, note="no tensor inputs"))
add(case("Vector2.from_coords", GVec, _method_tensors(Vector2, "from_coords", lambda x, y: Vector2.from_coords(x, y)), tuple(_t(4, 282, 2).unbind(-1)), method="from_coords"))
add(case("Vector3.from_coords", GVec, _method_tensors(Vector3, "from_coords", lambda x, y, z: Vector3.from_coords(x, y, z)), tuple(_t(4, 283, 3).unbind(-1)), method="from_coords"))
add(case("Vector3.cross", GVec, _method_tensors(Vector3, "cross", lambda x, y: torch.linalg.cross(Vector3(x), Vector3(y))), (_t(4, 280), _t(4, 281)), method="cross",
         note="torch.linalg.cross dispatched through the tensor wrapper"))
add(case("Scalar", GVec, _forward_tensors(Scalar, lambda a, b: Scalar(a) * Scalar(b) + 1.0), (rand(4, seed=284), rand(4, seed=285)),
         note="Scalar wrapper arithmetic"))

GLn = "geometry.line"
_p0, _p1 = _t(4, 290), _t(4, 291)
_plane_n = derived(lambda t: torch.nn.functional.normalize(t, dim=-1), _t(4, 292))
_plane_d = rand(4, seed=293, low=-1, high=1)
_PL = ParametrizedLine
for nm, meth, fn, ins in [
    ("ParametrizedLine.through", "through", lambda a, b: _PL.through(a, b), (_p0, _p1)),
    ("ParametrizedLine.point_at", "point_at", lambda a, b, t: _PL(a, b).point_at(t), (_p0, _p1, rand(4, seed=294, low=-2, high=2))),
    ("ParametrizedLine.projection", "projection", lambda a, b, p: _PL.through(a, b).projection(p), (_p0, _p1, _t(4, 295))),
    ("ParametrizedLine.squared_distance", "squared_distance", lambda a, b, p: _PL.through(a, b).squared_distance(p), (_p0, _p1, _t(4, 295))),
    ("ParametrizedLine.distance", "distance", lambda a, b, p: _PL.through(a, b).distance(p), (_p0, _p1, _t(4, 295))),
    ("ParametrizedLine.distance[2d]", "distance", lambda a, b, p: _PL.through(a, b).distance(p), (_t(4, 296, 2), _t(4, 297, 2), _t(4, 298, 2))),
    ("ParametrizedLine.intersect", "intersect", lambda a, b, n, d: _PL.through(a, b).intersect(Hyperplane(Vector3(n), Scalar(d))),
     (_p0, _p1, _plane_n, _plane_d)),
]:
    add(case(nm, GLn, _method_tensors(_PL, meth, fn), ins, method=meth))
add(case("fit_line", GLn, _forward_tensors(fit_line, fit_line), (_pts(2, 20, 3, 299),)))
add(case("fit_line[2d]", GLn, _forward_tensors(fit_line, fit_line), (_pts(2, 20, 2, 300),)))
add(case("fit_line[weights]", GLn, _forward_tensors(fit_line, fit_line), (_pts(2, 20, 3, 299), rand(2, 20, seed=301, low=0.2, high=1.0))))

GPl = "geometry.plane"
_HP = Hyperplane
for nm, meth, fn, ins in [
    ("Hyperplane.abs_distance", "abs_distance", lambda n, d, p: _HP(Vector3(n), Scalar(d)).abs_distance(p), (_plane_n, _plane_d, _t(4, 302))),
    ("Hyperplane.signed_distance", "signed_distance", lambda n, d, p: _HP(Vector3(n), Scalar(d)).signed_distance(p), (_plane_n, _plane_d, _t(4, 302))),
    ("Hyperplane.projection", "projection", lambda n, d, p: _HP(Vector3(n), Scalar(d)).projection(p), (_plane_n, _plane_d, _t(4, 302))),
    ("Hyperplane.from_vector", "from_vector", lambda n, e: _HP.from_vector(Vector3(n), Vector3(e)), (_plane_n, _t(4, 303))),
    ("Hyperplane.through", "through", lambda a, b, c: _HP.through(a, b, c), (_p0, _p1, _t(4, 304))),
]:
    add(case(nm, GPl, _method_tensors(_HP, meth, fn), ins, method=meth))
def _plane_points_of(second: bool = False) -> torch.Tensor:
    """30 points within 0.02 of a plane (the second set: another plane through another point)."""
    off = FRESH_OFFSET * second
    flat = torch.cat([randn(30, 2, seed=305 + off), 0.02 * randn(30, 1, seed=306 + off)], -1)
    r = KC.axis_angle_to_rotation_matrix(_aa_of(1, 307, second=second))[0]
    return (flat @ r.T + torch.tensor([-0.3, 0.4, 0.8] if second else [0.5, -0.2, 1.0])).contiguous()


_plane_pts = twin(_plane_points_of)
add(case("fit_plane", GPl, _forward_tensors(fit_plane, lambda p: fit_plane(Vector3(p))), (_plane_pts.clone(),), note="points wrapped as Vector3"))
add(case("fit_plane[tensor]", GPl, _forward_tensors(fit_plane, fit_plane), (_plane_pts.clone(),)))

GPo = "geometry.pose"
_NP = NamedPose
for nm, meth, fn, ins in [
    ("NamedPose.from_rt", "from_rt", lambda R, t: _NP.from_rt(R, t, "cam", "world"), (_R4, _t3)),
    ("NamedPose.from_rt[quaternion]", "from_rt", lambda q, t: _NP.from_rt(Quaternion(q), t, "cam", "world"), (_q, _t3)),
    ("NamedPose.from_rt[So2]", "from_rt", lambda z, t: _NP.from_rt(_so2(z), t, "cam", "world"), (_zz, _t2)),
    ("NamedPose.from_matrix", "from_matrix", lambda m: _NP.from_matrix(m, "cam", "world"), (_Rt4(),)),
    ("NamedPose.from_matrix[3x3]", "from_matrix", lambda m: _NP.from_matrix(m, "cam", "world"), (_Rt3(),)),
    ("NamedPose.inverse", "inverse", lambda q, t: _NP(_se3(q, t), "cam", "world").inverse(), (_q, _t3)),
    ("NamedPose.transform_points", "transform_points", lambda q, t, p: _NP(_se3(q, t), "cam", "world").transform_points(p), (_q, _t3, _t(4, 310))),
    ("NamedPose.__mul__", "__mul__", lambda q, t, q2, t2: _NP(_se3(q, t), "b", "c") * _NP(_se3(q2, t2), "a", "b"), (_q, _t3, _q2, _t(4, 311))),
]:
    add(case(nm, GPo, _method_tensors(_NP, meth, fn), ins, method=meth))

# ---------------------------------------------------------------------------------------------
# Boxes, Boxes3D, VideoBoxes, Keypoints
# ---------------------------------------------------------------------------------------------
GBx = "geometry.boxes"


def _xyxy_of(b: int = 2, n: int = 5, seed: int = 320, second: bool = False) -> torch.Tensor:
    xy = rand(b, n, 2, seed=seed + FRESH_OFFSET * second) * torch.tensor([25.0, 20.0])
    wh = rand(b, n, 2, seed=seed + 1 + FRESH_OFFSET * second, low=3.0, high=12.0)
    return torch.cat([xy, xy + wh], -1).contiguous()


def _xyxy(b: int = 2, n: int = 5, seed: int = 320) -> torch.Tensor:
    """Boxes (x1, y1, x2, y2) with x1 < x2, y1 < y2 (the second value: other boxes, seed + FRESH_OFFSET)."""
    return twin(_xyxy_of, b, n, seed)


def _xywh(b: int = 2, n: int = 5, seed: int = 320) -> torch.Tensor:
    return derived(lambda x: torch.cat([x[..., :2], x[..., 2:] - x[..., :2]], -1).contiguous(), _xyxy(b, n, seed))


def _corners(x: torch.Tensor) -> torch.Tensor:
    x1, y1, x2, y2 = x.unbind(-1)
    return torch.stack([torch.stack([x1, y1], -1), torch.stack([x2, y1], -1), torch.stack([x2, y2], -1), torch.stack([x1, y2], -1)], -2).contiguous()


def _verts(b: int = 2, n: int = 5, seed: int = 320) -> torch.Tensor:
    return derived(_corners, _xyxy(b, n, seed))


def _bx(v):
    return Boxes(v)


_Mh = structured(torch.tensor([[[0.9, 0.1, 2.0], [-0.1, 1.1, -1.0], [0.0, 0.0, 1.0]]]).repeat(2, 1, 1),
                 torch.tensor([[[1.08, -0.06, -1.5], [0.05, 0.92, 2.0], [0.0, 0.0, 1.0]]]).repeat(2, 1, 1))
for nm, meth, fn, ins in [
    ("Boxes.from_tensor", "from_tensor", lambda x: Boxes.from_tensor(x), (_xyxy(),)),
    ("Boxes.from_tensor[xyxy_plus]", "from_tensor", lambda x: Boxes.from_tensor(x, mode="xyxy_plus"), (_xyxy(),)),
    ("Boxes.from_tensor[xywh]", "from_tensor", lambda x: Boxes.from_tensor(x, mode="xywh"), (_xywh(),)),
    ("Boxes.from_tensor[vertices]", "from_tensor", lambda x: Boxes.from_tensor(x, mode="vertices"), (_verts(),)),
    ("Boxes.from_tensor[unbatched]", "from_tensor", lambda x: Boxes.from_tensor(x), (derived(lambda x: x[0], _xyxy()),)),
    ("Boxes.from_tensor[validate_boxes=False]", "from_tensor", lambda x: Boxes.from_tensor(x, validate_boxes=False), (_xyxy(),)),
    ("Boxes.to_tensor", "to_tensor", lambda v: _bx(v).to_tensor(), (_verts(),)),
    ("Boxes.to_tensor[xyxy]", "to_tensor", lambda v: _bx(v).to_tensor("xyxy"), (_verts(),)),
    ("Boxes.to_tensor[xywh]", "to_tensor", lambda v: _bx(v).to_tensor("xywh"), (_verts(),)),
    ("Boxes.to_tensor[vertices]", "to_tensor", lambda v: _bx(v).to_tensor("vertices"), (_verts(),)),
    ("Boxes.to_mask", "to_mask", lambda v: _bx(v).to_mask(32, 40), (_verts(),)),
    ("Boxes.transform_boxes", "transform_boxes", lambda v, m: _bx(v).transform_boxes(m), (_verts(), _Mh)),
    ("Boxes.transform_boxes_", "transform_boxes_", lambda v, m: _bx(v).transform_boxes_(m), (_verts(), _Mh)),
    ("Boxes.translate", "translate", lambda v, s: _bx(v).translate(s), (_verts(), torch.tensor([[3.0, -2.0], [1.0, 4.0]]))),
    ("Boxes.clamp", "clamp", lambda v, a, b: _bx(v).clamp(a, b), (_verts(), structured(torch.tensor([[0.0, 0.0], [2.0, 1.0]]), torch.tensor([[1.0, 2.0], [0.0, 3.0]])),
                                                                      structured(torch.tensor([[30.0, 25.0], [28.0, 22.0]]), torch.tensor([[27.0, 24.0], [31.0, 20.0]])))),
    ("Boxes.compute_area", "compute_area", lambda v: _bx(v).compute_area(), (_verts(),)),
    ("Boxes.get_boxes_shape", "get_boxes_shape", lambda v: _bx(v).get_boxes_shape(), (_verts(),)),
    ("Boxes.filter_boxes_by_area", "filter_boxes_by_area", lambda v: _bx(v).filter_boxes_by_area(min_area=30.0, max_area=120.0), (_verts(),)),
    ("Boxes.merge", "merge", lambda a, b: _bx(a).merge(_bx(b)), (_verts(), _verts(2, 3, 330))),
    ("Boxes.pad", "pad", lambda v, p: _bx(v).pad(p), (_verts(), torch.tensor([[2, 2, 3, 3], [1, 4, 0, 2]]))),
    ("Boxes.unpad", "unpad", lambda v, p: _bx(v).unpad(p), (_verts(), torch.tensor([[2, 2, 3, 3], [1, 4, 0, 2]]))),
    ("Boxes.index_put", "index_put", lambda v, i, x: _bx(v).index_put((i,), x), (_verts(), torch.tensor([0]), _verts(1, 5, 331))),
    ("Boxes.clone", "clone", lambda v: _bx(v).clone(), (_verts(),)),
]:
    add(case(nm, GBx, _method_tensors(Boxes, meth, fn), ins, method=meth))

def _xyz_of(second: bool = False) -> torch.Tensor:
    off = FRESH_OFFSET * second
    return torch.cat([rand(2, 4, 3, seed=340 + off) * 8, rand(2, 4, 3, seed=340 + off) * 8 + rand(2, 4, 3, seed=341 + off, low=2, high=6)], -1).contiguous()


_xyz = twin(_xyz_of)  # 3D boxes (x1, y1, z1, x2, y2, z2), x1 < x2, y1 < y2, z1 < z2
_xyzwhd = derived(lambda x: torch.cat([x[..., :3], x[..., 3:] - x[..., :3]], -1).contiguous(), _xyz)
_bx3 = lambda x: Boxes3D.from_tensor(x)  # noqa: E731
def _M3_of(second: bool = False) -> torch.Tensor:
    """An affine 4x4 (a scale in x and a translation)."""
    m = torch.eye(4)[None].repeat(2, 1, 1)
    m[:, :3, 3] = torch.tensor([-0.5, 1.5, -1.0] if second else [1.0, -1.0, 0.5])
    m[:, 0, 0] = 1.1 if second else 0.9
    return m


_M3 = twin(_M3_of)
for nm, meth, fn, ins in [
    ("Boxes3D.from_tensor", "from_tensor", lambda x: Boxes3D.from_tensor(x), (_xyz,)),
    ("Boxes3D.from_tensor[xyzxyz_plus]", "from_tensor", lambda x: Boxes3D.from_tensor(x, mode="xyzxyz_plus"), (_xyz,)),
    ("Boxes3D.from_tensor[xyzwhd]", "from_tensor", lambda x: Boxes3D.from_tensor(x, mode="xyzwhd"), (_xyzwhd,)),
    ("Boxes3D.to_tensor", "to_tensor", lambda x: _bx3(x).to_tensor(), (_xyz,)),
    ("Boxes3D.to_tensor[xyzwhd]", "to_tensor", lambda x: _bx3(x).to_tensor("xyzwhd"), (_xyz,)),
    ("Boxes3D.to_tensor[vertices]", "to_tensor", lambda x: _bx3(x).to_tensor("vertices"), (_xyz,)),
    ("Boxes3D.to_mask", "to_mask", lambda x: _bx3(x).to_mask(8, 16, 16), (_xyz,)),
    ("Boxes3D.transform_boxes", "transform_boxes", lambda x, m: _bx3(x).transform_boxes(m), (_xyz, _M3)),
    ("Boxes3D.get_boxes_shape", "get_boxes_shape", lambda x: _bx3(x).get_boxes_shape(), (_xyz,)),
]:
    add(case(nm, GBx, _method_tensors(Boxes3D, meth, fn), ins, method=meth))

_vid = derived(lambda a, b, c: torch.stack([a, b, c], 1).contiguous(), _verts(2, 5, 350), _verts(2, 5, 351), _verts(2, 5, 352))  # (B, T, N, 4, 2)
add(case("Boxes.translate[fast]", GBx,
         _method_tensors(Boxes, "translate", lambda v, s: _bx(v).translate(s, method="fast")),
         (_verts(), torch.tensor([[3.0, -2.0], [1.0, 4.0]])), method="translate",
         note="2 x 5 valid boxes and a (B, 2) translation, method='fast' (one of the two documented methods): kornia "
         "0.9.0 raises NotImplementedError (documented: only 'warp' is implemented)"))
add(case("Boxes.trim", GBx, _method_tensors(Boxes, "trim", lambda v: _bx(v).trim()), (_verts(),), method="trim",
         note="2 x 5 valid boxes (B, N, 4, 2), trim() with its defaults; kornia 0.9.0 raises NotImplementedError "
         "(documented: always)"))

add(case("VideoBoxes.from_tensor", GBx, _method_tensors(VideoBoxes, "from_tensor", lambda x: VideoBoxes.from_tensor(x)), (_vid,), method="from_tensor"))
add(case("VideoBoxes.to_tensor", GBx, _method_tensors(VideoBoxes, "to_tensor", lambda x: VideoBoxes.from_tensor(x).to_tensor("xyxy")), (_vid,), method="to_tensor"))

GKp = "geometry.keypoints"
_kp = (rand(2, 6, 2, seed=360) * torch.tensor([39.0, 31.0])).contiguous()
_kp3 = (rand(2, 6, 3, seed=361) * torch.tensor([15.0, 15.0, 7.0])).contiguous()
_PAD = {Keypoints: torch.tensor([[2, 2, 3, 3], [1, 4, 0, 2]]),  # (left, right, top, bottom) per image
        Keypoints3D: torch.tensor([[2, 2, 3, 3, 1, 0], [1, 4, 0, 2, 0, 1]])}  # the same plus (front, back)
# Keypoints3D.transform_keypoints / transform_keypoints_ / pad / unpad raise NotImplementedError in kornia 0.9.0
# (documented, kornia#5023): their cases record that at the eager step.
_KP3_NOTE = {
    "transform_keypoints": "2 x 6 keypoints (B, N, 3) and an affine (B, 4, 4) transform, as the method asks",
    "transform_keypoints_": "2 x 6 keypoints (B, N, 3) and an affine (B, 4, 4) transform, as the method asks",
    "pad": "2 x 6 keypoints (B, N, 3) and a (B, 6) padding: Keypoints.pad's (left, right, top, bottom) plus (front, back)",
    "unpad": "2 x 6 keypoints (B, N, 3) and a (B, 6) padding: Keypoints.unpad's (left, right, top, bottom) plus (front, back)",
}
for cls, x, M in ((Keypoints, _kp, _Mh), (Keypoints3D, _kp3, _M3)):
    n = cls.__name__
    for meth, fn, ins in [
        ("from_tensor", lambda k, c=cls: c.from_tensor(k), (x,)),
        ("to_tensor", lambda k, c=cls: c(k).to_tensor(), (x,)),
        ("clone", lambda k, c=cls: c(k).clone(), (x,)),
        ("transform_keypoints", lambda k, m, c=cls: c(k).transform_keypoints(m), (x, M)),
        ("transform_keypoints_", lambda k, m, c=cls: c(k).transform_keypoints_(m), (x, M)),
        ("pad", lambda k, p, c=cls: c(k).pad(p), (x, _PAD[cls])),
        ("unpad", lambda k, p, c=cls: c(k).unpad(p), (x, _PAD[cls])),
    ]:
        note = ""
        if cls is Keypoints3D and meth in _KP3_NOTE:
            note = f"{_KP3_NOTE[meth]}; kornia 0.9.0 raises NotImplementedError (documented, kornia#5023)"
        add(case(f"{n}.{meth}", GKp, _method_tensors(cls, meth, fn), ins, method=meth, note=note))
for cls, x in ((Keypoints, _kp), (Keypoints3D, _kp3)):
    add(case(f"{cls.__name__}.to_tensor[as_padded_sequence]", GKp,
             _method_tensors(cls, "to_tensor", lambda k, c=cls: c(k).to_tensor(as_padded_sequence=True)), (x,),
             method="to_tensor", note=f"2 x 6 keypoints (B, N, {x.shape[-1]}), to_tensor(as_padded_sequence=True), a documented "
             "flag: kornia 0.9.0 raises NotImplementedError (documented, kornia#5023)"))
    add(case(f"{cls.__name__}[list]", GKp, _forward_tensors(cls, lambda a, b, c=cls: c([a, b])), (x[0].clone(), x[1].clone()),
             note=f"built from a list of two (N, {x.shape[-1]}) tensors, which the constructor's signature accepts "
             "(List[Tensor]); kornia 0.9.0 raises NotImplementedError for a list (documented in the message)"))
add(case("Keypoints.index_put", GKp, _method_tensors(Keypoints, "index_put", lambda k, i, v: Keypoints(k).index_put((i,), v)), (_kp, torch.tensor([1]), rand(1, 6, 2, seed=362) * 30),
         method="index_put"))

# ---------------------------------------------------------------------------------------------
# bbox
# ---------------------------------------------------------------------------------------------
GBb = "geometry.bbox"
for nm, fn, kw, ins in [
    ("bbox_generator", KB.bbox_generator, {}, (torch.tensor([2.0, 5.0]), torch.tensor([3.0, 1.0]), torch.tensor([10.0, 20.0]), torch.tensor([8.0, 12.0]))),
    ("bbox_generator3d", KB.bbox_generator3d, {},
     (torch.tensor([2.0, 5.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.0, 0.0]), torch.tensor([6.0, 8.0]), torch.tensor([8.0, 5.0]), torch.tensor([3.0, 4.0]))),
    ("bbox_to_mask", KB.bbox_to_mask, {"width": 40, "height": 32}, (derived(lambda v: v[0], _verts(1, 5)),)),
    ("bbox_to_mask3d", KB.bbox_to_mask3d, {"size": (8, 16, 16)}, (derived(lambda x: Boxes3D.from_tensor(x).to_tensor("vertices")[0], _xyz),)),
    ("infer_bbox_shape", KB.infer_bbox_shape, {}, (derived(lambda v: v[0], _verts(1, 5)),)),
    ("infer_bbox_shape3d", KB.infer_bbox_shape3d, {}, (derived(lambda x: Boxes3D.from_tensor(x).to_tensor("vertices")[0], _xyz),)),
    ("nms", KB.nms, {"iou_threshold": 0.5}, (derived(lambda x: torch.cat([x[0], x[0] + 1.0]), _xyxy(1, 8)), rand(16, seed=370))),
    ("nms[iou_threshold=0.1]", KB.nms, {"iou_threshold": 0.1}, (derived(lambda x: torch.cat([x[0], x[0] + 1.0]), _xyxy(1, 8)), rand(16, seed=370))),
    ("transform_bbox", KB.transform_bbox, {}, (_Mh, _xyxy())),
    ("transform_bbox[xywh]", KB.transform_bbox, {"mode": "xywh"}, (_Mh, _xywh())),
    ("transform_bbox[vertices]", KB.transform_bbox, {}, (_Mh, _verts())),
    ("transform_bbox[restore_coordinates]", KB.transform_bbox, {"restore_coordinates": True}, (derived(lambda m: m[:, :, :] * torch.tensor([[-1.0], [1.0], [1.0]]), _Mh), _xyxy())),
]:
    add(case(nm, GBb, fn, ins, kwargs=kw))
add(case("validate_bbox", GBb, KB.validate_bbox, (derived(lambda v: v[0], _verts(1, 5)),), skip="returns a Python bool (an input validity check), not a tensor"))
add(case("validate_bbox3d", GBb, KB.validate_bbox3d, (derived(lambda x: Boxes3D.from_tensor(x).to_tensor("vertices")[0], _xyz),),
         skip="returns a Python bool (an input validity check), not a tensor"))

# ---------------------------------------------------------------------------------------------
# subpix
# ---------------------------------------------------------------------------------------------
GSp = "geometry.subpix"
_heat = (detector_image() * 4.0).contiguous()
_heat2 = rand(2, 3, 16, 20, seed=380, high=3.0)


def _resp3d(b: int = 1, c: int = 1, seed: int = 381) -> torch.Tensor:
    """A (B, C, 4, 24, 32) response pyramid with a few clear blobs plus noise."""
    d, h, w = 4, 24, 32
    zz, yy, xx = torch.meshgrid(torch.arange(d, dtype=torch.float32), torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
    r = torch.zeros(d, h, w)
    for cz, cy, cx, s in [(1.3, 6.4, 8.7, 2.0), (2.2, 15.6, 22.1, 2.5), (1.7, 18.2, 5.4, 1.8)]:
        r += torch.exp(-((zz - cz) ** 2 / 0.8 + ((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s)))
    return (r + rand(b, c, d, h, w, seed=seed, high=0.05)).contiguous()


_r3 = _resp3d()
_r3b = _resp3d(2, 2, 382)
for nm, fn, kw, ins in [
    ("spatial_softmax2d", KSP.spatial_softmax2d, {}, (_heat2,)),
    ("spatial_softmax2d[temperature]", KSP.spatial_softmax2d, {"temperature": 0.5}, (_heat2,)),
    ("spatial_expectation2d", KSP.spatial_expectation2d, {}, (derived(KSP.spatial_softmax2d, _heat2),)),
    ("spatial_expectation2d[normalized_coordinates=False]", KSP.spatial_expectation2d, {"normalized_coordinates": False}, (derived(KSP.spatial_softmax2d, _heat2),)),
    ("spatial_soft_argmax2d", KSP.spatial_soft_argmax2d, {}, (_heat2,)),
    ("spatial_soft_argmax2d[normalized_coordinates=False]", KSP.spatial_soft_argmax2d, {"normalized_coordinates": False, "temperature": 2.0}, (_heat2,)),
    ("render_gaussian2d", KSP.render_gaussian2d, {"size": (16, 20)}, (rand(2, 3, 2, seed=383, low=-0.8, high=0.8), rand(2, 3, 2, seed=384, low=0.1, high=0.3))),
    ("render_gaussian2d[normalized_coordinates=False]", KSP.render_gaussian2d, {"size": (16, 20), "normalized_coordinates": False},
     (rand(2, 3, 2, seed=383, low=2, high=14), rand(2, 3, 2, seed=384, low=1.0, high=3.0))),
    ("conv_soft_argmax2d", KSP.conv_soft_argmax2d, {}, (_heat,)),
    ("conv_soft_argmax2d[output_value]", KSP.conv_soft_argmax2d, {"output_value": True, "normalized_coordinates": False}, (_heat,)),
    ("conv_soft_argmax2d[kernel=5,stride=2]", KSP.conv_soft_argmax2d, {"kernel_size": (5, 5), "stride": (2, 2), "padding": (2, 2), "temperature": 0.5}, (_heat,)),
    ("conv_soft_argmax3d", KSP.conv_soft_argmax3d, {}, (_r3,)),
    ("conv_soft_argmax3d[normalized_coordinates]", KSP.conv_soft_argmax3d, {"normalized_coordinates": True, "output_value": False}, (_r3,)),
    ("conv_soft_argmax3d[strict_maxima_bonus]", KSP.conv_soft_argmax3d, {"strict_maxima_bonus": 10.0}, (_r3,)),
    ("conv_quad_interp3d", KSP.conv_quad_interp3d, {}, (_r3,)),
    ("conv_quad_interp3d[strict_maxima_bonus]", KSP.conv_quad_interp3d, {"strict_maxima_bonus": 10.0, "n_iters": 2}, (_r3,)),
    ("conv_quad_interp3d[batch=2]", KSP.conv_quad_interp3d, {}, (_r3b,)),
    ("iterative_quad_interp3d", KSP.iterative_quad_interp3d, {}, (_r3,)),
    ("iterative_quad_interp3d[max_candidates]", KSP.iterative_quad_interp3d, {"max_candidates": 8}, (_r3,)),
    ("iterative_quad_interp3d[batch=2]", KSP.iterative_quad_interp3d, {}, (_r3b,)),
    ("nms2d", KSP.nms2d, {"kernel_size": (3, 3)}, (_heat,)),
    ("nms2d[mask_only]", KSP.nms2d, {"kernel_size": (5, 5), "mask_only": True}, (_heat,)),
    ("nms3d", KSP.nms3d, {"kernel_size": (3, 3, 3)}, (_r3,)),
    ("nms3d[mask_only]", KSP.nms3d, {"kernel_size": (3, 3, 3), "mask_only": True}, (_r3b,)),
    ("nms3d_minmax", KSP.nms3d_minmax, {}, (_r3 - 0.5,)),
]:
    add(case(nm, GSp, fn, ins, kwargs=kw))
add(case("conv_quad_interp3d[precomputed_nms_mask]", GSp, _forward_tensors(KSP.conv_quad_interp3d, lambda x, m: KSP.conv_quad_interp3d(x, precomputed_nms_mask=m)),
         (_r3, derived(KSP.nms3d, _r3, (3, 3, 3), True))))
for nm, mod, ins in [
    ("ConvSoftArgmax2d", KSP.ConvSoftArgmax2d(), (_heat,)),
    ("ConvSoftArgmax2d[output_value]", KSP.ConvSoftArgmax2d((3, 3), (1, 1), (1, 1), temperature=0.5, normalized_coordinates=False, output_value=True), (_heat,)),
    ("ConvSoftArgmax3d", KSP.ConvSoftArgmax3d(), (_r3,)),
    ("ConvSoftArgmax3d[normalized_coordinates]", KSP.ConvSoftArgmax3d(normalized_coordinates=True, output_value=False), (_r3,)),
    ("SpatialSoftArgmax2d", KSP.SpatialSoftArgmax2d(), (_heat2,)),
    ("SpatialSoftArgmax2d[normalized_coordinates=False]", KSP.SpatialSoftArgmax2d(temperature=2.0, normalized_coordinates=False), (_heat2,)),
    ("NonMaximaSuppression2d", KSP.NonMaximaSuppression2d((3, 3)), (_heat,)),
    ("NonMaximaSuppression2d[kernel=5]", KSP.NonMaximaSuppression2d((5, 5)), (_heat2,)),
    ("NonMaximaSuppression3d", KSP.NonMaximaSuppression3d((3, 3, 3)), (_r3,)),
    ("ConvQuadInterp3d", KSP.ConvQuadInterp3d(), (_r3,)),
    ("ConvQuadInterp3d[strict_maxima_bonus]", KSP.ConvQuadInterp3d(n_iters=2, strict_maxima_bonus=10.0), (_r3b,)),
    ("IterativeQuadInterp3d", KSP.IterativeQuadInterp3d(), (_r3,)),
    ("IterativeQuadInterp3d[max_candidates]", KSP.IterativeQuadInterp3d(max_candidates=8), (_r3b,)),
    ("AdaptiveQuadInterp3d", KSP.AdaptiveQuadInterp3d(), (_r3,)),
    ("AdaptiveQuadInterp3d[conv]", KSP.AdaptiveQuadInterp3d(mode="conv"), (_r3,)),
    ("AdaptiveQuadInterp3d[patch]", KSP.AdaptiveQuadInterp3d(mode="patch", max_candidates=8), (_r3b,)),
]:
    add(case(nm, GSp, mod, ins))

# ---------------------------------------------------------------------------------------------
# solvers
# ---------------------------------------------------------------------------------------------
GSo = "geometry.solvers"


def _poly_from_roots(roots: list, lead: float = 1.0) -> list:
    c = [lead]
    for r in roots:
        c = [a - r * b for a, b in zip(c + [0.0], [0.0] + c)]
    return c


_quadc = torch.tensor([_poly_from_roots([1.5, -2.0], 2.0), [1.0, 0.0, 1.0], [1.0, -2.0, 1.0]])  # two roots, complex, double
_cubc = torch.tensor([_poly_from_roots([0.5, -1.0, 2.5]), [1.0, 0.0, 1.0, 1.0], [2.0, -3.0, 0.5, 0.1]])  # three real roots, one, mixed
_quartc = torch.tensor([_poly_from_roots([0.5, -1.0, 2.5, -0.3]), [1.0, 0.0, -2.0, 0.0, 0.5], [1.0, 1.0, 1.0, 1.0, 1.0]])
_A3x4 = torch.cat([randn(2, 3, 3, seed=390), randn(2, 3, 1, seed=391)], -1).contiguous()
_aff_p1 = (rand(2, 10, 2, seed=392) * 30).contiguous()
_aff_p2 = (_aff_p1 @ torch.tensor([[0.95, 0.1], [-0.1, 1.05]]).T + torch.tensor([2.0, -1.0]) + randn(2, 10, 2, seed=393, scale=0.1)).contiguous()
for nm, fn, kw, ins in [
    ("solve_quadratic", KS.solve_quadratic, {}, (_quadc,)),
    ("solve_cubic", KS.solve_cubic, {}, (_cubc,)),
    ("solve_quartic", KS.solve_quartic, {}, (_quartc,)),
    ("multiply_deg_one_poly", KS.multiply_deg_one_poly, {}, (randn(2, 4, seed=394), randn(2, 4, seed=395))),
    ("multiply_deg_two_one_poly", KS.multiply_deg_two_one_poly, {}, (randn(2, 10, seed=396), randn(2, 4, seed=397))),
    ("determinant_to_polynomial", KS.determinant_to_polynomial, {}, (randn(2, 3, 13, seed=398),)),
    ("null_vector_3x4", KS.null_vector_3x4, {}, (_A3x4,)),
    ("find_affine", KS.find_affine, {}, (_aff_p1, _aff_p2)),
    ("find_affine[weights]", KS.find_affine, {}, (_aff_p1, _aff_p2, rand(2, 10, seed=399, low=0.2, high=1.0))),
    ("find_affine[N=3]", KS.find_affine, {}, (_aff_p1[:, :3].contiguous(), _aff_p2[:, :3].contiguous())),
]:
    add(case(nm, GSo, fn, ins, kwargs=kw))

# ---------------------------------------------------------------------------------------------
# pointcloud I/O
# ---------------------------------------------------------------------------------------------
GPc = "geometry.pointcloud"
_io = "reads or writes a PLY file on disk: file I/O, not a tensor operator"
_cloud = rand(100, 3, seed=400)
add(case("load_pointcloud_ply", GPc, KPC.load_pointcloud_ply, (), kwargs={"filename": "cloud.ply"}, skip=_io))
add(case("load_pointcloud_ply_binary", GPc, KPC.load_pointcloud_ply_binary, (), kwargs={"filename": "cloud.ply"}, skip=_io))
add(case("save_pointcloud_ply", GPc, KPC.save_pointcloud_ply, (_cloud,), kwargs={"filename": "cloud.ply"}, skip=_io))
add(case("save_pointcloud_ply_binary", GPc, KPC.save_pointcloud_ply_binary, (_cloud,), kwargs={"filename": "cloud.ply"}, skip=_io))
