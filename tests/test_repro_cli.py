"""`opsweep repro` end to end: the real binary asks the real harness to write a reproducer for a
planted failure of the fixture registry; an unknown case is one line and exit 2. (That the script
reproduces the failure in a fresh interpreter is python/tests/test_repro.py.)"""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "python" / "tests" / "fixtures"
REGISTRY = FIXTURES / "cases_statuses.py"


def _repro(binary, tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), str(FIXTURES)]))
    return subprocess.run([str(binary), "repro", *args, "--cases", str(REGISTRY), "--python", sys.executable],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_repro_writes_the_script_and_its_inputs(binary, tmp_path):
    proc = _repro(binary, tmp_path, "data_branch", "--path", "export")
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "repro" / "data_branch-export"
    assert sorted(p.name for p in folder.iterdir()) == ["inputs.pt", "repro.py"]
    script = (folder / "repro.py").read_text()
    assert "torch.export.export(module(True), INPUTS, strict=False)" in script
    assert "import opsweep" not in script and "from opsweep" not in script
    assert f"wrote repro/data_branch-export/: inputs.pt, repro.py" in proc.stdout


def test_repro_of_an_unknown_case_is_one_line(binary, tmp_path):
    proc = _repro(binary, tmp_path, "no_such_case", "--path", "onnx", "-o", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["opsweep repro: no case named 'no_such_case' in the registries given"]
    assert not (tmp_path / "x").exists()


def test_repro_of_a_dynamic_shape_path_holds_the_sets_the_survey_ran(binary, tmp_path):
    # the verb passes the path through; the harness runs the job once to learn the shapes
    registry = FIXTURES / "cases_dynamic.py"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), str(FIXTURES)]))
    proc = subprocess.run([str(binary), "repro", "branch_on_width", "--path", "export-dynamic", "--cases", str(registry),
                           "--python", sys.executable], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "repro" / "branch_on_width-export-dynamic"
    assert sorted(p.name for p in folder.iterdir()) == ["inputs.pt", "repro.py"]
    script = (folder / "repro.py").read_text()
    assert "dynamic_shapes=spec(Dim.AUTO)" in script and 'SETS = saved["sets"]' in script


def test_repro_of_a_skipped_case_on_a_dynamic_path_is_one_line(binary, tmp_path):
    proc = _repro(binary, tmp_path, "skipped", "--path", "compile-dynamic", "-o", str(tmp_path / "x"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("opsweep repro: case 'skipped' is skipped ("), lines
    assert not (tmp_path / "x").exists()


def test_repro_of_a_case_that_prints_to_stdout(binary, tmp_path):
    # what probed code prints (here a fake protocol line too; onnxscript 0.5's optimizer prints
    # "Skipping constant folding ...") must not be taken for the harness's answer
    proc = _repro(binary, tmp_path, "noisy", "--path", "onnx", "-o", str(tmp_path / "n"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {tmp_path / 'n'}/: "), proc.stdout
    assert (tmp_path / "n" / "repro.py").is_file()
