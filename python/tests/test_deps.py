"""What a job's result depends on (opsweep/deps/), on real torch.

Three kinds of test:
- the index (digests, qualified names, the import closure) on small libraries written here;
- the deps the real worker records for the ``depfix`` fixture library (fixtures/depfix/,
  registry fixtures/cases_deps.py), on the export and compile paths: functions entered by the
  eager call, by the capture only (an is_compiling() branch; one that only Dynamo traces), a
  cached result, a table built at import;
- soundness: the records of a run over a copy of depfix, then edits of the copy, each followed by
  a fresh index; exactly the records that ran the edited code are stale (the engine's rule:
  every dep's digest must still match the index).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from harness_helpers import FIXTURES, INDUCTOR_CACHE, PYTHON_DIR, Worker
from opsweep import deps
from opsweep.library import Library

DEPS_REGISTRY = os.path.join(FIXTURES, "cases_deps.py")
STATE_REGISTRY = os.path.join(FIXTURES, "cases_deps_state.py")
PATHS = ("export", "compile")


def write_library(root: str, files: dict[str, str]) -> Library:
    """A package ``lib`` under ``root`` with the given files (relative to the package)."""
    pkg = os.path.join(root, "lib")
    for rel, text in files.items():
        path = os.path.join(pkg, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))
    if "__init__.py" not in files:
        open(os.path.join(pkg, "__init__.py"), "w").close()
    return Library(name="lib", version="", root=pkg, is_package=True)


def edit(path: str, old: str, new: str) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text, (path, old)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))
    st = os.stat(path)  # a later mtime even on a coarse clock: the index cache must notice
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


# ---------------------------------------------------------------------------------------------
# The index


MOD = """
import math
from lib.consts import K

LIMIT = 3

def plain(x):
    return x + LIMIT

@staticmethod
def decorated(x):
    return x

class Box:
    size = 2

    def area(self):
        return self.size * self.size

    @property
    def side(self):
        return self.size

    @side.setter
    def side(self, value):
        self.size = value

def outer(x):
    def inner(y):
        return y * 2
    return inner(x) + sum(v for v in [1, 2])
"""


def test_qualified_names_follow_python(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    index = deps.LibraryIndex.build(lib)
    names = {n.split(":", 1)[1] for n in index.function_digests() if n.startswith("lib/mod.py:")}
    assert names == {"plain", "decorated", "Box.area", "Box.side", "outer", "outer.<locals>.inner"}


def test_a_body_edit_changes_that_function_only(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    before = deps.LibraryIndex.build(lib)
    edit(os.path.join(lib.root, "mod.py"), "return self.size * self.size", "return self.size ** 2")
    after = deps.LibraryIndex.build(lib)
    f0, f1 = before.function_digests(), after.function_digests()
    assert {n for n in f0 if f0[n] != f1[n]} == {"lib/mod.py:Box.area"}
    assert before.module_digests() == after.module_digests()


def test_the_setter_and_getter_of_a_property_share_one_entry(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    before = deps.LibraryIndex.build(lib).function_digests()
    edit(os.path.join(lib.root, "mod.py"), "self.size = value", "self.size = int(value)")
    after = deps.LibraryIndex.build(lib).function_digests()
    assert {n for n in before if before[n] != after[n]} == {"lib/mod.py:Box.side"}


def test_a_nested_function_edit_changes_it_and_its_outer_function(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    before = deps.LibraryIndex.build(lib).function_digests()
    edit(os.path.join(lib.root, "mod.py"), "return y * 2", "return y * 3")
    after = deps.LibraryIndex.build(lib).function_digests()
    assert {n for n in before if before[n] != after[n]} == {"lib/mod.py:outer", "lib/mod.py:outer.<locals>.inner"}


@pytest.mark.parametrize(
    "old, new",
    [
        ("LIMIT = 3", "LIMIT = 4"),  # a constant
        ("import math", "import math, os"),  # an import
        ("    size = 2", "    size = 5"),  # a class attribute
        ("@staticmethod\ndef decorated", "@classmethod\ndef decorated"),  # a decorator
        ("def plain(x):", "def plain(x, y=1):"),  # a signature (defaults are module-level code)
    ],
)
def test_module_level_edits_change_the_module_digest(tmp_path, old, new):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    before = deps.LibraryIndex.build(lib).module_digests()
    edit(os.path.join(lib.root, "mod.py"), old, new)
    after = deps.LibraryIndex.build(lib).module_digests()
    assert {m for m in before if before[m] != after[m]} == {"lib/mod.py"}


BLOCK = '''
def f(x):
    """Doc."""
    if x:
        x = g(1,
              2)
        y = 2
    return x
'''


@pytest.mark.parametrize(
    "old, new, changed",
    [
        ("    if x:", "    # why\n    if x:", False),  # a comment line
        ("        y = 2", "        y = 2  # why", False),  # a trailing comment
        ("    return x", "\n\n    return x", False),  # blank lines
        ("g(1,\n              2)", "g(1, 2)", False),  # re-wrapped inside brackets
        ("g(1,\n              2)", "g(\n            1,\n            2,\n        )", True),  # a trailing comma is a token
        ("        y = 2", "    y = 2", True),  # out of the if: its indentation
        ("    return x", "        return x", True),  # into the if
        ('"""Doc."""', '"""Docs."""', True),  # a docstring is a token (code can read __doc__)
        ("y = 2", "y = (2)", True),  # parentheses are tokens
    ],
)
def test_a_function_digest_reads_its_tokens_not_its_comments_or_line_breaks(tmp_path, old, new, changed):
    lib = write_library(str(tmp_path), {"mod.py": BLOCK})
    before = deps.LibraryIndex.build(lib)
    edit(os.path.join(lib.root, "mod.py"), old, new)
    after = deps.LibraryIndex.build(lib)
    name = "lib/mod.py:f"
    assert before.function_digests()[name].startswith(deps.TOKEN_DIGEST_PREFIX)
    assert (before.function_digests()[name] != after.function_digests()[name]) == changed
    # the digest of lines (what records before index version 4 hold) sees every edit
    assert before.function_digests(lines=True)[name] != after.function_digests(lines=True)[name]
    assert before.message()["line_functions"][name] == before.function_digests(lines=True)[name]


def test_comments_and_blank_lines_outside_functions_do_not_change_the_module(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    before = deps.LibraryIndex.build(lib)
    edit(os.path.join(lib.root, "mod.py"), "LIMIT = 3", "# the limit\n\nLIMIT = 3")
    after = deps.LibraryIndex.build(lib)
    assert before.module_digests() == after.module_digests()


def test_locate_maps_code_to_the_innermost_function(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    index = deps.LibraryIndex.build(lib)
    sys.path.insert(0, str(tmp_path))
    try:
        import lib.mod as mod  # noqa: PLC0415

        genexpr = next(c for c in mod.outer.__code__.co_consts if getattr(c, "co_name", "") == "<genexpr>")
        inner = next(c for c in mod.outer.__code__.co_consts if getattr(c, "co_name", "") == "inner")
        assert index.locate(mod.plain.__code__) == ("lib/mod.py", "plain")
        assert index.locate(mod.Box.area.__code__) == ("lib/mod.py", "Box.area")
        assert index.locate(inner) == ("lib/mod.py", "outer.<locals>.inner")
        assert index.locate(genexpr) == ("lib/mod.py", "outer")  # a generator belongs to its function
        assert index.locate(deps.digest.__code__) == (None, None)  # not the library
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "lib" or m.startswith("lib.")]:
            del sys.modules[name]


def test_the_closure_follows_imported_names_not_whole_packages(tmp_path):
    lib = write_library(
        str(tmp_path),
        {
            "__init__.py": "",
            "color/__init__.py": "from .gray import to_gray\nfrom .maps import apply_map\n",
            "color/gray.py": "from lib.consts import WEIGHTS\n\ndef to_gray(x):\n    return x\n",
            "color/maps.py": "import lib\n\ndef apply_map(x):\n    return lib.other(x)\n",
            "consts.py": "WEIGHTS = (1, 2, 3)\n",
            "filters.py": "from lib.color import to_gray\n\ndef edges(x):\n    return to_gray(x)\n",
            "star.py": "from lib.consts import *\n\ndef f(x):\n    return x\n",
        },
    )
    index = deps.LibraryIndex.build(lib)
    # filters reads the name to_gray of lib.color: color/__init__ re-exports it from gray, whose
    # module-level code reads WEIGHTS of consts; color/maps.py (which imports all of lib) is
    # not read
    assert index.closure([("lib/filters.py", None)]) == {
        "lib/filters.py", "lib/color/__init__.py", "lib/color/gray.py", "lib/consts.py"}
    # a module that imports the top package reads all of it
    assert "lib/filters.py" in index.closure([("lib/color/maps.py", None)])
    assert index.closure([("lib/star.py", None)]) == {"lib/star.py", "lib/consts.py"}


def test_the_index_cache_is_reused_and_invalidated_by_edits(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    cache = str(tmp_path / "index.json")
    first = deps.LibraryIndex.build(lib, cache_path=cache)
    assert os.path.isfile(cache)
    again = deps.LibraryIndex.build(lib, cache_path=cache)
    assert again.function_digests() == first.function_digests()
    edit(os.path.join(lib.root, "consts.py"), "K = 1", "K = 2")
    edited = deps.LibraryIndex.build(lib, cache_path=cache)
    assert edited.module_digests()["lib/consts.py"] != first.module_digests()["lib/consts.py"]
    assert edited.module_digests() == deps.LibraryIndex.build(lib).module_digests()
    with open(cache, "w") as f:
        f.write('{"version": %d, "files": [' % deps.INDEX_VERSION)  # a damaged cache is ignored, never trusted
    assert deps.LibraryIndex.build(lib, cache_path=cache).module_digests() == edited.module_digests()


def test_a_file_edited_just_before_the_worker_started_is_current_and_one_edited_after_is_not(tmp_path):
    # The start is read on the clock that stamps files, not time.time(): an edit made just before
    # a run (a test, an editor's save then `opsweep run`) is current; one made after is volatile.
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n", "late.py": "L = 1\n"})
    started = deps.filesystem_now_ns(str(tmp_path))
    for rel in ("mod.py", "consts.py"):  # written before the start, however shortly before
        path = os.path.join(lib.root, rel)
        st = os.stat(path)
        assert st.st_mtime_ns <= started
        if st.st_mtime_ns == started:  # the same clock tick: moved one tick back, as seconds before
            os.utime(path, ns=(st.st_atime_ns, started - 1))
    late = os.path.join(lib.root, "late.py")
    with open(late, "w") as f:
        f.write("L = 2\n")
    st = os.stat(late)
    os.utime(late, ns=(st.st_atime_ns, max(st.st_mtime_ns, started)))  # at or after the start
    index = deps.LibraryIndex.build(lib, started_ns=started)
    modules = index.module_digests()
    assert modules["lib/late.py"] == deps.CHANGED_DURING_RUN
    assert modules["lib/mod.py"] != deps.CHANGED_DURING_RUN and modules["lib/consts.py"] != deps.CHANGED_DURING_RUN


def test_a_file_edited_after_the_index_is_never_current(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    index = deps.LibraryIndex.build(lib)
    sys.path.insert(0, str(tmp_path))
    try:
        import lib.mod as mod  # noqa: PLC0415

        edit(os.path.join(lib.root, "mod.py"), "return x + LIMIT", "return x - LIMIT")
        got = index.deps([mod.plain.__code__], deps.HiddenDeps())
        assert got["functions"] == {"lib/mod.py:plain": deps.CHANGED_DURING_RUN}
        assert got["modules"]["lib/mod.py"] == deps.CHANGED_DURING_RUN
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "lib" or m.startswith("lib.")]:
            del sys.modules[name]


def test_copying_an_instance_is_not_a_change_of_its_modules_state(tmp_path):
    # copy.deepcopy (every job copies its target) makes copyreg cache __slotnames__ on the class
    import copy

    write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    sys.path.insert(0, str(tmp_path))
    try:
        import lib.mod as mod  # noqa: PLC0415

        before = deps.state_signature(mod)
        copy.deepcopy(mod.Box())
        assert "__slotnames__" in vars(mod.Box)
        assert deps.state_signature(mod) == before
        mod.Box.size = 3  # a class attribute rebound: that is a change
        assert deps.state_signature(mod) != before
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "lib" or m.startswith("lib.")]:
            del sys.modules[name]


def test_an_unwatched_module_gives_no_deps(tmp_path):
    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    index = deps.LibraryIndex.build(lib)
    hidden = deps.HiddenDeps()
    hidden.unknown.add("lib/consts.py")

    class Code:  # locate() only reads these fields
        co_filename = os.path.join(lib.root, "mod.py")
        co_firstlineno = 7
        co_name = "plain"

    assert index.deps([Code()], hidden) is None  # mod.py reads K of consts.py: unwatched


# ---------------------------------------------------------------------------------------------
# What the worker records


def run_registry(registry: str, log: str, paths: tuple[str, ...] = PATHS,
                 pythonpath: str | None = None, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Every case of ``registry`` through ``paths`` in one worker (and the index it sent)."""
    env = {"TORCHINDUCTOR_CACHE_DIR": INDUCTOR_CACHE, **(extra_env or {})}
    w = Worker([registry], log, env=env)
    hello, inventory, index = w.receive(), w.receive(), w.receive()
    assert hello and hello["type"] == "hello", w.log()
    assert inventory and inventory["type"] == "inventory", (inventory, w.log())
    assert index and index["type"] == "index", (index, w.log())
    records = {}
    for entry in inventory["cases"]:
        for path in paths:
            message = w.job(entry["name"], path)
            assert message is not None and message["type"] == "result", (message, w.log())
            records[(entry["name"], path)] = message["record"]
    w.send({"type": "shutdown"})
    assert w.close() == 0, w.log()
    return {"index": index, "records": records, "log": w.log()}


@pytest.fixture(scope="module")
def depfix_run(tmp_path_factory):
    return run_registry(DEPS_REGISTRY, str(tmp_path_factory.mktemp("deps") / "worker.log"))


def functions(record: dict[str, Any]) -> set[str]:
    return set(record["deps"]["functions"])


def test_every_job_passes(depfix_run):
    statuses = {k: (r["status"], r["step"]) for k, r in depfix_run["records"].items()}
    want = {k: ("n/a", "skip") if k[0] == "skipped" else ("ok", "") for k in statuses}
    assert statuses == want


def test_the_index_message_lists_every_function_and_module(depfix_run):
    index = depfix_run["index"]
    assert index["version"] == deps.INDEX_VERSION and index["library"] == "depfix"
    assert set(index["line_functions"]) == set(index["functions"])
    assert "depfix/ops.py:_plus" in index["functions"] and "depfix/unrelated.py:unused" in index["functions"]
    assert set(index["modules"]) == {f"depfix/{m}.py" for m in (
        "__init__", "cached", "capture", "constants", "import_time", "modules", "ops", "unrelated",
        "filled", "near", "alias", "attr", "late_table", "lazyuse", "registering")}
    for record in depfix_run["records"].values():  # recorded digests are the index's own
        for name, d in record["deps"]["functions"].items():
            assert index["functions"][name] == d, name
        for name, d in record["deps"]["modules"].items():
            assert index["modules"][name] == d, name


def test_functions_entered_by_the_eager_call(depfix_run):
    r = depfix_run["records"]
    for path in PATHS:
        assert functions(r[("scale", path)]) == {"depfix/ops.py:scale"}
        assert functions(r[("both", path)]) == {"depfix/ops.py:both", "depfix/ops.py:shift", "depfix/ops.py:_plus"}
        # ops.py reads SCALE from constants.py: its module-level code is a dependency
        assert set(r[("scale", path)]["deps"]["modules"]) == {"depfix/ops.py", "depfix/constants.py"}


def test_functions_entered_only_under_capture(depfix_run):
    r = depfix_run["records"]
    # is_compiling() is True under torch.compile and torch.export: both capture it
    for path in PATHS:
        assert "depfix/capture.py:only_captured" in functions(r[("double", path)])
    # only Dynamo traces only_dynamo (the profiler never sees it run); only export runs only_exported
    assert functions(r[("double_by_path", "compile")]) == {
        "depfix/capture.py:double_by_path", "depfix/capture.py:only_dynamo"}
    assert functions(r[("double_by_path", "export")]) == {
        "depfix/capture.py:double_by_path", "depfix/capture.py:only_exported"}


def test_a_cache_filled_by_an_earlier_job_keeps_its_filler(depfix_run):
    # cached_second runs after cached_first filled the module's cache: it never calls _build,
    # yet its result depends on it
    for path in PATHS:
        assert "depfix/cached.py:_build" in functions(depfix_run["records"][("cached_second", path)])


def test_a_table_built_at_import_keeps_its_builder(depfix_run):
    for path in PATHS:
        assert "depfix/import_time.py:make_table" in functions(depfix_run["records"][("lookup", path)])


def test_a_lazy_targets_construction_counts_for_every_job_of_its_case(depfix_run):
    # the first job (export) built the Scaler; the compile job reused it and still depends on
    # its __init__ and the helper __init__ called
    for path in PATHS:
        assert functions(depfix_run["records"][("lazy_scaler", path)]) == {
            "depfix/modules.py:Scaler.__init__", "depfix/modules.py:_make_factor", "depfix/modules.py:Scaler.forward"}


def test_a_skipped_case_depends_on_nothing(depfix_run):
    for path in PATHS:
        assert depfix_run["records"][("skipped", path)]["deps"] == {"functions": {}, "modules": {}}


@pytest.fixture(scope="module")
def state_run(tmp_path_factory):
    return run_registry(STATE_REGISTRY, str(tmp_path_factory.mktemp("deps-state") / "worker.log"))


FILLER = {"depfix/filled.py:fill_and_scale", "depfix/filled.py:_compute"}


def test_a_filled_cache_is_a_dependency_of_its_readers_only(state_run):
    r = state_run["records"]
    for path in PATHS:
        assert r[("fill", path)]["status"] == "ok"
        assert FILLER <= functions(r[("fill", path)])
        # near.py imports filled.py (it is in near's import closure) and never reads its cache
        assert functions(r[("near", path)]) == {"depfix/near.py:near_op"}, path
        # by attribute (filled._TABLES) and under another name (from filled import _TABLES as T)
        assert functions(r[("attr", path)]) == {"depfix/attr.py:via_attr", *FILLER}, path
        assert functions(r[("alias", path)]) == {"depfix/alias.py:via_alias", *FILLER}, path


def test_a_module_first_imported_by_a_job_keeps_what_its_import_ran(state_run):
    r = state_run["records"]
    for path in PATHS:
        # the import ran build(): the importing job and a later reader depend on it, and on
        # nothing else the importing job ran (ops._plus is use_late's own, not the module's)
        assert functions(r[("late_first", path)]) == {
            "depfix/lazyuse.py:use_late", "depfix/ops.py:_plus", "depfix/late_table.py:build"}, path
        assert functions(r[("late_again", path)]) == {
            "depfix/lazyuse.py:late_again", "depfix/late_table.py:build"}, path
        # registering.py's import wrote filled._TABLES["registered"]: a later reader of the cache
        # depends on what that import ran
        assert functions(r[("register_late", path)]) == {
            "depfix/lazyuse.py:register_late", "depfix/registering.py:_reg_value"}, path
        assert "depfix/registering.py:_reg_value" in functions(r[("attr_late", path)]), path


def test_the_state_of_a_module_is_taken_per_name():
    mod = type(sys)("fake_state_module")
    mod.CACHE = {}
    mod.LIMIT = 3

    class Box:
        memo: dict = {}

    Box.__module__ = mod.__name__
    mod.Box = Box
    before = deps.state_parts(mod)
    mod.CACHE["k"] = 1.0  # a container's members
    Box.memo["k"] = 2.0  # a class attribute's members
    after = deps.state_parts(mod)
    assert {k for k in {*before, *after} if before.get(k) != after.get(k)} == {("CACHE",), ("Box", "memo")}


def test_spelled_names_cover_attributes_globals_and_getattr_strings():
    def reader(m):
        return m._CACHE, GLOBAL_NAME, getattr(m, "memo_by_string")  # noqa: F821

    names = deps.index.spelled_names([reader.__code__])
    assert {"_CACHE", "GLOBAL_NAME", "memo_by_string", "getattr"} <= names


# ---------------------------------------------------------------------------------------------
# Soundness: which stored records an edit makes stale


def stale(records: dict[Any, dict[str, Any]], index: dict[str, Any]) -> set[tuple[str, str]]:
    """The engine's currency rule: a record is stale when a dep is missing or changed."""
    out = set()
    for key, record in records.items():
        d = record["deps"]
        if d is None:
            out.add(key)
            continue
        if any(index["functions"].get(n) != v for n, v in d["functions"].items()) or any(
            index["modules"].get(n) != v for n, v in d["modules"].items()
        ):
            out.add(key)
    return out


def copy_and_run(root: Any, registry: str) -> dict[str, Any]:
    """A run over a copy of depfix and ``registry`` (the copy is what gets edited)."""
    shutil.copytree(os.path.join(FIXTURES, "depfix"), root / "depfix",
                    ignore=shutil.ignore_patterns("__pycache__"))
    copied = root / os.path.basename(registry)
    shutil.copy(registry, copied)
    run = run_registry(str(copied), str(root / "worker.log"))
    return {"root": str(root), **run}


@pytest.fixture(scope="module")
def copied_run(tmp_path_factory):
    return copy_and_run(tmp_path_factory.mktemp("depfix-copy"), DEPS_REGISTRY)


@pytest.fixture(scope="module")
def copied_state_run(tmp_path_factory):
    return copy_and_run(tmp_path_factory.mktemp("depfix-state-copy"), STATE_REGISTRY)


def current_index(root: str) -> dict[str, Any]:
    lib = Library(name="depfix", version="", root=os.path.join(root, "depfix"), is_package=True)
    return deps.LibraryIndex.build(lib).message()


EDITS = [
    # (file, old, new, the jobs that must be re-probed)
    ("ops.py", "return x + value", "return x + value + 0.0",
     {(c, p) for c in ("shift", "both") for p in PATHS}),
    ("capture.py", "def only_dynamo(x: torch.Tensor) -> torch.Tensor:\n    return x * 2.0",
     "def only_dynamo(x: torch.Tensor) -> torch.Tensor:\n    return x * 2.0 + 0.0",
     {("double_by_path", "compile")}),
    ("capture.py", "def only_captured(x: torch.Tensor) -> torch.Tensor:\n    return x * 2.0",
     "def only_captured(x: torch.Tensor) -> torch.Tensor:\n    return x + x",
     {("double", p) for p in PATHS}),
    ("constants.py", "SCALE = 2.0", "SCALE = 3.0",
     {(c, p) for c in ("scale", "shift", "both") for p in PATHS}),
    ("cached.py", "return 4.0", "return 5.0",
     {(c, p) for c in ("cached_first", "cached_second") for p in PATHS}),
    ("import_time.py", "return [1.0, 5.0, 7.0]", "return [1.0, 6.0, 7.0]",
     {("lookup", p) for p in PATHS}),
    ("modules.py", "return 3.0", "return 3.5",
     {("lazy_scaler", p) for p in PATHS}),
    ("unrelated.py", "return x", "return x + 1", set()),
    # a comment, a blank line: the same tokens, nothing to re-probe
    ("ops.py", "return x + value", "# add\n\n    return x + value  # the sum", set()),
    ("import_time.py", "return [1.0, 5.0, 7.0]", "return [1.0,\n            5.0, 7.0]  # re-wrapped", set()),
]


@pytest.mark.parametrize("file, old, new, want", EDITS, ids=[f"{e[0]}:{e[1][:24]}" for e in EDITS])
def test_an_edit_makes_stale_exactly_the_jobs_that_ran_it(copied_run, file, old, new, want):
    path = os.path.join(copied_run["root"], "depfix", file)
    with open(path, encoding="utf-8") as f:
        original = f.read()
    assert stale(copied_run["records"], current_index(copied_run["root"])) == set()
    try:
        edit(path, old, new)
        assert stale(copied_run["records"], current_index(copied_run["root"])) == want
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)


STATE_EDITS = [
    # the cache's filler: the filling case and the two that read the cache, not near (an importer)
    ("filled.py", "return 2.0", "return 2.5",
     {(c, p) for c in ("fill", "alias", "attr", "attr_late") for p in PATHS}),
    # the module-level code of filled.py: every case whose import closure holds it
    ("filled.py", "_TABLES: dict = {}", "_TABLES: dict = {'k': 1.5}",
     {(c, p) for c in ("fill", "near", "alias", "attr", "attr_late", "register_late") for p in PATHS}),
    ("near.py", "return x - 1.0", "return x - 2.0", {("near", p) for p in PATHS}),
    # what a job's first import of late_table ran: both cases that read LATE
    ("late_table.py", "return [3.0]", "return [4.0]", {(c, p) for c in ("late_first", "late_again") for p in PATHS}),
    # what registering.py's import wrote into filled's cache: its importer and the later reader
    ("registering.py", "return 0.5", "return 0.25", {(c, p) for c in ("register_late", "attr_late") for p in PATHS}),
    # ops._plus ran in late_first's job only (not at late_table's import)
    ("ops.py", "return x + value", "return x + value + 0.0", {("late_first", p) for p in PATHS}),
]


@pytest.mark.parametrize("file, old, new, want", STATE_EDITS, ids=[f"{e[0]}:{e[1][:24]}" for e in STATE_EDITS])
def test_an_edit_of_module_state_makes_stale_exactly_its_readers(copied_state_run, file, old, new, want):
    test_an_edit_makes_stale_exactly_the_jobs_that_ran_it(copied_state_run, file, old, new, want)


def test_a_new_file_makes_nothing_stale(copied_run):
    path = os.path.join(copied_run["root"], "depfix", "brand_new.py")
    try:
        with open(path, "w") as f:
            f.write("def f(x):\n    return x\n")
        index = current_index(copied_run["root"])
        assert "depfix/brand_new.py" in index["modules"]
        assert stale(copied_run["records"], index) == set()
    finally:
        os.unlink(path)


def test_deps_are_part_of_the_record_text(copied_run):
    # the record goes to the database verbatim: deps must be plain JSON without absolute paths
    for record in copied_run["records"].values():
        text = json.dumps(record["deps"])
        assert copied_run["root"] not in text and "/root/" not in text


def test_a_code_object_that_cannot_be_hashed_is_recorded_by_where_it_is(tmp_path):
    # Dynamo runs code whose constants hold a dict; hashing a code object hashes its constants, and
    # recording one failed whole compile jobs ("unhashable type: 'dict'", RandomRain, JigsawGenerator)
    from opsweep.deps.recorder import CodeRef, _add_code

    lib = write_library(str(tmp_path), {"mod.py": MOD, "consts.py": "K = 1\n"})
    index = deps.LibraryIndex.build(lib)
    path = os.path.join(lib.root, "mod.py")
    with open(path, encoding="utf-8") as f:
        module_code = compile(f.read(), path, "exec")
    real = next(c for c in module_code.co_consts if getattr(c, "co_name", "") == "plain")
    odd = real.replace(co_consts=(*real.co_consts, {"a": 1}))
    with pytest.raises(TypeError):
        hash(odd)
    codes: set = set()
    _add_code(codes, odd)
    _add_code(codes, real)
    (ref,) = [c for c in codes if isinstance(c, CodeRef)]
    assert index.locate(ref) == index.locate(real) != (None, None)


# ---------------------------------------------------------------------------------------------
# The two recording mechanisms (deps/native.py): the frame hook, and cProfile where it cannot be built


@pytest.fixture(scope="module")
def depfix_cprofile_run(tmp_path_factory):
    return run_registry(DEPS_REGISTRY, str(tmp_path_factory.mktemp("deps-cprofile") / "worker.log"),
                        extra_env={"OPSWEEP_RECORDER": "cprofile"})


def run_probe(script: Any) -> list[str]:
    """Run a probe script in a fresh interpreter with this checkout's harness and the default
    recorder; its last line's fields, split on '|'."""
    env = {k: v for k, v in os.environ.items() if k != "OPSWEEP_RECORDER"}
    env["PYTHONPATH"] = PYTHON_DIR
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return [p.strip() for p in out.stdout.strip().splitlines()[-1].split("|")]


def test_the_worker_records_with_the_frame_hook(depfix_run):
    assert "recorder: frame hook (PEP 523)" in depfix_run["log"]


def test_both_mechanisms_record_the_same_deps_and_sources(depfix_run, depfix_cprofile_run):
    assert "recorder: cProfile (OPSWEEP_RECORDER=cprofile)" in depfix_cprofile_run["log"]
    hook, profiled = depfix_run["records"], depfix_cprofile_run["records"]
    assert set(hook) == set(profiled)
    for key in hook:
        assert hook[key]["deps"] == profiled[key]["deps"], key
        assert hook[key]["sources"] == profiled[key]["sources"], key
        assert (hook[key]["status"], hook[key]["step"]) == (profiled[key]["status"], profiled[key]["step"]), key


def test_the_hook_records_library_code_run_eagerly_at_a_graph_break_and_is_given_back(tmp_path):
    # Dynamo installs its own frame function while a compiled function runs and hands the frames it
    # does not compile to the one before it: code run at a graph break must reach the hook, and the
    # hook must be the interpreter's frame function again once the compiled call returns.
    lib = tmp_path / "breaklib"
    lib.mkdir()
    (lib / "__init__.py").write_text(
        "import torch\n\n"
        "def eager_only(x):\n    return x + 1\n\n"
        "def outer(x):\n    y = x * 2\n    torch._dynamo.graph_break()\n    return torch._dynamo.disable(eager_only)(y)\n"
    )
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, torch\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import breaklib\n"
        "from opsweep.deps import native\n"
        "from opsweep.deps.recorder import Recorder, record_only\n"
        f"record_only(lambda f: f.startswith({str(lib)!r}))\n"
        "compiled = torch.compile(breaklib.outer, backend='eager')\n"
        "r = Recorder()\n"
        "with r:\n"
        "    compiled(torch.ones(3))\n"
        "    inside = native.frames().is_installed()\n"
        "print(native.mechanism(), '|', r.problem, '|', inside, '|', native.frames().is_installed(), '|',\n"
        "      ' '.join(sorted(c.co_name for c in r.all_codes())))\n"
    )
    mechanism, problem, inside, after, names = run_probe(script)
    assert mechanism == "frame hook (PEP 523)"
    assert problem == ""
    assert inside == "True" and after == "False"  # ours during the window, the default after it
    assert "eager_only" in names.split() and "outer" in names.split()


def test_a_frame_function_that_does_not_hand_frames_on_is_a_problem_and_the_next_window_falls_back(tmp_path):
    # Something replaces the hook mid-window with the interpreter's default (which calls no one):
    # frames after that are not seen, so the window's recording cannot be trusted; the next window
    # cannot chain to a hook nobody calls, and records with cProfile instead.
    script = tmp_path / "probe.py"
    script.write_text(
        "import ctypes, sys\n"
        "from opsweep.deps import native\n"
        "from opsweep.deps.recorder import Recorder\n"
        "api = ctypes.pythonapi\n"
        "api.PyInterpreterState_Get.restype = ctypes.c_void_p\n"
        "api._PyInterpreterState_SetEvalFrameFunc.argtypes = [ctypes.c_void_p, ctypes.c_void_p]\n"
        "default = ctypes.cast(api._PyEval_EvalFrameDefault, ctypes.c_void_p)\n"
        "first = Recorder()\n"
        "with first:\n"
        "    api._PyInterpreterState_SetEvalFrameFunc(api.PyInterpreterState_Get(), default)\n"
        "second = Recorder()\n"
        "with second:\n"
        "    window = second._window\n"
        "print(native.mechanism(), '|', first.problem, '|', window, '|', second.problem)\n"
    )
    mechanism, first, window, second = run_probe(script)
    assert mechanism == "frame hook (PEP 523)"
    assert first == "the job replaced the frame-evaluation hook that records the code it runs"
    assert window == "cprofile" and second == ""


@pytest.mark.parametrize("compiler, want", [
    ("", "frame hook (PEP 523)"),
    ("false", "cProfile (the C compiler failed: no message)"),
])
def test_the_hook_is_built_on_first_use_or_the_recorder_falls_back(tmp_path, compiler, want):
    # a fresh cache folder: the hook is compiled there (or the compiler's failure names the fallback)
    env = {k: v for k, v in os.environ.items() if k not in ("OPSWEEP_RECORDER", "CC")}
    env.update({"PYTHONPATH": PYTHON_DIR, "OPSWEEP_NATIVE_DIR": str(tmp_path / "native")})
    if compiler:
        env["CC"] = compiler
    out = subprocess.run([sys.executable, "-c", "from opsweep.deps import native; print(native.mechanism())"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == want
    built = [p.name for p in (tmp_path / "native").iterdir()] if (tmp_path / "native").exists() else []
    assert (len(built) == 1 and built[0].startswith("_opsweep_frames-")) if not compiler else built == []
