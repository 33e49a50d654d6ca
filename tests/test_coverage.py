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
        from tinylib.extra.more import shift, Config
        __all__ = ["shift", "Config"]
    """,
    "extra/more.py": """
        def shift(x):
            return x + 1

        class Config:
            pass
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
NOT_SURVEYED = {"tinylib.extra.Config": "a configuration holder; no tensor work"}
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
    # public: double, halve, Scale, shift, Config (not _private, not the exception, not the
    # deprecated alias `triple`, whose target `double` is counted instead)
    assert report["total"] == 5
    assert report["covered"] == 2  # double, Scale (a module instance counts for its class)
    assert [s["name"] for s in report["skipped"]] == ["tinylib.extra.shift"]
    assert [s["name"] for s in report["not_surveyed"]] == ["tinylib.extra.Config"]
    assert [m["name"] for m in report["missing"]] == ["tinylib.halve"]
    assert abs(report["share"] - 3 / 5) < 1e-9


def test_coverage_text_report_and_min_gate(binary, tmp_path):
    reg, env = _setup(tmp_path)
    proc = _coverage(binary, reg, env)
    assert proc.returncode == 0, proc.stderr
    assert "3 of 5 public callables have a case (60.0%)" in proc.stdout
    assert "tinylib.halve" in proc.stdout.split("No case yet:")[1]
    gated = _coverage(binary, reg, env, "--min", "98")
    assert gated.returncode == 1
    assert gated.stderr.strip().splitlines() == ["opsweep coverage: 60.0% covered, below --min 98.0%"]


def test_coverage_of_a_broken_registry_is_one_line(binary, tmp_path):
    reg, env = _setup(tmp_path)
    reg.write_text("raise ValueError('boom')\n")
    proc = _coverage(binary, reg, env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cases_tiny.py" in lines[0] and "boom" in lines[0], proc.stderr
