"""Reproducers: one job of one case as a standalone script, for an upstream bug report.

``write_repro(case, path, out_dir)`` writes into ``out_dir``:

* ``repro.py``: a script that needs only torch, the surveyed library and the path's exporter or
  runtime (onnx, onnxscript, onnxruntime for the ONNX path), never opsweep. It prints the versions,
  builds the call the way the harness does (the target, its method, its baked keyword arguments),
  computes the eager reference (seed 0, no_grad), then runs the capture call of the path exactly as
  the probe does (``torch.onnx.export(dynamo=True, opset_version=18)`` + ``onnx.checker`` +
  onnxruntime; ``torch.export.export(strict=False)`` and a run of the program; ``torch._dynamo.explain``
  + ``torch.compile(backend="inductor")``), and reports what fails: the exception (type, message,
  traceback), the comparison that differs (output, max abs diff, elements off, with the case's
  atol / rtol), or the graph breaks and their reasons. Like the survey, it then runs the capture on
  the case's fresh input set and compares it with eager there, so a failure that shows on fresh
  inputs only (a baked-in threshold, size or branch) reproduces too. The last line starts with
  ``opsweep-repro:``; the exit status is 1 when a failure shows, 0 when everything matches.
* ``inputs.pt``: the case's input tensors, its fresh input set (the one the survey checks
  captures on, ``draw_fresh_inputs``; none when the case has none) and baked keyword arguments
  (``torch.save``).
* ``target.pt``: the target object, when it is not a function the script can import.
* ``model.onnx`` (ONNX path): the file the export gave when the repro was written, if it exported.

The script rebuilds the target without opsweep: an importable function or class is imported by
its module and qualified name; a registry wrapper that only forwards to an importable function
(``Positional``, ``ByName`` of the bundled registries) is unwrapped; any other object is pickled
into ``target.pt``: with pickle when every class and function in it is importable without opsweep,
else (a wrapper class of a registry, a lambda written in one) with cloudpickle, which carries their
code by value; the script then needs cloudpickle too and says so. Only an object neither can save
raises ``ReproError`` that says so.

``python -m opsweep.repro --registry FILE ... --case NAME --path P -o DIR`` prints one JSON object
(``{"files": [...], "run": "python repro.py"}`` or ``{"error": ...}`` with exit 2); the
``opsweep repro`` verb wraps it.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import json
import os
import pickletools
import sys
import textwrap
from typing import Any

from opsweep.case import Case, RegistryError, materialize
from opsweep.compare import moved_rows, one_to_one

# The paths a reproducer can be written for: those that declare it (PathSpec.reproducible), each
# with its template in _PATHS (python/tests/test_repro.py holds the two lists equal).
DYNAMIC_PATH_IDS = ("export-dynamic", "onnx-dynamic", "compile-dynamic")
PATH_IDS = ("onnx", "export", "compile", *DYNAMIC_PATH_IDS)


class ReproError(Exception):
    """The case cannot be written as a standalone script; the message says why."""


# ---------------------------------------------------------------------------------------------
# How the script rebuilds the target


def _importable(obj: Any) -> tuple[str, str] | None:
    """(module, qualname) when ``obj`` is reachable by importing module and walking qualname."""
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qual, str) or "<" in qual or module.startswith("opsweep"):
        return None
    try:
        found: Any = importlib.import_module(module)
        for part in qual.split("."):
            found = getattr(found, part)
    except Exception:  # noqa: BLE001
        return None
    raw = inspect.unwrap(found) if callable(found) else found
    return (module, qual) if found is obj or raw is obj or getattr(found, "__func__", None) is obj else None


def _opsweep_globals(data: bytes) -> list[str]:
    """The modules a pickle refers to that a script without opsweep could not import."""
    bad: list[str] = []
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
            strings.append(str(arg))
        if op.name == "GLOBAL":
            module = str(arg).split(" ", 1)[0]
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            module = strings[-2]
        else:
            continue
        if module.startswith("opsweep") or module == "__main__":
            bad.append(module)
    return sorted(set(bad))


def _saved(obj: Any, pickle_module: Any) -> tuple[bytes, list[str]]:
    """``torch.save(obj)`` with ``pickle_module``, and the modules its pickle names that a script
    without opsweep could not import."""
    import zipfile

    import torch

    buf = io.BytesIO()
    torch.save(obj, buf, pickle_module=pickle_module)
    data = buf.getvalue()
    # torch.save writes a zip whose data.pkl is the pickle; read its globals
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        pkl = next(n for n in z.namelist() if n.endswith("data.pkl"))
        return data, _opsweep_globals(z.read(pkl))


def _by_value_modules() -> list[str]:
    """The loaded modules whose code a by-value pickle carries: opsweep's own and the registries
    (bundled ones are ``opsweep.registries...``, a loose file ``opsweep_registry_<stem>_<digest>``),
    which hold the wrappers and the lambdas written in them."""
    return sorted(name for name, m in list(sys.modules.items()) if m is not None and name.startswith("opsweep"))


def _pickled(obj: Any, what: str) -> tuple[bytes, bool]:
    """The object saved for the script, and whether it needs cloudpickle to load: a plain pickle
    when every class and function in it is importable without opsweep; otherwise (a registry's
    wrapper, a lambda written in a registry) cloudpickle carries their code by value."""
    import pickle

    try:
        data, bad = _saved(obj, pickle)
        if not bad:
            return data, False
        first: str = f"refers to {', '.join(bad)}"
    except Exception as e:  # noqa: BLE001 - a lambda or a local class: by value below
        first = f"{type(e).__name__}: {e}"
    try:
        import cloudpickle
    except ImportError:
        raise ReproError(f"{what} cannot be saved for a standalone script ({first}; "
                         "cloudpickle, which carries such code by value, is not installed)") from None
    registered = []
    try:
        for name in _by_value_modules():
            try:
                cloudpickle.register_pickle_by_value(sys.modules[name])
                registered.append(name)
            except (ValueError, TypeError):  # not a module cloudpickle can carry
                pass
        data, bad = _saved(obj, cloudpickle)
    except Exception as e:  # noqa: BLE001
        raise ReproError(f"{what} cannot be saved for a standalone script ({type(e).__name__}: {e})") from None
    finally:
        for name in registered:
            try:
                cloudpickle.unregister_pickle_by_value(sys.modules[name])
            except (ValueError, KeyError):
                pass
    if bad:
        raise ReproError(f"{what} refers to {', '.join(bad)}, which a script without opsweep cannot import")
    return data, True


def _wrapper_call(target: Any) -> tuple[Any, str] | None:
    """(function, call template) for registry wrappers that only forward to an importable function."""
    name = type(target).__name__
    fn = getattr(target, "fn", None)
    if fn is None or _importable(fn) is None or not type(target).__module__.startswith("opsweep"):
        return None
    if name == "Positional":
        return fn, "fn(*xs, **fixed, **kwargs)"
    if name == "ByName":
        return fn, "fn(**dict(zip(names, xs)), **fixed, **kwargs)"
    return None


def _library_name(case: Case) -> str:
    """The top-level package of the surveyed code: the target's, or for a registry's wrapper the
    package of what it surveys (``__opsweep_target__``)."""
    for obj in (case.target, getattr(case.target, "__opsweep_target__", None)):
        top = (getattr(obj, "__module__", "") or "").split(".", 1)[0]
        if top and top != "opsweep":
            return top
    return "the library"


def _target_plan(case: Case) -> dict[str, Any]:
    """What the script does to get the callable: import, unwrap or unpickle."""
    target = case.target
    where = _importable(target)
    if where is not None:
        return {"kind": "import", "module": where[0], "qualname": where[1]}
    wrapped = _wrapper_call(target)
    if wrapped is not None:
        fn, template = wrapped
        module, qual = _importable(fn)
        fixed = dict(getattr(target, "fixed", {}))
        data, by_value = _pickled(fixed, "the wrapper's fixed arguments")
        return {"kind": "wrapper", "module": module, "qualname": qual, "template": template,
                "names": list(getattr(target, "names", ())), "fixed": data, "by_value": by_value}
    data, by_value = _pickled(target, f"the target of case {case.name!r} ({type(target).__qualname__})")
    return {"kind": "pickle", "data": data, "by_value": by_value}


# ---------------------------------------------------------------------------------------------
# The script

_HEADER = '''\
"""Reproducer: case {case!r} through the {path} path.

Written by opsweep {tool}; it needs only torch, {library}{extra}{by_value_need} (not opsweep). Run it
from this folder: python repro.py. Exit status 1: the failure shows; 0: everything matches eager.
"""
import copy
import dataclasses
import os
import platform
import sys
import traceback
import types

import torch
{by_value_import}
HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
CASE, PATH = {case!r}, {path!r}
ATOL, RTOL, CHECK = {atol!r}, {rtol!r}, {check!r}


def seed_all(n):
    """Seed torch, numpy and Python's random together, as opsweep does before every call."""
    import random

    torch.manual_seed(n)
    random.seed(n)
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(n)


def versions():
    import importlib.metadata as md

    out = {{"python": platform.python_version(), "torch": torch.__version__}}
    for dist in {dists!r}:
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            try:
                out[dist] = str(getattr(__import__(dist), "__version__", "unknown"))
            except ImportError:
                out[dist] = "not installed"
    return out


def flatten(value, out=None, depth=0, seen=None):
    """The outputs as a flat list of tensors, in opsweep's order."""
    out = [] if out is None else out
    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        out.append(value)
        return out
    if depth >= 8 or value is None or isinstance(value, (str, bytes, int, float, complex, bool, torch.dtype, torch.device)):
        return out
    if isinstance(value, (torch.nn.Module, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
        return out
    if id(value) in seen:
        return out
    seen = seen | {{id(value)}}
    if isinstance(value, (tuple, list)):
        for item in value:
            flatten(item, out, depth + 1, seen)
    elif isinstance(value, dict):
        for key in sorted(value, key=lambda k: (type(k).__name__, repr(k))):
            flatten(value[key], out, depth + 1, seen)
    elif isinstance(getattr(value, "data", None), torch.Tensor):
        out.append(value.data)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            flatten(getattr(value, f.name, None), out, depth + 1, seen)
    elif isinstance(getattr(value, "__dict__", None), dict):
        for item in list(vars(value).values()):
            flatten(item, out, depth + 1, seen)
    return out


def reordering(e, a, same, exact):
    """What moved, when the rows that differ are eager's own rows in another order (a sort's ties
    ordered the other way round); else None."""
    if exact:
        close = lambda x, y: x.to(y.dtype) == y
    else:
        e, a = e.double(), a.double()
        close = lambda x, y: torch.isclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True)
    found = moved_rows(e, a, same, close)
    if found is None:
        return None
    dim, moved, rows = found
    return f"the same rows as eager in another order ({{moved}} of {{rows}} rows along dim {{dim}} moved)"


{moved_rows}


{one_to_one}


def compare(expected, actual):
    """None when the outputs match eager, else what differs (a value difference before a reordering)."""
    import numpy as np

    actual = [torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else torch.as_tensor(a) for a in actual]
    if len(expected) != len(actual):
        return f"output count differs: {{len(actual)}} outputs, eager has {{len(expected)}}"
    for i, (e, a) in enumerate(zip(expected, actual)):
        if list(e.shape) != list(a.shape):
            return f"output {{i}}: shape {{list(a.shape)}}, eager has {{list(e.shape)}}"
    reordered = None
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not CHECK:
            if (e.is_floating_point() and bool(torch.isfinite(e).all())) and not bool(torch.isfinite(a).all()):
                return f"output {{i}}: non-finite values (a random case: only shapes and finiteness are checked)"
            continue
        exact = e.dtype == torch.bool or not (e.dtype.is_floating_point or e.dtype.is_complex)
        if exact:
            same = e == a.to(e.dtype)
            off = int((~same).sum())
            if off:
                moved = None if e.is_complex() else reordering(e, a, same, True)
                if moved is None:
                    return f"output {{i}}: {{off}} of {{e.numel()}} elements differ (exact comparison)"
                reordered = reordered or f"output {{i}}: {{moved}}"
            continue
        e64 = torch.view_as_real(e.resolve_conj()).double() if e.is_complex() else e.double()
        a64 = torch.view_as_real(a.resolve_conj()).double() if a.is_complex() else a.double()
        if not torch.equal(torch.isnan(e64), torch.isnan(a64)):
            return f"output {{i}}: NaN positions differ"
        close = torch.isclose(a64, e64, rtol=RTOL, atol=ATOL, equal_nan=True)
        if not bool(close.all()):
            moved = None if e.is_complex() else reordering(e, a, close, False)
            if moved is not None:
                reordered = reordered or f"output {{i}}: {{moved}}"
                continue
            diff = (a64 - e64).abs().nan_to_num(0.0)
            return (f"output {{i}}: max abs diff {{float(diff.max()):.3g}}, {{int((~close).sum())}} of {{e.numel()}} elements "
                    f"outside atol={{ATOL:g}} rtol={{RTOL:g}}")
    return reordered


def root_cause(exc):
    """Follow __cause__, else __context__, to the innermost exception (what the survey reports)."""
    seen, cur = {{id(exc)}}, exc
    while True:
        nxt = cur.__cause__ if cur.__cause__ is not None else cur.__context__
        if nxt is None or id(nxt) in seen:
            return cur
        seen.add(id(nxt))
        cur = nxt


def type_name(exc):
    t = type(exc)
    return t.__qualname__ if t.__module__ in ("builtins", "__main__", None) else f"{{t.__module__}}.{{t.__qualname__}}"


def failed(what, exc=None):
    if exc is not None:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        root = root_cause(exc)
        print(f"root cause: {{type_name(root)}}: {{' '.join(str(root).split())[:2000]}}")
        print(f"opsweep-repro: {{what}} failed: {{type_name(root)}}: {{' '.join(str(root).split())[:400]}}")
    else:
        print(f"opsweep-repro: {{what}}")
    sys.exit(1)


print("versions:", versions())
saved = torch.load(os.path.join(HERE, "inputs.pt"), weights_only=False)
INPUTS, KWARGS = tuple(saved["inputs"]), saved["kwargs"]
# the second input set opsweep checks every capture on (None: the case has none)
FRESH = tuple(saved["fresh"]) if saved.get("fresh") is not None else None
FRESH_MISMATCH = {fresh_mismatch!r}
'''

# a target.pt (or inputs.pt, fixed.pt) that carries code of a registry by value: a wrapper class or
# a lambda written there, which no installed module holds (opsweep's ``_pickled``)
_BY_VALUE_IMPORT = '''import cloudpickle  # noqa: F401  target.pt carries a registry's code by value: pip install cloudpickle
'''

# after loading such a file: torch.compile (Dynamo) reaches the globals of a function it inlines by
# importing the function's module by name, which for code carried by value no installed package has
_STAND_IN = '''

def stand_in_modules():
    """Register, for each module that functions carried by value name but no installed package
    has, a module whose attributes are those functions' globals (Dynamo imports a function's
    module by name to reach its globals)."""
    import gc
    import importlib.util

    known = {{}}
    for f in gc.get_objects():
        if not isinstance(f, types.FunctionType):
            continue
        name = f.__globals__.get("__name__")
        if not isinstance(name, str) or name in sys.modules and name not in known:
            continue
        if name not in known:
            try:
                known[name] = importlib.util.find_spec(name) is None
            except Exception:  # its package cannot be imported here
                known[name] = True
        if known[name]:
            module = sys.modules.setdefault(name, types.ModuleType(name))
            for key, value in f.__globals__.items():
                module.__dict__.setdefault(key, value)


stand_in_modules()
'''

_TARGETS = {
    "import": '''\
import importlib

target = importlib.import_module({module!r})
for _part in {qualname!r}.split("."):
    target = getattr(target, _part)
''',
    "wrapper": '''\
import importlib

fn = importlib.import_module({module!r})
for _part in {qualname!r}.split("."):
    fn = getattr(fn, _part)
names = {names!r}
fixed = torch.load(os.path.join(HERE, "fixed.pt"), weights_only=False)


def target(*xs, **kwargs):
    return {template}
''',
    "pickle": '''\
target = torch.load(os.path.join(HERE, "target.pt"), weights_only=False)
''',
}

_CALL = '''\
METHOD = {method!r}


def own_copy(value):
    """A deep copy, or the value itself when it cannot be copied (functions, odd objects)."""
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


class Case(torch.nn.Module):
    """The call as opsweep makes it: target(*inputs, **kwargs) (or its method), outputs flattened.

    Each Case holds its own deep copy of the target and the kwargs, as opsweep's does: eager and
    the capture never share a module's state (a module that keeps its last call's parameters would
    otherwise hide a capture that loses that write)."""

    def __init__(self, flat):
        super().__init__()
        copied = isinstance(target, torch.nn.Module) or not callable(target) or METHOD is not None
        own = own_copy(target) if copied else target
        if isinstance(own, torch.nn.Module):
            self.target = own
        else:
            self.__dict__["target"] = own
        self.__dict__["kwargs"] = own_copy(dict(KWARGS))
        self.flat = flat

    def forward(self, *xs):
        fn = self.target if METHOD is None else getattr(self.target, METHOD)
        out = fn(*xs, **self.kwargs)
        return tuple(flatten(out)) if self.flat else out


def module(flat):
    m = Case(flat)
    return m.eval() if CHECK else m


seed_all(0)
with torch.no_grad():
    expected = [t.detach().clone() for t in flatten(module(False)(*INPUTS))]
print(f"eager: {{len(expected)}} outputs, shapes {{[list(t.shape) for t in expected]}}")


def on_fresh(run, step, what):
    """The capture on the fresh input set too, as opsweep checks it: a capture that baked in a
    value of its trace inputs (a threshold, a size, a branch taken) matches eager on them only."""
    if FRESH is None:
        return
    seed_all(0)
    with torch.no_grad():
        expected_fresh = [t.detach().clone() for t in flatten(module(False)(*FRESH))]
    print("fresh inputs: the capture runs on the second input set")
    try:
        seed_all(0)
        actual_fresh = run(FRESH)
    except Exception as e:
        print("(raised on the fresh inputs only: the trace inputs passed)")
        failed(step, e)
    problem = compare(expected_fresh, actual_fresh)
    if problem:
        # the capture was called before (on the trace inputs), eager's module was new: a target that
        # keeps state between calls differs for that alone. Eager with the same history decides.
        seed_all(0)
        with torch.no_grad():
            same = module(False)
            same(*INPUTS)
            seed_all(0)
            history = [t.detach().clone() for t in flatten(same(*FRESH))]
        if compare(expected_fresh, history) and not compare(history, actual_fresh):
            print("fresh inputs: the target keeps state between calls; the capture matches eager called "
                  "with the same history (trace inputs, then fresh)")
            return
        failed(f"mismatch ({{what}} vs eager): {{FRESH_MISMATCH}}: {{problem}}")


def check(run, step, what):
    """The capture's run on the trace inputs compared with eager, then, as the survey does, on the
    fresh input set: the first failure ends the script."""
    try:
        seed_all(0)
        actual = run(INPUTS)
    except Exception as e:
        failed(step, e)
    problem = compare(expected, actual)
    if problem:
        failed(f"mismatch ({{what}} vs eager): {{problem}}")
    on_fresh(run, step, what)
'''

# onnx.checker, an onnxruntime session and its run (the onnx paths' common steps)
_ONNX_SESSION = '''\
try:
    onnx.checker.check_model(model, full_check=True)
except Exception as e:
    failed("checker", e)
try:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
except Exception as e:
    failed("ort-load", e)


def run_session(xs):
    feeds = {{spec.name: x.detach().cpu().contiguous().numpy() for spec, x in zip(session.get_inputs(), xs)}}
    return list(session.run(None, feeds))


'''

# the exported program's run, its outputs as a list (the export paths)
_RUN_PROGRAM = '''\


def run_program(xs):
    with torch.no_grad():
        out = program.module()(*xs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


'''

_PATHS = {
    "onnx": '''\
import onnx
import onnxruntime as ort

print("capture: torch.onnx.export(module, inputs, dynamo=True, opset_version=18)")
try:
    program = torch.onnx.export(module(True), INPUTS, dynamo=True, opset_version=18, verbose=False)
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
    program.save(os.path.join(HERE, "model.onnx"))
    model = program.model_proto
except Exception as e:
    failed("export", e)
''' + _ONNX_SESSION + '''check(run_session, "ort-run", "onnxruntime")
print("opsweep-repro: ok: the ONNX model matches eager")
''',
    "export": '''\
print("capture: torch.export.export(module, inputs, strict=False)")
try:
    program = torch.export.export(module(True), INPUTS, strict=False)
except Exception as e:
    failed("export", e)

''' + _RUN_PROGRAM + '''check(run_program, "run", "exported program")
print("opsweep-repro: ok: the exported program matches eager")
''',
    "compile": '''\
import torch._dynamo

print("capture: torch._dynamo.explain(module)(*inputs), then torch.compile(module, backend='inductor')")
breaks = []
try:
    torch._dynamo.reset()
    seed_all(0)
    with torch.no_grad():
        explained = torch._dynamo.explain(module(False))(*INPUTS)
    for br in explained.break_reasons:
        text = str(getattr(br, "reason", br)).strip().splitlines()[0] if str(getattr(br, "reason", br)).strip() else ""
        if text and text not in breaks:
            breaks.append(text)
    count = max(0, int(explained.graph_break_count), len(explained.break_reasons))
    print(f"explain: {{count}} graph break(s)")
    for text in breaks:
        print(f"  break reason: {{text}}")
except Exception as e:
    count = None
    print(f"explain raised {{type(e).__name__}}: {{e}}")
finally:
    torch._dynamo.reset()
try:
    compiled = torch.compile(module(False), backend="inductor", fullgraph=False)
except Exception as e:
    failed("compile", e)


def run_compiled(xs):
    with torch.no_grad():
        return flatten(compiled(*xs))


check(run_compiled, "compile", "compiled")
if count:
    failed(f"graph breaks: {{count}}: " + "; ".join(breaks))
print("opsweep-repro: ok: the compiled module matches eager, no graph break")
''',
}

# The dynamic-shape paths: the input sets the survey ran the capture at (saved by write_repro from
# the job itself), each compared with eager there, the trace shape's failure reported first.
_DYNAMIC = '''\
def shape_text(shape):
    """2x3x48x56 for one input; inputs joined with ", " (as opsweep writes shapes)."""
    return ", ".join("x".join(str(v) for v in s) if len(s) else "scalar" for s in shape)


SETS = saved["sets"]  # [{{"shape", "role" ("trace" / "other"), "values", "inputs"}}], in the survey's order
DIMS = {{int(k): list(v) for k, v in saved["dims"].items()}}  # input -> its varied dimensions
TRACE = next(s for s in SETS if s["role"] == "trace")
print("varied dimensions:", {{f"x{{i}}": d for i, d in DIMS.items()}})
print("shapes:", "; ".join(f"{{shape_text(s['shape'])}} ({{s['role']}}, {{s['values']}} values)" for s in SETS))


def spec(hint):
    """dynamic_shapes: every varied dimension gets hint, an input without one None."""
    return (tuple({{d: hint for d in DIMS[i]}} if i in DIMS else None for i in range(len(INPUTS))),)


def eager_at(xs):
    seed_all(0)
    with torch.no_grad():
        return [t.detach().clone() for t in flatten(module(False)(*xs))]


def check_shapes(run, step, what):
    """The capture at every shape, compared with eager there; the first failure (the trace shape
    first, as the survey reports it) ends the script; then the fresh input set at the case's own
    shape when the capture accepts it."""
    outcomes = []
    for s in SETS:
        where = shape_text(s["shape"])
        expected_here = eager_at(s["inputs"])
        try:
            seed_all(0)
            actual = run(tuple(x.clone() for x in s["inputs"]))
        except Exception as e:
            print(f"at {{where}}: raised {{type(e).__name__}}")
            outcomes.append((s, e, None))
            continue
        problem = compare(expected_here, actual)
        print(f"at {{where}}: {{problem or 'matches eager'}}")
        outcomes.append((s, None, problem))
    for s, e, problem in sorted(outcomes, key=lambda o: o[0]["role"] != "trace"):
        where = shape_text(s["shape"])
        if e is not None:
            failed(f"{{step}} at {{where}}", e)
        if problem:
            failed(f"mismatch at {{where}} ({{what}} vs eager): {{problem}}")
    if SETS and SETS[0]["values"] == "case":
        on_fresh(run, step, what)
'''

_PATHS.update({
    "export-dynamic": '''\
from torch.export import Dim

print(f"capture: torch.export.export(module, inputs at {{shape_text(TRACE['shape'])}}, dynamic_shapes=<Dim.AUTO on the varied "
      "dimensions>, strict=False)")
try:
    program = torch.export.export(module(True), tuple(TRACE["inputs"]), dynamic_shapes=spec(Dim.AUTO), strict=False)
except Exception as e:
    failed("export", e)
placeholders = [n for n in program.graph.nodes if n.op == "placeholder" and n.name in program.graph_signature.user_inputs]
for i, node in enumerate(placeholders):
    print(f"program input x{{i}}: shape {{list(node.meta['val'].shape)}}")
print("range constraints:", {{str(k): str(v) for k, v in program.range_constraints.items()}})

''' + _RUN_PROGRAM + '''check_shapes(run_program, "run", "exported program")
print("opsweep-repro: ok: the exported program matches eager at every shape it accepts")
''',
    "onnx-dynamic": '''\
import onnx
import onnxruntime as ort
from torch.export import Dim

print(f"capture: torch.onnx.export(module, inputs at {{shape_text(TRACE['shape'])}}, dynamo=True, opset_version=18, "
      "dynamic_shapes=<Dim.DYNAMIC on the varied dimensions>)")
try:
    program = torch.onnx.export(module(True), tuple(TRACE["inputs"]), dynamo=True, opset_version=18,
                                dynamic_shapes=spec(Dim.DYNAMIC), verbose=False)
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
    program.save(os.path.join(HERE, "model.onnx"))
    model = program.model_proto
except Exception as e:
    failed("export", e)
for i, value in enumerate(model.graph.input):
    dims = [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]
    print(f"ONNX input {{value.name}}: shape {{dims}}")
''' + _ONNX_SESSION + '''check_shapes(run_session, "ort-run", "onnxruntime")
print("opsweep-repro: ok: the ONNX model matches eager at every shape it accepts")
''',
    "compile-dynamic": '''\
import torch._dynamo
import torch._dynamo.guards
from torch._dynamo.utils import clear_compilation_metrics, get_compilation_metrics

# every failed guard in a recompile reason, not only the first (as Dynamo's recompiles_verbose logging)
if hasattr(torch._dynamo.guards, "is_recompiles_verbose_enabled"):
    torch._dynamo.guards.is_recompiles_verbose_enabled = lambda: True
print("capture: torch.compile(module) (default settings), called at each shape in turn")
expected_all = [eager_at(s["inputs"]) for s in SETS]  # eager called in the same order
torch._dynamo.reset()
clear_compilation_metrics()
compiled = torch.compile(module(False))


def run_compiled(xs):
    with torch.no_grad():
        return flatten(compiled(*xs))


last_reasons, recompiles = [], 0
for s, expected_here in zip(SETS, expected_all):
    where = shape_text(s["shape"])
    seen = len(get_compilation_metrics())
    try:
        seed_all(0)
        actual = run_compiled(tuple(x.clone() for x in s["inputs"]))
    except Exception as e:
        failed(f"compile at {{where}}", e)
    metrics = get_compilation_metrics()[seen:]
    last_reasons = [m.recompile_reason for m in metrics if m.recompile_reason]
    recompiles += len(last_reasons)
    print(f"at {{where}}: {{len(metrics)}} compilation(s), {{len(last_reasons)}} recompile(s)")
    for reason in last_reasons:
        print(f"  recompile reason: {{' '.join(reason.split())}}")
    problem = compare(expected_here, actual)
    if problem:
        failed(f"mismatch at {{where}} (compiled vs eager): {{problem}}")
if SETS and SETS[0]["values"] == "case":
    on_fresh(lambda xs: run_compiled(xs), "compile", "compiled")


def equality_guards(reason):
    """The failed guards of a recompile reason that hold one size (every new size recompiles), not
    a range (only crossing it recompiles)."""
    import re

    first = reason.strip().splitlines()[0] if reason.strip() else ""
    out = []
    for part in re.split(r"; (?=\\S)", re.sub(r"^\\s*\\d+/\\d+:\\s*", "", first)):
        expr = part.split("  #")[0]
        if "size mismatch" in expr or re.search(r"(?<![<>!=])==(?!=)", expr) or expr.startswith("Eq("):
            out.append(" ".join(part.split()))
    return out


every = [g for r in last_reasons for g in equality_guards(r)]
if every:
    failed(f"recompiles on every new shape: {{recompiles}} recompile(s); the last call's guards: " + "; ".join(every))
print(f"opsweep-repro: ok: the compiled module matches eager at every shape ({{recompiles}} recompile(s))")
''',
})

_DISTS = {"onnx": ("onnx", "onnxscript", "onnxruntime", "numpy"), "export": ("numpy",), "compile": ("numpy",),
          "export-dynamic": ("numpy",), "onnx-dynamic": ("onnx", "onnxscript", "onnxruntime", "numpy"),
          "compile-dynamic": ("numpy",)}


def write_repro(case: Case, path: str, out_dir: str, *, library: str | None = None) -> list[str]:
    """Write the reproducer of ``case`` through ``path`` into ``out_dir``; the files written."""
    import torch

    if path not in PATH_IDS:
        raise ReproError(f"no reproducer for path {path!r} (known: {', '.join(PATH_IDS)})")
    if case.skip:
        raise ReproError(f"case {case.name!r} is skipped ({case.skip}): there is nothing to reproduce")
    case = materialize(case)
    plan = _target_plan(case)
    lib = library or _library_name(case)
    from opsweep.paths.base import FRESH_MISMATCH, draw_fresh_inputs

    fresh, _ = draw_fresh_inputs(case)  # the set the survey checked the capture on, or none
    saved = {"inputs": [x.detach().clone() for x in case.inputs], "kwargs": dict(case.kwargs),
             "fresh": None if fresh is None else [x.detach().clone() for x in fresh]}
    os.makedirs(out_dir, exist_ok=True)
    files: list[str] = []

    def put(name: str, data: bytes) -> None:
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(data)
        files.append(name)

    extra = ", onnx, onnxscript, onnxruntime" if path in ("onnx", "onnx-dynamic") else ""
    sets_blob: dict[str, Any] = {}
    if path in DYNAMIC_PATH_IDS:
        sets_blob = _dynamic_sets(case, path)
    from opsweep import __version__ as tool

    saved.update(sets_blob)
    inputs_data, inputs_by_value = _pickled(saved, f"the inputs and keyword arguments of case {case.name!r}")
    by_value = inputs_by_value or bool(plan.get("by_value"))
    script = _HEADER.format(case=case.name, path=path, tool=tool, library=lib, extra=extra, atol=case.atol,
                            rtol=case.rtol, check=case.check, dists=(lib, *_DISTS[path]),
                            fresh_mismatch=FRESH_MISMATCH, one_to_one=inspect.getsource(one_to_one).strip(),
                            moved_rows=inspect.getsource(moved_rows).strip(),
                            by_value_need=", cloudpickle" if by_value else "",
                            by_value_import=_BY_VALUE_IMPORT if by_value else "")
    if plan["kind"] == "pickle":
        put("target.pt", plan["data"])
        script += _TARGETS["pickle"]
    elif plan["kind"] == "wrapper":
        put("fixed.pt", plan["fixed"])
        script += _TARGETS["wrapper"].format(**plan)
    else:
        script += _TARGETS["import"].format(**plan)
    if by_value:
        script += _STAND_IN.format()
    script += _CALL.format(method=case.method)
    if path in DYNAMIC_PATH_IDS:
        script += _DYNAMIC.format()
    script += _PATHS[path].format()
    put("inputs.pt", inputs_data)
    if path == "onnx":
        onnx_file = _export_onnx(case)
        if onnx_file is not None:
            put("model.onnx", onnx_file)
    put("repro.py", script.encode())
    return sorted(files)


def _dynamic_sets(case: Case, path: str) -> dict[str, Any]:
    """The input sets a dynamic path runs the capture at, as the survey does: the job is run here
    once (its record says which shapes it ran, the exported program's specialised dimensions held,
    and how each set's values were made); each set is rebuilt from that (shapes.inputs_at is
    seeded by the case and shape). When the job stopped before any run (the export raised), the
    plan's shapes are used, values drawn (resampled where eager refuses drawn ones)."""
    from opsweep import shapes
    from opsweep.job import run_job
    from opsweep.paths.base import make_module, seed_everything

    plan = shapes.plan_for(case)
    if not plan.varies:
        raise ReproError(f"case {case.name!r} has no dimension that varies ({plan.why}): {path} does not apply")
    record = run_job(case, path, library=None, threads=1)
    if record["status"] == "n/a":
        raise ReproError(f"case {case.name!r} is not applicable to {path} ({record['detail']}): nothing to reproduce")
    dynamic = record.get("dynamic") or {}
    per_shape = [r for r in dynamic.get("per_shape") or [] if r.get("status") != "skipped"]
    trace = int(dynamic.get("trace", 1 if path != "compile-dynamic" else 0))
    if not per_shape:
        per_shape = [{"shape": s, "role": "trace" if k == trace else "other", "values": ""} for k, s in enumerate(plan.shapes)]

    def eager_accepts(inputs: tuple[Any, ...]) -> bool:
        import torch

        try:
            seed_everything(0)
            with torch.no_grad():
                make_module(case, flat_outputs=False)(*[x.clone() for x in inputs])
            return True
        except Exception:  # noqa: BLE001 - then the survey resampled
            return False

    sets = []
    for r in per_shape:
        shape = tuple(tuple(int(v) for v in s) for s in r["shape"])
        values = r.get("values") or ""
        if shape == tuple(tuple(x.shape) for x in case.inputs) and values in ("", "case"):
            inputs, values = tuple(x.detach().clone() for x in case.inputs), "case"
        elif values in (shapes.DRAWN, shapes.RESAMPLED):
            inputs = shapes.inputs_at(case, shape, values, plan.spatial())
        else:
            inputs, values = shapes.inputs_at(case, shape, shapes.DRAWN, plan.spatial()), shapes.DRAWN
            if not eager_accepts(inputs):
                inputs, values = shapes.inputs_at(case, shape, shapes.RESAMPLED, plan.spatial()), shapes.RESAMPLED
        sets.append({"shape": [list(s) for s in shape], "role": r["role"], "values": values,
                     "inputs": [x.detach().clone() for x in inputs]})
    if not any(s["role"] == "trace" for s in sets):
        sets[0]["role"] = "trace"
    return {"sets": sets, "dims": {str(i): list(d) for i, d in plan.dims_by_input().items()}}


def _export_onnx(case: Case) -> bytes | None:
    """The ONNX file the harness's export gives now, or None when it does not export."""
    import torch

    from opsweep.paths.base import make_module

    try:
        program = torch.onnx.export(make_module(case, flat_outputs=True), tuple(case.inputs), dynamo=True,
                                    opset_version=18, verbose=False)
        return None if program is None else program.model_proto.SerializeToString()
    except Exception:  # noqa: BLE001 - the script shows the failure itself
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m opsweep.repro")
    ap.add_argument("--registry", action="append", default=[], required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--library", default=None)
    args = ap.parse_args(argv)
    from opsweep.registry import load_registries

    # stdout carries the answer only: whatever the library, torch or onnxscript print while the job
    # runs (onnxscript 0.5's optimizer prints "Skipping constant folding ..." to stdout) goes to
    # stderr, which the engine passes through.
    sys.stdout.flush()
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    try:
        loaded = {lc.case.name: lc.case for lc in load_registries(args.registry)}
        if args.case not in loaded:
            raise ReproError(f"no case named {args.case!r} in the registries given")
        files = write_repro(loaded[args.case], args.path, args.out, library=args.library)
    except (RegistryError, ReproError) as e:
        sys.stdout.flush()
        answer.write(json.dumps({"error": " ".join(str(e).split())}) + "\n")
        answer.close()
        return 2
    sys.stdout.flush()
    answer.write(json.dumps({"files": files, "dir": args.out, "run": "python repro.py"}, sort_keys=True) + "\n")
    answer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
