"""Failure evidence: what a caught exception leaves in a job record, with no absolute paths.

Contract (docs/formats.md section 3, ``record.error``):
- ``type``: the qualified type of the *root cause*, found by following ``__cause__`` (else
  ``__context__``) to the innermost exception; builtins are bare (``RuntimeError``).
- ``message``: the root cause's text, scrubbed, at most 2000 characters.
- ``chain``: the whole chain as Python prints it (root cause first), scrubbed, at most 8000
  characters (head and tail kept, the cut marked).
- ``frames``: the innermost (at most 6) frames whose file lies inside the surveyed library, as
  ``lib/sub/file.py:LINE``, innermost first. Sources, first that gives any: (1) the traceback
  of the innermost exception of the chain that has such frames; (2) a Python stack the harness
  attached to an exception of the chain (``attach_stack``: e.g. where the eager call invoked the
  aten operation that torch.onnx could not translate, when the exception was raised while the
  graph was translated and no library frame was on the stack); (3) ``File "...", line N`` mentions
  in the messages (dynamo reports user code only there).
- ``registry_frames``: the same for registry code (``use_registries``: every ``.py`` file in the
  folder of a registry, e.g. ``cases_contrib.py:263``, ``_common.py:40``); a library file is never
  registry code.
- ``raised_in``: ``"registry"`` when the innermost library-or-registry frame of the failure is in
  registry code, ``"library"`` when it is in the library, ``""`` when neither appears. Where the
  failure was *raised* decides it, first that gives any: (0) the user code Dynamo was tracing
  (``real_stack``: a registry function that calls a compiled library function is on the
  traceback, the library code that failed while Dynamo traced it is not), then sources (1) and
  (3) (an attached stack says where an operation was called, not what raised). A registry failure also puts ``REGISTRY_MARKER`` on the
  first line of ``chain`` (the reason rules match text only; see ``REGISTRY_MARKER``).

``scrub(text)`` removes absolute paths, most specific first: the library's own files become
``lib/...``, the source checkout of opsweep ``<repo>/...``, site-packages ``<site-packages>/...``,
the standard library ``<stdlib>/...``, inductor's cache (``TORCHINDUCTOR_CACHE_DIR``)
``<inductor-cache>/...``, temp dirs ``<tmp>/...``, the home directory (and any
``/root/`` or ``/home/USER/``) ``~/...``. ANSI colour codes are removed too. Every text the worker
puts in a record goes through it.

First it puts back the paths torch cut: torch names a file by its path relative to the folder it
shares with torch's own, and for a file outside that tree (a checkout, a home folder) the shared
folder is ``/`` and one character too many goes: ``/home/me/proj/f.py:7`` reaches messages
("Caused by: (...)", guard reasons) as ``ome/me/proj/f.py:7``, a home path no rule recognises. A
``NAME/.../F.py:LINE`` that is the tail of a loaded module's file less its first two characters is
that file.
"""

from __future__ import annotations

import os
import re
import site
import sys
import sysconfig
import tempfile
import traceback
from typing import Any

from opsweep.library import Library

MESSAGE_LIMIT = 2000
CHAIN_LIMIT = 8000
FRAME_LIMIT = 6

_default_library: Library | None = None
_registry_dirs: tuple[str, ...] = ()
_scrubbers: dict[Library | None, list[tuple[re.Pattern[str], str]]] = {}

# A path prefix only counts when it starts a path: not preceded by a path character, or glued to a
# compiler's short option at a token start (the `-I` of `-I/root/include` in inductor's g++ command).
_BOUNDARY = r"(?:(?<![\w.~<>/-])|(?<=^-[A-Za-z])|(?<=[\s'\"(\[=,;{`]-[A-Za-z]))"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def use_library(library: Library | None) -> None:
    """Set the library that ``scrub`` and ``evidence`` use when none is passed."""
    global _default_library
    _default_library = library


def use_registries(folders: list[str]) -> None:
    """Set the folders whose ``.py`` files are registry code (see ``registry_frames``)."""
    global _registry_dirs
    out: list[str] = []
    for folder in folders:
        for v in _variants(os.path.abspath(folder)):
            if v not in out:
                out.append(v)
    _registry_dirs = tuple(out)


def registry_relative(path: str) -> str | None:
    """``cases_x.py`` for a file directly in a registry folder, ``None`` otherwise."""
    if not path or path.startswith("<") or not _registry_dirs:
        return None
    folder = os.path.dirname(os.path.normpath(os.path.abspath(path)))
    real = os.path.dirname(os.path.realpath(path))
    if folder in _registry_dirs or real in _registry_dirs:
        return os.path.basename(path)
    return None


def _repo_root() -> str | None:
    """The opsweep source checkout this module runs from, if any (not an installed copy)."""
    here = os.path.dirname(os.path.abspath(__file__))  # <repo>/python/opsweep
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.basename(os.path.dirname(here)) == "python" and os.path.exists(
        os.path.join(repo, "pyproject.toml")
    ):
        return repo
    return None


def _variants(path: str) -> list[str]:
    out = []
    for p in (os.path.normpath(path), os.path.realpath(path)):
        if p and p != os.sep and p not in out:
            out.append(p)
    return out


def _build_scrubber(library: Library | None) -> list[tuple[re.Pattern[str], str]]:
    pairs: list[tuple[str, str, str]] = []  # (prefix, replacement, lookahead)
    if library is not None:
        stem = library.name if library.is_package else os.path.basename(library.root)
        for parent in _variants(library.parent):
            pairs.append((parent + "/", "", re.escape(stem) + r"(?:/|\b)"))
    repo = _repo_root()
    if repo:
        for r in _variants(repo):
            pairs.append((r + "/", "<repo>/", ""))
    sites: list[str] = []
    try:
        sites += site.getsitepackages()
    except Exception:  # virtualenvs without getsitepackages
        pass
    try:
        sites.append(site.getusersitepackages())
    except Exception:
        pass
    for key in ("purelib", "platlib"):
        sites.append(sysconfig.get_paths().get(key, ""))
    for s in sites:
        if s:
            for v in _variants(s):
                pairs.append((v + "/", "<site-packages>/", ""))
    stdlib = sysconfig.get_paths().get("stdlib", "")
    if stdlib:
        for v in _variants(stdlib):
            pairs.append((v + "/", "<stdlib>/", ""))
    # inductor's cache (TORCHINDUCTOR_CACHE_DIR: opsweep run puts it beside the database, anywhere)
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    if os.path.isabs(cache):
        for v in _variants(cache.rstrip("/")):
            pairs.append((v + "/", "<inductor-cache>/", ""))
    for t in {tempfile.gettempdir(), "/tmp", "/var/tmp"}:
        for v in _variants(t):
            pairs.append((v + "/", "<tmp>/", ""))
    home = os.path.expanduser("~")
    if home and home != os.sep:
        for v in _variants(home):
            pairs.append((v + "/", "~/", ""))
    # Longest prefix first, so site-packages under the home dir become <site-packages>/.
    pairs.sort(key=lambda p: len(p[0]), reverse=True)
    out: list[tuple[re.Pattern[str], str]] = []
    seen = set()
    for prefix, repl, ahead in pairs:
        if (prefix, ahead) in seen:
            continue
        seen.add((prefix, ahead))
        pattern = _BOUNDARY + re.escape(prefix) + (f"(?={ahead})" if ahead else "")
        out.append((re.compile(pattern), repl))
    # Generic leftovers: any other home directory.
    out.append((re.compile(_BOUNDARY + r"/root/"), "~/"))
    out.append((re.compile(_BOUNDARY + r"/home/[^/\s\"'<>]+/"), "~/"))
    out.append((re.compile(_BOUNDARY + r"/Users/[^/\s\"'<>]+/"), "~/"))
    return out


# A relative file name with a line, as torch writes one it cut: "ork/main/x/f.py:7".
_CUT_PATH = re.compile(r"(?<![\w./~<>-])([A-Za-z0-9_][\w.-]*(?:/[\w.-]+)+\.py)(?=:\d)")
_cut_index: tuple[int, dict[str, str]] = (-1, {})


def whole_paths(text: str) -> str:
    """``text`` with every file name torch cut by one character too many put back whole (see the
    module docstring); other text is left as it is."""
    global _cut_index
    if "/" not in text or ".py:" not in text:
        return text
    count = len(sys.modules)
    if _cut_index[0] != count:
        index: dict[str, str] = {}
        for module in list(sys.modules.values()):
            whole = getattr(module, "__file__", None)
            if isinstance(whole, str) and whole.startswith("/") and len(whole) > 2 and whole[1] != "/":
                index.setdefault(whole[2:], whole)
        _cut_index = (count, index)
    index = _cut_index[1]
    return _CUT_PATH.sub(lambda m: index.get(m.group(1), m.group(1)), text)


def scrub(text: str, library: Library | None = None) -> str:
    """Remove absolute paths (and ANSI colour codes) from ``text``; see the module docstring."""
    if not text:
        return text
    lib = library if library is not None else _default_library
    rules = _scrubbers.get(lib)
    if rules is None:
        rules = _scrubbers[lib] = _build_scrubber(lib)
    text = whole_paths(_ANSI.sub("", text))
    for pattern, repl in rules:
        text = pattern.sub(repl, text)
    return text


def root_cause(exc: BaseException) -> BaseException:
    """Follow __cause__, else __context__, to the innermost exception (cycle-safe)."""
    seen = {id(exc)}
    cur = exc
    while True:
        nxt = cur.__cause__ if cur.__cause__ is not None else cur.__context__
        if nxt is None or id(nxt) in seen:
            return cur
        seen.add(id(nxt))
        cur = nxt


def exception_chain(exc: BaseException) -> list[BaseException]:
    """Outermost first, root cause last."""
    out = [exc]
    seen = {id(exc)}
    cur = exc
    while True:
        nxt = cur.__cause__ if cur.__cause__ is not None else cur.__context__
        if nxt is None or id(nxt) in seen:
            return out
        seen.add(id(nxt))
        out.append(nxt)
        cur = nxt


def type_name(exc: BaseException) -> str:
    t = type(exc)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", "__main__", None) else f"{mod}.{t.__qualname__}"


_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')

# Put on the first line of ``chain`` when the failure was raised in registry code: the reason rules
# (rules/outcomes.json, ``registry-error``) match text only, and the classifier reads the chain. It
# cannot come from probed code: ``neutralise`` rewrites any "[opsweep:" in the texts the failure
# produced before the marker is added.
REGISTRY_MARKER = "[opsweep:raised-in-registry]"
_MARKER_PREFIX = "[opsweep:"


def neutralise(text: str) -> str:
    """``text`` with every ``[opsweep:`` made ``[opsweep :``: a text the failure produced (a message,
    a chain, a runtime's error) can then never carry ``REGISTRY_MARKER`` or any other mark of ours.
    Every failure text that reaches a record goes through it before a marker is added."""
    return text.replace(_MARKER_PREFIX, "[opsweep :")


def attach_stack(exc: BaseException, stack: list[tuple[str, int]]) -> None:
    """Attach a Python stack (``(filename, line)`` pairs, outermost first) to ``exc``: where the
    failing operation was called, for failures raised when no library frame is on the stack."""
    exc.opsweep_stack = list(stack)  # type: ignore[attr-defined]


Locator = Any  # (filename) -> relative name or None


def _tb_frames(e: BaseException, locate: Locator) -> list[str]:
    """Matching traceback frames of ``e``, outermost first."""
    found = []
    for fs in traceback.extract_tb(e.__traceback__):
        rel = locate(fs.filename)
        if rel is not None:
            found.append(f"{rel}:{fs.lineno}")
    return found


def stack_frames(stack: list[tuple[str, int]], library: Library | None, limit: int = FRAME_LIMIT) -> list[str]:
    """The library frames of a Python stack (``(filename, line)`` pairs, outermost first, e.g. a
    graph break's user stack) as ``lib/x.py:LINE``, innermost first."""
    if library is None:
        return []
    found = [f"{rel}:{line}" for filename, line in stack if (rel := library.relative(filename)) is not None]
    return list(reversed(found[-limit:]))


def _attached_frames(e: BaseException, locate: Locator) -> list[str]:
    found = []
    for filename, line in getattr(e, "opsweep_stack", None) or []:
        rel = locate(filename)
        if rel is not None:
            found.append(f"{rel}:{line}")
    return found


def _traced_frames(e: BaseException, locate: Locator) -> list[str]:
    """The user code Dynamo was tracing when ``e`` was raised (``real_stack``, which torch's
    ``TracingContext`` puts on every exception raised while it traces): code that was being
    compiled, not run, so it is on no traceback, and it is inner to every frame that is: the real
    frames only called the compiled function."""
    found = []
    for fs in getattr(e, "real_stack", None) or []:
        filename, line = getattr(fs, "filename", None), getattr(fs, "lineno", None)
        if not isinstance(filename, str) or not isinstance(line, int):
            continue
        rel = locate(filename)
        if rel is not None:
            found.append(f"{rel}:{line}")
    return found


def _mentioned_frames(e: BaseException, locate: Locator) -> list[str]:
    found = []
    for m in _FILE_LINE.finditer(message_of(e)):
        rel = locate(m.group(1))
        if rel is not None:
            found.append(f"{rel}:{m.group(2)}")
    return found


def _frames(exc: BaseException, locate: Locator, sources: tuple[Any, ...], limit: int) -> list[str]:
    """Innermost first: the first source that yields frames for some exception of the chain
    (root cause first) wins."""
    chain = list(reversed(exception_chain(exc)))  # root cause first
    for source in sources:
        for e in chain:
            found = source(e, locate)
            if found:
                return list(reversed(found[-limit:]))
    return []


def _library_locator(library: Library | None) -> Locator:
    return (lambda f: None) if library is None else library.relative


def _registry_locator(library: Library | None) -> Locator:
    def locate(f: str) -> str | None:
        if library is not None and library.relative(f) is not None:
            return None  # a library file is never registry code (tests keep both in one folder)
        return registry_relative(f)

    return locate


def _either_locator(library: Library | None) -> Locator:
    lib, reg = _library_locator(library), _registry_locator(library)

    def locate(f: str) -> str | None:
        if lib(f) is not None:
            return "library"
        if reg(f) is not None:
            return "registry"
        return None

    return locate


_ALL_SOURCES = (_tb_frames, _attached_frames, _mentioned_frames)


def library_frames(exc: BaseException, library: Library | None, limit: int = FRAME_LIMIT) -> list[str]:
    """Innermost library frames of the failure as ``lib/x.py:LINE``, innermost first."""
    if library is None:
        return []
    return _frames(exc, _library_locator(library), _ALL_SOURCES, limit)


def registry_frames(exc: BaseException, library: Library | None, limit: int = FRAME_LIMIT) -> list[str]:
    """Innermost registry frames of the failure as ``cases_x.py:LINE``, innermost first."""
    return _frames(exc, _registry_locator(library), _ALL_SOURCES, limit)


def raised_in(exc: BaseException, library: Library | None) -> str:
    """``registry``, ``library`` or ``""``: the innermost library-or-registry frame of where the
    failure was raised (the code Dynamo was tracing, then tracebacks, then dynamo's user-code
    mentions; never an attached stack)."""
    frames = _frames(exc, _either_locator(library), (_traced_frames, _tb_frames, _mentioned_frames), 1)
    return frames[0].rsplit(":", 1)[0] if frames else ""


def bound(text: str, limit: int) -> str:
    """At most ``limit`` characters; a long text keeps its head and tail and says what was cut."""
    if len(text) <= limit:
        return text
    marker = "\n[... {} characters cut ...]\n"
    room = limit - len(marker.format(len(text)))
    head = room // 3
    tail = room - head
    cut = len(text) - head - tail
    return text[:head] + marker.format(cut) + text[len(text) - tail :]


def message_of(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception as e:  # a broken __str__ is evidence too
        text = f"<unprintable {type(exc).__name__}: {type(e).__name__}>"
    return text


def evidence(exc: BaseException, library: Library | None = None) -> dict[str, Any]:
    """The ``error`` object of a record for a caught exception."""
    lib = library if library is not None else _default_library
    root = root_cause(exc)
    try:
        chain = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:  # formatting must never fail the job
        chain = f"{type_name(exc)}: {message_of(exc)}"
    where = raised_in(exc, lib)
    chain = neutralise(scrub(chain, lib))
    if where == "registry":
        chain = f"{REGISTRY_MARKER} the failure was raised in registry code\n{chain}"
    return {
        "type": type_name(root),
        "message": neutralise(scrub(message_of(root), lib))[:MESSAGE_LIMIT],
        "chain": bound(chain, CHAIN_LIMIT),
        "frames": library_frames(exc, lib),
        "registry_frames": registry_frames(exc, lib),
        "raised_in": where,
    }


def first_line(text: str, limit: int = 300) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""
