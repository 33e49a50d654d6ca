"""The runtime host: one persistent process per worker that runs ONNX files in other runtimes.

    python .../opsweep/runtimes/host.py --in FD --out FD --threads N

Started by ``client.RuntimeHost`` as a *script* (not ``-m opsweep...``): importing the opsweep
package would import torch, and the host must start in a fraction of a second and stay small.
It imports numpy, then each runtime the first time a request needs it.

Protocol: each message is an 8-byte big-endian length and a pickle (protocol 5) of a dict, over
two dedicated pipes (stdout and stderr are the worker's log, so whatever a runtime prints never
reaches the protocol). The worker sends one request and waits for its reply:

    {"op":"load","adapter":"adapters:OpenVINO","model":<bytes>,"input_names":[...]}
                                                                -> a new session (the old one dropped)
    {"op":"compile"}                                            -> the session's compile step
    {"op":"run","inputs":[<ndarray>, ...]}                      -> {"outputs":[<ndarray>, ...]}
    {"op":"close"}                                              -> the session dropped
    {"op":"convert","model":<bytes>,"opset":N,"apis":"onnxscript._framework_apis.torch_2_9"}
                                                                -> {"model":<bytes>}: an opset below
                                                                   18 (opsets.convert_serialized)
    {"op":"ping"}

Every reply is ``{"ok": true, "seconds": s, ...}`` or ``{"ok": false, "error": {"type", "message",
"chain"}}``: an exception inside a runtime is data. What cannot be an answer (a hang, a segfault,
an abort) is the client's to notice: it kills this process and reports ``timeout`` / ``crash``.
EOF on the request pipe (the worker is gone) exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pickle
import struct
import sys
import time
import traceback
from typing import Any, BinaryIO

HEADER = struct.Struct(">Q")
_HERE = os.path.dirname(os.path.abspath(__file__))


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    data = pickle.dumps(message, protocol=5)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message; None at EOF (a truncated message is EOF too: the peer died)."""
    head = _read_exactly(stream, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    data = _read_exactly(stream, size)
    if data is None:
        return None
    return pickle.loads(data)


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


_adapter_classes: dict[str, type] = {}


def resolve_adapter(spec: str) -> type:
    """``name:Class`` (the file name.py beside this one) or ``/abs/path/file.py:Class``."""
    if spec in _adapter_classes:
        return _adapter_classes[spec]
    where, _, cls_name = spec.rpartition(":")
    if not where or not cls_name:
        raise ValueError(f"bad adapter {spec!r}: expected name:Class or /path/file.py:Class")
    path = where if where.endswith(".py") else os.path.join(_HERE, f"{where}.py")
    module_name = f"_opsweep_runtime_{os.path.splitext(os.path.basename(path))[0]}"
    module = sys.modules.get(module_name)
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ImportError(f"cannot load adapter module {path}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
    cls = getattr(module, cls_name)
    _adapter_classes[spec] = cls
    return cls


def _root_cause(exc: BaseException) -> BaseException:
    """Follow __cause__, else __context__, to the innermost exception (as opsweep.evidence does)."""
    seen = {id(exc)}
    cur = exc
    while True:
        nxt = cur.__cause__ if cur.__cause__ is not None else cur.__context__
        if nxt is None or id(nxt) in seen:
            return cur
        seen.add(id(nxt))
        cur = nxt


def _error(exc: BaseException, cleaner: Any, root: bool = False) -> dict[str, Any]:
    """type, message and chain; with ``root``, type and message are the root cause's (the worker's
    own records name the root cause: opsweep.evidence), the chain is the whole one."""
    whole = exc
    if root:
        exc = _root_cause(exc)
    t = type(exc)
    name = t.__qualname__ if t.__module__ in ("builtins", None) else f"{t.__module__}.{t.__qualname__}"
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001
        text = f"<unprintable {t.__name__}>"
    try:
        message = cleaner(text) if cleaner is not None else text
    except Exception:  # noqa: BLE001
        message = text
    chain = "".join(traceback.format_exception(type(whole), whole, whole.__traceback__))
    return {"type": name, "message": message or text, "chain": chain}


def serve(requests: BinaryIO, replies: BinaryIO, threads: int) -> int:
    session: Any = None
    cleaner: Any = None
    while True:
        message = read_message(requests)
        if message is None:
            return 0
        op = message.get("op")
        t0 = time.perf_counter()
        reply: dict[str, Any] = {"ok": True}
        try:
            if op == "load":
                session = None
                cls = resolve_adapter(str(message["adapter"]))
                cleaner = getattr(cls, "clean_message", None)
                adapter = cls(threads)
                adapter.load(message["model"], list(message.get("input_names") or []))
                session = adapter
            elif op == "compile":
                _require(session).compile()
            elif op == "run":
                reply["outputs"] = _require(session).run(list(message["inputs"]))
            elif op == "close":
                session = None
            elif op == "convert":
                convert = resolve_adapter("opsets:convert_serialized")
                reply["model"] = convert(message["model"], int(message["opset"]), str(message["apis"]))
            elif op != "ping":
                raise ValueError(f"unknown request {op!r}")
        except (Exception, SystemExit) as e:  # noqa: BLE001 - a runtime's failure is an answer
            reply = {"ok": False, "error": _error(e, None if op == "convert" else cleaner, root=op == "convert")}
        reply["seconds"] = time.perf_counter() - t0
        try:
            write_message(replies, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            write_message(replies, {"ok": False, "error": _error(e, None), "seconds": reply["seconds"]})


def _require(session: Any) -> Any:
    if session is None:
        raise RuntimeError("no model loaded")
    return session


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="opsweep runtime host")
    p.add_argument("--in", dest="fd_in", type=int, required=True)
    p.add_argument("--out", dest="fd_out", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    requests = os.fdopen(args.fd_in, "rb")
    replies = os.fdopen(args.fd_out, "wb")
    try:
        return serve(requests, replies, max(1, args.threads))
    except BrokenPipeError:  # the worker went away
        return 0


if __name__ == "__main__":
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(code)  # no teardown: a runtime's atexit handlers must not hang the exit
