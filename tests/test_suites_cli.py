"""Suites: where a verb's cases come from (--suite NAME|DIR, --preset, --cases), and the one-line
refusals of what cannot be resolved. The bundled suites are the packages of `opsweep_suites` in the
workers' environment: the tests build a stand-in package on PYTHONPATH, so the engine's rule is
exercised without naming any real suite."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
from run_helpers import fake_env, results, run  # noqa: E402


def suite(folder, cases, presets=None):
    """A suite folder: registries cases_*.py (fake registries are JSON, whatever their extension)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "__init__.py"), "w") as f:
        f.write('LIBRARY = "fakelib"\n')
    for name, entries in cases.items():
        with open(os.path.join(folder, name), "w") as f:
            json.dump({"cases": entries}, f)
    for name, entries in (presets or {}).items():
        os.makedirs(os.path.join(folder, "presets"), exist_ok=True)
        with open(os.path.join(folder, "presets", name), "w") as f:
            json.dump({"cases": entries}, f)
    return folder


def bundled(tmp_path, names):
    """A stand-in `opsweep_suites` package holding the named suites; the env that finds it."""
    root = tmp_path / "site" / "opsweep_suites"
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    for n in names:
        suite(str(root / n), {"cases_a.py": [{"name": f"{n}_op", "group": "g"}]},
              presets={"smoke.py": [{"name": f"{n}_op", "group": "g"}]})
    (root / "_private").mkdir()  # not a suite: a leading underscore
    (root / "_private" / "__init__.py").write_text("")
    env = fake_env({"PYTHONPATH": f"{tmp_path / 'site'}:{os.environ.get('PYTHONPATH', '')}"})
    return env


def test_a_suite_folder_runs_its_registries(tmp_path):
    d = suite(str(tmp_path / "mysuite"), {"cases_a.py": [{"name": "op_a", "group": "g"}],
                                           "cases_b.py": [{"name": "op_b", "group": "g"}],
                                           "helper.py": [{"name": "not_a_registry", "group": "g"}]})
    proc = run(["--suite", d, "--db", str(tmp_path / "r.db"), "-j", "1"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert {case for case, _ in results(tmp_path / "r.db")} == {"op_a", "op_b"}


def test_the_one_bundled_suite_is_the_default_and_a_name_picks_it(tmp_path):
    env = bundled(tmp_path, ["alpha"])
    for args in ([], ["--suite", "alpha"]):
        db = tmp_path / f"r{len(args)}.db"
        proc = run([*args, "--db", str(db), "-j", "1"], tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr
        assert {case for case, _ in results(db)} == {"alpha_op"}


def test_several_bundled_suites_need_a_choice_and_a_preset_is_the_suites(tmp_path):
    env = bundled(tmp_path, ["alpha", "beta"])
    proc = run(["--db", str(tmp_path / "r.db")], tmp_path, env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "opsweep run: error: 2 bundled suites (alpha, beta): choose one with --suite NAME (or --cases FILE)")
    assert not (tmp_path / "r.db").exists()
    proc = run(["--suite", "beta", "--preset", "smoke", "--db", str(tmp_path / "r.db"), "-j", "1"], tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert {case for case, _ in results(tmp_path / "r.db")} == {"beta_op"}


@pytest.mark.parametrize("args, message", [
    (["--suite", "gamma"], "unknown suite 'gamma' (bundled: alpha; a folder of registries works too: --suite DIR)"),
    (["--suite", "./nowhere"], "--suite ./nowhere: no such folder"),
    (["--suite", "alpha", "--preset", "full"], "unknown preset 'full' of the suite alpha (known: smoke)"),
    (["--suite", "alpha", "--cases", "x.py"], "--cases excludes --suite and --preset (the files are the registries)"),
])
def test_what_cannot_be_resolved_is_one_line_and_exit_2(tmp_path, args, message):
    env = bundled(tmp_path, ["alpha"])
    proc = run([*args, "--db", str(tmp_path / "r.db")], tmp_path, env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"opsweep run: error: {message}"]
    assert not (tmp_path / "r.db").exists()


def test_a_suite_without_registries_says_so(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(["--suite", str(empty), "--db", str(tmp_path / "r.db")], tmp_path)
    assert proc.returncode == 2
    assert f"no registries (cases_*.py) in the suite {empty}" in proc.stderr
