"""Fresh input sets of the bundled kornia registries: a structured input (a rotation, a camera, boxes, a
0/1 mask, recorded augmentation parameters) is never redrawn uniformly by the harness, where a difference
would be a false 'matches eager on its trace inputs only' verdict."""

import glob
import importlib.util
import os

import pytest
import torch

from opsweep.case import Case, loading
from opsweep.fresh_set import draw_fresh_inputs
from opsweep.toolkit import fresh as fresh_module
from opsweep_suites.kornia import _common as C
from opsweep.registry import RegistryError, load_registries

torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
KORNIA = os.path.join(HERE, "..", "opsweep_suites", "kornia")
AUDIT = os.path.join(HERE, "..", "..", "scripts", "audit_fresh_inputs.py")


def _audit():
    spec = importlib.util.spec_from_file_location("audit_fresh_inputs", AUDIT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------ _common helpers


def test_a_declared_tensor_gets_its_second_value_and_the_rest_is_redrawn(tmp_path):
    with loading(str(tmp_path / "reg_a.py")):
        rot = C.structured(torch.eye(3)[None].clone(), torch.tensor([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]))
        image = C.rand(1, 1, 4, 4, seed=3)
        labels = torch.tensor([1, 2])
        fresh = C.fresh_set("op", [rot.clone(), image, labels])  # a clone has the same values: still declared
    assert torch.equal(fresh[0], torch.tensor([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]))
    assert not torch.equal(fresh[1], image) and float(fresh[1].min()) >= float(image.min()) and float(fresh[1].max()) <= float(image.max())
    assert torch.equal(fresh[2], labels)
    with loading(str(tmp_path / "reg_a.py")):
        assert C.fresh_set("op", [image]) is None  # nothing declared: the harness draws the set


def test_declarations_are_scoped_to_their_registry(tmp_path):
    x = torch.tensor([1.0, 2.0, 3.0])
    with loading(str(tmp_path / "reg_b.py")):
        C.structured(x, torch.tensor([3.0, 2.0, 1.0]))
        assert C.second_value(x) is not None
    with loading(str(tmp_path / "reg_c.py")):
        assert C.second_value(x) is None


def test_another_second_value_for_the_same_values_is_refused(tmp_path):
    with loading(str(tmp_path / "reg_d.py")):
        C.structured(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0]))
        C.structured(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0]))  # the same again is fine
        with pytest.raises(RegistryError):
            C.structured(torch.tensor([1.0, 2.0]), torch.tensor([5.0, 1.0]))
        with pytest.raises(RegistryError):
            C.structured(torch.tensor([4.0, 2.0]), torch.tensor([4.0, 2.0]))  # equal values: keep() says that


def test_twin_and_derived_compute_the_second_value_the_same_way(tmp_path):
    with loading(str(tmp_path / "reg_e.py")):
        def angles(second=False):
            return torch.tensor([0.5, 1.0]) * (-1.0 if second else 1.0)

        a = C.twin(angles)
        unit = C.derived(lambda t: torch.stack([t.cos(), t.sin()], -1), a)
        assert torch.allclose(C.second_value(unit), torch.stack([(-a).cos(), (-a).sin()], -1))
        ident = C.keep(torch.eye(2))
        assert torch.equal(C.second_value(ident), torch.eye(2))


def test_case_gives_an_own_fresh_set_only_when_an_input_is_declared(tmp_path):
    with loading(str(tmp_path / "reg_f.py")):
        k = C.camera_matrix()
        with_camera = C.case("project", "g", torch.matmul, [k, C.rand(1, 3, 3, seed=1)])
        plain = C.case("plain", "g", torch.matmul, [C.rand(1, 3, 3, seed=1), C.rand(1, 3, 3, seed=2)])
    assert isinstance(with_camera.fresh_inputs, tuple)
    assert torch.equal(with_camera.fresh_inputs[0][0, 2], torch.tensor([0.0, 0.0, 1.0]))  # still intrinsics
    assert plain.fresh_inputs is None


# ------------------------------------------------------------------------------------------ the kornia cases

# structures a uniform redraw in [min, max] destroys and a valid fresh value must keep
STRONG = ("rotation / orthogonal", "unit vectors / quaternions (last dim 4)", "camera intrinsics", "4x4 rigid transform",
          "xyxy boxes", "box corners", "0/1 mask stored as float")
# 0/1 values that are colours or weights, where any value in [0, 1] is valid
NOT_MASKS = {"draw_line", "draw_line[batch_of_lines]", "utils.draw_line", "draw_rectangle[fill,color]", "draw_rectangle[line_width=3]",
             "draw_point2d", "utils.draw_point2d", "draw_convex_polygon", "utils.draw_convex_polygon", "rgba_to_rgb[background=tensor]",
             "bbox_generator3d"}


@pytest.fixture(scope="module")
def kornia_cases():
    return [lc.case for lc in load_registries(sorted(glob.glob(os.path.join(KORNIA, "cases_*.py"))))]


def _strong(audit, x):
    return [s for s in audit.structures(x) if s.startswith(STRONG)]


def test_no_structured_kornia_input_is_redrawn_uniformly(kornia_cases):
    audit = _audit()
    bad = []
    for c in kornia_cases:
        if c.skip or c.fresh_inputs is not None:
            continue
        fresh, _ = draw_fresh_inputs(c)
        if fresh is None:
            continue
        for i, (x, y) in enumerate(zip(c.inputs, fresh)):
            kinds = [k for k in _strong(audit, x) if not (k.startswith("0/1") and c.name in NOT_MASKS)]
            if kinds and not torch.equal(x, y):
                bad.append(f"{c.name} input {i}: {kinds}")
    assert bad == []


def test_own_fresh_sets_keep_the_structure_of_their_inputs(kornia_cases):
    audit = _audit()
    lost = []
    for c in kornia_cases:
        if c.skip or not isinstance(c.fresh_inputs, tuple):
            continue
        for i, (x, y) in enumerate(zip(c.inputs, c.fresh_inputs)):
            kinds = [k for k in _strong(audit, x) if k not in audit.structures(y) and not (k.startswith("0/1") and c.name in NOT_MASKS)]
            if kinds and not k_quads(c.name):
                lost.append(f"{c.name} input {i}: {kinds}")
    assert lost == []


def k_quads(name):
    """get_perspective_transform's source quadrilateral is a rectangle in the trace set, another quadrilateral in the fresh one."""
    return name.startswith("get_perspective_transform")


def test_a_mixed_augmentation_gate_stays_mixed(kornia_cases):
    by_name = {c.name: c for c in kornia_cases}
    c = by_name["RandomHorizontalFlip[p=0.5]"]
    gates = [(x, y) for x, y in zip(c.inputs, c.fresh_inputs) if x.is_floating_point() and set(x.unique().tolist()) == {0.0, 1.0}]
    assert gates
    for x, y in gates:
        assert set(y.unique().tolist()) == {0.0, 1.0}
    changed = [i for i, (x, y) in enumerate(zip(c.inputs, c.fresh_inputs)) if not torch.equal(x, y)]
    assert changed  # the parameters were sampled again


def test_opt_outs_say_why(kornia_cases):
    reasons = {c.name: c.fresh_inputs for c in kornia_cases if isinstance(c.fresh_inputs, str)}
    assert set(reasons) == {"AutoAugment", "AutoAugment[cifar10]"}
    assert all("seed" in r for r in reasons.values())


def test_the_table_of_second_values_never_enters_a_fingerprint():
    # A case whose fingerprint reaches the helpers' code (here through a false positive: an attribute
    # named like a helper) took the table's contents, which hold each registry file's absolute path:
    # the same case had another job key in another checkout. The table now encodes as itself.
    import json

    from opsweep.fingerprint import encode

    before = json.dumps(encode(fresh_module._SECOND), sort_keys=True)
    with loading("/somewhere/else/cases_x.py"):
        C.structured(torch.zeros(2), torch.ones(2))
    after = json.dumps(encode(fresh_module._SECOND), sort_keys=True)
    assert before == after
    assert "/somewhere" not in after and "cases_" not in after
    with loading("/somewhere/else/cases_x.py"):
        assert torch.equal(C.second_value(torch.zeros(2)), torch.ones(2))  # the table still answers
