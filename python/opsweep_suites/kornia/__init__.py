"""The bundled survey of kornia: hand-written registries (cases_*.py), the quick preset and the
dynamic-shape overrides."""

LIBRARY = "kornia"
