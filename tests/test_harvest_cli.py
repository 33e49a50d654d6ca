"""`opsweep harvest` end to end, with real workers (real torch) on the fixture library
python/tests/fixtures/harvestlib and its own tests (harvestlib_tests): an example that hangs and
one that kills its interpreter cost that example only, a test that hangs costs that test only,
the suite written loads and runs, two harvests are byte-identical, and a hand-written case listed
in OVERRIDES replaces a harvested one."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "python" / "tests" / "fixtures"
TIMEOUT = "20"


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "python"), str(FIXTURES), env.get("PYTHONPATH", "")])
    env["OPSWEEP_PYTHON"] = sys.executable
    return env


def _harvest(binary, out, work, *extra):
    return subprocess.run(
        [str(binary), "harvest", "harvestlib", "-o", str(out), "--timeout", TIMEOUT, "-j", "2", "--work", str(work),
         "--tests", str(FIXTURES / "harvestlib_tests"), *extra],
        capture_output=True, text=True, env=_env(), timeout=1800,
    )


@pytest.fixture(scope="module")
def harvested(binary, python_with_torch, tmp_path_factory):
    root = tmp_path_factory.mktemp("harvest")
    run = _harvest(binary, root / "suite", root / "work")
    assert run.returncode == 0, run.stderr[-3000:]
    return root, run


def _summary(root):
    return json.loads((root / "suite" / "harvest.json").read_text())


def _operator(summary, name):
    return next(r for r in summary["per_operator"] if r["name"] == f"harvestlib.{name}")


def test_summary_counts_by_source_and_failures_by_error(harvested):
    root, run = harvested
    assert "harvestlib: " in run.stdout and "public operators harvested" in run.stdout
    assert "ValueError: unknown mode 'nope'" in run.stdout  # broken: its example raises
    assert "running examples:" in run.stderr and "checking cases:" in run.stderr  # progress on stderr
    s = _summary(root)
    assert s["by_source"] == {"docs": 11, "tests": 2}
    assert _operator(s, "broken")["reason"] == "example failed"
    assert _operator(s, "count_positive")["reason"] == "no tensor output"
    assert _operator(s, "spin")["reason"] == "example failed" and "timed out" in _operator(s, "spin")["why"]


def test_a_crash_costs_its_example_only(harvested):
    root, _ = harvested
    # fragile's first example made a case before its second killed the interpreter
    assert _operator(_summary(root), "fragile")["cases"] == ["fragile[doc]"]
    ends = [json.loads(line) for line in (root / "work" / "record.jsonl").read_text().splitlines()]
    crashes = [e for e in ends if e.get("end") == "crash"]
    assert len(crashes) == 1 and "SIGSEGV" in crashes[0]["detail"], crashes
    assert crashes[0]["where"].startswith("harvestlib/ops.py:")
    assert [e for e in ends if e.get("end") == "timeout"]  # spin's example, and the test that hangs


def test_only_calls_from_example_code_and_arguments_as_they_started(harvested):
    import torch

    root, _ = harvested
    s = _summary(root)
    assert _operator(s, "outer")["cases"] == ["outer[doc]"]
    assert _operator(s, "inner")["cases"] == ["inner[test]"]  # from its tests only: outer's example calls it inside
    data = torch.load(root / "suite" / "harvest.pt", weights_only=True)
    assert torch.equal(data["inplace_add_[doc]/0"], torch.zeros(3))  # as it was before the call


def test_the_checks_mark_what_they_found(harvested):
    root, _ = harvested
    text = (root / "suite" / "cases_ops.py").read_text()
    lines = {line.split('"')[1]: line for line in text.splitlines() if line.startswith("    case(")}
    assert "check=False" in lines["noisy[doc]"]
    assert "atol=" in lines["wobbly[doc]"] and "float64" in lines["wobbly[doc]"]
    assert 'fresh_inputs="the call raises on the fresh input set redrawn in range' in lines["interp_sorted[doc]"]
    assert lines["scale[doc]"].endswith("# harvestlib/ops.py:16")
    assert lines["Box.area[doc]"].split("# ")[0].count("Method(harvestlib.Box.area, Call(harvestlib.Box, In(0)))") == 1
    assert lines["blend[doc]"].count("Call(harvestlib.blend, alpha=0.25, x=In(0), y=In(1))") == 1


def test_the_tests_source_goes_on_after_a_test_that_hangs(harvested):
    root, run = harvested
    s = _summary(root)
    # two calls of scale with other kwargs in a test that runs after the one that hangs
    assert [c for c in _operator(s, "scale")["cases"] if "test" in c] == ["scale[test]", "scale[test:2]"]
    assert [t["test"] for t in s["test_failures"]] == ["test_harvestlib.py:17"]
    assert "tests cut off" in run.stdout


def test_no_absolute_path_in_the_suite(harvested):
    root, _ = harvested
    for path in (root / "suite").iterdir():
        if path.suffix in (".py", ".json"):
            assert str(REPO) not in path.read_text() and "/tmp" not in path.read_text(), path


def test_the_suite_loads_and_a_case_runs(harvested, binary, tmp_path):
    root, _ = harvested
    suite = root / "suite"
    load = subprocess.run(
        [sys.executable, "-c",
         "import glob, sys; from opsweep.registry import load_registries; "
         f"print(len(load_registries(sorted(glob.glob('{suite}/cases_*.py')))))"],
        capture_output=True, text=True, env=_env())
    assert load.returncode == 0, load.stderr
    assert int(load.stdout) == _summary(root)["cases"]
    run = subprocess.run(
        [str(binary), "run", "--suite", str(suite), "--only", "scale[doc]", "--exact", "--paths", "export", "-j", "1",
         "--db", str(tmp_path / "r.db")], capture_output=True, text=True, env=_env(), timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]


def test_a_hand_written_case_in_overrides_wins(harvested, tmp_path):
    root, _ = harvested
    suite = tmp_path / "suite"
    shutil.copytree(root / "suite", suite)
    (suite / "cases_fixes.py").write_text(
        "import torch\nimport harvestlib\nfrom opsweep.case import case\n"
        'OVERRIDES = {"scale[doc]": "its input is all ones"}\n'
        'CASES = [case("scale[doc]", "ops", harvestlib.scale, [torch.arange(6.0)], note="by hand")]\n')
    code = ("import glob; from opsweep.registry import load_registries; "
            f"c = {{lc.case.name: lc for lc in load_registries(sorted(glob.glob('{suite}/cases_*.py')))}}; "
            "print(c['scale[doc]'].registry)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cases_fixes.py"


def test_harvesting_twice_gives_identical_files(harvested, binary, tmp_path):
    root, _ = harvested
    again = _harvest(binary, tmp_path / "suite", tmp_path / "work")
    assert again.returncode == 0, again.stderr[-3000:]
    first = sorted(p.name for p in (root / "suite").iterdir())
    assert first == sorted(p.name for p in (tmp_path / "suite").iterdir())
    for name in first:
        assert (root / "suite" / name).read_bytes() == (tmp_path / "suite" / name).read_bytes(), name
