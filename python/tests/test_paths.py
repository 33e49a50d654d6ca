"""Harness pieces that need no worker: the case wrapper, the path registry, break counting."""

import json

import pytest
import torch

from opsweep import case
from opsweep.paths import PATHS, describe_paths
from opsweep.case_module import CaseModule, make_module
from opsweep.paths.compile import graph_break_count

torch.set_num_threads(1)


def test_paths_are_discovered_with_their_descriptions():
    assert list(PATHS) == ["onnx", "export", "compile", "export-dynamic", "onnx-dynamic", "compile-dynamic",
                           "aoti-dynamic", "aoti", "executorch"]
    assert all(callable(p.probe) for p in PATHS.values())
    described = {d["id"]: d for d in describe_paths()}
    assert described["onnx"]["steps"] == ["export", "checker", "ort-load", "ort-run", "compare"]
    assert described["onnx"]["env"] == ["python", "torch", "numpy", "device", "onnx", "onnxscript", "onnxruntime",
                                        "opset", "openvino", "tract", "opsets"]
    assert described["export"]["env"] == ["python", "torch", "numpy", "device"]
    # every path has its own harness digest: the common modules plus its own module
    assert len({d["harness"] for d in described.values()}) == len(PATHS) == 9
    # what only some paths use (the runtimes package; the dynamic paths' shapes and shared logic) is
    # theirs, not common
    from opsweep.paths import common_harness_files
    common = {rel for rel, _ in common_harness_files()}
    assert not [rel for rel in common if rel.startswith("runtimes/")]
    assert "shapes.py" not in common and "paths/dynamic.py" not in common
    # tools that never run a probe are no path's harness: editing them re-probes nothing
    assert "job.py" in common and "worker.py" in common
    assert not common & {"coverage.py", "repro.py", "standalone.py"}
    # a job that builds a lazy target checks its public name: the naming code is every job's
    assert {"public_names.py", "fingerprint.py", "registry_files.py"} <= common


def test_the_engines_path_fixture_matches_the_harness():
    """tests/fixtures/paths.json is what the engine's tests take as the bundled paths' descriptions
    (its C++ tests and the fake worker need no Python): it must say what the harness says. Only the
    harness digests and their migrations may differ (they follow every edit of the harness)."""
    import json
    import pathlib

    fixture = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "paths.json"
    committed = json.loads(fixture.read_text(encoding="utf-8"))
    strip = lambda descriptions: [  # noqa: E731
        {k: v for k, v in d.items() if k not in ("harness", "migrations")} for d in descriptions]
    assert strip(committed) == strip(describe_paths()), (
        "regenerate it: PYTHONPATH=python python3 -c 'import json, opsweep.paths as p; "
        "print(json.dumps(p.describe_paths(), indent=2))' > tests/fixtures/paths.json")


def test_graph_break_count_is_never_negative():
    assert graph_break_count(-1, 0) == 0
    assert graph_break_count(0, 1) == 1
    assert graph_break_count(2, 1) == 2


def test_check_true_modules_run_in_eval_mode_on_a_copy():
    bn = torch.nn.BatchNorm1d(3)
    c = case("bn", "g", bn, [torch.rand(4, 3)])
    m = make_module(c, flat_outputs=False)
    assert not m.training and not m.target.training and m.target is not bn
    assert bn.training  # the registry's object is untouched


def test_check_false_modules_keep_the_registry_mode():
    bn = torch.nn.BatchNorm1d(3)
    c = case("bn[random]", "g", bn, [torch.rand(4, 3)], check=False)
    m = make_module(c, flat_outputs=False)
    assert m.target.training and m.training


def test_kwargs_and_methods_are_wrapped():
    class Obj(torch.nn.Module):
        def scaled(self, x, *, k):
            return {"y": x * k, "a": x}

    c = case("obj.scaled", "g", Obj(), [torch.ones(2)], kwargs={"k": 3.0}, method="scaled")
    flat = make_module(c, flat_outputs=True)(torch.ones(2))
    assert isinstance(flat, tuple) and [float(t[0]) for t in flat] == [1.0, 3.0]
    raw = make_module(c, flat_outputs=False)(torch.ones(2))
    assert isinstance(raw, dict)
    assert isinstance(CaseModule(torch.relu, None, {}, False), torch.nn.Module)


def test_onnxruntime_outputs_never_alias_the_fed_inputs():
    """onnxruntime 1.23 returns a graph input used as an output as a view of the feed's buffer,
    which dies with the inputs: every output must own its memory (else freed memory is judged)."""
    import numpy as np

    from opsweep.paths.onnx import run_session

    class Spec:
        def __init__(self, name):
            self.name = name

    class AliasingSession:  # what onnxruntime 1.23 does for an identity graph
        def run(self, _names, feeds):
            return [feeds["x"], feeds["y"][:1], [feeds["x"]]]

    x, y = torch.randn(2, 3), torch.randn(4)
    out = run_session(AliasingSession(), [Spec("x"), Spec("y")], (x, y))
    assert not np.shares_memory(out[0], x.numpy()) and not np.shares_memory(out[1], y.numpy())
    assert np.array_equal(out[0], x.numpy()) and np.array_equal(out[1], y.numpy()[:1])
    assert isinstance(out[2], list)  # a sequence output is passed through as onnxruntime gave it


def test_every_harness_migration_leads_to_the_current_harness():
    """opsweep/harness_migrations.json (docs/formats.md section 1) is readable, and each entry's
    ``to`` is the path's current digest or the ``from`` of a later entry. One that is neither is
    dead: written before a further edit of the harness (recompute its ``to`` with ``python -m
    opsweep.paths``), or outlived by a change that re-keyed everything (delete it)."""
    from opsweep.paths import harness_digest, harness_migrations

    entries = harness_migrations()
    current = {spec.id: harness_digest(spec) for spec in PATHS.values()}
    for m in entries:
        for path, to in m["to"].items():
            assert path in current, (m["id"], path)
            continued = any(n["from"].get(path) == to for n in entries if n is not m)
            assert to == current[path] or continued, (m["id"], path, to, current[path])
            # the engine refuses the worker's hello otherwise: name only the paths the change altered
            assert m["from"][path] != to, (m["id"], path, "'from' and 'to' are the same digest")


def test_a_migration_can_mark_the_results_of_some_paths_only(tmp_path, monkeypatch):
    """``rerun_if_record_contains`` as an object: the marks of the paths it names; the other paths'
    results all stand (a change to sub-verdicts, which only the onnx path has, cannot alter a
    compile timeout that says the same words)."""
    import opsweep.paths as paths

    def write(marks):
        (tmp_path / paths.MIGRATIONS_FILE).write_text(json.dumps({"migrations": [{
            "id": "m", "why": "w", "rerun_if_record_contains": marks,
            "from": {"onnx": "a0", "compile": "b0"}, "to": {"onnx": "a1", "compile": "b1"}}]}), encoding="utf-8")

    monkeypatch.setattr(paths, "_root", lambda: str(tmp_path))
    write({"onnx": ["no result after"]})
    entries = paths.harness_migrations()
    assert paths._path_migrations("onnx", entries)[0]["rerun_if_record_contains"] == ["no result after"]
    assert paths._path_migrations("compile", entries)[0]["rerun_if_record_contains"] == []
    write(["x"])  # a list marks every path's results
    entries = paths.harness_migrations()
    assert [paths._path_migrations(p, entries)[0]["rerun_if_record_contains"] for p in ("onnx", "compile")] == [["x"], ["x"]]
    for bad, says in (({"export": ["x"]}, "names paths its 'from' does not: export"),
                      ({"onnx": [""]}, "must list non-empty strings"), ({"onnx": "x"}, "must list non-empty strings")):
        write(bad)
        with pytest.raises(ValueError) as e:
            paths.harness_migrations()
        assert says in str(e.value) and "\n" not in str(e.value), (bad, str(e.value))
