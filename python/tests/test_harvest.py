"""The harvest's Python side (opsweep.harvest, opsweep.toolkit.harvested), on the fixture library
python/tests/fixtures/harvestlib: the recorder, the rendered cases, the checks, naming and the
override rule. The engine's side (deadlines, crashes, the verb end to end) is tests/test_harvest_cli.py."""

from __future__ import annotations

import os
import textwrap

import pytest
import torch

from opsweep.harvest import assemble, checks
from opsweep.harvest.recorder import Recorder
from opsweep.harvest.render import Unbuildable, render
from opsweep.harvest.surface import surface
from opsweep.registry import load_registries
from opsweep.toolkit.harvested import GENERATED_MARK, Call, In, Method, harvested_cases, overrides


@pytest.fixture(scope="module")
def table():
    return surface("harvestlib")[1]


def record(table, source: str):
    """Runs ``source`` as example code (its code's file is ``<doctest t>``) under the recorder."""
    recorder = Recorder(table, lambda code: code.co_filename.startswith("<doctest "))
    code = compile(textwrap.dedent(source), "<doctest t>", "exec")
    recorder.start()
    try:
        exec(code, {"torch": torch})
    finally:
        recorder.stop()
    return recorder.records


def public(records):
    return [r for r in records if r.operator is not None]


def test_only_calls_made_by_example_code_are_recorded(table):
    records = record(table, "import harvestlib\nharvestlib.outer(torch.zeros(2))\n")
    assert [r.operator for r in records] == ["harvestlib.outer"]  # not inner, which outer calls


def test_arguments_are_recorded_as_they_were_when_the_call_started(table):
    records = record(table, "import harvestlib\na = torch.zeros(3)\nharvestlib.inplace_add_(a, torch.ones(3))\n")
    (r,) = public(records)
    x, y = (r.tensors[n["t"]] for n in r.args)
    assert torch.equal(x, torch.zeros(3)) and torch.equal(y, torch.ones(3))  # not the output


def test_a_default_left_out_by_the_example_is_left_out_and_python_values_are_kwargs(table):
    (r,) = public(record(table, "import harvestlib\nharvestlib.scale(torch.ones(2))\n"))
    assert r.kwargs == {} and len(r.args) == 1
    (r,) = public(record(table, "import harvestlib\nharvestlib.scale(torch.ones(2), 3.0)\n"))
    assert r.kwargs == {"factor": {"lit": "3.0"}}


def test_a_module_call_is_rebuilt_from_its_construction(table):
    records = record(table, "import harvestlib\nm = harvestlib.Doubler(bias=0.5)\ny = m(torch.ones(2, 2))\n")
    kinds = [(r.kind, r.operator) for r in records]
    assert kinds == [("construct", "harvestlib.Doubler"), ("module", "harvestlib.Doubler")]
    rendered = render(records, 1, table)
    assert rendered.target == "harvestlib.Doubler(bias=0.5)" and len(rendered.inputs) == 1


def test_a_method_on_a_built_object_rebuilds_the_object_from_live_inputs(table):
    records = record(table, "import harvestlib\nb = harvestlib.Box(torch.tensor([[0., 0., 2., 3.]]))\nb.area()\n")
    method = next(r for r in records if r.kind == "method")
    assert method.operator == "harvestlib.Box.area"
    rendered = render(records, method.index, table)
    assert rendered.target == "Method(harvestlib.Box.area, Call(harvestlib.Box, In(0)))"
    assert torch.equal(rendered.inputs[0], torch.tensor([[0.0, 0.0, 2.0, 3.0]]))


def test_a_tensor_after_a_python_value_gives_a_call_with_its_structure(table):
    records = record(table, "import harvestlib\nharvestlib.interp_sorted(knots=torch.arange(4.), x=torch.ones(2))\n")
    assert render(records, 0, table).target == "harvestlib.interp_sorted"  # leading tensors: plain
    records = record(table, "import harvestlib\nharvestlib.scale(torch.ones(2), factor=torch.tensor(2.0))\n")
    assert render(records, 0, table).target == "harvestlib.scale"  # both leading: two inputs
    records = record(table, "import harvestlib\nharvestlib.blend(0.25, torch.zeros(2), torch.ones(2))\n")
    assert render(records, 0, table).target == "Call(harvestlib.blend, alpha=0.25, x=In(0), y=In(1))"


def test_no_tensor_output_and_an_object_that_cannot_be_rebuilt_are_reasons(table):
    (r,) = public(record(table, "import harvestlib\nharvestlib.count_positive(torch.ones(3))\n"))
    assert r.has_tensor_output is False
    records = record(table, "import harvestlib\nclass B:\n    data = torch.ones(1, 4)\nharvestlib.Box.area(B())\n")
    (r,) = public(records)
    with pytest.raises(Unbuildable, match="cannot be rebuilt|no call of the example"):
        render(records, r.index, table)


def test_the_wrappers_replay_the_call():
    import harvestlib

    assert torch.equal(Call(harvestlib.scale, In(0), factor=In(1))(torch.ones(2), torch.tensor(3.0)), torch.full((2,), 3.0))
    area = Method(harvestlib.Box.area, Call(harvestlib.Box, In(0)))
    assert torch.equal(area(torch.tensor([[0.0, 0.0, 2.0, 3.0]])), torch.tensor([6.0]))
    assert area.__opsweep_target__ is harvestlib.Box.area
    assert Call(harvestlib.Doubler(), In(0)).__opsweep_target__ is harvestlib.Doubler


def _case(name, target, inputs, **kw):
    from opsweep.case import case

    return case(name, "ops", target, inputs, **kw)


def test_the_checks_mark_random_measure_tolerance_and_refuse_invalid_redraws():
    import harvestlib

    assert checks.check_case(_case("scale[doc]", harvestlib.scale, [torch.ones(3)])) == {
        "drop": None, "check": True, "atol": None, "note": "", "fresh": None}
    assert checks.check_case(_case("noisy[doc]", harvestlib.noisy, [torch.zeros(2, 2)]))["check"] is False
    wobbly = checks.check_case(_case("wobbly[doc]", harvestlib.wobbly, [torch.linspace(0, 1, 64)]))
    assert wobbly["atol"] is not None and wobbly["atol"] > 2e-4 and "float64" in wobbly["note"]
    sorted_knots = checks.check_case(
        _case("interp_sorted[doc]", harvestlib.interp_sorted, [torch.tensor([0.0, 1.0, 2.0, 4.0]), torch.tensor([0.5, 3.0])]))
    assert "knots must be sorted" in sorted_knots["fresh"]
    broken = checks.check_case(_case("broken[x]", harvestlib.broken, [torch.ones(2)], kwargs={"mode": "nope"}))
    assert broken["drop"].startswith("the rebuilt call raises: ValueError")


def test_a_measured_tolerance_passes_the_registries_well_posed_test():
    """The defect the check exists for (an ill-conditioned call compared at the default tolerance)
    is caught, and the tolerance written makes the same comparison pass."""
    import harvestlib

    x = torch.linspace(0, 1, 64)
    result = checks.check_case(_case("wobbly[doc]", harvestlib.wobbly, [x]))
    single, double = harvestlib.wobbly(x), harvestlib.wobbly(x.double())
    d = (single.double() - double).abs()
    assert bool((d > 2e-4 + 1e-3 * double.abs()).any())
    assert not bool((d > result["atol"] + 1e-3 * double.abs()).any())


def test_short_names_grow_only_where_two_operators_share_one():
    ops = [{"name": "lib.a.f", "kind": "function"}, {"name": "lib.b.f", "kind": "function"},
           {"name": "lib.a.G", "kind": "class"}, {"name": "lib.a.G.area", "kind": "method"}]
    assert assemble.short_names(ops) == {"lib.a.f": "a.f", "lib.b.f": "b.f", "lib.a.G": "G", "lib.a.G.area": "G.area"}


def _write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


GENERATED = f"""\
{GENERATED_MARK} for the test.
import torch
import harvestlib
from opsweep.case import case
from opsweep.toolkit.harvested import harvested_cases
CASES = harvested_cases(__file__, [
    case("scale[doc]", "ops", harvestlib.scale, [torch.ones(2)]),
    case("outer[doc]", "ops", harvestlib.outer, [torch.ones(2)]),
])
"""


def test_a_hand_written_case_listed_in_overrides_replaces_the_harvested_one(tmp_path):
    folder = str(tmp_path)
    generated = _write(folder, "cases_ops.py", GENERATED)
    hand = _write(folder, "cases_fixes.py", """\
        import torch
        import harvestlib
        from opsweep.case import case
        OVERRIDES = {"scale[doc]": "the harvested input is a constant"}
        CASES = [case("scale[doc]", "ops", harvestlib.scale, [torch.arange(3.0)], note="by hand")]
        """)
    assert overrides(folder) == {"scale[doc]": ("the harvested input is a constant", "cases_fixes.py")}
    loaded = {lc.case.name: lc for lc in load_registries([hand, generated])}
    assert set(loaded) == {"scale[doc]", "outer[doc]"}
    assert loaded["scale[doc]"].registry == "cases_fixes.py" and loaded["scale[doc]"].case.note == "by hand"


def test_a_hand_written_duplicate_not_listed_in_overrides_is_refused(tmp_path):
    from opsweep.case import RegistryError

    folder = str(tmp_path)
    generated = _write(folder, "cases_ops.py", GENERATED)
    hand = _write(folder, "cases_fixes.py", """\
        import torch
        import harvestlib
        from opsweep.case import case
        CASES = [case("scale[doc]", "ops", harvestlib.scale, [torch.arange(3.0)])]
        """)
    with pytest.raises(RegistryError, match="duplicate case name 'scale\\[doc\\]'"):
        load_registries([hand, generated])
    assert harvested_cases(generated, []) == []


def test_coverage_says_where_cases_come_from_and_why_the_harvest_gave_none(tmp_path):
    import json

    from opsweep.coverage import coverage_report

    folder = str(tmp_path)
    generated = _write(folder, "cases_ops.py", GENERATED.replace(
        'case("outer[doc]", "ops", harvestlib.outer, [torch.ones(2)]),',
        'case("outer[test]", "ops", harvestlib.outer, [torch.ones(2)]),'))
    hand = _write(folder, "cases_hand.py", """\
        import torch
        import harvestlib
        from opsweep.case import case
        CASES = [case("blend", "ops", harvestlib.blend, [torch.ones(2), torch.zeros(2)], kwargs={})]
        """)
    with open(os.path.join(folder, "harvest.json"), "w") as f:
        json.dump({"per_operator": [{"name": "harvestlib.broken", "status": "none", "reason": "example failed",
                                     "why": "ValueError: unknown mode 'nope'"}]}, f)
    report = coverage_report("harvestlib", [hand, generated])
    source = {r["name"]: r["source"] for r in report["covered_names"]}
    assert source == {"harvestlib.scale": "harvested (docs)", "harvestlib.outer": "harvested (tests)",
                      "harvestlib.blend": "hand-written"}
    assert report["covered_by_source"] == {"hand-written": 1, "harvested (docs)": 1, "harvested (tests)": 1}
    why = {r["name"]: r.get("why") for r in report["missing"]}
    assert why["harvestlib.broken"] == "harvest: example failed: ValueError: unknown mode 'nope'"
    assert why["harvestlib.spin"] is None
