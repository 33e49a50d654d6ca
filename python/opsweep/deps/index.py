"""The index of the surveyed library: every function and module, parsed with ``ast`` (never
imported for it), each with the digest of its code; where a code object belongs; which modules a
module's imports read (docs/formats.md section 3.1). The worker sends ``LibraryIndex.message()``
as the protocol's ``index`` message; records' ``deps`` hold the digests they had when measured.

- a *function* ``lib/color/gray.py:rgb_to_grayscale`` (file relative to the library, qualified
  name as Python spells ``__qualname__``): a digest of its tokens, first decorator to last line,
  without comments and line breaks inside brackets, each logical line with its indentation
  (``t:`` + 16 hex digits): equal digests mean the same syntax tree, so a comment, a blank line or
  a re-wrapped call re-probes nothing, while any token (a docstring's text too) counts.
  Definitions sharing a qualified name in one file (a property's getter and setter) share one
  entry. Lambdas, comprehensions and classes nested in a function belong to that function.
  Records measured before index version 4 hold a digest of the function's source lines; the
  index message still carries those (``line_functions``) so that they stay current while the
  lines are unchanged.
- a *module* ``lib/color/gray.py``: a digest of the file's syntax tree with every function body
  replaced by the function's name: a body edit leaves it alone; a constant, an import, a class
  attribute, a decorator, a signature or a default changes it.
- the *closure* of a set of files: the modules whose module-level code they read, following
  imports by name (``LibraryIndex.closure``).
The parse costs about 2 s for a library of 500 files; ``build`` reuses a cache file's entries whose
path, mtime and size match. A file modified after the worker started importing the library, or
after the index was taken, is *volatile*: its digests are ``changed-during-run``, never current.
"""

from __future__ import annotations

import ast
import dataclasses
import bisect
import hashlib
import io
import json
import os
import sys
import tokenize
import types
from typing import Any, Iterable, Protocol

from opsweep.library import Library

INDEX_VERSION = 4  # the index message's version; src/core/library_index.cc reads it
FunctionId = tuple[str, str]  # (file, qualname)
CHANGED_DURING_RUN = "changed-during-run"
MISSING = "missing"  # code entered that the index does not know (never current)
_PERSON = b"opsweep-deps-v1"
TOKEN_DIGEST_PREFIX = "t:"  # a function digest over tokens (index version 4); without it: over lines
_SKIPPED_TOKENS = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER})


def filesystem_now_ns(directory: str | None = None) -> int:
    """Now, as the kernel stamps a file's mtime (its coarse clock, with the file system's
    granularity): the mtime of a new file. Comparing library mtimes with ``time.time()`` instead
    would need a slack for the coarse clock, and an edit made within the slack before a run would
    then make a file volatile that was not edited during it."""
    import tempfile

    try:
        f = tempfile.TemporaryFile(dir=directory)
    except OSError:  # the directory is missing or read-only: any local file system's clock
        f = tempfile.TemporaryFile()
    with f:
        f.write(b"0")
        f.flush()
        return os.fstat(f.fileno()).st_mtime_ns


def digest(data: bytes) -> str:
    """16 hex digits (64 bits): a missed re-probe would need an edit that collides."""
    return hashlib.blake2b(data, digest_size=8, person=_PERSON).hexdigest()


# ---------------------------------------------------------------------------------------------
# The index: every function and module of the library, parsed


@dataclasses.dataclass
class FileIndex:
    rel: str  # "lib/color/gray.py"
    module: str  # "lib.color.gray"
    stat: tuple[int, int]  # (mtime_ns, size) when parsed
    module_digest: str
    functions: dict[str, str]  # qualname -> digest of its tokens ("t:...")
    line_functions: dict[str, str]  # qualname -> digest of its source lines (records before version 4)
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
            line_functions=dict(d["line_functions"]),
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


def _logical_tokens(text: str) -> tuple[list[int], list[str]] | None:
    """The file's tokens as the function digests read them: (start lines, texts). Comments, line
    breaks inside brackets and the INDENT/DEDENT tokens are left out; the first token of each
    logical line carries its column (the indentation, which is what INDENT/DEDENT said), and a
    logical line ends with "\n". None when the file does not tokenize."""
    lines: list[int] = []
    texts: list[str] = []
    line_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in _SKIPPED_TOKENS:
                continue
            if tok.type == tokenize.NEWLINE:
                lines.append(tok.start[0])
                texts.append("\n")
                line_start = True
                continue
            lines.append(tok.start[0])
            texts.append(f"{tok.start[1]}|{tok.string}" if line_start else tok.string)
            line_start = False
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return lines, texts


def _token_digests(text: str, spans: list[tuple[int, int, str]], line_functions: dict[str, str]) -> dict[str, str]:
    """qualname -> "t:" + digest of the tokens that start on its lines (every definition of the
    name, in order). A file that does not tokenize (ast parsed it, so hardly ever) falls back to
    the line digests: still sound, only comment-sensitive."""
    tokens = _logical_tokens(text)
    if tokens is None:
        return {q: TOKEN_DIGEST_PREFIX + d for q, d in line_functions.items()}
    lines, texts = tokens
    parts: dict[str, list[str]] = {}
    for first, last, qualname in sorted(spans):
        lo, hi = bisect.bisect_left(lines, first), bisect.bisect_right(lines, last)
        parts.setdefault(qualname, []).append("\x1f".join(texts[lo:hi]))
    return {q: TOKEN_DIGEST_PREFIX + digest("\0".join(p).encode("utf-8")) for q, p in sorted(parts.items())}


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
        return FileIndex(rel, module, (st.st_mtime_ns, st.st_size), digest(b"unparsable\0" + data), {}, {}, [], {}, [], [], {})
    walker = _Walker(text.splitlines(), module, is_init)
    walker.walk(tree.body, "", None)
    line_functions = {
        q: digest("\0".join(segs).encode("utf-8")) for q, segs in sorted(walker.segments.items())
    }
    functions = _token_digests(text, walker.spans, line_functions)
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
        line_functions=line_functions,
        spans=spans,
        bindings={n: _unique(t) for n, t in sorted(walker.bindings.items())},
        stars=sorted(set(walker.stars)),
        local_names=sorted(local_names),
        function_imports={q: _unique(t) for q, t in sorted(walker.function_imports.items())},
    )


def _unique(targets: list[Target]) -> list[Target]:
    return [list(t) for t in sorted({tuple(t) for t in targets})]


def spelled_names(codes: Iterable[Any]) -> set[str]:
    """The names code objects spell: globals, attributes, and identifier-like string constants
    (``getattr(obj, "attr")``)."""
    out: set[str] = set()
    for code in codes:
        if not isinstance(code, types.CodeType):
            continue
        out.update(code.co_names)
        for c in code.co_consts:
            if isinstance(c, str) and c.isidentifier():
                out.add(c)
    return out


class HiddenReads(Protocol):
    """What ``LibraryIndex.deps`` asks of the dependencies no call shows (deps/hidden.py
    ``HiddenDeps`` implements it; the index knows it by this interface only)."""

    reader_dirs: tuple[str, ...]  # folders of code besides the library's that may read its state

    def functions_read(self, index: LibraryIndex, files: set[str], names: set[str]) -> set[FunctionId]:
        """The functions behind module state changed after its import that a job entering code
        of ``files`` and spelling ``names`` can read."""
        ...

    def functions_of(self, modules: Iterable[str]) -> set[FunctionId] | None:
        """The import-time functions of ``modules`` (None: one of them is unknown)."""
        ...


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
    def build(library: Library, cache_path: str | None = None, started_ns: int | None = None) -> "LibraryIndex":
        """Parse every .py file of ``library`` (reusing ``cache_path`` entries whose path, mtime and
        size match). ``started_ns``: when the worker began importing the library, on the clock that
        stamps files (``filesystem_now_ns``); a file whose mtime is not before it is volatile (the
        code imported may not be the code parsed). A file stamped in the same clock tick counts as
        modified since: never current, never wrongly current."""
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
            if started_ns is not None and fi.stat[0] >= started_ns:
                volatile.append(rel)
        if cache_path and (dirty or set(files) != set(cached)):
            _write_cache(cache_path, library.root, files)
        return LibraryIndex(library, files, volatile)

    # -- the current digests, as the index message carries them

    def function_digests(self, lines: bool = False) -> dict[str, str]:
        """Every function's digest (``lines``: of its source lines, as records before index
        version 4 hold them)."""
        out = {}
        for rel in sorted(self.files):
            fi = self.files[rel]
            for q, d in (fi.line_functions if lines else fi.functions).items():
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

    def deps(self, codes: Iterable[types.CodeType], hidden: HiddenReads) -> dict[str, Any] | None:
        """``record.deps`` for a job that entered ``codes``; None when it cannot be trusted.
        ``hidden``: the dependencies no call shows (deps/hidden.py ``HiddenDeps``)."""
        codes = list(codes)
        functions: set[FunctionId] = set()
        roots: set[str] = set()
        for code in codes:
            rel, qual = self.locate(code)
            if rel is None:
                continue
            roots.add(rel)
            if qual is not None:
                functions.add((rel, qual))
        # module state changed after its import (a filled cache) that this job's code can read
        readers = hidden.reader_dirs
        spelling = [c for c in codes if isinstance(c, types.CodeType) and (
            self.relative(c.co_filename) is not None or (readers and c.co_filename.startswith(readers)))]
        functions |= hidden.functions_read(self, roots, spelled_names(spelling))
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
            "line_functions": self.function_digests(lines=True),
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
