"""The registry example of docs/adding-cases.md loads as written, with the toolkit alone."""

import os
import re

import torch

from opsweep.registry import load_registries

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "adding-cases.md")


def _example() -> str:
    text = open(DOC, encoding="utf-8").read()
    start = text.index("A registry that imports nothing from a bundled suite")
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)


def test_the_toolkit_example_loads_and_declares_its_structured_input(tmp_path):
    code = _example()
    assert "opsweep_suites" not in code and "from opsweep.toolkit import" in code
    path = tmp_path / "cases_doc_example.py"
    path.write_text(code)
    loaded = {lc.case.name: lc.case for lc in load_registries([str(path)])}
    assert sorted(loaded) == ["affine_grid", "avg_pool2d", "grid_sample[affine]"]
    warp = loaded["grid_sample[affine]"]
    # the declared matrices are the fresh set's second input, the image is redrawn like the harness would
    assert isinstance(warp.fresh_inputs, tuple) and len(warp.fresh_inputs) == 2
    assert not torch.equal(warp.fresh_inputs[1], warp.inputs[1])
    assert torch.allclose(warp.fresh_inputs[1][:, :, :2], torch.eye(2).expand(2, 2, 2), atol=0.1)
    assert loaded["avg_pool2d"].fresh_inputs is None  # nothing declared: the harness draws the set itself
    out = warp.target(*warp.inputs)
    assert out.shape == (2, 3, 32, 40)
