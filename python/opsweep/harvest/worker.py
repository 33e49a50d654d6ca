"""``python -m opsweep.harvest.worker``: a harvest worker, driven by ``opsweep harvest``.

    python -m opsweep.harvest.worker --mode record|check --scratch DIR --proto-in FD --proto-out FD
                                     [--library NAME] [--max-variants N] [--max-tensor-mib M]
                                     [--registry FILE ...] [--threads N]

The protocol (docs/harvest.md, "Workers"): JSON objects, one per line, over the two inherited pipes;
stdout and stderr are the worker's log (what examples print goes there, never to the protocol).

- worker -> engine ``{"type":"hello","protocol":1,"pid":N}`` once ready (library imported, its public
  operators known; in check mode the draft registries loaded). A failure to get ready sends
  ``{"type":"error","message":...}`` and exits 2.
- engine -> worker ``{"type":"unit","id":K,"unit":{...}}``; the worker answers with any number of
  ``{"type":"step","id":K,"step":S,"where":"file:line"[,"resume":{...}]}`` (an example, a test or a
  check starts: the engine's deadline restarts; ``resume`` is the unit that goes on after this step
  if the step is killed), ``{"type":"event","id":K,"event":{...}}`` (what the unit found), then
  ``{"type":"done","id":K}``. A worker that ran a unit of tests exits after it, and says so
  (``"leaving":true``): pytest cannot run twice in one interpreter; the engine starts another.
- ``{"type":"shutdown"}`` or EOF: exit 0.

Units: ``{"kind":"doc","operator":NAME}`` runs that operator's docstring examples;
``{"kind":"tests","path":FILE,"root":DIR,"deselect":[...]}`` runs one test file under pytest;
``{"kind":"check","case":NAME}`` holds one draft case to the registries' standard (checks.py).
Events: ``call`` (a call of a public operator: a candidate case with its tensors saved under the
scratch folder, or the reason it is none), ``example_error``, ``no_example``, ``check``.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import json
import os
import re
import sys
import traceback
from typing import Any, BinaryIO

PROTOCOL = 1


class Channel:
    """The protocol pipes: one JSON object per line each way."""

    def __init__(self, fd_in: int, fd_out: int):
        for fd in (fd_in, fd_out):
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass
        self._in: BinaryIO = os.fdopen(fd_in, "rb")
        self._out: BinaryIO = os.fdopen(fd_out, "wb", buffering=0)

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        self._out.write(data.encode("utf-8") + b"\n")

    def receive(self) -> dict[str, Any] | None:
        while True:
            line = self._in.readline()
            if not line:
                return None
            if line.strip():
                return json.loads(line.decode("utf-8"))


_INSTALLED = re.compile(r"/\S*?/(?:site|dist)-packages/")
_ABSOLUTE_DIRS = re.compile(r"(?<![\w.~])/(?:[^\s/'\"():,]+/)+")


def scrub_paths(text: str) -> str:
    """Absolute paths out of a message (outputs hold none): an installed file as its path below
    site-packages (``torchmetrics/image/__init__.py``), any other as its file name."""
    return _ABSOLUTE_DIRS.sub("", _INSTALLED.sub("", text))


def error_text(e: BaseException) -> str:
    """``Type: message``, one line, absolute paths scrubbed, at most 300 characters."""
    text = " ".join(f"{type(e).__name__}: {e}".split())
    return scrub_paths(text)[:300]


def reset_global_state(threads: int) -> None:
    """What an earlier unit may have changed and the next must not inherit."""
    import torch

    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_num_threads(threads)
    try:
        torch.use_deterministic_algorithms(False)
    except Exception:  # noqa: BLE001
        pass


class Unit:
    """One unit's messages: steps and events, tagged with its id."""

    def __init__(self, channel: Channel, unit_id: int):
        self.channel = channel
        self.id = unit_id

    def step(self, step: int, where: str, resume: dict | None = None) -> None:
        message = {"type": "step", "id": self.id, "step": step, "where": where}
        if resume is not None:
            message["resume"] = resume
        self.channel.send(message)

    def event(self, event: dict) -> None:
        self.channel.send({"type": "event", "id": self.id, "event": event})


# ---------------------------------------------------------------------------------------------
# record mode


class Harvester:
    """Runs units of examples under the recorder and reports their calls (record mode)."""

    def __init__(self, library: str, scratch: str, max_variants: int, threads: int, max_tensor_mib: float = 1.0):
        from opsweep.harvest.surface import surface

        self.library = library
        self.scratch = scratch
        self.max_variants = max_variants
        self.max_tensor_bytes = int(max_tensor_mib * 2**20)
        self.threads = threads
        self.operators, self.table = surface(library)
        os.makedirs(os.path.join(scratch, "tensors"), exist_ok=True)

    def run(self, unit: Unit, payload: dict) -> bool:
        """Runs one unit; True when the worker must exit afterwards."""
        from opsweep.harvest.harness import seed_everything

        reset_global_state(self.threads)
        seed_everything(0)
        if payload.get("kind") == "tests":
            from opsweep.harvest.tests_source import run_tests

            run_tests(self, unit, payload)
            return True
        self.run_docstring(unit, payload["operator"])
        return False

    def run_docstring(self, unit: Unit, name: str) -> None:
        from opsweep.harvest.recorder import Recorder
        from opsweep.harvest.surface import doctest_of, relative_file

        op = self.operators.get(name)
        if op is None:
            unit.event({"kind": "no_example", "operator": name, "why": "not a public operator in this worker"})
            return
        try:
            test = doctest_of(op)
        except Exception as e:  # noqa: BLE001 - a docstring doctest cannot parse
            unit.event({"kind": "example_error", "operator": name, "step": 0, "line": 0,
                        "error": f"the docstring cannot be parsed: {error_text(e)}"})
            return
        if test is None:
            unit.event({"kind": "no_example", "operator": name, "why": "no >>> example in its docstring"})
            return
        file = relative_file(test.filename or "", self.library) if test.filename else "?"
        base = (test.lineno or 0) + 1
        recorder = Recorder(self.table, lambda code: code.co_filename.startswith("<doctest "))
        session = Session(self, unit, recorder, source="docs", origin_file=file)
        globs = test.globs
        for name_, module in doctest_namespace(self.library).items():
            globs.setdefault(name_, module)
        flags = doctest._extract_future_flags(globs)  # type: ignore[attr-defined]
        for i, example in enumerate(test.examples):
            if example.options.get(doctest.SKIP, False):
                continue
            line = base + example.lineno
            unit.step(i, f"{file}:{line}")
            recorder.step = i
            error = None
            try:
                code = compile(example.source, f"<doctest {test.name}[{i}]>", "single", flags, True)
                with _quiet():
                    recorder.start()
                    try:
                        exec(code, globs)
                    finally:
                        recorder.stop()
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # noqa: BLE001 - the example's failure is data
                if example.exc_msg is None:  # not an exception the example shows
                    error = error_text(e)
                    unit.event({"kind": "example_error", "operator": name, "step": i, "line": line,
                                "file": file, "error": error})
                else:
                    error = f"the example raises on purpose ({type(e).__name__})"
            session.flush(step=i, line_of=lambda rec: base + example.lineno + _line_in(example, rec.line),
                          error=error)
        globs.clear()

    def save_tensors(self, key: str, tensors: dict) -> str:
        import torch

        path = os.path.join(self.scratch, "tensors", f"{key}.pt")
        torch.save(tensors, path)
        return os.path.relpath(path, self.scratch)


def doctest_namespace(library: str) -> dict:
    """What examples may use without importing it, as libraries' doctest set-ups commonly provide
    (a conftest's ``doctest_namespace``): torch, numpy as ``np`` and the library under its name.
    A name the defining module already has keeps its value."""
    import importlib

    import numpy as np
    import torch

    return {"torch": torch, "np": np, library: importlib.import_module(library)}


def _line_in(example: doctest.Example, line: int) -> int:
    """The line of a call within a multi-line example (``...`` continuation lines)."""
    return max(0, min(line - 1, example.source.count("\n") - 1)) if line > 0 else 0


@contextlib.contextmanager
def _quiet():
    """What an example prints goes nowhere (its output is not compared)."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        yield


class Session:
    """Turns the records of a run (a docstring, a test) into ``call`` events, at most
    ``max_variants`` candidates per operator with distinct signatures."""

    def __init__(self, harvester: Harvester, unit: Unit, recorder: Any, source: str, origin_file: str):
        self.h = harvester
        self.unit = unit
        self.recorder = recorder
        self.source = source
        self.origin_file = origin_file
        self.done = 0  # records already reported
        self.seen: dict[str, set[str]] = {}
        self.saved = 0

    def flush(self, step: Any, line_of: Any, error: str | None, sort_key: Any = None, file_of: Any = None) -> None:
        from opsweep.harvest.render import Unbuildable, render

        records = self.recorder.records
        for rec in records[self.done:]:
            if rec.operator is None:
                continue
            if rec.kind == "construct" and rec.result_module:
                continue  # a module's operator is its call; building it is not a case
            event = {"kind": "call", "operator": rec.operator, "source": self.source,
                     "file": file_of(rec) if file_of else self.origin_file, "line": line_of(rec), "step": step,
                     "order": [sort_key if sort_key is not None else step, rec.index],
                     "group": self.h.operators[rec.operator].group if rec.operator in self.h.operators else "top"}
            if error is not None:
                event["why"] = f"its example raised: {error}" if not error.startswith("the example raises") else error
            elif not rec.returned:
                event["why"] = "the call did not return"
            elif not rec.has_tensor_output:
                event["why"] = "its output holds no tensor"
            else:
                try:
                    rendered = render(records, rec.index, self.h.table)
                except Unbuildable as e:
                    event["why"] = str(e)
                else:
                    size = sum(t.numel() * t.element_size() for t in (*rendered.inputs, *rendered.constants))
                    if size > self.h.max_tensor_bytes:
                        event["why"] = (f"its tensors take {size / 2**20:.1f} MiB, over the cap of "
                                        f"{self.h.max_tensor_bytes / 2**20:g} MiB a case (--max-tensor-mib)")
                        self.unit.event(event)
                        continue
                    seen = self.seen.setdefault(rec.operator, set())
                    if rendered.signature in seen:
                        continue
                    if len(seen) >= self.h.max_variants:
                        event["why"] = "over the variant cap"
                        self.unit.event(event)
                        continue
                    seen.add(rendered.signature)
                    key = f"u{self.unit.id}-{self.saved}"
                    self.saved += 1
                    tensors = {f"in{i}": t for i, t in enumerate(rendered.inputs)}
                    tensors.update({f"c{i}": t for i, t in enumerate(rendered.constants)})
                    event["case"] = {
                        "target": rendered.target,
                        "kwargs": rendered.kwargs,
                        "imports": rendered.imports,
                        "signature": rendered.signature,
                        "inputs": len(rendered.inputs),
                        "constants": len(rendered.constants),
                        "tensors": self.h.save_tensors(key, tensors),
                    }
            self.unit.event(event)
        self.done = len(records)


# ---------------------------------------------------------------------------------------------
# check mode


class Checker:
    """Checks draft cases (check mode). The drafts are loaded one file at a time and every case is
    fingerprinted as the run's loader does: a case whose line raises when loaded (drafts.py) or that
    cannot be fingerprinted is dropped with the reason, not the whole draft."""

    def __init__(self, registries: list[str], threads: int):
        from opsweep.harvest.drafts import FAILED
        from opsweep.registry import fingerprint, load_registry_file

        self.threads = threads
        self.cases = {}
        for path in registries:
            for c in load_registry_file(path):
                try:
                    fingerprint(c)
                except BaseException as e:  # noqa: BLE001 - RecursionError included: the loader would refuse it
                    FAILED[c.name] = f"it cannot be fingerprinted: {error_text(e)}"
                    continue
                self.cases[c.name] = c

    def run(self, unit: Unit, payload: dict) -> bool:
        from opsweep.harvest.checks import check_case

        reset_global_state(self.threads)
        name = payload["case"]
        c = self.cases.get(name)
        if c is None:
            from opsweep.harvest.drafts import FAILED

            why = FAILED.get(name)
            if why and not why.startswith("it cannot be fingerprinted"):
                why = f"its registry line raises when loaded: {why}"
            unit.event({"kind": "check", "case": name, "drop": why or "not in the draft registries"})
            return False
        result = check_case(c, lambda step, what: unit.step(step, what))
        unit.event({"kind": "check", "case": name, **result})
        return False


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m opsweep.harvest.worker")
    p.add_argument("--proto-in", type=int, required=True)
    p.add_argument("--proto-out", type=int, required=True)
    p.add_argument("--mode", choices=("record", "check"), required=True)
    p.add_argument("--scratch", required=True)
    p.add_argument("--library", default="")
    p.add_argument("--max-variants", type=int, default=3)
    p.add_argument("--max-tensor-mib", type=float, default=1.0)
    p.add_argument("--registry", action="append", default=[])
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    channel = Channel(args.proto_in, args.proto_out)
    import torch

    torch.set_num_threads(args.threads)
    try:
        if args.mode == "record":
            runner: Any = Harvester(args.library, args.scratch, args.max_variants, args.threads, args.max_tensor_mib)
        else:
            runner = Checker(args.registry, args.threads)
    except BaseException as e:  # noqa: BLE001 - the engine reports it and stops
        traceback.print_exc()
        channel.send({"type": "error", "message": error_text(e)})
        return 2
    channel.send({"type": "hello", "protocol": PROTOCOL, "pid": os.getpid()})
    while True:
        message = channel.receive()
        if message is None or message.get("type") == "shutdown":
            return 0
        if message.get("type") != "unit":
            channel.send({"type": "error", "message": f"unexpected message {message.get('type')!r}"})
            return 2
        unit = Unit(channel, int(message["id"]))
        try:
            leave = runner.run(unit, message["unit"])
        except Exception as e:  # noqa: BLE001 - our own failure on one unit is that unit's
            traceback.print_exc()
            unit.event({"kind": "harness_error", "error": error_text(e), "unit": message["unit"]})
            leave = False
        done: dict[str, Any] = {"type": "done", "id": unit.id}
        if leave:
            done["leaving"] = True
        channel.send(done)
        if leave:
            return 0


if __name__ == "__main__":
    sys.exit(main())
