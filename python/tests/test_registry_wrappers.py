"""The case toolkit's wrappers (opsweep.toolkit.wrappers) and the bundled registries that use them: one name, one behaviour."""

import ast
import collections
import os

import pytest
import torch

from opsweep import toolkit as W
from opsweep.public_names import public_name

torch.set_num_threads(1)

KORNIA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "opsweep_suites", "kornia")


def _registry_sources():
    for root, _, files in os.walk(KORNIA):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(root, f)
                yield os.path.relpath(path, KORNIA), ast.parse(open(path).read())


def test_every_class_name_in_the_registries_is_defined_once():
    """Eight classes named _Call once did four different things: a class name must say what it does."""
    where = collections.defaultdict(list)
    for rel, tree in _registry_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(rel)
    repeated = {name: files for name, files in where.items() if len(files) > 1}
    assert repeated == {}


def test_no_registry_keeps_its_own_copy_of_the_shared_helpers():
    copies = []
    for rel, tree in _registry_sources():
        for node in tree.body:
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            copies += [f"{rel}:{n}" for n in names if n in {"_MOD", "_code_id", "_W", "_Call", "_Replay", "_Fn"}]
            if isinstance(node, ast.ClassDef):
                copies += [f"{rel}:{node.name}.__module__" for s in node.body if isinstance(s, ast.Assign)
                           for t in s.targets if isinstance(t, ast.Name) and t.id == "__module__"]
    assert copies == []


def test_positional_passes_inputs_in_order_with_baked_objects():
    m = W.Positional(torch.nn.functional.hardtanh, max_val=0.5)
    assert torch.equal(m(torch.tensor([0.2, 0.9]), min_val=0.3), torch.tensor([0.3, 0.5]))
    assert public_name(m) == "torch.nn.functional.hardtanh"


def test_by_name_binds_each_input_to_its_parameter():
    def f(a, b, *, scale):
        return (a - b) * scale

    m = W.ByName(f, ("b", "a"), scale=2.0)
    assert torch.equal(m(torch.tensor(1.0), torch.tensor(4.0)), torch.tensor(6.0))
    with pytest.raises(TypeError, match="1 inputs for the 2 names"):
        m(torch.tensor(1.0))
    assert W.ByName(f, ("a",), surveys=torch.relu).__opsweep_target__ is torch.relu


def test_a_forwarding_declaration_makes_the_call_its_wrapper_makes():
    # opsweep repro calls the wrapped function through the declaration instead of the wrapper: it
    # must be the same call (arguments and order), for each wrapper that declares one
    def f(a, b, *, scale, shift=0.0):
        return (a - b) * scale + shift

    x, y = torch.tensor([1.0, 2.0]), torch.tensor([4.0, 8.0])
    for m in (W.Positional(f, scale=2.0), W.ByName(f, ("b", "a"), scale=2.0)):
        declared = m.__opsweep_forwards__()
        assert declared.fn is f
        assert torch.equal(declared(x, y, shift=1.0), m(x, y, shift=1.0)), type(m).__name__
    assert not hasattr(W.Assembled, "__opsweep_forwards__")  # more than forwarding: no declaration


def test_the_forwarding_declaration_is_no_part_of_a_fingerprint(monkeypatch):
    # a reproducer reads the declaration, no job runs it: editing it re-keys nothing, while editing
    # what forward does re-keys the wrapper's cases
    from opsweep.case import case
    from opsweep.fingerprint import fingerprint

    def keyed():
        return fingerprint(case("p", "g", W.Positional(torch.nn.functional.hardtanh, max_val=0.5), [torch.ones(3)]))

    before = keyed()
    monkeypatch.setattr(W.Positional, "__opsweep_forwards__", lambda self: None)
    assert keyed() == before
    monkeypatch.setattr(W.Positional, "forward", lambda self, *xs, **kw: self.fn(*xs, **kw))
    assert keyed() != before


def test_assembled_builds_the_call_arguments_from_named_inputs():
    def assemble(x, y):
        return ([{"x": x, "y": y}],), {"k": 3}

    m = W.Assembled(lambda d, k, offset: d[0]["x"] * k + d[0]["y"] + offset, ("x", "y"), assemble,
                    surveys=torch.nn.functional.relu, offset=1)
    assert torch.equal(m(torch.tensor(2.0), torch.tensor(5.0)), torch.tensor(12.0))
    assert public_name(m) == "torch.nn.functional.relu"


def test_forward_and_method_call():
    m = W.Forward(torch.nn.Linear, lambda x: (x, x + 1), outputs=lambda out: out[1])
    assert torch.equal(m(torch.zeros(2)), torch.ones(2))
    mc = W.method_call(torch.nn.Linear, "project", lambda x: x * 2)
    assert torch.equal(mc.project(torch.ones(1)), torch.full((1,), 2.0)) and torch.equal(mc(torch.ones(1)), torch.full((1,), 2.0))
    assert type(mc) is type(W.method_call(torch.nn.Conv2d, "project", lambda x: x))  # one class per method name
    assert public_name(mc) == "torch.nn.Linear" and not hasattr(W.Forward(torch.relu, abs), "project")


def test_module_call_registers_its_module():
    inner = torch.nn.Dropout(0.5)
    m = W.ModuleCall(inner, lambda mod, x: mod(x) * 0 + mod.training, torch.nn.Dropout)
    m.eval()
    assert not inner.training and torch.equal(m(torch.ones(2)), torch.zeros(2))


def test_with_params_replays_the_recorded_parameters_from_its_inputs():
    params = {"gain": torch.tensor([2.0, 3.0]), "batch_shapes": torch.tensor([2, 1]), "nested": [torch.tensor(1.0)]}
    template, tensors, paths = W.split_params(params, frozenset({"batch_shapes"}))
    assert paths == ["gain", "nested[0]"] and len(tensors) == 2

    class Gain(torch.nn.Module):
        def forward(self, x, params, bias=0.0):
            return x * params["gain"] + params["nested"][0] + bias + params["batch_shapes"].sum()

    m = W.WithParams(Gain(), template, 1, Gain, call_kwargs={"bias": 10.0})
    out = m(torch.ones(2), torch.tensor([4.0, 5.0]), torch.tensor(0.0))
    assert torch.equal(out, torch.tensor([17.0, 18.0]))  # the live inputs, not the recorded values
    custom = W.WithParams(Gain(), template, 1, Gain, call=lambda mod, p, x: mod(x, params=p))
    assert torch.equal(custom(torch.ones(2), *tensors), torch.tensor([6.0, 7.0]))


def test_a_replayed_call_rebuilds_kornia_objects_so_an_in_place_method_sees_the_recorded_value():
    # transform_boxes edits its Boxes in place: kept as recorded, the object was shared by every call
    # and each call saw the previous one's result (false mismatches on export and compile)
    from kornia.geometry.boxes import Boxes

    from opsweep_suites.kornia._breadth import replay

    boxes = Boxes.from_tensor(torch.tensor([[[1.0, 2.0, 5.0, 6.0]]]), mode="xyxy")

    def shift(b, by):
        b._data += by  # an in-place edit of the object's tensor, as kornia's *_ methods do
        return b.data

    recorded = boxes.data.clone()
    module, inputs = replay(shift, shift, (boxes, torch.tensor(1.0)), {})
    # the Boxes' tensors are graph inputs, not baked constants
    assert any(torch.equal(t, boxes.data) for t in inputs[:-1]) and torch.equal(inputs[-1], torch.tensor(1.0))
    first = module(*[t.clone() for t in inputs])
    second = module(*[t.clone() for t in inputs])
    assert torch.equal(first, second) and torch.equal(first, recorded + 1)
    assert torch.equal(boxes.data, recorded)  # the recorded object is untouched
