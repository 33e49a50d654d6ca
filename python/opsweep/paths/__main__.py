"""``python -m opsweep.paths``: each path's current harness digest, as JSON (path id -> digest):
the ``to`` of a new entry of opsweep/harness_migrations.json (docs/formats.md section 1)."""

import json

from opsweep.paths import PATHS, harness_digest

print(json.dumps({spec.id: harness_digest(spec) for spec in PATHS.values()}, indent=2))
