"""opsweep.repro: the reproducer of a failing job, run by a fresh interpreter that cannot import
opsweep, shows the same failure the survey recorded.

Planted failures (python/tests/fixtures/cases_statuses.py) on every path: an export failure
(data_branch: a Python branch on tensor values), a missing ONNX lowering (custom_twice: a custom op
without one), a compile mismatch (compile_offset), a graph break (item_scale), an ONNX Runtime and an
exported-program mismatch (onnx_offset, export_offset). For each, the job runs through
``run_job`` here, the script through ``python repro.py`` in a new process whose ``opsweep`` is a
package that refuses to import, and the script's verdict must name what the record names: the
failing step and the root cause's type and message, or the comparison that differs, or the break
reasons.
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
]


# failures that show on the fresh input set only (the capture baked in a value of its trace inputs)
PLANTED_FRESH = [
    ("above_mean", "onnx"),  # mismatch on fresh inputs
    ("above_mean", "compile"),  # mismatch on fresh inputs
    ("positive_values", "onnx"),  # ort-run raises on fresh inputs only
    ("cumsum_fast_when_captured", "export"),  # the program's run raises on fresh inputs only
]
PLANTED += PLANTED_FRESH


@pytest.fixture(scope="module")
def cases():
    return {lc.case.name: lc.case for lc in load_registries([STATUSES_REGISTRY, FIDELITY_REGISTRY])}


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
    assert not re.search(r"^\s*(import|from)\s+opsweep", (folder / "repro.py").read_text(), re.M)
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


def test_a_passing_job_reproduces_as_ok(cases, no_opsweep, tmp_path):
    folder = tmp_path / "add_scaled"
    repro.write_repro(cases["add_scaled"], "export", str(folder), library="fixture_ops")
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr


def test_module_targets_with_methods_and_kwargs_are_pickled(cases, no_opsweep, tmp_path):
    folder = tmp_path / "projector"
    files = repro.write_repro(cases["Projector.project[offset]"], "export", str(folder), library="fixture_ops")
    assert "target.pt" in files
    proc, verdict = _run_script(folder, no_opsweep)
    assert proc.returncode == 0 and verdict.startswith("ok:"), proc.stdout + proc.stderr


def test_targets_a_script_cannot_rebuild_are_refused(tmp_path):
    from opsweep import case

    class Local(torch.nn.Module):  # defined in a test module: not importable without it
        def forward(self, x):
            return x

    with pytest.raises(repro.ReproError, match="cannot"):
        repro.write_repro(case("local", "g", Local(), [torch.ones(2)]), "export", str(tmp_path))
    with pytest.raises(repro.ReproError, match="skipped"):
        repro.write_repro(case("skipped", "g", torch.sin, [torch.ones(2)], skip="no"), "export", str(tmp_path))
    with pytest.raises(repro.ReproError, match="no reproducer for path"):
        repro.write_repro(case("sin", "g", torch.sin, [torch.ones(2)]), "tract", str(tmp_path))


def test_the_paths_that_declare_a_reproducer_are_the_ones_it_writes():
    # the page shows `opsweep repro ... --path P` only for paths whose description says reproducible:
    # each of them must have a template, and a path without one must not claim it
    from opsweep.paths import PATHS, describe_paths

    declared = {s.id for s in PATHS.values() if s.reproducible}
    assert declared == set(repro.PATH_IDS) == set(repro._PATHS)
    described = {d["id"]: d.get("reproducible", False) for d in describe_paths()}
    assert {p for p, yes in described.items() if yes} == declared
    assert "export-dynamic" in described and not described["export-dynamic"]
    with pytest.raises(repro.ReproError, match="no reproducer for path 'export-dynamic'"):
        repro.write_repro(None, "export-dynamic", "unused")  # refused before the case is looked at
