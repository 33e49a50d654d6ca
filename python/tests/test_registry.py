"""Registry loading (registry.py): every refusal, inventory entries; fingerprints (fingerprint.py)."""

import os
import sys
import textwrap

import pytest
import torch

from opsweep import case
from opsweep.case import RegistryError
from opsweep.fingerprint import fingerprint
from opsweep.public_names import guess_library, public_name
from opsweep.registry import load_registries

torch.set_num_threads(1)

HEADER = "import torch\nfrom opsweep import case\n"


def write(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(HEADER + textwrap.dedent(body))
    return str(p)


def refusal(paths):
    with pytest.raises(RegistryError) as info:
        load_registries(paths)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_missing_file(tmp_path):
    msg = refusal([str(tmp_path / "cases_gone.py")])
    assert "cases_gone.py" in msg and "not found" in msg


def test_import_failure_names_type_message_and_line(tmp_path):
    p = write(tmp_path, "cases_bad.py", """\
        X = 1
        Y = X / 0
        CASES = []
        """)
    msg = refusal([p])
    assert msg == "cases_bad.py: import failed at cases_bad.py:4: ZeroDivisionError: division by zero"


def test_a_missing_module_names_the_interpreter_and_how_to_choose_another(tmp_path):
    p = write(tmp_path, "cases_elsewhere.py", """\
        import library_of_another_env_xyz
        CASES = []
        """)
    msg = refusal([p])
    assert msg.startswith("cases_elsewhere.py: import failed at cases_elsewhere.py:3: ModuleNotFoundError: "
                          "No module named 'library_of_another_env_xyz' (module 'library_of_another_env_xyz' is not "
                          "installed for the workers' interpreter ")
    assert "--python PATH" in msg and "\n" not in msg
    home = os.path.expanduser("~")
    assert home in ("", "/") or home + os.sep not in msg


def test_syntax_error_names_the_line(tmp_path):
    p = write(tmp_path, "cases_syntax.py", "CASES = [\n")
    msg = refusal([p])
    assert msg.startswith("cases_syntax.py: import failed at cases_syntax.py:3: SyntaxError")


def test_failure_inside_a_helper_names_the_registry_line(tmp_path):
    (tmp_path / "helper_mod_x.py").write_text("def boom():\n    raise KeyError('k')\n")
    p = write(tmp_path, "cases_helper.py", """\
        import helper_mod_x
        helper_mod_x.boom()
        """)
    msg = refusal([p])
    assert msg == "cases_helper.py: import failed at cases_helper.py:4: KeyError: 'k'"


def test_case_refused_by_case_api(tmp_path):
    p = write(tmp_path, "cases_api.py", """\
        CASES = [case("x", "g", torch.relu, [3])]
        """)
    msg = refusal([p])
    assert msg.startswith("cases_api.py:3: case 'x': input 0 is a int")


def test_cases_missing(tmp_path):
    assert refusal([write(tmp_path, "cases_none.py", "X = 1\n")]) == (
        "cases_none.py: defines no CASES (a list of opsweep.case(...) results)")


def test_cases_not_a_list(tmp_path):
    msg = refusal([write(tmp_path, "cases_tuple.py", "CASES = (1, 2)\n")])
    assert msg == "cases_tuple.py: CASES is a tuple, not a list"


def test_element_not_a_case(tmp_path):
    p = write(tmp_path, "cases_elem.py", """\
        CASES = [case("a", "g", torch.relu, [torch.ones(1)]), {"name": "b"}]
        """)
    assert refusal([p]) == "cases_elem.py: CASES[1] is a dict, not a Case (build it with opsweep.case(...))"


def test_duplicate_in_one_file(tmp_path):
    p = write(tmp_path, "cases_dup.py", """\
        CASES = [
            case("a", "g", torch.relu, [torch.ones(1)]),
            case("a", "g", torch.tanh, [torch.ones(1)]),
        ]
        """)
    assert refusal([p]) == "cases_dup.py: duplicate case name 'a' (cases_dup.py:4 and cases_dup.py:5)"


def test_duplicate_across_files_names_both_places(tmp_path):
    a = write(tmp_path, "cases_one.py", 'CASES = [case("same", "g", torch.relu, [torch.ones(1)])]\n')
    b = write(tmp_path, "cases_two.py", '\n\nCASES = [case("same", "g", torch.tanh, [torch.ones(1)])]\n')
    assert refusal([a, b]) == "cases_two.py: duplicate case name 'same' (cases_one.py:3 and cases_two.py:5)"


def test_same_file_twice_is_loaded_once(tmp_path):
    a = write(tmp_path, "cases_once.py", 'CASES = [case("only", "g", torch.relu, [torch.ones(1)])]\n')
    assert [lc.case.name for lc in load_registries([a, a])] == ["only"]


def test_inventory_entry_and_public_name(tmp_path):
    import kornia

    a = write(tmp_path, "cases_k.py", """\
        import kornia
        CASES = [case("rgb_to_grayscale", "color", kornia.color.rgb_to_grayscale, [torch.rand(1, 3, 4, 5)],
                      note="n", tags=["t"])]
        """)
    (lc,) = load_registries([a])
    entry = lc.inventory_entry()
    aliases = entry.pop("aliases")  # every public name of the target in the loaded modules, shortest first
    assert aliases[:2] == ["kornia.color.rgb_to_grayscale", "kornia.color.gray.rgb_to_grayscale"]
    assert [n.count(".") for n in aliases] == sorted(n.count(".") for n in aliases)
    for name in aliases:
        module, attr = name.rsplit(".", 1)
        assert getattr(sys.modules[module], attr) is kornia.color.rgb_to_grayscale, name
    assert entry == {
        "name": "rgb_to_grayscale", "group": "color", "registry": "cases_k.py", "fingerprint": lc.fingerprint,
        "target": "kornia.color.rgb_to_grayscale", "check": True, "skip": None, "note": "n", "tags": ["t"],
        "method": None, "origin": "cases_k.py:4",
    }
    assert public_name(kornia.augmentation.RandomCrop((2, 2))) == "kornia.augmentation.RandomCrop"
    assert guess_library([lc.case]) == "kornia"


def _base(**over):
    torch.manual_seed(0)
    args = dict(name="op", group="g", target=torch.nn.functional.interpolate, inputs=[torch.rand(1, 1, 4, 4)],
                kwargs={"scale_factor": 2.0, "mode": "bilinear"})
    args.update(over)
    return case(**args)


def test_fingerprint_is_sensitive_to_values_kwargs_and_fields():
    base = fingerprint(_base())
    assert base == fingerprint(_base())
    x = torch.rand(1, 1, 4, 4)
    assert fingerprint(_base(inputs=[x])) != fingerprint(_base(inputs=[x + 1e-6]))  # values
    assert fingerprint(_base(inputs=[x])) != fingerprint(_base(inputs=[x.double()]))  # dtype
    assert base != fingerprint(_base(kwargs={"scale_factor": 2.0, "mode": "nearest"}))
    assert base != fingerprint(_base(kwargs={"scale_factor": 2.0000001, "mode": "bilinear"}))
    assert base != fingerprint(_base(atol=1e-3))
    assert base != fingerprint(_base(check=False))
    assert base != fingerprint(_base(skip="no"))
    assert base != fingerprint(_base(name="op[v]"))
    assert base != fingerprint(_base(target=torch.nn.functional.avg_pool2d))
    assert base == fingerprint(_base(note="notes do not change results", tags=["x"]))
    # tensors inside kwargs count by value
    w1, w2 = torch.ones(3), torch.ones(3)
    w2[0] = 2
    assert fingerprint(_base(kwargs={"w": w1})) != fingerprint(_base(kwargs={"w": w2}))


def test_fingerprint_of_modules_covers_non_persistent_buffers():
    """A buffer registered with persistent=False is not in the state_dict; kornia's Rotate keeps its
    angle and centre so, and the angle of geometry.Rotate[center] changed without changing its
    fingerprint (a refresh would have kept the old result)."""
    import kornia.geometry.transform as T

    x = [torch.rand(1, 1, 4, 4)]
    rotate = lambda angle: fingerprint(case("op", "g", T.Rotate(torch.tensor([angle]), mode="nearest"), x))  # noqa: E731
    assert "angle" not in T.Rotate(torch.tensor([1.0])).state_dict()  # what made it invisible
    assert rotate(30.0) != rotate(37.0)
    assert rotate(30.0) == rotate(30.0)


def test_fingerprint_of_modules_covers_weights_and_repr():
    torch.manual_seed(0)
    m1 = torch.nn.Conv2d(1, 2, 3)
    m2 = torch.nn.Conv2d(1, 2, 3)
    x = [torch.rand(1, 1, 5, 5)]
    f1 = fingerprint(case("conv", "g", m1, x))
    assert f1 != fingerprint(case("conv", "g", m2, x))  # other weights
    m3 = torch.nn.Conv2d(1, 2, 3, padding=1)
    m3.load_state_dict(m1.state_dict())
    assert f1 != fingerprint(case("conv", "g", m3, x))  # same weights, other config (repr)


def test_fingerprints_are_identical_across_processes(statuses_run):
    """The session worker computed its inventory in another process, with another hash seed."""
    from harness_helpers import STATUSES_REGISTRY

    here = {lc.case.name: lc.fingerprint for lc in load_registries([STATUSES_REGISTRY])}
    there = {e["name"]: e["fingerprint"] for e in statuses_run["inventory"]["cases"]}
    assert here == there


WRAPPER_REGISTRY = """\
import torch
import kornia
from opsweep import case


class _Kw(torch.nn.Module):
    def __init__(self, fn, **fixed):
        super().__init__()
        self.fn = fn
        self.fixed = fixed
        self.__opsweep_target__ = fn

    def forward(self, x):
        return self.fn(x, **self.fixed)


CASES = [case("blur[wrapped]", "filters", _Kw(kornia.filters.box_blur, kernel_size=(K, K)), [torch.ones(1, 1, 8, 8)])]
"""


def _wrapper_registry(folder, k=3):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "cases_wrap.py"
    p.write_text(WRAPPER_REGISTRY.replace("K, K", f"{k}, {k}"))
    return str(p)


def test_wrappers_name_the_surveyed_api_and_fingerprints_ignore_the_checkout(tmp_path):
    (a,) = load_registries([_wrapper_registry(tmp_path / "one")])
    (b,) = load_registries([_wrapper_registry(tmp_path / "elsewhere" / "two")])
    assert a.inventory_entry()["target"] == "kornia.filters.box_blur"
    assert guess_library([a.case]) == "kornia"
    assert a.fingerprint == b.fingerprint  # the registry's import name differs, the fingerprint not
    (c,) = load_registries([_wrapper_registry(tmp_path / "three", k=5)])
    assert c.fingerprint != a.fingerprint  # a wrapper's baked argument is part of the case


def test_registry_inside_a_package_may_use_relative_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "root" / "mysurvey"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_shared.py").write_text("import torch\nX = torch.ones(2)\n")
    (pkg / "cases_rel.py").write_text(
        "import torch\nfrom opsweep import case\nfrom ._shared import X\n"
        "CASES = [case('rel', 'g', torch.relu, [X])]\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    (lc,) = load_registries([str(pkg / "cases_rel.py")])
    assert lc.case.name == "rel" and lc.case.origin == "cases_rel.py:4"
    assert "mysurvey.cases_rel" in sys.modules
    for name in [n for n in sys.modules if n == "mysurvey" or n.startswith("mysurvey.")]:
        del sys.modules[name]


def test_fingerprint_covers_the_code_of_functions_written_in_registries():
    """A lambda or helper in a registry is part of the case: editing it must invalidate results."""
    x = [torch.rand(1, 1, 4, 4)]

    class Call(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, t):
            return self.fn(t)

    scale = 2.0
    f_double = fingerprint(case("op", "g", Call(lambda t: t * 2), x))
    f_triple = fingerprint(case("op", "g", Call(lambda t: t * 3), x))
    f_closure = fingerprint(case("op", "g", Call(lambda t: t * scale), x))
    scale = 5.0
    f_closure_changed = fingerprint(case("op", "g", Call(lambda t: t * scale), x))
    assert f_double != f_triple
    assert f_closure != f_closure_changed
    assert f_double == fingerprint(case("op", "g", Call(lambda t: t * 2), x))
    # plain functions as targets too
    assert fingerprint(case("op", "g", lambda t: t + 1, x)) != fingerprint(case("op", "g", lambda t: t - 1, x))
    # installed code (torch) is named, not hashed: the versions in the job key cover it
    assert fingerprint(case("op", "g", torch.nn.functional.relu, x)) == fingerprint(case("op", "g", torch.nn.functional.relu, x))


def test_fingerprint_follows_the_globals_code_reads_not_attribute_names():
    """A registry global that only shares its name with an attribute the code reads (``t.data``
    beside a global ``data``) is not part of the case; a global the code reads is."""
    x = [torch.rand(1, 1, 4, 4)]
    ns = {"data": 1.0, "scale": 2.0}
    exec("def reads_attribute(t):\n    return t.data * 2\n\ndef reads_global(t):\n    return t * scale\n", ns)
    attr_before = fingerprint(case("op", "g", ns["reads_attribute"], x))
    glob_before = fingerprint(case("op", "g", ns["reads_global"], x))
    ns["data"], ns["scale"] = 7.0, 3.0
    assert fingerprint(case("op", "g", ns["reads_attribute"], x)) == attr_before
    assert fingerprint(case("op", "g", ns["reads_global"], x)) != glob_before


def _suite_presets():
    import importlib

    suite = os.path.dirname(importlib.import_module("opsweep_suites.kornia").__file__)
    folder = os.path.join(suite, "presets")
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))
    return suite, folder, names


@pytest.mark.parametrize("preset", _suite_presets()[2])
def test_every_preset_reuses_the_bundled_cases_unchanged(preset):
    """A preset (`--preset NAME`) must measure the very cases of the full survey: each of its cases
    is defined in one of the suite's registries (cases_*.py) with the same fingerprint, so a preset
    run's results are valid records of the full survey and the preset never drifts from it."""
    suite, folder, _ = _suite_presets()
    chosen = load_registries([os.path.join(folder, preset + ".py")])
    assert chosen, f"preset {preset} selects no case"
    sources = sorted({lc.case.origin.rsplit(":", 1)[0] for lc in chosen})
    assert all(os.path.basename(s).startswith("cases_") for s in sources), sources
    full = {lc.case.name: lc.fingerprint for lc in load_registries([os.path.join(suite, os.path.basename(s)) for s in sources])}
    assert {lc.case.name: full.get(lc.case.name) for lc in chosen} == {lc.case.name: lc.fingerprint for lc in chosen}


def test_quick_preset_keeps_its_variety_small():
    """The quick preset is the README's first page: few cases, and a random case comes with its
    deterministic twin (the page shows what [random] changes)."""
    _, folder, names = _suite_presets()
    assert "quick" in names
    quick = [lc.case.name for lc in load_registries([os.path.join(folder, "quick.py")])]
    assert 10 <= len(quick) <= 20
    randoms = [n for n in quick if n.endswith("[random]")]
    assert randoms and all(n[: -len("[random]")] in quick for n in randoms)


# ---------------------------------------------------------------------------------------------
# Registry-written code is hashed by what it does, not by where it sits


SCALE_WRAPPER = '''\
import torch


def _factor():
    return FACTOR


class Scale(torch.nn.Module):
    """A registry wrapper: doc text does not change what it does."""

    kind = "KIND"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * _factor()
'''


def _moved_wrapper_registry(folder, helper, *, factor="2.0", kind="plain", forward="x * _factor()", doc=None):
    """A registry whose wrapper class lives in the helper module ``helper`` (its name is the module path)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = SCALE_WRAPPER.replace("FACTOR", factor).replace("KIND", kind).replace("x * _factor()", forward)
    if doc is not None:
        text = text.replace("A registry wrapper: doc text does not change what it does.", doc)
    (folder / f"{helper}.py").write_text(text)
    p = folder / "cases_moved.py"
    p.write_text(f"import torch\nfrom opsweep import case\nfrom {helper} import Scale\n\n"
                 "CASES = [case('scaled', 'g', Scale(), [torch.ones(2, 2)])]\n")
    return str(p)


def test_a_wrapper_moved_to_another_module_keeps_its_fingerprint(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    (a,) = load_registries([_moved_wrapper_registry(tmp_path / "one", "helpers_before_move")])
    (b,) = load_registries([_moved_wrapper_registry(tmp_path / "two", "shared_after_move")])
    assert type(a.case.target).__module__ != type(b.case.target).__module__
    assert a.fingerprint == b.fingerprint
    (c,) = load_registries([_moved_wrapper_registry(tmp_path / "three", "helpers_doc", doc="Other words.")])
    assert c.fingerprint == a.fingerprint  # a docstring is not code


@pytest.mark.parametrize("edit", [
    {"forward": "x * _factor() + 0.0"},  # its forward
    {"factor": "3.0"},  # a function its forward calls (a global it reads)
    {"kind": "other"},  # a class-level attribute
])
def test_editing_a_wrapper_changes_its_fingerprint(tmp_path, monkeypatch, edit):
    monkeypatch.setattr(sys, "path", list(sys.path))
    (a,) = load_registries([_moved_wrapper_registry(tmp_path / "base", "helpers_edit")])
    del sys.modules["helpers_edit"]  # the same module name, edited (as between two commits)
    sys.path.remove(str(tmp_path / "base"))
    (b,) = load_registries([_moved_wrapper_registry(tmp_path / "edited", "helpers_edit", **edit)])
    assert type(a.case.target).__qualname__ == type(b.case.target).__qualname__
    assert a.fingerprint != b.fingerprint
    del sys.modules["helpers_edit"]


def test_installed_classes_are_named_not_hashed():
    from opsweep.fingerprint import hashed_by_code, type_identity

    assert type_identity(torch.nn.Conv2d) == "torch.nn.modules.conv.Conv2d"
    assert not hashed_by_code(torch.nn.functional.relu) and not hashed_by_code(dict)
    import functools

    assert not hashed_by_code(functools.partial)  # the standard library counts as installed


def test_registry_files_are_known_by_absolute_path(tmp_path):
    from opsweep.registry_files import is_registry_file

    p = write(tmp_path, "cases_known.py", 'CASES = [case("k", "g", torch.relu, [torch.ones(1)])]\n')
    (tmp_path / "not_a_registry.py").write_text("X = 1\n")
    assert not is_registry_file(p)
    load_registries([p])
    assert is_registry_file(p) and is_registry_file(str(tmp_path / "." / "cases_known.py"))
    assert not is_registry_file(str(tmp_path / "not_a_registry.py"))  # a loose registry's neighbours are not
    assert not is_registry_file("<string>") and not is_registry_file("")


def test_helper_modules_of_a_registry_package_are_registry_code():
    import os

    from opsweep.registry_files import is_registry_file

    kornia_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "opsweep_suites", "kornia")
    load_registries([os.path.join(kornia_dir, "cases_color.py")])
    assert is_registry_file(os.path.join(kornia_dir, "_common.py"))
    assert not is_registry_file(torch.__file__)


# ---------------------------------------------------------------------------------------------
# Seeded registry imports


def _fingerprints_in_a_subprocess(paths):
    import json
    import os
    import subprocess

    code = ("import json, sys\nfrom opsweep.registry import load_registries\n"
            "print(json.dumps({lc.case.name: lc.fingerprint for lc in load_registries(sys.argv[1:])}))\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
               PYTHONHASHSEED="random")
    out = subprocess.run([sys.executable, "-c", code, *paths], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_registry_drawing_from_the_global_generators_loads_the_same_cases_everywhere(tmp_path):
    import os

    unseeded = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "cases_unseeded.py")
    # another registry first, which draws from all three generators: it must not shift this one's draws
    drawer = write(tmp_path, "cases_drawer.py", """\
        import random
        import numpy as np
        torch.rand(7); np.random.rand(7); random.random()
        CASES = [case("drawer", "g", torch.relu, [torch.ones(1)])]
        """)
    first = _fingerprints_in_a_subprocess([unseeded])
    second = _fingerprints_in_a_subprocess([drawer, unseeded])
    second.pop("drawer")
    assert first == second and len(first) == 3


def test_loading_a_registry_leaves_the_callers_random_state_alone(tmp_path):
    p = write(tmp_path, "cases_draws.py", """\
        torch.rand(5)
        CASES = [case("draws", "g", torch.relu, [torch.ones(1)])]
        """)
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    load_registries([p])
    assert torch.equal(torch.rand(3), expected)


# ---------------------------------------------------------------------------------------------
# origin: the registry line, even when a helper builds the case


def test_duplicate_names_built_by_a_helper_name_the_two_registry_lines(tmp_path):
    p = write(tmp_path, "cases_dup_helper.py", """\
        def variants(op):
            return [case(op, "g", torch.relu, [torch.ones(1)])]


        CASES = [
            *variants("same"),
            *variants("same"),
        ]
        """)
    assert refusal([p]) == "cases_dup_helper.py: duplicate case name 'same' (cases_dup_helper.py:8 and cases_dup_helper.py:9)"


def test_origin_of_a_case_built_in_another_module_is_the_registry_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "origin_helpers_x.py").write_text(
        "import torch\nfrom opsweep import case\n\n\ndef make(name):\n    return case(name, 'g', torch.relu, [torch.ones(1)])\n")
    p = write(tmp_path, "cases_far.py", """\
        import origin_helpers_x

        CASES = [origin_helpers_x.make("a"), origin_helpers_x.make("b")]
        """)
    assert [lc.case.origin for lc in load_registries([p])] == ["cases_far.py:5", "cases_far.py:5"]


# ---------------------------------------------------------------------------------------------
# Lazy targets: built by materialize, fingerprinted without building


def _fixture(name):
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", name)


def test_lazy_targets_are_not_built_at_load_and_name_what_they_build():
    loaded = {lc.case.name: lc for lc in load_registries([_fixture("cases_lazy.py")])}
    counted = loaded["lazy_counted"].case
    assert counted.target.builder.calls == []  # loading built nothing
    for lc in loaded.values():
        assert lc.inventory_entry()["target"] == "torch.nn.Linear"
    assert guess_library([lc.case for lc in loaded.values()]) == "torch"


def test_materialize_builds_once_per_case_and_is_idempotent():
    from opsweep.case import Lazy, materialize

    loaded = {lc.case.name: lc for lc in load_registries([_fixture("cases_lazy.py")])}
    lazy_case = loaded["lazy_counted"].case
    built = lazy_case.target.builder.calls
    ready = materialize(lazy_case)
    assert isinstance(ready.target, torch.nn.Linear) and not isinstance(ready.target, Lazy)
    assert ready.name == lazy_case.name and ready.inputs is lazy_case.inputs
    assert materialize(lazy_case) is ready and materialize(ready) is ready
    assert built == [3]  # built once
    plain = case("plain", "g", torch.relu, [torch.ones(1)])
    assert materialize(plain) is plain
    assert fingerprint(lazy_case) == loaded["lazy_counted"].fingerprint  # building changed nothing


def test_lazy_construction_is_seeded_per_case_and_leaves_the_callers_random_state():
    from opsweep.case import materialize

    loaded = {lc.case.name: lc for lc in load_registries([_fixture("cases_lazy.py")])}
    torch.manual_seed(5)
    expected = torch.rand(2)
    torch.manual_seed(5)
    a = materialize(loaded["lazy_linear"].case).target
    assert torch.equal(torch.rand(2), expected)  # building did not move the caller's generator
    twin = materialize(loaded["lazy_linear[twin]"].case).target
    assert not torch.equal(a.weight, twin.weight)  # another case, another construction seed
    again = {lc.case.name: lc for lc in load_registries([_fixture("cases_lazy.py")])}
    torch.rand(9)  # whatever ran before, the same case builds the same object
    assert torch.equal(materialize(again["lazy_linear"].case).target.weight, a.weight)


def test_lazy_fingerprints_cover_builder_arguments_and_code_and_agree_across_processes(tmp_path):
    from opsweep.case import lazy

    x = [torch.ones(1, 3)]
    base = fingerprint(case("op", "g", lazy(torch.nn.Linear, 3, 2), x))
    assert base == fingerprint(case("op", "g", lazy(torch.nn.Linear, 3, 2), x))
    assert base != fingerprint(case("op", "g", lazy(torch.nn.Linear, 3, 2, bias=False), x))
    assert base != fingerprint(case("op", "g", lazy(torch.nn.Linear, 3, 4), x))
    assert base != fingerprint(case("op[v]", "g", lazy(torch.nn.Linear, 3, 2), x))  # another construction seed
    one = fingerprint(case("op", "g", lazy(lambda: torch.nn.Linear(3, 2), surveys=torch.nn.Linear), x))
    two = fingerprint(case("op", "g", lazy(lambda: torch.nn.Linear(3, 2).eval(), surveys=torch.nn.Linear), x))
    assert one != two  # the builder's code
    here = {lc.case.name: lc.fingerprint for lc in load_registries([_fixture("cases_lazy.py")])}
    assert _fingerprints_in_a_subprocess([_fixture("cases_lazy.py")]) == here


def test_a_built_target_must_be_what_the_lazy_target_declared():
    from opsweep.case import lazy, materialize

    wrong = case("wrong", "g", lazy(lambda: torch.nn.Tanh(), surveys=torch.nn.Linear), [torch.ones(1, 3)])
    with pytest.raises(RegistryError, match="declared torch.nn.Linear, built torch.nn.Tanh"):
        materialize(wrong)
    with pytest.raises(RegistryError, match="is not a class: say what it builds"):
        lazy(lambda: torch.nn.Tanh())
    with pytest.raises(RegistryError, match="has no method 'project'"):
        case("m", "g", lazy(torch.nn.Linear, 3, 2), [torch.ones(1, 3)], method="project")
    with pytest.raises(RegistryError, match="was not built: call opsweep.case.materialize"):
        wrong.target(torch.ones(1, 3))  # a harness that forgot materialize fails loudly, not as a finding


def test_construction_files_name_the_code_that_built_the_target():
    import os

    from opsweep.case import construction_files, lazy, materialize

    c = case("files", "g", lazy(torch.nn.Linear, 3, 2), [torch.ones(1, 3)])
    assert construction_files(c) == frozenset()
    ready = materialize(c)
    files = {os.path.basename(f) for f in construction_files(c)}
    assert "linear.py" in files and construction_files(ready) == construction_files(c)
