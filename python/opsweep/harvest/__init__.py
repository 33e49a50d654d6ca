"""``opsweep harvest``: cases from a library's own runnable examples (docs/harvest.md).

The engine (src/cli/verb_harvest.cc) drives four steps, each a module here:

- ``plan``: the public operators (opsweep.coverage's ``public_surface``) and the units of work:
  one per operator whose docstring has ``>>>`` examples, one per test file with ``--tests``;
- ``worker`` (record mode): runs a unit's examples under the ``recorder`` (the calls that the
  example's own code makes into the library, with their arguments as they were when each call
  started) and turns every call of a public operator into a candidate case (``render``);
- ``assemble draft``: deduplicates the candidates, caps the variants per operator, names them and
  writes draft registries with one data file of tensors;
- ``worker`` (check mode): holds each draft case to the bundled registries' standard
  (``checks``: deterministic, well-posed, a valid fresh-input set);
- ``assemble final``: the registries as they ship, and the summary.

Every step that runs library code runs in a worker the engine supervises (a deadline per example,
a memory limit, a crash costs that unit only); the other steps read and write files only.
"""
