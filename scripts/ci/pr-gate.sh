#!/usr/bin/env bash
# The pull-request gate (docs/ci-gate.md): refresh the survey incrementally, merge it, and compare it
# with the committed snapshot. What .github/workflows/opsweep-pr.yml runs (docs/ci/opsweep-pr.yml).
#
#   bash scripts/ci/pr-gate.sh --snapshot COMMITTED.json [--results COMMITTED.jsonl] [--db .opsweep/results.db]
#                              [--out .opsweep/pr] [--fail-on regression|change] [--limit N] [-- OPTIONS FOR opsweep run]
#
# --results names the committed text form of the survey's results (`opsweep results export`): it is
# imported into the database first (results already there and newer are kept), so the refresh
# re-probes only the jobs whose key changed. Writes OUT/snapshot.json and OUT/results.jsonl (the
# refreshed survey: commit both to accept it), OUT/report.md (the pull-request comment),
# OUT/report.txt and OUT/report.json. Exit status: opsweep diff's (0 nothing regressed, 1 a regression
# or with --fail-on change any change), or 2 when the survey could not be refreshed or merged (the
# message says which step). `opsweep` must be on PATH (or $OPSWEEP). $OPSWEEP_RUN_ARGS (split on
# whitespace) adds options for opsweep run, e.g. "-j 4 --timeout 900", before those after --.
set -euo pipefail

OPSWEEP=${OPSWEEP:-opsweep}
snapshot="" results="" db=".opsweep/results.db" out=".opsweep/pr" fail_on="regression" limit="25"
read -r -a run_args <<< "${OPSWEEP_RUN_ARGS:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --snapshot) snapshot=${2:?--snapshot needs a file}; shift ;;
    --results) results=${2:?--results needs a file}; shift ;;
    --db) db=${2:?--db needs a path}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --fail-on) fail_on=${2:?--fail-on needs regression or change}; shift ;;
    --limit) limit=${2:?--limit needs a number}; shift ;;
    --) shift; run_args+=("$@"); break ;;
    *) echo "pr-gate.sh: unknown option '$1' (known: --snapshot, --results, --db, --out, --fail-on, --limit, --)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$snapshot" ] || { echo "pr-gate.sh: --snapshot COMMITTED.json is required" >&2; exit 2; }
[ -f "$snapshot" ] || [ -f "$snapshot/snapshot.json" ] || { echo "pr-gate.sh: no snapshot at $snapshot" >&2; exit 2; }
[ -z "$results" ] || [ -f "$results" ] || { echo "pr-gate.sh: no results file at $results" >&2; exit 2; }
mkdir -p "$out" "$(dirname "$db")"

# 0. Start from the committed results.
if [ -n "$results" ] && ! "$OPSWEEP" results import "$results" --db "$db"; then
  echo "pr-gate.sh: opsweep results import could not read $results (see above)" >&2
  exit 2
fi
# 1. Refresh: only jobs whose key changed run (the library code they ran, the harness, the environment).
if ! "$OPSWEEP" run --db "$db" "${run_args[@]}"; then
  echo "pr-gate.sh: opsweep run could not refresh the survey (see above)" >&2
  exit 2
fi
# 2. Merge: a survey with a job missing is refused (exit 1): that is not a verdict on the pull request.
if ! "$OPSWEEP" merge --db "$db" -o "$out/snapshot.json"; then
  echo "pr-gate.sh: opsweep merge refused the refreshed survey (see above)" >&2
  exit 2
fi
"$OPSWEEP" results export --db "$db" -o "$out/results.jsonl"
# 3. Compare. The reports are written whatever the verdict; the Markdown one is the comment.
status=0
"$OPSWEEP" diff "$snapshot" "$out/snapshot.json" --format md --limit "$limit" --fail-on "$fail_on" -o "$out/report.md" || status=$?
"$OPSWEEP" diff "$snapshot" "$out/snapshot.json" --format json --fail-on "$fail_on" -o "$out/report.json" || true
"$OPSWEEP" diff "$snapshot" "$out/snapshot.json" --fail-on "$fail_on" | tee "$out/report.txt" || true
if [ "$status" -ge 2 ]; then
  echo "pr-gate.sh: opsweep diff could not compare the snapshots (see above)" >&2
  exit 2
fi
case "$status" in
  0) echo "pr-gate.sh: passed (--fail-on $fail_on)" ;;
  1) echo "pr-gate.sh: FAILED (--fail-on $fail_on): see $out/report.md" >&2 ;;
esac
exit "$status"
