"""opsweep harness: the case API, the worker and the capture paths.

Only what must touch torch lives here; the engine (the `opsweep` binary) does the rest.
Registries import `case` from here: ``from opsweep import case``.
"""

from opsweep.case import Case, RegistryError, case

__all__ = ["Case", "RegistryError", "case"]
__version__ = "0.1.0"
