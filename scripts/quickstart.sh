#!/usr/bin/env bash
# The main job on a fresh machine: install everything, survey the quick preset of bundled kornia
# cases, merge, and render the page. Prints where the page is.
#   bash scripts/quickstart.sh             # the three static paths: onnx (with its other runtimes
#                                          # and opsets 17 and 25), export, compile
#   bash scripts/quickstart.sh --dynamic   # also the dynamic-shape paths (export-dynamic,
#                                          # onnx-dynamic, compile-dynamic); a static run's results
#                                          # are kept, only the new paths run
set -euo pipefail
cd "$(dirname "$0")/.."

paths=onnx,export,compile
for arg in "$@"; do
  case "$arg" in
    --dynamic) paths=$paths,export-dynamic,onnx-dynamic,compile-dynamic ;;
    *) echo "quickstart.sh: unknown option '$arg' (known: --dynamic)" >&2; exit 2 ;;
  esac
done

bash scripts/install.sh
out=.opsweep/quick
mkdir -p "$out"
# --opset 17,18,25: the committed survey's opsets, so the onnx jobs' keys are the full survey's.
# The committed survey's measured job times order the jobs (longest first) and ground the ETA.
opsweep run --suite kornia --preset quick --paths "$paths" --opset 17,18,25 --db "$out/results.db" \
  --durations-from snapshots/kornia/snapshot.timings.json
opsweep merge --db "$out/results.db" -o "$out/snapshot.json"
opsweep render "$out/snapshot.json" --html "$out/index.html" --rst "$out/page.rst" --md "$out/page.md"
echo
echo "The page: $PWD/$out/index.html"
case ",$paths," in
  *,compile-dynamic,*) ;;
  *) echo "(the three static paths; 'bash scripts/quickstart.sh --dynamic' adds the dynamic-shape paths)" ;;
esac
