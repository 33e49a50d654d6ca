"""A recorded call as a case: its target, inputs and kwargs as Python source.

``render(records, index, table)`` turns record ``index`` of one unit (recorder.Record) into a
``Rendered`` case, or raises ``Unbuildable`` with the reason it cannot be one. The forms, plainest
first (opsweep.toolkit.harvested has the wrappers):

- ``fn`` with the tensors as inputs and Python values as kwargs, when the call's tensors are its
  leading positional arguments and no value holds a tensor (``binary_accuracy(preds, target,
  threshold=0.5)``); the same for a module instance (``BinaryAccuracy()``), a classmethod
  (``Boxes.from_tensor``) and the constructor of a class that is not a module (``Boxes``);
- ``Call(fn, ...)``: the recorded call with ``In(i)`` where it had tensors, for any other
  arrangement (a tensor after a Python value, tensors inside a list or dict);
- ``Method(function, receiver, ...)``: a method on an object the example built;
- ``Built(cls, Call(module, ...))``: the call of a module that a factory class returned
  (``Accuracy(task="binary")`` builds a ``BinaryAccuracy``), surveyed under the class the example
  called.

Objects a call needs are rebuilt from the recorded call that built them: an ``nn.Module`` as a
constant expression (``Cls(args)``, built when the registry loads, its tensors baked as constants,
so they are its parameters and buffers, never graph inputs); any other object (``Boxes``) by a
nested ``Call`` made on every forward, its tensors live graph inputs like the call's own.

Tensors are written as placeholders (``@@in0@@`` for the i-th input, ``@@c0@@`` for the i-th
baked constant) that ``assemble`` replaces by the data file's keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from opsweep.harvest.recorder import PublicTable, Record, module_of, reference


class Unbuildable(Exception):
    """Why a recorded call cannot become a case (one line)."""


@dataclasses.dataclass
class Rendered:
    target: str  # a Python expression
    inputs: list[torch.Tensor]
    constants: list[torch.Tensor]
    kwargs: str  # a dict literal, or "" for none
    imports: list[str]  # modules to import, sorted
    signature: str  # the call with tensors as dtype[shape]: what deduplication compares


def input_token(i: int) -> str:
    return f"@@in{i}@@"


def constant_token(i: int) -> str:
    return f"@@c{i}@@"


class _Renderer:
    def __init__(self, records: list[Record], table: PublicTable):
        self.records = records
        self.table = table
        self.inputs: list[torch.Tensor] = []
        self.constants: list[torch.Tensor] = []
        self.imports: set[str] = set()
        self.signature_parts: list[str] = []

    # values ------------------------------------------------------------------------------------

    def value(self, node: dict, record: Record, live: bool) -> str:
        if "t" in node:
            t = record.tensors[node["t"]]
            if live:
                self.inputs.append(t)
                return f"In({len(self.inputs) - 1})"
            self.constants.append(t)
            return constant_token(len(self.constants) - 1)
        if "lit" in node:
            if node["lit"].startswith("torch."):
                self.imports.add("torch")
            return node["lit"]
        if "ref" in node:
            self.imports.add(module_of(node["ref"]))
            return node["ref"]
        if "obj" in node:
            return self.object(node["obj"], live)
        if "list" in node:
            return "[" + ", ".join(self.value(v, record, live) for v in node["list"]) + "]"
        if "tuple" in node:
            items = [self.value(v, record, live) for v in node["tuple"]]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if "dict" in node:
            return "{" + ", ".join(f"{self.value(k, record, live)}: {self.value(v, record, live)}"
                                   for k, v in node["dict"]) + "}"
        raise Unbuildable(f"an argument is {node.get('bad', 'unknown')}, which cannot be rebuilt")

    def arguments(self, record: Record, live: bool) -> list[str]:
        out = [self.value(a, record, live) for a in record.args]
        out += [f"{k}={self.value(v, record, live)}" for k, v in record.kwargs.items()]
        return out

    def path(self, obj: Any) -> str:
        path = reference(obj, self.table)
        if path is None:
            raise Unbuildable(f"{getattr(obj, '__qualname__', obj)!r} cannot be imported by its name")
        self.imports.add(module_of(path))
        return path

    def object(self, index: int, live: bool) -> str:
        """An object a recorded call returned, rebuilt from that call."""
        made = self.records[index]
        if made.kind == "module":
            raise Unbuildable("an argument is the output object of a module call")
        if made.result_module:
            live = False  # a module is built once, its tensors its own state
        if made.kind == "method":
            receiver = self.receiver(made, live)
            if live:
                args = self.arguments(made, live)
                return f"Method({self.path(made.callee)}, {receiver}{''.join(', ' + a for a in args)})"
            return f"{receiver}.{made.callee.__name__}({', '.join(self.arguments(made, live))})"
        fn = self.path(made.callee)
        args = self.arguments(made, live)
        if live:
            return f"Call({fn}{''.join(', ' + a for a in args)})"
        return f"{fn}({', '.join(args)})"

    def receiver(self, record: Record, live: bool) -> str:
        node = record.receiver or {}
        if "obj" not in node:
            what = node.get("bad", "an object")
            raise Unbuildable(f"it is called on {what} that no call of the example to the library built")
        return self.object(node["obj"], live)


def _plain(record: Record) -> bool:
    """The call's tensors are its leading positional arguments, and nothing else holds a tensor or
    an object rebuilt on every forward."""
    seen_other = False
    for a in record.args:
        if "t" in a:
            if seen_other:
                return False
        else:
            seen_other = True
            if _live(a):
                return False
    if seen_other:
        return False  # a Python value before a tensor's position: kwargs cannot express it
    return not any(_live(v) for v in record.kwargs.values())


def _live(node: dict) -> bool:
    if "t" in node or "obj" in node or "bad" in node:
        return True
    for key in ("list", "tuple"):
        if key in node:
            return any(_live(v) for v in node[key])
    if "dict" in node:
        return any(_live(k) or _live(v) for k, v in node["dict"])
    return False


def render(records: list[Record], index: int, table: PublicTable) -> Rendered:
    """Record ``index`` as a case (see the module docstring); raises Unbuildable."""
    record = records[index]
    r = _Renderer(records, table)
    if record.kind == "method":
        receiver = r.receiver(record, live=True)
        args = r.arguments(record, live=True)
        target = f"Method({r.path(record.callee)}, {receiver}{''.join(', ' + a for a in args)})"
        kwargs = ""
    else:
        if record.kind == "module":
            fn = r.receiver(record, live=False)
        else:
            fn = r.path(record.callee)
        if record.surveys is not None:  # what a factory class returned, surveyed under that class
            args = r.arguments(record, live=True)
            target = f"Built({r.path(record.surveys)}, Call({fn}{''.join(', ' + a for a in args)}))"
            kwargs = ""
        elif _plain(record):
            for a in record.args:
                r.value(a, record, live=True)
            kwargs = "{" + ", ".join(f"{k!r}: {r.value(v, record, False)}" for k, v in record.kwargs.items()) + "}"
            kwargs = "" if kwargs == "{}" else kwargs
            target = fn
        else:
            args = r.arguments(record, live=True)
            target = f"Call({fn}{''.join(', ' + a for a in args)})"
            kwargs = ""
    if not r.inputs:
        raise Unbuildable("the call has no tensor argument: nothing would be a graph input")
    signature = "|".join([
        target,
        kwargs,
        ",".join(f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}" for t in r.inputs),
        ",".join(f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}" for t in r.constants),
    ])
    for i in range(len(r.constants)):
        signature = signature.replace(constant_token(i), "<const>")
    return Rendered(target, r.inputs, r.constants, kwargs, sorted(r.imports), signature)
