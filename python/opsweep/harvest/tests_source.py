"""The second source (``opsweep harvest --tests DIR``): the calls a library's own tests make.

One unit is one test file, run by pytest inside the worker with the recorder on while each test
runs (setup, call, teardown). Example code is code in a file under DIR (the tests and their
conftest fixtures): a call the library makes internally is never recorded. Each test is a step of
the unit: its id is the step, and the step's ``resume`` payload is the same file with every test
started so far deselected, so a test that hangs or kills the interpreter costs that test only (the
engine runs the rest in a fresh worker). Calls made by a test that failed give no case. The worker
exits after the unit: pytest does not run twice in one interpreter.
"""

from __future__ import annotations

import os
from typing import Any


class _Plugin:
    def __init__(self, harvester: Any, unit: Any, payload: dict, session: Any, recorder: Any):
        self.h = harvester
        self.unit = unit
        self.payload = payload
        self.session = session
        self.recorder = recorder
        self.started: list[str] = list(payload.get("deselect", []))
        self.failure: str | None = None

    def _begin(self, item: Any) -> None:
        self.started.append(item.nodeid)
        resume = {**self.payload, "deselect": list(self.started)}
        file, line, _ = item.location
        self.unit.step(item.nodeid, f"{file}:{(line or 0) + 1}", resume=resume)
        self.failure = None
        self.recorder.step = item.nodeid

    def _end(self, item: Any) -> None:
        root = os.path.dirname(self.payload["root"])
        self.session.flush(
            step=item.nodeid,
            line_of=lambda rec: rec.line,
            error=None if self.failure is None else f"its test failed: {self.failure}",
            sort_key=item.nodeid,
            file_of=lambda rec: os.path.relpath(rec.file, root).replace(os.sep, "/"),
        )


def run_tests(harvester: Any, unit: Any, payload: dict) -> None:
    import pytest

    from opsweep.harvest.recorder import Recorder
    from opsweep.harvest.worker import Session

    root = os.path.abspath(payload["root"])
    prefix = root + os.sep
    recorder = Recorder(harvester.table, lambda code: code.co_filename.startswith(prefix))
    session = Session(harvester, unit, recorder, source="tests", origin_file="")
    state = _Plugin(harvester, unit, payload, session, recorder)

    class Hooks:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):  # noqa: ARG002
            state._begin(item)
            recorder.start()
            try:
                yield
            finally:
                recorder.stop()
                state._end(item)

        def pytest_runtest_logreport(self, report):
            if report.failed and state.failure is None:
                text = str(report.longrepr).strip().splitlines()
                state.failure = " ".join((text[-1] if text else report.outcome).split())[:200]

    args = [payload["path"], "-q", "-p", "no:cacheprovider", "--rootdir", root, "--confcutdir", root, "-o", "addopts=",
            *(f"--deselect={d}" for d in payload.get("deselect", []))]
    pytest.main(args, plugins=[Hooks()])
