#!/usr/bin/env bash
# Joins the legs of the torch matrix (docs/ci-gate.md): per torch release, merges its shard
# databases into OUT/torch-R/snapshot.json, compares it with the committed one (if any), and renders
# the history page of every release into OUT. What the merge job of
# .github/workflows/opsweep-matrix.yml runs (docs/ci/opsweep-matrix.yml); the workflow then opens a
# pull request with OUT.
#
#   bash scripts/ci/matrix-merge.sh --shards ROOT --out snapshots/kornia-0.9.0 [--current RELEASE] [--report FILE]
#
# ROOT holds torch-R/shard-*.db (as matrix-shard.sh writes them). Writes OUT/torch-R/snapshot.json
# (+ .timings.json) and OUT/torch-R/results.jsonl (the shards' results as one committed text form,
# `opsweep results export`, from which the next refresh starts) for each R, OUT/index.html, page.rst and page.md, and the report FILE (default
# matrix-report.md; what changed per release against the committed snapshots, for the pull
# request's description).
# Exit status: 0 written; 1 a release's shards do not make a complete survey (merge refused: a shard
# is missing or failed; nothing of that release is replaced); 2 bad input.
set -euo pipefail

OPSWEEP=${OPSWEEP:-opsweep}
root="" out="" current="" report="matrix-report.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) root=${2:?--shards needs a folder}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --current) current=${2:?--current needs a torch release}; shift ;;
    --report) report=${2:?--report needs a file}; shift ;;
    *) echo "matrix-merge.sh: unknown option '$1' (known: --shards, --out, --current, --report)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$root" ] && [ -n "$out" ] || { echo "matrix-merge.sh: --shards ROOT and --out DIR are required" >&2; exit 2; }
shopt -s nullglob
releases=()
for dir in "$root"/torch-*/; do
  r=${dir%/}; r=${r##*/torch-}
  releases+=("$r")
done
[ ${#releases[@]} -gt 0 ] || { echo "matrix-merge.sh: no torch-*/ folders under $root" >&2; exit 2; }
mkdir -p "$out"
tmp_report=$(mktemp)
trap 'rm -f "$tmp_report"' EXIT
echo "## opsweep torch matrix" > "$tmp_report"
failed=0
for r in "${releases[@]}"; do
  shards=("$root/torch-$r"/shard-*.db)
  [ ${#shards[@]} -gt 0 ] || { echo "matrix-merge.sh: no shard databases for torch $r" >&2; failed=1; continue; }
  staged="$root/torch-$r/snapshot.json"
  if ! "$OPSWEEP" merge "${shards[@]}" -o "$staged"; then
    echo "matrix-merge.sh: the shards of torch $r do not make a complete survey; torch-$r is left as it was" >&2
    failed=1
    continue
  fi
  # The shards' results as one text form: each shard exported and imported into one database.
  combined="$root/torch-$r/combined.db"
  rm -f "$combined" "$combined-wal" "$combined-shm"
  for db in "${shards[@]}"; do
    "$OPSWEEP" results export --db "$db" -o "$root/torch-$r/part.jsonl" >&2
    "$OPSWEEP" results import "$root/torch-$r/part.jsonl" --db "$combined" >&2
  done
  "$OPSWEEP" results export --db "$combined" -o "$root/torch-$r/results.jsonl" >&2
  committed="$out/torch-$r/snapshot.json"
  echo >> "$tmp_report"
  if [ -f "$committed" ]; then
    "$OPSWEEP" diff "$committed" "$staged" --format md --limit 10 >> "$tmp_report" || [ $? -eq 1 ]
  else
    echo "### torch $r: new in the matrix" >> "$tmp_report"
  fi
  mkdir -p "$out/torch-$r"
  mv "$staged" "$committed"
  mv "$root/torch-$r/snapshot.timings.json" "$out/torch-$r/snapshot.timings.json"
  mv "$root/torch-$r/results.jsonl" "$out/torch-$r/results.jsonl"
done
snapshots=("$out"/torch-*/snapshot.json)
if [ ${#snapshots[@]} -ge 2 ]; then
  current_args=()
  [ -z "$current" ] || current_args=(--current "$out/torch-$current/snapshot.json")
  "$OPSWEEP" render "${snapshots[@]}" "${current_args[@]}" -o "$out"
elif [ ${#snapshots[@]} -eq 1 ]; then
  "$OPSWEEP" render "${snapshots[0]}" -o "$out"
fi
mv "$tmp_report" "$report"
trap - EXIT
exit "$failed"
