"""opsweep.repro: the reproducer of a failing job, run by a fresh interpreter that cannot import
opsweep, shows the same failure the survey recorded.

Planted failures (python/tests/fixtures/cases_statuses.py) on every path: an export failure
(data_branch: a Python branch on tensor values), a missing ONNX lowering (custom_twice: a custom op
without one), a compile mismatch (compile_offset), a graph break (item_scale), an ONNX Runtime and an
exported-program mismatch (onnx_offset, export_offset). For each, the job runs through
``run_job`` here, the script through ``python repro.py`` in a new process whose ``opsweep`` is a
package that refuses to import, and the script's verdict must name what the record names: the
failing step and the root cause's type and message, or the comparison that differs (the record's
own detail: the script judges with opsweep's compare, copied from its source), or the break reasons.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import torch

from harness_helpers import FIXTURES, INDUCTOR_CACHE, STATUSES_REGISTRY

FIDELITY_REGISTRY = os.path.join(FIXTURES, "cases_fidelity.py")
REORDER_REGISTRY = os.path.join(FIXTURES, "cases_reorder.py")
BY_VALUE_REGISTRY = os.path.join(FIXTURES, "cases_by_value.py")
from opsweep import evidence, repro
from opsweep.job import run_job
from opsweep.library import load_library
from opsweep.registry import load_registries

PLANTED = [
    ("data_branch", "export"),
    ("custom_twice", "onnx"),
    ("compile_offset", "compile"),
    ("item_scale", "compile"),
    ("onnx_offset", "onnx"),
    ("export_offset", "export"),
    # targets only a registry holds, carried by value (cloudpickle): a wrapper class and a lambda
    ("by_value_wrapper", "export"),
    ("by_value_wrapper", "compile"),
    ("by_value_lambda", "compile"),
]


# failures that show on the fresh input set only (the capture baked in a value of its trace inputs)
PLANTED_FRESH = [
    ("above_mean", "onnx"),  # mismatch on fresh inputs
    ("above_mean", "compile"),  # mismatch on fresh inputs
    ("positive_values", "onnx"),  # ort-run raises on fresh inputs only
    ("cumsum_fast_when_captured", "export"),  # the program's run raises on fresh inputs only
]
PLANTED += PLANTED_FRESH
# the compiled result holds eager's rows in another order: the record and the script say so alike
PLANTED_REORDER = [
    ("compile_rows_swapped", "compile", "output 0: the same rows as eager in another order (2 of 6 rows along dim 0 moved)"),
    # a batch of detections: two rows of the second image swapped (RTDETR's batched boxes under onnxruntime)
    ("compile_image_rows_swapped", "compile",
     "output 0: the same rows as eager in another order (2 of 24 rows along dim 1 moved)"),
    # a value difference in output 1 is reported before the reordering of output 0
    ("compile_rows_swapped_and_offset", "compile",
     "output 1: max abs diff 1, 60 of 60 elements outside atol=0.0002 rtol=0.001 (and 1 more outputs differ)"),
]


@pytest.fixture(scope="module")
def cases():
    return {lc.case.name: lc.case for lc in load_registries([STATUSES_REGISTRY, FIDELITY_REGISTRY, REORDER_REGISTRY, BY_VALUE_REGISTRY])}


@pytest.fixture(scope="module")
def no_opsweep(tmp_path_factory):
    """A folder whose ``opsweep`` package raises on import: first on the script's sys.path."""
    root = tmp_path_factory.mktemp("blocked")
    (root / "opsweep").mkdir()
    (root / "opsweep" / "__init__.py").write_text("raise ImportError('a reproducer must not import opsweep')\n")
    return root


def _record(case, path):
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
    library = load_library("fixture_ops")
    evidence.use_library(library)
    try:
        return run_job(case, path, library=library, threads=1)
    finally:
        evidence.use_library(None)


def _run_script(folder, blocked):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(blocked), FIXTURES])  # the library (fixture_ops), no opsweep
    env["TORCHINDUCTOR_CACHE_DIR"] = INDUCTOR_CACHE
    proc = subprocess.run([sys.executable, "repro.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    verdict = [line for line in proc.stdout.splitlines() if line.startswith("opsweep-repro:")]
    assert verdict, proc.stdout + proc.stderr
    return proc, verdict[-1][len("opsweep-repro: "):]


def _norm(text):
    """Whitespace collapsed, cut before the first path-like token (the record's text is scrubbed)."""
    text = " ".join(text.split())
    return re.split(r"\S*/\S*", text)[0][:120].strip()


@pytest.mark.parametrize("name,path", PLANTED)
def test_the_reproducer_shows_the_recorded_failure(cases, no_opsweep, tmp_path, name, path):
    record = _record(cases[name], path)
    folder = tmp_path / f"{name}-{path}"
    files = repro.write_repro(cases[name], path, str(folder), library="fixture_ops")
    assert "repro.py" in files and "inputs.pt" in files
    script = (folder / "repro.py").read_text()
    assert not re.search(r"^\s*(import|from)\s+opsweep", script, re.M)
    # cloudpickle only where a registry's own code is carried by value, and then said in the docstring
    assert ("import cloudpickle" in script) == name.startswith("by_value"), name
    assert ("fixture_ops, cloudpickle (not opsweep)" in script) == name.startswith("by_value"), script[:300]
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "versions:" in proc.stdout and "torch" in proc.stdout
    status = record["status"]
    if status == "fail":
        step, _, rest = verdict.partition(" failed: ")
        assert step == record["step"], (verdict, record["step"])
        assert rest.startswith(record["error"]["type"] + ": "), (verdict, record["error"]["type"])
        assert _norm(rest[len(record["error"]["type"]) + 2:]).startswith(_norm(record["error"]["message"])[:60])
    elif status == "mismatch":
        assert verdict.startswith("mismatch"), verdict
        assert verdict.split("): ", 1)[1] == record["detail"], (verdict, record["detail"])
    elif status == "ok-breaks":
        assert verdict.startswith(f"graph breaks: {record['graph_breaks']}: "), verdict
        assert verdict.split(": ", 2)[2].split("; ") == record["break_reasons"], (verdict, record["break_reasons"])
    else:
        pytest.fail(f"{name} through {path} is {status}: not a planted failure")
    if path == "onnx" and record["step"] != "export":
        assert "model.onnx" in files  # the file that exported, for the bug report


@pytest.mark.parametrize("name,path,detail", PLANTED_REORDER)
def test_rows_in_another_order_are_named_as_such_by_the_record_and_the_reproducer(cases, no_opsweep, tmp_path, name,
                                                                                  path, detail):
    record = _record(cases[name], path)
    assert (record["status"], record["detail"]) == ("mismatch", detail)
    folder = tmp_path / f"{name}-{path}"
    repro.write_repro(cases[name], path, str(folder), library="fixture_ops")
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # the script judges with opsweep's own compare: the record's detail, word for word
    assert verdict.split("): ", 1)[1] == detail, (verdict, detail)


DYNAMIC_REGISTRY = os.path.join(FIXTURES, "cases_dynamic.py")
# planted dynamic-shape failures (python/tests/fixtures/cases_dynamic.py): a failure at the trace
# shape, a mismatch at another shape only, an export failure, a recompile on every new size
PLANTED_DYNAMIC = [
    ("loop_over_height", "onnx-dynamic"),  # mismatch at other heights (the loop count was fixed)
    ("branch_on_width", "onnx-dynamic"),  # mismatch at 3x3x64x72 only (past the branch's threshold)
    ("nonzero_vs_width", "export-dynamic"),  # export fails (a data-dependent size)
    ("export_offset_image", "export-dynamic"),  # mismatch at the trace shape
    ("compile_offset_image", "compile-dynamic"),  # mismatch at the first call
    ("lying_fake_image", "compile-dynamic"),  # compile fails (a lying fake kernel)
    ("loop_over_height", "compile-dynamic"),  # ok-recompiles: every new H recompiles
]


@pytest.fixture(scope="module")
def dynamic_cases():
    return {lc.case.name: lc.case for lc in load_registries([DYNAMIC_REGISTRY])}


def _failing_shape(record):
    """The shape the survey's verdict names: the trace shape's run first, as it reports."""
    runs = sorted(record["dynamic"]["per_shape"], key=lambda r: r["role"] != "trace")
    bad = next((r for r in runs if r["status"] in ("mismatch", "fail")), None)
    return bad and (", ".join("x".join(map(str, s)) for s in bad["shape"]), bad)


@pytest.mark.parametrize("name,path", PLANTED_DYNAMIC)
def test_the_reproducer_of_a_dynamic_path_shows_the_recorded_failure_at_its_shape(dynamic_cases, no_opsweep, tmp_path,
                                                                                  name, path):
    record = _record(dynamic_cases[name], path)
    folder = tmp_path / f"{name}-{path}"
    files = repro.write_repro(dynamic_cases[name], path, str(folder), library="fixture_ops")
    assert "repro.py" in files and "inputs.pt" in files
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "varied dimensions:" in proc.stdout and "shapes:" in proc.stdout
    status, found = record["status"], _failing_shape(record)
    if status == "fail" and not found:  # the capture itself raised
        step, _, rest = verdict.partition(" failed: ")
        assert step == record["step"], (verdict, record["step"])
        assert rest.startswith(record["error"]["type"] + ": "), (verdict, record["error"]["type"])
        assert _norm(rest[len(record["error"]["type"]) + 2:]).startswith(_norm(record["error"]["message"])[:60])
    elif status == "fail":
        where, run = found
        step, _, rest = verdict.partition(" failed: ")
        assert step == f"{record['step']} at {where}", (verdict, record["step"], where)
        assert run["detail"].startswith(f"raised {rest.split(':', 1)[0].rsplit('.', 1)[-1]}:"), (verdict, run["detail"])
    elif status == "mismatch":
        where, run = found
        assert verdict.startswith(f"mismatch at {where} ("), (verdict, where)
        assert verdict.split("): ", 1)[1] == run["detail"], (verdict, run["detail"])
        assert re.search(rf"\bat (the trace shape )?{where}[:,]", record["detail"]), (where, record["detail"])
    elif status == "ok-recompiles":
        assert verdict.startswith(f"recompiles on every new shape: {record['dynamic']['recompiles']} recompile(s)"), verdict
        # the guard as the record names it: the script reads it with the path's own guard_texts
        assert "(x0[2] // 16) == 3" in verdict and "(x0[2] // 16) == 3" in record["detail"], (verdict, record["detail"])
    else:
        pytest.fail(f"{name} through {path} is {status}: not a planted failure")


def test_a_dynamic_job_that_passes_reproduces_as_ok_at_the_shapes_it_ran(dynamic_cases, no_opsweep, tmp_path):
    # ok-static: the exported program holds H at its trace size; the script runs the shapes the
    # survey ran (H held), not the plan's
    record = _record(dynamic_cases["loop_over_height"], "export-dynamic")
    assert (record["status"], record["detail"]) == ("ok-static", "static in H")
    folder = tmp_path / "loop-export-dynamic"
    repro.write_repro(dynamic_cases["loop_over_height"], "export-dynamic", str(folder), library="fixture_ops")
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr
    shown = next(line for line in proc.stdout.splitlines() if line.startswith("shapes: "))
    assert [part.split(" (")[0] for part in shown[len("shapes: "):].split("; ")] == ["1x3x48x40", "2x3x48x56", "3x3x48x72"]
    assert "(trace, drawn values)" in shown


def test_a_case_without_varied_dimensions_has_no_dynamic_reproducer(tmp_path):
    from opsweep import case

    with pytest.raises(repro.ReproError, match="no dimension that varies"):
        repro.write_repro(case("norm", "g", torch.linalg.norm, [torch.ones(())]), "export-dynamic", str(tmp_path))


def test_a_passing_job_reproduces_as_ok(cases, no_opsweep, tmp_path):
    folder = tmp_path / "add_scaled"
    repro.write_repro(cases["add_scaled"], "export", str(folder), library="fixture_ops")
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr


def _record_and_script(case, path, tmp_path, blocked):
    """The survey's record of the job, and its reproducer's run: (record, process, verdict)."""
    record = _record(case, path)
    folder = tmp_path / "script"
    repro.write_repro(case, path, str(folder), library="fixture_ops")
    return (record, *_run_script(folder, blocked))


def test_eager_and_the_capture_run_their_own_copies_in_the_reproducer(cases, no_opsweep, tmp_path):
    # The survey deep-copies the target for every call site; the script did not, and a module that
    # keeps its last call's state (kornia's audit reads AugmentationSequential._params) looked right
    # in the script after its eager run, while the survey's fresh copy showed the capture losing it.
    record, proc, verdict = _record_and_script(cases["by_value_remembers_last_call"], "compile", tmp_path, no_opsweep)
    assert record["status"] == "ok-breaks", record  # data_branch breaks the graph; the values match
    assert proc.returncode == 1 and verdict.startswith("graph breaks: "), proc.stdout + proc.stderr
    assert "mismatch" not in proc.stdout, proc.stdout  # shared state would add 100 to the capture's output


def test_the_reproducer_seeds_what_opsweep_seeds(cases, no_opsweep, tmp_path):
    # opsweep seeds torch, numpy and Python's random before each call; a script that seeds torch
    # alone draws other random.random() values, and its mismatch is not the survey's
    record, proc, verdict = _record_and_script(cases["by_value_python_random"], "export", tmp_path, no_opsweep)
    assert record["status"] == "mismatch", record  # the trace draws after eager's seeded draw
    assert proc.returncode == 1 and verdict.startswith("mismatch"), proc.stdout + proc.stderr
    assert verdict.split("): ", 1)[1] == record["detail"], (verdict, record["detail"])  # the same draws


def test_module_targets_with_methods_and_kwargs_are_pickled(cases, no_opsweep, tmp_path):
    folder = tmp_path / "projector"
    files = repro.write_repro(cases["Projector.project[offset]"], "export", str(folder), library="fixture_ops")
    assert "target.pt" in files
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr


def test_targets_a_script_cannot_rebuild_are_refused(tmp_path):
    import threading

    from opsweep import case

    class Local(torch.nn.Module):  # defined in a function: no module holds it, its code is carried
        def forward(self, x):
            return x

    files = repro.write_repro(case("local", "g", Local(), [torch.ones(2)]), "export", str(tmp_path / "local"))
    assert "target.pt" in files and "import cloudpickle" in (tmp_path / "local" / "repro.py").read_text()

    class Holding(Local):  # what nothing can save (DepthEstimation.visualize holds an onnxruntime session)
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

    with pytest.raises(repro.ReproError, match=r"cannot be saved for a standalone script \(TypeError: cannot pickle "
                                               r"'_thread.lock' object\)"):
        repro.write_repro(case("holding", "g", Holding(), [torch.ones(2)]), "export", str(tmp_path / "holding"))
    assert not (tmp_path / "holding").exists()
    with pytest.raises(repro.ReproError, match="skipped"):
        repro.write_repro(case("skipped", "g", torch.sin, [torch.ones(2)], skip="no"), "export", str(tmp_path))
    with pytest.raises(repro.ReproError, match="no reproducer for path"):
        repro.write_repro(case("sin", "g", torch.sin, [torch.ones(2)]), "tract", str(tmp_path))


def test_the_script_carries_the_harness_code_it_runs_by_its_source(cases, tmp_path):
    # no hand-written copy can drift: the script holds the source of the functions the survey
    # judges with, and the path's own functions its reproducer names
    import inspect

    from opsweep.case_module import make_module
    from opsweep.compare import compare, one_to_one
    from opsweep.flatten import flatten
    from opsweep.paths import PATHS
    from opsweep.randomness import seed_everything

    folder = tmp_path / "onnx_offset"
    repro.write_repro(cases["onnx_offset"], "onnx", str(folder), library="fixture_ops")
    script = (folder / "repro.py").read_text()
    for fn in (make_module, compare, one_to_one, flatten, seed_everything, evidence.root_cause, *PATHS["onnx"].repro.calls):
        assert inspect.getsource(fn) in script, fn.__name__
    compile(script, "repro.py", "exec")


def test_every_path_that_declares_a_reproducer_writes_one(dynamic_cases, tmp_path, monkeypatch):
    # the page shows `opsweep repro ... --path P` for the paths whose description says reproducible:
    # each must write a script that carries opsweep's code and imports none of it
    from opsweep.paths import PATHS, describe_paths

    declared = {s.id for s in PATHS.values() if s.repro is not None}
    assert declared == set(repro.reproducible_paths()) == set(PATHS)
    described = {d["id"]: d.get("reproducible", False) for d in describe_paths()}
    assert {p for p, yes in described.items() if yes} == declared
    # the dynamic paths' shapes come from a run of the job: a planted record is enough here
    monkeypatch.setattr(repro, "run_job", lambda case, path, **kw: {"status": "ok", "detail": "", "dynamic": None})
    for path in sorted(declared):
        folder = tmp_path / path
        repro.write_repro(dynamic_cases["export_offset_image"], path, str(folder), library="fixture_ops")
        script = (folder / "repro.py").read_text()
        assert not re.search(r"^\s*(import|from)\s+opsweep", script, re.M), path
        compile(script, "repro.py", "exec")
    with pytest.raises(repro.ReproError, match="no reproducer for path 'openvino'"):
        repro.write_repro(None, "openvino", "unused")  # refused before the case is looked at


def test_a_wrapper_that_declares_its_forwarding_is_called_through_it(no_opsweep, tmp_path):
    # a Positional wrapper is no class name the reproducer knows: it declares how it forwards, and
    # the script calls the wrapped function through that declaration (no cloudpickle, no target.pt)
    from opsweep import case
    from opsweep.toolkit import Positional

    import fixture_ops

    c = case("scaled_by_name", "g", Positional(fixture_ops.add_scaled, scale=3.0), [torch.ones(2, 3), torch.ones(2, 3)])
    folder = tmp_path / "positional"
    files = repro.write_repro(c, "export", str(folder), library="fixture_ops")
    assert files == ["fixed.pt", "inputs.pt", "repro.py"], files
    script = (folder / "repro.py").read_text()
    assert "import cloudpickle" not in script and "target = Forwarding(" in script
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr


@pytest.mark.parametrize("name,path,lost", [("Total", "export", True), ("Total", "compile", False),
                                            ("BufferTotal", "export", False)])
def test_the_reproducer_checks_the_state_the_call_updates(no_opsweep, tmp_path, name, path, lost):
    """The state check runs in the script as in the survey: torch.export drops the update of a
    plain tensor attribute (Total: a mismatch, 'state update lost', the record's own detail) and
    keeps a buffer's; torch.compile keeps both."""
    from opsweep.library import load_library as load

    c = {lc.case.name: lc.case for lc in load_registries([os.path.join(FIXTURES, "cases_stateful.py")])}[name]
    library = load("stateful_ops")
    evidence.use_library(library)
    try:
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
        record = run_job(c, path, library=library, threads=1)
    finally:
        evidence.use_library(None)
    folder = tmp_path / f"{name}-{path}"
    repro.write_repro(c, path, str(folder), library="stateful_ops")
    proc, verdict = _run_script(folder, no_opsweep)
    assert "eager's call updates the module's state: target.total" in proc.stdout, proc.stdout
    if lost:
        assert record["status"] == "mismatch" and record["detail"].startswith("state update lost"), record["detail"]
        assert proc.returncode == 1 and verdict.split("): ", 1)[1] == record["detail"], (verdict, record["detail"])
    else:
        assert record["status"] in ("ok", "ok-breaks"), record
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "keeps eager's update of target.total" in proc.stdout, proc.stdout
