#!/usr/bin/env bash
# Utilisation of a real survey: sum of job durations / (wall x cores), on a real kornia subset
# (default: the color and filters groups, all three paths: 100+ jobs). Needs the real harness
# (python -m opsweep.worker) and the bundled registries installed in the Python that opsweep uses.
#
#   bash bench/bench_utilisation.sh [OPSWEEP_BINARY] [extra opsweep run options...]
#   e.g. bash bench/bench_utilisation.sh build/h2/opsweep --groups color,filters
#   bash bench/bench_utilisation.sh --help     # this usage, and nothing run
#
# Runs on a fresh database in a temporary directory (inductor's cache included, so the compile path
# pays its full cost, as a first survey would), then prints jobs, wall, cores, utilisation and
# cases per core-hour. Not a timed test.
set -euo pipefail
case "${1:-}" in
  -h|--help)
    echo "usage: bash bench/bench_utilisation.sh [OPSWEEP_BINARY] [extra opsweep run options...]"
    echo "Runs opsweep run -j \$(nproc) on a fresh database (default: --suite kornia --groups color,filters) and prints"
    echo "jobs, wall, cores, utilisation = sum of job durations / (wall x cores), and cases per core-hour."
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
bin=${1:-${OPSWEEP_BINARY:-build/tests/opsweep}}
shift || true
extra=("$@")
if [ ${#extra[@]} -eq 0 ]; then extra=(--suite kornia --groups color,filters); fi
cores=$(nproc)
tmp=$(mktemp -d /tmp/opsweep-util-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
"$bin" run --db "$tmp/results.db" -j "$cores" "${extra[@]}"
end=$(date +%s.%N)
python3 - "$tmp/results.db" "$start" "$end" "$cores" <<'PY'
import sqlite3, sys
db, start, end, cores = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
con = sqlite3.connect(db)
jobs, busy = con.execute("SELECT COUNT(*), COALESCE(SUM(duration_s), 0) FROM results").fetchone()
cases = con.execute("SELECT COUNT(DISTINCT case_name) FROM results").fetchone()[0]
by_status = con.execute("SELECT status, COUNT(*) FROM results GROUP BY status ORDER BY 2 DESC").fetchall()
wall = end - start
print(f"jobs {jobs} ({', '.join(f'{s} {n}' for s, n in by_status)}), cases {cases}")
print(f"wall {wall:.1f} s, cores {cores}, sum of job durations {busy:.1f} s")
print(f"utilisation {100 * busy / (wall * cores):.1f}%  (sum of job durations / (wall x cores))")
print(f"cases per core-hour {cases / (wall * cores / 3600):.0f}")
PY
