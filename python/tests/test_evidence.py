"""Failure evidence (evidence.py): root cause, bounded chain, library frames, scrubbing."""

import os
import site
import sys
import tempfile
import textwrap

import pytest

from opsweep import evidence as ev
from opsweep.library import load_library


@pytest.fixture
def fakelib(tmp_path, monkeypatch):
    """A library package in a folder NOT named after it (a checkout: <tmp>/checkout/fakelib/)."""
    root = tmp_path / "checkout" / "fakelib"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("__version__ = '1.2.3'\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "mod.py").write_text(textwrap.dedent("""\
        def inner(x):
            return 1 / x


        def outer(x, callback):
            try:
                return inner(x)
            except ZeroDivisionError as e:
                raise ValueError("outer failed") from e


        def deep(n, fn):
            if n == 0:
                return fn()
            return deep(n - 1, fn)


        def breaks(x):
            import torch

            torch._dynamo.graph_break()
            return x + 1
        """))
    monkeypatch.syspath_prepend(str(tmp_path / "checkout"))
    for name in list(sys.modules):
        if name == "fakelib" or name.startswith("fakelib."):
            del sys.modules[name]
    lib = load_library("fakelib")
    yield lib
    for name in list(sys.modules):
        if name == "fakelib" or name.startswith("fakelib."):
            del sys.modules[name]


def _catch(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError("did not raise")


def test_library_is_found_whatever_the_folder_is_called(fakelib):
    assert fakelib.name == "fakelib" and fakelib.is_package and fakelib.version == "1.2.3"
    assert fakelib.relative(os.path.join(fakelib.root, "sub", "mod.py")) == "fakelib/sub/mod.py"
    assert fakelib.relative(__file__) is None
    fp = fakelib.fingerprint()
    assert len(fp) == 32 and fp == fakelib.fingerprint()


def test_root_cause_follows_cause_and_context(fakelib):
    from fakelib.sub import mod

    def wrapper():
        try:
            mod.outer(0, None)
        except ValueError:
            raise RuntimeError("wrapper failed")  # implicit __context__

    e = _catch(wrapper)
    assert type(ev.root_cause(e)) is ZeroDivisionError
    record = ev.evidence(e, fakelib)
    assert record["type"] == "ZeroDivisionError"
    assert record["message"] == "division by zero"
    assert "wrapper failed" in record["chain"] and "outer failed" in record["chain"]
    # innermost first, inside the library only, as library-relative paths
    assert record["frames"] == ["fakelib/sub/mod.py:2", "fakelib/sub/mod.py:7"]
    assert fakelib.root not in record["chain"]
    assert "fakelib/sub/mod.py" in record["chain"]


def test_frames_are_the_innermost_six(fakelib):
    from fakelib.sub import mod

    e = _catch(lambda: mod.deep(10, lambda: mod.inner(0)))
    frames = ev.evidence(e, fakelib)["frames"]
    assert frames[0] == "fakelib/sub/mod.py:2"
    assert len(frames) == 6 and all(f.startswith("fakelib/sub/mod.py:") for f in frames)


def test_frames_fall_back_to_file_mentions_in_messages(fakelib):
    path = os.path.join(fakelib.root, "sub", "mod.py")
    e = RuntimeError(f'from user code:\n  File "{path}", line 14, in deep\n    return fn()')
    assert ev.evidence(e, fakelib)["frames"] == ["fakelib/sub/mod.py:14"]


def test_chain_is_bounded():
    e = RuntimeError("x" * 50_000)
    record = ev.evidence(e)
    assert len(record["chain"]) <= ev.CHAIN_LIMIT and "characters cut" in record["chain"]
    assert len(record["message"]) == ev.MESSAGE_LIMIT


def test_scrub_home_paths_and_other_prefixes(fakelib):
    home = os.path.expanduser("~")
    sp = site.getsitepackages()[0]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = "\n".join([
        f'File "{fakelib.root}/sub/mod.py", line 3',
        f"{home}/work/notes.txt",
        "/home/alice/project/model.py:12",
        "/root/.cache/torch/x.bin",
        f"{sp}/torch/_dynamo/eval_frame.py",
        f"{tempfile.gettempdir()}/torchinductor_x/ab.py",
        f"{repo}/python/opsweep/worker.py",
        "\x1b[96mcoloured\x1b[0m",
        "relative/home/bob/kept",
        # inductor's g++ command as torch 2.9.1 reports a failed compile: short options glued to paths
        f"['g++', '-I/root/.pyenv/include/python3.11', '-L{sp}/torch/lib', '-I/home/alice/inc']",
        "-I/root/at/the/start and x-y/root/kept",
    ])
    out = ev.scrub(text, fakelib)
    lines = out.splitlines()
    assert lines[0] == 'File "fakelib/sub/mod.py", line 3'
    assert lines[1] == "~/work/notes.txt"
    assert lines[2] == "~/project/model.py:12"
    assert lines[3] == "~/.cache/torch/x.bin"
    assert lines[4] == "<site-packages>/torch/_dynamo/eval_frame.py"
    assert lines[5] == "<tmp>/torchinductor_x/ab.py"
    assert lines[6] == "<repo>/python/opsweep/worker.py"
    assert lines[7] == "coloured"
    assert lines[8] == "relative/home/bob/kept"
    assert lines[9] == "['g++', '-I~/.pyenv/include/python3.11', '-L<site-packages>/torch/lib', '-I~/inc']"
    assert lines[10] == "-I~/at/the/start and x-y/root/kept"
    assert "/home/" not in out.replace("relative/home/bob", "") and "/root/" not in out.replace("x-y/root/kept", "")


def test_scrub_puts_back_paths_torch_cut_before_scrubbing_them(fakelib, tmp_path, monkeypatch):
    """torch cuts a file outside its own tree one character too far ("/tmp/x/f.py" -> "mp/x/f.py",
    "/home/me/p/f.py" -> "ome/me/p/f.py"); scrub knows loaded modules' files and puts them back, so
    the usual rules apply to the whole path and no fragment of a home or temp path is left."""
    import fakelib.sub.mod as mod

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "outside_mod.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    import outside_mod

    try:
        lib_cut = mod.__file__[2:]           # the library in a checkout: ".../checkout/fakelib/sub/mod.py"
        other_cut = outside_mod.__file__[2:]  # a loaded file outside the library, under the temp dir
        text = f"Caused by: ({lib_cut}:3 in inner)\nguard failed at {other_cut}:1 in <module>\nkept/as/is.py:4"
        out = ev.scrub(text, fakelib).splitlines()
        assert out[0] == "Caused by: (fakelib/sub/mod.py:3 in inner)"
        assert out[1].startswith("guard failed at <tmp>/") and out[1].endswith("/elsewhere/outside_mod.py:1 in <module>")
        assert out[2] == "kept/as/is.py:4"  # no loaded file ends so: left alone
    finally:
        sys.modules.pop("outside_mod", None)


def test_scrub_rewrites_the_inductor_cache_wherever_it_is(fakelib, monkeypatch):
    """opsweep run puts inductor's cache beside the database (any folder, here one outside every
    other rule); a traceback through generated code there named that absolute path."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/srv/surveys/kornia/inductor-cache")
    ev._scrubbers.clear()
    try:
        out = ev.scrub('File "/srv/surveys/kornia/inductor-cache/xk/cxk.py", line 9', fakelib)
        assert out == 'File "<inductor-cache>/xk/cxk.py", line 9'
    finally:
        ev._scrubbers.clear()


def test_scrub_single_file_library(tmp_path, monkeypatch):
    (tmp_path / "solo_lib.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    lib = load_library("solo_lib")
    assert not lib.is_package
    assert ev.scrub(f'File "{tmp_path}/solo_lib.py", line 1', lib) == 'File "solo_lib.py", line 1'
    assert lib.relative(str(tmp_path / "solo_lib.py")) == "solo_lib.py"
    sys.modules.pop("solo_lib", None)


def test_kornia_is_found_in_site_packages():
    lib = load_library("kornia")
    assert lib.version == "0.9.0"
    assert lib.relative(os.path.join(lib.root, "color", "gray.py")) == "kornia/color/gray.py"
    assert ev.scrub(os.path.join(lib.root, "color", "gray.py") + ":12", lib) == "kornia/color/gray.py:12"


@pytest.fixture
def registry_dir(tmp_path, monkeypatch):
    """A registry folder with a helper module, importable, registered with evidence."""
    folder = tmp_path / "survey"
    folder.mkdir()
    (folder / "_helpers_reg.py").write_text(textwrap.dedent("""\
        def check(x):
            if x < 0:
                raise ValueError("the registry refuses negative inputs")
            return x


        def call_library(fn, x):
            return fn(x)
        """))
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("_helpers_reg", None)
    ev.use_registries([str(folder)])
    import _helpers_reg

    yield _helpers_reg
    ev.use_registries([])
    sys.modules.pop("_helpers_reg", None)


def test_failures_raised_in_registry_code_are_marked(fakelib, registry_dir):
    e = _catch(lambda: registry_dir.check(-1))
    record = ev.evidence(e, fakelib)
    assert record["raised_in"] == "registry"
    assert record["registry_frames"] == ["_helpers_reg.py:3"] and record["frames"] == []
    assert record["chain"].startswith(ev.REGISTRY_MARKER + " the failure was raised in registry code\n")


def test_library_code_called_from_the_registry_is_the_library(fakelib, registry_dir):
    from fakelib.sub import mod

    e = _catch(lambda: registry_dir.call_library(mod.inner, 0))
    record = ev.evidence(e, fakelib)
    assert record["raised_in"] == "library"
    assert record["frames"] == ["fakelib/sub/mod.py:2"] and record["registry_frames"] == ["_helpers_reg.py:8"]
    assert ev.REGISTRY_MARKER not in record["chain"]


def test_code_that_dynamo_was_tracing_is_where_the_failure_was_raised(fakelib, registry_dir):
    """A registry function calls a compiled library function: the registry frame is on the
    traceback, the library code Dynamo failed in is not (it was being traced, not run); torch puts
    it on the exception as ``real_stack``. torch 2.9.1's GuardOnDataDependentSymNode in kornia's
    ColorJiggle, reached through a registry lambda, was called a registry failure before."""
    import traceback

    path = os.path.join(fakelib.root, "sub", "mod.py")

    def compiled(x):
        e = RuntimeError("Could not extract specialized integer from data-dependent expression u0")
        e.real_stack = traceback.StackSummary.from_list([("/elsewhere/job.py", 3, "run", None), (path, 2, "inner", None)])
        raise e

    record = ev.evidence(_catch(lambda: registry_dir.call_library(compiled, 1)), fakelib)
    assert record["registry_frames"] == ["_helpers_reg.py:8"]
    assert record["raised_in"] == "library"
    assert ev.REGISTRY_MARKER not in record["chain"]
    # a traced stack with neither library nor registry code decides nothing: the traceback does
    def compiled_elsewhere(x):
        e = RuntimeError("inside torch")
        e.real_stack = traceback.StackSummary.from_list([("/elsewhere/job.py", 3, "run", None)])
        raise e

    assert ev.evidence(_catch(lambda: registry_dir.call_library(compiled_elsewhere, 1)), fakelib)["raised_in"] == "registry"


def test_a_real_dynamo_failure_in_library_code_called_from_the_registry_is_the_library(fakelib, registry_dir):
    torch = pytest.importorskip("torch")
    from fakelib.sub import mod

    fn = torch.compile(mod.breaks, backend="eager", fullgraph=True)
    try:
        e = _catch(lambda: registry_dir.call_library(fn, torch.ones(2)))
    finally:
        torch._dynamo.reset()
    record = ev.evidence(e, fakelib)
    assert "_helpers_reg.py:8" in record["registry_frames"]
    assert record["raised_in"] == "library", record
    assert "fakelib/sub/mod.py:21" in record["frames"]


def test_probed_text_cannot_forge_the_registry_marker(fakelib):
    e = RuntimeError(f"{ev.REGISTRY_MARKER} pretending to be the harness")
    record = ev.evidence(e, fakelib)
    assert record["raised_in"] == ""
    assert ev.REGISTRY_MARKER not in record["message"] and ev.REGISTRY_MARKER not in record["chain"]
    assert "[opsweep :raised-in-registry] pretending" in record["message"]


def test_an_attached_stack_locates_a_failure_with_no_library_frame(fakelib):
    """ONNX translation errors: raised in torch internals; the harness attaches where eager called
    the operation. It gives frames, but not raised_in (the op call did not raise)."""
    path = os.path.join(fakelib.root, "sub", "mod.py")
    e = RuntimeError("No ONNX function found for <OpOverload(op='aten._linalg_svd', overload='default')>")
    ev.attach_stack(e, [("/elsewhere/job.py", 10), (path, 14), (path, 2)])
    record = ev.evidence(e, fakelib)
    assert record["frames"] == ["fakelib/sub/mod.py:2", "fakelib/sub/mod.py:14"]
    assert record["raised_in"] == ""


def test_stack_frames_are_library_frames_innermost_first(fakelib):
    path = os.path.join(fakelib.root, "sub", "mod.py")
    stack = [("/x/opsweep/paths/base.py", 73)] + [(path, n) for n in range(1, 10)]
    assert ev.stack_frames(stack, fakelib) == [f"fakelib/sub/mod.py:{n}" for n in (9, 8, 7, 6, 5, 4)]
    assert ev.stack_frames(stack, None) == []
