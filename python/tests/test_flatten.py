"""Output flattening (flatten.py): pytrees, .data objects, dataclasses, attributes, order."""

import collections
import dataclasses

import torch

from opsweep.flatten import describe, flatten

torch.set_num_threads(1)


class WithData:
    def __init__(self, t):
        self._t = t

    @property
    def data(self):
        return self._t


@dataclasses.dataclass
class Result:
    first: torch.Tensor
    rest: tuple
    label: str = "x"


class Plain:
    def __init__(self, a, b):
        self.a = a
        self.name = "plain"
        self.b = b


def ids(ts):
    return [int(t.flatten()[0]) for t in ts]


def T(v):
    return torch.tensor([v])


def test_tensor_tuple_list_dict_order():
    out = (T(0), [T(1), {"z": T(4), "a": T(2), "m": T(3)}], None, 7, "s")
    assert ids(flatten(out)) == [0, 1, 2, 3, 4]


def test_data_objects_dataclasses_and_plain_objects():
    out = {"k": WithData(T(5)), "d": Result(T(1), (T(2), WithData(T(3)))), "p": Plain(T(7), T(8))}
    # sorted keys: d, k, p
    assert ids(flatten(out)) == [1, 2, 3, 5, 7, 8]


def test_tensor_data_attribute_is_not_unwrapped_twice():
    p = torch.nn.Parameter(torch.ones(2))
    assert len(flatten(p)) == 1 and flatten(p)[0] is p


def test_named_tuple_and_nothing():
    NT = collections.namedtuple("NT", "x y")
    assert ids(flatten(NT(T(1), T(2)))) == [1, 2]
    assert flatten(3) == [] and flatten(None) == [] and flatten({"a": "b"}) == []


def test_cycles_and_depth_are_bounded():
    a = Plain(T(1), None)
    a.b = a  # cycle
    assert ids(flatten(a)) == [1]
    deep = T(9)
    for _ in range(50):
        deep = [deep]
    assert flatten(deep) == []


def test_describe():
    assert describe([torch.zeros(1, 2), torch.zeros(3, dtype=torch.bool)]) == {
        "count": 2, "shapes": [[1, 2], [3]], "dtypes": ["float32", "bool"]}
