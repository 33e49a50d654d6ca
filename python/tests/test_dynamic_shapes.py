"""The shape logic of the dynamic-shape paths (opsweep/shapes.py), without capturing anything."""

import os
import random

import pytest
import torch

from opsweep import case, shapes
from opsweep.case import RegistryError

torch.set_num_threads(1)


def g(*shape, seed=0, dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=gen).to(dtype)


def test_default_dims_vary_batch_and_image_sizes_only():
    image = g(1, 3, 32, 40)
    homography = g(1, 3, 3)
    angle = g(1)
    kernel = g(1, 1, 5, 5)  # 4-D but 5x5: a kernel, not an image
    laf = g(1, 16, 2, 3)  # B x N x 2 x 3
    points = g(2, 10, 2)  # dim 0 is 2, not the batch of 1
    dims = shapes.default_dims([image, homography, angle, kernel, laf, points])
    assert dims == {0: (0, 2, 3), 1: (0,), 2: (0,), 3: (0,), 4: (0,)}


def test_masks_grids_and_depth_maps_follow_their_image():
    image = g(2, 3, 32, 40)
    mask = torch.zeros(2, 32, 40, dtype=torch.bool)
    grid = g(2, 32, 40, 2)
    labels = torch.zeros(2, 1, 32, 40, dtype=torch.int64)
    other = g(2, 40, 32)  # transposed sizes do not follow
    c = case("f", "g", lambda *a: a[0], [image, mask, grid, labels, other])
    plan = shapes.plan_for(c)
    assert plan.dims_by_input() == {0: [0, 2, 3], 1: [0, 1, 2], 2: [0, 1, 2], 3: [0, 2, 3], 4: [0]}
    assert [v.name for v in plan.dims if v.input == 2] == ["batch", "H", "W"]
    assert plan.as_record()["names"]["1"] == ["batch", "H", "W"]


def test_volumes_vary_depth_height_and_width():
    plan = shapes.plan_for(case("v", "g", torch.neg, [g(1, 1, 8, 16, 16)]))
    assert [v.name for v in plan.dims] == ["batch", "D", "H", "W"]
    assert plan.shapes[1] == ((2, 1, 16, 32, 32),) and plan.shapes[2] == ((3, 1, 24, 48, 48),)


def test_no_dims_without_a_batch_or_an_image():
    plan = shapes.plan_for(case("s", "g", torch.neg, [torch.tensor(2.0)]))
    assert not plan.varies and "no dimension may vary" in plan.why
    plan = shapes.plan_for(case("n", "g", lambda: torch.zeros(2), []))
    assert not plan.varies and plan.why == "the case has no tensor input"


def test_step_keeps_divisibility_up_to_sixteen():
    assert [shapes.step_of(n) for n in (1, 2, 3, 6, 8, 12, 32, 40, 64, 19)] == [1, 2, 1, 2, 8, 4, 16, 8, 16, 1]


def test_size_map_examples():
    assert shapes.size_map([1, 32, 40], 1) == {1: 2, 32: 48, 40: 56}
    assert shapes.size_map([1, 32, 40], 2) == {1: 3, 32: 64, 40: 72}


def test_size_map_is_larger_distinct_ordered_and_divisible():
    rng = random.Random(7)
    for _ in range(300):
        sizes = rng.sample(range(1, 200), rng.randint(1, 5))
        one, two = shapes.size_map(sizes, 1), shapes.size_map(sizes, 2)
        for mapping in (one, two):
            ordered = [mapping[n] for n in sorted(sizes)]
            assert ordered == sorted(set(ordered)), (sizes, mapping)  # distinct, same order
            for n in sizes:
                assert mapping[n] > n and mapping[n] % shapes.step_of(n) == 0
        assert all(one[n] != two[n] for n in sizes)


def test_other_shapes_change_equal_sizes_together():
    a, b = g(2, 3, 32, 32), g(2, 1, 32, 32)
    plan = shapes.plan_for(case("pair", "g", torch.add, [a, b]))
    assert plan.shapes[1] == ((4, 3, 48, 48), (4, 1, 48, 48))
    assert plan.shapes[2] == ((6, 3, 64, 64), (6, 1, 64, 64))


def test_case_level_dims_and_opt_out():
    x = g(4, 10, 2)
    plan = shapes.plan_for(case("pts", "g", torch.neg, [x], dynamic={0: (1,)}))
    assert plan.source == "case" and [(v.input, v.dim, v.name) for v in plan.dims] == [(0, 1, "x0[1]")]
    assert plan.shapes[1] == ((4, 12, 2),)
    plan = shapes.plan_for(case("mat", "g", torch.neg, [g(3, 3)], dynamic="a 3x3 matrix"))
    assert not plan.varies and plan.why == "the case opts out: a 3x3 matrix"
    with pytest.raises(RegistryError):
        case("bad", "g", torch.neg, [x], dynamic={0: (5,)})


def test_override_entries_are_validated():
    c = case("ov", "g", torch.add, [g(1, 3, 32, 40), g(1, 3, 32, 40)])
    assert shapes.parse_override(c, "tied sizes").opt_out == "tied sizes"
    assert shapes.parse_override(c, {"only": "batch"}).only == "batch"
    assert shapes.parse_override(c, {1: (-1,)}).dims == {1: (3,)}
    explicit = shapes.parse_override(c, {"shapes": [[(2, 3, 32, 40), (2, 3, 32, 40)], [(3, 3, 32, 40), (3, 3, 32, 40)]]})
    assert explicit.shapes[1] == ((3, 3, 32, 40), (3, 3, 32, 40))
    for bad, message in [
        ("", "needs a reason"),
        ({"only": "height"}, "'only' must be"),
        ({2: (0,)}, "names input 2"),
        ({0: (4,)}, "out of range"),
        ({"shapes": [[(2, 3, 32, 40)]]}, "must list the two other shapes"),
        ({"shapes": [[(2, 3, 32)] * 2, [(3, 3, 32, 40)] * 2]}, "must have 4 sizes"),
        ({"shapes": [[(1, 3, 32, 40)] * 2, [(1, 3, 32, 40)] * 2]}, "equal the case's own"),
    ]:
        with pytest.raises(ValueError, match=message):
            shapes.parse_override(c, bad)


def test_only_batch_and_only_spatial_take_that_part_of_the_defaults():
    c = case("parts", "g", torch.add, [g(2, 3, 32, 40), g(2, 1, 32, 40)])
    assert shapes.batch_dims(c.inputs) == {0: (0,), 1: (0,)}
    assert shapes.spatial_dims(c.inputs) == {0: (2, 3), 1: (2, 3)}


def test_drawn_inputs_stay_in_range_and_are_reproducible():
    image = g(1, 3, 32, 40) * 0.5 + 0.25  # values in [0.25, 0.75)
    labels = torch.randint(3, 7, (1, 32, 40), generator=torch.Generator().manual_seed(1))
    c = case("draw", "g", lambda x, y: x, [image, labels])
    plan = shapes.plan_for(c)
    a = shapes.inputs_at(c, plan.shapes[2])
    b = shapes.inputs_at(c, plan.shapes[2])
    assert [tuple(t.shape) for t in a] == [(3, 3, 64, 72), (3, 64, 72)]
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert float(a[0].min()) >= float(image.min()) and float(a[0].max()) <= float(image.max())
    assert float(a[0].std()) > 0.05  # new values, not a copy
    assert set(a[1].unique().tolist()) <= set(labels.unique().tolist()) and a[1].dtype == torch.int64
    unchanged = shapes.inputs_at(c, plan.shapes[0])
    assert torch.equal(unchanged[0], image)


def test_resampled_inputs_keep_the_originals_values():
    rot = torch.stack([torch.eye(3), torch.eye(3).flip(0)])  # 2 x 3 x 3: structure per item
    c = case("rot", "g", torch.neg, [rot])
    plan = shapes.plan_for(c)
    (x,) = shapes.inputs_at(c, plan.shapes[1], shapes.RESAMPLED)
    assert x.shape == (4, 3, 3)
    assert torch.equal(x[0], rot[0]) and torch.equal(x[1], rot[1]) and torch.equal(x[2], rot[0])
    opted = case("rot2", "g", torch.neg, [rot], fresh_inputs="rotation matrices")
    (y,) = shapes.inputs_at(opted, plan.shapes[1])  # a fresh-inputs opt-out resamples too
    assert torch.equal(y, x)


def test_resample_uses_nearest_along_spatial_dims():
    x = torch.arange(4.0).view(1, 1, 1, 4)
    assert shapes.resample(x, (1, 1, 1, 8), spatial=(3,)).flatten().tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert shapes.resample(x, (1, 1, 1, 6)).flatten().tolist() == [0, 1, 2, 3, 0, 1]


def test_texts():
    assert shapes.shape_text([(2, 3, 48, 56), (2, 3, 3), ()]) == "2x3x48x56, 2x3x3, scalar"
    assert shapes.names_text(["W", "x1[1]", "batch", "H", "W"]) == "batch, H, W, x1[1]"
    spec = shapes.dynamic_shapes_spec(shapes.plan_for(case("s", "g", torch.add, [g(1, 3, 32, 40), g(3)])), [g(1), g(3)], "D")
    assert spec == (({0: "D", 2: "D", 3: "D"}, None),)


def test_the_dynamic_modules_belong_to_the_dynamic_paths_only():
    from opsweep.paths import PATHS, common_harness_files, harness_digest

    assert list(PATHS)[3:7] == ["export-dynamic", "onnx-dynamic", "compile-dynamic", "aoti-dynamic"]
    common = {rel for rel, _ in common_harness_files()}
    assert "shapes.py" not in common and "paths/dynamic.py" not in common
    for pid in ("export-dynamic", "onnx-dynamic", "compile-dynamic", "aoti-dynamic"):
        assert {"opsweep.shapes", "opsweep.paths.dynamic"} <= set(PATHS[pid].uses)
        assert "opsweep_suites.kornia._dynamic_overrides" in PATHS[pid].uses
    assert "opsweep.paths.onnx" in PATHS["onnx-dynamic"].uses and "opsweep.paths.compile" in PATHS["compile-dynamic"].uses
    assert "opsweep.paths.export" in PATHS["export-dynamic"].uses  # its program runs as the export path's
    assert "opsweep.paths.aoti" in PATHS["aoti-dynamic"].uses  # its package is built and run as the aoti path's
    assert not {"opsweep.shapes", "opsweep.paths.dynamic"} & set(PATHS["aoti"].uses + PATHS["executorch"].uses)
    assert len({harness_digest(s) for s in PATHS.values()}) == len(PATHS)


# Override entries a case's own dynamic= has replaced since the dynamic paths were surveyed:
# removing them edits the overrides file, which is in the three dynamic paths' digest and so would
# re-probe all 8,403 dynamic jobs for no change of plan. Nothing else may be dead in the table.
SUPERSEDED_OVERRIDES = {"RandomCrop[pad_if_needed]"}


def test_every_kornia_override_names_a_bundled_case_and_parses():
    from opsweep.registry import load_registries

    folder = os.path.join(os.path.dirname(os.path.dirname(shapes.__file__)), "opsweep_suites", "kornia")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.startswith("cases_") and f.endswith(".py"))
    cases = {lc.case.name: lc.case for lc in load_registries(files)}
    table = shapes.overrides()
    assert len(table) > 100
    unknown = sorted(set(table) - set(cases))
    assert not unknown, unknown
    for name, entry in table.items():
        parsed = shapes.parse_override(cases[name], entry)
        plan = shapes.plan_for(cases[name])
        if name in SUPERSEDED_OVERRIDES:
            # the case's own dynamic= wins (docs/dynamic-shapes.md); the entry goes with the next
            # edit of the overrides file, which re-keys every dynamic job
            assert plan.source == "case" and cases[name].dynamic is not None, name
            continue
        assert plan.source == "override", name
        assert plan.varies or parsed.opt_out, name
    assert SUPERSEDED_OVERRIDES <= set(table), "a superseded entry is gone: drop it from SUPERSEDED_OVERRIDES"


def test_guard_expressions_read_as_operators():
    import sympy

    from opsweep.paths.dynamic import expression_text

    a, b = sympy.symbols("s1 s2")
    names = {a: "x0[2]", b: "x1[0]"}
    assert expression_text(sympy.Eq(a - 1, 47), names) == "x0[2] - 1 == 47"
    assert expression_text(sympy.Eq(sympy.floor(a / 16), 3), names) == "floor(x0[2]/16) == 3"
    assert expression_text(sympy.Or(sympy.Eq(a, b), sympy.Eq(b, 1)), names) == "x0[2] == x1[0] | x1[0] == 1"
    assert expression_text(a <= 60, names) == "x0[2] <= 60"


def test_recompile_reasons_are_rewritten_and_classified():
    from opsweep.paths.compile_dynamic import guard_kind, guard_text

    assert guard_text("0/1: tensor 'inputs[0]' size mismatch at index 2. expected 48, actual 64") == "size of x0[2] == 48"
    assert guard_text("1/0: tensor 'input' size mismatch at index 0. expected 4, actual 6") == "size of input[0] == 4"
    text = guard_text("0/1: (L['inputs'][0].size()[2] // 16) == 3  # for _ in range(int(x.shape[2]) // 16):  "
                      "# kornia/f.py:12 in g (_dynamo/variables/tensor.py:2606 in evaluate_expr)")
    assert text == "(x0[2] // 16) == 3 at kornia/f.py:12 in g"
    assert guard_kind(text) == "equality" and guard_kind("size of x0[0] == 2") == "equality"
    assert guard_kind("2 <= x0[3] <= 60 at kornia/f.py:7 in g") == "threshold"
    assert guard_kind("x0[3]*x0[2] <= 4096") == "threshold"
    assert guard_kind("___check_obj_id(L['self'], 1234)") == "other"
