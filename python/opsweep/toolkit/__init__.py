"""The public case toolkit: what a registry of any library imports to write its cases.

- ``opsweep.toolkit.inputs``: seeded tensors (``rand``, ``randn``, ``randint``) and small images
  (``img``, ``batch``, ``gray``, ``rgba``, ``volume``, ``detector_image``);
- ``opsweep.toolkit.wrappers``: modules that make a public callable a case target when it cannot be
  one as it is (``Positional``, ``ByName``, ``Assembled``, ``Forward``, ``method_call``,
  ``ModuleCall``, ``WithParams``, ``Built``);
- ``opsweep.toolkit.fresh``: valid second values for inputs with structure (``structured``,
  ``derived``, ``twin``, ``keep``) and ``case``, which gives a case with such inputs its own fresh set.

Everything is re-exported here: ``from opsweep.toolkit import case, img, Positional``. The toolkit is
case code, not harness code: a case fingerprint hashes what a wrapper does and the input values it
made, so an edit here re-probes exactly the cases it changes, and the harness digest leaves it out
(docs/adding-cases.md).
"""

from __future__ import annotations

from opsweep.toolkit import fresh, inputs, wrappers
from opsweep.toolkit.fresh import *  # noqa: F401,F403
from opsweep.toolkit.inputs import *  # noqa: F401,F403
from opsweep.toolkit.wrappers import *  # noqa: F401,F403

__all__ = [*fresh.__all__, *inputs.__all__, *wrappers.__all__]
