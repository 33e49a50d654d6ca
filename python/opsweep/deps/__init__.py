"""Which code of the surveyed library a job ran, and the current digest of every piece of it
(docs/formats.md sections 2 and 3.1: the ``index`` message, ``record.deps``). A result is current
while every piece of library code it depends on is unchanged, so an edit re-probes exactly the jobs
that ran the edited code: a build tool's rule, rebuild what depends on the edited file, never fewer.

- ``index``: the pieces (functions and modules) and their digests, by parsing the library;
- ``recorder``: what a job entered (a frame-evaluation hook, ``native``, and Dynamo's translated
  code);
- ``hidden``: what a job depends on without entering it (what a module's import ran, at the
  registries' loading or on a job's first use; what earlier jobs ran when they changed module state
  this job can read, such as a cache filled on first use);
- ``DepsTracker`` (here): the worker's view across jobs, turning a job's recording into its deps.

When the recording cannot be trusted (something displaced the recorder's hook or profiler, a library module was
imported before the worker could watch, the Dynamo hook is missing, a lazy target was built outside
any job), ``deps`` is null: the engine then keys the result on the whole library's fingerprint.
"""

from __future__ import annotations

from typing import Any

from opsweep.deps.hidden import HiddenDeps, ImportWatch, JobImports, loaded_modules, state_parts, state_signature
from opsweep.deps.index import (
    CHANGED_DURING_RUN,
    INDEX_VERSION,
    MISSING,
    TOKEN_DIGEST_PREFIX,
    FileIndex,
    FunctionId,
    LibraryIndex,
    digest,
    filesystem_now_ns,
    index_file,
)
from opsweep.deps.recorder import Recorder, prepare_recording, record_only


class DepsTracker:
    """What the worker keeps across jobs: the index and the hidden dependencies of modules.

    ``begin()`` before a job, ``end(recorder)`` after it: the job's ``record.deps`` (None when
    the recording cannot be trusted), and the module state it changed noted for later jobs.
    """

    def __init__(self, index: LibraryIndex, hidden: HiddenDeps, imports: JobImports | None = None):
        self.index = index
        self.hidden = hidden
        self.imports = imports  # library modules imported after the registries' loading

    def end(self, recorder: Recorder) -> dict[str, Any] | None:
        imported: set[FunctionId] = set()
        if self.imports is not None:  # what this job's imports ran, before its deps are taken
            imported = self.imports.drain(self.index, self.hidden)
        deps = None if recorder.problem else self.index.deps(recorder.all_codes(), self.hidden)
        functions = None
        if deps is not None:  # what changed module state in this job: its code and its imports'
            functions = {(n.rpartition(":")[0], n.rpartition(":")[2]) for n in deps["functions"]} | imported
        self.hidden.after(self.index, functions)
        return deps


__all__ = [
    "CHANGED_DURING_RUN",
    "INDEX_VERSION",
    "MISSING",
    "TOKEN_DIGEST_PREFIX",
    "DepsTracker",
    "FileIndex",
    "FunctionId",
    "HiddenDeps",
    "ImportWatch",
    "JobImports",
    "LibraryIndex",
    "Recorder",
    "digest",
    "filesystem_now_ns",
    "index_file",
    "loaded_modules",
    "prepare_recording",
    "record_only",
    "state_parts",
    "state_signature",
]
