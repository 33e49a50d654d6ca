"""`opsweep coverage` end to end: a tiny library made in tmp_path, a registry over part of it, and
the real binary asking the real harness which public callables have no case."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

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
        from tinylib.extra.more import shift, Config, Settings, Callable_, Pair, ExportMixin, BaseFilter
        __all__ = ["shift", "Config", "Settings", "Callable_", "Pair", "ExportMixin", "BaseFilter"]
    """,
    "extra/deep/__init__.py": "",
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
    # public operators: double, halve, Scale, shift, Config, Callable_, and below extra/deep:
    # leaf_op, Pose, Pose.inverse (not _private, not the deprecated alias `triple`, whose target
    # `double` is counted instead; not the types; not Pose.label, which has no tensor)
    assert report["total"] == 9
    assert report["covered"] == 2  # double, Scale (a module instance counts for its class)
    assert [s["name"] for s in report["skipped"]] == ["tinylib.extra.shift"]
    assert [s["name"] for s in report["not_surveyed"]] == ["tinylib.extra.Config"]
    assert [m["name"] for m in report["missing"]] == [
        "tinylib.extra.Callable_", "tinylib.extra.deep.leaf.Pose", "tinylib.extra.deep.leaf.Pose.inverse",
        "tinylib.extra.deep.leaf.leaf_op", "tinylib.halve"]
    assert [m["kind"] for m in report["missing"]] == ["class", "class", "method", "function", "function"]
    assert abs(report["share"] - 3 / 9) < 1e-9 and abs(report["probed_share"] - 2 / 9) < 1e-9
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
    assert "tinylib: 3 of 9 public operators have a case (33.3%): 2 probed (22.2%), 1 skipped with a reason" in out
    assert "not counted: 7 public names that are not operators (1 abstract stub (does nothing; its overrides are " \
           "the operators), 1 base class, 1 dataclass, 1 exception, 1 mixin, 1 named tuple, 1 no tensor in its signature)" in out
    assert "public modules walked (any depth)" in out
    missing = out.split("No case yet (5), by module:\n")[1]
    assert missing.splitlines()[:6] == [
        "  tinylib",
        "    halve                                        function",
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
    assert gated.stderr.strip().splitlines()[-1] == "opsweep coverage: 22.2% have a probed case, below --min-probed 25.0%"
    gated = _coverage(binary, reg, env, "--min", "98")
    assert gated.returncode == 1
    assert gated.stderr.strip().splitlines()[-1] == "opsweep coverage: 33.3% have a case, below --min 98.0%"
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
