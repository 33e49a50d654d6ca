"""`opsweep coverage` end to end: a tiny library made in tmp_path, a registry over part of it, and
the real binary asking the real harness which public callables have no case."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]

LIBRARY = {
    "__init__.py": """
        from tinylib.ops import double, halve, Scale, _private
        from tinylib import _deprecated_aliases as _aliases
        triple = _aliases.triple
        __all__ = ["double", "halve", "Scale", "triple", "_private", "Error"]

        class Error(Exception):
            pass
    """,
    "ops.py": """
        import torch

        def double(x):
            return x * 2

        def halve(x):
            return x / 2

        def _private(x):
            return x

        class Scale(torch.nn.Module):
            def forward(self, x):
                return x * 3
    """,
    "_deprecated_aliases.py": """
        from tinylib.ops import double

        def triple(x):
            return double(x) + x
    """,
    "extra/__init__.py": """
        from tinylib.extra import deep
        from tinylib.extra.more import shift, Config, Settings, Callable_, Pair, ExportMixin, BaseFilter
        __all__ = ["shift", "Config", "Settings", "Callable_", "Pair", "ExportMixin", "BaseFilter", "deep"]
    """,
    "extra/deep/__init__.py": "from tinylib.extra.deep import leaf  # no __all__: listed by extra's, so public\n",
    "extra/deep/leaf.py": """
        import torch

        def leaf_op(x: torch.Tensor) -> torch.Tensor:  # two levels below extra: counted at any depth
            return x - 1

        class Pose:
            def __init__(self, data: torch.Tensor) -> None:
                self.data = data

            def inverse(self) -> "Pose":  # a public method that does tensor work
                return Pose(-self.data)

            def label(self) -> str:  # no tensor in its signature: not counted
                return "pose"
    """,
    "extra/more.py": """
        import dataclasses
        from typing import NamedTuple

        import torch

        def shift(x):
            return x + 1

        class Config:
            def __init__(self, size):  # unannotated: counted as an operator
                self.size = size

        @dataclasses.dataclass
        class Settings:  # data: a type, not an operator
            size: int = 3

        @dataclasses.dataclass
        class Callable_:  # a dataclass that computes when called: an operator
            k: int = 2

            def __call__(self, x):
                return x * self.k

        class Pair(NamedTuple):
            a: int
            b: int

        class ExportMixin:
            def to_file(self):
                return None

        class BaseFilter(torch.nn.Module):
            def forward(self, x):
                raise NotImplementedError
    """,
}

REGISTRY = """
import torch
import tinylib
from tinylib.extra import shift
from opsweep import case

CASES = [
    case("double", "ops", tinylib.double, [torch.ones(2)]),
    case("Scale", "ops", tinylib.Scale(), [torch.ones(2)]),
    case("shift", "extra", shift, [torch.ones(2)], skip="a reason a user accepts"),
]
NOT_SURVEYED = {
    "tinylib.extra.Config": "a configuration holder; no tensor work",
    "tinylib.extra.Settings": "a dataclass, which coverage sets aside by itself: this entry is stale",
}
"""


def _setup(tmp_path):
    for rel, text in LIBRARY.items():
        p = tmp_path / "tinylib" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    reg = tmp_path / "cases_tiny.py"
    reg.write_text(REGISTRY)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO / "python")]))
    return reg, env


def _coverage(binary, reg, env, *extra):
    return subprocess.run([str(binary), "coverage", "--cases", str(reg), "--library", "tinylib",
                           "--python", sys.executable, *extra], env=env, capture_output=True, text=True, timeout=180)


def test_coverage_counts_cases_skips_and_lists_the_rest(binary, tmp_path):
    reg, env = _setup(tmp_path)
    proc = _coverage(binary, reg, env, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # public operators: double, halve, Scale, the deprecated alias `triple` (declared in __all__, a
    # function of its own), shift, Config, Callable_, and below extra/deep (listed by extra's
    # __all__): leaf_op, Pose, Pose.inverse (not _private; not the types; not Pose.label, which has
    # no tensor; nothing of ops.py, which tinylib's __all__ does not list)
    assert report["total"] == 10
    assert report["covered"] == 2  # double, Scale (a module instance counts for its class)
    assert [s["name"] for s in report["skipped"]] == ["tinylib.extra.shift"]
    assert [s["name"] for s in report["not_surveyed"]] == ["tinylib.extra.Config"]
    assert [m["name"] for m in report["missing"]] == [
        "tinylib.extra.Callable_", "tinylib.extra.deep.leaf.Pose", "tinylib.extra.deep.leaf.Pose.inverse",
        "tinylib.extra.deep.leaf.leaf_op", "tinylib.halve", "tinylib.triple"]
    assert [m["kind"] for m in report["missing"]] == ["class", "class", "method", "function", "function", "function"]
    assert abs(report["share"] - 3 / 10) < 1e-9 and abs(report["probed_share"] - 2 / 10) < 1e-9
    assert report["by_package"]["tinylib.extra"]["total"] == 6
    # types are set aside by what they are, and listed so the denominator can be audited
    assert report["not_operators"] == [
        {"kind": "abstract stub (does nothing; its overrides are the operators)", "name": "tinylib.extra.ExportMixin.to_file"},
        {"kind": "base class", "name": "tinylib.extra.BaseFilter"},
        {"kind": "dataclass", "name": "tinylib.extra.Settings"},
        {"kind": "exception", "name": "tinylib.Error"},
        {"kind": "mixin", "name": "tinylib.extra.ExportMixin"},
        {"kind": "named tuple", "name": "tinylib.extra.Pair"},
        {"kind": "no tensor in its signature", "name": "tinylib.extra.deep.leaf.Pose.label"},
    ]
    assert report["stale_not_surveyed"] == ["tinylib.extra.Settings"]


def test_coverage_text_report_groups_names_by_module_and_gates(binary, tmp_path):
    reg, env = _setup(tmp_path)
    proc = _coverage(binary, reg, env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "tinylib: 3 of 10 public operators have a case (30.0%): 2 probed (20.0%), 1 skipped with a reason" in out
    assert "not counted: 7 public names that are not operators (1 abstract stub (does nothing; its overrides are " \
           "the operators), 1 base class, 1 dataclass, 1 exception, 1 mixin, 1 named tuple, 1 no tensor in its signature)" in out
    assert "public modules walked (any depth)" in out
    missing = out.split("No case yet (6), by module:\n")[1]
    assert missing.splitlines()[:7] == [
        "  tinylib",
        "    halve                                        function",
        "    triple                                       function",
        "  tinylib.extra",
        "    Callable_                                    class",
        "  tinylib.extra.deep.leaf",
        "    Pose                                         class",
    ]
    assert "    Pose.inverse                                 method" in missing
    assert proc.stderr.strip().splitlines() == [
        "opsweep coverage: warning: NOT_SURVEYED lists 'tinylib.extra.Settings', which is not a public operator of tinylib"
    ]
    gated = _coverage(binary, reg, env, "--min", "30", "--min-probed", "25")
    assert gated.returncode == 1
    assert gated.stderr.strip().splitlines()[-1] == "opsweep coverage: 20.0% have a probed case, below --min-probed 25.0%"
    gated = _coverage(binary, reg, env, "--min", "98")
    assert gated.returncode == 1
    assert gated.stderr.strip().splitlines()[-1] == "opsweep coverage: 30.0% have a case, below --min 98.0%"
    shallow = _coverage(binary, reg, env, "--json", "--depth", "1")
    assert shallow.returncode == 0, shallow.stderr
    assert not any("deep" in m["name"] for m in json.loads(shallow.stdout)["missing"])


def test_coverage_of_a_broken_registry_is_one_line(binary, tmp_path):
    reg, env = _setup(tmp_path)
    reg.write_text("raise ValueError('boom')\n")
    proc = _coverage(binary, reg, env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cases_tiny.py" in lines[0] and "boom" in lines[0], proc.stderr


# What the library declares: the fixture library and suite of python/tests/fixtures/covfix (covlib,
# and covsuite, whose __init__.py names covlib as its LIBRARY)
COVFIX = REPO / "python" / "tests" / "fixtures" / "covfix"


def _covfix_env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(COVFIX), str(REPO / "python")]))


def test_coverage_takes_the_library_its_suite_names_and_lists_cases_that_reach_none(binary):
    registry = COVFIX / "covsuite" / "cases_cov.py"
    proc = subprocess.run([str(binary), "coverage", "--cases", str(registry), "--python", sys.executable],
                          env=_covfix_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # double is covered through its alias double_v1: one operator, whatever name the case used
    assert out.startswith("covlib: 4 of 12 public operators have a case (33.3%): 3 probed (25.0%), 1 skipped")
    assert "  3 cases reach no public operator (listed at the end)\n" in out
    unmatched = out.split("Cases that reach no public operator (3): they run, but cover nothing\n")[1]
    assert unmatched.splitlines() == [
        "  Metric.add (cases_cov.py)                    covlib.Metric.__add__: public, but no operator: generic "
        "method (of an abstract class: it runs only as its subclasses inherit it)",
        "  helper (cases_cov.py)                        covlib.ops.helper: not a public name of covlib",
        "  relu (cases_cov.py)                          torch._VariableFunctionsClass.relu: not part of covlib",
    ]
    as_json = subprocess.run([str(binary), "coverage", "--cases", str(registry), "--python", sys.executable, "--json"],
                             env=_covfix_env(), capture_output=True, text=True, timeout=180)
    report = json.loads(as_json.stdout)
    assert report["library"] == "covlib"
    assert [c["case"] for c in report["unmatched_cases"]] == ["Metric.add", "helper", "relu"]
    assert not any(m["name"].startswith("covlib.Metric") for m in report["missing"])  # no generic method counted


def test_coverage_without_a_library_to_name_is_one_line_and_exit_2(binary, tmp_path):
    loose = tmp_path / "cases_loose.py"
    loose.write_text("CASES = []\n")
    proc = subprocess.run([str(binary), "coverage", "--cases", str(loose), "--python", sys.executable],
                          env=_covfix_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "opsweep coverage: --library NAME is needed: cases_loose.py is in no suite package that assigns LIBRARY "
        "in its __init__.py"]
    assert proc.stdout == ""


def test_the_bundled_torchmetrics_suite_covers_80_percent_of_its_declared_api(binary):
    """The harvested torchmetrics suite (python/opsweep_suites/torchmetrics: its docstring examples,
    plus the hand-written cases where they give none) against what torchmetrics declares in its
    __all__s: at least 80% of the public operators have a case, and every case reaches one."""
    pytest.importorskip("torchmetrics")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([str(binary), "coverage", "--suite", "torchmetrics", "--python", sys.executable, "--json"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["library"] == "torchmetrics" and report["total"] == 537, {k: report[k] for k in ("library", "total")}
    assert report["covered"] / report["total"] >= 0.80, (report["covered"], report["total"])
    assert report["unmatched_cases"] == [], report["unmatched_cases"][:5]
    assert set(report["covered_by_source"]) == {"harvested (docs)", "hand-written"}, report["covered_by_source"]
