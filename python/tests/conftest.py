"""Shared fixtures. The worker run over the statuses registry for all three paths is the expensive
part of the suite (it compiles with inductor); it happens once per session (``statuses_run``) and
every status and protocol test asserts on it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (os.path.dirname(_HERE), _HERE):  # python/ (the harness) and python/tests/ (helpers)
    if _p not in sys.path:
        sys.path.insert(0, _p)
_FIXTURES = os.path.join(_HERE, "fixtures")
if _FIXTURES not in sys.path:
    sys.path.append(_FIXTURES)

from harness_helpers import INDUCTOR_CACHE, PATH_NAMES, STATUSES_REGISTRY, Worker  # noqa: E402


@pytest.fixture(scope="session")
def statuses_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One worker over the statuses registry, every case through every path."""
    log = str(tmp_path_factory.mktemp("worker") / "worker.log")
    w = Worker([STATUSES_REGISTRY], log, env={"TORCHINDUCTOR_CACHE_DIR": INDUCTOR_CACHE})
    hello = w.receive()
    inventory = w.receive()
    index = w.receive()
    assert hello and hello["type"] == "hello", (hello, w.log())
    assert inventory and inventory["type"] == "inventory", (inventory, w.log())
    assert index and index["type"] == "index", (index, w.log())
    results: dict[tuple[str, str], dict[str, Any]] = {}
    messages = []
    for entry in inventory["cases"]:
        for path in PATH_NAMES:
            message = w.job(entry["name"], path)
            assert message is not None, w.log()
            messages.append(message)
            results[(entry["name"], path)] = message["record"]
    unknown_case = w.job("no such case", "onnx")
    unknown_path = w.job("add_scaled", "tensorrt")
    w.send({"type": "shutdown"})
    code = w.close()
    return {"hello": hello, "inventory": inventory, "messages": messages, "results": results,
            "unknown_case": unknown_case, "unknown_path": unknown_path, "exit_code": code, "log": w.log()}


@pytest.fixture
def requested():
    """Choose the onnx path's opsets for one test (``requested(17, 23)``); 18 alone afterwards."""
    from opsweep.runtimes import opsets

    def choose(*ns: int) -> None:
        opsets.set_requested(tuple(ns))

    yield choose
    opsets.set_requested((opsets.OPSET,))
