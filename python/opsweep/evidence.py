"""Failure evidence: what a caught exception leaves in a job record, with no absolute paths.

Contract (docs/formats.md section 3, ``record.error``):
- ``type``: the qualified type of the *root cause*, found by following ``__cause__`` (else
  ``__context__``) to the innermost exception; builtins are bare (``RuntimeError``).
- ``message``: the root cause's text, scrubbed, at most 2000 characters.
- ``chain``: the whole chain as Python prints it (root cause first), scrubbed, at most 8000
  characters (head and tail kept, the cut marked).
- ``frames``: the innermost (at most 6) traceback frames whose file lies inside the surveyed
  library, as ``kornia/sub/file.py:LINE``, innermost first. The innermost exception of the chain
  that has such frames wins; when no exception does (e.g. dynamo reports user code only inside its
  message), ``File "...", line N`` mentions in the chain text are used instead.

``scrub(text)`` removes absolute paths, most specific first: the library's own files become
``kornia/...``, the source checkout of opsweep ``<repo>/...``, site-packages ``<site-packages>/...``,
the standard library ``<stdlib>/...``, temp dirs ``<tmp>/...``, the home directory (and any
``/root/`` or ``/home/USER/``) ``~/...``. ANSI colour codes are removed too. Every text the worker
puts in a record goes through it.
"""

from __future__ import annotations

import os
import re
import site
import sysconfig
import tempfile
import traceback
from typing import Any

from opsweep.library import Library

MESSAGE_LIMIT = 2000
CHAIN_LIMIT = 8000
FRAME_LIMIT = 6

_default_library: Library | None = None
_scrubbers: dict[Library | None, list[tuple[re.Pattern[str], str]]] = {}

# A path prefix only counts when it starts a path: not preceded by a path character.
_BOUNDARY = r"(?<![\w.~<>/-])"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def use_library(library: Library | None) -> None:
    """Set the library that ``scrub`` and ``evidence`` use when none is passed."""
    global _default_library
    _default_library = library


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


def scrub(text: str, library: Library | None = None) -> str:
    """Remove absolute paths (and ANSI colour codes) from ``text``; see the module docstring."""
    if not text:
        return text
    lib = library if library is not None else _default_library
    rules = _scrubbers.get(lib)
    if rules is None:
        rules = _scrubbers[lib] = _build_scrubber(lib)
    text = _ANSI.sub("", text)
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


def _chain(exc: BaseException) -> list[BaseException]:
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


def library_frames(exc: BaseException, library: Library | None, limit: int = FRAME_LIMIT) -> list[str]:
    """Innermost library frames of the chain as ``kornia/x.py:LINE``, innermost first."""
    if library is None:
        return []
    for e in reversed(_chain(exc)):  # root cause first
        found = []
        for fs in traceback.extract_tb(e.__traceback__):
            rel = library.relative(fs.filename)
            if rel is not None:
                found.append(f"{rel}:{fs.lineno}")
        if found:
            return list(reversed(found[-limit:]))
    # Fallback: file mentions inside the messages (dynamo's "from user code" stacks).
    found = []
    for e in reversed(_chain(exc)):
        for m in _FILE_LINE.finditer(str(e)):
            rel = library.relative(m.group(1))
            if rel is not None:
                found.append(f"{rel}:{m.group(2)}")
        if found:
            return list(reversed(found[-limit:]))
    return []


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
    return {
        "type": type_name(root),
        "message": scrub(message_of(root), lib)[:MESSAGE_LIMIT],
        "chain": bound(scrub(chain, lib), CHAIN_LIMIT),
        "frames": library_frames(exc, lib),
    }


def first_line(text: str, limit: int = 300) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""
