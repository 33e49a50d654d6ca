"""Which code of the surveyed library a job ran, and the current digest of every piece of it
(docs/formats.md sections 2 and 3.1: the ``index`` message, ``record.deps``). A result is current
while every piece of library code it depends on is unchanged, so an edit re-probes exactly the jobs
that ran the edited code: a build tool's rule, rebuild what depends on the edited file, never fewer.

- ``index``: the pieces (functions and modules) and their digests, by parsing the library;
- ``recorder``: what a job entered (a C-level profiler, and Dynamo's translated code);
- ``hidden``: what a job depends on without entering it (what a module's import ran; what earlier
  jobs ran when they changed a module's state, such as a cache filled on first use);
- ``DepsTracker`` (here): the worker's view across jobs, turning a job's recording into its deps.

When the recording cannot be trusted (another profiler displaced ours, a library module was
imported before the worker could watch, the Dynamo hook is missing, a lazy target was built outside
any job), ``deps`` is null: the engine then keys the result on the whole library's fingerprint.
"""

from __future__ import annotations

from typing import Any

from opsweep.deps.hidden import HiddenDeps, ImportWatch, loaded_modules, state_signature
from opsweep.deps.index import (
    CHANGED_DURING_RUN,
    INDEX_VERSION,
    MISSING,
    FileIndex,
    FunctionId,
    LibraryIndex,
    digest,
    index_file,
)
from opsweep.deps.recorder import Recorder, prepare_recording


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


__all__ = [
    "CHANGED_DURING_RUN",
    "INDEX_VERSION",
    "MISSING",
    "DepsTracker",
    "FileIndex",
    "FunctionId",
    "HiddenDeps",
    "ImportWatch",
    "LibraryIndex",
    "Recorder",
    "digest",
    "index_file",
    "loaded_modules",
    "prepare_recording",
    "state_signature",
]
