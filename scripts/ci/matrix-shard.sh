#!/usr/bin/env bash
# One leg of the torch matrix (docs/ci-gate.md): shard I of N of the survey under one torch release.
# What .github/workflows/opsweep-matrix.yml runs per (torch, shard) (docs/ci/opsweep-matrix.yml).
#
#   bash scripts/ci/matrix-shard.sh TORCH I N [--root .opsweep/matrix] [--results FILE] [--python PY]
#                                   [-- OPTIONS FOR opsweep run]
#
# Under the main torch (the one requirements.txt pins) it runs every path with the main
# environment's python; under any other release it builds that release's environment
# (scripts/torch-env.sh) and runs the onnx, export and compile paths (the dynamic-shape paths are
# surveyed under the main torch only). --python (or $OPSWEEP_MATRIX_PYTHON) names an interpreter that
# already has that torch, instead. $OPSWEEP_RUN_ARGS (split on whitespace) adds options for opsweep
# run, before those after --. The shard's database is
# ROOT/torch-TORCH/shard-I.db (logs and inductor's cache beside it); its path is the last line printed.
# --results names that release's committed text form (results.jsonl); when the file exists it is
# imported first, so the leg re-probes only its jobs whose key changed (a missing file: a full leg).
# Exit status: opsweep run's; 2 for bad input.
set -euo pipefail

checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OPSWEEP=${OPSWEEP:-opsweep}
[ $# -ge 3 ] || { echo "usage: matrix-shard.sh TORCH I N [--root DIR] [--python PY] [-- RUN OPTIONS]" >&2; exit 2; }
torch=$1 shard=$2 shards=$3
shift 3
root=".opsweep/matrix" results="" python=${OPSWEEP_MATRIX_PYTHON:-}
read -r -a run_args <<< "${OPSWEEP_RUN_ARGS:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=${2:?--root needs a folder}; shift ;;
    --python) python=${2:?--python needs an interpreter}; shift ;;
    --results) results=${2:?--results needs a file}; shift ;;
    --) shift; run_args+=("$@"); break ;;
    *) echo "matrix-shard.sh: unknown option '$1' (known: --root, --results, --python, --)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$torch" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "matrix-shard.sh: '$torch' is not a torch release" >&2; exit 2; }
[[ "$shard" =~ ^[0-9]+$ && "$shards" =~ ^[0-9]+$ && "$shard" -ge 1 && "$shard" -le "$shards" ]] ||
  { echo "matrix-shard.sh: shard '$shard' of '$shards' is not I of N with 1 <= I <= N" >&2; exit 2; }

main_torch=$(sed -n 's/^torch==\([0-9.]*\).*/\1/p' "$checkout/requirements.txt")
paths=()
if [ "$torch" != "$main_torch" ]; then
  paths=(--paths onnx,export,compile)
  [ -n "$python" ] || python=$(bash "$checkout/scripts/torch-env.sh" "$torch")
fi
db="$root/torch-$torch/shard-$shard.db"
mkdir -p "$(dirname "$db")"
if [ -n "$results" ] && [ -f "$results" ]; then
  "$OPSWEEP" results import "$results" --db "$db" >&2
fi
"$OPSWEEP" run ${python:+--python "$python"} "${paths[@]}" --shard "$shard/$shards" --db "$db" "${run_args[@]}"
echo "$db"
