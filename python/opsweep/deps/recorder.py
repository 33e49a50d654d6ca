"""Recording the code a job runs: a frame-evaluation hook (deps/native.py; cProfile where it cannot
be built) and the code objects Dynamo translates (docs/formats.md section 3.1, item 1). Recording
is paused where only torch runs: while Dynamo interprets bytecode (its translator hook sees that
code), resumed in the backend it calls, and in torch.onnx's stages after the capture."""

from __future__ import annotations

import cProfile
import functools
import sys
import threading
import types
from typing import Any, Callable, NamedTuple

from opsweep.deps import native


_dynamo_hook_state = {"installed": False, "error": ""}
_active_recorders: list["Recorder"] = []


def active_recorder() -> "Recorder | None":
    """The innermost recorder recording now (started and not yet stopped), or None: the one a
    library import pauses around the import it profiles itself (deps/hidden.py)."""
    return _active_recorders[-1] if _active_recorders else None


def _install_dynamo_hook() -> str:
    """Patch Dynamo (once per process) so that, while a recorder is active:
    - every code object Dynamo translates (the frame it compiles and every function it inlines or
      tries to, run or not) reaches the recorder: ``InstructionTranslatorBase.__init__``;
    - recording is paused while Dynamo interprets bytecode (``convert_frame._compile``), where
      the hook above sees the code (and a profiler would double the time of a compile job), and
      resumed while the backend compiles the graph (``OutputGraph.call_user_compiler``:
      AOTAutograd and inductor run real Python there, e.g. a custom op's fake kernel).
    Returns "" or why the hook could not be installed (then jobs get no deps)."""
    if _dynamo_hook_state["installed"]:
        return ""
    if _dynamo_hook_state["error"]:
        return _dynamo_hook_state["error"]
    try:
        from torch._dynamo import convert_frame, output_graph, symbolic_convert
    except Exception as e:  # noqa: BLE001
        _dynamo_hook_state["error"] = f"torch._dynamo cannot be imported: {type(e).__name__}"
        return _dynamo_hook_state["error"]
    base = getattr(symbolic_convert, "InstructionTranslatorBase", None)
    original_init = getattr(base, "__init__", None)
    original_compile = getattr(convert_frame, "_compile", None)
    graph = getattr(output_graph, "OutputGraph", None)
    original_backend = getattr(graph, "call_user_compiler", None)
    if base is None or original_init is None or original_compile is None or original_backend is None:
        _dynamo_hook_state["error"] = "torch._dynamo lacks the functions the deps hook wraps"
        return _dynamo_hook_state["error"]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        original_init(self, *args, **kwargs)
        if _active_recorders:
            code = getattr(self, "f_code", None)
            if isinstance(code, types.CodeType):
                for r in _active_recorders:
                    _add_code(r.dynamo_codes, code)

    @functools.wraps(original_compile)
    def _compile(*args: Any, **kwargs: Any) -> Any:
        recorder = active_recorder()
        if recorder is None:
            return original_compile(*args, **kwargs)
        recorder.pause()
        try:
            return original_compile(*args, **kwargs)
        finally:
            recorder.resume()

    @functools.wraps(original_backend)
    def call_user_compiler(*args: Any, **kwargs: Any) -> Any:
        recorder = active_recorder()
        if recorder is None or not recorder.paused:
            return original_backend(*args, **kwargs)
        recorder.resume()
        try:
            return original_backend(*args, **kwargs)
        finally:
            recorder.pause()

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    base.__init__ = __init__
    convert_frame._compile = _compile
    graph.call_user_compiler = call_user_compiler
    _dynamo_hook_state["installed"] = True
    _pause_in_onnx_internals()
    return ""


# torch.onnx's stages after the capture: they decompose, translate and optimise a graph of aten ops,
# running no library code (a library's own custom-op kernels aside), and cost most of an ONNX
# export. Pausing there is only ever an optimisation: a missing name leaves the recording on.
_ONNX_QUIET = (
    ("torch.onnx._internal.exporter._core", None, "_prepare_exported_program_for_export"),
    ("torch.onnx._internal.exporter._core", None, "_exported_program_to_onnx_program"),
    ("torch.onnx._internal.exporter._onnx_program", "ONNXProgram", "optimize"),
    ("torch.onnx._internal.exporter._registration", "ONNXRegistry", "from_torchlib"),
)


def _quiet(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        recorder = active_recorder()
        if recorder is None:
            return fn(*args, **kwargs)
        recorder.pause()
        try:
            return fn(*args, **kwargs)
        finally:
            recorder.resume()

    wrapper._opsweep_quiet = True  # type: ignore[attr-defined]
    return wrapper


def _pause_in_onnx_internals() -> None:
    import importlib

    for module_name, class_name, attr in _ONNX_QUIET:
        try:
            owner: Any = importlib.import_module(module_name)
            if class_name is not None:
                owner = getattr(owner, class_name)
            raw = vars(owner)[attr] if class_name is not None else getattr(owner, attr)
        except Exception:  # noqa: BLE001 - not there in this torch: no pause
            continue
        kind = type(raw) if isinstance(raw, (classmethod, staticmethod)) else None
        fn = raw.__func__ if kind is not None else raw
        if getattr(fn, "_opsweep_quiet", False):
            continue
        setattr(owner, attr, kind(_quiet(fn)) if kind is not None else _quiet(fn))


def prepare_recording() -> None:
    """Install what recording needs before any job's clock starts (the Dynamo hook, the frame
    hook's build)."""
    _install_dynamo_hook()
    native.frames()


# What the frame hook keeps: ``keep(filename)`` decides once per file (None: every code object).
# The worker narrows it to the surveyed library and the registries, the only code a job's deps
# and sources are made of (deps/index.py ``LibraryIndex.deps``, job.py ``_sources``).
_scope: dict[str, Any] = {"keep": None, "decided": {}}


def record_only(keep: Callable[[str], bool] | None) -> None:
    """Record only code objects whose ``co_filename`` satisfies ``keep`` (None: all of them).
    Narrowing never changes a job's deps as long as ``keep`` admits every file they are read from."""
    _scope["keep"] = keep
    _scope["decided"] = {}



class CodeRef(NamedTuple):
    """Where a code object is (what ``LibraryIndex.locate`` reads), for a code object that cannot be
    hashed: Dynamo writes code whose constants hold a dict, and hashing a code object hashes its
    constants. Such a code object failed the whole job ("unhashable type: 'dict'")."""

    co_filename: str
    co_firstlineno: int
    co_name: str
    co_qualname: str


def _add_code(codes: set[Any], code: types.CodeType) -> None:
    try:
        codes.add(code)
    except TypeError:
        codes.add(CodeRef(code.co_filename, code.co_firstlineno, code.co_name, code.co_qualname))


class Recorder:
    """The code objects a job enters, and Dynamo's translated code.

    Two mechanisms record the same code objects (``deps/native.py`` says which this process uses):
    - the frame hook (``_frames.c``, PEP 523): every Python frame the interpreter evaluates, on
      every thread, filtered by ``record_only``'s predicate; about the cost of one dict lookup per
      frame, where a profile function puts the interpreter in tracing mode;
    - cProfile (calls only) on this thread and a Python profile function on threads started
      meanwhile, where the hook cannot be built.

    ``start()`` / ``stop()`` bracket one window; several windows add up. ``problem`` says why the
    recording is incomplete ("" when it is complete).
    """

    def __init__(self) -> None:
        self.codes: set[types.CodeType] = set()
        self.dynamo_codes: set[types.CodeType] = set()
        self.problem = ""
        self._window: str | None = None  # "frames" or "cprofile" while a window is open
        self._profiler: cProfile.Profile | None = None
        self._paused = 0
        self._thread_codes: set[types.CodeType] = set()

    def start(self) -> None:
        if self._window is not None:
            return
        why = _install_dynamo_hook()
        if why and not self.problem:
            self.problem = why
        hook = native.frames()
        if hook is not None and hook.start(_scope["decided"], _scope["keep"]):
            self._window = "frames"
            _active_recorders.append(self)
            return
        if sys.getprofile() is not None and not self.problem:
            self.problem = "another profiler was active when the job started"
        profiler = cProfile.Profile(builtins=False, subcalls=False)
        thread_codes = self._thread_codes

        def thread_profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                _add_code(thread_codes, frame.f_code)

        self._previous_thread_profile = threading.getprofile()
        threading.setprofile(thread_profile)
        _active_recorders.append(self)
        self._window = "cprofile"
        self._profiler = profiler
        profiler.enable()

    def pause(self) -> None:
        """Stop recording this thread until ``resume`` (nested pauses count)."""
        if self._window is None:
            return
        self._paused += 1
        if self._paused == 1:
            if self._window == "frames":
                native.frames().pause()
                return
            if sys.getprofile() is not self._profiler and not self.problem:
                self.problem = "the job replaced the profiler that records the code it runs"
            self._profiler.disable()  # type: ignore[union-attr]

    def accounts_for(self, profile: Any) -> bool:
        """Whether ``profile`` (``sys.getprofile()`` on this thread) is what this recorder's open
        window leaves there: its own profiler, or nothing when the frame hook records."""
        if self._window == "frames":
            return profile is None
        return self._window is not None and profile is not None and profile is self._profiler

    @property
    def paused(self) -> bool:
        return self._paused > 0

    def resume(self) -> None:
        if self._window is None or self._paused == 0:
            return
        self._paused -= 1
        if self._paused == 0:
            if self._window == "frames":
                native.frames().resume()
            else:
                self._profiler.enable()  # type: ignore[union-attr]

    def stop(self) -> None:
        window = self._window
        if window is None:
            return
        if self in _active_recorders:
            _active_recorders.remove(self)
        self._window = None
        if window == "frames":
            self._paused = 0
            codes, intact = native.frames().stop()
            if not intact and not self.problem:
                self.problem = "the job replaced the frame-evaluation hook that records the code it runs"
            for code in codes:
                _add_code(self.codes, code)
            return
        profiler = self._profiler
        displaced = self._paused == 0 and sys.getprofile() is not profiler
        self._paused = 0
        profiler.disable()  # type: ignore[union-attr]
        threading.setprofile(self._previous_thread_profile)  # type: ignore[arg-type]
        self._profiler = None
        if displaced and not self.problem:
            self.problem = "the job replaced the profiler that records the code it runs"
        for entry in profiler.getstats():  # type: ignore[union-attr]
            # a code object, or a builtin's label (a str)
            if isinstance(entry.code, types.CodeType):
                _add_code(self.codes, entry.code)
        self.codes |= self._thread_codes
        self._thread_codes = set()

    def __enter__(self) -> "Recorder":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def all_codes(self) -> set[types.CodeType]:
        return self.codes | self.dynamo_codes

    def merged(self, other: "Recorder") -> "Recorder":
        """One recorder holding both windows' codes (and the first problem of either)."""
        out = Recorder()
        out.codes = self.codes | other.codes
        out.dynamo_codes = self.dynamo_codes | other.dynamo_codes
        out.problem = self.problem or other.problem
        return out
