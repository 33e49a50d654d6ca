"""Reproducers: one job of one case as a standalone script, for an upstream bug report.

``write_repro(case, path, out_dir)`` writes into ``out_dir``:

* ``repro.py``: a script that needs only torch, numpy, the surveyed library and the path's
  exporter or runtime (``Reproducer.needs``), never opsweep. It prints the versions, builds the
  call the way the harness does, computes the eager reference, runs the path's capture as the
  probe does, and reports what fails: the exception (type, message, traceback, root cause), the
  comparison that differs (the record's own detail), or what else the path judges (graph breaks,
  recompiles). Like the survey, it then runs the capture on the case's fresh input sets and
  compares it with eager there, so a failure that shows on fresh inputs only (a baked-in
  threshold, size or branch) reproduces too. The last line starts with ``opsweep-repro:``; the
  exit status is 1 when a failure shows, 0 when everything matches.
* ``inputs.pt``: the case's input tensors, its fresh input sets (``fresh_sets``; none when
  the case has none), its baked keyword arguments and, for a dynamic-shape path, the input sets
  the survey ran the capture at (``torch.save``).
* ``target.pt`` (the target object, when it is not a function the script can import) or
  ``fixed.pt`` (the fixed arguments of a wrapper the script calls through).
* what the path's reproducer adds (``Reproducer.files``: the onnx path's ``model.onnx``, the file
  the export gave when the repro was written).

The script never re-writes the harness: the harness code it runs (building the call
(``make_module``), seeding, flattening, comparing, the eager reference, the root cause, and the
path's own functions its reproducer names in ``calls``) is copied from opsweep's source when the
script is written (opsweep/standalone.py), so the script and the survey judge alike. What a path
captures and how is the path's own: its ``PathSpec.repro`` (paths/spec.py ``Reproducer``), whose
``script`` may use these names of the common part: ``HERE`` (the script's folder), ``INPUTS``
(the trace inputs), ``FRESH_SETS`` (the fresh input sets, ``[(name, inputs)]``), ``module(flat)`` (a fresh module of
the call, ``flat``: outputs flattened as the exporters need them), ``eager(calls)`` (eager's flat
outputs of (inputs, seed) calls in turn on one fresh module), ``expected`` (eager on ``INPUTS``),
``judge(expected, actual, inputs)`` (None or what differs), ``check(run, step, what)`` (``run`` on
the trace inputs, then the fresh ones, each judged; the first failure ends the script),
``on_fresh(run, step, what)``, ``failed(what, exc=None)`` (report and exit 1), and opsweep's
``flatten`` and ``seed_everything``. A reproducer with ``at_shapes`` also gets ``SETS`` (the input
sets the survey ran, ``{"shape", "role", "values", "inputs"}``), ``TRACE`` (the trace set),
``DIMS``, ``spec(hint)`` (``dynamic_shapes`` with ``hint`` on every varied dimension) and
``check_shapes(run, step, what)``.

The script rebuilds the target without opsweep: an importable function or class is imported by
its module and qualified name; a wrapper that declares how it forwards its call
(``__opsweep_forwards__``, opsweep/toolkit/wrappers.py) to an importable function is called
through that declaration; any other object is pickled into ``target.pt``: with pickle when every
class and function in it is importable without opsweep, else (a wrapper class of a registry, a
lambda written in one) with cloudpickle, which carries their code by value; the script then needs
cloudpickle too and says so. Only an object neither can save raises ``ReproError`` that says so.

``python -m opsweep.repro --registry FILE ... --case NAME --path P -o DIR`` prints one JSON object
(``{"files": [...], "run": "python repro.py"}`` or ``{"error": ...}`` with exit 2); the
``opsweep repro`` verb wraps it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import io
import json
import os
import pickletools
import sys
from typing import Any

from opsweep import __version__, shapes, standalone, state
from opsweep.case import Case, RegistryError, materialize
from opsweep.case_module import make_module
from opsweep.compare import check_unverified, compare, seed_varying_dims
from opsweep.evidence import root_cause, type_name
from opsweep.flatten import flatten
from opsweep.fresh_set import SET_WORDS, fresh_sets, perturbed
from opsweep.job import eager_calls, run_job
from opsweep.paths import PATHS
from opsweep.paths.spec import PathSpec
from opsweep.randomness import seed_everything
from opsweep.toolkit.wrappers import Forwarding


class ReproError(Exception):
    """The case cannot be written as a standalone script; the message says why."""


def reproducible_paths() -> list[str]:
    """The ids of the paths that declare a reproducer (``PathSpec.repro``), in the paths' order."""
    return [spec.id for spec in PATHS.values() if spec.repro is not None]


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


def _forwarding(target: Any) -> Forwarding | None:
    """How ``target`` forwards its call, when it declares it (``__opsweep_forwards__``) and the
    function it forwards to is one the script can import."""
    declared = getattr(type(target), "__opsweep_forwards__", None)
    if declared is None:
        return None
    forwarding = target.__opsweep_forwards__()
    return forwarding if _importable(forwarding.fn) is not None else None


def _library_name(case: Case) -> str:
    """The top-level package of the surveyed code: the target's, or for a registry's wrapper the
    package of what it surveys (``__opsweep_target__``)."""
    for obj in (case.target, getattr(case.target, "__opsweep_target__", None)):
        top = (getattr(obj, "__module__", "") or "").split(".", 1)[0]
        if top and top != "opsweep":
            return top
    return "the library"


def _target_plan(case: Case) -> dict[str, Any]:
    """What the script does to get the callable: import, call through a wrapper's forwarding, or
    unpickle."""
    target = case.target
    where = _importable(target)
    if where is not None:
        return {"kind": "import", "module": where[0], "qualname": where[1]}
    forwarding = _forwarding(target)
    if forwarding is not None:
        module, qual = _importable(forwarding.fn)  # type: ignore[misc]
        data, by_value = _pickled(dict(forwarding.fixed), "the wrapper's fixed arguments")
        return {"kind": "forwarding", "module": module, "qualname": qual, "fixed": data, "by_value": by_value,
                "names": None if forwarding.names is None else tuple(forwarding.names)}
    data, by_value = _pickled(target, f"the target of case {case.name!r} ({type(target).__qualname__})")
    return {"kind": "pickle", "data": data, "by_value": by_value}


# ---------------------------------------------------------------------------------------------
# The script. Its parts are plain code; the values they use are assignments written before them
# (``_assignments``). The harness code they call is copied from its source (``_HARNESS``).

# what the common parts call, copied into every script
_HARNESS = (make_module, eager_calls, seed_everything, flatten, compare, check_unverified, seed_varying_dims,
            root_cause, type_name, Forwarding, perturbed, ("opsweep.paths.context", "FRESH_MISMATCH"),
            ("opsweep.paths.context", "STATE_LOST"), state.snapshot, state.updated, state.read,
            state.capture_problem,
            ("opsweep.randomness", "MORE_RANDOM_SEEDS"))
# and what the part of the dynamic-shape paths calls
_AT_SHAPES_HARNESS = (shapes.shape_text, shapes.dynamic_shapes_spec)

_IMPORTS = """\
import importlib
import os
import platform
import sys
import traceback
import types

import torch
"""

# a target.pt (or inputs.pt, fixed.pt) that carries code of a registry by value: a wrapper class or
# a lambda written there, which no installed module holds (``_pickled``)
_BY_VALUE_IMPORT = """\
import cloudpickle  # noqa: F401  target.pt carries a registry's code by value: pip install cloudpickle
"""

_COMMON = '''\
os.chdir(HERE)


def versions():
    import importlib.metadata as md

    out = {"python": platform.python_version(), "torch": torch.__version__}
    for dist in DISTS:
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            try:
                out[dist] = str(getattr(__import__(dist), "__version__", "unknown"))
            except ImportError:
                out[dist] = "not installed"
    return out


def failed(what, exc=None):
    """Report the failure and exit 1; an exception with its traceback and its root cause, named as
    the survey names it (opsweep's root_cause and type_name)."""
    if exc is not None:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        root = root_cause(exc)
        print(f"root cause: {type_name(root)}: {' '.join(str(root).split())[:2000]}")
        print(f"opsweep-repro: {what} failed: {type_name(root)}: {' '.join(str(root).split())[:400]}")
    else:
        print(f"opsweep-repro: {what}")
    sys.exit(1)


def imported(module, qualname):
    """The object ``module.qualname``, by importing the module and walking the qualified name."""
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


print("versions:", versions())
saved = torch.load(os.path.join(HERE, "inputs.pt"), weights_only=False)
INPUTS, KWARGS = tuple(saved["inputs"]), saved["kwargs"]
# the other input sets opsweep checks every capture on, in its order: [(name, inputs)] (none: the
# case has none)
FRESH_SETS = [(name, tuple(inputs)) for name, inputs in saved.get("fresh_sets", [])]
'''

_TARGETS = {
    "import": """\
target = imported(TARGET_MODULE, TARGET_QUALNAME)
""",
    # a wrapper that only forwards to an importable function: called through its declaration
    "forwarding": """\
fixed = torch.load(os.path.join(HERE, "fixed.pt"), weights_only=False)
target = Forwarding(imported(TARGET_MODULE, TARGET_QUALNAME), fixed, NAMES)
""",
    "pickle": """\
target = torch.load(os.path.join(HERE, "target.pt"), weights_only=False)
""",
}

# after loading a file that carries code by value: torch.compile (Dynamo) reaches the globals of a
# function it inlines by importing the function's module by name, which for code carried by value
# no installed package has
_STAND_IN = '''\


def stand_in_modules():
    """Register, for each module that functions carried by value name but no installed package
    has, a module whose attributes are those functions' globals (Dynamo imports a function's
    module by name to reach its globals)."""
    import gc
    import importlib.util

    known = {}
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

_CALL = '''\
# the case as opsweep holds it: what make_module builds the call from
CASE_SPEC = types.SimpleNamespace(target=target, method=METHOD, kwargs=KWARGS, check=CHECK)


def module(flat):
    """A fresh module of the call, built as opsweep builds it (make_module: deep copies of the
    target and the kwargs, so eager and the capture never share a module's state)."""
    return make_module(CASE_SPEC, flat)


def eager(calls):
    """Eager's flat outputs of ``calls`` ((inputs, seed) pairs) made in turn on one fresh module,
    each under its seed and no_grad (opsweep's eager_calls), on copies of the inputs."""
    return eager_calls(CASE_SPEC, [(tuple(x.clone() for x in xs), seed) for xs, seed in calls])


def judge(expected, actual, xs):
    """None when ``actual`` matches eager's ``expected`` (both on the inputs ``xs``) by the case's
    rules, else what differs: opsweep's compare, or for a random case (CHECK False) its
    check_unverified (count, shapes, finite values; a shape may differ where eager's own varies
    with the seed)."""
    if CHECK:
        return compare(expected, actual, ATOL, RTOL)

    def free_dims():
        found = []
        for seed in (0, *MORE_RANDOM_SEEDS):
            try:
                found.append([list(t.shape) for t in eager([(xs, seed)])[-1]])
            except Exception:  # a seed eager raises under tells nothing
                pass
        return seed_varying_dims(found)

    return check_unverified(expected, actual, free_dims)


def run_on(run, xs):
    """The capture's outputs on copies of ``xs``, seeded as opsweep seeds every call."""
    seed_everything(0)
    return run(tuple(x.clone() for x in xs))


expected = eager([(INPUTS, 0)])[-1]
print(f"eager: {len(expected)} outputs, shapes {[list(t.shape) for t in expected]}")


def eager_state():
    """The state eager's call on INPUTS updates (opsweep.state: buffers, parameters and public
    tensor attributes whose value the call changed), name -> value after the call; usually {}."""
    m = module(False)
    before = snapshot(m)
    seed_everything(0)
    with torch.no_grad():
        m(*(x.clone() for x in INPUTS))
    return updated(m, before)


STATE = eager_state()
if STATE:
    print(f"eager's call updates the module's state: {', '.join(sorted(STATE))}")


def state_after_call(fresh_module):
    """A state reader for a capture whose state lives in a module: ``fresh_module()`` called once on
    INPUTS under seed 0, its state under the names asked for (opsweep's exported_state)."""
    def read_state(names):
        m = fresh_module()
        seed_everything(0)
        with torch.no_grad():
            m(*(x.clone() for x in INPUTS))
        return read(m, names)
    return read_state


def check_state(state, what):
    """The state check, as opsweep's verify does it after the first call: eager's updated state
    against the capture's (``state``: a module already called once, a reader of names, or None for
    a capture that returns outputs only); a capture that does not keep the update fails."""
    if not STATE:
        return
    problem = capture_problem(STATE, state, CHECK, ATOL, RTOL)
    if problem:
        failed(f"mismatch ({what} vs eager): {STATE_LOST}: {problem}")
    print(f"state: the {what} keeps eager's update of {', '.join(STATE)}")


def on_fresh(run, step, what):
    """The capture on each fresh input set too, as opsweep checks it: a capture that baked in a
    value of its trace inputs (a threshold, a size, a statistic, a branch taken) matches eager on
    them only."""
    before = []
    for name, fresh in FRESH_SETS:
        expected_fresh = eager([(fresh, 0)])[-1]
        print(f"fresh inputs: the capture runs on the {name} set")
        try:
            actual_fresh = run_on(run, fresh)
        except Exception as e:
            print(f"(raised on the {name} set only: the trace inputs passed)")
            failed(step, e)
        problem = judge(expected_fresh, actual_fresh, fresh)
        if problem:
            # the capture was called before (on the trace inputs and the earlier sets), eager's module
            # was new: a target that keeps state between calls differs for that alone. Eager with the
            # same history decides.
            history = eager([(INPUTS, 0), *((b, 0) for b in before), (fresh, 0)])[-1]
            if judge(expected_fresh, history, fresh) and not judge(history, actual_fresh, fresh):
                print(f"fresh inputs ({name}): the target keeps state between calls; the capture matches eager "
                      "called with the same history")
                before.append(fresh)
                continue
            # a set on which eager's own answer moves beyond the tolerance when the inputs move by a
            # few units in the last place decides nothing (opsweep.fresh_set.perturbed)
            if CHECK and judge(expected_fresh, eager([(perturbed(fresh, CASE), 0)])[-1], fresh):
                print(f"fresh inputs ({name}): decides nothing, eager itself is unstable there")
                before.append(fresh)
                continue
            failed(f"mismatch ({what} vs eager): {FRESH_MISMATCH} ({name}): {problem}")
        before.append(fresh)


def check(run, step, what, state=None):
    """The capture's run on the trace inputs judged against eager, then its state (``state``, as
    check_state takes it) when eager's call updates the module's, then, as the survey does, each
    fresh input set: the first failure ends the script."""
    try:
        actual = run_on(run, INPUTS)
    except Exception as e:
        failed(step, e)
    problem = judge(expected, actual, INPUTS)
    if problem:
        failed(f"mismatch ({what} vs eager): {problem}")
    check_state(state, what)
    on_fresh(run, step, what)
'''

# The dynamic-shape paths: the input sets the survey ran the capture at (saved by write_repro from
# the job itself), each judged against eager there, the trace shape's failure reported first.
_AT_SHAPES = '''\
SETS = saved["sets"]  # [{"shape", "role" ("trace" / "other"), "values", "inputs"}], in the survey's order
DIMS = {int(k): list(v) for k, v in saved["dims"].items()}  # input -> its varied dimensions
TRACE = next(s for s in SETS if s["role"] == "trace")
print("varied dimensions:", {f"x{i}": d for i, d in DIMS.items()})
print("shapes:", "; ".join(f"{shape_text(s['shape'])} ({s['role']}, {s['values']} values)" for s in SETS))


def spec(hint):
    """dynamic_shapes: every varied dimension gets hint, an input without one None (opsweep's
    dynamic_shapes_spec, given the varied dimensions of the survey's shape plan)."""
    return dynamic_shapes_spec(types.SimpleNamespace(dims_by_input=lambda: DIMS), TRACE["inputs"], hint)


def check_shapes(run, step, what):
    """The capture at every shape, judged against eager there; the first failure (the trace shape
    first, as the survey reports it) ends the script; then the fresh input set at the case's own
    shape when the capture accepts it."""
    outcomes = []
    for s in SETS:
        where = shape_text(s["shape"])
        expected_here = eager([(s["inputs"], 0)])[-1]
        try:
            actual = run_on(run, s["inputs"])
        except Exception as e:
            print(f"at {where}: raised {type(e).__name__}")
            outcomes.append((s, e, None))
            continue
        problem = judge(expected_here, actual, s["inputs"])
        print(f"at {where}: {problem or 'matches eager'}")
        outcomes.append((s, None, problem))
    for s, e, problem in sorted(outcomes, key=lambda o: o[0]["role"] != "trace"):
        where = shape_text(s["shape"])
        if e is not None:
            failed(f"{step} at {where}", e)
        if problem:
            failed(f"mismatch at {where} ({what} vs eager): {problem}")
    if SETS and SETS[0]["values"] == "case":
        on_fresh(run, step, what)
'''


def _assignments(**values: Any) -> str:
    """Lines binding the values a part of the script reads (reprs that evaluate to them)."""
    return "".join(f"{name} = {value!r}\n" for name, value in values.items())


def _docstring(case: Case, path: str, library: str, needs: tuple[str, ...], by_value: bool) -> str:
    extra = "".join(f", {n}" for n in needs) + (", cloudpickle" if by_value else "")
    text = (f"Reproducer: case {case.name!r} through the {path} path.\n\n"
            f"Written by opsweep {__version__}; it needs only torch, numpy, {library}{extra} (not opsweep). Run it\n"
            "from this folder: python repro.py. Exit status 1: the failure shows; 0: everything matches eager.\n"
            "The code between the two \"opsweep's own code\" lines is opsweep's, copied from its source.\n")
    return '"""' + text.replace("\\", "\\\\").replace('"""', '\\"""') + '"""\n'


def _check_names(script: str) -> None:
    """Every name the script defines at its top level is defined once (an import may repeat): a
    part of the script that rebinds a name of opsweep's code would run other code than the survey."""
    seen: dict[str, int] = {}
    for stmt in ast.parse(script).body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        targets: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            targets = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            targets = [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        for name in targets:
            if name in seen:
                raise ReproError(f"the reproducer defines {name!r} twice (lines {seen[name]} and {stmt.lineno})")
            seen[name] = stmt.lineno


def _script(case: Case, spec: PathSpec, plan: dict[str, Any], library: str, by_value: bool) -> str:
    reproducer = spec.repro
    assert reproducer is not None
    harness = [*_HARNESS, *(_AT_SHAPES_HARNESS if reproducer.at_shapes else ()), *reproducer.calls]
    try:
        own_code = standalone.source_of(harness)
    except standalone.StandaloneError as e:  # a harness edit that no script can carry: our bug
        raise ReproError(f"the {spec.id} reproducer cannot carry opsweep's code: {e}") from None
    parts = [
        _docstring(case, spec.id, library, tuple(reproducer.needs), by_value),
        standalone.FUTURE + "\n\n",
        _IMPORTS,
        _BY_VALUE_IMPORT if by_value else "",
        f"\n# ---- opsweep's own code (opsweep {__version__}), copied from its source ----\n",
        own_code,
        "# ---- end of opsweep's own code ----\n\n",
        "HERE = os.path.dirname(os.path.abspath(__file__))\n",
        _assignments(CASE=case.name, PATH=spec.id, ATOL=case.atol, RTOL=case.rtol, CHECK=case.check,
                     DISTS=(library, "numpy", *reproducer.needs)),
        _COMMON,
    ]
    if plan["kind"] in ("import", "forwarding"):
        parts.append(_assignments(TARGET_MODULE=plan["module"], TARGET_QUALNAME=plan["qualname"]))
    if plan["kind"] == "forwarding":
        parts.append(_assignments(NAMES=plan["names"]))
    parts.append(_TARGETS[plan["kind"]])
    if by_value:
        parts.append(_STAND_IN)
    parts += ["\n", _assignments(METHOD=case.method), _CALL]
    if reproducer.at_shapes:
        parts += ["\n\n", _AT_SHAPES]
    parts += ["\n\n", reproducer.script]
    script = "".join(parts)
    _check_names(script)
    return script


def write_repro(case: Case, path: str, out_dir: str, *, library: str | None = None) -> list[str]:
    """Write the reproducer of ``case`` through ``path`` into ``out_dir``; the files written."""
    spec = PATHS.get(path)
    if spec is None or spec.repro is None:
        raise ReproError(f"no reproducer for path {path!r} (known: {', '.join(reproducible_paths())})")
    reproducer = spec.repro
    if case.skip:
        raise ReproError(f"case {case.name!r} is skipped ({case.skip}): there is nothing to reproduce")
    case = materialize(case)
    plan = _target_plan(case)
    lib = library or _library_name(case)
    sets, _ = fresh_sets(case)  # the sets the survey checked the capture on, or none
    saved = {"inputs": [x.detach().clone() for x in case.inputs], "kwargs": dict(case.kwargs),
             "fresh_sets": [[SET_WORDS.get(name, name), [x.detach().clone() for x in inputs]] for name, inputs in sets]}
    if reproducer.at_shapes:
        saved.update(_dynamic_sets(case, path))
    inputs_data, inputs_by_value = _pickled(saved, f"the inputs and keyword arguments of case {case.name!r}")
    by_value = inputs_by_value or bool(plan.get("by_value"))
    files = {"inputs.pt": inputs_data, "repro.py": _script(case, spec, plan, lib, by_value).encode()}
    if plan["kind"] == "pickle":
        files["target.pt"] = plan["data"]
    elif plan["kind"] == "forwarding":
        files["fixed.pt"] = plan["fixed"]
    if reproducer.files is not None:
        files.update(reproducer.files(case))
    os.makedirs(out_dir, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(data)
    return sorted(files)


def _dynamic_sets(case: Case, path: str) -> dict[str, Any]:
    """The input sets a dynamic path runs the capture at, as the survey does: the job is run here
    once (its record says which shapes it ran, the exported program's specialised dimensions held,
    and how each set's values were made); each set is rebuilt from that (shapes.inputs_at is
    seeded by the case and shape). When the job stopped before any run (the export raised), the
    plan's shapes are used, values drawn (resampled where eager refuses drawn ones)."""
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
        try:
            eager_calls(case, [(tuple(x.clone() for x in inputs), 0)])
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
