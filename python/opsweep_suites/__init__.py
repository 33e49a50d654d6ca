"""opsweep's bundled suites: one package per surveyed library, each a folder of registries.

A suite is a package here whose folder holds registry files (``cases_*.py``, each defining
``CASES``), optionally ``presets/NAME.py`` (a registry that selects a subset, for ``--preset``) and
``_dynamic_overrides.py`` (the dynamic-shape paths' per-case overrides); its ``__init__.py`` names the
library it surveys (``LIBRARY = "name"``). The engine finds suites by listing this package
(``opsweep run --suite NAME``); a suite of your own is any folder laid out the same way
(``--suite DIR``). Neither the engine nor the harness names a suite.
"""
