#!/usr/bin/env bash
# The main job on a fresh machine: install everything, survey the quick preset of bundled kornia
# cases through every path (the three static ones and the three dynamic-shape ones), merge, and
# render the page. Prints where the page is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
out=.opsweep/quick
mkdir -p "$out"
# the committed survey's measured job times order the jobs (longest first) and ground the ETA
opsweep run --preset quick --db "$out/results.db" --durations-from snapshots/kornia/snapshot.timings.json
opsweep merge --db "$out/results.db" -o "$out/snapshot.json"
opsweep render "$out/snapshot.json" --html "$out/index.html" --rst "$out/page.rst" --md "$out/page.md"
echo
echo "The page: $PWD/$out/index.html"
