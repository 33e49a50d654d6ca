"""Which code of the surveyed library a job ran, and the current digest of every piece of it.

This module owns two formats of docs/formats.md (section 3, ``record.deps``; section 2, the
``index`` message). A job's result is current while every piece of library code it depends on is
unchanged, so an edit re-probes exactly the jobs that ran the edited code (a build tool's rule:
rebuild what depends on the edited file, never fewer).

Pieces and their digests (``LibraryIndex``, built by parsing the library's ``.py`` files with
``ast``, never by importing them):
- a *function* ``kornia/color/gray.py:rgb_to_grayscale`` (file relative to the library, qualified
  name as Python spells ``__qualname__``: ``Class.method``, ``outer.<locals>.inner``): a digest of
  its source lines, first decorator to last line. Definitions sharing a qualified name in one file
  (a property's getter and setter, ``if``/``else`` variants) share one entry over all of them.
  Lambdas, comprehensions and class bodies nested in a function belong to that function.
- a *module* ``kornia/color/gray.py``: a digest of the file's syntax tree with every function body
  replaced by the function's name. A body edit leaves it alone; a constant, an import, a class
  attribute, a decorator, a signature or a default value changes it.

What a job depends on (``Recorder``, then ``LibraryIndex.deps``):
- every function whose code the job entered: a C-level profiler (``cProfile``, calls only, no
  line events) over the eager reference, the probe (capture and every run of the captured
  program) and the eager re-runs of the checks, plus every code object Dynamo translated (traced
  or tried to inline without running it: ``torch.compile``'s and ``explain``'s tracing, strict
  export), so code that only runs while capturing counts;
- the *module closure*: the files of all code entered (functions, module and class bodies), the
  modules the entered functions import in their bodies, and, transitively, every library module
  whose namespace a module in the closure reads through its own imports (``from a.b import n``
  reads ``a.b``, and ``a.b.n`` when that is a module; ``import a.b`` reads ``a`` and ``a.b``).
  A parent package's ``__init__`` runs before its submodules but is only included when imported;
- the functions the import of a closure module called (module-level code such as
  ``KERNEL = make_kernel(5)``): measured once per worker while the registries load, by the
  profiler's call graph, attributed to the innermost module being executed.

When the job's recording cannot be trusted (another profiler displaced ours, a library module was
imported before the worker could watch its import, the Dynamo hook is missing), ``deps`` is null:
the engine then keys the result on the whole library's fingerprint, as before this module existed.
A file edited after the index was taken (during the run) gets the digest ``changed-during-run``,
which never matches, so its jobs are re-probed on the next run.
"""

from __future__ import annotations

import ast
import cProfile
import dataclasses
import functools
import hashlib
import json
import os
import sys
import threading
import types
from typing import Any, Iterable

from opsweep.library import Library

INDEX_VERSION = 3
FunctionId = tuple[str, str]  # (file, qualname)
CHANGED_DURING_RUN = "changed-during-run"
MISSING = "missing"  # code entered that the index does not know (never current)
_PERSON = b"opsweep-deps-v1"


def digest(data: bytes) -> str:
    """16 hex digits (64 bits): a missed re-probe would need an edit that collides."""
    return hashlib.blake2b(data, digest_size=8, person=_PERSON).hexdigest()


# ---------------------------------------------------------------------------------------------
# The index: every function and module of the library, parsed


@dataclasses.dataclass
class FileIndex:
    rel: str  # "kornia/color/gray.py"
    module: str  # "kornia.color.gray"
    stat: tuple[int, int]  # (mtime_ns, size) when parsed
    module_digest: str
    functions: dict[str, str]  # qualname -> digest
    spans: list[tuple[int, int, str]]  # (first line, last line, qualname), sorted by (first, -last)
    # What the module-level imports bind: name -> targets (see ``Target``); names bound by
    # ``from X import *`` may come from any module in ``stars``.
    bindings: dict[str, list[list[str]]]
    stars: list[str]
    local_names: list[str]  # names the module-level code binds other than by import
    function_imports: dict[str, list[list[str]]]  # qualname -> targets its body imports

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> "FileIndex":
        return FileIndex(
            rel=d["rel"],
            module=d["module"],
            stat=(int(d["stat"][0]), int(d["stat"][1])),
            module_digest=d["module_digest"],
            functions=dict(d["functions"]),
            spans=[(int(a), int(b), str(q)) for a, b, q in d["spans"]],
            bindings={k: [list(t) for t in v] for k, v in d["bindings"].items()},
            stars=list(d["stars"]),
            local_names=list(d["local_names"]),
            function_imports={k: [list(t) for t in v] for k, v in d["function_imports"].items()},
        )


def _module_name(rel: str) -> str:
    stem = rel[:-3]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def _package_of(module: str, is_init: bool) -> str:
    return module if is_init else module.rpartition(".")[0]


# A target of an import: ["m", "a.b"] reads the whole namespace of module a.b; ["n", "a.b", "x"]
# reads the name x of a.b (what a.b binds to x, or its submodule a.b.x). Only names of the library
# are followed; the rest (torch, the standard library) is keyed by the environment.
Target = list


def _import_bindings(node: ast.Import | ast.ImportFrom, module: str, is_init: bool) -> list[tuple[str, Target]]:
    """(bound name, target) for each name the statement binds; the name "*" for a star import.

    ``import a.b.c`` binds ``a`` (the code may read any attribute of it: its whole namespace);
    ``import a.b.c as m`` binds ``m`` to module a.b.c; ``from X import n as m`` binds ``m`` to
    the name n of X; relative imports are resolved against the file's package.
    """
    out: list[tuple[str, Target]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                out.append((alias.asname, ["m", alias.name]))
            else:
                top = alias.name.split(".", 1)[0]
                out.append((top, ["m", top]))
        return out
    if node.level:
        base_parts = _package_of(module, is_init).split(".") if module else []
        up = node.level - 1
        if up > len(base_parts):
            return out
        base_parts = base_parts[: len(base_parts) - up] if up else base_parts
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if not base:
        return out
    for alias in node.names:
        if alias.name == "*":
            out.append(("*", ["m", base]))
        else:
            out.append((alias.asname or alias.name, ["n", base, alias.name]))
    return out


_STATEMENT_LISTS = ("body", "orelse", "finalbody")


class _Walker:
    """One pass over the statements of one file (expressions hold no definitions or imports):
    functions (qualname, span, source segment), imports by scope. Function bodies are replaced
    by the function's name on the way, so the tree left is the module-level code."""

    def __init__(self, lines: list[str], module: str, is_init: bool):
        self.lines = lines
        self.module = module
        self.is_init = is_init
        self.segments: dict[str, list[str]] = {}
        self.spans: list[tuple[int, int, str]] = []
        self.bindings: dict[str, list[Target]] = {}
        self.stars: list[str] = []
        self.function_imports: dict[str, list[Target]] = {}

    def walk(self, statements: list[ast.stmt], prefix: str, function: str | None) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = prefix + node.name
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                last = node.end_lineno or node.lineno
                self.segments.setdefault(qualname, []).append("\n".join(self.lines[first - 1 : last]))
                self.spans.append((first, last, qualname))
                self.walk(node.body, qualname + ".<locals>.", qualname)
                node.body = [ast.Expr(ast.Constant(node.name))]
            elif isinstance(node, ast.ClassDef):
                self.walk(node.body, prefix + node.name + ".", function)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for name, target in _import_bindings(node, self.module, self.is_init):
                    if function is not None:
                        self.function_imports.setdefault(function, []).append(target)
                    elif name == "*":
                        self.stars.append(target[1])
                    elif prefix:  # a class body's import binds a class attribute: any name
                        self.bindings.setdefault("", []).append(target)
                    else:
                        self.bindings.setdefault(name, []).append(target)
            else:
                for field in _STATEMENT_LISTS:
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        self.walk(inner, prefix, function)
                for handler in getattr(node, "handlers", ()) or ():
                    self.walk(handler.body, prefix, function)
                for match_case in getattr(node, "cases", ()) or ():
                    self.walk(match_case.body, prefix, function)


def index_file(rel: str, path: str) -> FileIndex:
    """Parse one file. A file that does not parse gets a module digest over its bytes and no
    functions: any job that entered code of it is re-probed when it changes."""
    st = os.stat(path)
    with open(path, "rb") as f:
        data = f.read()
    module = _module_name(rel)
    is_init = rel.endswith("/__init__.py")
    try:
        text = data.decode("utf-8")
        tree = ast.parse(text, filename=rel)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return FileIndex(rel, module, (st.st_mtime_ns, st.st_size), digest(b"unparsable\0" + data), {}, [], {}, [], [], {})
    walker = _Walker(text.splitlines(), module, is_init)
    walker.walk(tree.body, "", None)
    functions = {
        q: digest("\0".join(segs).encode("utf-8")) for q, segs in sorted(walker.segments.items())
    }
    module_digest = digest(ast.dump(tree, annotate_fields=True, include_attributes=False).encode("utf-8"))
    local_names = set()
    for node in ast.walk(tree):  # bodies are stripped by now: this is module-level code only
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            local_names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local_names.add(node.name)
    spans = sorted(walker.spans, key=lambda s: (s[0], -s[1]))
    return FileIndex(
        rel=rel,
        module=module,
        stat=(st.st_mtime_ns, st.st_size),
        module_digest=module_digest,
        functions=functions,
        spans=spans,
        bindings={n: _unique(t) for n, t in sorted(walker.bindings.items())},
        stars=sorted(set(walker.stars)),
        local_names=sorted(local_names),
        function_imports={q: _unique(t) for q, t in sorted(walker.function_imports.items())},
    )


def _unique(targets: list[Target]) -> list[Target]:
    return [list(t) for t in sorted({tuple(t) for t in targets})]


class LibraryIndex:
    """The digests of every function and module of the library (see the module docstring)."""

    def __init__(self, library: Library, files: dict[str, FileIndex], volatile: Iterable[str] = ()):
        self.library = library
        self.files = files
        self.by_module = {fi.module: fi.rel for fi in files.values()}
        self._children: dict[str, list[str]] = {}
        for fi in files.values():
            parent = fi.module.rpartition(".")[0]
            if parent:
                self._children.setdefault(parent, []).append(fi.rel)
        # files edited after the worker started importing the library: never current
        self.volatile = set(volatile)
        self._closure_memo: dict[frozenset[tuple[str, str | None]], frozenset[str]] = {}
        self._code_memo: dict[tuple[str, int, str], tuple[str | None, str | None]] = {}
        self._rel_memo: dict[str, str | None] = {}

    @staticmethod
    def build(library: Library, cache_path: str | None = None, started: float | None = None) -> "LibraryIndex":
        """Parse every .py file of ``library`` (reusing ``cache_path`` entries whose path, mtime and
        size match). ``started``: the time the worker began importing the library; a file modified
        since then is volatile (the code imported may not be the code parsed)."""
        cached: dict[str, FileIndex] = {}
        if cache_path:
            cached = _read_cache(cache_path, library.root)
        files: dict[str, FileIndex] = {}
        volatile: list[str] = []
        dirty = False
        for rel, path in library.source_files():
            try:
                st = os.stat(path)
            except OSError:
                continue
            hit = cached.get(rel)
            if hit is not None and hit.stat == (st.st_mtime_ns, st.st_size):
                fi = hit
            else:
                try:
                    fi = index_file(rel, path)
                except OSError:
                    continue
                dirty = True
            files[rel] = fi
            if started is not None and fi.stat[0] >= int((started - 0.05) * 1e9):
                volatile.append(rel)
        if cache_path and (dirty or set(files) != set(cached)):
            _write_cache(cache_path, library.root, files)
        return LibraryIndex(library, files, volatile)

    # -- the current digests, as the index message carries them

    def function_digests(self) -> dict[str, str]:
        out = {}
        for rel in sorted(self.files):
            fi = self.files[rel]
            for q, d in fi.functions.items():
                out[f"{rel}:{q}"] = CHANGED_DURING_RUN if rel in self.volatile else d
        return out

    def module_digests(self) -> dict[str, str]:
        return {
            rel: (CHANGED_DURING_RUN if rel in self.volatile else self.files[rel].module_digest)
            for rel in sorted(self.files)
        }

    # -- mapping executed code to pieces

    def relative(self, filename: str) -> str | None:
        """The library-relative name of a code object's or module's file (None: not the library)."""
        rel = self._rel_memo.get(filename, "")
        if rel == "":
            rel = self.library.relative(os.path.abspath(filename)) if filename[:1] != "<" else None
            self._rel_memo[filename] = rel
        return rel

    def locate(self, code: types.CodeType) -> tuple[str | None, str | None]:
        """(file, qualname of the innermost function whose lines hold the code) for library code;
        (file, None) for module-level code (module and class bodies); (None, None) elsewhere."""
        key = (code.co_filename, code.co_firstlineno, code.co_name)
        hit = self._code_memo.get(key)
        if hit is not None:
            return hit
        rel = self.relative(code.co_filename)
        found: tuple[str | None, str | None] = (None, None)
        if rel is not None:
            fi = self.files.get(rel)
            qual = None
            if fi is not None and code.co_name != "<module>":
                line = code.co_firstlineno
                for first, last, q in fi.spans:
                    if first > line:
                        break
                    if line <= last:
                        qual = q  # later spans that still contain the line are nested deeper
            found = (rel, qual)
        self._code_memo[key] = found
        return found

    def closure(self, items: Iterable[tuple[str, str | None]]) -> frozenset[str]:
        """The library files whose module-level code the ``items`` read, following imports by
        name: an item is (file, None), the whole namespace of a module, or (file, name), one
        name of it. A whole module reads every name its imports bind (a star import: the whole
        source module). A name reads its module's code and: the submodule of that name, if
        any; when module-level code binds it, the whole module (its value may come from
        anything the module imports); else the import that binds it (a re-export, such as a
        package ``__init__`` gathering its submodules' functions), or the star-imported modules
        that define it; a name nobody binds statically, the whole module. The whole namespace
        of a package includes its submodules (the import system binds them there)."""
        key = frozenset(items)
        hit = self._closure_memo.get(key)
        if hit is not None:
            return hit
        seen: set[tuple[str, str | None]] = set()
        files: set[str] = set()
        todo = [i for i in key if i[0] in self.files]
        while todo:
            item = todo.pop()
            if item in seen or (item[0], None) in seen and item[1] is not None:
                continue
            seen.add(item)
            rel, name = item
            fi = self.files[rel]
            files.add(rel)
            if name is None:
                for targets in fi.bindings.values():
                    todo.extend(self._items(targets))
                todo.extend(self._items([["m", m] for m in fi.stars]))
                # a package's namespace holds every submodule imported anywhere
                todo.extend((child, None) for child in self._children.get(fi.module, ()))
                continue
            sub = self.by_module.get(f"{fi.module}.{name}")
            if sub is not None:
                todo.append((sub, None))
            if name in fi.local_names:
                todo.append((rel, None))  # computed here, from anything the module imports
            elif name in fi.bindings:
                todo.extend(self._items(fi.bindings[name]))  # a re-export: follow it alone
            elif sub is None:
                sources = [r for r in self._star_sources(rel) if self._defines(r, name)]
                # from a star import; a name nobody defines is dynamic: the whole module
                todo.extend([(r, name) for r in sources] if sources else [(rel, None)])
        out = frozenset(files)
        self._closure_memo[key] = out
        return out

    def _star_sources(self, rel: str) -> list[str]:
        fi = self.files[rel]
        return [r for m in fi.stars if (r := self.by_module.get(m)) is not None]

    def _defines(self, rel: str, name: str, seen: set[str] | None = None) -> bool:
        """Whether module ``rel`` binds ``name`` (itself, by an import, or through its stars)."""
        seen = set() if seen is None else seen
        if rel in seen:
            return False
        seen.add(rel)
        fi = self.files[rel]
        if name in fi.local_names or name in fi.bindings:
            return True
        if self.by_module.get(f"{fi.module}.{name}") is not None:
            return True
        return any(self._defines(r, name, seen) for r in self._star_sources(rel))

    def _items(self, targets: Iterable[Target]) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        for t in targets:
            rel = self.by_module.get(t[1])
            if t[0] == "n":
                if rel is not None:
                    out.append((rel, t[2]))
                else:  # ``from a.b import c`` where a.b.c is a module and a.b is not the library's
                    sub = self.by_module.get(f"{t[1]}.{t[2]}")
                    if sub is not None:
                        out.append((sub, None))
            elif rel is not None:
                out.append((rel, None))
        return out

    def deps(self, codes: Iterable[types.CodeType], hidden: "HiddenDeps") -> dict[str, Any] | None:
        """``record.deps`` for a job that entered ``codes``; None when it cannot be trusted."""
        functions: set[FunctionId] = set()
        roots: set[str] = set()
        for code in codes:
            rel, qual = self.locate(code)
            if rel is None:
                continue
            roots.add(rel)
            if qual is not None:
                functions.add((rel, qual))
        # the closure and the hidden dependencies of its modules, until neither grows: a hidden
        # function counts like an entered one (its file and its body's imports join the closure)
        todo = set(functions)
        items: set[tuple[str, str | None]] = {(r, None) for r in roots}
        while True:
            for rel, qual in todo:
                items.add((rel, None))
                fi = self.files.get(rel)
                if fi is not None:
                    items.update(self._items(fi.function_imports.get(qual, ())))
            modules = self.closure(items)
            extra = hidden.functions_of(modules)
            if extra is None:
                return None
            todo = extra - functions
            if not todo:
                break
            functions |= todo
        self._check_unchanged({*modules, *(r for r, _ in functions)})
        fdig: dict[str, str] = {}
        for rel, qual in sorted(functions):
            fi = self.files.get(rel)
            if rel in self.volatile:
                d = CHANGED_DURING_RUN
            elif fi is None or qual not in fi.functions:
                d = MISSING
            else:
                d = fi.functions[qual]
            fdig[f"{rel}:{qual}"] = d
        mdig = {
            rel: (CHANGED_DURING_RUN if rel in self.volatile else self.files[rel].module_digest)
            for rel in sorted(modules)
        }
        return {"functions": fdig, "modules": mdig}

    def _check_unchanged(self, rels: Iterable[str]) -> None:
        """Files edited since they were parsed become volatile (a stat each: cheap)."""
        for rel in rels:
            if rel in self.volatile:
                continue
            fi = self.files.get(rel)
            if fi is None:
                continue
            path = self._path_of(rel)
            try:
                st = os.stat(path)
            except OSError:
                self.volatile.add(rel)
                continue
            if (st.st_mtime_ns, st.st_size) != fi.stat:
                self.volatile.add(rel)

    def _path_of(self, rel: str) -> str:
        if not self.library.is_package:
            return self.library.root
        return os.path.join(self.library.root, *rel.split("/")[1:])

    def message(self) -> dict[str, Any]:
        """The ``index`` message of the worker protocol (docs/formats.md section 2)."""
        return {
            "type": "index",
            "version": INDEX_VERSION,
            "library": self.library.name,
            "functions": self.function_digests(),
            "modules": self.module_digests(),
        }


def _cache_key(root: str) -> str:
    return os.path.realpath(root)


def _read_cache(path: str, root: str) -> dict[str, FileIndex]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("version") != INDEX_VERSION or data.get("root") != _cache_key(root):
            return {}
        if data.get("python") != sys.version.split()[0]:  # ast.dump may differ between versions
            return {}
        return {d["rel"]: FileIndex.from_json(d) for d in data["files"]}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return {}


def _write_cache(path: str, root: str, files: dict[str, FileIndex]) -> None:
    data = {
        "version": INDEX_VERSION,
        "root": _cache_key(root),
        "python": sys.version.split()[0],
        "files": [files[r].as_json() for r in sorted(files)],
    }
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------
# Functions whose effect lives in a module's state


class HiddenDeps:
    """For each library module: the functions whose effect lives in the module's state, so that a
    job reading that state depends on them without entering them:
    - what the module's import ran (``KERNEL = make_kernel(5)``; a decorator's body), measured
      by a profiler's call graph while the library is imported (``attribute_imports``);
    - what ran while the module's state changed after its import: a cache filled on first use by
      an earlier job, a registry building its cases (``after``). The state is the module's
      global bindings, the classes it defines (their attribute bindings), and the size and
      members of its top-level dicts, lists and sets and of its ``functools`` caches; a change
      found after a job makes every function that job ran a hidden dependency of the module (a
      superset: sound, and it only grows the deps of jobs that read the module).
    A module nobody watched (imported before the worker looked, or changed by a job whose
    recording is incomplete) is *unknown*: a job that reads it gets no deps (whole-library key).
    """

    def __init__(self) -> None:
        self.by_module: dict[str, set[FunctionId]] = {}
        self.unknown: set[str] = set()
        self.signatures: dict[str, int] = {}

    def functions_of(self, modules: Iterable[str]) -> set[FunctionId] | None:
        out: set[FunctionId] = set()
        for rel in modules:
            if rel in self.unknown:
                return None
            out |= self.by_module.get(rel, set())
        return out

    def attribute_imports(self, index: "LibraryIndex", stats: list[Any]) -> None:
        """From a profiler's call graph (``subcalls=True``) over imports: each library module's
        ``<module>`` code, its callees, transitively, stopping at other modules' code."""
        entries: dict[Any, Any] = {}
        for e in stats:
            if not isinstance(e.code, str):
                entries[_code_key(e.code)] = e
        for e in stats:
            code = e.code
            if isinstance(code, str) or code.co_name != "<module>":
                continue
            rel, _ = index.locate(code)
            if rel is None:
                continue
            found: set[FunctionId] = set()
            seen: set[Any] = set()
            todo = [e]
            while todo:
                cur = todo.pop()
                for sub in cur.calls or ():
                    c = sub.code
                    if isinstance(c, str):
                        continue
                    k = _code_key(c)
                    if k in seen or c.co_name == "<module>":
                        continue
                    seen.add(k)
                    r, q = index.locate(c)
                    if r is not None and q is not None:
                        found.add((r, q))
                    nxt = entries.get(k)
                    if nxt is not None:
                        todo.append(nxt)
            self.by_module.setdefault(rel, set()).update(found)

    def baseline(self, index: "LibraryIndex", unknown: Iterable[str] = ()) -> None:
        """Take the state of every library module loaded now as the reference; ``unknown``:
        modules whose earlier history nobody watched."""
        self.unknown |= set(unknown)
        for rel, module in loaded_modules(index).items():
            self.signatures[rel] = state_signature(module)

    def after(self, index: "LibraryIndex", functions: set[FunctionId] | None) -> list[str]:
        """After code that ran ``functions`` (None: not known): modules whose state changed, or
        that were imported meanwhile, get them as hidden dependencies. Returns those modules."""
        changed = []
        for rel, module in loaded_modules(index).items():
            sig = state_signature(module)
            if self.signatures.get(rel) == sig:
                continue
            self.signatures[rel] = sig
            changed.append(rel)
            if functions is None:
                self.unknown.add(rel)
            else:
                self.by_module.setdefault(rel, set()).update(functions)
        return changed


def loaded_modules(index: "LibraryIndex") -> dict[str, types.ModuleType]:
    """The library's modules imported in this interpreter, by file."""
    out = {}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and isinstance(mod, types.ModuleType):
            rel = index.relative(f)
            if rel is not None:
                out[rel] = mod
    return out


def _code_key(code: types.CodeType) -> tuple[str, int, str]:
    return (code.co_filename, code.co_firstlineno, code.co_qualname)


_CONTAINERS = (dict, list, set)


def _container_signature(value: Any) -> Any:
    if isinstance(value, dict):
        return (len(value), tuple((id(k), id(v)) for k, v in list(value.items())))
    if isinstance(value, list):
        return (len(value), tuple(id(v) for v in list(value)))
    return (len(value), frozenset(id(v) for v in list(value)))


def _value_signature(value: Any) -> Any:
    if isinstance(value, _CONTAINERS):
        return _container_signature(value)
    if isinstance(value, functools._lru_cache_wrapper):
        return value.cache_info().currsize
    return None


def state_signature(module: types.ModuleType) -> int:
    """A hash of the module state described in ``HiddenDeps`` (identities, not values: cheap)."""
    parts: list[Any] = []
    name = module.__name__
    for key, value in list(vars(module).items()):
        if (key.startswith("__") and key != "__all__") or isinstance(value, types.ModuleType):
            continue  # dunders (a warnings registry, the spec); submodules bound by later imports
        parts.append((key, id(value), _value_signature(value)))
        if isinstance(value, type) and getattr(value, "__module__", None) == name:
            for ck, cv in list(vars(value).items()):
                if isinstance(cv, (staticmethod, classmethod)):
                    cv = cv.__func__
                parts.append((key, ck, id(cv), _value_signature(cv)))
    return hash(tuple(parts))


# ---------------------------------------------------------------------------------------------
# Recording what a job runs


_dynamo_hook_state = {"installed": False, "error": ""}
_active_recorders: list["Recorder"] = []


def _install_dynamo_hook() -> str:
    """Patch Dynamo (once per process) so that, while a recorder is active:
    - every code object Dynamo translates (the frame it compiles and every function it inlines or
      tries to, run or not) reaches the recorder: ``InstructionTranslatorBase.__init__``;
    - the profiler is paused while Dynamo interprets bytecode (``convert_frame._compile``), where
      the hook above sees the code and a profiler would double the time of a compile job, and
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
                    r.dynamo_codes.add(code)

    @functools.wraps(original_compile)
    def _compile(*args: Any, **kwargs: Any) -> Any:
        recorder = _active_recorders[-1] if _active_recorders else None
        if recorder is None:
            return original_compile(*args, **kwargs)
        recorder.pause()
        try:
            return original_compile(*args, **kwargs)
        finally:
            recorder.resume()

    @functools.wraps(original_backend)
    def call_user_compiler(*args: Any, **kwargs: Any) -> Any:
        recorder = _active_recorders[-1] if _active_recorders else None
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
# export. Pausing there is only ever an optimisation: a missing name leaves the profiler on.
_ONNX_QUIET = (
    ("torch.onnx._internal.exporter._core", None, "_prepare_exported_program_for_export"),
    ("torch.onnx._internal.exporter._core", None, "_exported_program_to_onnx_program"),
    ("torch.onnx._internal.exporter._onnx_program", "ONNXProgram", "optimize"),
    ("torch.onnx._internal.exporter._registration", "ONNXRegistry", "from_torchlib"),
)


def _quiet(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        recorder = _active_recorders[-1] if _active_recorders else None
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
    """Install what recording needs before any job's clock starts (the Dynamo hook)."""
    _install_dynamo_hook()


class Recorder:
    """The code objects a job enters: a C-level profiler (calls only) on this thread, a Python
    profile function on threads started meanwhile, and Dynamo's translated code.

    ``start()`` / ``stop()`` bracket one window; several windows add up. ``problem`` says why the
    recording is incomplete ("" when it is complete).
    """

    def __init__(self) -> None:
        self.codes: set[types.CodeType] = set()
        self.dynamo_codes: set[types.CodeType] = set()
        self.problem = ""
        self._profiler: cProfile.Profile | None = None
        self._paused = 0
        self._thread_codes: set[types.CodeType] = set()

    def start(self) -> None:
        if self._profiler is not None:
            return
        why = _install_dynamo_hook()
        if why and not self.problem:
            self.problem = why
        if sys.getprofile() is not None and not self.problem:
            self.problem = "another profiler was active when the job started"
        profiler = cProfile.Profile(builtins=False, subcalls=False)
        add = self._thread_codes.add

        def thread_profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                add(frame.f_code)

        self._previous_thread_profile = threading.getprofile()
        threading.setprofile(thread_profile)
        _active_recorders.append(self)
        self._profiler = profiler
        profiler.enable()

    def pause(self) -> None:
        """Stop profiling until ``resume`` (nested pauses count)."""
        if self._profiler is None:
            return
        self._paused += 1
        if self._paused == 1:
            if sys.getprofile() is not self._profiler and not self.problem:
                self.problem = "the job replaced the profiler that records the code it runs"
            self._profiler.disable()

    @property
    def paused(self) -> bool:
        return self._paused > 0

    def resume(self) -> None:
        if self._profiler is None or self._paused == 0:
            return
        self._paused -= 1
        if self._paused == 0:
            self._profiler.enable()

    def stop(self) -> None:
        profiler = self._profiler
        if profiler is None:
            return
        displaced = self._paused == 0 and sys.getprofile() is not profiler
        self._paused = 0
        profiler.disable()
        threading.setprofile(self._previous_thread_profile)  # type: ignore[arg-type]
        if self in _active_recorders:
            _active_recorders.remove(self)
        self._profiler = None
        if displaced and not self.problem:
            self.problem = "the job replaced the profiler that records the code it runs"
        for entry in profiler.getstats():
            if not isinstance(entry.code, str):
                self.codes.add(entry.code)
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


class _StateAtImport:
    """A meta-path finder that wraps each module's loader for one import, so the module's state
    signature is taken the moment its code has run (before anything else can change it). The
    original loader is put back on the module and its spec before its code runs."""

    def __init__(self) -> None:
        self.states: dict[str, int] = {}  # module file -> state signature right after its import
        self._finding = False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if self._finding:
            return None
        self._finding = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._finding = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _SignatureLoader(spec.loader, self.states)
        return spec


class _SignatureLoader:
    def __init__(self, loader: Any, states: dict[str, int]):
        self._loader = loader
        self._states = states

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: types.ModuleType) -> None:
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self._loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self._loader
        self._loader.exec_module(module)
        f = getattr(module, "__file__", None)
        if isinstance(f, str):
            try:
                self._states[f] = state_signature(module)
            except Exception:  # noqa: BLE001 - no signature: the module counts as changed
                self._states.pop(f, None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class ImportWatch:
    """Watches a block that imports the library (the registries' loading): a profiler with its
    call graph (``stats``, for ``HiddenDeps.attribute_imports``; ``functions(index)``, what the
    block ran) and each module's state signature the moment its import finished."""

    def __init__(self) -> None:
        self.problem = ""
        self.stats: list[Any] = []
        self.files_before: set[str] = set()
        self._hook = _StateAtImport()

    @property
    def states_at_import(self) -> dict[str, int]:
        return self._hook.states

    def __enter__(self) -> "ImportWatch":
        self.files_before = {
            f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)
        }
        if sys.getprofile() is not None:
            self.problem = "another profiler was active while the library was imported"
        sys.meta_path.insert(0, self._hook)  # type: ignore[arg-type]
        self._profiler = cProfile.Profile(builtins=False, subcalls=True)
        self._profiler.enable()
        return self

    def __exit__(self, *exc: Any) -> None:
        displaced = sys.getprofile() is not self._profiler
        self._profiler.disable()
        try:
            sys.meta_path.remove(self._hook)  # type: ignore[arg-type]
        except ValueError:
            pass
        if displaced and not self.problem:
            self.problem = "the profiler watching the library's import was replaced"
        self.stats = self._profiler.getstats()

    def modules_before(self, index: "LibraryIndex") -> set[str]:
        """Library modules already imported when the block started (their import was not seen)."""
        return {rel for f in self.files_before if (rel := index.relative(f)) is not None}

    def functions(self, index: "LibraryIndex") -> set[FunctionId]:
        out = set()
        for e in self.stats:
            if not isinstance(e.code, str):
                rel, qual = index.locate(e.code)
                if qual is not None:
                    out.add((rel, qual))  # type: ignore[arg-type]
        return out

    def hidden_deps(self, index: "LibraryIndex") -> "HiddenDeps":
        """The hidden dependencies after the block: import-time calls by module, and for each
        module whose state changed after its import (a registry filled a cache, set a flag),
        every library function the block ran."""
        hidden = HiddenDeps()
        hidden.attribute_imports(index, self.stats)
        unknown = self.modules_before(index)
        if self.problem:
            unknown |= set(index.files)
        hidden.unknown |= unknown
        for f, sig in self.states_at_import.items():
            rel = index.relative(f)
            if rel is not None:
                hidden.signatures[rel] = sig
        hidden.after(index, self.functions(index))
        self.stats = []
        return hidden


class DepsTracker:
    """What the worker keeps across jobs: the index and the hidden dependencies of modules.

    ``begin()`` before a job, ``end(recorder)`` after it: the job's ``record.deps`` (None when
    the recording cannot be trusted), and the module state it changed noted for later jobs.
    """

    def __init__(self, index: LibraryIndex, hidden: HiddenDeps):
        self.index = index
        self.hidden = hidden

    def end(self, recorder: Recorder) -> dict[str, Any] | None:
        deps = None if recorder.problem else self.index.deps(recorder.all_codes(), self.hidden)
        functions = None
        if deps is not None:
            functions = {(n.rpartition(":")[0], n.rpartition(":")[2]) for n in deps["functions"]}
        self.hidden.after(self.index, functions)
        return deps


def likely_library(registry_files: Iterable[str]) -> str | None:
    """The library the registries most likely survey, read from their import statements without
    running them: the most imported top-level module that is not the standard library, torch,
    numpy or opsweep (ties: alphabetical). The worker imports it under an ``ImportWatch`` before
    the registries load; the final word is ``registry.guess_library`` over the loaded targets."""
    import collections

    skip = set(getattr(sys, "stdlib_module_names", ())) | {"torch", "numpy", "opsweep", "__future__"}
    counts: collections.Counter[str] = collections.Counter()
    for path in registry_files:
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for n in names:
                top = n.split(".", 1)[0]
                if top not in skip:
                    counts[top] += 1
    if not counts:
        return None
    best = max(counts.values())
    return sorted(m for m, n in counts.items() if n == best)[0]
