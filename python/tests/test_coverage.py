"""opsweep.coverage on a small library written into tmp_path: the public surface at any depth, the
methods of public classes, what is set aside and why, and how cases cover functions, classes and
methods. Real torch (nn.Module classes, tensor annotations)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import textwrap

import pytest

from opsweep import coverage

LIB = {
    "__init__.py": """
        from deeplib import sub
        from deeplib.ops import double, Scale
        __all__ = ["double", "Scale", "sub", "_hidden"]  # sub: listed, so its modules' names are public
    """,
    "ops.py": """
        import torch

        def double(x):
            return x * 2

        def _hidden(x):
            return x

        class Scale(torch.nn.Module):
            def forward(self, x):
                return x * 3
    """,
    "_impl/__init__.py": """
        def private_module_function(x):
            return x
    """,
    "sub/__init__.py": """
        from deeplib.sub.deep.leaf import leaf_op
    """,
    "sub/deep/__init__.py": "",
    "sub/deep/leaf.py": """
        import dataclasses
        import enum
        from typing import TypedDict

        import torch

        def leaf_op(x: torch.Tensor) -> torch.Tensor:
            return x + 1

        def sizes(h: int, w: int) -> tuple[int, int]:
            return h, w

        def device_name(d: torch.device) -> str:
            return str(d)

        def untyped(x, k=2):
            return x * k

        class Mode(enum.Enum):
            A = 1

        class Cfg(TypedDict):
            size: int

        def default_cfg() -> Cfg:
            return {"size": 3}

        @dataclasses.dataclass
        class Holder:
            value: torch.Tensor

        def make_holder(n: int) -> Holder:
            return Holder(torch.zeros(n))

        class Table:
            def __init__(self, n: int, device: torch.device | None = None) -> None:
                self.values = torch.arange(n, device=device)

        class Loader:
            def __init__(self, path: str) -> None:
                self.path = path

        class SizeConfig:  # a configuration holder that is not a dataclass: no tensor anywhere
            def __init__(self, height: int = 32, width: int = 40, names: list[str] | None = None) -> None:
                self.height, self.width, self.names = height, width, names or []

            def area(self) -> int:
                return self.height * self.width

        class ExportMixin:
            def to_file(self, path):  # the protocol's stub: does nothing here, its overrides write
                return None

            def to_tensor(self, x: torch.Tensor) -> torch.Tensor:
                return x.clone()

        class Exported(torch.nn.Module, ExportMixin):
            def forward(self, x):
                return x

            def name(self) -> str:
                return self.path

        class Quat:
            def __init__(self, data: torch.Tensor) -> None:
                self.data = data

            def __add__(self, other: "Quat") -> "Quat":
                return Quat(self.data + other.data)

            def __eq__(self, other: object) -> bool:
                return True

            def norm(self) -> torch.Tensor:
                return self.data.norm()

            @classmethod
            def identity(cls, n: int) -> "Quat":
                return cls(torch.ones(n))

            @staticmethod
            def helper(x: torch.Tensor) -> torch.Tensor:
                return x

            @property
            def w(self) -> torch.Tensor:
                return self.data[0]

            def _private(self) -> torch.Tensor:
                return self.data

            def describe(self) -> str:
                return "quat"

            def unfinished(self, x: torch.Tensor) -> torch.Tensor:
                raise NotImplementedError

        class BlockBase(torch.nn.Module):
            def apply_step(self, x: torch.Tensor) -> torch.Tensor:
                return x

            def shared(self, x: torch.Tensor) -> torch.Tensor:
                return x * 2

        class Block(BlockBase):
            def apply_step(self, x: torch.Tensor) -> torch.Tensor:
                return x + 1

            def forward(self, x):
                return self.apply_step(x)

            def extra(self, x: torch.Tensor) -> torch.Tensor:
                return x - 1
    """,
    "broken.py": """
        raise ImportError("an optional dependency is missing")
    """,
}

REGISTRY = """
import torch
import deeplib
from deeplib.sub.deep import leaf
from opsweep import case
from opsweep.case import lazy


class Wrap(torch.nn.Module):
    def __init__(self, target, fn):
        super().__init__()
        self.__opsweep_target__ = target
        self.fn = fn

    def forward(self, *x):
        return self.fn(*x)


class WrapExtra(Wrap):
    extra = Wrap.forward  # reachable as the method a case names


CASES = [
    case("double", "ops", deeplib.double, [torch.ones(2)]),
    case("leaf_op", "deep", leaf.leaf_op, [torch.ones(2)], skip="a reason"),
    case("Quat.norm", "deep", leaf.Quat(torch.ones(4)), [], method="norm"),
    case("Quat.__add__", "deep", Wrap(leaf.Quat.__add__, lambda a, b: (leaf.Quat(a) + leaf.Quat(b)).data),
         [torch.ones(4), torch.ones(4)]),
    case("Quat.identity", "deep", Wrap(leaf.Quat, lambda: leaf.Quat.identity(4).data), [], method="forward"),
    case("Block", "deep", lazy(leaf.Block), [torch.ones(2)]),
    case("Block.extra", "deep", WrapExtra(leaf.Block, lambda x: leaf.Block().extra(x)), [torch.ones(2)], method="extra"),
]
NOT_SURVEYED = {"deeplib.sub.deep.leaf.make_holder": "a reason", "deeplib.sub.deep.leaf.sizes": "stale: a type"}
"""


@pytest.fixture()
def deeplib(tmp_path, monkeypatch):
    for rel, text in LIB.items():
        p = tmp_path / "deeplib" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    reg = tmp_path / "cases_deep.py"
    reg.write_text(REGISTRY)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield reg
    for name in [m for m in sys.modules if m == "deeplib" or m.startswith("deeplib.")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def _names(rows):
    return sorted(r["name"] for r in rows)


def test_surface_reaches_every_depth_once_and_skips_private_paths(deeplib):
    surface = coverage.public_surface("deeplib")
    names = {e.name: e.kind for e in surface.operators.values()}
    # re-exported names are counted once, under the shortest public path
    assert names["deeplib.double"] == "function" and "deeplib.ops.double" not in names
    assert "deeplib.sub.leaf_op" in names and "deeplib.sub.deep.leaf.leaf_op" not in names
    assert "deeplib.sub.deep.leaf.untyped" in names  # unannotated: counted
    assert not any("_impl" in n or "_hidden" in n or "private" in n for n in names)
    # a module that fails to import is reported, not dropped silently
    assert [u["module"] for u in surface.unimportable] == ["deeplib.broken"]
    assert "an optional dependency is missing" in surface.unimportable[0]["error"]


def test_methods_of_public_classes_are_operators(deeplib):
    names = {e.name: e.kind for e in coverage.public_surface("deeplib").operators.values()}
    q = "deeplib.sub.deep.leaf.Quat"
    assert {n for n in names if n.startswith(q + ".")} == {f"{q}.__add__", f"{q}.norm", f"{q}.identity", f"{q}.helper"}
    assert names[f"{q}.norm"] == "method"
    b = "deeplib.sub.deep.leaf.Block"
    assert f"{b}.extra" in names and f"{b}.forward" not in names
    # an inherited library method is counted once, under the class that defines it
    assert "deeplib.sub.deep.leaf.BlockBase.shared" in names and f"{b}.shared" not in names


def test_what_is_set_aside_and_why(deeplib):
    kinds = {t["name"]: t["kind"] for t in coverage.public_surface("deeplib").not_operators}
    leaf = "deeplib.sub.deep.leaf"
    assert kinds[f"{leaf}.sizes"] == "no tensor in its signature"
    assert kinds[f"{leaf}.device_name"] == "no tensor in its signature"
    assert kinds[f"{leaf}.default_cfg"] == "no tensor in its signature"  # returns a typed dict of ints
    assert kinds[f"{leaf}.Loader"] == "no tensor in its signature"
    assert kinds[f"{leaf}.SizeConfig"] == "no tensor in its signature"  # a Config class without tensors
    assert kinds[f"{leaf}.SizeConfig.area"] == "no tensor in its signature"
    assert kinds[f"{leaf}.ExportMixin"] == "mixin"
    assert kinds[f"{leaf}.ExportMixin.to_file"].startswith("abstract stub")  # unannotated, yet set aside: it does nothing
    assert kinds[f"{leaf}.Quat.describe"] == "no tensor in its signature"
    assert kinds[f"{leaf}.Quat.unfinished"].startswith("abstract stub")
    assert kinds[f"{leaf}.Block.apply_step"].startswith("hook")  # an nn.Module override of a library base method
    assert kinds[f"{leaf}.Mode"] == "enum" and kinds[f"{leaf}.Cfg"] == "typed dict" and kinds[f"{leaf}.Holder"] == "dataclass"
    names = {e.name for e in coverage.public_surface("deeplib").operators.values()}
    assert f"{leaf}.make_holder" in names  # returns a record that holds a tensor
    assert f"{leaf}.Table" in names  # its constructor takes a device: it allocates tensors
    assert f"{leaf}.Quat.w" not in names and f"{leaf}.Quat.__eq__" not in names and f"{leaf}.Quat._private" not in names
    assert f"{leaf}.ExportMixin.to_tensor" in names and f"{leaf}.Exported" in names  # a mixin's real method still counts
    assert f"{leaf}.Exported.to_file" not in names and f"{leaf}.Exported.to_tensor" not in names  # counted once, where defined
    assert not {f"{leaf}.SizeConfig", f"{leaf}.ExportMixin", f"{leaf}.ExportMixin.to_file"} & names


def test_cases_cover_functions_classes_methods_and_lazy_targets(deeplib):
    report = coverage.coverage_report("deeplib", [str(deeplib)])
    covered = _names(report["covered_names"])
    leaf = "deeplib.sub.deep.leaf"
    assert covered == sorted([
        "deeplib.double",
        f"{leaf}.Block",  # a lazy target, by what it declares it builds
        f"{leaf}.Block.extra",  # method= on the class a wrapper names
        f"{leaf}.Quat",  # the class of an instance target
        f"{leaf}.Quat.__add__",  # a wrapper naming the method's function
        f"{leaf}.Quat.norm",  # method= on an instance
    ])
    assert _names(report["skipped"]) == ["deeplib.sub.leaf_op"]
    assert _names(report["not_surveyed"]) == [f"{leaf}.make_holder"]
    assert report["stale_not_surveyed"] == [f"{leaf}.sizes"]
    missing = {m["name"]: m for m in report["missing"]}
    assert f"{leaf}.Quat.identity" in missing  # method="forward" on the wrapper surveys the wrapper's forward, not identity
    assert missing[f"{leaf}.Quat.identity"]["module"] == leaf and missing[f"{leaf}.Quat.identity"]["kind"] == "method"
    total = report["total"]
    assert report["probed_share"] == pytest.approx(len(covered) / total)
    assert report["share"] == pytest.approx((len(covered) + 1) / total)
    pkg = report["by_package"]
    assert pkg["deeplib.sub"]["total"] == sum(1 for n in [*covered, *missing, "deeplib.sub.leaf_op", f"{leaf}.make_holder"]
                                              if n.startswith("deeplib.sub"))
    assert sum(p["total"] for p in pkg.values()) == total


def test_depth_limits_the_modules_walked(deeplib):
    shallow = {e.name for e in coverage.public_surface("deeplib", depth=1).operators.values()}
    assert "deeplib.sub.leaf_op" in shallow  # reachable through deeplib.sub
    assert not any(n.startswith("deeplib.sub.deep.leaf.") for n in shallow)


def test_main_prints_json_and_reports_broken_registries(deeplib, capsys):
    assert coverage.main(["--library", "deeplib", "--registry", str(deeplib)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["library"] == "deeplib" and report["depth"] is None
    deeplib.write_text("raise ValueError('boom')\n")
    assert coverage.main(["--library", "deeplib", "--registry", str(deeplib)]) == 2
    assert "boom" in json.loads(capsys.readouterr().out)["error"]


# ---------------------------------------------------------------------------------------------
# What the library declares: python/tests/fixtures/covfix (covlib, and the suite covsuite over it)

COVFIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "covfix")
COVSUITE_REGISTRY = os.path.join(COVFIX, "covsuite", "cases_cov.py")


@pytest.fixture()
def covlib(monkeypatch):
    monkeypatch.syspath_prepend(COVFIX)
    yield
    for name in [m for m in sys.modules if m.split(".")[0] in ("covlib", "covsuite")]:
        del sys.modules[name]


def _operators(library="covlib"):
    return {e.name: e for e in coverage.public_surface(library).operators.values()}


def test_what_all_declares_is_the_public_set_one_operator_per_object(covlib):
    ops = _operators()
    assert sorted(ops) == [
        "covlib.Accuracy", "covlib.Accuracy.best", "covlib.Scale", "covlib.blend", "covlib.double",
        "covlib.legacy.old_op",  # a listed module without __all__: its own public names
        "covlib.nn.Blur", "covlib.nn.Quat", "covlib.nn.Quat.__add__", "covlib.nn.Quat.__mul__",
        "covlib.nn.layers.only_here",  # the fallback, in a module below a listed package
        "covlib.twice",  # a deprecated alias that is a function of its own: its own operator
    ]
    # an alias of the same object is one operator, listed with every public name that exports it
    assert ops["covlib.double"].aliases == ("covlib.double_v1",)
    # named where exported, never where a plain module re-imports it for its own use
    assert ops["covlib.nn.Blur"].aliases == ("covlib.nn.layers.Blur",)
    everything = {n for e in ops.values() for n in (e.name, *e.aliases)}
    assert not {"covlib.nn.layers.double", "covlib.metrics.double", "covlib.ops.double"} & everything
    # a module the package's __all__ does not list is its implementation, at any depth
    assert "covlib.ops.helper" not in everything and "covlib.blend.blend_helper" not in everything
    assert "covlib._secret" not in everything


def test_governed_modules_are_the_unlisted_ones(covlib):
    from opsweep.public_names import declared_surface

    surface = declared_surface("covlib")
    assert surface.declaring == ["covlib"]
    # blend is governed although __all__ says "blend": that name is the function, not the module
    assert surface.governed == ["covlib.blend", "covlib.metrics", "covlib.ops"]
    double = surface.lookup(sys.modules["covlib.ops"].double)
    assert double.name == "covlib.double" and double.declared
    only_here = surface.lookup(sys.modules["covlib.nn.layers"].only_here)
    assert only_here.names == ("covlib.nn.layers.only_here",) and not only_here.declared


def test_generic_methods_are_not_operators(covlib):
    kinds = {t["name"]: t["kind"] for t in coverage.public_surface("covlib").not_operators}
    abstract = "generic method (of an abstract class: it runs only as its subclasses inherit it)"
    # an abstract base's operator dunders and methods run only as what its subclasses inherit
    assert kinds["covlib.Metric"] == "base class"
    assert kinds["covlib.Metric.__add__"] == abstract and kinds["covlib.Metric.sync"] == abstract
    # a library override of nn.Module's own methods is nn.Module's generic method
    assert kinds["covlib.Metric.double"] == "generic method (overrides Module.double of torch)"
    assert kinds["covlib.Metric.state_dict"] == "generic method (overrides Module.state_dict of torch)"
    assert kinds["covlib.nn.Quat.to"] == "generic method (overrides Module.to of torch)"
    assert kinds["covlib.nn.Quat.train"] == "generic method (overrides Module.train of torch)"
    assert kinds["covlib.Accuracy.update"].startswith("hook")
    # a concrete value type's arithmetic and a class's own methods stay operators
    ops = _operators()
    assert {"covlib.nn.Quat.__add__", "covlib.nn.Quat.__mul__", "covlib.Accuracy.best"} <= set(ops)
    assert not [n for n in ops if n.startswith("covlib.Metric") or n.startswith("covlib.Accuracy.__")]


def test_cases_cover_through_any_name_and_unmatched_cases_are_reported(covlib):
    report = coverage.coverage_report("covlib", [COVSUITE_REGISTRY])
    assert _names(report["covered_names"]) == ["covlib.Accuracy", "covlib.double", "covlib.nn.Quat.__add__"]
    assert _names(report["skipped"]) == ["covlib.twice"]
    # NOT_SURVEYED may name an operator by any of its public names
    assert [(r["name"], r["aliases"]) for r in report["not_surveyed"]] == [("covlib.nn.Blur", ["covlib.nn.layers.Blur"])]
    assert report["stale_not_surveyed"] == []
    assert report["total"] == 12 and report["cases"] == 7
    assert report["unmatched_cases"] == [
        {"case": "Metric.add", "registry": "cases_cov.py", "target": "covlib.Metric.__add__",
         "why": "public, but no operator: generic method (of an abstract class: it runs only as its subclasses inherit it)"},
        {"case": "helper", "registry": "cases_cov.py", "target": "covlib.ops.helper", "why": "not a public name of covlib"},
        {"case": "relu", "registry": "cases_cov.py", "target": "torch._VariableFunctionsClass.relu",
         "why": "not part of covlib"},
    ]


def test_the_library_comes_from_the_suite_or_is_needed(covlib, tmp_path, capsys):
    assert coverage.main(["--registry", COVSUITE_REGISTRY]) == 0
    assert json.loads(capsys.readouterr().out)["library"] == "covlib"
    loose = tmp_path / "cases_loose.py"
    loose.write_text("CASES = []\n")
    assert coverage.main(["--registry", COVSUITE_REGISTRY, "--registry", str(loose)]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error == "--library NAME is needed: cases_loose.py is in no suite package that assigns LIBRARY in its __init__.py"
    other = tmp_path / "othersuite"
    other.mkdir()
    (other / "__init__.py").write_text('LIBRARY = "otherlib"\n')
    (other / "cases_other.py").write_text("CASES = []\n")
    assert coverage.main(["--registry", COVSUITE_REGISTRY, "--registry", str(other / "cases_other.py")]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == (
        "--library NAME is needed: the registries' suites name covlib and otherlib")
    # --library wins over the suite's
    assert coverage.main(["--library", "covlib", "--registry", str(loose)]) == 0
